// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench: what its modes share (options, statistics, the FFTW double
 * reference, JSON text). */
#ifndef GPUFFT_BENCH_COMMON_H
#define GPUFFT_BENCH_COMMON_H

#include <gpufft/problem.h>
#include <chrono>
#include <complex>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpufft::bench {

using cf = std::complex<float>;
using cd = std::complex<double>;
using clock_type = std::chrono::steady_clock;

constexpr unsigned warmups = 3;

//! A working-set regime of the CPU comparison: input bytes per timed call.
struct regime {
    std::string name; //!< "l2", "l3", "dram", or the size as given ("128K")
    std::size_t bytes;
};

struct options {
    //! The default sizes: every power of two 64..65536, and five mixed sizes.
    std::vector<std::size_t> sizes{ 64,   128,   256,   512,  1024, 2048, 4096, 8192, 16384,
                                    32768, 65536, 1000, 2400, 3000, 4410, 6000 };
    //! --shapes: multi-dimensional shapes, row-major ("256x256"); replace sizes.
    std::vector<std::vector<std::size_t>> shapes;
    bool r2c = false; //!< --kind r2c: real-to-complex forward transforms
    bool c2r = false; //!< --kind c2r: complex-to-real inverse transforms (device-resident only)
    std::size_t batch = 0;  // 0: about `points` points a call
    std::size_t points = 0; // 0: the mode's default (the regimes, or 32 Mi points on a device)
    std::vector<regime> regimes; // --regimes; empty: l2, l3, dram unless --points or --batch
    std::vector<std::string> backends; // empty: every usable backend
    bool patient = false;
    std::string wisdom;
    unsigned threads = 1;
    unsigned repeats = 15;
    bool inverse = false;
    bool tune = false;
    bool window = false; //!< --window: a Hann window multiplies each input first
    std::string json;
    bool list = false;
    // Device modes (OpenCL).
    bool device_resident = false;
    bool streaming = false;
    std::string opencl_device; // selector, as gpufft::opencl::select_device
    std::vector<std::size_t> stream_sizes{ 1024, 4096 };
    std::vector<std::string> formats{ "cs16", "cf32" };
    std::size_t stream_mib = 128;  // host bytes pushed per timed streaming run
    std::size_t chunk_kib = 4096;  // bytes per push_bytes call
    std::size_t average = 64;      // frames per output spectrum
    std::vector<std::size_t> stream_batches{ 0 }; // spectrum_config::batch (0: the engine's choice)
    std::vector<std::string> stream_inputs{ "push", "acquire", "prefilled" }; // how the IQ goes in
    std::vector<std::string> stream_delivery{ "each" }; // "each" and/or "deferred" (deferred_delivery)
    bool qpu_check = false; // Raspberry Pi: the qpu backend against simd
    // Display mode (CPU).
    bool display = false;
    std::vector<std::size_t> display_sizes{ 1024, 65536 };
    std::size_t display_width = 1024;
    std::size_t display_height = 256;
    std::size_t display_batch = 64; // frames per display::push call
};

struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

//! `s` as a non-negative integer; usage_error naming `flag` otherwise.
std::size_t parse_size(const std::string& flag, const std::string& s);
//! As parse_size, and at least 1.
std::size_t parse_positive(const std::string& flag, const std::string& s);
//! "N,N,...": at least one size, each at least 1.
std::vector<std::size_t> parse_sizes(const std::string& flag, const std::string& s);

double ms_since(clock_type::time_point t0);
double median(std::vector<double> v);

//! Relative L2 error of `out` against `ref`; infinity if `out` holds a non-finite value.
double rel_l2(const cf* out, const cd* ref, std::size_t n);

//! FFTW double of one transform of n points.
std::vector<cd> reference(const cf* in, std::size_t n, bool inverse);

/*!
 * FFTW double of transform t of a packed batch of p's kind and shape at
 * `in` (r2c: reals, points() apart; c2c: complex, points() apart; c2r:
 * complex, complex_extent() apart): complex_extent() outputs, or points()
 * reals as complex numbers for c2r.
 */
std::vector<cd> shaped_reference(const void* in, const gpufft::problem& p, std::size_t t);

std::string json_string(const std::string& s);
//! A number, or null when it is not finite.
std::string json_number(double v);
std::string utc_now();
std::string cpu_model();

} // namespace gpufft::bench

#endif
