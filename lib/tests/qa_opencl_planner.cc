// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the OpenCL planner's rules as tables, without a device: the
 * plans plan_chain and shape_candidates make for every device preset
 * (lib/backends/opencl/device_limits.h: an H100 and H200 through NVIDIA's
 * OpenCL, a Mali G-series, an Intel iGPU, PoCL), checked in milliseconds.
 * qa_opencl's opencl_shapes builds each distinct plan of the table on
 * whatever OpenCL device is here and checks it against FFTW double. */
#include "opencl_plan_table.h"
#include "qa_common.h"
#include <gpufft/error.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>
#include <string>
#include <vector>

namespace qa {

namespace {

namespace ocl = gpufft::opencl::detail;
using gpufft::direction;

std::string at(const plan_target& t, std::size_t n)
{
    return t.name + ", " + std::to_string(n) + " points";
}

ocl::chain_shape rules(const plan_target& t, std::size_t n, direction dir = direction::forward)
{
    return ocl::plan_chain(t.limits, n, dir);
}

//! Fails unless n's plan on t starts with `start` (its description).
void expect_start(failures& f, const plan_target& t, std::size_t n, const std::string& start,
                  direction dir = direction::forward)
{
    f.checked();
    const std::string plan = rules(t, n, dir).describe();
    if (plan.rfind(start, 0) != 0)
        f.add(at(t, n) + " is planned as \"" + plan + "\", not \"" + start + "...\"");
}


} // namespace

class qa_opencl_planner : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_planner);
    CPPUNIT_TEST(every_size_planned);
    CPPUNIT_TEST(every_candidate_runs);
    CPPUNIT_TEST(register_mode);
    CPPUNIT_TEST(register_rounds);
    CPPUNIT_TEST(one_transform_a_group);
    CPPUNIT_TEST(odd_radices);
    CPPUNIT_TEST(grouped_columns);
    CPPUNIT_TEST(large_prime_radices);
    CPPUNIT_TEST(rader);
    CPPUNIT_TEST(search_candidates);
    CPPUNIT_TEST(presets);
    CPPUNIT_TEST(pass_count_named);
    CPPUNIT_TEST_SUITE_END();

    //! n = 1..64 and every size of the rules, both ways, on every target:
    //! a plan of n points the kernels can run (shape_fault).
    void every_size_planned()
    {
        run_checks("planner: every size", [](failures& f) {
            std::vector<std::size_t> sizes(64);
            for (std::size_t n = 1; n <= 64; ++n)
                sizes[n - 1] = n;
            sizes.insert(sizes.end(), rule_sizes().begin(), rule_sizes().end());
            for (const plan_target& t : plan_targets())
                for (std::size_t n : sizes)
                    for (auto dir : { direction::forward, direction::inverse }) {
                        f.checked();
                        try {
                            const ocl::chain_shape c = ocl::plan_chain(t.limits, n, dir);
                            if (c.n != n || c.dir != dir)
                                f.add(at(t, n) + ": a plan of " + std::to_string(c.n) + " points");
                            else if (const std::string why = ocl::shape_fault(t.limits, c); !why.empty())
                                f.add(t.name + ": " + why);
                        } catch (const std::exception& e) {
                            f.add(at(t, n) + ": plan_chain threw: " + e.what());
                        }
                    }
            // No stages for 0 points: refused, not planned (or looped on).
            for (const plan_target& t : plan_targets()) {
                f.checked();
                try {
                    ocl::plan_chain(t.limits, 0, direction::forward);
                    f.add(at(t, 0) + ": plan_chain planned 0 points");
                } catch (const gpufft::error& e) {
                    if (std::string(e.what()).find("0-point") == std::string::npos)
                        f.add(at(t, 0) + ": refused without naming the size: " + e.what());
                }
            }
        });
    }

    /*!
     * The plan-time search's candidates on every preset, every size to 8192
     * and the correctness suites' larger ones: a list, plan_chain's first
     * (what a plan with the search off takes), at most 8, no two alike,
     * every one a shape the kernels can run.
     */
    void every_candidate_runs()
    {
        run_checks("planner: every candidate", [](failures& f) {
            std::vector<std::size_t> sizes;
            for (std::size_t n = 1; n <= 8192; ++n)
                sizes.push_back(n);
            for (std::size_t n : { 9720, 10000, 12000, 15625, 16384, 48000, 65536, 65537, 65539,
                                   131072, 262144, 1 << 20 })
                sizes.push_back(n);
            for (const ocl::device_limits& d : ocl::limit_presets())
                for (std::size_t n : sizes) {
                    std::vector<ocl::chain_shape> list;
                    try {
                        list = ocl::shape_candidates(d, n, direction::forward);
                    } catch (const std::exception& e) {
                        f.add(d.name + ", " + std::to_string(n) + ": shape_candidates threw: " + e.what());
                        continue;
                    }
                    f.checked();
                    if (list.empty() || list.size() > 8) {
                        f.add(d.name + ", " + std::to_string(n) + ": " + std::to_string(list.size()) +
                              " candidates");
                        continue;
                    }
                    f.checked();
                    if (shape_key(list.front()) != shape_key(ocl::plan_chain(d, n, direction::forward)))
                        f.add(d.name + ", " + std::to_string(n) + ": candidate 0 is not the rules' plan: " +
                              list.front().describe());
                    std::set<std::string> seen;
                    for (std::size_t k = 0; k < list.size(); ++k) {
                        f.checked();
                        if (!seen.insert(list[k].describe()).second)
                            f.add(d.name + ", " + std::to_string(n) + ": candidate " + std::to_string(k) +
                                  " again: " + list[k].describe());
                        if (const std::string why = ocl::shape_fault(d, list[k]); !why.empty())
                            f.add(d.name + ": candidate " + std::to_string(k) + " of " + why);
                    }
                }
        });
    }

    /*!
     * The one-kernel register mode (fft_pass.cl's XCHG): rounds that divide
     * n evenly, at powers of two to 16384 of at most the knobs'
     * register_exchange elements; on an
     * H100 8192 and 16384 in registers (exchanges of 4096 elements in two
     * and four rounds), on a Mali 16384 in two passes and 8191 and 4099 by
     * Bluestein in three; with the mode from 4097 points and odd_shapes 2,
     * 6561 and 15625 in registers on an H100, and 6000 in one kernel
     * without the local-memory pad in its 48 KiB.
     */
    void register_mode()
    {
        run_checks("planner: register mode", [](failures& f) {
            for (const plan_target& t : plan_targets())
                for (std::size_t n : { 6000, 8192, 9152, 10000, 12000, 15625, 16384, 6521, 4099, 65539 }) {
                    for (const ocl::pass_spec& p : rules(t, n).passes) {
                        if (!p.xchg)
                            continue;
                        f.checked();
                        // One pass in rounds (register_rounds) takes rounds
                        // of what local memory holds (shape_fault checks).
                        const bool rounds = p.n > 16384 || (p.n & (p.n - 1)) != 0;
                        if ((!rounds && p.xchg > t.limits.knobs.register_exchange) || p.n % p.xchg)
                            f.add(at(t, n) + ": exchange rounds of " + std::to_string(p.xchg) +
                                  " elements (want at most " +
                                  std::to_string(t.limits.knobs.register_exchange) + ", dividing " +
                                  std::to_string(p.n) + ")");
                    }
                }
            const auto registers = [&](const plan_target& t, std::size_t n, std::size_t xchg) {
                f.checked();
                const ocl::chain_shape c = rules(t, n);
                if (c.passes.size() != 1 || c.passes[0].xchg != xchg)
                    f.add(at(t, n) + ": not in registers exchanging " + std::to_string(xchg) +
                          " elements a round: " + c.describe());
            };
            const auto passes = [&](const plan_target& t, std::size_t n, std::size_t count) {
                f.checked();
                const ocl::chain_shape c = rules(t, n);
                if (c.passes.size() != count)
                    f.add(at(t, n) + ": not in " + std::to_string(count) + " passes: " + c.describe());
            };
            for (const plan_target& t : plan_targets()) {
                if (t.name == "nvidia-h100" || t.name == "nvidia-h200") {
                    registers(t, 8192, 4096);
                    registers(t, 16384, 4096);
                    f.checked();
                    const ocl::chain_shape c = rules(t, 6000);
                    if (c.passes.size() != 1 || c.passes[0].lds_pad || c.passes[0].xchg)
                        f.add(at(t, 6000) + ": not one kernel in local memory unpadded: " + c.describe());
                } else if (t.name == "mali-g") {
                    passes(t, 16384, 2);
                    passes(t, 8191, 3);
                    passes(t, 4099, 3);
                } else if (t.name == "nvidia-h100 register_from=4097,odd_shapes=2") {
                    for (std::size_t n : { 6561, 15625 }) {
                        f.checked();
                        const ocl::chain_shape c = rules(t, n);
                        if (c.passes.size() != 1 || !c.passes[0].xchg)
                            f.add(at(t, n) + ": not in registers: " + c.describe());
                    }
                }
            }
        });
    }

    /*!
     * One pass in rounds of exchange (planner.cc, shape_rounds_pass, the
     * knobs' register_rounds), taken only where the H100 measured it faster
     * than two passes: one exchange round (local memory holds a component of
     * the whole transform) and at most 48 points a work-item, never inside a
     * convolution. On NVIDIA's 48 KiB: 6561, 7680 and 10000 in one kernel,
     * the rest of the two-pass hole (11025 to 32768) as without the rule;
     * on PoCL's limits above the 8192 points its local memory holds whole;
     * an Intel iGPU's 512 work-items hold 10000 and 12288 but not 15625.
     * Wherever a size is one pass without the rule, and everywhere on a
     * Mali, the plan is the same with it; wherever the rule changes a plan,
     * the new plan lies in that regime.
     */
    void register_rounds()
    {
        run_checks("planner: register rounds", [](failures& f) {
            const std::vector<std::size_t> hole = { 6561, 7680, 10000, 11025, 12288,
                                                    15625, 19683, 20480, 32768 };
            std::vector<std::size_t> sizes = hole;
            sizes.insert(sizes.end(), rule_sizes().begin(), rule_sizes().end());
            for (std::size_t n = 4096; n <= 32768; n += 97)
                sizes.push_back(n);
            for (const plan_target& t : plan_targets()) {
                ocl::device_limits off = t.limits;
                off.knobs.register_rounds = 0;
                for (std::size_t n : sizes) {
                    const ocl::chain_shape on = rules(t, n), was = ocl::plan_chain(off, n, direction::forward);
                    f.checked();
                    if ((was.passes.size() == 1 || t.name.rfind("mali-g", 0) == 0) &&
                        shape_key(on) != shape_key(was))
                        f.add(at(t, n) + ": \"" + was.describe() + "\" became \"" + on.describe() + "\"");
                    f.checked();
                    if (shape_key(on) != shape_key(was) &&
                        (on.passes.size() != 1 || on.passes[0].xchg < n ||
                         (n + on.passes[0].tt - 1) / on.passes[0].tt > 48))
                        f.add(at(t, n) + ": the rule outside its measured regime: " + on.describe());
                }
                const auto one_pass = [&](std::size_t n, bool want) {
                    f.checked();
                    const ocl::chain_shape c = rules(t, n);
                    const bool is = c.passes.size() == 1 && c.passes[0].xchg && !c.convolution_m;
                    if (is != want)
                        f.add(at(t, n) + (want ? ": not" : ": ") + " one pass in registers: " + c.describe());
                };
                if (t.name == "nvidia-h100" || t.name == "nvidia-h200") {
                    for (std::size_t n : { 6561, 7680, 10000 })
                        one_pass(n, true);
                    for (std::size_t n : { 11025, 12288, 15625, 19683, 20480, 32768 }) {
                        f.checked();
                        if (shape_key(rules(t, n)) != shape_key(ocl::plan_chain(off, n, direction::forward)))
                            f.add(at(t, n) + ": not as with register_rounds=0: " + rules(t, n).describe());
                    }
                    for (std::size_t n : { 4099, 16381 }) {
                        f.checked();
                        const ocl::chain_shape c = rules(t, n);
                        for (const auto& p : c.passes)
                            if (p.xchg && p.n > 8192 / 2 && c.convolution_m)
                                f.add(at(t, n) + ": a convolution pass in rounds: " + c.describe());
                    }
                } else if (t.name == "pocl") {
                    for (std::size_t n : hole)
                        if (n > 8192)
                            one_pass(n, true);
                } else if (t.name == "intel-igpu") {
                    one_pass(10000, true);
                    one_pass(12288, true);
                    one_pass(15625, false);
                }
            }
        });
    }

    //! One-kernel transforms of more than the knobs' group_local bytes of
    //! local memory take a work-group each.
    void one_transform_a_group()
    {
        run_checks("planner: one transform a group", [](failures& f) {
            for (const plan_target& t : plan_targets())
                for (std::size_t n : { 1296, 2520, 4410 }) {
                    f.checked();
                    const ocl::chain_shape c = rules(t, n);
                    if (c.passes.size() == 1 && !c.convolution_m && c.passes[0].g != 1)
                        f.add(at(t, n) + ": " + c.describe());
                }
        });
    }

    /*!
     * Composite radices (codelets.h): on any device 729 takes two stages of
     * 27 (four saved), 1800 its five hand-written ones (composites would
     * save only two: planner.cc, composite_min_saving) and 263's one-kernel
     * Bluestein FFTs the hand-written ones (composites::none; 262 = 2 x 131
     * keeps 263 off Rader).
     */
    void odd_radices()
    {
        run_checks("planner: odd radices", [](failures& f) {
            for (const plan_target& t : plan_targets()) {
                expect_start(f, t, 729, "one kernel: 27x27,");
                expect_start(f, t, 1800, "one kernel: 8x5x5x3x3,");
                expect_start(f, t, 263, "bluestein via 540: 4x5x3x3x3,");
            }
        });
    }

    /*!
     * Powers of two from 2^16 to 2^18 in two passes keep whole column groups
     * (16 columns a work-group) on a device of 48 KiB of local memory or more:
     * on NVIDIA's 48 KiB 2^18 as 256 x 1024, not 512 x 512 at 11 columns a
     * group (planner.cc, four_step_split).
     */
    void grouped_columns()
    {
        run_checks("planner: grouped columns", [](failures& f) {
            for (const plan_target& t : plan_targets()) {
                if (t.limits.local_memory < 48 * 1024)
                    continue;
                for (std::size_t n : { 65536, 131072, 262144 }) {
                    const ocl::chain_shape c = rules(t, n);
                    if (c.passes.size() != 2)
                        continue;
                    f.checked();
                    if (c.passes[0].g < 16)
                        f.add(at(t, n) + ": the column pass holds fewer than 16 columns: " + c.describe());
                }
                if (t.limits.local_memory != 48 * 1024)
                    continue;
                f.checked();
                const ocl::chain_shape c = rules(t, 262144);
                if (c.passes.size() != 2 || c.passes[1].n != 1024)
                    f.add(at(t, 262144) + ": not 256 x 1024: " + c.describe());
            }
        });
    }

    /*!
     * Direct-DFT stages for the primes 37 to 47 (planner.cc, dft_radix_cap)
     * where a work-item has the registers (four floats a point); with fewer
     * (a Mali's, an Intel iGPU's) those sizes go through Bluestein.
     */
    void large_prime_radices()
    {
        run_checks("planner: large prime radices", [](failures& f) {
            for (const plan_target& t : plan_targets()) {
                const bool few_registers = t.limits.registers < 4 * 47;
                expect_start(f, t, 1681, few_registers ? "bluestein" : "one kernel: 41x41,");
                expect_start(f, t, 37888, few_registers ? "bluestein" : "two passes: 4x37,");
            }
        });
    }

    /*!
     * Rader's algorithm (planner.cc, append_convolution). With the rules'
     * knobs wherever its convolution is one pass: 97, 109 (3 stages against
     * Bluestein's 16x16), 257, 1009 (16x7x3x3 against 16x16x8), and 2053
     * where local memory holds 2052 points; not 65537. A convolution
     * local memory holds (Rader's 256, Bluestein's 540 for 263) is one pass.
     * With rader 2 for every prime whose p - 1 has stages, on any device.
     */
    void rader()
    {
        run_checks("planner: rader", [](failures& f) {
            for (const plan_target& t : plan_targets()) {
                const auto inverse = direction::inverse;
                if (t.limits.knobs.rader == 1) {
                    expect_start(f, t, 257, "rader via 256 ", inverse);
                    expect_start(f, t, 97, "rader via 96 ", inverse);
                    expect_start(f, t, 2053,
                                 t.limits.local_memory >= 32 * 1024 ? "rader via 2052 " : "bluestein via ",
                                 inverse);
                    for (std::size_t n : { 109, 1009 })
                        expect_start(f, t, n, "rader via " + std::to_string(n - 1) + " ", inverse);
                    expect_start(f, t, 65537, "bluestein via ", inverse);
                    for (std::size_t n : { 257, 263 }) {
                        f.checked();
                        const ocl::chain_shape c = rules(t, n);
                        if (c.passes.size() != 1 || !c.passes[0].convolve)
                            f.add(at(t, n) + "'s convolution is not one pass: " + c.describe());
                    }
                } else {
                    for (std::size_t n : { 97, 257, 1009, 2053, 8191, 65537 })
                        expect_start(f, t, n, "rader via " + std::to_string(n - 1) + " ");
                }
            }
        });
    }

    /*!
     * What the search weighs: at 90, 1296, 6000 and 12000 more than one
     * candidate on every preset; no register mode at 12000 but the rules'
     * own (register_rounds; the search adds it at powers of two above 8192
     * only); 6000 as VkFFT shapes it
     * on NVIDIA's OpenCL where a group may hold 600 work-items.
     */
    void search_candidates()
    {
        run_checks("planner: search candidates", [](failures& f) {
            const std::string narrow = "10x10x10x6, 1 transform of 600 work-items";
            for (const ocl::device_limits& d : ocl::limit_presets())
                for (std::size_t n : { 90, 1296, 6000, 12000 }) {
                    const auto list = ocl::shape_candidates(d, n, direction::forward);
                    const std::string where = d.name + ", " + std::to_string(n);
                    f.checked();
                    if (list.size() < 2)
                        f.add(where + ": " + std::to_string(list.size()) + " candidates, nothing to search");
                    bool narrow_seen = false;
                    for (const ocl::chain_shape& c : list) {
                        f.checked();
                        if (n == 12000 && &c != &list.front() && c.passes.size() == 1 && c.passes[0].xchg)
                            f.add(where + ": a candidate in the register mode: " + c.describe());
                        narrow_seen = narrow_seen || c.describe().find(narrow) != std::string::npos;
                    }
                    f.checked();
                    if (n == 6000 && d.max_work_group >= 600 && !narrow_seen)
                        f.add(where + ": no candidate is " + narrow);
                }
        });
    }

    void presets()
    {
        run_checks("planner: presets", [](failures& f) {
            for (const char* name : { "nvidia-h100", "nvidia-h200", "mali-g", "intel-igpu", "pocl" }) {
                f.checked();
                if (ocl::limit_preset(name).name != name)
                    f.add(std::string("preset ") + name + " is not itself");
            }
            f.checked();
            const ocl::device_limits& mali = ocl::limit_preset("mali-g");
            if (mali.local_memory != 32768 || mali.max_work_group != 256)
                f.add("the Mali preset is not 32 KiB and 256 work-items");
            expect_error(
                "an unknown preset", [] { ocl::limit_preset("no-such-gpu"); },
                { "no-such-gpu", "mali-g", "nvidia-h100" });
        });
    }

    //! describe() counts a chain's passes as they are: a transposed 3-D
    //! chain is three, a 2-D one two, one transform one kernel.
    void pass_count_named()
    {
        run_checks("planner: pass count named", [](failures& f) {
            const std::pair<std::vector<std::size_t>, const char*> cases[] = {
                { { 8, 6, 10 }, "three passes: " }, { { 8, 6 }, "two passes: " }, { { 8, 6, 10, 4 }, "four passes: " }
            };
            for (const plan_target& t : plan_targets())
                for (const auto& [dims, start] : cases) {
                    f.checked();
                    const ocl::chain_shape c = ocl::plan_transposed(t.limits, dims, direction::forward).front().shape;
                    const std::string text = c.describe();
                    if (c.passes.size() != dims.size() || text.rfind(start, 0) != 0)
                        f.add(t.name + ", transposed " + std::to_string(dims.size()) + "-D: " +
                              std::to_string(c.passes.size()) + " passes described as \"" + text + "\"");
                }
            f.checked();
            if (rules(plan_targets().front(), 1024).describe().rfind("one kernel: ", 0) != 0)
                f.add("1024 points are not \"one kernel: ...\"");
        });
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_opencl_planner);

} // namespace qa

int main()
{
    CppUnit::TextTestRunner runner;
    runner.addTest(CppUnit::TestFactoryRegistry::getRegistry().makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
