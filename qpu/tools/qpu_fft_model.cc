// SPDX-License-Identifier: GPL-3.0-or-later
/* qpu-fft-model: model figures for the qpu backend's FFT shaders. Runs each
 * size on the QPU emulator and converts its cycle count to microseconds at
 * the Pi's 250 MHz QPU clock, at batch 1 and batch 10, next to GPU_FFT 3.0's
 * published Pi 1 times (batch 10 is published up to 2^15; from 2^16 on the
 * batch-10 row is compared with the published batch-1 time per transform).
 * These are model figures from the emulator's cost model (qpu/README.md),
 * not measurements on a Pi. Two errors per size: on random input against
 * FFTW double, and on hello_fft's own test (the one behind GPU_FFT's
 * published error figures), next to those figures.
 *
 * With the memory model on (the default), two more columns: the L2 hit rate
 * of the reads and the share of the run the SDRAM channel was busy.
 * --l2-ways sets the L2's associativity (4 by default, an assumption:
 * qpu/README.md, "Memory model"); the other memory parameters stay.
 *
 *   qpu-fft-model [--qpus N] [--seed S] [--from L] [--to L] [--rounding rtz|rne] [--memory on|off]
 *                 [--l2-ways W] [--batch10-to L]
 */
#include "fft_harness.h"
#include <fftw3.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>
#include <string>

namespace {

// GPU_FFT 3.0 on a Pi 1 (gpu_fft.txt in raspberrypi/userland's
// host_applications/linux/apps/hello_pi/hello_fft/, "Accuracy" and
// "Throughput"): us per transform at batch 1 and at batch 10 (0: not
// published, from 2^16 on), and its rel rms error in ppm.
struct published {
    double us_batch1, us_batch10, ppm;
};
const published gpu_fft_pi1[] = {
    { 33, 17, 0.33 },     { 49, 29, 0.46 },     { 70, 49, 0.52 },      { 120, 110, 0.59 },
    { 250, 270, 0.78 },   { 610, 660, 0.83 },   { 1200, 1200, 0.92 },  { 3500, 3300, 0.98 },
    { 7000, 0, 1.0 },     { 17000, 0, 1.3 },    { 43000, 0, 1.3 },     { 97000, 0, 1.4 },
    { 194000, 0, 1.5 },   { 388000, 0, 1.5 },   { 786000, 0, 1.5 },
};

double rms_error_ppm(const std::vector<std::complex<float>>& in, const std::vector<std::complex<float>>& out,
                     std::size_t n, std::size_t batch)
{
    std::vector<std::complex<double>> a(n), b(n);
    fftw_plan plan = fftw_plan_dft_1d(int(n), reinterpret_cast<fftw_complex*>(a.data()),
                                      reinterpret_cast<fftw_complex*>(b.data()), FFTW_FORWARD, FFTW_ESTIMATE);
    double err = 0, ref = 0;
    for (std::size_t j = 0; j < batch; ++j) {
        for (std::size_t i = 0; i < n; ++i)
            a[i] = in[j * n + i];
        fftw_execute(plan);
        for (std::size_t i = 0; i < n; ++i) {
            err += std::norm(std::complex<double>(out[j * n + i]) - b[i]);
            ref += std::norm(b[i]);
        }
    }
    fftw_destroy_plan(plan);
    return 1e6 * std::sqrt(err / ref);
}

/*! hello_fft.c's test, one job: the inverse transform of 0.5 at bins 1 and
 * N - 1, against cos(2 pi i / N); rel rms error in ppm. */
std::string hello_fft_error_ppm(const gpufft::qpu::fft_shader& shader, std::size_t n, const qpu::emu::config& cfg)
{
    std::vector<std::complex<float>> in(n);
    in[1] = in[n - 1] = 0.5f;
    const qpu::tools::fft_run r = qpu::tools::run_fft(shader, gpufft::direction::inverse, in, 1, cfg);
    if (!r.error.empty())
        return "failed";
    double err = 0, ref = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double expect = std::cos(2 * M_PI * double(i) / double(n));
        err += std::norm(std::complex<double>(r.output[i]) - expect);
        ref += expect * expect;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", 1e6 * std::sqrt(err / ref));
    return text;
}

const char* usage = "usage: %s [--qpus N] [--seed S] [--from L] [--to L] [--rounding rtz|rne] [--memory on|off] "
                    "[--l2-ways W] [--batch10-to L] (sizes 2^8..2^22; W a power of two, 1..2048)\n";

} // namespace

int main(int argc, char** argv)
{
    unsigned qpus = 12, from = 8, to = 20, batch10_to = 18;
    unsigned long long seed = 1;
    qpu::emu::rounding rounding = qpu::emu::config{}.float_rounding;
    bool model_memory = qpu::emu::config{}.model_memory;
    unsigned l2_ways = qpu::emu::config{}.memory.l2_ways;
    bool bad = (argc - 1) % 2 != 0;
    for (int i = 1; !bad && i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--qpus"))
            qpus = unsigned(std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--seed"))
            seed = std::strtoull(argv[i + 1], nullptr, 0);
        else if (!std::strcmp(argv[i], "--from"))
            from = unsigned(std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--to"))
            to = unsigned(std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--l2-ways"))
            l2_ways = unsigned(std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--batch10-to"))
            batch10_to = unsigned(std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--rounding") && !std::strcmp(argv[i + 1], "rtz"))
            rounding = qpu::emu::rounding::toward_zero;
        else if (!std::strcmp(argv[i], "--memory") && !std::strcmp(argv[i + 1], "on"))
            model_memory = true;
        else if (!std::strcmp(argv[i], "--memory") && !std::strcmp(argv[i + 1], "off"))
            model_memory = false;
        else if (!std::strcmp(argv[i], "--rounding") && !std::strcmp(argv[i + 1], "rne"))
            rounding = qpu::emu::rounding::nearest_even;
        else
            bad = true;
    }
    // 2048 ways of 64-byte lines are the whole 128 KiB L2 (one set).
    const bool ways_ok = l2_ways >= 1 && l2_ways <= 2048 && (l2_ways & (l2_ways - 1)) == 0;
    if (bad || from < 8 || to > 22 || from > to || qpus < 1 || qpus > 16 || !ways_ok) {
        std::fprintf(stderr, usage, argv[0]);
        return 2;
    }
    const bool rtz = rounding == qpu::emu::rounding::toward_zero;
    std::printf("Model figures: QPU emulator cycles at 250 MHz, %u QPUs, seed %llu, floats rounded %s, L2 and "
                "SDRAM %s (%u-way L2); NOT measured on a Pi.\n"
                "GPU_FFT: release 3.0 on a Pi 1 as published, at the batch in brackets (batch 10 is published\n"
                "up to 2^15; beyond, our batch 10 per transform is set against its batch-1 time).\n"
                "ppm: rel rms error on random input vs FFTW double, and on hello_fft's test (inverse of bins 1\n"
                "and N-1 vs a cosine), the one GPU_FFT's published ppm come from.\n\n",
                qpus, seed, rtz ? "toward zero" : "to nearest even", model_memory ? "modelled" : "not modelled",
                l2_ways);
    std::printf("%6s %5s %-36s %10s %14s %7s %9s %9s %9s %7s %7s\n", "log2N", "batch", "passes", "model us",
                "GPU_FFT us", "ratio", "ppm rand", "ppm hello", "GPU_FFT", "L2 hit", "SDRAM");
    int status = 0;
    for (unsigned log2n = from; log2n <= to; ++log2n) {
        const published g = gpu_fft_pi1[log2n - 8];
        const std::size_t n = std::size_t(1) << log2n;
        const gpufft::qpu::fft_shader shader = gpufft::qpu::make_fft_shader(log2n, qpus);
        qpu::emu::config cfg;
        cfg.num_qpus = qpus;
        cfg.seed = seed;
        cfg.float_rounding = rounding;
        cfg.model_memory = model_memory;
        cfg.memory.l2_ways = l2_ways;
        cfg.random_interleave = false; // the model: no artificial hold-backs
        for (const std::size_t batch : { std::size_t(1), std::size_t(10) }) {
            // Batch 10 of 2^19 and up takes minutes on the emulator: only with --batch10-to.
            if (batch > 1 && log2n > batch10_to)
                continue;
            // Two buffers (and a guard page) a job, about 8.3 N bytes of
            // tables, the code and uniforms (2^22 batch 1: 98 MB).
            const std::size_t bytes = 2 * batch * (8 * n + 4096) + 9 * n + (1u << 20);
            cfg.memory_bytes = std::uint32_t(std::max<std::size_t>(128u << 20, (bytes + 7) / 8 * 8));
            std::vector<std::complex<float>> in(n * batch);
            std::mt19937_64 rng(seed + log2n);
            std::normal_distribution<float> normal;
            for (auto& c : in)
                c = { normal(rng), normal(rng) };
            const qpu::tools::fft_run r = qpu::tools::run_fft(shader, gpufft::direction::forward, in, batch, cfg);
            if (!r.error.empty()) {
                std::printf("%6u %5zu  failed: %s\n", log2n, batch, r.error.c_str());
                status = 1;
                continue;
            }
            const double us = double(r.cycles) / 250.0 / double(batch);
            // Batch 10 is not published from 2^16 on: the batch-1 time per transform.
            const double published_us = batch == 1 || g.us_batch10 == 0 ? g.us_batch1 : g.us_batch10;
            const char* published_batch = batch == 1 || g.us_batch10 == 0 ? "1" : "10";
            const double ppm = rms_error_ppm(in, r.output, n, batch);
            const std::string hello = batch == 1 ? hello_fft_error_ppm(shader, n, cfg) : "";
            status |= hello == "failed";
            const qpu::emu::memory_counts& m = r.memory;
            const double lookups = double(m.l2_hits + m.l2_misses);
            std::printf("%6u %5zu %-36s %10.1f %9.0f (%2s) %7.2f %9.3f %9s %9.2f %6.1f%% %6.1f%%\n", log2n, batch,
                        shader.describe.c_str(), us, published_us, published_batch, us / published_us, ppm,
                        hello.c_str(), g.ppm, lookups > 0 ? 100.0 * double(m.l2_hits) / lookups : 0.0,
                        r.cycles ? 100.0 * double(m.sdram_busy) / double(r.cycles) : 0.0);
            std::fflush(stdout);
        }
    }
    return status;
}
