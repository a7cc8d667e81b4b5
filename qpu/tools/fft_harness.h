// SPDX-License-Identifier: GPL-3.0-or-later
/* Runs the qpu backend's FFT shaders straight on the QPU emulator (no host
 * driver): the shader tests and qpu-fft-model use it for outputs and cycle
 * counts. Memory is laid out as the qpu executor lays it out. */
#ifndef QPU_TOOLS_FFT_HARNESS_H
#define QPU_TOOLS_FFT_HARNESS_H

#include "../emu/emulator.h"
#include "../shaders/shader_table.h"
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace qpu::tools {

struct fft_run {
    std::vector<std::complex<float>> output; //!< batch x N, job after job
    std::uint64_t cycles = 0;                //!< cluster clocks of the launch
    std::vector<emu::qpu_counts> counts;     //!< per QPU
    emu::memory_counts memory;               //!< L2 and SDRAM traffic of the launch
    std::string error;                       //!< empty, or why the launch failed
};

/*! Runs `shader` on `input` (batch x N complex, job after job) in one
 * launch, checking the emulator ends idle with every semaphore at 0 and one
 * host interrupt. */
fft_run run_fft(const gpufft::qpu::fft_shader& shader, gpufft::direction dir,
                const std::vector<std::complex<float>>& input, std::size_t batch,
                const emu::config& cfg);

} // namespace qpu::tools

#endif
