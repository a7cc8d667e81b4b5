// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite for the OpenCL backend, on whatever OpenCL
 * device is here (PoCL in CI, an NVIDIA GPU through its OpenCL platform):
 *
 *   qa_opencl                 every suite
 *   qa_opencl SUITE...        opencl_sizes, opencl_shapes, opencl_layout, opencl_device,
 *                             opencl_cache, opencl_search, opencl_candidates
 *
 * The device is GPUFFT_OPENCL_DEVICE's, else the best one. Exit status 77
 * (skipped) when no OpenCL device is usable here, saying why. Every transform
 * is checked as in qa_gpufft (qa_common.h: FFTW double reference, bound
 * twice FFTW float's error, poisoned outputs, untouched gaps). */
#include "qa_common.h"
#include "qa_shaped_reference.h"

// The planner's internals (lib/backends/opencl), linked from its static library.
#include "device_transform.h"
#include "fft_plan.h"
#include "opencl_plan_table.h"
#include "shape_search.h"
#include <gpufft/opencl.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <ctime>
#include <string>
#include <tuple>
#include <utility>
#include <vector>
#include <sys/stat.h>

namespace qa {

namespace {

using gpufft::direction;
namespace ocl = gpufft::opencl;

const std::string target = "opencl";

void check_all_ways(failures& f, std::size_t n)
{
    check_transform(f, target, n, direction::forward);
    check_transform(f, target, n, direction::inverse);
    check_round_trip(f, target, n);
}

void cl_check(cl_int err, const char* what)
{
    if (err != CL_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed: " + std::to_string(err));
}

/*!
 * A transform on cl_mem buffers of `context`, enqueued by run(in, out) and
 * finished: random input (sentinels in the gaps), poisoned output; the gaps
 * stay untouched, every element is written and within the criterion of
 * qa_common.h.
 */
template <class Run>
void check_on_buffers(failures& f,
                      const std::string& name,
                      const gpufft::problem& p,
                      bool in_place,
                      cl_context context,
                      cl_command_queue queue,
                      Run run)
{
    const std::size_t n = p.n;
    const direction dir = p.dir;
    const std::size_t batch = p.batch;
    try {
        const std::size_t span = p.span(), stride = p.stride(), bytes = span * sizeof(cf);
        std::vector<cf> x(span), y(span), yf(n);
        std::vector<cd> exact(n);
        fill_random(x.data(), span, name);
        auto is_gap = [&](std::size_t i) { return i % stride >= n; };
        for (std::size_t i = 0; i < span; ++i)
            if (is_gap(i))
                x[i] = sentinel(i);
        poison(y.data(), span);
        for (std::size_t i = 0; i < span; ++i)
            if (is_gap(i))
                y[i] = sentinel(i + 1);

        cl_int err = CL_SUCCESS;
        cl_mem in = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
        cl_check(err, "clCreateBuffer");
        cl_mem out = in_place ? in : clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
        cl_check(err, "clCreateBuffer");
        cl_check(clEnqueueWriteBuffer(queue, in, CL_TRUE, 0, bytes, x.data(), 0, nullptr, nullptr),
                 "clEnqueueWriteBuffer");
        if (!in_place)
            cl_check(clEnqueueWriteBuffer(queue, out, CL_TRUE, 0, bytes, y.data(), 0, nullptr, nullptr),
                     "clEnqueueWriteBuffer");
        run(in, out);
        cl_check(clFinish(queue), "clFinish");
        cl_check(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, bytes, y.data(), 0, nullptr, nullptr),
                 "clEnqueueReadBuffer");
        clReleaseMemObject(in);
        if (!in_place)
            clReleaseMemObject(out);

        for (std::size_t i = 0; i < span; ++i) {
            const cf want = sentinel(in_place ? i : i + 1);
            if (is_gap(i) && std::memcmp(&y[i], &want, sizeof(cf)) != 0) {
                f.add(name + ": wrote into the gap between transforms at element " + std::to_string(i));
                return;
            }
        }
        reference& ref = ref_for(n, dir);
        l2_error ours, fftwf;
        for (std::size_t b = 0; b < batch; ++b) {
            const cf* out_b = y.data() + b * stride;
            if (first_nonfinite(out_b, n) < n) {
                f.add(name + ": transform " + std::to_string(b) + " left elements unwritten");
                return;
            }
            ref.exact(x.data() + b * stride, exact.data());
            ref.fftwf(x.data() + b * stride, yf.data());
            fftwf.add(yf.data(), exact.data(), n);
            ours.add(out_b, exact.data(), n);
        }
        check_total(f, name, ours, fftwf);
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

//! Reads `bytes` of a buffer back (blocking).
std::vector<float> read_back(const ocl::device_plan& plan, cl_mem m, std::size_t bytes)
{
    std::vector<float> v(bytes / sizeof(float));
    cl_check(clEnqueueReadBuffer(plan.queue(), m, CL_TRUE, 0, bytes, v.data(), 0, nullptr, nullptr),
             "clEnqueueReadBuffer");
    return v;
}

/*!
 * A device_plan of any kind and rank on cl_mem buffers, against FFTW double
 * of the same shape (qa_shaped_reference.h): input `s` a transform (c2r: the
 * spectrum of real data s), sentinels in the gaps, poisoned output; one
 * enqueue; every element written and within qa_common.h's criterion, the
 * gaps untouched, and out of place the input as it was.
 */
void check_device_shaped(failures& f, gpufft::problem p, bool in_place = false,
                         signal s = signal::noise)
{
    using gpufft::transform_kind;
    std::string dims;
    for (std::size_t d : p.dims)
        dims += (dims.empty() ? "" : "x") + std::to_string(d);
    const std::string name = std::string("device_plan ") + gpufft::kind_name(p.kind) + " " + dims +
                             " " + dir_name(p.dir) + " batch=" + std::to_string(p.batch) +
                             (p.distance ? " distance=" + std::to_string(p.distance) : "") +
                             (p.real_distance ? " real_distance=" + std::to_string(p.real_distance) : "") +
                             " " + signal_name(s) + (in_place ? " in-place" : "");
    try {
        ocl::device_plan plan(p);
        shaped_reference ref(p);
        const bool real_in = p.kind == transform_kind::r2c, real_out = p.kind == transform_kind::c2r;
        const std::size_t points = p.points(), extent = p.complex_extent();
        // Buffers as floats: a complex element is two.
        const std::size_t in_floats = real_in ? p.real_span() : 2 * p.span();
        const std::size_t out_floats = real_out ? p.real_span() : 2 * p.span();
        const std::size_t in_dist = real_in ? p.real_stride() : 2 * p.stride();
        const std::size_t out_dist = real_out ? p.real_stride() : 2 * p.stride();
        const std::size_t out_owned = real_out ? points : 2 * extent;
        auto gap = [](std::size_t i, std::size_t dist, std::size_t owned) { return i % dist >= owned; };
        const float fill = -777.25f;

        std::vector<float> in(in_floats, fill);
        std::vector<std::vector<cf>> packed(p.batch, std::vector<cf>(ref.in_size()));
        for (std::size_t b = 0; b < p.batch; ++b) {
            std::vector<cf> x(points);
            fill_signal(x.data(), points, s, name + " " + std::to_string(b));
            if (real_out) {
                std::vector<float> reals(points);
                for (std::size_t i = 0; i < points; ++i)
                    reals[i] = x[i].real();
                ref.hermitian(reals, packed[b].data());
            } else {
                std::copy(x.begin(), x.begin() + ref.in_size(), packed[b].begin());
            }
            for (std::size_t i = 0; i < ref.in_size(); ++i) {
                if (real_in) {
                    in[b * in_dist + i] = packed[b][i].real();
                } else {
                    in[b * in_dist + 2 * i] = packed[b][i].real();
                    in[b * in_dist + 2 * i + 1] = packed[b][i].imag();
                }
            }
        }
        std::vector<float> out(out_floats, fill);
        for (std::size_t i = 0; i < out_floats; ++i)
            if (!gap(i, out_dist, out_owned))
                out[i] = std::numeric_limits<float>::quiet_NaN();

        const std::size_t in_bytes = 4 * (in_place ? std::max(in_floats, out_floats) : in_floats);
        cl_int err = CL_SUCCESS;
        cl_mem in_mem = clCreateBuffer(plan.context(), CL_MEM_READ_WRITE, in_bytes, nullptr, &err);
        cl_check(err, "clCreateBuffer");
        cl_mem out_mem = in_mem;
        if (!in_place) {
            out_mem = clCreateBuffer(plan.context(), CL_MEM_READ_WRITE, 4 * out_floats, nullptr, &err);
            cl_check(err, "clCreateBuffer");
            cl_check(clEnqueueWriteBuffer(plan.queue(), out_mem, CL_TRUE, 0, 4 * out_floats, out.data(),
                                          0, nullptr, nullptr),
                     "clEnqueueWriteBuffer");
        }
        cl_check(clEnqueueWriteBuffer(plan.queue(), in_mem, CL_TRUE, 0, 4 * in_floats, in.data(), 0,
                                      nullptr, nullptr),
                 "clEnqueueWriteBuffer");
        plan.enqueue(in_mem, out_mem);
        plan.finish();
        const std::vector<float> y = read_back(plan, out_mem, 4 * out_floats);
        const std::vector<float> x_after = in_place ? in : read_back(plan, in_mem, 4 * in_floats);
        clReleaseMemObject(in_mem);
        if (!in_place)
            clReleaseMemObject(out_mem);

        f.checked();
        if (std::memcmp(x_after.data(), in.data(), 4 * in_floats) != 0) {
            f.add(name + ": changed its input");
            return;
        }
        if (!in_place)
            for (std::size_t i = 0; i < out_floats; ++i)
                if (gap(i, out_dist, out_owned) && y[i] != fill) {
                    f.add(name + ": wrote into the gap between transforms at float " + std::to_string(i));
                    return;
                }
        l2_error ours, fftwf;
        std::vector<cd> exact(ref.out_size());
        std::vector<cf> yf(ref.out_size()), got(ref.out_size());
        for (std::size_t b = 0; b < p.batch; ++b) {
            for (std::size_t i = 0; i < got.size(); ++i)
                got[i] = real_out ? cf(y[b * out_dist + i], 0)
                                  : cf(y[b * out_dist + 2 * i], y[b * out_dist + 2 * i + 1]);
            if (first_nonfinite(got.data(), got.size()) < got.size()) {
                f.add(name + ": transform " + std::to_string(b) + " left elements unwritten");
                return;
            }
            ref.run(packed[b].data(), exact.data(), yf.data());
            fftwf.add(yf.data(), exact.data(), got.size());
            ours.add(got.data(), exact.data(), got.size());
        }
        check_total(f, name, ours, fftwf);
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

//! A device_plan on cl_mem buffers (check_on_buffers).
void check_device_plan(failures& f,
                       std::size_t n,
                       direction dir,
                       std::size_t batch,
                       std::size_t distance,
                       bool in_place)
{
    const std::string name = case_name("device_plan", n, dir, batch, distance, in_place);
    try {
        const gpufft::problem p{ n, dir, batch, distance };
        ocl::device_plan plan(p);
        check_on_buffers(f, name, p, in_place, plan.context(), plan.queue(),
                         [&](cl_mem in, cl_mem out) { plan.enqueue(in, out); });
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

gpufft::problem shaped(gpufft::transform_kind kind, std::vector<std::size_t> dims, std::size_t batch,
                       direction dir = direction::forward, std::size_t distance = 0,
                       std::size_t real_distance = 0)
{
    gpufft::problem p;
    p.kind = kind;
    p.dir = kind == gpufft::transform_kind::c2r   ? direction::inverse
            : kind == gpufft::transform_kind::r2c ? direction::forward
                                                  : dir;
    p.dims = std::move(dims);
    p.batch = batch;
    p.distance = distance;
    p.real_distance = real_distance;
    return p;
}

/*!
 * A planned chain (a shape the planner made for any device) built in `ctx`
 * (this device's), `batch` transforms `distance` apart (check_on_buffers).
 */
void check_chain(failures& f,
                 ocl::detail::device_context& ctx,
                 const std::string& label,
                 const ocl::detail::chain_shape& shape,
                 std::size_t batch,
                 std::size_t distance,
                 bool in_place)
{
    namespace detail = ocl::detail;
    const std::string name = label + ": " + case_name("chain", shape.n, shape.dir, batch, distance, in_place);
    try {
        const gpufft::problem p{ shape.n, shape.dir, batch, distance };
        detail::fft_chain chain(ctx, shape, batch, p.stride(), p.stride());
        const detail::queue_handle q = detail::make_queue(ctx);
        check_on_buffers(f, name, p, in_place, ctx.context.get(), q.get(),
                         [&](cl_mem in, cl_mem out) { chain.enqueue(q.get(), in, out, batch); });
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

// qa_opencl_sizes' sizes beyond every n to 64, the powers of two and the
// signal sizes: radio rates, primes (a direct DFT: 17; Rader in one kernel:
// 97, 1009, in three passes: 65537; Bluestein in one kernel on PoCL: 4099,
// in three passes: 65539) and one pass in exchange rounds (10000).
const std::size_t radio_rate_sizes[] = { 1000, 2400, 3000, 4410, 6000, 48000 };
const std::size_t prime_sizes[] = { 17, 97, 1009, 4099, 65537, 65539 };
constexpr std::size_t rounds_size = 10000;
constexpr unsigned largest_power = 20;

//! Every size qa_opencl_sizes checks, ascending.
std::vector<std::size_t> size_suite_sizes()
{
    std::set<std::size_t> all(signal_sizes.begin(), signal_sizes.end());
    for (std::size_t n = 1; n <= 64; ++n)
        all.insert(n);
    for (unsigned k = 1; k <= largest_power; ++k)
        all.insert(std::size_t(1) << k);
    all.insert(std::begin(radio_rate_sizes), std::end(radio_rate_sizes));
    all.insert(std::begin(prime_sizes), std::end(prime_sizes));
    all.insert(rounds_size);
    return { all.begin(), all.end() };
}

//! The OpenCL id of the device the suite runs on.
cl_device_id device_id()
{
    ocl::device_plan p(gpufft::problem{ 1, direction::forward, 1, 0 });
    cl_device_id id = nullptr;
    clGetCommandQueueInfo(p.queue(), CL_QUEUE_DEVICE, sizeof id, &id, nullptr);
    return id;
}

//! Whether fn throws gpufft::error with a message containing every `want`.
template <class F>
void expect_error(failures& f, const std::string& what, const std::vector<std::string>& want, F fn)
{
    f.checked();
    try {
        fn();
        f.add(what + ": did not throw");
    } catch (const gpufft::error& e) {
        const std::string msg = e.what();
        for (const auto& w : want)
            if (msg.find(w) == std::string::npos)
                f.add(what + ": message \"" + msg + "\" does not name \"" + w + "\"");
    } catch (const std::exception& e) {
        f.add(what + ": threw something other than gpufft::error: " + e.what());
    }
}

} // namespace

class qa_opencl_sizes : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_sizes);
    CPPUNIT_TEST(every_n_to_64);
    CPPUNIT_TEST(powers_of_two);
    CPPUNIT_TEST(radio_sizes);
    CPPUNIT_TEST(primes);
    CPPUNIT_TEST(signals);
    CPPUNIT_TEST(register_rounds);
    CPPUNIT_TEST_SUITE_END();

    void every_n_to_64()
    {
        run_checks("opencl every N 1..64", [](failures& f) {
            for (std::size_t n = 1; n <= 64; ++n)
                check_all_ways(f, n);
        });
    }

    void powers_of_two()
    {
        run_checks("opencl 2^1..2^20", [](failures& f) {
            for (unsigned k = 1; k <= largest_power; ++k)
                check_all_ways(f, std::size_t(1) << k);
        });
    }

    void radio_sizes()
    {
        run_checks("opencl radio sizes", [](failures& f) {
            for (std::size_t n : radio_rate_sizes)
                check_all_ways(f, n);
        });
    }

    void primes()
    {
        run_checks("opencl primes", [](failures& f) {
            for (std::size_t n : prime_sizes)
                check_all_ways(f, n);
        });
    }

    // An impulse, a constant, a tone and strong DC (qa_common.h, signal).
    void signals()
    {
        run_checks("opencl signals", [](failures& f) {
            for (std::size_t n : signal_sizes)
                check_signals(f, target, n);
        });
    }

    // 10000 points, which local memory cannot hold on NVIDIA's 48 KiB (nor
    // PoCL's 8192-point one-kernel cap): one pass in one exchange round of
    // composite radices there (planner.cc, shape_rounds_pass), two passes
    // on a Mali; random input and the structured signals. opencl_shapes
    // builds the planner table's other rounds plans (several rounds: 12288).
    void register_rounds()
    {
        run_checks("opencl register rounds", [](failures& f) {
            check_all_ways(f, rounds_size);
            check_signals(f, target, rounds_size);
        });
    }
};

/*!
 * The planner's plans for every device preset (opencl_plan_table.h: an H100
 * and H200 through NVIDIA's OpenCL, a Mali, an Intel iGPU, PoCL; the rules'
 * knobs, Rader everywhere it has stages, the register mode forced) at the
 * sizes of its rules, and every search candidate at sizes that reach every
 * kind: each plan that brings a kind of chain, of pass or a radix that no
 * plan before it brought (shape_traits) built on this device and checked
 * against FFTW double, forward out of place, inverse in place, two
 * transforms with gaps between them (one above 65536
 * points). qa_opencl_planner checks the rules themselves and every plan of
 * the table without a device. The signals (an impulse, a constant, a tone,
 * strong DC) go through each way Rader hands on x0 and X[0] (fft_pass.cl's
 * RADER): one pass, two FFTs, three passes.
 */
class qa_opencl_shapes : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_shapes);
    CPPUNIT_TEST(every_kind_of_plan);
    CPPUNIT_TEST(rader_signals);
    CPPUNIT_TEST_SUITE_END();

    void every_kind_of_plan()
    {
        run_checks("opencl every kind of plan", [](failures& f) {
            const auto& here = ocl::detail::select("").limits;
            std::set<std::string> seen;
            std::size_t plans = 0, built = 0;
            for (const planned& p : plan_table()) {
                ++plans;
                // A device smaller than a preset cannot run all its plans
                // (PoCL's limits hold every preset's).
                if (!ocl::detail::shape_fault(here, p.shape).empty())
                    continue;
                const auto traits = shape_traits(p.shape);
                if (std::all_of(traits.begin(), traits.end(), [&](const std::string& t) { return seen.count(t); }))
                    continue;
                seen.insert(traits.begin(), traits.end());
                ++built;
                const bool inverse = p.shape.dir == direction::inverse;
                const std::size_t n = p.shape.n, batch = n > 65536 ? 1 : 2;
                check_chain(f, ocl::detail::context_for(ocl::detail::select("")),
                            p.target + " candidate " + std::to_string(p.candidate), p.shape, batch, n + 3,
                            inverse);
            }
            std::printf("  %zu plans, %zu built\n", plans, built);
        });
    }

    void rader_signals()
    {
        run_checks("opencl rader signals", [](failures& f) {
            setenv("GPUFFT_OPENCL_PLANNER", "rader=2", 1);
            for (std::size_t n : { 97, 8191, 16381, 65537 }) {
                std::printf("  %zu: %s\n", n, gpufft::plan(n, direction::forward, 1, 0, target).describe().c_str());
                check_signals(f, target, n);
            }
            unsetenv("GPUFFT_OPENCL_PLANNER");
        });
    }
};

/*!
 * What the plan-time search (shape_search.h) can weigh at every size the
 * size suite checks (size_suite_sizes: every n to 64, the powers of two to
 * 2^20, the radio sizes, Rader's and Bluestein's primes, the signal sizes,
 * 10000): every candidate of shape_candidates for this device's planning
 * limits and for an H100's, an H200's and a Mali's (device_limits.h's
 * presets), forward and inverse, each distinct one (shape_key) built on
 * this device and checked against FFTW double as opencl_shapes checks its
 * plans. A preset's candidates are built as its driver would build them:
 * in a context whose kernels are read as allowing the preset's
 * kernel_work_group (NVIDIA's 256), so that fft_chain refits their
 * work-groups as it would there (a shape another device's list holds too
 * is built again only where it is refitted). Untimed: what the search picks, its
 * threads and its wisdom are qa_opencl_search's. A candidate that cannot
 * run on the device it was made for (shape_fault) fails; one beyond this
 * device's limits only is counted, not built. About a thousand chains: its
 * CTest entry has PoCL build them unoptimised and unspecialised
 * (lib/tests/CMakeLists.txt), a fifth of the CPU time.
 */
class qa_opencl_candidates : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_candidates);
    CPPUNIT_TEST(every_candidate_at_every_size);
    CPPUNIT_TEST_SUITE_END();

    void every_candidate_at_every_size()
    {
        run_checks("opencl every search candidate", [](failures& f) {
            namespace detail = ocl::detail;
            detail::device_context& ctx = detail::context_for(detail::select(""));
            const detail::device_limits here = detail::planning_limits(ctx.device);
            std::vector<detail::device_limits> targets = { here };
            for (const char* preset : { "nvidia-h100", "nvidia-h200", "mali-g" })
                targets.push_back(detail::limit_preset(preset));
            const std::vector<std::size_t> sizes = size_suite_sizes();
            std::set<std::string> seen;
            std::size_t candidates = 0, beyond = 0, refitted = 0;
            for (const detail::device_limits& d : targets) {
                // This device as d's driver reads compiled kernels.
                detail::device_entry as_d = ctx.device;
                as_d.limits.kernel_work_group = std::min(here.kernel_work_group, d.kernel_work_group);
                std::unique_ptr<detail::device_context> own;
                if (as_d.limits.kernel_work_group != here.kernel_work_group)
                    own = std::make_unique<detail::device_context>(as_d);
                detail::device_context& built_in = own ? *own : ctx;
                struct fresh {
                    detail::chain_shape shape;
                    std::string label;
                };
                std::vector<fresh> todo;
                for (std::size_t n : sizes)
                    for (direction dir : { direction::forward, direction::inverse }) {
                        const std::string what = d.name + " " + std::to_string(n) + " " + dir_name(dir);
                        std::vector<detail::chain_shape> list;
                        f.checked();
                        try {
                            list = detail::shape_candidates(d, n, dir);
                        } catch (const std::exception& e) {
                            f.add(what + ": shape_candidates threw: " + e.what());
                            continue;
                        }
                        if (list.empty()) {
                            f.add(what + ": no candidate");
                            continue;
                        }
                        for (std::size_t k = 0; k < list.size(); ++k) {
                            ++candidates;
                            // A shape with a group beyond what d's driver
                            // reads its kernels as allowing is built again
                            // as there (refitted); below, as anywhere.
                            const bool refit = std::any_of(
                                list[k].passes.begin(), list[k].passes.end(), [&](const detail::pass_spec& p) {
                                    return p.g * p.tt > built_in.device.limits.kernel_work_group;
                                });
                            const std::string key =
                                shape_key(list[k]) +
                                (refit ? " within " + std::to_string(built_in.device.limits.kernel_work_group) : "");
                            if (!seen.insert(key).second)
                                continue;
                            refitted += refit;
                            const std::string fault = detail::shape_fault(d, list[k]);
                            if (!fault.empty())
                                f.add(what + ": candidate " + std::to_string(k) +
                                      " cannot run where it was made for: " + fault + ": " +
                                      list[k].describe());
                            else if (detail::shape_fault(here, list[k]).empty())
                                todo.push_back({ list[k], d.name + " candidate " + std::to_string(k) });
                            else
                                ++beyond;
                        }
                    }
                // A few at a time, their kernels built on every core first
                // as the search builds them (check_chain then takes the
                // programs from the context's and says what failed); a few,
                // not all, so that the scratch of only a few is held at once.
                const std::size_t batch = 2, at_once = 16, points_at_once = std::size_t(1) << 22;
                for (std::size_t first = 0, end; first < todo.size(); first = end) {
                    std::size_t points = 0;
                    for (end = first; end < todo.size() && end - first < at_once && points < points_at_once;
                         ++end)
                        points += todo[end].shape.n;
                    std::vector<detail::chain_shape> shapes;
                    for (std::size_t i = first; i < end; ++i)
                        shapes.push_back(todo[i].shape);
                    try {
                        detail::build_chains(built_in, shapes, batch, shapes.back().n + 3);
                    } catch (const std::exception&) {
                    }
                    for (std::size_t i = first; i < end; ++i) {
                        const detail::chain_shape& c = todo[i].shape;
                        check_chain(f, built_in, todo[i].label, c, batch, c.n + 3,
                                    c.dir == direction::inverse);
                    }
                }
            }
            std::printf("  %zu sizes, %zu candidates, %zu distinct (%zu refitted as a driver reads them), %zu of them "
                        "beyond this device\n",
                        sizes.size(), candidates, seen.size(), refitted, beyond);
        });
    }
};

class qa_opencl_layout : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_layout);
    CPPUNIT_TEST(batches_with_gaps);
    CPPUNIT_TEST(in_place);
    CPPUNIT_TEST(many_chunks);
    CPPUNIT_TEST_SUITE_END();

    void batches_with_gaps()
    {
        run_checks("opencl batch 3, 17 with gaps", [](failures& f) {
            for (std::size_t n : { 1, 3, 8, 17, 64, 100, 1000, 4096, 65536 })
                for (std::size_t batch : { 3, 17 })
                    for (std::size_t distance : { std::size_t(0), n + 1, 2 * n + 3 }) {
                        check_transform(f, target, n, direction::forward, batch, distance);
                        if (distance != 2 * n + 3)
                            check_transform(f, target, n, direction::inverse, batch, distance);
                    }
        });
    }

    void in_place()
    {
        run_checks("opencl in place", [](failures& f) {
            for (std::size_t n : { 1, 7, 16, 64, 1000, 4096, 65536, 97, 65537 })
                for (direction d : { direction::forward, direction::inverse }) {
                    check_transform(f, target, n, d, 1, 0, true);
                    check_transform(f, target, n, d, 3, n + 5, true);
                }
        });
    }

    // More transforms than one chunk holds (4 M points): several chunks and
    // a short last one, out of place and in place.
    void many_chunks()
    {
        run_checks("opencl batches over several chunks", [](failures& f) {
            check_transform(f, target, 1024, direction::forward, 9000);
            check_transform(f, target, 1000, direction::inverse, 4500, 1003, true);
        });
    }
};

class qa_opencl_device : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_device);
    CPPUNIT_TEST(device_plans);
    CPPUNIT_TEST(device_plan_kinds);
    CPPUNIT_TEST(device_plan_callbacks);
    CPPUNIT_TEST(twin); // after device_plan_kinds, whose kernels it takes
    CPPUNIT_TEST(selection);
    CPPUNIT_TEST(faults);
    CPPUNIT_TEST(auto_choice);
    CPPUNIT_TEST(pipeline_runtime);
    CPPUNIT_TEST_SUITE_END();

    // One-kernel, two-pass and Bluestein on device buffers.
    void device_plans()
    {
        run_checks("opencl device_plan", [](failures& f) {
            for (std::size_t n : { 1, 64, 1000, 4096, 65536, 17, 65537 })
                for (direction d : { direction::forward, direction::inverse }) {
                    check_device_plan(f, n, d, 5, 0, false);
                    check_device_plan(f, n, d, 3, n + 7, true);
                }
        });
    }

    // Every kind and rank: half-size rows (even N, packed or through the
    // load/store callback where the rows have gaps), paired rows (odd N),
    // Rader and Bluestein rows, 2-D and 3-D column passes or transposes.
    /*!
     * device_transform::twin(), the second slot of a plan on host buffers
     * (discrete GPUs only, so not otherwise run here): the first's chains
     * without a second search or timing (the same description, timings
     * included) and the same output, bit for bit.
     */
    void twin()
    {
        using gpufft::transform_kind;
        namespace detail = ocl::detail;
        run_checks("opencl device_transform twin", [](failures& f) {
            detail::device_context& ctx = detail::context_for(detail::select(""));
            const detail::queue_handle q = detail::make_queue(ctx);
            const std::pair<gpufft::problem, bool> cases[] = {
                // Problems device_plan_kinds builds too: no kernels of their own.
                { gpufft::problem{ 64, direction::forward, 3, 0 }, true },
                { shaped(transform_kind::c2c, { 24, 40 }, 3), false },
                { shaped(transform_kind::c2c, { 16, 12, 10 }, 2), false },
                { shaped(transform_kind::r2c, { 24, 30 }, 2), false },
            };
            for (const auto& [p, tune] : cases) {
                const std::string name = p.describe() + (tune ? " tuned" : "");
                try {
                    detail::device_transform first(ctx, p, q.get(), {}, tune);
                    const std::unique_ptr<detail::device_transform> second = first.twin();
                    f.checked();
                    if (second->describe() != first.describe())
                        f.add(name + ": the twin is \"" + second->describe() + "\", not \"" + first.describe() + "\"");
                    const std::size_t in_bytes = p.kind == transform_kind::r2c ? 4 * p.real_span() : 8 * p.span();
                    std::vector<float> x(in_bytes / 4);
                    fill_random(reinterpret_cast<cf*>(x.data()), x.size() / 2, name);
                    const detail::mem_handle in = detail::make_buffer(ctx, in_bytes, x.data());
                    std::vector<std::vector<float>> got;
                    for (detail::device_transform* t : { &first, second.get() }) {
                        const detail::mem_handle out = detail::make_buffer(ctx, 8 * p.span());
                        t->enqueue(q.get(), in.get(), out.get(), p.batch);
                        got.emplace_back(2 * p.span());
                        cl_check(clEnqueueReadBuffer(q.get(), out.get(), CL_TRUE, 0, 8 * p.span(), got.back().data(),
                                                     0, nullptr, nullptr),
                                 "clEnqueueReadBuffer");
                    }
                    f.checked();
                    if (std::memcmp(got[0].data(), got[1].data(), 8 * p.span()) != 0)
                        f.add(name + ": the twin's output differs from the first's");
                } catch (const std::exception& e) {
                    f.add(name + ": threw: " + e.what());
                }
            }
        });
    }

    void device_plan_kinds()
    {
        using gpufft::transform_kind;
        const auto c2c = transform_kind::c2c, r2c = transform_kind::r2c, c2r = transform_kind::c2r;
        run_checks("opencl device_plan kinds and ranks", [&](failures& f) {
            for (signal s : { signal::noise, signal::impulse, signal::dc, signal::tone })
                check_device_shaped(f, shaped(c2c, { 24, 40 }, 3), false, s);
            check_device_shaped(f, shaped(c2c, { 32, 32 }, 2, direction::inverse), true);
            check_device_shaped(f, shaped(c2c, { 16, 12, 10 }, 2));
            check_device_shaped(f, shaped(c2c, { 8, 8, 8 }, 1, direction::inverse), true);
            // 1-D given by dims alone (n = 0), as gpufft-bench --shapes 64 plans it.
            check_device_shaped(f, shaped(c2c, { 64 }, 3));
            check_device_shaped(f, shaped(c2c, { 1000 }, 2, direction::inverse));
            for (signal s : { signal::noise, signal::impulse, signal::dc, signal::tone })
                check_device_shaped(f, shaped(r2c, { 1000 }, 3), false, s);
            check_device_shaped(f, shaped(r2c, { 999 }, 5));
            check_device_shaped(f, shaped(r2c, { 202 }, 2));
            check_device_shaped(f, shaped(r2c, { 256 }, 3, direction::forward, 130, 261));
            check_device_shaped(f, shaped(r2c, { 64 }, 4), true);
            check_device_shaped(f, shaped(r2c, { 24, 30 }, 2));
            check_device_shaped(f, shaped(r2c, { 8, 10, 9 }, 2));
            for (signal s : { signal::noise, signal::impulse, signal::dc, signal::tone })
                check_device_shaped(f, shaped(c2r, { 1000 }, 3), false, s);
            check_device_shaped(f, shaped(c2r, { 17 }, 3, direction::inverse, 11, 20));
            check_device_shaped(f, shaped(c2r, { 101 }, 2));
            check_device_shaped(f, shaped(c2r, { 64 }, 4), true);
            check_device_shaped(f, shaped(c2r, { 24, 30 }, 2));
            check_device_shaped(f, shaped(c2r, { 6, 8, 10 }, 2, direction::inverse), false, signal::tone);
            check_device_shaped(f, shaped(c2r, { 8, 10, 9 }, 2));
            // What device buffers do not take, named.
            expect_error(f, "strides", { "strides" }, [&] {
                gpufft::problem p = shaped(c2c, { 8, 8 }, 1);
                p.strides = { 16, 1 };
                ocl::device_plan plan(p);
            });
            expect_error(f, "multi-dimensional gaps", { "back to back" }, [&] {
                ocl::device_plan plan(shaped(c2c, { 8, 8 }, 2, direction::forward, 70));
            });
            expect_error(f, "callbacks on r2c", { "callbacks", "1-D c2c" }, [&] {
                ocl::callbacks cb;
                cb.source = "float2 gpufft_load(__global const float2* in, uint i) { return in[i]; }";
                cb.load = true;
                ocl::device_plan plan(shaped(r2c, { 64 }, 1), cb);
            });
        });
    }

    // The public load/store callbacks: int16 samples read and scaled by the
    // load (its build option), a window, the store writing conjugates, at
    // a one-kernel, a two-pass and a Bluestein size; against FFTW double
    // of what the callbacks compute.
    void device_plan_callbacks()
    {
        run_checks("opencl device_plan callbacks", [](failures& f) {
            for (std::size_t n : { 256, 1000, 65536, 257 }) {
                const std::string name = "device_plan callbacks n=" + std::to_string(n);
                try {
                    const std::size_t batch = 3;
                    ocl::callbacks cb;
                    cb.source =
                        "float2 gpufft_load(__global const float2* in, uint i)\n"
                        "{\n"
                        "    __global const short* s = (__global const short*)in;\n"
                        "    return (float2)(s[2 * i], s[2 * i + 1]) * SCALE;\n"
                        "}\n"
                        "void gpufft_store(__global float2* out, uint k, float2 v) { out[k] = (float2)(v.x, -v.y); }\n";
                    cb.options = " -DSCALE=0.25f";
                    cb.load = cb.store = true;
                    for (std::size_t j = 0; j < n; ++j)
                        cb.input_weights.push_back(float(0.5 - 0.5 * std::cos(2 * M_PI * double(j) / double(n))));
                    ocl::device_plan plan(gpufft::problem{ n, direction::forward, batch, 0 }, cb);
                    auto rng = rng_for(name);
                    std::uniform_int_distribution<int> sample(-32768, 32767);
                    std::vector<std::int16_t> samples(2 * n * batch);
                    for (auto& v : samples)
                        v = std::int16_t(sample(rng));
                    cl_int err = CL_SUCCESS;
                    cl_mem in = clCreateBuffer(plan.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                               samples.size() * 2, samples.data(), &err);
                    cl_check(err, "clCreateBuffer");
                    std::vector<cf> y(n * batch);
                    poison(y.data(), y.size());
                    cl_mem out = clCreateBuffer(plan.context(), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                                y.size() * sizeof(cf), y.data(), &err);
                    cl_check(err, "clCreateBuffer");
                    plan.enqueue(in, out);
                    plan.finish();
                    cl_check(clEnqueueReadBuffer(plan.queue(), out, CL_TRUE, 0, y.size() * sizeof(cf),
                                                 y.data(), 0, nullptr, nullptr),
                             "clEnqueueReadBuffer");
                    clReleaseMemObject(in);
                    clReleaseMemObject(out);
                    reference& ref = ref_for(n, direction::forward);
                    l2_error ours, fftwf;
                    std::vector<cf> x(n), yf(n), got(n);
                    std::vector<cd> exact(n);
                    for (std::size_t b = 0; b < batch; ++b) {
                        for (std::size_t j = 0; j < n; ++j)
                            x[j] = cf(samples[2 * (b * n + j)], samples[2 * (b * n + j) + 1]) * 0.25f *
                                   cb.input_weights[j];
                        for (std::size_t k = 0; k < n; ++k)
                            got[k] = std::conj(y[b * n + k]);
                        f.checked();
                        if (first_nonfinite(got.data(), n) < n) {
                            f.add(name + ": left elements unwritten");
                            break;
                        }
                        ref.exact(x.data(), exact.data());
                        ref.fftwf(x.data(), yf.data());
                        fftwf.add(yf.data(), exact.data(), n);
                        ours.add(got.data(), exact.data(), n);
                    }
                    check_total(f, name, ours, fftwf);
                } catch (const std::exception& e) {
                    f.add(name + ": threw: " + e.what());
                }
            }
        });
    }

    void selection()
    {
        run_checks("opencl device selection", [](failures& f) {
            const auto all = ocl::devices();
            f.checked();
            if (all.empty()) {
                f.add("devices() is empty while the backend is usable");
                return;
            }
            for (const auto& d : all) {
                f.checked();
                if (ocl::select_device(std::to_string(d.index)).index != d.index)
                    f.add("select_device(\"" + std::to_string(d.index) + "\") picks another device");
            }
            // A case-changed substring of "platform: name".
            std::string part = all.back().name.substr(0, 6);
            for (char& c : part)
                c = char(std::islower(static_cast<unsigned char>(c)) ? std::toupper(c) : std::tolower(c));
            f.checked();
            const auto by_name = ocl::select_device(part);
            if (by_name.name.substr(0, 6) != all.back().name.substr(0, 6))
                f.add("select_device(\"" + part + "\") picked " + by_name.name);

            const std::string last = std::to_string(all.back().index);
            setenv("GPUFFT_OPENCL_DEVICE", last.c_str(), 1);
            f.checked();
            if (ocl::select_device("").index != all.back().index)
                f.add("GPUFFT_OPENCL_DEVICE=" + last + " is not what select_device(\"\") picks");
            try {
                gpufft::plan p(64, direction::forward, 1, 0, "opencl");
                f.checked();
                if (p.backend() != "opencl:" + last)
                    f.add("with GPUFFT_OPENCL_DEVICE=" + last + " a plan runs on " + p.backend());
            } catch (const std::exception& e) {
                f.add(std::string("plan with GPUFFT_OPENCL_DEVICE threw: ") + e.what());
            }
            unsetenv("GPUFFT_OPENCL_DEVICE");

            expect_error(f, "unknown selector", { "no-such-device", "devices:", all.front().name },
                         [] { ocl::select_device("no-such-device"); });
            expect_error(f, "unknown index", { "devices:" }, [&] {
                gpufft::plan p(64, direction::forward, 1, 0, "opencl:" + std::to_string(all.size()));
            });
        });
    }

    // What <gpufft/opencl.h> lends a pipeline beside a device plan (the
    // spectrum layer's device chain is built on it): a kernel of its own,
    // from the program cache, run in a queue of its own on the plan's output.
    void pipeline_runtime()
    {
        run_checks("opencl pipeline runtime", [](failures& f) {
            const ocl::functions& cl = ocl::runtime();
            const std::size_t n = 64;
            ocl::device_plan p(gpufft::problem{ n, direction::forward, 1, 0 });
            const ocl::device_info& dev = p.device();
            std::size_t max_alloc = 0;
            clGetDeviceInfo(device_id(), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(cl_ulong), &max_alloc, nullptr);
            f.checked();
            if (dev.id != device_id() || dev.max_buffer != max_alloc)
                f.add("device_info's id or max_buffer is not the device's");

            const std::string source =
                "__kernel void scale(__global float2* x, float s) { x[get_global_id(0)] *= s; }";
            const ocl::program_handle prog = ocl::build_program(dev, source, "-cl-std=CL1.2");
            f.checked();
            if (ocl::build_program(dev, source, "-cl-std=CL1.2").get() != prog.get())
                f.add("the same source built twice is not the cached program");
            const ocl::kernel_handle k = ocl::make_kernel(prog.get(), "scale");
            const ocl::queue_handle q = ocl::make_queue(dev);

            // An impulse transforms to ones (exactly), scaled by 2 in the other queue.
            cl_int err = CL_SUCCESS;
            const ocl::mem_handle buf(cl.clCreateBuffer(p.context(), CL_MEM_READ_WRITE, n * sizeof(cf), nullptr, &err));
            ocl::check(err, "clCreateBuffer");
            std::vector<cf> x(n);
            x[0] = 1.0f;
            ocl::check(cl.clEnqueueWriteBuffer(p.queue(), buf.get(), CL_TRUE, 0, n * sizeof(cf), x.data(), 0, nullptr,
                                               nullptr),
                       "clEnqueueWriteBuffer");
            p.enqueue(buf.get(), buf.get());
            p.finish();
            const cl_mem m = buf.get();
            const float two = 2.0f;
            ocl::check(cl.clSetKernelArg(k.get(), 0, sizeof m, &m), "clSetKernelArg");
            ocl::check(cl.clSetKernelArg(k.get(), 1, sizeof two, &two), "clSetKernelArg");
            ocl::check(cl.clEnqueueNDRangeKernel(q.get(), k.get(), 1, nullptr, &n, nullptr, 0, nullptr, nullptr),
                       "clEnqueueNDRangeKernel");
            ocl::check(cl.clEnqueueReadBuffer(q.get(), buf.get(), CL_TRUE, 0, n * sizeof(cf), x.data(), 0, nullptr,
                                              nullptr),
                       "clEnqueueReadBuffer");
            f.checked();
            for (std::size_t i = 0; i < n; ++i)
                if (x[i] != cf(2.0f, 0.0f)) {
                    f.add("scaled transform of an impulse: element " + std::to_string(i) + " is not 2");
                    break;
                }

            ocl::device_info forged = dev;
            forged.id = nullptr;
            expect_error(f, "a device_info not from devices()", { "not one of" },
                         [&] { ocl::build_program(forged, source, ""); });
            expect_error(f, "a queue for a device_info not from devices()", { "not one of" },
                         [&] { ocl::make_queue(forged); });
            expect_error(f, "a source that does not build", { "build failed", dev.label() },
                         [&] { ocl::build_program(dev, "__kernel void broken( {", ""); });
            expect_error(f, "a kernel the program lacks", { "clCreateKernel", "CL_INVALID_KERNEL_NAME" },
                         [&] { ocl::make_kernel(prog.get(), "no_such_kernel"); });
        });
    }

    void faults()
    {
        run_checks("opencl faults", [](failures& f) {
            // Two-pass scratch (n points a transform) beyond the device's
            // largest buffer, at plan time, within the kernels' 32-bit indexing.
            const std::size_t n = std::size_t(1) << 20;
            std::size_t max_alloc = 0;
            clGetDeviceInfo(device_id(), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(cl_ulong), &max_alloc, nullptr);
            const std::size_t batch = max_alloc / (n * sizeof(cf)) + 1;
            if (batch * n < (std::size_t(1) << 32))
                expect_error(f, "scratch beyond device memory", { "MiB", "largest buffer" }, [&] {
                    ocl::device_plan p(gpufft::problem{ n, direction::forward, batch, 0 });
                });
            // The planner's one override takes its settings and their ranges only.
            for (const char* bad : { "group_local=0", "register_exchange=4k", "register_from=-1", "rader=3",
                                     "odd_shapes=yes", "search=2", "no_such_knob=1", "rader" }) {
                setenv("GPUFFT_OPENCL_PLANNER", bad, 1);
                expect_error(f, std::string("GPUFFT_OPENCL_PLANNER=") + bad, { "GPUFFT_OPENCL_PLANNER", bad },
                             [] {
                                 for (std::size_t n : { 257, 1000, 16384 })
                                     gpufft::plan p(n, direction::forward, 1, 0, "opencl");
                             });
                unsetenv("GPUFFT_OPENCL_PLANNER");
            }
            // Beyond what two passes reach.
            expect_error(f, "size beyond two passes", { "beyond" }, [] {
                gpufft::plan p(std::size_t(1) << 30, direction::forward, 1, 0, "opencl");
            });
            gpufft::problem small{ 64, direction::forward, 2, 0 };
            ocl::device_plan p(small);
            expect_error(f, "null buffer", { "null" }, [&] { p.enqueue(nullptr, nullptr); });
            expect_error(f, "bad problem", { "batch" }, [] {
                ocl::device_plan bad(gpufft::problem{ 64, direction::forward, 0, 0 });
            });
        });
    }

    // PoCL's CPU device must not beat the simd backend in `auto`.
    void auto_choice()
    {
        run_checks("opencl in auto", [](failures& f) {
            const auto best = ocl::select_device("");
            gpufft::plan p(4096, direction::forward, 256);
            f.checked();
            if (best.type == "cpu" && p.backend().rfind("simd", 0) != 0)
                f.add("auto chose " + p.backend() + " over simd with a CPU OpenCL device");
        });
    }
};

/*!
 * The plan-time search over kernel shapes (lib/backends/opencl/shape_search.h):
 * what it picks at small sizes, one point included; a plan that tunes
 * keeps its choice in the wisdom, which later plans take, and ignore a
 * corrupt or foreign entry; with the search off the plans are plan_chain's
 * rules, and a plan that does not tune does not search. What it may pick is
 * qa_opencl_shapes' and qa_opencl_planner's (every candidate of every
 * preset).
 */
//! Runs fn with GPUFFT_WISDOM naming a fresh file of this run, then removes
//! the file and puts GPUFFT_WISDOM back as it was.
void with_wisdom_file(const std::string& name, const std::function<void(const std::filesystem::path&)>& fn)
{
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / ("gpufft-qa-" + name + "-" + std::to_string(run_seed()));
    fs::remove(file);
    const char* was = std::getenv("GPUFFT_WISDOM");
    const std::string saved = was ? was : "";
    setenv("GPUFFT_WISDOM", file.c_str(), 1);
    fn(file);
    fs::remove(file);
    if (was)
        setenv("GPUFFT_WISDOM", saved.c_str(), 1);
    else
        unsetenv("GPUFFT_WISDOM");
}

//! The wisdom file's line of the search's choice for n points forward, or empty.
std::string search_wisdom_line(const std::filesystem::path& file, std::size_t n)
{
    std::ifstream in(file);
    std::string entry;
    for (std::string line; std::getline(in, line);)
        if (line.find("opencl shape") == 0 && line.find(" " + std::to_string(n) + " points forward") != std::string::npos)
            entry = line;
    return entry;
}

class qa_opencl_search : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_search);
    CPPUNIT_TEST(searched_sizes);
    CPPUNIT_TEST(choice_in_wisdom);
    CPPUNIT_TEST(device_plan_tunes);
    CPPUNIT_TEST(off_keeps_the_rules);
    CPPUNIT_TEST_SUITE_END();

    static std::string shape_of(std::size_t n, bool tune = false)
    {
        gpufft::plan_options o;
        o.backend = target;
        o.tune = tune;
        return gpufft::plan(gpufft::problem{ n, direction::forward, 1, 0 }, o).describe();
    }

    //! The "candidate K of C" a description names, or empty.
    static std::string candidate_in(const std::string& shape)
    {
        const auto at = shape.find("candidate ");
        if (at == std::string::npos)
            return "";
        return shape.substr(at, shape.find_first_of(",)", at) - at);
    }

    //! With the search on, as on a GPU: one point to a mixed radix through
    //! gpufft::plan and device_plan, each plan the fastest candidate's.
    void searched_sizes()
    {
        run_checks("opencl searched sizes", [](failures& f) {
            setenv("GPUFFT_OPENCL_PLANNER", "search=1", 1);
            for (std::size_t n : { 1, 2, 12, 64, 1000 }) {
                check_all_ways(f, n);
                check_device_plan(f, n, direction::forward, 5, 0, false);
                check_device_plan(f, n, direction::inverse, 3, n + 7, true);
            }
            unsetenv("GPUFFT_OPENCL_PLANNER");
        });
    }

    //! What a child process (`qa_opencl --describe-child N`) plans for n
    //! points without tuning, or empty if it failed.
    static std::string child_shape(std::size_t n)
    {
        const std::string exe = std::filesystem::read_symlink("/proc/self/exe").string();
        const std::string cmd = "'" + exe + "' --describe-child " + std::to_string(n);
        FILE* p = popen(cmd.c_str(), "r");
        if (!p)
            return "";
        std::string out;
        char buf[512];
        while (std::fgets(buf, sizeof buf, p))
            out += buf;
        if (!out.empty() && out.back() == '\n')
            out.pop_back();
        return pclose(p) == 0 ? out : "";
    }

    /*!
     * A plan that tunes times the candidates and keeps its choice in the
     * wisdom (GPUFFT_WISDOM); a plan that does not, in this process or
     * another, takes it from there; a wisdom value that names none of the
     * candidates as they are now (garbage, a candidate beyond the list) or
     * another size's key is not taken: the rules' plan is.
     */
    void choice_in_wisdom()
    {
        run_checks("opencl search wisdom", [](failures& f) {
            with_wisdom_file("search-wisdom", [&](const std::filesystem::path& file) {
                const std::size_t n = 1296;
                const auto says = [&](const std::string& when, const std::string& shape, const std::string& how) {
                    std::printf("  %s: %s\n", when.c_str(), shape.c_str());
                    f.checked();
                    if (shape.find("(" + how + ": candidate ") == std::string::npos)
                        f.add(when + ": the plan does not say \"" + how + "\": " + shape);
                    return candidate_in(shape);
                };
                const std::string won = says("tuned", shape_of(n, true), "searched");
                check_transform(f, target, n, direction::forward);
                f.checked();
                if (says("not tuned", shape_of(n), "wisdom") != won)
                    f.add("this process's wisdom did not give back the search's " + won);
                f.checked();
                if (says("another process", child_shape(n), "wisdom") != won)
                    f.add("the wisdom file did not give back the search's " + won);

                const std::string entry = search_wisdom_line(file, n);
                f.checked();
                if (entry.empty()) {
                    f.add("no wisdom line for " + std::to_string(n) + " points in " + file.string());
                    return;
                }
                const std::string line = won.substr(0, won.find(" of"));
                std::string beyond = entry, foreign = entry;
                beyond.replace(beyond.find(line), line.size(), "candidate 99");
                const std::string points = std::to_string(n) + " points";
                foreign.replace(foreign.find(points), points.size(), std::to_string(n + 1) + " points");
                const std::string key = entry.substr(0, entry.find('\t'));
                for (const auto& [what, text] : { std::pair<std::string, std::string>{ "garbage", key + "\tnot a choice" },
                                                  { "a candidate beyond the list", beyond },
                                                  { "a foreign key", foreign } }) {
                    std::ofstream(file, std::ios::trunc) << text << '\n';
                    const std::string shape = child_shape(n);
                    f.checked();
                    if (shape.empty() || shape.find("candidate") != std::string::npos)
                        f.add("over " + what + " the plan is not the rules': \"" + shape + "\"");
                }
            });
        });
    }

    /*!
     * device_plan's tune as plan_options::tune: a tuned 1-D c2c plan times
     * the candidates (on a CPU device too) and keeps its choice in the
     * wisdom, which a device_plan that does not tune takes; tune where there
     * is no shape to search (a real plan, callbacks) is refused.
     */
    void device_plan_tunes()
    {
        run_checks("opencl device_plan tune", [](failures& f) {
            with_wisdom_file("device-plan-tune", [&](const std::filesystem::path& file) {
                const std::size_t n = 1296;
                const gpufft::problem p{ n, direction::forward, 3, 0 };
                ocl::device_plan tuned(p, "", true);
                const std::string shape = tuned.describe(), won = candidate_in(shape);
                std::printf("  tuned device_plan: %s\n", shape.c_str());
                f.checked();
                if (shape.find("(searched: candidate ") == std::string::npos)
                    f.add("a device_plan with tune did not search: " + shape);
                check_on_buffers(f, "tuned device_plan", p, false, tuned.context(), tuned.queue(),
                                 [&](cl_mem in, cl_mem out) { tuned.enqueue(in, out); });
                const std::string entry = search_wisdom_line(file, n);
                f.checked();
                if (won.empty() || entry.find("\t" + won + ":") == std::string::npos)
                    f.add("the wisdom file has not the tuned device_plan's " + won + ": \"" + entry + "\"");
                ocl::device_plan later(p);
                f.checked();
                if (later.describe().find("(wisdom: " + won + ")") == std::string::npos)
                    f.add("an untuned device_plan did not take " + won + " from the wisdom: " + later.describe());
            });
            expect_error(f, "tune on an r2c device_plan", { "tune", "1-D c2c" },
                         [] { ocl::device_plan(shaped(gpufft::transform_kind::r2c, { 64 }, 1), "", true); });
            expect_error(f, "tune on a 2-D device_plan", { "tune", "1-D c2c" },
                         [] { ocl::device_plan(shaped(gpufft::transform_kind::c2c, { 8, 8 }, 1), "", true); });
            expect_error(f, "tune with callbacks", { "tune", "callbacks" }, [] {
                ocl::callbacks cb;
                cb.input_weights.assign(64, 0.5f);
                ocl::device_plan(gpufft::problem{ 64, direction::forward, 1, 0 }, cb, "", true);
            });
        });
    }

    void off_keeps_the_rules()
    {
        run_checks("opencl search off", [](failures& f) {
            for (std::size_t n : { 90, 1296, 6000, 12000 }) {
                setenv("GPUFFT_OPENCL_PLANNER", "search=0", 1);
                const std::string off = shape_of(n);
                setenv("GPUFFT_OPENCL_PLANNER", "candidate=0", 1);
                const std::string first = shape_of(n);
                const std::string note = " (forced: " + candidate_in(first) + ")";
                f.checked();
                if (off.find("search") != std::string::npos || first.find(note) == std::string::npos ||
                    std::string(first).erase(first.find(note), note.size()) != off)
                    f.add(std::to_string(n) + ": with the search off \"" + off +
                          "\", not candidate 0's \"" + first + "\"");
            }
            // Unset, a plan that does not tune does not search (on a GPU
            // neither); search=0 keeps the rules for one that does.
            unsetenv("GPUFFT_OPENCL_PLANNER");
            const std::string plain = shape_of(1296);
            f.checked();
            if (plain.find("search") != std::string::npos)
                f.add("a plan that does not tune searched: " + plain);
            setenv("GPUFFT_OPENCL_PLANNER", "search=0", 1);
            const std::string tuned_off = shape_of(1296, true);
            f.checked();
            if (tuned_off.find("candidate") != std::string::npos)
                f.add("with search=0 a plan that tunes did not keep the rules: " + tuned_off);
            setenv("GPUFFT_OPENCL_PLANNER", "candidate=99", 1);
            expect_error(f, "GPUFFT_OPENCL_PLANNER=candidate=99", { "GPUFFT_OPENCL_PLANNER", "candidate=99" },
                         [] { shape_of(64); });
            unsetenv("GPUFFT_OPENCL_PLANNER");
        });
    }
};

// The kernel-binary cache, across processes: this program run as
// `qa_opencl --plan-child N` plans once and prints the milliseconds it took.
// The children plan by the rules (search=0: no wisdom; a tuned plan builds
// every candidate, and one the wisdom names rebuilds only its own:
// qa_opencl_search checks the wisdom).
class qa_opencl_cache : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_cache);
    CPPUNIT_TEST(binaries_are_cached);
    CPPUNIT_TEST_SUITE_END();

    struct plan_time {
        double wall_ms = -1, cpu_ms = -1;
        bool ok() const { return wall_ms >= 0; }
    };

    static plan_time child_plan(const std::string& exe, std::size_t n)
    {
        const std::string cmd = "'" + exe + "' --plan-child " + std::to_string(n);
        FILE* p = popen(cmd.c_str(), "r");
        if (!p)
            return {};
        plan_time t;
        if (std::fscanf(p, "%lf %lf", &t.wall_ms, &t.cpu_ms) != 2)
            t = {};
        return pclose(p) == 0 ? t : plan_time{};
    }

    static std::vector<std::filesystem::path> binaries(const std::filesystem::path& dir)
    {
        std::vector<std::filesystem::path> out;
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(dir, ec))
            if (e.path().extension() == ".bin")
                out.push_back(e.path());
        return out;
    }

    void binaries_are_cached()
    {
        run_checks("opencl kernel cache", [](failures& f) {
            namespace fs = std::filesystem;
            const std::string exe = fs::read_symlink("/proc/self/exe").string();
            const fs::path dir = fs::temp_directory_path() /
                                 ("gpufft-qa-cache-" + std::to_string(run_seed()));
            fs::remove_all(dir);
            setenv("GPUFFT_CACHE_DIR", dir.c_str(), 1);
            setenv("GPUFFT_OPENCL_PLANNER", "search=0", 1);
            const std::size_t n = 2400; // several stages, radices 8, 4, 3, 5, 5

            const plan_time first = child_plan(exe, n);
            const auto files = binaries(dir);
            f.checked();
            if (!first.ok() || files.empty())
                f.add("the first plan failed or left no binary in " + dir.string());
            // A build from source writes its entry anew (program_cache.cc,
            // write_cache_file renames a fresh file over it), so entries
            // that keep their inode and time were read, not rebuilt. The
            // time is printed, not checked: sanitizers and load move it.
            auto stamps = [&] {
                std::vector<std::tuple<ino_t, time_t, long>> out;
                for (const auto& file : binaries(dir)) {
                    struct stat st {};
                    if (::stat(file.c_str(), &st) == 0)
                        out.emplace_back(st.st_ino, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
                }
                return out;
            };
            const auto before = stamps();
            plan_time best;
            for (int i = 0; i < 3; ++i) {
                const plan_time t = child_plan(exe, n);
                f.checked();
                if (!t.ok())
                    f.add("a plan from the cache failed");
                else if (!best.ok() || t.cpu_ms < best.cpu_ms)
                    best = t;
            }
            std::printf("  plan of n=%zu: %.1f ms building; from the cache %.1f ms wall, %.1f ms CPU "
                        "(best of 3)\n", n, first.wall_ms, best.wall_ms, best.cpu_ms);
            f.checked();
            if (stamps() != before)
                f.add("a plan with every binary cached rebuilt or added an entry in " + dir.string());

            // A corrupt entry is rebuilt and replaced.
            for (const auto& file : files) {
                FILE* w = std::fopen(file.c_str(), "wb");
                std::fputs("not a binary", w);
                std::fclose(w);
            }
            f.checked();
            if (!child_plan(exe, n).ok())
                f.add("a plan over a corrupt cache entry failed");
            for (const auto& file : files) {
                f.checked();
                if (fs::file_size(file) <= std::strlen("not a binary"))
                    f.add("the corrupt entry " + file.string() + " was not replaced");
            }
            unsetenv("GPUFFT_CACHE_DIR");
            unsetenv("GPUFFT_OPENCL_PLANNER");
            fs::remove_all(dir);
        });
    }
};

/*!
 * Plans where the driver reads every compiled kernel as allowing fewer
 * work-items than it was built for, as NVIDIA's OpenCL does (CTest runs this
 * with GPUFFT_OPENCL_LIMITS' kernel_work_group=64, as an H100): a kernel
 * whose one transform in local memory needs more work-items keeps them where
 * it launches (fft_plan.cc, fft_chain::launches; 4096 and 2400, 256 and 160
 * work-items), and a group of several transforms takes fewer transforms as
 * the reading has it (65536's column pass, 16 of 16 work-items asked). The
 * planner's rules: no search, no wisdom (search=0).
 */
class qa_opencl_work_group : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_work_group);
    CPPUNIT_TEST(read_low);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override { setenv("GPUFFT_OPENCL_PLANNER", "search=0", 1); }
    void tearDown() override { unsetenv("GPUFFT_OPENCL_PLANNER"); }

private:
    //! A plan's first pass: transforms a group and work-items a transform.
    static std::pair<std::size_t, std::size_t> first_group(const std::string& shape)
    {
        const auto of = shape.find(" work-items a group");
        const auto tr = shape.find(" transform");
        if (of == std::string::npos || tr == std::string::npos)
            return { 0, 0 };
        return { std::stoul(shape.substr(shape.rfind(' ', tr - 1) + 1)),
                 std::stoul(shape.substr(shape.rfind(' ', of - 1) + 1)) };
    }

    void read_low()
    {
        const char* limits = std::getenv("GPUFFT_OPENCL_LIMITS");
        const char* at = limits ? std::strstr(limits, "kernel_work_group=") : nullptr;
        run_checks("opencl kernels read low", [&](failures& f) {
            if (!at) {
                f.add("run with GPUFFT_OPENCL_LIMITS=...,kernel_work_group=N (lib/tests/CMakeLists.txt)");
                return;
            }
            const std::size_t read = std::strtoul(at + std::strlen("kernel_work_group="), nullptr, 10);
            for (std::size_t n : { 4096, 2400, 65536 }) {
                const std::string shape = gpufft::plan(n, direction::forward, 1, 0, target).describe();
                std::printf("  %zu: %s\n", n, shape.c_str());
                const auto [group, items] = first_group(shape);
                const bool whole = n < 65536;
                if (whole ? items <= read : group * items > read || group < 2)
                    f.add(std::to_string(n) + ": " + std::to_string(group) + " transforms of " +
                          std::to_string(items) + " work-items a group where the driver reads " +
                          std::to_string(read) + " (want " +
                          (whole ? "one transform's work-items kept" : "fewer transforms a group") +
                          "): " + shape);
                check_all_ways(f, n);
            }
        });
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_sizes, "opencl_sizes");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_shapes, "opencl_shapes");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_candidates, "opencl_candidates");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_layout, "opencl_layout");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_device, "opencl_device");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_cache, "opencl_cache");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_search, "opencl_search");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_work_group, "opencl_work_group");

} // namespace qa

namespace {

const char* const suite_names[] = { "opencl_device", "opencl_cache", "opencl_sizes", "opencl_shapes",
                                    "opencl_candidates", "opencl_layout", "opencl_search" };
// Suites that want their CTest environment (lib/tests/CMakeLists.txt): by name only.
const char* const environment_suite_names[] = { "opencl_work_group" };

// The cache test's child: one plan; prints the milliseconds it took, wall
// clock and CPU time of the whole process (the driver's threads too). What a
// process pays once, not per plan, comes first: loading the driver (the
// registry's probe) and making the device's context (a plan of 2 points).
int plan_child(std::size_t n)
{
    try {
        gpufft::plan warm_up(2, gpufft::direction::forward, 1, 0, "opencl");
        auto cpu_ms = [] {
            timespec t;
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
            return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
        };
        const double cpu_start = cpu_ms();
        const auto start = std::chrono::steady_clock::now();
        gpufft::plan p(n, gpufft::direction::forward, 1, 0, "opencl");
        const std::chrono::duration<double, std::milli> wall = std::chrono::steady_clock::now() - start;
        std::printf("%.3f %.3f\n", wall.count(), cpu_ms() - cpu_start);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "plan-child: %s\n", e.what());
        return 1;
    }
}

// The search's wisdom test's child: prints an untuned plan's description.
int describe_child(std::size_t n)
{
    try {
        std::printf("%s\n", gpufft::plan(n, gpufft::direction::forward, 1, 0, "opencl").describe().c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "describe-child: %s\n", e.what());
        return 1;
    }
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--plan-child") == 0)
        return plan_child(std::strtoul(argv[2], nullptr, 10));
    if (argc == 3 && std::strcmp(argv[1], "--describe-child") == 0)
        return describe_child(std::strtoul(argv[2], nullptr, 10));
    std::vector<std::string> chosen;
    for (int i = 1; i < argc; ++i) {
        bool known = false;
        for (const char* s : suite_names)
            known = known || argv[i] == std::string(s);
        for (const char* s : environment_suite_names)
            known = known || argv[i] == std::string(s);
        if (!known) {
            std::fprintf(stderr, "usage: %s [SUITE...]; suites:", argv[0]);
            for (const char* s : suite_names)
                std::fprintf(stderr, " %s", s);
            std::fprintf(stderr, "; by name only:");
            for (const char* s : environment_suite_names)
                std::fprintf(stderr, " %s", s);
            std::fprintf(stderr, "\n");
            return 2;
        }
        chosen.push_back(argv[i]);
    }
    if (chosen.empty())
        chosen.assign(std::begin(suite_names), std::end(suite_names));

    for (const auto& b : gpufft::backends())
        if (b.name == "opencl" && !b.usable) {
            std::printf("qa_opencl: skipped, no usable OpenCL device: %s\n", b.reason.c_str());
            return 77;
        }
    const auto dev = gpufft::opencl::select_device("");
    std::printf("qa_opencl: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run); device %zu: %s: %s\n",
                (unsigned long long)qa::run_seed(), (unsigned long long)qa::run_seed(), dev.index,
                dev.platform.c_str(), dev.name.c_str());
    std::fflush(stdout);

    CppUnit::TextTestRunner runner;
    for (const auto& s : chosen)
        runner.addTest(CppUnit::TestFactoryRegistry::getRegistry(s).makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
