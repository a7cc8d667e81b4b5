// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: bad input throws gpufft::error naming the
 * problem; nothing crashes. */
#include "qa_common.h"

#include <cppunit/extensions/HelperMacros.h>
#include <functional>
#include <limits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>

namespace qa {

namespace {

using gpufft::direction;

// A size or a problem is not a plan: `gpufft::plan p = 1024;` must not
// compile, since it plans (and allocates) where a reader sees a copy.
static_assert(!std::is_convertible_v<std::size_t, gpufft::plan>);
static_assert(!std::is_convertible_v<gpufft::problem, gpufft::plan>);

gpufft::plan_options with_backend(const std::string& b)
{
    gpufft::plan_options o;
    o.backend = b;
    return o;
}

void plan_with(const std::string& backend, std::size_t n = 64)
{
    gpufft::plan p(gpufft::problem{ n }, with_backend(backend));
}

void plan_problem(std::size_t n, std::size_t batch, std::size_t distance)
{
    gpufft::plan p(gpufft::problem{ n, direction::forward, batch, distance });
}

} // namespace

std::string plan_verdict(std::size_t n)
{
    try {
        plan_problem(n, 1, 0);
        return "was accepted";
    } catch (const gpufft::error&) {
        return "";
    } catch (const std::exception& e) {
        return std::string("threw a std::exception that is not gpufft::error: ") + e.what();
    }
}

namespace {

/*!
 * Plans n points in a child process with a time limit. Returns the child's
 * verdict (empty for success), or says how it hung or died. The child is a
 * fresh process (this program run as `--plan-verdict N`): a forked copy would
 * inherit a GPU driver the parent's earlier plans started, and NVIDIA's is not
 * fork-safe. The program's path is read before the fork: under qemu-user
 * /proc/self/exe is the emulator, and readlink gives the emulated program.
 * Where exec fails (such a program without binfmt) the forked copy plans
 * itself.
 */
std::string in_child(unsigned seconds, std::size_t n)
{
    std::fflush(nullptr);
    int fds[2];
    if (pipe(fds) != 0)
        return "pipe() failed";
    const std::string size = std::to_string(n);
    char self[4096];
    const ssize_t self_len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[self_len > 0 ? self_len : 0] = '\0';
    const pid_t pid = fork();
    if (pid < 0)
        return "fork() failed";
    if (pid == 0) {
        close(fds[0]);
        alarm(seconds); // kept across exec
        if (self_len > 0 && dup2(fds[1], STDOUT_FILENO) >= 0)
            execl(self, "qa_gpufft", "--plan-verdict", size.c_str(), nullptr);
        const std::string v = plan_verdict(n);
        const ssize_t w = write(fds[1], v.data(), v.size());
        _exit(w == ssize_t(v.size()) ? 0 : 1);
    }
    close(fds[1]);
    std::string verdict;
    char buf[512];
    ssize_t k;
    while ((k = read(fds[0], buf, sizeof buf)) > 0)
        verdict.append(buf, std::size_t(k));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        return WTERMSIG(status) == SIGALRM
                   ? "still planning after " + std::to_string(seconds) + " s (hang)"
                   : std::string("crashed: ") + strsignal(WTERMSIG(status));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return "the child exited with status " + std::to_string(WEXITSTATUS(status)) +
               (verdict.empty() ? "" : ": " + verdict);
    return verdict;
}

} // namespace

class qa_bad_input : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_bad_input);
    CPPUNIT_TEST(zero_size);
    CPPUNIT_TEST(zero_batch);
    CPPUNIT_TEST(short_distance);
    CPPUNIT_TEST(span_overflow);
    CPPUNIT_TEST(huge_size);
    CPPUNIT_TEST(validate_names_field);
    CPPUNIT_TEST(unknown_backend);
    CPPUNIT_TEST(unknown_simd_variant);
    CPPUNIT_TEST(unusable_backends);
    CPPUNIT_TEST(null_buffers);
    CPPUNIT_TEST(short_buffers);
    CPPUNIT_TEST(checked_execute_accepts_exact_span);
    CPPUNIT_TEST(error_is_invalid_argument);
    CPPUNIT_TEST_SUITE_END();

    void zero_size()
    {
        expect_error("n = 0", [] { plan_problem(0, 1, 0); }, { "size" });
        for (const auto& t : targets())
            expect_error("n = 0 on " + t,
                         [&] { plan_with(t, 0); },
                         { "size" });
    }

    void zero_batch()
    {
        expect_error("batch = 0", [] { plan_problem(64, 0, 0); }, { "batch" });
    }

    void short_distance()
    {
        expect_error("distance < n", [] { plan_problem(64, 2, 63); }, { "distance" });
        expect_error("distance 1 < n", [] { plan_problem(64, 3, 1); }, { "distance" });
    }

    // (batch - 1) * distance + n must not wrap around: a wrapped span would
    // let the checked execute accept a short buffer.
    void span_overflow()
    {
        const std::size_t big = std::numeric_limits<std::size_t>::max() / 4;
        expect_error("batch = SIZE_MAX / 4, n = 64", [&] { plan_problem(64, big, 0); },
                     { "batch" });
        expect_error("batch = 3, distance = SIZE_MAX / 2",
                     [&] { plan_problem(64, 3, std::numeric_limits<std::size_t>::max() / 2); },
                     { "batch" });
    }

    // Sizes no machine can hold are refused quickly, in a child process so a
    // hang or crash is reported instead of stopping the suite. With a 32-bit
    // size_t (armhf): 2^30 and 2^28 + 1 in place of 2^62 and 2^40 + 1.
    void huge_size()
    {
        constexpr unsigned bits = sizeof(std::size_t) * 8;
        for (std::size_t n : { std::numeric_limits<std::size_t>::max() / 2,
                               std::size_t(1) << (bits - 2),
                               (std::size_t(1) << (bits >= 64 ? 40 : 28)) + 1 }) {
            const std::string what = "n = " + std::to_string(n);
            const std::string verdict = in_child(10, n);
            CPPUNIT_ASSERT_MESSAGE(what + ": " + verdict, verdict.empty());
        }
    }

    void validate_names_field()
    {
        expect_error("validate n = 0", [] { gpufft::problem{ 0 }.validate(); }, { "size" });
        expect_error("validate batch = 0",
                     [] { gpufft::problem{ 8, direction::forward, 0 }.validate(); },
                     { "batch" });
        expect_error("validate distance = 5 < 8",
                     [] { gpufft::problem{ 8, direction::forward, 2, 5 }.validate(); },
                     { "distance" });
        gpufft::problem{ 8, direction::inverse, 2, 8 }.validate();
        gpufft::problem{ 8, direction::inverse, 2, 0 }.validate();
        CPPUNIT_ASSERT(!gpufft::problem{ 8 }.describe().empty());
    }

    // The message names the bad backend and lists the usable ones.
    void unknown_backend()
    {
        std::vector<std::string> words{ "backend", "nosuchfft" };
        for (const auto& b : gpufft::backends())
            if (b.usable)
                words.push_back(b.name);
        expect_error("backend \"nosuchfft\"",
                     [] { plan_with("nosuchfft"); },
                     words);
        expect_error("5-argument constructor, backend \"nosuchfft\"",
                     [] { gpufft::plan p(64, direction::forward, 1, 0, "nosuchfft"); },
                     { "nosuchfft" });
        // "" is not "auto": an unset name must not plan silently.
        expect_error("backend \"\"", [] { plan_with(""); }, { "unknown backend ''" });
    }

    void unknown_simd_variant()
    {
        expect_error("backend \"simd:nosuchisa\"",
                     [] { plan_with("simd:nosuchisa"); },
                     { "nosuchisa" });
    }

    // A backend that cannot run here refuses with its name, not a crash.
    void unusable_backends()
    {
        for (const auto& b : gpufft::backends()) {
            if (b.usable)
                continue;
            CPPUNIT_ASSERT_MESSAGE("backend " + b.name + " is unusable but gives no reason",
                                   !b.reason.empty());
            expect_error("unusable backend " + b.name,
                         [&] { plan_with(b.name); },
                         { b.name });
        }
    }

    void null_buffers()
    {
        gpufft::plan p(gpufft::problem{ 64, direction::forward, 3, 70 });
        const std::size_t span = p.problem().span();
        std::vector<cf> in(span), out(span);
        expect_error("null input", [&] { p.execute(nullptr, span, out.data(), span); },
                     { "buffer" });
        expect_error("null output", [&] { p.execute(in.data(), span, nullptr, span); },
                     { "buffer" });
        expect_error("null input and output", [&] { p.execute(nullptr, span, nullptr, span); },
                     { "buffer" });
    }

    void short_buffers()
    {
        gpufft::plan p(gpufft::problem{ 64, direction::forward, 3, 70 });
        const std::size_t span = p.problem().span();
        CPPUNIT_ASSERT_EQUAL(std::size_t(2 * 70 + 64), span);
        std::vector<cf> in(span), out(span);
        expect_error("input one short", [&] { p.execute(in.data(), span - 1, out.data(), span); },
                     { "buffer" });
        expect_error("output one short",
                     [&] { p.execute(in.data(), span, out.data(), span - 1); },
                     { "buffer" });
        expect_error("batch * n but not span",
                     [&] { p.execute(in.data(), 3 * 64, out.data(), 3 * 64); },
                     { "buffer" });
        expect_error("empty buffers", [&] { p.execute(in.data(), 0, out.data(), 0); },
                     { "buffer" });
    }

    void checked_execute_accepts_exact_span()
    {
        failures f;
        for (const auto& t : targets()) {
            gpufft::plan p(gpufft::problem{ 64, direction::forward, 3, 70 }, with_backend(t));
            const std::size_t span = p.problem().span();
            std::vector<cf> in(span + 5), out(span + 5);
            fill_random(in.data(), span, "checked execute " + t);
            p.execute(in.data(), span, out.data(), span);         // exact
            p.execute(in.data(), span + 5, out.data(), span + 5); // longer is fine
            p.execute(out.data(), span, out.data(), span);        // in place
            if (first_nonfinite(out.data(), span) != span)
                f.add(t + ": checked execute left a non-finite element");
        }
        QA_ASSERT_NO_FAILURES(f);
    }

    void error_is_invalid_argument()
    {
        try {
            plan_problem(0, 1, 0);
            CPPUNIT_FAIL("n = 0 did not throw");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT(std::string(e.what()).size() > 0);
        }
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_bad_input, "bad_input");

} // namespace qa
