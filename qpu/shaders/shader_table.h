// SPDX-License-Identifier: GPL-3.0-or-later
/* QPU FFT shaders: how a shader is described to the qpu backend's executor
 * (lib/backends/qpu) and to the emulator harness (qpu/tools). The shader
 * author fills in one entry per size; the executor does the rest (GPU
 * memory, copies, submission). */
#ifndef QPU_SHADERS_SHADER_TABLE_H
#define QPU_SHADERS_SHADER_TABLE_H

#include <gpufft/problem.h>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpufft::qpu {

/*!
 * Where one launch's data lives, for the uniforms builder. Job j's input
 * is N complex floats (interleaved re, im) at input[j]; a shader may use
 * output[j] as its ping-pong buffer. Buffers are step_bytes apart, each
 * followed by a guard page when N >= 512, as in GPU_FFT.
 */
struct launch_layout {
    direction dir = direction::forward;
    std::uint32_t twiddles = 0; //!< bus address of the twiddle table
    std::vector<std::uint32_t> input;
    std::vector<std::uint32_t> output;
    std::uint32_t step_bytes = 0;
    unsigned qpus = 0;
};

struct fft_shader {
    unsigned log2n = 0;
    unsigned qpus = 8;                 //!< programs launched per transform batch
    std::vector<std::uint64_t> code;   //!< one program, run by every QPU
    //! The twiddle table for a direction, as 32-bit words.
    std::function<std::vector<std::uint32_t>(direction)> twiddles;
    //! QPU q's uniforms for a launch.
    std::function<std::vector<std::uint32_t>(const launch_layout&, unsigned q)> uniforms;
    //! Where the result lands: output[j] (odd pass count) or back in input[j].
    bool result_in_output = true;
    //! Model time of one transform (emulator cycles at 250 MHz), for "auto".
    double model_ns = 0;
    std::string describe; //!< e.g. "radix 16x16, 2 passes"
};

using shader_table = std::vector<fft_shader>;

//! The FFT shaders built into the library, by size (fft.qasm; fft_shader.cc).
const shader_table& fft_shaders();

//! The FFT shader for 2^log2n points (8..22) launched on `qpus` QPUs (1..16).
fft_shader make_fft_shader(unsigned log2n, unsigned qpus);

} // namespace gpufft::qpu

#endif
