// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: the VideoCore firmware mailbox (property interface). */
#ifndef GPUFFT_QPU_MAILBOX_H
#define GPUFFT_QPU_MAILBOX_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace gpufft::qpu {

/*!
 * One channel to the firmware: a property buffer goes in, the firmware
 * writes its reply into the same buffer. The real one is an ioctl on
 * /dev/vcio; tests substitute a fake. transfer() must be async-signal-safe,
 * since the signal handler releases GPU memory through it.
 */
class mailbox
{
public:
    virtual ~mailbox() = default;
    //! Returns 0, or the errno of a failed transfer.
    virtual int transfer(std::uint32_t* buffer) noexcept = 0;
};

//! Property tags (firmware wiki "Mailbox property interface").
namespace tag {
constexpr std::uint32_t firmware_revision = 0x00000001;
constexpr std::uint32_t board_revision = 0x00010002;
constexpr std::uint32_t mem_alloc = 0x0003000c;
constexpr std::uint32_t mem_lock = 0x0003000d;
constexpr std::uint32_t mem_unlock = 0x0003000e;
constexpr std::uint32_t mem_release = 0x0003000f;
constexpr std::uint32_t execute_qpu = 0x00030011;
constexpr std::uint32_t qpu_enable = 0x00030012;
} // namespace tag

//! mem_alloc flags.
namespace mem_flag {
constexpr std::uint32_t direct = 0x4;       //!< 0xC0000000 bus alias: uncached
constexpr std::uint32_t coherent = 0x8;     //!< 0x80000000 alias: L2 non-allocating
constexpr std::uint32_t l1_nonallocating = direct | coherent;
constexpr std::uint32_t zero = 0x10;
} // namespace mem_flag

//! Request code of a property buffer, and the reply codes in its word 1.
constexpr std::uint32_t request_code = 0;
constexpr std::uint32_t reply_success = 0x80000000;
//! Bit 31 of a tag's length word marks a tag the firmware answered.
constexpr std::uint32_t tag_answered = 0x80000000;
//! Longest buffer this driver builds: header, one tag of 4 arguments, end tag.
constexpr std::size_t max_property_words = 12;

/*!
 * Writes a one-tag request into `buffer` (at least max_property_words):
 * [total bytes, request_code, tag, value bytes, 0, args..., 0 (end tag)],
 * where value bytes is the larger of the arguments and the reply. Returns
 * the number of words written. No allocation: used in the signal handler.
 */
std::size_t encode_property(std::uint32_t* buffer,
                            std::uint32_t tag,
                            std::initializer_list<std::uint32_t> args,
                            std::size_t reply_words) noexcept;

/*!
 * Checks a reply to encode_property's request: the buffer succeeded, the tag
 * was answered with at least reply_words words. Copies them to `reply`.
 */
bool decode_property(const std::uint32_t* buffer,
                     std::size_t reply_words,
                     std::uint32_t* reply) noexcept;

//! encode, transfer, decode: false if any step failed.
bool property_call(mailbox& mb,
                   std::uint32_t tag,
                   std::initializer_list<std::uint32_t> args,
                   std::uint32_t* reply,
                   std::size_t reply_words) noexcept;

// The calls this driver makes; the throwing ones raise gpufft::error naming
// the call.
std::uint32_t firmware_revision(mailbox& mb);
std::uint32_t board_revision(mailbox& mb);
void qpu_enable(mailbox& mb, bool enable);
//! Returns the memory handle.
std::uint32_t mem_alloc(mailbox& mb, std::uint32_t bytes, std::uint32_t align, std::uint32_t flags);
//! Returns the bus address.
std::uint32_t mem_lock(mailbox& mb, std::uint32_t handle);
// Signal-safe: the release handler calls them.
bool mem_unlock(mailbox& mb, std::uint32_t handle) noexcept;
bool mem_release(mailbox& mb, std::uint32_t handle) noexcept;
/*!
 * Runs `count` QPU programs whose (uniforms, code) bus address pairs start at
 * `control_bus`, waiting up to timeout_ms. Returns the firmware's status:
 * 0 when they finished, execute_qpu_timed_out when they did not.
 */
std::uint32_t execute_qpu(mailbox& mb,
                          std::uint32_t count,
                          std::uint32_t control_bus,
                          bool no_flush,
                          std::uint32_t timeout_ms);
constexpr std::uint32_t execute_qpu_timed_out = 0x80000000;

} // namespace gpufft::qpu

#endif
