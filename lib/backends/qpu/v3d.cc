// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: the two ways of submitting QPU programs. */
#include "v3d.h"
#include <gpufft/error.h>
#include <thread>

namespace gpufft::qpu {

void run_direct(register_window& regs,
                const std::vector<qpu_program>& programs,
                std::chrono::milliseconds timeout)
{
    // Settings as GPU_FFT makes them (gpu_fft_base.c): no QPU interrupts
    // (ours are polled), the L2 and slice caches cleared, request counters reset.
    regs.write(v3d::DBCFG, 0);
    regs.write(v3d::DBQITE, 0);
    regs.write(v3d::DBQITC, ~0u);
    regs.write(v3d::L2CACTL, v3d::L2CACTL_CLEAR);
    regs.write(v3d::SLCACTL, ~0u);
    regs.write(v3d::SRQCS, v3d::SRQCS_ERROR | v3d::SRQCS_CLEAR_QUEUED | v3d::SRQCS_CLEAR_COMPLETED);
    for (const qpu_program& p : programs) {
        regs.write(v3d::SRQUA, p.uniforms);
        regs.write(v3d::SRQPC, p.code);
    }
    const unsigned want = unsigned(programs.size()) & 0xff;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (unsigned polls = 0;; ++polls) {
        const std::uint32_t status = regs.read(v3d::SRQCS);
        if (v3d::srqcs_completed(status) == want)
            return;
        if (std::chrono::steady_clock::now() > deadline)
            throw error("gpufft: qpu: " + std::to_string(v3d::srqcs_completed(status)) + " of " +
                        std::to_string(programs.size()) + " QPU programs finished within " +
                        std::to_string(timeout.count()) + " ms" +
                        (status & v3d::SRQCS_ERROR ? " (SRQCS reports a request error)" : "") +
                        "; the GPU may need a reboot");
        // Short jobs finish in microseconds: spin first, then give the core away.
        if (polls > 1000)
            std::this_thread::yield();
    }
}

void run_by_mailbox(mailbox& mb,
                    unsigned count,
                    std::uint32_t control_bus,
                    std::chrono::milliseconds timeout)
{
    const std::uint32_t status =
        execute_qpu(mb, count, control_bus, /*no_flush=*/true, std::uint32_t(timeout.count()));
    if (status == execute_qpu_timed_out)
        throw error("gpufft: qpu: the firmware's execute_qpu timed out after " +
                    std::to_string(timeout.count()) + " ms; the GPU may need a reboot");
    if (status != 0)
        throw error("gpufft: qpu: the firmware's execute_qpu failed with status " +
                    std::to_string(status));
}

} // namespace gpufft::qpu
