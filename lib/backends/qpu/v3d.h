/* gr-gpufft qpu backend: running QPU programs, by direct V3D register
 * writes or through the firmware. */
#ifndef GPUFFT_QPU_V3D_H
#define GPUFFT_QPU_V3D_H

#include "host.h"
#include <chrono>
#include <cstdint>
#include <vector>

namespace gpufft::qpu {

//! V3D register offsets from the block's base (peripheral base + v3d_offset).
namespace v3d {
constexpr std::uint32_t l2cactl = 0x020; //!< L2 cache control
constexpr std::uint32_t slcactl = 0x024; //!< slice cache control
constexpr std::uint32_t srqpc = 0x430;   //!< user program request: code address (queues it)
constexpr std::uint32_t srqua = 0x434;   //!< user program request: uniforms address
constexpr std::uint32_t srqul = 0x438;   //!< user program request: uniforms length
constexpr std::uint32_t srqcs = 0x43c;   //!< user program request control and status
constexpr std::uint32_t dbcfg = 0xe00;   //!< debug configuration
constexpr std::uint32_t dbqite = 0xe2c;  //!< QPU interrupt enables
constexpr std::uint32_t dbqitc = 0xe30;  //!< QPU interrupt status (write 1 to clear)

// SRQCS fields.
constexpr std::uint32_t srqcs_error = 1u << 7;
constexpr std::uint32_t srqcs_clear_requests = 1u << 8;
constexpr std::uint32_t srqcs_clear_completed = 1u << 16;
inline unsigned srqcs_queue_length(std::uint32_t v) { return v & 0x3f; }
inline unsigned srqcs_completed(std::uint32_t v) { return (v >> 16) & 0xff; }
} // namespace v3d

//! One QPU program: its code and uniforms, by bus address.
struct qpu_program {
    std::uint32_t uniforms;
    std::uint32_t code;
};

/*!
 * Queues the programs through SRQUA/SRQPC and polls SRQCS until all have
 * completed. Interrupts from the QPUs stay off, so the firmware does not
 * see them. Throws gpufft::error if they have not finished within
 * `timeout`; the QPUs may then still be running.
 */
void run_direct(register_window& regs,
                const std::vector<qpu_program>& programs,
                std::chrono::milliseconds timeout);

/*!
 * Has the firmware run `count` programs whose qpu_program table is at
 * `control_bus`; for jobs too long to spin on. Throws gpufft::error on a
 * firmware timeout.
 */
void run_by_mailbox(mailbox& mb,
                    unsigned count,
                    std::uint32_t control_bus,
                    std::chrono::milliseconds timeout);

} // namespace gpufft::qpu

#endif
