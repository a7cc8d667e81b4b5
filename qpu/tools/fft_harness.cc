// SPDX-License-Identifier: GPL-3.0-or-later
#include "fft_harness.h"
#include <cmath>
#include <cstring>

namespace qpu::tools {

namespace {
std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }
} // namespace

fft_run run_fft(const gpufft::qpu::fft_shader& shader, gpufft::direction dir,
                const std::vector<std::complex<float>>& input, std::size_t batch,
                const emu::config& cfg)
{
    fft_run result;
    const std::size_t n = std::size_t(1) << shader.log2n;
    const std::uint32_t bytes = std::uint32_t(8 * n), step = (bytes | 4095) + 1;
    const std::uint32_t base = 0x10000;
    emu::emulator gpu(cfg);

    gpufft::qpu::launch_layout l;
    l.dir = dir;
    l.step_bytes = step;
    l.qpus = shader.qpus;
    for (std::size_t j = 0; j < batch; ++j) {
        l.input.push_back(std::uint32_t(base + j * step));
        l.output.push_back(std::uint32_t(base + (batch + j) * step));
    }
    const std::uint32_t code_at = base + std::uint32_t(2 * batch * step);
    const std::uint32_t twiddles_at = align_up(code_at + 8 * std::uint32_t(shader.code.size()), 256);
    const std::vector<std::uint32_t> twiddles = shader.twiddles(dir);
    l.twiddles = twiddles_at;
    std::uint32_t at = align_up(twiddles_at + 4 * std::uint32_t(twiddles.size()), 256);

    gpu.write_memory(code_at, shader.code.data(), 8 * shader.code.size());
    gpu.write_memory(twiddles_at, twiddles.data(), 4 * twiddles.size());
    // The ping-pong buffers start as NaN, so a point no pass writes shows.
    const std::vector<std::complex<float>> poison(n, { std::nanf(""), std::nanf("") });
    for (std::size_t j = 0; j < batch; ++j) {
        gpu.write_memory(l.input[j], input.data() + j * n, bytes);
        gpu.write_memory(l.output[j], poison.data(), bytes);
    }
    gpu.write_register(v3d::SRQCS, v3d::SRQCS_CLEAR_QUEUED | v3d::SRQCS_CLEAR_COMPLETED);
    for (unsigned q = 0; q < shader.qpus; ++q) {
        const std::vector<std::uint32_t> u = shader.uniforms(l, q);
        gpu.write_memory(at, u.data(), 4 * u.size());
        gpu.write_register(v3d::SRQUA, at);
        gpu.write_register(v3d::SRQPC, code_at);
        at += 4 * std::uint32_t(u.size());
    }
    const emu::run_result r = gpu.run(uint64_t(1) << 40);
    result.cycles = r.cycles;
    result.counts = gpu.counts();
    result.memory = gpu.memory_traffic();
    if (r.reason != emu::stop_reason::idle)
        result.error = std::string(emu::to_string(r.reason)) + ": " + r.message;
    for (unsigned id = 0; id < 16 && result.error.empty(); ++id)
        if (gpu.semaphore(id))
            result.error = "semaphore " + std::to_string(id) + " left at " + std::to_string(gpu.semaphore(id));
    if (result.error.empty() && gpu.host_interrupts() != 1)
        result.error = std::to_string(gpu.host_interrupts()) + " host interrupts, expected 1";
    result.output.resize(batch * n);
    for (std::size_t j = 0; j < batch; ++j)
        gpu.read_memory(shader.result_in_output ? l.output[j] : l.input[j], result.output.data() + j * n, bytes);
    return result;
}

} // namespace qpu::tools
