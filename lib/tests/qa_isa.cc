// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: instruction-set paths. Every simd variant
 * the library lists can be forced and reports itself; the list matches what
 * the CPU can run; GPUFFT_SIMD_ISA forces one (suite isa_env, which CTest
 * runs with the variable set). The transforms themselves run on every
 * variant in the other suites. */
#include "qa_common.h"

#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cstdlib>

namespace qa {

namespace {

using gpufft::direction;

bool listed(const std::vector<std::string>& v, const std::string& s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

std::string joined(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : ",") + x;
    return s;
}

} // namespace

class qa_isa_paths : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_isa_paths);
    CPPUNIT_TEST(simd_is_listed);
    CPPUNIT_TEST(variants_match_cpu);
    CPPUNIT_TEST(forced_variant_is_reported);
    CPPUNIT_TEST(plain_simd_is_best_variant);
    CPPUNIT_TEST(auto_picks_usable_backend);
    CPPUNIT_TEST(planner_picks_lane_batch);
    CPPUNIT_TEST(forced_radices);
    CPPUNIT_TEST_SUITE_END();

    void simd_is_listed()
    {
        const auto v = simd_variants();
        CPPUNIT_ASSERT_MESSAGE("backends() lists no usable simd backend", !v.empty());
        CPPUNIT_ASSERT_MESSAGE("simd variants lack \"scalar\": " + joined(v), listed(v, "scalar"));
        CPPUNIT_ASSERT_MESSAGE("scalar should be listed last (variants are best first): " +
                                   joined(v),
                               v.back() == "scalar");
    }

    // The probe must neither miss an ISA the CPU has nor list one it lacks.
    void variants_match_cpu()
    {
#if defined(__x86_64__) || defined(__i386__)
        const auto v = simd_variants();
        std::string msg;
        // cpu_runs: everything the variant needs; cpu_lacks: its base
        // extension is missing, so listing it would be wrong.
        auto expect = [&](const std::string& isa, bool cpu_runs, bool cpu_lacks) {
            if (cpu_runs && !listed(v, isa))
                msg += "the CPU runs " + isa + " but it is not listed; ";
            if (cpu_lacks && listed(v, isa))
                msg += isa + " is listed but the CPU lacks it; ";
        };
        expect("avx512",
               __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"),
               !__builtin_cpu_supports("avx512f"));
        expect("avx2",
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"),
               !__builtin_cpu_supports("avx2"));
        expect("sse2", __builtin_cpu_supports("sse2"), !__builtin_cpu_supports("sse2"));
        CPPUNIT_ASSERT_MESSAGE(msg + "variants: " + joined(v), msg.empty());
#endif
    }

    void forced_variant_is_reported()
    {
        static const std::size_t sizes[] = { 1, 2, 3, 8, 60, 64, 1000, 1024, 4099, 65536 };
        failures f;
        for (const auto& isa : simd_variants())
            for (std::size_t n : sizes)
                for (std::size_t batch : { 1, 17 }) {
                    const std::string want = "simd:" + isa;
                    const std::string name = case_name(want, n, direction::forward, batch);
                    try {
                        gpufft::plan_options o;
                        o.backend = want;
                        gpufft::plan p(gpufft::problem{ n, direction::forward, batch }, o);
                        if (p.backend() != want)
                            f.add(name + ": plan.backend() reports \"" + p.backend() + "\"");
                        if (p.describe().empty())
                            f.add(name + ": describe() is empty");
                    } catch (const std::exception& e) {
                        f.add(name + ": threw: " + e.what());
                    }
                }
        QA_ASSERT_NO_FAILURES(f);
    }

    void plain_simd_is_best_variant()
    {
        const auto v = simd_variants();
        CPPUNIT_ASSERT(!v.empty());
        const char* forced = std::getenv("GPUFFT_SIMD_ISA");
        const std::string want = "simd:" + (forced && *forced ? std::string(forced) : v.front());
        gpufft::plan_options o;
        o.backend = "simd";
        gpufft::plan p(gpufft::problem{ 1024 }, o);
        CPPUNIT_ASSERT_EQUAL(want, p.backend());
    }

    // The scheme the planner picks per (n, batch, instruction set), as
    // describe() reports it: one transform per lane where that has more lanes
    // than the column scheme can use for n (lib/backends/simd/planner.cc,
    // lane_batch_wins), the column scheme otherwise. Cases whose variant the
    // CPU lacks are skipped.
    void planner_picks_lane_batch()
    {
        struct expected {
            const char* isa;
            std::size_t n, batch;
            const char* scheme; //!< the start of describe()
        };
        static const expected cases[] = {
            { "avx512", 32, 64, "lane-batched 32, 8 transforms a vector" },
            { "avx512", 60, 16, "lane-batched 12x5, 8 transforms a vector" },
            { "avx512", 250, 8, "lane-batched 25x10, 8 transforms a vector" },
            // Scratch of 8 x 2205 points is over the cache budget: AVX2 lanes.
            { "avx512", 2205, 16, "lane-batched 9x7x7x5, 4 transforms a vector" },
            // A batch too small for 8 lanes: AVX2's 4; the column scheme's sizes.
            { "avx512", 32, 4, "lane-batched 32, 4 transforms a vector" },
            { "avx512", 16, 64, "mixed-radix 4 x 4 lanes" },
            { "avx512", 1024, 32, "mixed-radix 16x8 x 8 lanes" },
            // At its own width below 128 points, but not 64 or 96; the
            // batch mod 8 left over on its own column scheme.
            { "avx512", 112, 16,
              "lane-batched 16x7, 8 transforms a vector (rest: mixed-radix 7x2 x 8 lanes)" },
            { "avx512", 96, 16, "mixed-radix 12 x 8 lanes" },
            { "avx512", 64, 16, "mixed-radix 8 x 8 lanes" },
            { "avx512", 128, 16, "mixed-radix 16 x 8 lanes" },
            { "avx512", 500, 64, "mixed-radix 5x5x5 x 4 lanes" },
            { "avx2", 15, 8, "lane-batched 5x3, 4 transforms a vector" },
            // 4 lanes rather than 2-lane columns (n = 2 mod 4), to twice the
            // scratch budget; AVX-512 with a batch too small for 8 lanes too.
            { "avx2", 90, 4, "lane-batched 10x9, 4 transforms a vector" },
            { "avx2", 8190, 4, "lane-batched 13x10x9x7, 4 transforms a vector" },
            { "avx512", 4410, 7,
              "lane-batched 10x9x7x7, 4 transforms a vector (rest: mixed-radix 9x7x7x5 x 2 lanes)" },
            { "avx2", 10010, 4, "mixed-radix 13x11x7x5 x 2 lanes" },
            { "avx2", 7875, 4, "lane-batched 9x7x5x5x5, 4 transforms a vector" },
            { "avx2", 4, 8, "mixed-radix 2 x 2 lanes" },
            // AVX2 at its own width below 64 points (not 16, 48: one codelet).
            { "avx2", 32, 8, "lane-batched 32, 4 transforms a vector" },
            { "avx2", 16, 8, "mixed-radix 4 x 4 lanes" },
            { "avx2", 48, 8, "mixed-radix 12 x 4 lanes" },
            { "avx2", 64, 8, "mixed-radix 16 x 4 lanes" },
            // In cache, 16-register sets take radix 8 passes, a leftover 2
            // or 4 in radix 16 ones; AVX-512 and scalar the largest codelets.
            { "avx2", 256, 64, "mixed-radix 8x8 x 4 lanes" },
            { "avx2", 2048, 16, "mixed-radix 8x8x8 x 4 lanes" },
            { "avx2", 4096, 8, "mixed-radix 16x8x8 x 4 lanes" },
            { "avx2", 8192, 4, "mixed-radix 16x16x8 x 4 lanes" },
            { "sse2", 16384, 2, "mixed-radix 16x8x8x8 x 2 lanes" },
            { "avx512", 4096, 8, "mixed-radix 32x16 x 8 lanes" },
            // A leftover 4 with 8 lanes: two radix-8 passes, not two 32s.
            { "avx512", 8192, 4, "mixed-radix 16x8x8 x 8 lanes" },
            { "scalar", 1024, 4, "mixed-radix 32x32" },
            // 32 registers: 3 x 5 and 5 x 5 in one pass (15 and 25 codelets);
            // 16 registers: passes of at most 16 points.
            { "avx512", 3000, 10, "mixed-radix 25x15 x 8 lanes" },
            { "avx512", 2400, 13, "mixed-radix 25x12 x 8 lanes" },
            { "avx512", 6000, 5, "mixed-radix 25x6x5 x 8 lanes" },
            { "avx2", 3000, 10, "mixed-radix 6x5x5x5 x 4 lanes" },
            { "scalar", 4096, 8, "mixed-radix 16x16x16" },
            { "sse2", 32, 8, "mixed-radix 16 x 2 lanes" },
            { "sse2", 15, 8, "lane-batched 5x3, 2 transforms a vector" },
            { "sse2", 12, 8, "mixed-radix 6 x 2 lanes" },
            { "sse2", 2205, 8, "lane-batched 9x7x7x5, 2 transforms a vector" },
            { "neon", 21, 8, "lane-batched 7x3, 2 transforms a vector" },
            { "neon", 64, 8, "mixed-radix 32 x 2 lanes" },
            // NEON's passes by its pass-cost model (isa/neon.h): on AArch64
            // no radix 25 or 32 passes, which spill; on ARMv7 twiddled
            // passes of at most 8 points but radix 10 and 12 (the old rules
            // gave 32x16, 25x12x5, 9x7x7x5 and 16x16x8, 8x5x5x5x3). 17 is a
            // generic pass of its own, first.
#if defined(__aarch64__)
            { "neon", 1024, 1, "mixed-radix 8x8x8 x 2 lanes" },
            { "neon", 3000, 1, "mixed-radix 15x10x10 x 2 lanes" },
            { "neon", 4410, 1, "mixed-radix 15x7x7x3 x 2 lanes" },
            { "neon", 8192, 1, "mixed-radix 16x16x16 x 2 lanes" },
            { "neon", 544, 1, "mixed-radix 17x16 x 2 lanes" },
#else
            { "neon", 4096, 1, "mixed-radix 8x8x8x4 x 2 lanes" },
            { "neon", 6000, 1, "mixed-radix 10x12x5x5 x 2 lanes" },
            { "neon", 544, 1, "mixed-radix 17x4x4 x 2 lanes" },
#endif
            // Beyond 256 KiB, radix 8 passes as on every set.
            { "neon", 65536, 1, "mixed-radix 8x8x8x8x8 x 2 lanes" },
            { "scalar", 15, 64, "mixed-radix 15" },
        };
        const auto v = simd_variants();
        failures f;
        for (const expected& c : cases) {
            if (!listed(v, c.isa))
                continue;
            gpufft::plan_options o;
            o.backend = std::string("simd:") + c.isa;
            gpufft::plan p(gpufft::problem{ c.n, direction::forward, c.batch }, o);
            const std::string name = case_name(o.backend, c.n, direction::forward, c.batch);
            f.checked();
            if (p.describe().rfind(c.scheme, 0) != 0)
                f.add(name + ": describe() is \"" + p.describe() + "\", expected it to start with \"" +
                      c.scheme + "\"");
        }
        QA_ASSERT_NO_FAILURES(f);
    }

    // GPUFFT_SIMD_RADICES forces the passes of the plans whose columns are
    // their product long, on every variant, and they compute the transform;
    // other sizes keep their plans; bad values are errors naming the value.
    void forced_radices()
    {
        struct unset_at_exit {
            ~unset_at_exit() { unsetenv("GPUFFT_SIMD_RADICES"); }
        } unset;
        failures f;
        for (const std::string& isa : simd_variants()) {
            const std::string backend = "simd:" + isa;
            gpufft::plan_options o;
            o.backend = backend;
            // The lane count, from a column plan's "... x 8 lanes" (none: 1).
            const std::string column_plan = gpufft::plan(gpufft::problem{ 4096 }, o).describe();
            const std::size_t at = column_plan.find(" x ");
            const std::size_t lanes =
                at == std::string::npos ? 1 : std::stoul(column_plan.substr(at + 3));
            setenv("GPUFFT_SIMD_RADICES", "4x8x5x3", 1);
            const std::size_t n = lanes * 480;
            const std::string want = "mixed-radix 4x8x5x3";
            const std::string got = gpufft::plan(gpufft::problem{ n }, o).describe();
            f.checked();
            if (got.rfind(want, 0) != 0)
                f.add(case_name(backend, n, direction::forward) + ": describe() is \"" + got +
                      "\", expected it to start with \"" + want + "\"");
            check_transform(f, backend, n, direction::forward);
            check_transform(f, backend, n, direction::inverse);
            const std::string other = gpufft::plan(gpufft::problem{ 2 * n }, o).describe();
            f.checked();
            if (other.rfind(want, 0) == 0)
                f.add(case_name(backend, 2 * n, direction::forward) + ": forced as well: " + other);
            for (const char* bad : { "16x", "x8", "16x-2", "8x14", "67", "1x4" }) {
                setenv("GPUFFT_SIMD_RADICES", bad, 1);
                expect_error(std::string("GPUFFT_SIMD_RADICES=") + bad,
                             [&] { gpufft::plan(gpufft::problem{ lanes * 128 }, o); },
                             { "GPUFFT_SIMD_RADICES", bad });
            }
            unsetenv("GPUFFT_SIMD_RADICES");
        }
        QA_ASSERT_NO_FAILURES(f);
    }

    void auto_picks_usable_backend()
    {
        gpufft::plan p(1024);
        const std::string b = p.backend();
        const std::string name = b.substr(0, b.find(':'));
        bool usable = false;
        for (const auto& i : gpufft::backends())
            usable |= i.name == name && i.usable;
        CPPUNIT_ASSERT_MESSAGE("auto chose \"" + b + "\", not a usable backend (" +
                                   gpufft::usable_backend_names() + ")",
                               usable);
    }
};

/*!
 * Run with GPUFFT_SIMD_ISA set (CTest sets it to scalar): a plan for plain
 * "simd" uses that variant, and so does "auto" when it picks simd.
 */
class qa_isa_env : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_isa_env);
    CPPUNIT_TEST(env_forces_variant);
    CPPUNIT_TEST_SUITE_END();

    void env_forces_variant()
    {
        const char* env = std::getenv("GPUFFT_SIMD_ISA");
        CPPUNIT_ASSERT_MESSAGE("set GPUFFT_SIMD_ISA to run this suite", env && *env);
        const std::string want = std::string("simd:") + env;
        failures f;
        for (std::size_t n : { 1, 16, 1000, 1024 }) {
            gpufft::plan_options o;
            o.backend = "simd";
            gpufft::plan p(gpufft::problem{ n }, o);
            if (p.backend() != want)
                f.add("n=" + std::to_string(n) + ": backend \"simd\" with GPUFFT_SIMD_ISA=" + env +
                      " reports " + p.backend());
            gpufft::plan a(n);
            if (a.backend().compare(0, 5, "simd:") == 0 && a.backend() != want)
                f.add("n=" + std::to_string(n) + ": backend \"auto\" with GPUFFT_SIMD_ISA=" + env +
                      " reports " + a.backend());
            check_transform(f, "simd", n, direction::forward, 3);
        }
        QA_ASSERT_NO_FAILURES(f);
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_isa_paths, "isa_paths");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_isa_env, "isa_env");

} // namespace qa
