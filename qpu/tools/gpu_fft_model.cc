// SPDX-License-Identifier: GPL-3.0-or-later
/* gpu-fft-model: GPU_FFT 3.0's own program (raspberrypi/userland,
 * host_applications/linux/apps/hello_pi/hello_fft/) on the QPU emulator,
 * next to its published Pi 1 times: the like-for-like check of the cost
 * model (qpu/README.md, "Memory model"). Built only when the build is given
 * GPU_FFT's sources (-DGPU_FFT_DIR=.../hello_fft); nothing of GPU_FFT is in
 * this repository. This file stands in for gpu_fft_base.c and mailbox.c:
 * memory is the emulator's, at the L2-cached alias GPU_FFT uses on a Pi 1,
 * and a launch is what gpu_fft_base_exec_direct() does (clear the L2, queue
 * the 8 programs). hello_fft.c's test runs at batch 10 up to 2^15, then 1,
 * as GPU_FFT's times were published.
 *
 *   gpu-fft-model [--from L] [--to L] [--memory on|off]
 */
#include "../emu/emulator.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern "C" {
#include "gpu_fft.h"
}

namespace {
qpu::emu::emulator* gpu;
qpu::emu::run_result last_run;

// GPU_FFT 3.0 on a Pi 1, us per transform (gpu_fft.txt, batch 10 to 2^15,
// then 1); the same figures qpu-fft-model prints.
const double published_us[] = { 17,    29,    49,    110,   270,    660,    1200,  3300,
                                7000,  17000, 43000, 97000, 194000, 388000, 786000 };
} // namespace

extern "C" {
int mbox_open() { return 0; }
void mbox_close(int) {}

int gpu_fft_alloc(int, unsigned size, struct GPU_FFT_PTR* ptr)
{
    const uint32_t at = 0x10000;
    ptr->vc = 0x40000000u | at; // Pi 1 with GPU_FFT_USE_VC4_L2_CACHE (gpu_fft_base.c)
    ptr->arm.vptr = gpu->memory(at, size);
    std::memset(ptr->arm.vptr, 0, size);
    return 0;
}

unsigned gpu_fft_base_exec(struct GPU_FFT_BASE* base, int num_qpus)
{
    gpu->write_register(qpu::v3d::L2CACTL, qpu::v3d::L2CACTL_CLEAR);
    gpu->write_register(qpu::v3d::SRQCS, qpu::v3d::SRQCS_ERROR | qpu::v3d::SRQCS_CLEAR_QUEUED |
                                             qpu::v3d::SRQCS_CLEAR_COMPLETED);
    for (int q = 0; q < num_qpus; ++q) {
        gpu->write_register(qpu::v3d::SRQUA, base->vc_unifs[q]);
        gpu->write_register(qpu::v3d::SRQPC, base->vc_code);
    }
    last_run = gpu->run(uint64_t(1) << 40);
    return 0;
}

void gpu_fft_base_release(struct GPU_FFT_BASE*) {}

unsigned gpu_fft_ptr_inc(struct GPU_FFT_PTR* ptr, int bytes)
{
    const unsigned vc = ptr->vc;
    ptr->vc += bytes;
    ptr->arm.bptr += bytes;
    return vc;
}
}

int main(int argc, char** argv)
{
    int from = 8, to = 22;
    bool model_memory = true, bad = (argc - 1) % 2 != 0;
    for (int i = 1; !bad && i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--from"))
            from = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--to"))
            to = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--memory") && (!std::strcmp(argv[i + 1], "on") || !std::strcmp(argv[i + 1], "off")))
            model_memory = !std::strcmp(argv[i + 1], "on");
        else
            bad = true;
    }
    if (bad || from < 8 || to > 22 || from > to) {
        std::fprintf(stderr, "usage: %s [--from L] [--to L] [--memory on|off] (sizes 2^8..2^22)\n", argv[0]);
        return 2;
    }
    std::printf("GPU_FFT 3.0's program on the QPU emulator (8 QPUs, 250 MHz, L2 and SDRAM %s) against its "
                "published Pi 1 times; model figures, NOT measured on a Pi.\n\n%6s %5s %12s %12s %7s %9s %7s %7s\n",
                model_memory ? "modelled" : "not modelled", "log2N", "batch", "model us", "GPU_FFT us", "ratio",
                "ppm hello", "L2 hit", "SDRAM");
    int status = 0;
    for (int log2n = from; log2n <= to; ++log2n) {
        qpu::emu::config cfg;
        cfg.random_interleave = false;
        cfg.model_memory = model_memory;
        cfg.memory_bytes = 192u << 20; // 2^22: two 32 MiB buffers and the twiddles
        qpu::emu::emulator emulator(cfg);
        gpu = &emulator;
        const int jobs = log2n <= 15 ? 10 : 1, n = 1 << log2n;
        struct GPU_FFT* fft;
        if (gpu_fft_prepare(0, log2n, GPU_FFT_REV, jobs, &fft)) {
            std::printf("%6d  gpu_fft_prepare failed\n", log2n);
            status = 1;
            continue;
        }
        // hello_fft.c's test: the inverse of 0.5 at bins f and N - f, f = job + 1.
        for (int j = 0; j < jobs; ++j) {
            GPU_FFT_COMPLEX* in = fft->in + j * fft->step;
            const int f = (j + 1) & (n / 2 - 1);
            in[f].re += in[(n - f) & (n - 1)].re = 0.5;
        }
        gpu_fft_execute(fft);
        if (last_run.reason != qpu::emu::stop_reason::idle) {
            std::printf("%6d  failed: %s\n", log2n, last_run.message.c_str());
            status = 1;
            continue;
        }
        double ref = 0, err = 0;
        for (int j = 0; j < jobs; ++j) {
            const GPU_FFT_COMPLEX* out = fft->out + j * fft->step;
            const int f = (j + 1) & (n / 2 - 1);
            for (int i = 0; i < n; ++i) {
                const double expect = std::cos(2 * GPU_FFT_PI * f * i / n);
                ref += expect * expect;
                err += (expect - out[i].re) * (expect - out[i].re) + double(out[i].im) * out[i].im;
            }
        }
        const qpu::emu::memory_counts& m = emulator.memory_traffic();
        const double lookups = double(m.l2_hits + m.l2_misses), us = double(last_run.cycles) / 250.0 / jobs;
        std::printf("%6d %5d %12.1f %12.0f %7.2f %9.3f %6.1f%% %6.1f%%\n", log2n, jobs, us, published_us[log2n - 8],
                    us / published_us[log2n - 8], 1e6 * std::sqrt(err / ref),
                    lookups > 0 ? 100.0 * double(m.l2_hits) / lookups : 0.0,
                    100.0 * double(m.sdram_busy) / double(last_run.cycles));
        std::fflush(stdout);
    }
    return status;
}
