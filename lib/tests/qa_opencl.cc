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

// The planner's internals (lib/backends/opencl), linked from its static library.
#include "fft_plan.h"
#include <gpufft/opencl.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
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

//! Runs fn and reports its failures under `label`.
template <class F>
void run_checks(const std::string& label, F fn)
{
    failures f;
    fn(f);
    f.report(label);
    QA_ASSERT_NO_FAILURES(f);
}

void cl_check(cl_int err, const char* what)
{
    if (err != CL_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed: " + std::to_string(err));
}

/*!
 * A device_plan on cl_mem buffers: random input (sentinels in the gaps),
 * poisoned output, one enqueue; the gaps stay untouched, every element is
 * written and within the criterion of qa_common.h.
 */
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
        cl_mem in = clCreateBuffer(plan.context(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
        cl_check(err, "clCreateBuffer");
        cl_mem out = in_place ? in : clCreateBuffer(plan.context(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
        cl_check(err, "clCreateBuffer");
        cl_check(clEnqueueWriteBuffer(plan.queue(), in, CL_TRUE, 0, bytes, x.data(), 0, nullptr, nullptr),
                 "clEnqueueWriteBuffer");
        if (!in_place)
            cl_check(clEnqueueWriteBuffer(plan.queue(), out, CL_TRUE, 0, bytes, y.data(), 0, nullptr, nullptr),
                     "clEnqueueWriteBuffer");
        plan.enqueue(in, out);
        plan.finish();
        cl_check(clEnqueueReadBuffer(plan.queue(), out, CL_TRUE, 0, bytes, y.data(), 0, nullptr, nullptr),
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
        const double bound = bound_for(fftwf.rel());
        f.note(name, ours.rel(), bound);
        if (!(ours.rel() <= bound))
            f.add(name + ": rel L2 error " + std::to_string(ours.rel()) + " > bound " +
                  std::to_string(bound));
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
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
            for (unsigned k = 1; k <= 20; ++k)
                check_all_ways(f, std::size_t(1) << k);
        });
    }

    void radio_sizes()
    {
        run_checks("opencl radio sizes", [](failures& f) {
            for (std::size_t n : { 1000, 2400, 3000, 4410, 6000, 48000 })
                check_all_ways(f, n);
        });
    }

    // A direct DFT (17), Rader in one kernel (97, 1009) and in three passes
    // (65537), Bluestein in one kernel (4099 on PoCL) and in three passes
    // (65539).
    void primes()
    {
        run_checks("opencl primes", [](failures& f) {
            for (std::size_t n : { 17, 97, 1009, 4099, 65537, 65539 })
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
};

/*!
 * The one-kernel register mode (fft_pass.cl's XCHG) for sizes that local
 * memory cannot hold whole (9152: radices 11 and 13 as direct DFTs), and
 * Bluestein (primes p whose p - 1 has a factor above 47, so not Rader):
 * through it (6521: 16384 points;
 * 4099: 8640), and in three passes with the fused middle (CONVOLVE; 65539:
 * 131220 points). CTest runs it also under GPUFFT_OPENCL_LIMITS as an H100
 * (48 KiB, 1024 work-items: exchanges of 4096 elements in two and four
 * rounds) and
 * as a Mali (32 KiB, 256: 16384 falls back to two passes, 8191 and 4099 to
 * three); each plan's description is printed. These are the planner's
 * rules, so the plan-time search (on by default on a GPU) is off here;
 * qa_opencl_search checks what it may pick.
 */
class qa_opencl_shapes : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_shapes);
    CPPUNIT_TEST(register_mode);
    CPPUNIT_TEST(one_transform_a_group);
    CPPUNIT_TEST(odd_radices);
    CPPUNIT_TEST(grouped_columns);
    CPPUNIT_TEST(large_prime_radices);
    CPPUNIT_TEST(rader);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override { setenv("GPUFFT_OPENCL_SEARCH", "0", 1); }
    void tearDown() override { unsetenv("GPUFFT_OPENCL_SEARCH"); }

private:

    void register_mode()
    {
        run_checks("opencl register mode", [](failures& f) {
            for (std::size_t n : { 6000, 8192, 9152, 10000, 12000, 15625, 16384, 6521, 4099, 65539 }) {
                const std::string shape = gpufft::plan(n, direction::forward, 1, 0, target).describe();
                std::printf("  %zu: %s\n", n, shape.c_str());
                check_exchange_rounds(f, n, shape);
                check_all_ways(f, n);
            }
        });
    }

    //! Register-mode rounds of at most 4096 elements that divide n evenly
    //! (fft_plan.cc, register_exchange_target).
    static void check_exchange_rounds(failures& f, std::size_t n, const std::string& shape)
    {
        const auto at = shape.find("exchanged ");
        if (at == std::string::npos || shape.find("bluestein") != std::string::npos)
            return;
        const std::size_t xchg = std::stoul(shape.substr(at + 10));
        if (xchg > 4096 || n % xchg)
            f.add(std::to_string(n) + ": exchange rounds of " + std::to_string(xchg) +
                  " elements (want at most 4096, dividing n): " + shape);
    }

    //! One-kernel transforms of more than 8 KiB of local memory take a
    //! work-group each (fft_plan.cc, group_local_target).
    void one_transform_a_group()
    {
        run_checks("opencl one transform a group", [](failures& f) {
            for (std::size_t n : { 1296, 2520, 4410 }) {
                const std::string shape = gpufft::plan(n, direction::forward, 1, 0, target).describe();
                if (shape.find("one kernel") != std::string::npos &&
                    shape.find(" 1 transform of ") == std::string::npos)
                    f.add(std::to_string(n) + ": " + shape);
            }
        });
    }

    /*!
     * Composite radices (lib/backends/opencl/codelets.cc: 9, 10, 25, 27,
     * 36, ...) at the odd and mixed sizes of scripts/device/sweep-sizes.txt,
     * in one kernel and in both passes of four-step (6000 in one kernel
     * without the local-memory pad under the H100's 48 KiB, 6561 to 15625
     * in the register mode there with GPUFFT_OPENCL_ODD_SHAPES=2); each plan
     * is printed; on any device's limits 729 must take two stages of 27
     * (four saved), 1800 its five hand-written ones (composites would save
     * only two: fft_plan.cc, composite_min_saving) and 263's one-kernel
     * Bluestein FFTs the hand-written ones (composites::none; 262 = 2 x 131
     * keeps 263 off Rader).
     */
    void odd_radices()
    {
        run_checks("opencl odd radices", [](failures& f) {
            for (std::size_t n : { 90, 175, 245, 729, 1296, 4410, 6000, 6561, 6912, 9720, 10000,
                                   13500, 15625, 16807, 18900, 59049, 78125, 390625, 823543 }) {
                const std::string plan =
                    gpufft::plan(n, direction::forward, 1, 0, target).describe();
                std::printf("  %zu: %s\n", n, plan.c_str());
                check_all_ways(f, n);
            }
            const std::pair<std::size_t, const char*> wanted[] = {
                { 729, "one kernel: 27x27," },
                { 1800, "one kernel: 8x5x5x3x3," },
                { 263, "bluestein via 540: 4x5x3x3x3," },
            };
            for (const auto& [n, start] : wanted) {
                f.checked();
                const std::string plan =
                    gpufft::plan(n, direction::forward, 1, 0, target).describe();
                if (plan.rfind(start, 0) != 0)
                    f.add(std::to_string(n) + " is planned as \"" + plan + "\", not \"" + start +
                          "...\"");
            }
        });
    }
    /*!
     * Powers of two from 2^16 to 2^18 in two passes keep whole column groups
     * (16 columns a work-group) on a device of 48 KiB of local memory or more:
     * 2^18 as 256 x 1024, not 512 x 512 at 11 columns a group
     * (fft_plan.cc, four_step_split).
     */
    void grouped_columns()
    {
        run_checks("opencl grouped columns", [](failures& f) {
            const bool holds = gpufft::opencl::select_device().local_memory >= 48 * 1024;
            for (std::size_t n : { 65536, 131072, 262144 }) {
                const std::string plan =
                    gpufft::plan(n, direction::forward, 1, 0, target).describe();
                std::printf("  %zu: %s\n", n, plan.c_str());
                check_all_ways(f, n);
                const auto comma = plan.find(", ");
                if (!holds || plan.rfind("two passes: ", 0) != 0 || comma == std::string::npos)
                    continue;
                f.checked();
                if (std::stoul(plan.substr(comma + 2)) < 16)
                    f.add(std::to_string(n) + "'s column pass holds fewer than 16 columns: " + plan);
            }
        });
    }

    /*!
     * Direct-DFT stages for the primes 37 to 47 (fft_plan.cc, dft_radix_cap)
     * in one kernel, in both passes of four-step and batched; with fewer
     * than 1024 work-items a group (a Mali's limits) those sizes go through
     * Bluestein instead. Each plan is printed.
     */
    void large_prime_radices()
    {
        run_checks("opencl large prime radices", [](failures& f) {
            for (std::size_t n : { 37, 41, 43, 47, 1681, 2021, 37888, 96256 }) {
                const std::string plan =
                    gpufft::plan(n, direction::forward, 1, 0, target).describe();
                std::printf("  %zu: %s\n", n, plan.c_str());
                check_all_ways(f, n);
                check_transform(f, target, n, direction::forward, 3);
                check_transform(f, target, n, direction::inverse, 3, n + 5, true);
            }
            const bool small_device = gpufft::opencl::select_device().max_work_group < 1024;
            const std::pair<std::size_t, const char*> wanted[] = {
                { 1681, small_device ? "bluestein" : "one kernel: 41x41," },
                { 37888, small_device ? "bluestein" : "two passes: 4x37," },
            };
            for (const auto& [n, start] : wanted) {
                f.checked();
                const std::string plan =
                    gpufft::plan(n, direction::forward, 1, 0, target).describe();
                if (plan.rfind(start, 0) != 0)
                    f.add(std::to_string(n) + " is planned as \"" + plan + "\", not \"" + start +
                          "...\"");
            }
        });
    }

    /*!
     * Rader's algorithm (fft_plan.cc, append_convolution, rader_level). By
     * default only where its convolution is one pass (whole_convolution)
     * and Bluestein's is not or has as many stages: 97 (8x4x3 against
     * 8x5x5), 257, 2053 (Bluestein's 4320 beyond the cap) where local memory
     * holds 2052 points; not 1009 (16x7x3x3 against 16x16x8) nor 65537. A
     * convolution local memory holds (Rader's 256, Bluestein's 540 for 263)
     * is one pass. With
     * GPUFFT_OPENCL_RADER=2 for every prime whose p - 1 has stages: in one
     * pass (97, 257, 1009, 2053, 4093 where local memory holds p - 1), in two
     * one-kernel passes otherwise, and in three with the fused middle (16381, 65537;
     * 8191 under an H100's or a Mali's limits), batched, in place with gaps;
     * the planner must choose it there on any device's limits. Each plan is
     * printed.
     */
    void rader()
    {
        run_checks("opencl rader", [](failures& f) {
            const auto starts = [&](std::size_t n, const std::string& want) {
                f.checked();
                const std::string plan =
                    gpufft::plan(n, direction::inverse, 1, 0, target).describe();
                if (plan.rfind(want, 0) != 0)
                    f.add(std::to_string(n) + " is planned as \"" + plan + "\", not \"" + want +
                          "...\"");
            };
            const bool holds_2052 = gpufft::opencl::select_device().local_memory >= 32 * 1024;
            starts(257, "rader via 256 ");
            starts(97, "rader via 96 ");
            starts(2053, holds_2052 ? "rader via 2052 " : "bluestein via ");
            for (std::size_t n : { 1009, 65537 })
                starts(n, "bluestein via ");
            // A convolution that local memory holds is one pass (CONVOLVE).
            for (std::size_t n : { 257, 263 }) {
                f.checked();
                const std::string plan =
                    gpufft::plan(n, direction::forward, 1, 0, target).describe();
                if (plan.find(" | ") != std::string::npos ||
                    plan.find("times the spectrum and inverse") == std::string::npos)
                    f.add(std::to_string(n) + "'s convolution is not one pass: " + plan);
            }
            setenv("GPUFFT_OPENCL_RADER", "2", 1);
            for (std::size_t n : { 3, 5, 97, 257, 1009, 2053, 4093, 8191, 16381, 65537 }) {
                const std::string plan =
                    gpufft::plan(n, direction::forward, 1, 0, target).describe();
                std::printf("  %zu: %s\n", n, plan.c_str());
                check_all_ways(f, n);
                check_transform(f, target, n, direction::forward, 3);
                check_transform(f, target, n, direction::inverse, 3, n + 5, true);
            }
            for (std::size_t n : { 97, 257, 1009, 2053, 8191, 65537 })
                starts(n, "rader via " + std::to_string(n - 1) + " ");
            // Each way x0 and X[0] go (fft_pass.cl's RADER): one pass, two
            // FFTs, three passes (16381; 65537, 2^16 + 1, where FFTW float
            // is exact on an impulse and Bluestein, the default plan, is
            // not).
            for (std::size_t n : { 97, 8191, 16381, 65537 })
                check_signals(f, target, n);
            unsetenv("GPUFFT_OPENCL_RADER");
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
    CPPUNIT_TEST(selection);
    CPPUNIT_TEST(faults);
    CPPUNIT_TEST(auto_choice);
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
            // The planner's tuning overrides take positive whole numbers.
            for (const char* name : { "GPUFFT_OPENCL_GROUP_LOCAL", "GPUFFT_OPENCL_REGISTER_EXCHANGE",
                                      "GPUFFT_OPENCL_REGISTER_FROM" })
                for (const char* bad : { "0", "4k", "-1" }) {
                    setenv(name, bad, 1);
                    expect_error(f, std::string(name) + "=" + bad,
                                 { name, "not a positive whole number" },
                                 [] {
                                     for (std::size_t n : { 1000, 16384 })
                                         gpufft::plan p(n, direction::forward, 1, 0, "opencl");
                                 });
                    unsetenv(name);
                }
            // The comparison switches take their levels only.
            for (const auto& [name, bad] : { std::pair{ "GPUFFT_OPENCL_RADER", "3" },
                                             std::pair{ "GPUFFT_OPENCL_ODD_SHAPES", "yes" } }) {
                setenv(name, bad, 1);
                expect_error(f, std::string(name) + "=" + bad, { name, bad },
                             [] { gpufft::plan p(257, direction::forward, 1, 0, "opencl"); });
                unsetenv(name);
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
 * every candidate it can pick, forced in turn with GPUFFT_OPENCL_CANDIDATE,
 * is a correct transform (fresh random data, poisoned outputs), and so is
 * what it picks at small sizes, one point included; a choice is
 * read back from the cache, and a corrupt or foreign entry is ignored and
 * rewritten; with the search off the plans are plan_chain's rules, and
 * unset it is on for GPUs only. CTest runs
 * it also as a Mali (32 KiB local memory, 256 work-items), whose limits
 * shape the candidates.
 */
class qa_opencl_search : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_search);
    CPPUNIT_TEST(every_candidate);
    CPPUNIT_TEST(searched_sizes);
    CPPUNIT_TEST(choice_is_cached);
    CPPUNIT_TEST(off_keeps_the_rules);
    CPPUNIT_TEST_SUITE_END();

    static std::string shape_of(std::size_t n)
    {
        return gpufft::plan(n, direction::forward, 1, 0, target).describe();
    }

    //! The "candidate K of C" a description names, or empty.
    static std::string candidate_in(const std::string& shape)
    {
        const auto at = shape.find("candidate ");
        if (at == std::string::npos)
            return "";
        return shape.substr(at, shape.find_first_of(",)", at) - at);
    }

    void every_candidate()
    {
        run_checks("opencl search candidates", [](failures& f) {
            // 6000 as VkFFT shapes it on NVIDIA's OpenCL (fft_plan.cc,
            // shape_candidates), where a group may hold 600 work-items.
            const std::string narrow = "10x10x10x6, 1 transform of 600 work-items";
            const bool narrow_fits = gpufft::opencl::select_device("").max_work_group >= 600;
            for (std::size_t n : { 90, 1296, 6000, 12000 }) {
                bool narrow_seen = false;
                std::size_t k = 0;
                for (;; ++k) {
                    setenv("GPUFFT_OPENCL_CANDIDATE", std::to_string(k).c_str(), 1);
                    std::string shape;
                    try {
                        shape = shape_of(n);
                    } catch (const gpufft::error& e) {
                        f.checked();
                        if (std::string(e.what()).find("GPUFFT_OPENCL_CANDIDATE") == std::string::npos)
                            f.add(std::to_string(n) + ": candidate " + std::to_string(k) +
                                  " failed otherwise than beyond the list: " + e.what());
                        break;
                    }
                    std::printf("  %zu, candidate %zu: %s\n", n, k, shape.c_str());
                    // The register mode is no candidate at sizes other than
                    // powers of two above 8192 (fft_plan.cc, shape_candidates).
                    f.checked();
                    if (n == 12000 && shape.find("in registers") != std::string::npos)
                        f.add(std::to_string(n) + ": candidate " + std::to_string(k) +
                              " is in the register mode: " + shape);
                    narrow_seen = narrow_seen || shape.find(narrow) != std::string::npos;
                    check_all_ways(f, n);
                }
                f.checked();
                if (k < 2)
                    f.add(std::to_string(n) + ": " + std::to_string(k) +
                          " candidates, nothing to search");
                if (n == 6000 && narrow_fits && !narrow_seen)
                    f.add("6000: no candidate is " + narrow);
            }
            unsetenv("GPUFFT_OPENCL_CANDIDATE");
        });
    }

    //! With the search on, as on a GPU: one point to a mixed radix through
    //! gpufft::plan and device_plan, each plan the fastest candidate's.
    void searched_sizes()
    {
        run_checks("opencl searched sizes", [](failures& f) {
            setenv("GPUFFT_OPENCL_SEARCH", "1", 1);
            for (std::size_t n : { 1, 2, 12, 64, 1000 }) {
                check_all_ways(f, n);
                check_device_plan(f, n, direction::forward, 5, 0, false);
                check_device_plan(f, n, direction::inverse, 3, n + 7, true);
            }
            unsetenv("GPUFFT_OPENCL_SEARCH");
        });
    }

    void choice_is_cached()
    {
        run_checks("opencl search cache", [](failures& f) {
            namespace fs = std::filesystem;
            const fs::path dir = fs::temp_directory_path() /
                                 ("gpufft-qa-search-" + std::to_string(run_seed()));
            fs::remove_all(dir);
            setenv("GPUFFT_CACHE_DIR", dir.c_str(), 1);
            setenv("GPUFFT_OPENCL_SEARCH", "1", 1);
            const std::size_t n = 1296;
            auto expect = [&](const std::string& when, const std::string& how) {
                const std::string shape = shape_of(n);
                std::printf("  %s: %s\n", when.c_str(), shape.c_str());
                f.checked();
                if (shape.find("(" + how + ": candidate ") == std::string::npos)
                    f.add(when + ": the plan does not say \"" + how + "\": " + shape);
                check_transform(f, target, n, direction::forward);
                return candidate_in(shape);
            };
            auto entries = [&] {
                std::vector<fs::path> out;
                std::error_code ec;
                for (const auto& e : fs::directory_iterator(dir / "shapes", ec))
                    out.push_back(e.path());
                return out;
            };
            auto read = [](const fs::path& p) {
                std::ifstream in(p);
                return std::string(std::istreambuf_iterator<char>(in), {});
            };
            auto write = [](const fs::path& p, const std::string& text) {
                std::ofstream(p, std::ios::trunc) << text;
            };

            const std::string won = expect("first plan", "searched");
            const auto files = entries();
            f.checked();
            if (files.size() != 1) {
                f.add("the search left " + std::to_string(files.size()) + " cache entries, not 1");
                return;
            }
            const std::string entry = read(files[0]);
            f.checked();
            if (expect("second plan", "search cache") != won)
                f.add("the cache did not give back the search's " + won);

            // Garbage; a candidate beyond the list; another size's key.
            const std::string line = won.substr(0, won.find(" of"));
            const std::string key = entry.substr(0, entry.find("\ncandidate ") + 1);
            std::string beyond = entry, foreign = entry;
            beyond.replace(beyond.find(line), line.size(), "candidate 99");
            const std::string points = std::to_string(n) + " points";
            foreign.replace(foreign.find(points), points.size(), std::to_string(n + 1) + " points");
            for (const auto& [what, text] : { std::pair<std::string, std::string>{ "garbage", "\x01not a choice" },
                                              { "a candidate beyond the list", beyond },
                                              { "a foreign key", foreign } }) {
                write(files[0], text);
                expect("over " + what, "searched");
                f.checked();
                if (read(files[0]).compare(0, key.size(), key) != 0)
                    f.add("the entry with " + what + " was not rewritten");
            }
            unsetenv("GPUFFT_OPENCL_SEARCH");
            unsetenv("GPUFFT_CACHE_DIR");
            fs::remove_all(dir);
        });
    }

    void off_keeps_the_rules()
    {
        run_checks("opencl search off", [](failures& f) {
            for (std::size_t n : { 90, 1296, 6000, 12000 }) {
                setenv("GPUFFT_OPENCL_SEARCH", "0", 1);
                const std::string off = shape_of(n);
                setenv("GPUFFT_OPENCL_CANDIDATE", "0", 1);
                const std::string first = shape_of(n);
                unsetenv("GPUFFT_OPENCL_CANDIDATE");
                const std::string note = " (forced: " + candidate_in(first) + ")";
                f.checked();
                if (off.find("search") != std::string::npos || first.find(note) == std::string::npos ||
                    std::string(first).erase(first.find(note), note.size()) != off)
                    f.add(std::to_string(n) + ": with the search off \"" + off +
                          "\", not candidate 0's \"" + first + "\"");
            }
            // Unset: the search is on by default on GPUs only (shape_search.h).
            unsetenv("GPUFFT_OPENCL_SEARCH");
            const bool gpu = ocl::select_device("").type == "gpu";
            const std::string plain = shape_of(1296);
            f.checked();
            if ((plain.find("search") != std::string::npos) != gpu)
                f.add(std::string("with GPUFFT_OPENCL_SEARCH unset on a ") + (gpu ? "GPU" : "non-GPU") +
                      " device the plan " + (gpu ? "did not search" : "searched") + ": " + plain);
            setenv("GPUFFT_OPENCL_SEARCH", "yes", 1);
            expect_error(f, "GPUFFT_OPENCL_SEARCH=yes", { "GPUFFT_OPENCL_SEARCH", "yes" },
                         [] { shape_of(64); });
            unsetenv("GPUFFT_OPENCL_SEARCH");
        });
    }
};

/*!
 * The plan-time search's candidates (fft_plan.h, shape_candidates) on this
 * device's limits; CTest runs the suite also as an H100/H200 (48 KiB of
 * local memory, 1024 work-items) and as a Mali (32 KiB, 256), so that what
 * the search weighs on a GPU is checked on PoCL. Every size to 8192 and the
 * correctness suites' larger ones, without building a kernel: the list is
 * there and every shape is one the kernels can run (shape_fault). Built,
 * each candidate forced in turn (GPUFFT_OPENCL_CANDIDATE) against FFTW
 * double, forward (the inverse's shapes are the same but for the sign), at
 * sizes that reach every kind of candidate: one point, the smallest
 * one-kernel shapes, a mixed radix, the register mode and two-pass splits
 * (qa_opencl_search checks more at 90, 1296, 6000 and 12000).
 */
class qa_opencl_candidates : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_candidates);
    CPPUNIT_TEST(every_shape_runs);
    CPPUNIT_TEST(every_candidate_checked);
    CPPUNIT_TEST_SUITE_END();

    void every_shape_runs()
    {
        namespace detail = gpufft::opencl::detail;
        run_checks("opencl candidates' shapes", [](failures& f) {
            const detail::device_entry& d = detail::select("");
            std::vector<std::size_t> sizes;
            for (std::size_t n = 1; n <= 8192; ++n)
                sizes.push_back(n);
            for (std::size_t n : { 9720, 10000, 12000, 15625, 16384, 48000, 65536, 65537, 65539,
                                   131072, 262144, 1 << 20 })
                sizes.push_back(n);
            for (std::size_t n : sizes) {
                std::vector<detail::chain_shape> list;
                try {
                    list = detail::shape_candidates(d, n, direction::forward);
                } catch (const std::exception& e) {
                    f.add(std::to_string(n) + ": shape_candidates threw: " + e.what());
                    continue;
                }
                f.checked();
                if (list.empty())
                    f.add(std::to_string(n) + ": no candidates");
                for (std::size_t k = 0; k < list.size(); ++k) {
                    f.checked();
                    const std::string why = detail::shape_fault(d, list[k]);
                    if (!why.empty())
                        f.add("candidate " + std::to_string(k) + " of " + why);
                }
            }
        });
    }

    // Every candidate the search may pick, forced, against FFTW double on
    // noise, forward, and to 1000 points on the structured inputs
    // (qa_common.h, signal) both ways and round trip (at 8192 and 65536
    // they would double the suite's time).
    void every_candidate_checked()
    {
        namespace detail = gpufft::opencl::detail;
        run_checks("opencl candidates checked", [](failures& f) {
            const detail::device_entry& d = detail::select("");
            for (std::size_t n : { 1, 2, 12, 64, 1000, 8192, 65536 }) {
                const std::size_t count = detail::shape_candidates(d, n, direction::forward).size();
                for (std::size_t k = 0; k < count; ++k) {
                    setenv("GPUFFT_OPENCL_CANDIDATE", std::to_string(k).c_str(), 1);
                    check_transform(f, target, n, direction::forward);
                    if (n <= 1000)
                        check_signals(f, target, n);
                }
            }
            unsetenv("GPUFFT_OPENCL_CANDIDATE");
        });
    }
};

// The kernel-binary cache, across processes: this program run as
// `qa_opencl --plan-child N` plans once and prints the milliseconds it took.
// The children plan by the rules (a plan-time search on a GPU builds every
// candidate, and a choice read back from its cache rebuilds only its own:
// qa_opencl_search checks that cache).
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
            setenv("GPUFFT_OPENCL_SEARCH", "0", 1);
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
            unsetenv("GPUFFT_OPENCL_SEARCH");
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
 * planner's rules: the search is off.
 */
class qa_opencl_work_group : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_work_group);
    CPPUNIT_TEST(read_low);
    CPPUNIT_TEST_SUITE_END();

public:
    void setUp() override { setenv("GPUFFT_OPENCL_SEARCH", "0", 1); }
    void tearDown() override { unsetenv("GPUFFT_OPENCL_SEARCH"); }

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
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_layout, "opencl_layout");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_device, "opencl_device");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_cache, "opencl_cache");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_search, "opencl_search");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_work_group, "opencl_work_group");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_candidates, "opencl_candidates");

} // namespace qa

namespace {

const char* const suite_names[] = { "opencl_device", "opencl_cache", "opencl_sizes", "opencl_shapes",
                                    "opencl_layout", "opencl_search", "opencl_candidates" };
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

} // namespace

int main(int argc, char** argv)
{
    if (argc == 3 && std::strcmp(argv[1], "--plan-child") == 0)
        return plan_child(std::strtoul(argv[2], nullptr, 10));
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
