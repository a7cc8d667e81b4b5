// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: execute() allocates nothing (plan once,
 * execute many: docs/architecture.md). This file replaces the
 * global operator new for the whole qa_gpufft program with one that counts
 * its calls; every other suite runs on it unchanged. */
#include "qa_common.h"

#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<unsigned long> allocations{ 0 };
} // namespace

// The replaceable forms every other form (arrays) calls in libstdc++, and
// the nothrow one (std::stable_sort's buffer), which a sanitizer's runtime
// would otherwise allocate itself and hand to the delete below.
void* operator new(std::size_t size)
{
    ++allocations;
    if (void* p = std::malloc(size ? size : 1))
        return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    ++allocations;
    return std::malloc(size ? size : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace qa {

namespace {

using gpufft::direction;
using gpufft::transform_kind;

// Allocations by three executes of `p` on `backend` after a first one (which
// may still bind symbols or fault in pages), checked into `f`.
void count_allocations(failures& f, const std::string& backend, const gpufft::problem& p,
                       unsigned threads, bool weighted)
{
    const std::string name = backend + " " + p.describe() + " threads=" + std::to_string(threads) +
                             (weighted ? " weighted" : "");
    try {
        gpufft::plan_options o;
        o.backend = backend;
        o.threads = threads;
        if (weighted && p.kind != transform_kind::c2r)
            o.input_weights.assign(p.points(), 0.5f);
        gpufft::plan plan(p, o);
        std::vector<cf> in(std::max(p.span(), p.real_span()) + 1), out(in.size());
        fill_random(in.data(), in.size(), name);
        const auto run = [&] {
            switch (p.kind) {
            case transform_kind::c2c:
                plan.execute(in.data(), out.data());
                break;
            case transform_kind::r2c:
                plan.execute_r2c(reinterpret_cast<const float*>(in.data()), out.data());
                break;
            case transform_kind::c2r:
                plan.execute_c2r(in.data(), reinterpret_cast<float*>(out.data()));
                break;
            }
        };
        run();
        const unsigned long before = allocations;
        for (int call = 0; call < 3; ++call)
            run();
        const unsigned long made = allocations - before;
        f.checked();
        if (made)
            f.add(name + ": three execute calls allocated " + std::to_string(made) + " times");
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

} // namespace

class qa_hot_path : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_hot_path);
    CPPUNIT_TEST(execute_allocates_nothing);
    CPPUNIT_TEST_SUITE_END();

    // Each scheme of the simd backend (fused codelet, passes, lane batches,
    // Rader, Bluestein, four-step, real, multi-dimensional, strided), one thread
    // and two, with and without input weights, on every variant. Other
    // backends are not held to it here.
    void execute_allocates_nothing()
    {
        std::vector<gpufft::problem> problems;
        for (std::size_t n : { 64, 97, 1000, 1024, 4099, 1 << 17 })
            for (std::size_t batch : { 1, 5 })
                problems.push_back(gpufft::problem{ n, direction::forward, batch });
        // Lane batches on AVX-512 and AVX2 (and their rest), codelet and passes.
        for (std::size_t n : { 24, 60 })
            problems.push_back(gpufft::problem{ n, direction::forward, 9 });
        gpufft::problem r2c{ 1024, direction::forward, 3 };
        r2c.kind = transform_kind::r2c;
        gpufft::problem c2r{ 1024, direction::inverse, 3 };
        c2r.kind = transform_kind::c2r;
        gpufft::problem grid{ 0, direction::forward, 2 };
        grid.dims = { 32, 48 };
        gpufft::problem strided{ 0, direction::forward, 2 };
        strided.dims = { 16, 8 };
        strided.strides = { 1, 16 };
        problems.insert(problems.end(), { r2c, c2r, grid, strided });
        failures f;
        for (const std::string& isa : simd_variants())
            for (const gpufft::problem& p : problems)
                for (unsigned threads : { 1u, 2u })
                    for (bool weighted : { false, true })
                        count_allocations(f, "simd:" + isa, p, threads, weighted);
        f.report("hot_path");
        QA_ASSERT_NO_FAILURES(f);
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_hot_path, "hot_path");

} // namespace qa
