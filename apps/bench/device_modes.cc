// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench's OpenCL device modes.
 *
 * --device-resident: batched transforms (forward c2c, r2c, or c2r; 1-D
 * sizes or multi-dimensional shapes) on buffers that stay on one device,
 * every engine that does the same transform in one process, side by side:
 * gpufft's device_plan, clFFT (1-D c2c) and VkFFT in the device_plan's
 * context and queue, cuFFT when built with it and a CUDA device is there.
 * Each engine is checked once (output poisoned with NaN, every element must
 * be written, sampled transforms against FFTW double), then timed: a timed
 * group is as many back-to-back calls as fill about 20 ms, rotating among
 * the input buffers, and the median group over --repeats is reported. The
 * engines take turns group by group.
 *
 * --streaming: host IQ in, averaged dB spectra out through gpufft::spectrum,
 * against a pinned host-to-device copy of the same bytes in the same chunks.
 * The IQ goes in by push_bytes() (one host copy), by acquire() + memcpy +
 * commit() (the copy a radio driver's read makes into the engine's span), or
 * by acquire() + commit() of spans the warm-up pass filled ("prefilled": no
 * host copy, as the pinned copy's bytes are resident already).
 */
#include "device_modes.h"
#include "engines.h"

#include <gpufft/gpufft.h>
#include <gpufft/opencl.h>
#include <gpufft/spectrum.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include <sys/resource.h>

namespace gpufft::bench {
namespace {

using gpufft::opencl::device_info;

constexpr double group_target_ns = 20e6; // a timed group of calls lasts about this long
constexpr std::size_t max_group_calls = 1000;
constexpr double max_fft_error = 1e-4;   // relative L2; float FFTs land near 1e-7
constexpr double max_power_error = 1e-3; // relative L2 of a spectrum's linear power

std::string mib(std::size_t bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f MiB", double(bytes) / 1048576.0);
    return buf;
}

//! The cl_device_id of a device that gpufft::opencl::devices() listed:
//! platforms and their devices in the loader's order, as the backend lists them.
cl_device_id find_cl_device(const device_info& d)
{
    cl_uint np = 0;
    cl_check(clGetPlatformIDs(0, nullptr, &np), "clGetPlatformIDs");
    std::vector<cl_platform_id> platforms(np);
    cl_check(clGetPlatformIDs(np, platforms.data(), nullptr), "clGetPlatformIDs");
    std::vector<cl_device_id> all;
    for (cl_platform_id p : platforms) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS)
            continue; // a platform with no device
        std::vector<cl_device_id> ids(nd);
        cl_check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr), "clGetDeviceIDs");
        all.insert(all.end(), ids.begin(), ids.end());
    }
    auto name_of = [](cl_device_id id) {
        char buf[256] = {};
        clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof buf - 1, buf, nullptr);
        return std::string(buf);
    };
    if (d.index < all.size() && name_of(all[d.index]) == d.name)
        return all[d.index];
    for (cl_device_id id : all)
        if (name_of(id) == d.name)
            return id;
    throw std::runtime_error("the OpenCL loader does not list the device \"" + d.name + "\"");
}

//! A context and in-order queue of the bench's own on one device.
struct own_queue {
    cl_ptr<cl_context> context;
    cl_ptr<cl_command_queue> queue;
    explicit own_queue(cl_device_id id)
    {
        cl_int err = CL_SUCCESS;
        context.reset(clCreateContext(nullptr, 1, &id, nullptr, nullptr, &err));
        cl_check(err, "clCreateContext");
        queue.reset(clCreateCommandQueue(context.get(), id, 0, &err));
        cl_check(err, "clCreateCommandQueue");
    }
};

//! Uniform floats in [-1, 1), fast enough for a GiB of input.
struct fast_random {
    std::uint64_t s;
    explicit fast_random(std::uint64_t seed) : s(seed ? seed : 1) {}
    float next()
    {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return float(std::int64_t(s >> 40) - (std::int64_t(1) << 23)) / float(1 << 23);
    }
};

std::uint64_t fresh_seed()
{
    return (std::uint64_t(std::random_device{}()) << 32) | std::random_device{}();
}

// ------------------------------------------------------------------ device-resident

//! gpufft's device_plan as an engine on the shared buffers.
class gpufft_engine final : public cl_engine
{
public:
    gpufft_engine(cl_buffers& b, std::unique_ptr<opencl::device_plan> plan)
        : cl_engine(b), d_plan(std::move(plan))
    {
    }
    std::string name() const override { return "gpufft"; }
    std::string describe() const override { return d_plan->describe(); }
    void run(std::size_t slot) override { d_plan->enqueue(d_buffers.in[slot], d_buffers.out); }
    void finish() override { d_plan->finish(); } // reports device faults

private:
    std::unique_ptr<opencl::device_plan> d_plan;
};

struct device_row {
    std::string engine, describe, status = "ok";
    std::string kind = "c2c", shape;                           //!< shape: "4096", "128x128x128"
    std::size_t n = 0, batch = 0, inputs = 0, group_calls = 0; //!< n: points a transform
    double ns = NAN, ns_min = NAN, gbps = NAN, ratio = NAN, err = NAN, plan_ms = NAN;
    double io_bytes = 0; //!< bytes a transform reads and writes (8 a complex point, 4 a real)
    std::string anchor;
};

struct slot {
    std::unique_ptr<device_engine> engine;
    device_row row;
    std::vector<double> ns;
};

//! Plans one engine, or records why it could not.
template <typename Make>
void add_engine(std::vector<slot>& slots, const std::string& name, const device_row& base, Make make)
{
    slot s;
    s.row = base;
    s.row.engine = name;
    const auto t0 = clock_type::now();
    try {
        s.engine = make();
        s.row.plan_ms = ms_since(t0);
        s.row.describe = s.engine->describe();
    } catch (const std::exception& e) {
        s.row.status = std::string("error: ") + e.what();
    }
    slots.push_back(std::move(s));
}

//! The transforms of the batch checked against FFTW double.
std::vector<std::size_t> checked_transforms(std::size_t batch)
{
    std::vector<std::size_t> t{ 0, 1, 2, batch / 2, batch - 1 };
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    t.erase(std::remove_if(t.begin(), t.end(), [&](std::size_t i) { return i >= batch; }), t.end());
    return t;
}

//! Complex floats a buffer of p's input and of its output hold (reals count half).
std::size_t input_cf(const gpufft::problem& p)
{
    return p.kind == gpufft::transform_kind::r2c ? (p.real_span() + 1) / 2 : p.span();
}
std::size_t output_cf(const gpufft::problem& p)
{
    return p.kind == gpufft::transform_kind::c2r ? (p.real_span() + 1) / 2 : p.span();
}

//! Runs slot 0 once into a poisoned output and grades the result against
//! FFTW double of p's kind and shape.
void check_engine(slot& s, const gpufft::problem& p, const std::vector<cf>& input, std::vector<cf>& out)
{
    try {
        s.engine->poison_output();
        s.engine->run(0);
        s.engine->finish();
        s.engine->download(out.data());
    } catch (const std::exception& e) {
        s.row.status = std::string("error: ") + e.what();
        return;
    }
    const bool real_out = p.kind == gpufft::transform_kind::c2r;
    const std::size_t outputs = real_out ? p.points() : p.complex_extent();
    const float* floats = reinterpret_cast<const float*>(out.data());
    std::size_t unwritten = 0;
    for (std::size_t i = 0; i < p.batch * outputs * (real_out ? 1 : 2); ++i)
        unwritten += !std::isfinite(floats[i]);
    double err = 0;
    std::vector<cf> got(outputs);
    for (std::size_t t : checked_transforms(s.row.batch)) {
        const auto ref = shaped_reference(input.data(), p, t);
        for (std::size_t i = 0; i < outputs; ++i)
            got[i] = real_out ? cf(floats[t * outputs + i], 0) : out[t * outputs + i];
        err = std::max(err, rel_l2(got.data(), ref.data(), outputs));
    }
    s.row.err = err;
    if (unwritten)
        s.row.status = "wrong: " + std::to_string(unwritten) + " output values not finite";
    else if (!(err <= max_fft_error))
        s.row.status = "wrong: relative L2 error above " + json_number(max_fft_error);
}

/*!
 * c2r's input: every transform the spectrum of real data (random reals
 * through FFTW double's r2c, scaled by 1 / points), each times a factor of
 * its own. Any spectrum that is not one would make the libraries differ
 * by design: VkFFT, for one, transforms two of a batch's rows at once as
 * one complex FFT, which holds only for such spectra.
 */
void make_hermitian(std::vector<cf>& in, const gpufft::problem& p, fast_random& rnd)
{
    gpufft::problem r2c = p;
    r2c.kind = gpufft::transform_kind::r2c;
    r2c.dir = gpufft::direction::forward;
    r2c.batch = 1;
    std::vector<float> reals(p.points());
    for (float& v : reals)
        v = rnd.next();
    const auto spectrum = shaped_reference(reals.data(), r2c, 0);
    const std::size_t extent = p.complex_extent();
    for (std::size_t t = 0; t < p.batch; ++t) {
        const double factor = (1.5 + rnd.next()) / double(p.points());
        for (std::size_t i = 0; i < extent; ++i)
            in[t * extent + i] = cf(spectrum[i] * factor);
    }
}

std::vector<device_row> device_resident_shape(const std::vector<std::size_t>& dims,
                                              const options& o,
                                              const device_info& dev,
                                              cl_device_id id,
                                              bool with_cufft)
{
    gpufft::problem prob;
    prob.dims = dims;
    prob.kind = o.r2c   ? gpufft::transform_kind::r2c
                : o.c2r ? gpufft::transform_kind::c2r
                        : gpufft::transform_kind::c2c;
    prob.dir = o.c2r ? gpufft::direction::inverse : gpufft::direction::forward;
    const std::size_t n = prob.points();
    device_row base;
    base.n = n;
    base.kind = gpufft::kind_name(prob.kind);
    for (std::size_t d : dims)
        base.shape += (base.shape.empty() ? "" : "x") + std::to_string(d);
    base.batch = o.batch ? o.batch
                         : std::max<std::size_t>(
                               1, std::size_t(std::llround(double(o.points) / double(n))));
    prob.batch = base.batch;
    prob.validate();
    const double complex_bytes = 8.0 * double(prob.complex_extent());
    base.io_bytes = prob.kind == gpufft::transform_kind::c2c ? 2 * complex_bytes
                                                             : complex_bytes + 4.0 * double(n);
    // Every buffer holds the larger of a call's input and output.
    const std::size_t span = std::max(input_cf(prob), output_cf(prob));
    const std::size_t bytes = span * sizeof(cf);
    // Two inputs and the output, with as much again left for the engines' scratch.
    base.inputs = 6 * bytes <= dev.global_memory ? 2 : 1;

    std::unique_ptr<opencl::device_plan> ours;
    std::string ours_error;
    const auto t0 = clock_type::now();
    try {
        ours = std::make_unique<opencl::device_plan>(prob, o.opencl_device);
    } catch (const std::exception& e) {
        ours_error = e.what();
    }
    const double ours_ms = ms_since(t0);
    // Everything runs in our plan's context and queue; without a plan, in the bench's own.
    std::unique_ptr<own_queue> fallback;
    if (!ours)
        fallback = std::make_unique<own_queue>(id);
    cl_buffers buffers(ours ? ours->context() : fallback->context.get(),
                       ours ? ours->queue() : fallback->queue.get(),
                       span,
                       base.inputs);
    std::vector<slot> slots; // after the buffers: the engines hold on to them

    add_engine(slots, "gpufft", base, [&]() -> std::unique_ptr<device_engine> {
        if (!ours)
            throw std::runtime_error(ours_error);
        return std::make_unique<gpufft_engine>(buffers, std::move(ours));
    });
    slots.back().row.plan_ms = ours_ms;
#ifdef GPUFFT_BENCH_CUFFT
    if (with_cufft)
        add_engine(slots, "cuFFT", base, [&] { return make_cufft_engine(prob, base.inputs); });
#else
    (void)with_cufft;
#endif
#ifdef GPUFFT_BENCH_CLFFT
    // The clFFT engine plans 1-D c2c only.
    if (prob.is_1d_c2c())
        add_engine(slots, "clFFT", base, [&] { return make_clfft_engine(buffers, n, base.batch); });
#endif
#ifdef GPUFFT_BENCH_VKFFT
    if (prob.rank() <= 3)
        add_engine(slots, "VkFFT", base, [&] { return make_vkfft_engine(buffers, id, prob); });
#endif

    // Fresh random input in every buffer.
    const std::uint64_t seed = fresh_seed();
    std::printf("%s %s batch=%zu: %s a buffer, %zu input buffer(s), seed %llu\n",
                base.kind.c_str(),
                base.shape.c_str(),
                base.batch,
                mib(bytes).c_str(),
                base.inputs,
                static_cast<unsigned long long>(seed));
    std::fflush(stdout);
    fast_random rnd(seed);
    std::vector<std::vector<cf>> inputs(base.inputs, std::vector<cf>(span));
    for (auto& in : inputs)
        for (cf& v : in)
            v = cf(rnd.next(), rnd.next());
    if (prob.kind == gpufft::transform_kind::c2r)
        for (auto& in : inputs)
            make_hermitian(in, prob, rnd);
    std::vector<cf> out(span);
    for (auto& s : slots) {
        if (!s.engine)
            continue;
        try {
            for (std::size_t i = 0; i < base.inputs; ++i)
                s.engine->upload(i, inputs[i].data());
        } catch (const std::exception& e) {
            s.row.status = std::string("error: ") + e.what();
            continue;
        }
        check_engine(s, prob, inputs[0], out);
    }
    // Warm-ups, then the calls that fill one timed group.
    for (auto& s : slots) {
        if (s.row.status != "ok")
            continue;
        try {
            for (unsigned w = 0; w < warmups; ++w)
                s.engine->run(w % base.inputs);
            s.engine->finish();
            const double one = s.engine->time_calls(1, base.inputs);
            s.row.group_calls = std::clamp<std::size_t>(
                std::size_t(std::ceil(group_target_ns / std::max(one, 1.0))), 1, max_group_calls);
        } catch (const std::exception& e) {
            s.row.status = std::string("error: ") + e.what();
        }
    }
    for (unsigned r = 0; r < o.repeats; ++r)
        for (auto& s : slots) {
            if (s.row.status != "ok")
                continue;
            try {
                const std::size_t calls = s.row.group_calls;
                s.ns.push_back(s.engine->time_calls(calls, base.inputs) /
                               double(calls * base.batch));
            } catch (const std::exception& e) {
                s.row.status = std::string("error: ") + e.what();
            }
        }

    std::vector<device_row> rows;
    for (auto& s : slots) {
        if (s.row.status == "ok") {
            s.row.ns = median(s.ns);
            s.row.ns_min = *std::min_element(s.ns.begin(), s.ns.end());
            s.row.gbps = s.row.io_bytes / s.row.ns;
        }
        rows.push_back(s.row);
    }
    // The anchor: cuFFT when it ran, else clFFT.
    for (const char* anchor : { "cuFFT", "clFFT" }) {
        const auto a = std::find_if(rows.begin(), rows.end(), [&](const device_row& r) {
            return r.engine == anchor && r.status == "ok";
        });
        if (a == rows.end())
            continue;
        for (auto& r : rows) {
            r.anchor = anchor;
            r.ratio = a->ns / r.ns;
        }
        break;
    }
    return rows;
}

void print_device_rows(const std::vector<device_row>& rows)
{
    for (const auto& r : rows) {
        char ratio[32] = "-";
        if (!r.anchor.empty() && std::isfinite(r.ratio))
            std::snprintf(ratio, sizeof ratio, "%.2f %s", r.ratio, r.anchor.c_str());
        if (r.status == "ok")
            std::printf("%4s %14s %8zu  %-7s %12.1f %9.1f %14s %11.2e %10.1f  %s\n",
                        r.kind.c_str(),
                        r.shape.c_str(),
                        r.batch,
                        r.engine.c_str(),
                        r.ns,
                        r.gbps,
                        ratio,
                        r.err,
                        r.plan_ms,
                        r.describe.c_str());
        else
            std::printf("%4s %14s %8zu  %-7s %s%s%s\n",
                        r.kind.c_str(),
                        r.shape.c_str(),
                        r.batch,
                        r.engine.c_str(),
                        r.status.c_str(),
                        std::isfinite(r.err) ? (" (max rel err " + json_number(r.err) + ")").c_str()
                                             : "",
                        r.describe.empty() ? "" : ("; " + r.describe).c_str());
    }
    std::printf("\n");
    std::fflush(stdout);
}

// ------------------------------------------------------------------ streaming

struct stream_row {
    std::string engine, backend, format, input = "-", status = "ok";
    std::size_t n = 0, batch = 0, bytes = 0, outputs = 0;
    double msps = NAN, ratio = NAN, gbps_in = NAN, power_err = NAN;
    //! Host CPU seconds (user + system) per 10^9 samples: every thread of the process, the pushing thread.
    double cpu_s_per_gs = NAN, caller_cpu_s_per_gs = NAN;
};

//! User + system CPU seconds used so far by this process (all threads) and by the calling thread.
struct cpu_seconds {
    double process = 0, thread = 0;
};

cpu_seconds cpu_now()
{
    const auto sec = [](int who) {
        rusage u{};
        getrusage(who, &u);
        return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
               1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
    };
    return { sec(RUSAGE_SELF), sec(RUSAGE_THREAD) };
}

//! One timed call: wall nanoseconds and the CPU seconds it took.
struct timing {
    double ns = 0;
    cpu_seconds cpu;
};

template <class F>
timing timed(F&& f)
{
    const cpu_seconds c0 = cpu_now();
    const auto t0 = clock_type::now();
    f();
    const double ns = std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
    const cpu_seconds c1 = cpu_now();
    return { ns, { c1.process - c0.process, c1.thread - c0.thread } };
}

//! Medians of timed passes over `samples` samples into a row.
template <class Row>
void set_rates(Row& r, const std::vector<timing>& runs, double samples, double bytes)
{
    std::vector<double> ns, process, thread;
    for (const timing& t : runs) {
        ns.push_back(t.ns);
        process.push_back(t.cpu.process);
        thread.push_back(t.cpu.thread);
    }
    r.msps = samples / median(ns) * 1e3;
    r.gbps_in = bytes / median(ns);
    r.cpu_s_per_gs = median(process) / samples * 1e9;
    r.caller_cpu_s_per_gs = median(thread) / samples * 1e9;
}

//! Random IQ of `bytes` bytes in format f (whole samples).
std::vector<unsigned char> random_iq(sample_format f, std::size_t bytes, fast_random& rnd)
{
    std::vector<unsigned char> buf(bytes);
    if (f == sample_format::cf32) {
        for (std::size_t i = 0; i + sizeof(float) <= bytes; i += sizeof(float)) {
            const float v = rnd.next();
            std::memcpy(&buf[i], &v, sizeof v);
        }
    } else {
        for (auto& b : buf) // int, any byte pattern is a valid sample
            b = static_cast<unsigned char>(rnd.next() * 128.0f + 128.0f);
    }
    return buf;
}

//! Nanoseconds for clEnqueueWriteBuffer of `host` chunk by chunk from a pinned buffer.
class pinned_copy
{
public:
    pinned_copy(cl_device_id id, const std::vector<unsigned char>& host) : d_q(id), d_bytes(host.size())
    {
        cl_int err = CL_SUCCESS;
        d_pinned.reset(clCreateBuffer(
            d_q.context.get(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_ONLY, d_bytes, nullptr, &err));
        cl_check(err, "clCreateBuffer (pinned)");
        d_device.reset(clCreateBuffer(d_q.context.get(), CL_MEM_READ_ONLY, d_bytes, nullptr, &err));
        cl_check(err, "clCreateBuffer");
        d_host = clEnqueueMapBuffer(
            d_q.queue.get(), d_pinned.get(), CL_TRUE, CL_MAP_WRITE, 0, d_bytes, 0, nullptr, nullptr, &err);
        cl_check(err, "clEnqueueMapBuffer");
        std::memcpy(d_host, host.data(), d_bytes);
    }
    ~pinned_copy()
    {
        clEnqueueUnmapMemObject(d_q.queue.get(), d_pinned.get(), d_host, 0, nullptr, nullptr);
        clFinish(d_q.queue.get());
    }
    timing run(std::size_t chunk)
    {
        return timed([&] {
            for (std::size_t off = 0; off < d_bytes; off += chunk)
                cl_check(clEnqueueWriteBuffer(d_q.queue.get(),
                                              d_device.get(),
                                              CL_FALSE,
                                              off,
                                              std::min(chunk, d_bytes - off),
                                              static_cast<unsigned char*>(d_host) + off,
                                              0,
                                              nullptr,
                                              nullptr),
                         "clEnqueueWriteBuffer");
            cl_check(clFinish(d_q.queue.get()), "clFinish");
        });
    }

private:
    own_queue d_q;
    std::size_t d_bytes;
    cl_ptr<cl_mem> d_pinned, d_device;
    void* d_host = nullptr;
};

//! Relative L2 distance of two dB spectra, compared as linear power.
double power_error(const std::vector<float>& db, const std::vector<float>& ref_db)
{
    double num = 0, den = 0;
    for (std::size_t i = 0; i < db.size() && i < ref_db.size(); ++i) {
        const double a = std::pow(10.0, db[i] / 10.0), b = std::pow(10.0, ref_db[i] / 10.0);
        if (!std::isfinite(a))
            return std::numeric_limits<double>::infinity();
        num += (a - b) * (a - b);
        den += b * b;
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

//! How the IQ goes into the engine (--stream-input).
enum class stream_input { push, acquire, prefilled };

/*!
 * Feeds `iq` to `s` in pieces of `chunk` bytes as `input` says, then
 * flushes. `committed`, when set, gets every byte committed until the
 * first output arrives (to check what a prefilled pass computed on).
 */
void feed(spectrum& s,
          stream_input input,
          const std::vector<unsigned char>& iq,
          std::size_t chunk,
          const spectrum::sink& sink,
          const bool& first_seen,
          std::vector<unsigned char>* committed = nullptr)
{
    for (std::size_t off = 0; off < iq.size(); off += chunk) {
        const std::size_t piece = std::min(chunk, iq.size() - off);
        if (input == stream_input::push) {
            s.push_bytes(iq.data() + off, piece, sink);
            continue;
        }
        for (std::size_t done = 0; done < piece;) {
            const input_span span = s.acquire(piece - done);
            if (input == stream_input::acquire)
                std::memcpy(span.data, iq.data() + off + done, span.bytes);
            else if (committed && !first_seen)
                committed->insert(committed->end(), span.data, span.data + span.bytes);
            s.commit(span.bytes, sink);
            done += span.bytes;
        }
    }
    s.flush(sink);
}

/*!
 * Times gpufft::spectrum on `iq` fed in pieces of `chunk` bytes: one
 * warm-up pass, whose first spectrum is checked against `reference_db`
 * (or becomes it when empty), then `repeats` passes. The warm-up of a
 * prefilled row writes the spans as acquire does; its timed passes commit
 * what the spans hold, so one more pass records those bytes and its first
 * spectrum is checked against simd's on them.
 */
void stream_pass(stream_row& r,
                 const spectrum_config& c,
                 stream_input input,
                 unsigned repeats,
                 const std::vector<unsigned char>& iq,
                 std::size_t chunk,
                 std::vector<float>& reference_db)
{
    spectrum s(c);
    r.backend = s.backend();
    r.batch = s.batch();
    std::vector<float> first;
    bool first_seen = false;
    std::size_t outputs = 0;
    const spectrum::sink sink = [&](const float* db, std::size_t count) {
        if (!first_seen)
            first.assign(db, db + count);
        first_seen = true;
        ++outputs;
    };
    auto pass = [&](stream_input how, std::vector<unsigned char>* committed = nullptr) {
        s.reset();
        first.clear();
        first_seen = false;
        outputs = 0;
        return timed([&] { feed(s, how, iq, chunk, sink, first_seen, committed); });
    };
    const auto check = [&](const std::vector<float>& want, const char* what) {
        r.power_err = power_error(first, want);
        if (!(r.power_err <= max_power_error))
            r.status = what;
        return r.status == "ok";
    };
    pass(input == stream_input::push ? input : stream_input::acquire);
    if (reference_db.empty())
        reference_db = first;
    else if (!check(reference_db, "wrong: first spectrum differs from simd's"))
        return;
    std::vector<timing> runs;
    for (unsigned k = 0; k < repeats; ++k)
        runs.push_back(pass(input));
    r.outputs = outputs;
    set_rates(r, runs, double(iq.size() / sample_bytes(c.format)), double(iq.size()));
    if (input == stream_input::prefilled) {
        std::vector<unsigned char> committed;
        pass(input, &committed);
        spectrum_config on_cpu = c;
        on_cpu.backend = "simd";
        on_cpu.deferred_delivery = false;
        spectrum cpu(on_cpu);
        std::vector<float> want;
        cpu.push_bytes(committed.data(), committed.size(), [&](const float* db, std::size_t count) {
            if (want.empty())
                want.assign(db, db + count);
        });
        check(want, "wrong: first spectrum of the prefilled spans differs from simd's on them");
    }
}

std::vector<stream_row> streaming_format(const options& o, const std::string& format, cl_device_id id)
{
    const sample_format f = parse_sample_format(format);
    const std::size_t sb = sample_bytes(f);
    const std::size_t bytes = o.stream_mib * 1048576 / sb * sb;
    const std::size_t chunk = std::max<std::size_t>(sb, o.chunk_kib * 1024 / sb * sb);
    const std::uint64_t seed = fresh_seed();
    fast_random rnd(seed);
    const std::vector<unsigned char> iq = random_iq(f, bytes, rnd);
    const double samples = double(bytes / sb);
    std::printf("%s: %s of IQ in pushes of %zu KiB, seed %llu\n",
                format.c_str(),
                mib(bytes).c_str(),
                chunk / 1024,
                static_cast<unsigned long long>(seed));
    std::fflush(stdout);

    std::vector<stream_row> rows;
    stream_row copy_row;
    copy_row.engine = copy_row.backend = "copy";
    copy_row.format = format;
    copy_row.bytes = bytes;
    try {
        pinned_copy copy(id, iq);
        copy.run(chunk); // warm-up
        std::vector<timing> runs;
        for (unsigned r = 0; r < o.repeats; ++r)
            runs.push_back(copy.run(chunk));
        set_rates(copy_row, runs, samples, double(bytes));
        copy_row.ratio = 1.0;
    } catch (const std::exception& e) {
        copy_row.status = std::string("error: ") + e.what();
    }
    rows.push_back(copy_row);

    const std::string ocl = o.opencl_device.empty() ? "opencl" : "opencl:" + o.opencl_device;
    for (std::size_t n : o.stream_sizes) {
        std::vector<float> reference_db; // simd's first spectrum of this size
        for (std::size_t batch : o.stream_batches)
            for (const std::string& backend : { std::string("simd"), ocl })
                for (const std::string& delivery : o.stream_delivery)
                    for (const std::string& input : o.stream_inputs) {
                        stream_row r;
                        r.engine = backend;
                        r.format = format;
                        r.input = input + (delivery == "deferred" ? "+deferred" : "");
                        r.n = n;
                        r.bytes = bytes;
                        spectrum_config c;
                        c.fft_size = n;
                        c.format = f;
                        c.average = averaging::linear;
                        c.frames_per_output = o.average;
                        c.batch = batch;
                        c.backend = backend;
                        c.threads = o.threads;
                        c.deferred_delivery = delivery == "deferred";
                        const stream_input how = input == "push"      ? stream_input::push
                                                 : input == "acquire" ? stream_input::acquire
                                                                      : stream_input::prefilled;
                        try {
                            stream_pass(r, c, how, o.repeats, iq, chunk, reference_db);
                            r.ratio = r.msps / copy_row.msps;
                        } catch (const std::exception& e) {
                            r.status = std::string("error: ") + e.what();
                        }
                        rows.push_back(r);
                    }
    }
    return rows;
}

void print_stream_rows(const std::vector<stream_row>& rows)
{
    for (const auto& r : rows) {
        const std::string n = r.n ? std::to_string(r.n) : "-";
        const std::string batch = r.batch ? std::to_string(r.batch) : "-";
        const std::string& name = r.backend.empty() ? r.engine : r.backend;
        if (r.status == "ok")
            std::printf("%-6s %6s %6s  %-18s %-18s %10.1f %8.2f %9.3f %9.3f %9.3f %10s %8zu\n",
                        r.format.c_str(),
                        n.c_str(),
                        batch.c_str(),
                        name.c_str(),
                        r.input.c_str(),
                        r.msps,
                        r.gbps_in,
                        r.ratio,
                        r.cpu_s_per_gs,
                        r.caller_cpu_s_per_gs,
                        std::isfinite(r.power_err) ? json_number(r.power_err).c_str() : "-",
                        r.outputs);
        else
            std::printf("%-6s %6s %6s  %-18s %-18s %s\n",
                        r.format.c_str(),
                        n.c_str(),
                        batch.c_str(),
                        name.c_str(),
                        r.input.c_str(),
                        r.status.c_str());
    }
    std::printf("\n");
    std::fflush(stdout);
}

// ------------------------------------------------------------------ output

std::string device_json(const device_info& d)
{
    std::ostringstream f;
    f << "{\"index\": " << d.index << ", \"platform\": " << json_string(d.platform)
      << ", \"name\": " << json_string(d.name) << ", \"type\": " << json_string(d.type)
      << ", \"version\": " << json_string(d.version) << ", \"driver\": " << json_string(d.driver)
      << ", \"global_memory\": " << d.global_memory << ", \"local_memory\": " << d.local_memory
      << ", \"max_work_group\": " << d.max_work_group << ", \"compute_units\": "
      << d.compute_units << ", \"unified_memory\": " << (d.unified_memory ? "true" : "false")
      << "}";
    return f.str();
}

void write_json(const std::string& path,
                const options& o,
                const device_info& dev,
                const std::vector<device_row>& device_rows,
                const std::vector<stream_row>& stream_rows)
{
    std::ofstream f(path);
    if (!f)
        throw std::runtime_error("cannot write " + path);
    f << "{\n  \"header\": {\"tool\": \"gpufft-bench\", \"date\": " << json_string(utc_now())
      << ", \"cpu\": " << json_string(cpu_model()) << ", \"device\": " << device_json(dev)
      << ", \"repeats\": " << o.repeats << ", \"warmups\": " << warmups
      << ", \"statistic\": \"median\", \"kind\": "
      << json_string(o.r2c ? "r2c" : o.c2r ? "c2r"
                                           : "c2c")
      << ", \"direction\": "
      << json_string(o.c2r ? "inverse" : "forward") << ", \"placement\": \"out-of-place\""
      << ", \"points_per_call\": " << (o.batch ? 0 : o.points)
      << ", \"stream_bytes\": " << o.stream_mib * 1048576 << ", \"chunk_bytes\": "
      << o.chunk_kib * 1024 << ", \"frames_per_output\": " << o.average << "},\n";
    f << "  \"device_resident\": [";
    for (std::size_t i = 0; i < device_rows.size(); ++i) {
        const device_row& r = device_rows[i];
        f << (i ? ",\n    " : "\n    ") << "{\"engine\": " << json_string(r.engine)
          << ", \"kind\": " << json_string(r.kind) << ", \"shape\": " << json_string(r.shape)
          << ", \"n\": " << r.n << ", \"batch\": " << r.batch << ", \"status\": "
          << json_string(r.status) << ", \"ns_per_transform\": " << json_number(r.ns)
          << ", \"bytes_per_transform\": " << json_number(r.io_bytes)
          << ", \"ns_per_transform_min\": " << json_number(r.ns_min)
          << ", \"gbytes_per_s\": " << json_number(r.gbps) << ", \"anchor\": "
          << (r.anchor.empty() ? "null" : json_string(r.anchor))
          << ", \"ratio_vs_anchor\": " << json_number(r.ratio)
          << ", \"max_rel_err\": " << json_number(r.err) << ", \"plan_ms\": "
          << json_number(r.plan_ms) << ", \"input_buffers\": " << r.inputs
          << ", \"calls_per_timed_group\": " << r.group_calls
          << ", \"describe\": " << json_string(r.describe) << "}";
    }
    f << "\n  ],\n  \"streaming\": [";
    for (std::size_t i = 0; i < stream_rows.size(); ++i) {
        const stream_row& r = stream_rows[i];
        f << (i ? ",\n    " : "\n    ") << "{\"engine\": " << json_string(r.engine)
          << ", \"backend\": " << json_string(r.backend) << ", \"input\": "
          << json_string(r.input) << ", \"format\": "
          << json_string(r.format) << ", \"n\": " << r.n << ", \"batch\": " << r.batch
          << ", \"bytes\": " << r.bytes
          << ", \"status\": " << json_string(r.status)
          << ", \"msamples_per_s\": " << json_number(r.msps)
          << ", \"input_gbytes_per_s\": " << json_number(r.gbps_in)
          << ", \"ratio_vs_copy\": " << json_number(r.ratio)
          << ", \"power_rel_err_vs_simd\": " << json_number(r.power_err)
          << ", \"host_cpu_s_per_gsample\": " << json_number(r.cpu_s_per_gs)
          << ", \"caller_cpu_s_per_gsample\": " << json_number(r.caller_cpu_s_per_gs)
          << ", \"outputs\": " << r.outputs << "}";
    }
    f << "\n  ]\n}\n";
    if (!f)
        throw std::runtime_error("error writing " + path);
}

} // namespace

void list_opencl_devices()
{
    std::vector<device_info> devs;
    try {
        devs = opencl::devices();
    } catch (const std::exception& e) {
        std::printf("opencl: %s\n", e.what());
        return;
    }
    if (devs.empty()) {
        std::printf("opencl: no OpenCL device\n");
        return;
    }
    std::printf("\n%3s  %-28s %-34s %-5s %-16s %10s %9s %4s %7s  %s\n",
                "#",
                "platform",
                "device",
                "type",
                "driver",
                "global",
                "local",
                "CUs",
                "unified",
                "OpenCL");
    for (const auto& d : devs)
        std::printf("%3zu  %-28s %-34s %-5s %-16s %10s %6zu KiB %4u %7s  %s\n",
                    d.index,
                    d.platform.c_str(),
                    d.name.c_str(),
                    d.type.c_str(),
                    d.driver.c_str(),
                    mib(d.global_memory).c_str(),
                    d.local_memory / 1024,
                    d.compute_units,
                    d.unified_memory ? "yes" : "no",
                    d.version.c_str());
}

std::size_t run_device_modes(const options& o)
{
    const device_info dev = opencl::select_device(o.opencl_device);
    const cl_device_id id = find_cl_device(dev);
    std::printf("gpufft-bench: OpenCL device %zu: %s: %s (%s, driver %s, %s, %u CUs); host %s\n",
                dev.index,
                dev.platform.c_str(),
                dev.name.c_str(),
                dev.type.c_str(),
                dev.driver.c_str(),
                mib(dev.global_memory).c_str(),
                dev.compute_units,
                cpu_model().c_str());
    std::vector<device_row> device_rows;
    std::vector<stream_row> stream_rows;
    if (o.device_resident) {
        std::printf("device-resident: out of place (forward c2c and r2c, inverse c2r), median of "
                    "%u timed groups after %u warm-ups; GB/s counts the bytes a transform reads "
                    "and writes (8 a complex point, 4 a real one); ratio = anchor ns / engine ns "
                    "(>1: faster than the anchor)\n\n",
                    o.repeats,
                    warmups);
        std::printf("%4s %14s %8s  %-7s %12s %9s %14s %11s %10s  %s\n",
                    "kind",
                    "shape",
                    "batch",
                    "engine",
                    "ns/xform",
                    "GB/s",
                    "vs anchor",
                    "max rel err",
                    "plan ms",
                    "describe");
        bool with_cufft = false;
#ifdef GPUFFT_BENCH_CUFFT
        try { // once, so that a machine without a CUDA GPU gets one line, not one a size
            make_cufft_engine(gpufft::problem{ 64 }, 1);
            with_cufft = true;
        } catch (const std::exception& e) {
            std::printf("cuFFT not timed: %s\n", e.what());
        }
#endif
        std::fflush(stdout);
        std::vector<std::vector<std::size_t>> shapes = o.shapes;
        if (shapes.empty())
            for (std::size_t n : o.sizes)
                shapes.push_back({ n });
        for (const auto& dims : shapes) {
            const auto rows = device_resident_shape(dims, o, dev, id, with_cufft);
            print_device_rows(rows);
            device_rows.insert(device_rows.end(), rows.begin(), rows.end());
            if (!o.json.empty())
                write_json(o.json, o, dev, device_rows, stream_rows);
        }
    }
    if (o.streaming) {
        std::printf("streaming: host IQ -> averaged dB spectra (linear average of %zu frames, "
                    "blackmanharris), median of %u passes after 1 warm-up; ratio = Msamples/s "
                    "over the pinned copy's; CPU s/GS = host CPU seconds (user + system, "
                    "getrusage) per 10^9 samples, all threads of the process, and of the "
                    "pushing thread alone (caller); power err = first spectrum vs simd's; "
                    "input: push = push_bytes (one host copy), acquire = memcpy into the "
                    "acquired span (a driver's read), prefilled = spans left as the warm-up "
                    "filled them (no host copy, as the pinned copy), +deferred = "
                    "deferred_delivery\n\n",
                    o.average,
                    o.repeats);
        std::printf("%-6s %6s %6s  %-18s %-18s %10s %8s %9s %9s %9s %10s %8s\n",
                    "format",
                    "N",
                    "batch",
                    "backend",
                    "input",
                    "Msample/s",
                    "GB/s in",
                    "vs copy",
                    "CPU s/GS",
                    "caller",
                    "power err",
                    "outputs");
        std::fflush(stdout);
        for (const auto& format : o.formats) {
            const auto rows = streaming_format(o, format, id);
            print_stream_rows(rows);
            stream_rows.insert(stream_rows.end(), rows.begin(), rows.end());
            if (!o.json.empty())
                write_json(o.json, o, dev, device_rows, stream_rows);
        }
    }
    // gpufft's own rows that failed: the exit status tells scripts.
    std::size_t failed = 0;
    for (const auto& r : device_rows)
        failed += r.engine == "gpufft" && r.status != "ok";
    for (const auto& r : stream_rows)
        failed += r.engine != "simd" && r.engine != "copy" && r.status != "ok";
    if (failed)
        std::printf("gpufft-bench: %zu gpufft row(s) failed\n", failed);
    return failed;
}

} // namespace gpufft::bench
