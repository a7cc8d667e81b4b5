// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: running QPU programs, by direct V3D register
 * writes or through the firmware. */
#ifndef GPUFFT_QPU_V3D_H
#define GPUFFT_QPU_V3D_H

#include "host.h"
#include <chrono>
#include <cstdint>
#include <vector>

namespace gpufft::qpu {

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
