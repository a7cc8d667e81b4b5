// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: plans with worker threads give bit-identical
 * results to single-threaded plans, on every call. */
#include "qa_common.h"

#include <cppunit/extensions/HelperMacros.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

// The pool splits a plan's batch the same way for every ISA, so emulated
// (qemu-user, the ASan build) the threaded plans run on the simd backend's
// own choice of ISA only, unless GPUFFT_TEST_BACKENDS names them; natively on
// every ISA in `native`. Each ISA's codelets are the size suites'.
std::vector<std::string> thread_targets(const std::vector<std::string>& native)
{
    if (emulated() && !std::getenv("GPUFFT_TEST_BACKENDS"))
        return { "simd" };
    return native;
}

} // namespace

class qa_threads : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_threads);
    CPPUNIT_TEST(identical_to_one_thread);
    CPPUNIT_TEST(stream_sized_batches);
    CPPUNIT_TEST(threaded_is_accurate);
    CPPUNIT_TEST(thread_count_capped);
    CPPUNIT_TEST(threads_that_cannot_start);
    CPPUNIT_TEST_SUITE_END();

    void identical_to_one_thread()
    {
        static const std::size_t sizes[] = { 1, 7, 64, 1000, 1024, 4096, 65536 };
        for_each_target("threads 2 == threads 1", thread_targets(targets()), [](failures& f, const std::string& t) {
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
        for_each_target("threads, 4 M points", thread_targets(big_size_targets()), [](failures& f, const std::string& t) {
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
        for_each_target("threads 2 accuracy", thread_targets(targets()), [](failures& f, const std::string& t) {
            for (std::size_t n : { 16, 1000, 4096 })
                for (direction d : { direction::forward, direction::inverse }) {
                    check_transform(f, t, n, d, 17, n + 3, false, 2);
                    check_transform(f, t, n, d, 17, 0, true, 2);
                }
        });
    }

    void thread_count_capped()
    {
        const unsigned cap = gpufft::plan_options::max_threads;
        expect_error("threads above the cap",
                     [&] { make_plan("simd", gpufft::problem{ 16, direction::forward, 2 * cap }, cap + 1); },
                     { "threads", "at most", std::to_string(cap), std::to_string(cap + 1) });
        // The cap itself is allowed (the pool is the batch's size here).
        gpufft::plan p = make_plan("simd", gpufft::problem{ 16, direction::forward, 2 }, cap);
        CPPUNIT_ASSERT_EQUAL(std::string("simd"), p.backend().substr(0, 4));
    }

    // Thread stacks that do not fit the address space: the plan throws
    // naming the thread count and the OS error, and leaves no thread
    // waiting (it used to hang in the condition variable's destructor). In
    // a child, so the limit and a hang stay there; alarm() ends a hang.
    // Not under qemu-user (emulated()): its setrlimit() accepts RLIMIT_AS
    // without passing it to the host (the limit would bind the emulator
    // itself; QEMU's linux-user/syscall.c, setrlimit), so on a 64-bit guest
    // every thread starts. The ASan build sets emulated() for its trimmed
    // sizes but runs natively, where the limit binds: it runs this.
    // Not under ThreadSanitizer either: it cannot start threads in a child
    // forked from a threaded process.
    void threads_that_cannot_start()
    {
#ifdef __SANITIZE_THREAD__
        return;
#endif
#ifndef __SANITIZE_ADDRESS__
        if (emulated())
            return;
#endif
        const pid_t child = fork();
        CPPUNIT_ASSERT_MESSAGE("fork", child >= 0);
        if (child == 0) {
            alarm(30);
            std::size_t pages = 0;
            std::ifstream("/proc/self/statm") >> pages;
            // Room for 256 MiB more: some of the 999 stacks (8 MiB each) fit, most do not.
            const rlim_t limit = rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE)) + (rlim_t(256) << 20);
            const rlimit r{ limit, limit };
            if (setrlimit(RLIMIT_AS, &r) != 0)
                _exit(3);
            try {
                make_plan("simd", gpufft::problem{ 16, direction::forward, 1000 }, 1000);
                std::fprintf(stderr, "a plan of 1000 threads in 256 MiB did not throw\n");
                _exit(1);
            } catch (const gpufft::error& e) {
                const std::string m = e.what();
                const bool named = m.find("threads = 1000") != std::string::npos &&
                                   m.find("Resource temporarily unavailable") != std::string::npos;
                if (!named)
                    std::fprintf(stderr, "message does not name the count and the OS error: %s\n",
                                 e.what());
                _exit(named ? 0 : 1);
            }
        }
        int status = 0;
        CPPUNIT_ASSERT(waitpid(child, &status, 0) == child);
        CPPUNIT_ASSERT_MESSAGE("the plan hung (the child was ended by SIGALRM)",
                               !(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM));
        CPPUNIT_ASSERT_MESSAGE("child status " + std::to_string(status),
                               WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_threads, "threads");

} // namespace qa
