// SPDX-License-Identifier: GPL-3.0-or-later
/* qpu_emu_speed: how fast the emulator runs (instructions per second of CPU
 * time): a fadd/fmul loop on every QPU. `qpu_emu_speed [iterations]`. */
#include "asm/assembler.h"
#include "emu/emulator.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

int main(int argc, char** argv)
{
    const unsigned long iterations = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 20000;
    const std::vector<uint64_t> code = qpu::assembler::assemble(".set ITERATIONS, " + std::to_string(iterations) + R"(
    ldi ra0, ITERATIONS
    ldi r1, 1.0
    ldi r2, 0.5
loop:
    sub.setf ra0, ra0, 1 ; fmul r3, r1, r2
    fadd r0, r1, r2 ; fmul r3, r3, r2
    fadd r0, r0, r2 ; fmul r3, r3, r2
    brr.anynz loop
    fadd r0, r0, r2 ; fmul r3, r3, r2
    fadd r0, r0, r2 ; fmul r3, r3, r2
    fadd r0, r0, r2 ; fmul r3, r3, r2
    nop ; thrend
    nop
    nop
)").code;
    qpu::emu::emulator gpu;
    gpu.write_memory(0x1000, code.data(), code.size() * 8);
    for (unsigned q = 0; q < gpu.configuration().num_qpus; ++q) {
        gpu.write_register(qpu::v3d::SRQUA, 0x8000);
        gpu.write_register(qpu::v3d::SRQPC, 0x1000);
    }
    std::clock_t start = std::clock();
    qpu::emu::run_result r = gpu.run(UINT64_MAX);
    double seconds = double(std::clock() - start) / CLOCKS_PER_SEC;
    uint64_t instructions = 0;
    for (const qpu::emu::qpu_counts& c : gpu.counts())
        instructions += c.instructions;
    std::printf("%s: %llu instructions on %u QPUs in %.2f s of CPU: %.2f million per second\n",
                qpu::emu::to_string(r.reason), (unsigned long long)instructions, gpu.configuration().num_qpus,
                seconds, instructions / seconds / 1e6);
    return r.reason == qpu::emu::stop_reason::idle ? 0 : 1;
}
