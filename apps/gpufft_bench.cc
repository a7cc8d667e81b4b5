// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench: times gr-gpufft's backends and FFTW float side by side, in
 * one process, on the same data, and checks every result against FFTW
 * double.
 *
 * One timed call is one execute over a whole batch, out of place, in each
 * of three working-set regimes by default: 256 KiB of input a call (the
 * batch stays in L2, as in a GNU Radio block's work()), 8 MiB (L3) and
 * 64 MiB (DRAM); the figure reported is the median of --repeats calls after
 * 3 warm-ups. The engines take turns call by call, so a slow spell on a
 * noisy machine hits them all alike and the ratios stay meaningful. Run
 * with --help for the flags. The OpenCL modes (--device-resident,
 * --streaming) live in bench/.
 */
#include "bench/common.h"
#include "bench/device_modes.h"
#include "bench/display_mode.h"
#include "bench/qpu_check.h"
#include "bench/text.h"
#include <gpufft/gpufft_spectrum.h>

#include <fftw3.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <time.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using namespace gpufft::bench;

constexpr std::size_t reference_transforms = 8; // checked against FFTW double

// ------------------------------------------------------------------ options

const char* const help_text = R"(usage: gpufft-bench [options]

Times gr-gpufft backends against FFTW float (FFTW_MEASURE, and FFTW_PATIENT
with --patient) on batched out-of-place complex-float FFTs, in one process,
and checks each result against FFTW double.

  --sizes N,N,...     transform sizes (default: 64,128,...,65536 and
                      1000,2400,3000,4410,6000)
  --shapes S,S,...    multi-dimensional shapes instead, row-major: 256x256,64x64x64
                      (also with --device-resident)
  --kind K            c2c (default) or r2c (real input, N/2+1 outputs on the last
                      axis; GFLOPS counted as 2.5 N log2 N, FFTW's convention);
                      with --device-resident also c2r (N/2+1 complex in, N reals out)
  --regimes R,R,...   working sets, each size timed in each in one run: l2 (256 KiB
                      of input a call), l3 (8 MiB), dram (64 MiB), or a byte size
                      with an optional K, M or G (KiB, MiB, GiB) suffix: 128K,32M
                      (default l2,l3,dram). A call holds round(bytes / (N * 8))
                      transforms (N * 4 for r2c), at least 1. Calls of 64 MiB or
                      more are timed a third as often (--repeats / 3, at least 3):
                      each takes long, and this keeps a default run to minutes.
  --points P          one regime instead: P points a call (33554432 by default with
                      --device-resident)
  --batch B           one regime instead: B transforms a call, whatever N
  --backends LIST     comma separated: simd, simd:avx2, auto, all-isas (every simd
                      variant), all (every variant of every usable backend)
                      (default: every usable backend, each with its best variant)
  --patient           also time FFTW_PATIENT plans (8-130 s of planning per size)
  --fftw-wisdom FILE  import FFTW wisdom for the PATIENT plans from FILE and save it
                      back after each size, so PATIENT planning is paid once
  --threads T         threads for FFTW (fftwf_plan_with_nthreads) and gpufft
                      (plan_options.threads) (default 1)
  --repeats R         timed calls per engine, size and regime; the median is reported
                      (default 15; see --regimes for the largest calls)
  --inverse           time inverse transforms (default forward)
  --tune              plan gpufft with plan_options.tune
  --window            transform Hann window x input (c2c): gpufft plans take the
                      window as plan_options.input_weights (applied in their first
                      pass); FFTW multiplies into its input buffer first, as GNU
                      Radio's fft.fft_vcc does, and each gpufft backend also runs as
                      "<backend>+multiply", a pass of its own into the output
                      before an in-place transform (gpufft.fft_vcc before weights)
  --json FILE         also write the results as JSON
  --list              list gpufft backends and OpenCL devices and exit
  --help              this text

ratio = FFTW's ns / ours: above 1 means gpufft is faster. "vs best" compares
with the faster of PATIENT (when measured) and MEASURE. With several regimes a
last table puts each backend's "vs best" ratios side by side, one column a
regime; --json has one result per engine, size and regime ("regime",
"input_bytes"). "CPU ns/xform" and its "vs best" count the CPU time of all
the process's threads instead of wall time: on a loaded machine, other
programs stretch calls of about a millisecond (the l3 regime) by several
times at random, which this leaves out (with --threads above 1 it adds the
threads' times up instead). Errors are relative
L2 vs FFTW double over the first 8 transforms of the batch. Engines take
turns call by call. Exit status 2: bad usage or an unknown backend or size.

OpenCL device modes (instead of the CPU comparison; both may be given):

  --device-resident   batched transforms on device buffers of one OpenCL device for
                      --sizes or --shapes, of --kind (forward c2c by default):
                      gpufft's device_plan, clFFT (1-D c2c) and VkFFT in the same
                      context and queue, and cuFFT when built with the CUDA toolkit
                      and a CUDA device is there (else one line says why it is not).
                      256 MiB in a call by default (--points); calls rotate among
                      2 input buffers when they fit. Each engine's output is checked
                      once (every element written, sampled transforms against FFTW
                      double); one that fails is reported, not timed. Ratios are
                      against cuFFT when present, else clFFT (>1: faster).
  --streaming         host IQ in, averaged dB spectra out through gpufft::spectrum
                      on "opencl:<device>" and "simd", against clEnqueueWriteBuffer
                      of the same bytes from a pinned buffer, in the same chunks
  --stream-sizes LIST streaming FFT sizes (default 1024,4096)
  --opencl-device SEL device: index, name substring or "" (GPUFFT_OPENCL_DEVICE, else
                      the best GPU) (default "")
  --formats LIST      streaming input formats (default cs16,cf32)
  --stream-mib M      MiB of input pushed per timed streaming run (default 128)
  --chunk-kib K       KiB per push (and per copy) in streaming (default 4096)
  --average K         streaming: frames averaged into one spectrum (default 64)
  --stream-batch LIST streaming: frames per FFT call (spectrum_config::batch), one run
                      each (default 0: the engine's choice)
  --stream-input LIST streaming: how the IQ goes into gpufft::spectrum, one row each
                      (default push,acquire,prefilled):
                        push      push_bytes() from the pre-generated IQ (the engine
                                  copies it into its input: one host copy)
                        acquire   acquire() a span of the engine's input (pinned
                                  staging on opencl), memcpy the IQ into it as a
                                  radio driver's read would write it, commit()
                        prefilled acquire() and commit() without writing: the spans
                                  keep the IQ the warm-up pass wrote, so the source
                                  costs nothing, as for the pinned copy, whose bytes
                                  sit in pinned memory already; checked by recording
                                  what one more pass commits and running simd on it
  --stream-delivery LIST streaming: "each" (every call delivers what its frames
                      complete) and/or "deferred" (spectrum_config::deferred_delivery:
                      outputs come during later calls, batches stay in flight across
                      calls), one row each (default each)

Display mode (instead of the CPU comparison):

  --display           frames per second of the display pipeline: its CPU stages
                      (gpufft::display: columns, histogram, traces, waterfall) on
                      dB frames, one thread, max and mean resampling; then the
                      whole pipeline from raw cf32 I/Q (gpufft::spectrum_display:
                      FFT, dB and the display stages, on the device for opencl)
                      on each of --backends, frames and samples per second; and
                      the time of one read-out (histogram, traces, a waterfall
                      row); --json too
  --display-sizes LIST bins per frame (default 1024,65536)
  --display-width W   display columns (default 1024)
  --display-height H  histogram rows (default 256)
  --display-batch B   frames per push (default 64)

Raspberry Pi 0-3 (instead of the CPU comparison):

  --qpu-check         the qpu backend (VideoCore IV QPUs) against the simd backend
                      (NEON or scalar) at every size 2^8..2^20, batch 1 and 10:
                      times both (median of 3 calls), checks both against FFTW
                      double, and prints a report with the board, firmware and
                      memory split to paste into a bug report. Exit status 0: all
                      passed; 1: a size failed; 3: no usable V3D here (one line
                      on stderr says why). docs/backend-qpu.md: "Trying the qpu backend on your Pi".

In the device modes the exit status is 1 when one of gpufft's rows failed
(an error, or a result that failed its check); other engines' failures are
only reported.
)";

constexpr std::size_t dram_bytes = std::size_t(64) << 20;

//! Timed calls of dram_bytes or more: each takes long, and a third as many
//! keeps a default run to minutes.
unsigned dram_repeats(unsigned repeats)
{
    return std::min(repeats, std::max(3u, repeats / 3));
}

//! "l2,l3,dram" or byte sizes ("256K", "8M", "1G", "65536").
std::vector<regime> parse_regimes(const std::string& flag, const std::string& text)
{
    static const regime named[] = { { "l2", std::size_t(256) << 10 },
                                     { "l3", std::size_t(8) << 20 },
                                     { "dram", dram_bytes } };
    std::vector<regime> out;
    for (const auto& item : gpufft::apps::split_commas(text)) {
        const auto known = std::find_if(std::begin(named), std::end(named),
                                        [&](const regime& r) { return r.name == item; });
        if (known != std::end(named)) {
            out.push_back(*known);
            continue;
        }
        const auto digits = item.find_first_not_of("0123456789");
        const std::string suffix = digits == std::string::npos ? "" : item.substr(digits);
        const int shift = suffix.empty() ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20 : suffix == "G" ? 30 : -1;
        if (digits == 0 || shift < 0)
            throw usage_error(flag + ": unknown regime \"" + item +
                              "\" (l2, l3, dram, or bytes with an optional K, M or G suffix, e.g. 256K)");
        const std::size_t count = parse_positive(flag, item.substr(0, digits));
        if (count > (std::numeric_limits<std::size_t>::max() >> shift))
            throw usage_error(flag + ": \"" + item + "\" is too large");
        out.push_back({ item, count << shift });
    }
    if (out.empty())
        throw usage_error(flag + ": no regime given");
    return out;
}

options parse(int argc, char** argv)
{
    options o;
    bool sizes_given = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i], value;
        bool has_value = false;
        const auto eq = a.find('=');
        if (a.compare(0, 2, "--") == 0 && eq != std::string::npos) {
            value = a.substr(eq + 1);
            a = a.substr(0, eq);
            has_value = true;
        }
        auto arg = [&]() -> std::string {
            if (has_value)
                return value;
            if (i + 1 >= argc)
                throw usage_error(a + " needs a value");
            return argv[++i];
        };
        if (a == "--help" || a == "-h") {
            std::fputs(help_text, stdout);
            std::exit(0);
        } else if (a == "--sizes") {
            o.sizes = parse_sizes(a, arg());
            sizes_given = true;
        } else if (a == "--shapes") {
            for (const auto& text : gpufft::apps::split_commas(arg())) {
                std::vector<std::size_t> dims;
                std::stringstream ss(text);
                for (std::string d; std::getline(ss, d, 'x');)
                    dims.push_back(parse_positive(a, d));
                if (dims.empty())
                    throw usage_error("--shapes needs shapes like 256x256");
                o.shapes.push_back(dims);
            }
        } else if (a == "--kind") {
            const std::string k = arg();
            if (k != "c2c" && k != "r2c" && k != "c2r")
                throw usage_error("--kind must be c2c, r2c or c2r (got \"" + k + "\")");
            o.r2c = k == "r2c";
            o.c2r = k == "c2r";
        } else if (a == "--batch") {
            o.batch = parse_positive(a, arg());
        } else if (a == "--points") {
            o.points = parse_positive(a, arg());
        } else if (a == "--regimes") {
            o.regimes = parse_regimes(a, arg());
        } else if (a == "--backends") {
            o.backends = gpufft::apps::split_commas(arg());
        } else if (a == "--patient") {
            o.patient = true;
        } else if (a == "--fftw-wisdom") {
            o.wisdom = arg();
        } else if (a == "--threads") {
            const std::size_t t = parse_size(a, arg());
            if (t < 1 || t > 1024)
                throw usage_error("--threads must be between 1 and 1024");
            o.threads = unsigned(t);
        } else if (a == "--repeats") {
            const std::size_t r = parse_size(a, arg());
            if (r < 1 || r > 100000)
                throw usage_error("--repeats must be between 1 and 100000");
            o.repeats = unsigned(r);
        } else if (a == "--inverse") {
            o.inverse = true;
        } else if (a == "--tune") {
            o.tune = true;
        } else if (a == "--window") {
            o.window = true;
        } else if (a == "--json") {
            o.json = arg();
        } else if (a == "--list") {
            o.list = true;
        } else if (a == "--device-resident") {
            o.device_resident = true;
        } else if (a == "--streaming") {
            o.streaming = true;
        } else if (a == "--opencl-device") {
            o.opencl_device = arg();
        } else if (a == "--stream-sizes") {
            o.stream_sizes = parse_sizes(a, arg());
        } else if (a == "--formats") {
            o.formats = gpufft::apps::split_commas(arg());
            for (const auto& f : o.formats)
                gpufft::parse_sample_format(f); // a bad name fails now
        } else if (a == "--stream-mib") {
            o.stream_mib = parse_positive(a, arg());
        } else if (a == "--chunk-kib") {
            o.chunk_kib = parse_positive(a, arg());
        } else if (a == "--average") {
            o.average = parse_positive(a, arg());
        } else if (a == "--stream-batch") {
            o.stream_batches = parse_sizes(a, arg());
        } else if (a == "--stream-input") {
            o.stream_inputs = gpufft::apps::split_commas(arg());
            if (o.stream_inputs.empty())
                throw usage_error("--stream-input needs at least one of push, acquire, prefilled");
            for (const auto& i : o.stream_inputs)
                if (i != "push" && i != "acquire" && i != "prefilled")
                    throw usage_error("--stream-input: unknown input \"" + i +
                                      "\" (known: push, acquire, prefilled)");
        } else if (a == "--stream-delivery") {
            o.stream_delivery = gpufft::apps::split_commas(arg());
            if (o.stream_delivery.empty())
                throw usage_error("--stream-delivery needs each and/or deferred");
            for (const auto& d : o.stream_delivery)
                if (d != "each" && d != "deferred")
                    throw usage_error("--stream-delivery: unknown delivery \"" + d +
                                      "\" (known: each, deferred)");
        } else if (a == "--qpu-check") {
            o.qpu_check = true;
        } else if (a == "--display") {
            o.display = true;
        } else if (a == "--display-sizes") {
            o.display_sizes = parse_sizes(a, arg());
        } else if (a == "--display-width") {
            o.display_width = parse_positive(a, arg());
        } else if (a == "--display-height") {
            o.display_height = parse_positive(a, arg());
        } else if (a == "--display-batch") {
            o.display_batch = parse_positive(a, arg());
        } else {
            throw usage_error("unknown option \"" + a + "\" (see --help)");
        }
    }
    if (o.c2r && !o.device_resident)
        throw usage_error("--kind c2r is for --device-resident (the CPU comparison times c2c and r2c)");
    if (o.device_resident && o.inverse)
        throw usage_error("--inverse with --device-resident: it times forward c2c and r2c, and c2r "
                          "(--kind c2r)");
    if (sizes_given && !o.shapes.empty())
        throw usage_error("--sizes and --shapes: give one of them (a 1-D shape is a size)");
    if (!o.shapes.empty() && (o.streaming || o.display || o.qpu_check))
        throw usage_error("--shapes is for the CPU comparison and --device-resident");
    if ((o.r2c || o.c2r) && (o.streaming || o.display || o.qpu_check))
        throw usage_error("--kind is for the CPU comparison and --device-resident");
    if (o.r2c && o.inverse)
        throw usage_error("--inverse with --kind r2c (c2r) is not benchmarked");
    if (o.window && (o.r2c || !o.shapes.empty()))
        throw usage_error("--window is for 1-D c2c transforms (--sizes), not --kind r2c or --shapes");
    if (!o.regimes.empty() && (o.points || o.batch))
        throw usage_error("--regimes with --points or --batch: give one of them");
    if (!o.regimes.empty() && (o.device_resident || o.streaming || o.display || o.qpu_check))
        throw usage_error("--regimes is for the CPU comparison, not --device-resident, --streaming, "
                          "--display or --qpu-check");
    if (!o.wisdom.empty() && !o.patient)
        std::fprintf(stderr,
                     "gpufft-bench: note: --fftw-wisdom is used only for --patient plans\n");
    return o;
}

//! The backend specs to plan, with all-isas and all expanded.
std::vector<std::string> expand_backends(const std::vector<std::string>& wanted)
{
    const auto infos = gpufft::backends();
    std::vector<std::string> out;
    auto add = [&](const std::string& s) {
        if (std::find(out.begin(), out.end(), s) == out.end())
            out.push_back(s);
    };
    for (const auto& w : wanted.empty() ? std::vector<std::string>{ "usable" } : wanted) {
        if (w == "usable") {
            for (const auto& b : infos)
                if (b.usable)
                    add(b.name);
        } else if (w == "all-isas") {
            bool found = false;
            for (const auto& b : infos)
                if (b.name == "simd" && b.usable) {
                    for (const auto& v : b.variants)
                        add("simd:" + v);
                    found = true;
                }
            if (!found)
                throw gpufft::error("all-isas: the simd backend is not usable here");
        } else if (w == "all") {
            for (const auto& b : infos) {
                if (!b.usable)
                    continue;
                if (b.variants.empty())
                    add(b.name);
                for (const auto& v : b.variants)
                    add(b.name + ":" + v);
            }
        } else {
            add(w);
        }
    }
    return out;
}

// ------------------------------------------------------------------ engines

//! Something timed: one of our plans or an FFTW plan, over the whole batch.
struct engine {
    std::string name;     //!< "simd:avx512", "fftwf:measure"
    std::string describe; //!< the algorithm, for the JSON
    double plan_ms = 0;
    std::function<void(const void*, void*)> run; //!< r2c: float in
    std::vector<double> ns;     //!< per call, wall time
    std::vector<double> cpu_ns; //!< per call, CPU time of the whole process
    double max_err = 0;
};

//! CPU time of all the process's threads, in ns: unlike wall time, it leaves
//! out the time other programs held the CPU, which on a loaded machine
//! stretches calls of about a millisecond by several times at random.
double process_cpu_ns()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}

struct fftwf_plan_holder {
    fftwf_plan p = nullptr;
    ~fftwf_plan_holder()
    {
        if (p)
            fftwf_destroy_plan(p);
    }
};

//! FFTW float for the batch, out of place, contiguous (advanced interface),
//! planned with FFTW_MEASURE or FFTW_PATIENT.
engine fftw_engine(const std::vector<std::size_t>& dims, std::size_t batch, bool inverse, bool r2c,
                   void* in, cf* out, unsigned flags)
{
    constexpr std::size_t int_max = std::numeric_limits<int>::max();
    std::vector<int> len;
    std::size_t points = 1;
    for (std::size_t d : dims) {
        if (d > int_max)
            throw usage_error("FFTW takes sizes and batches up to " + std::to_string(int_max));
        len.push_back(int(d));
        points *= d;
    }
    if (batch > int_max || points > int_max)
        throw usage_error("FFTW takes sizes and batches up to " + std::to_string(int_max));
    const int complex_points = int(points / dims.back() * (r2c ? dims.back() / 2 + 1 : dims.back()));
    const bool patient = flags == FFTW_PATIENT;
    engine e;
    e.name = patient ? "fftwf:patient" : "fftwf:measure";
    e.describe = patient ? "FFTW_PATIENT" : "FFTW_MEASURE";
    auto h = std::make_shared<fftwf_plan_holder>();
    const auto t0 = clock_type::now();
    auto* fout = reinterpret_cast<fftwf_complex*>(out);
    if (r2c)
        h->p = fftwf_plan_many_dft_r2c(int(len.size()), len.data(), int(batch),
                                       static_cast<float*>(in), nullptr, 1, int(points), fout,
                                       nullptr, 1, complex_points, flags);
    else
        h->p = fftwf_plan_many_dft(int(len.size()), len.data(), int(batch),
                                   static_cast<fftwf_complex*>(in), nullptr, 1, int(points), fout,
                                   nullptr, 1, complex_points, inverse ? FFTW_BACKWARD : FFTW_FORWARD,
                                   flags);
    e.plan_ms = ms_since(t0);
    if (!h->p)
        throw std::runtime_error("FFTW could not plan n=" + std::to_string(points));
    // Other buffers from fftwf_malloc have the alignment the plan was made for.
    if (r2c)
        e.run = [h](const void* i, void* o) {
            fftwf_execute_dft_r2c(h->p, static_cast<float*>(const_cast<void*>(i)),
                                  static_cast<fftwf_complex*>(o));
        };
    else
        e.run = [h](const void* i, void* o) {
            fftwf_execute_dft(h->p, static_cast<fftwf_complex*>(const_cast<void*>(i)),
                              static_cast<fftwf_complex*>(o));
        };
    return e;
}

engine gpufft_engine(const std::string& spec, const gpufft::problem& p, const options& o,
                     const std::vector<float>& weights = {})
{
    gpufft::plan_options po;
    po.backend = spec;
    po.threads = o.threads;
    po.tune = o.tune;
    po.input_weights = weights;
    engine e;
    const auto t0 = clock_type::now();
    auto plan = std::make_shared<gpufft::plan>(p, po);
    e.plan_ms = ms_since(t0);
    e.name = plan->backend();
    e.describe = plan->describe();
    if (p.kind == gpufft::transform_kind::r2c)
        e.run = [plan](const void* i, void* o) {
            plan->execute_r2c(static_cast<const float*>(i), static_cast<cf*>(o));
        };
    else
        e.run = [plan](const void* i, void* o) {
            plan->execute(static_cast<const cf*>(i), static_cast<cf*>(o));
        };
    return e;
}

//! --window's taps: a periodic Hann window of n points.
std::vector<float> hann(std::size_t n)
{
    std::vector<float> w(n);
    for (std::size_t j = 0; j < n; ++j)
        w[j] = float(0.5 - 0.5 * std::cos(2.0 * M_PI * double(j) / double(n)));
    return w;
}

/*!
 * --window's separate pass: `batch` transforms of taps.size() / 2 points,
 * out = in * taps, with each tap twice (for the real and the imaginary
 * part) so that this is one loop over floats the compiler vectorizes, as
 * gpufft.fft_vcc's load() did before input weights.
 */
void multiply_window(const cf* in, const std::vector<float>& paired, cf* out, std::size_t batch)
{
    const std::size_t floats = paired.size();
    for (std::size_t b = 0; b < batch; ++b) {
        const float* __restrict a = reinterpret_cast<const float*>(in) + b * floats;
        const float* __restrict t = paired.data();
        float* __restrict y = reinterpret_cast<float*>(out) + b * floats;
        for (std::size_t i = 0; i < floats; ++i)
            y[i] = a[i] * t[i];
    }
}

// ------------------------------------------------------------------ measure

struct fftw_buffer {
    cf* p;
    explicit fftw_buffer(std::size_t count)
        : p(reinterpret_cast<cf*>(fftwf_malloc(sizeof(cf) * std::max<std::size_t>(count, 1))))
    {
        if (!p)
            throw std::bad_alloc();
    }
    ~fftw_buffer() { fftwf_free(p); }
    fftw_buffer(const fftw_buffer&) = delete;
    fftw_buffer& operator=(const fftw_buffer&) = delete;
};

struct row {
    std::string backend, describe;
    std::string shape;  //!< "1024", "256x256"
    std::string regime; //!< "l2", "l3", "dram", "128K"; "points" or "batch" for --points, --batch
    std::size_t n, batch, input_bytes;
    unsigned repeats;
    double ns, ns_min, gflops, ratio_best, ratio_measure, err, plan_ms;
    double cpu_ns, ratio_best_cpu;
};

std::string shape_text(const std::vector<std::size_t>& dims)
{
    std::string s;
    for (std::size_t d : dims)
        s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
}

/*!
 * Plans every engine for one shape in one regime, checks each against FFTW
 * double, then times them call by call in turn. A regime of 0 bytes is
 * --batch's.
 */
std::vector<row> bench_size(const std::vector<std::size_t>& dims,
                            const regime& where,
                            const std::vector<std::string>& specs,
                            const options& o)
{
    gpufft::problem prob;
    prob.dims = dims;
    prob.kind = o.r2c ? gpufft::transform_kind::r2c : gpufft::transform_kind::c2c;
    prob.dir = o.inverse ? gpufft::direction::inverse : gpufft::direction::forward;
    const std::size_t n = prob.points();
    const std::size_t input_item = o.r2c ? sizeof(float) : sizeof(cf);
    prob.batch = where.bytes ? std::max<std::size_t>(
                                   1, std::size_t(std::llround(double(where.bytes) / double(n * input_item))))
                             : o.batch;
    prob.validate();
    const std::size_t batch = prob.batch;
    const std::size_t input_bytes = batch * n * input_item;
    const unsigned repeats = input_bytes >= dram_bytes ? dram_repeats(o.repeats) : o.repeats;
    const std::size_t span = prob.span(), out_points = prob.complex_extent();
    // r2c input: real_span floats, in a buffer of complex floats.
    fftw_buffer in(o.r2c ? (prob.real_span() + 1) / 2 : span), out(span);
    // --window: the taps, paired for multiply_window, and FFTW's input buffer.
    const std::vector<float> window = o.window ? hann(n) : std::vector<float>();
    std::vector<float> paired;
    for (float t : window)
        paired.insert(paired.end(), { t, t });
    fftw_buffer windowed(o.window ? span : 0);
    const auto fftw_windowed = [&](engine e) {
        if (o.window)
            e.run = [inner = e.run, &paired, w = windowed.p, batch](const void* i, void* y) {
                multiply_window(static_cast<const cf*>(i), paired, w, batch);
                inner(w, y);
            };
        return e;
    };

    std::vector<engine> engines;
    // MEASURE without any wisdom, so it stays what FFTW_MEASURE gives.
    fftwf_forget_wisdom();
    engines.push_back(fftw_windowed(fftw_engine(dims, batch, o.inverse, o.r2c, in.p, out.p, FFTW_MEASURE)));
    if (o.patient) {
        if (!o.wisdom.empty())
            fftwf_import_wisdom_from_filename(o.wisdom.c_str()); // absent the first time
        std::fprintf(stderr, "gpufft-bench: FFTW_PATIENT planning %s ...\n", shape_text(dims).c_str());
        engines.push_back(fftw_windowed(fftw_engine(dims, batch, o.inverse, o.r2c, in.p, out.p, FFTW_PATIENT)));
        if (!o.wisdom.empty() && !fftwf_export_wisdom_to_filename(o.wisdom.c_str()))
            std::fprintf(stderr, "gpufft-bench: could not write wisdom to %s\n", o.wisdom.c_str());
    }
    for (const auto& s : specs) {
        engines.push_back(gpufft_engine(s, prob, o, window));
        if (o.window) {
            engine e = gpufft_engine(s, prob, o);
            e.name += "+multiply";
            e.run = [inner = e.run, &paired, batch](const void* i, void* y) {
                multiply_window(static_cast<const cf*>(i), paired, static_cast<cf*>(y), batch);
                inner(y, y);
            };
            engines.push_back(std::move(e));
        }
    }

    // Fresh random input, after FFTW's planning scribbled on the buffers.
    std::mt19937 gen{ std::random_device{}() };
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    if (o.r2c)
        for (std::size_t i = 0; i < prob.real_span(); ++i)
            reinterpret_cast<float*>(in.p)[i] = u(gen);
    else
        for (std::size_t i = 0; i < span; ++i)
            in.p[i] = cf(u(gen), u(gen));
    const std::size_t nref = std::min(batch, reference_transforms);
    if (o.window) // the input the references transform: window x input, rounded as ours
        multiply_window(in.p, paired, windowed.p, nref);
    std::vector<cd> ref;
    for (std::size_t t = 0; t < nref; ++t) {
        const auto r = o.window                     ? reference(windowed.p + t * n, n, o.inverse)
                       : dims.size() == 1 && !o.r2c ? reference(in.p + t * n, n, o.inverse)
                                                    : shaped_reference(in.p, prob, t);
        ref.insert(ref.end(), r.begin(), r.end());
    }

    for (auto& e : engines) {
        std::fill(out.p, out.p + span, cf(NAN, NAN)); // an unwritten element shows as error inf
        for (unsigned w = 0; w < warmups; ++w)
            e.run(in.p, out.p);
        for (std::size_t t = 0; t < nref; ++t)
            e.max_err = std::max(e.max_err, rel_l2(out.p + t * out_points,
                                                   ref.data() + t * out_points, out_points));
        e.ns.reserve(repeats);
        e.cpu_ns.reserve(repeats);
    }
    for (unsigned r = 0; r < repeats; ++r)
        for (auto& e : engines) {
            const double c0 = process_cpu_ns();
            const auto t0 = clock_type::now();
            e.run(in.p, out.p);
            const auto t1 = clock_type::now();
            const double c1 = process_cpu_ns();
            e.ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() /
                           double(batch));
            e.cpu_ns.push_back((c1 - c0) / double(batch));
        }

    const double measure_ns = median(engines[0].ns);
    // The faster FFTW plan: PATIENT explores all MEASURE does, so this is
    // PATIENT's time unless noise made MEASURE's median lower.
    const double best_ns = o.patient ? std::min(measure_ns, median(engines[1].ns)) : measure_ns;
    const double best_cpu_ns = o.patient ? std::min(median(engines[0].cpu_ns), median(engines[1].cpu_ns))
                                         : median(engines[0].cpu_ns);
    std::vector<row> rows;
    for (const auto& e : engines) {
        row r;
        r.backend = e.name;
        r.describe = e.describe;
        r.shape = shape_text(dims);
        r.regime = where.name;
        r.n = n;
        r.batch = batch;
        r.input_bytes = input_bytes;
        r.repeats = repeats;
        r.ns = median(e.ns);
        r.ns_min = *std::min_element(e.ns.begin(), e.ns.end());
        r.gflops = (o.r2c ? 2.5 : 5.0) * double(n) * std::log2(double(n)) / r.ns;
        r.ratio_best = best_ns / r.ns;
        r.ratio_measure = measure_ns / r.ns;
        r.cpu_ns = median(e.cpu_ns);
        r.ratio_best_cpu = best_cpu_ns / r.cpu_ns;
        r.err = e.max_err;
        r.plan_ms = e.plan_ms;
        rows.push_back(r);
    }
    return rows;
}

// ------------------------------------------------------------------ output

//! The SIMD-related CPU flags, from /proc/cpuinfo.
std::string cpu_flags()
{
    static const char* const wanted[] = { "sse2", "avx", "avx2", "fma", "avx512f",
                                          "avx512dq", "avx512bw", "avx512vl", "asimd", "neon" };
    std::ifstream f("/proc/cpuinfo");
    std::string line, out;
    while (std::getline(f, line)) {
        if (line.compare(0, 5, "flags") != 0 && line.compare(0, 8, "Features") != 0)
            continue;
        std::istringstream ss(line.substr(line.find(':') + 1));
        std::vector<std::string> have{ std::istream_iterator<std::string>(ss), {} };
        for (const char* w : wanted)
            if (std::find(have.begin(), have.end(), w) != have.end())
                out += (out.empty() ? "" : " ") + std::string(w);
        break;
    }
    return out;
}

//! 262144 as "256 KiB", 8388608 as "8 MiB"; other sizes in bytes.
std::string bytes_text(std::size_t bytes)
{
    static const char* const units[] = { "B", "KiB", "MiB", "GiB" };
    int u = 0;
    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++u;
    }
    return std::to_string(bytes) + " " + units[u];
}

void print_header(const options& o)
{
    std::printf("gpufft-bench: %s (%s), %u hardware threads; FFTW %s\n",
                cpu_model().c_str(),
                cpu_flags().c_str(),
                std::thread::hardware_concurrency(),
                fftwf_version);
    std::printf("%s%s%s, out of place, threads %u, median of %u calls (%u for calls of 64 MiB or more) "
                "after %u warm-ups; ratio = FFTW ns / ours (>1: gpufft faster)\n",
                o.window ? "Hann-windowed " : "",
                o.r2c ? "r2c " : "",
                o.inverse ? "inverse" : "forward",
                o.threads,
                o.repeats,
                dram_repeats(o.repeats),
                warmups);
    std::printf("regimes (input bytes a call):");
    for (const auto& r : o.regimes)
        std::printf(" %s %s", r.name.c_str(), r.bytes ? bytes_text(r.bytes).c_str() : "(--batch)");
    std::printf("\n\n%11s %-7s %10s %7s  %-21s %12s %8s %8s %8s %12s %8s %11s %10s  %s\n",
                "N",
                "regime",
                "input",
                "batch",
                "backend",
                "ns/xform",
                "GFLOPS",
                "vs best",
                "vs MEAS",
                "CPU ns/xform",
                "vs best",
                "max rel err",
                "plan ms",
                "algorithm");
    std::fflush(stdout);
}

void print_rows(const std::vector<row>& rows)
{
    for (const auto& r : rows)
        std::printf("%11s %-7s %10s %7zu  %-21s %12.1f %8.2f %8.2f %8.2f %12.1f %8.2f %11.2e %10.2f  %s\n",
                    r.shape.c_str(),
                    r.regime.c_str(),
                    bytes_text(r.input_bytes).c_str(),
                    r.batch,
                    r.backend.c_str(),
                    r.ns,
                    r.gflops,
                    r.ratio_best,
                    r.ratio_measure,
                    r.cpu_ns,
                    r.ratio_best_cpu,
                    r.err,
                    r.plan_ms,
                    r.describe.c_str());
    std::printf("\n");
    std::fflush(stdout);
}

//! Each gpufft backend's "vs best" ratios per shape, one column a regime, by
//! wall time and by CPU time.
void print_summary(const options& o, const std::vector<row>& rows)
{
    std::printf("ratio vs best FFTW (>1: gpufft faster), by regime: wall time | CPU time\n%11s  %-21s", "N",
                "backend");
    for (int cpu = 0; cpu < 2; ++cpu) {
        std::printf(cpu ? " |" : "");
        for (const auto& r : o.regimes)
            std::printf(" %8s", r.name.c_str());
    }
    std::printf("\n");
    std::vector<std::pair<std::string, std::string>> lines; // (shape, backend), in first-seen order
    for (const auto& r : rows)
        if (r.backend.compare(0, 6, "fftwf:") != 0 &&
            std::find(lines.begin(), lines.end(), std::make_pair(r.shape, r.backend)) == lines.end())
            lines.emplace_back(r.shape, r.backend);
    for (const auto& [shape, backend] : lines) {
        std::printf("%11s  %-21s", shape.c_str(), backend.c_str());
        for (int cpu = 0; cpu < 2; ++cpu) {
            std::printf(cpu ? " |" : "");
            for (const auto& g : o.regimes) {
                const auto it = std::find_if(rows.begin(), rows.end(), [&](const row& r) {
                    return r.shape == shape && r.backend == backend && r.regime == g.name;
                });
                if (it == rows.end())
                    std::printf(" %8s", "-");
                else
                    std::printf(" %8.2f", cpu ? it->ratio_best_cpu : it->ratio_best);
            }
        }
        std::printf("\n");
    }
    std::fflush(stdout);
}

void write_json(const std::string& path, const options& o, const std::vector<row>& rows)
{
    std::ofstream f(path);
    if (!f)
        throw std::runtime_error("cannot write " + path);
    f << "{\n  \"header\": {"
      << "\"tool\": \"gpufft-bench\", \"cpu\": " << json_string(cpu_model())
      << ", \"cpu_flags\": " << json_string(cpu_flags())
      << ", \"hardware_threads\": " << std::thread::hardware_concurrency()
      << ", \"date\": " << json_string(utc_now()) << ", \"repeats\": " << o.repeats
      << ", \"warmups\": " << warmups << ", \"statistic\": \"median\""
      << ", \"threads\": " << o.threads
      << ", \"direction\": " << json_string(o.inverse ? "inverse" : "forward")
      << ", \"kind\": " << json_string(o.r2c ? "r2c" : "c2c") << ", \"window\": " << (o.window ? "true" : "false")
      << ", \"placement\": \"out-of-place\""
      << ", \"regimes\": [";
    for (std::size_t i = 0; i < o.regimes.size(); ++i)
        f << (i ? ", " : "") << "{\"name\": " << json_string(o.regimes[i].name)
          << ", \"input_bytes\": " << o.regimes[i].bytes << "}";
    f << "], \"fftw_version\": " << json_string(fftwf_version)
      << ", \"fftw_patient\": " << (o.patient ? "true" : "false") << "},\n  \"results\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const row& r = rows[i];
        f << (i ? ",\n    " : "\n    ") << "{\"backend\": " << json_string(r.backend)
          << ", \"n\": " << r.n << ", \"shape\": " << json_string(r.shape)
          << ", \"regime\": " << json_string(r.regime) << ", \"input_bytes\": " << r.input_bytes
          << ", \"batch\": " << r.batch << ", \"threads\": " << o.threads << ", \"repeats\": " << r.repeats
          << ", \"ns_per_transform\": " << json_number(r.ns)
          << ", \"ns_per_transform_min\": " << json_number(r.ns_min)
          << ", \"gflops\": " << json_number(r.gflops)
          << ", \"ratio_vs_fftw\": " << json_number(r.ratio_best)
          << ", \"ratio_vs_fftw_measure\": " << json_number(r.ratio_measure)
          << ", \"cpu_ns_per_transform\": " << json_number(r.cpu_ns)
          << ", \"ratio_vs_fftw_cpu\": " << json_number(r.ratio_best_cpu)
          << ", \"max_rel_err\": " << json_number(r.err)
          << ", \"plan_ms\": " << json_number(r.plan_ms)
          << ", \"describe\": " << json_string(r.describe) << "}";
    }
    f << "\n  ]\n}\n";
    if (!f)
        throw std::runtime_error("error writing " + path);
}

void list_backends()
{
    for (const auto& b : gpufft::backends()) {
        std::string variants;
        for (const auto& v : b.variants)
            variants += (variants.empty() ? "" : ",") + v;
        std::printf("%-10s %-8s variants: %-28s %s%s%s\n",
                    b.name.c_str(),
                    b.usable ? "usable" : "unusable",
                    variants.empty() ? "-" : variants.c_str(),
                    b.description.c_str(),
                    b.reason.empty() ? "" : "; ",
                    b.reason.c_str());
    }
}

} // namespace

int main(int argc, char** argv)
{
    try {
        options o = parse(argc, argv);
        if (o.list) {
            list_backends();
            list_opencl_devices();
            return 0;
        }
        if (o.display) {
            run_display_mode(o, expand_backends(o.backends));
            return 0;
        }
        if (o.qpu_check)
            return qpu_check(library_engines(), system_pi_facts(), qpu_check_config{}, stdout, stderr);
        if (o.device_resident || o.streaming) {
            if (!o.points)
                o.points = std::size_t(1) << 25; // 256 MiB of complex floats
            return run_device_modes(o) ? 1 : 0;
        }
        if (o.points)
            o.regimes = { { "points", o.points * (o.r2c ? sizeof(float) : sizeof(cf)) } };
        else if (o.batch)
            o.regimes = { { "batch", 0 } };
        else if (o.regimes.empty())
            o.regimes = parse_regimes("--regimes", "l2,l3,dram");
        const std::vector<std::string> specs = expand_backends(o.backends);
        // Fail on a bad size or backend now, not after minutes of FFTW planning.
        if (o.shapes.empty())
            for (std::size_t n : o.sizes)
                o.shapes.push_back({ n });
        for (const auto& dims : o.shapes) {
            gpufft::problem p;
            p.dims = dims;
            p.validate();
        }
        for (const auto& s : specs) {
            gpufft::plan_options po;
            po.backend = s;
            gpufft::plan probe(gpufft::problem{ 64 }, po);
        }

        fftwf_init_threads();
        fftwf_plan_with_nthreads(int(o.threads));
        print_header(o);
        std::vector<row> all;
        for (const auto& dims : o.shapes)
            for (const auto& where : o.regimes) {
                const auto rows = bench_size(dims, where, specs, o);
                print_rows(rows);
                all.insert(all.end(), rows.begin(), rows.end());
                if (!o.json.empty())
                    write_json(o.json, o, all); // after each run: a long run keeps what it has
            }
        if (o.regimes.size() > 1)
            print_summary(o, all);
        return 0;
    } catch (const usage_error& e) {
        std::fprintf(stderr, "gpufft-bench: %s\n", e.what());
        return 2;
    } catch (const gpufft::error& e) {
        std::fprintf(stderr, "gpufft-bench: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpufft-bench: %s\n", e.what());
        return 1;
    }
}
