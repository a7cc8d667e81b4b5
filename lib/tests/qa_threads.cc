/* gr-gpufft correctness suite: plans with worker threads give bit-identical
 * results to single-threaded plans, on every call. */
#include "qa_common.h"

#include <cppunit/extensions/HelperMacros.h>
#include <cstring>

namespace qa {

namespace {

using gpufft::direction;

gpufft::plan make_plan(const std::string& t, const gpufft::problem& p, unsigned threads)
{
    gpufft::plan_options o;
    o.backend = t;
    o.threads = threads;
    return gpufft::plan(p, o);
}

// Runs the problem with threads = 1 and threads = 2 (out of place and in
// place) on the same input; every result must match bit for bit. `calls`
// repeats the threaded execute, to catch races between workers.
void compare_threads(failures& f,
                     const std::string& t,
                     std::size_t n,
                     std::size_t batch,
                     std::size_t distance,
                     unsigned calls = 1)
{
    const std::string name =
        case_name(t, n, direction::forward, batch, distance) + " threads=2 vs 1";
    try {
        const gpufft::problem p{ n, direction::forward, batch, distance };
        gpufft::plan one = make_plan(t, p, 1);
        gpufft::plan two = make_plan(t, p, 2);
        const std::size_t span = p.span();
        std::vector<cf> x(span), want(span), got(span);
        fill_random(x.data(), span, name);
        poison(want.data(), span);
        one.execute(x.data(), want.data());
        for (unsigned c = 0; c < calls; ++c) {
            poison(got.data(), span);
            two.execute(x.data(), got.data());
            if (std::memcmp(want.data(), got.data(), span * sizeof(cf)) != 0) {
                const std::size_t stride = p.stride();
                std::size_t i = 0;
                while (std::memcmp(&want[i], &got[i], sizeof(cf)) == 0)
                    ++i;
                f.add(name + ": call " + std::to_string(c) + " differs first in transform " +
                      std::to_string(i / stride) + " element " + std::to_string(i % stride));
                return;
            }
        }
        // In place, threaded, against in place, single-threaded.
        std::vector<cf> a(x), b(x);
        one.execute(a.data(), a.data());
        two.execute(b.data(), b.data());
        if (std::memcmp(a.data(), b.data(), span * sizeof(cf)) != 0)
            f.add(name + " in-place: results differ");
        f.checked();
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

} // namespace

class qa_threads : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_threads);
    CPPUNIT_TEST(identical_to_one_thread);
    CPPUNIT_TEST(stream_sized_batches);
    CPPUNIT_TEST(threaded_is_accurate);
    CPPUNIT_TEST_SUITE_END();

    void identical_to_one_thread()
    {
        static const std::size_t sizes[] = { 1, 7, 64, 1000, 1024, 4096, 65536 };
        for_each_target("threads 2 == threads 1", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : sizes)
                for (std::size_t batch : { 1, 2, 3, 17, 64 })
                    for (std::size_t distance : { std::size_t(0), n + 5 })
                        compare_threads(f, t, n, batch, distance, batch == 17 ? 5 : 1);
        });
    }

    // About 4 M points a call, as gpufft-bench and a flowgraph run it, and
    // one transform big enough that a backend may split it. Emulated, the
    // batch of 1024-point transforms and the single 2^20 one only.
    void stream_sized_batches()
    {
        for_each_target("threads, 4 M points", big_size_targets(), [](failures& f, const std::string& t) {
            compare_threads(f, t, 1024, 4096, 0, 3);
            if (!emulated())
                compare_threads(f, t, 65536, 64, 0, 3);
            compare_threads(f, t, std::size_t(1) << 20, 1, 0);
            if (!emulated())
                compare_threads(f, t, 1000000, 2, 0);
        });
    }

    void threaded_is_accurate()
    {
        for_each_target("threads 2 accuracy", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : { 16, 1000, 4096 })
                for (direction d : { direction::forward, direction::inverse }) {
                    check_transform(f, t, n, d, 17, n + 3, false, 2);
                    check_transform(f, t, n, d, 17, 0, true, 2);
                }
        });
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_threads, "threads");

} // namespace qa
