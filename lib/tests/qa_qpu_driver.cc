// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu host-driver tests: both submission paths and their
 * timeouts on the emulator, and the release of GPU memory. */
#include "qa_qpu.h"
#include <cppunit/extensions/HelperMacros.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <poll.h>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

namespace qa {

using namespace qpu_fakes;
using std::chrono::milliseconds;

namespace {

/*
 * A program on `qpus` QPUs, one 16-float row each for the doubling program,
 * in one block of GPU memory: inputs at 0, outputs at 4 KB, code at 8 KB,
 * then uniforms and the program table (for execute_qpu).
 */
struct row_job {
    gpu_memory memory;
    std::vector<qpu_program> programs;
    std::uint32_t control_bus = 0;
    std::vector<float> input;

    row_job(host& h, unsigned qpus, const std::vector<std::uint64_t>& code)
        : memory(h.mb, *h.memory, 16384, h.info.mem_flags), input(16 * qpus)
    {
        std::mt19937 rng(qpus);
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        for (float& x : input)
            x = uniform(rng);
        std::uint8_t* mem = memory.host();
        const std::uint32_t bus = memory.bus();
        std::memcpy(mem, input.data(), 4 * input.size());
        const std::vector<float> poison(input.size(), std::nanf(""));
        std::memcpy(mem + 4096, poison.data(), 4 * poison.size());
        std::memcpy(mem + 8192, code.data(), 8 * code.size());
        std::uint32_t at = 12288;
        for (unsigned q = 0; q < qpus; ++q) {
            const auto u = doubling_uniforms({ { bus + 64 * q, bus + 4096 + 64 * q } });
            std::memcpy(mem + at, u.data(), 4 * u.size());
            programs.push_back({ bus + at, bus + 8192 });
            at += 4 * std::uint32_t(u.size());
        }
        control_bus = bus + at;
        std::memcpy(mem + at, programs.data(), sizeof(qpu_program) * programs.size());
    }

    //! Empty if every output is twice its input.
    std::string check() const
    {
        const float* out = reinterpret_cast<const float*>(memory.host() + 4096);
        for (std::size_t i = 0; i < input.size(); ++i)
            if (!(out[i] == 2 * input[i]))
                return "output " + std::to_string(i) + " is " + std::to_string(out[i]) + ", not " +
                       std::to_string(2 * input[i]);
        return {};
    }
};

double seconds_since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

class qa_qpu_submit : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_qpu_submit);
    CPPUNIT_TEST(direct_registers);
    CPPUNIT_TEST(mailbox_execute);
    CPPUNIT_TEST(direct_timeout);
    CPPUNIT_TEST(mailbox_timeout);
    CPPUNIT_TEST_SUITE_END();

public:
    void direct_registers()
    {
        fake_pi pi;
        auto h = pi.open(pi3_board());
        row_job job(*h, 12, doubling_program());
        run_direct(*h->v3d, job.programs, milliseconds(2000));
        CPPUNIT_ASSERT_EQUAL(std::string(), job.check());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(12), pi.gpu.host_interrupts());
        CPPUNIT_ASSERT_EQUAL(12u, pi.v3d->writes[v3d::SRQPC]);
        CPPUNIT_ASSERT_EQUAL(12u, pi.v3d->writes[v3d::SRQUA]);
        CPPUNIT_ASSERT_EQUAL(0u, pi.mb->execute_calls.load());
        CPPUNIT_ASSERT_EQUAL(std::string(), pi.v3d->last_run_message);
        // Again on the same registers: the completed count starts over.
        row_job again(*h, 8, doubling_program());
        run_direct(*h->v3d, again.programs, milliseconds(2000));
        CPPUNIT_ASSERT_EQUAL(std::string(), again.check());
    }

    void mailbox_execute()
    {
        fake_pi pi;
        auto h = pi.open(pi3_board());
        row_job job(*h, 8, doubling_program());
        run_by_mailbox(*h->mb, 8, job.control_bus, milliseconds(2000));
        CPPUNIT_ASSERT_EQUAL(std::string(), job.check());
        CPPUNIT_ASSERT_EQUAL(1u, pi.mb->execute_calls.load());
        CPPUNIT_ASSERT_EQUAL(0u, pi.v3d->writes[v3d::SRQPC]);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(8), pi.gpu.host_interrupts());
        CPPUNIT_ASSERT_EQUAL(0u, pi.mb->protocol_errors.load());
    }

    void direct_timeout()
    {
        fake_pi pi;
        auto h = pi.open(pi3_board());
        pi.v3d->cycles_per_poll = 100;
        row_job job(*h, 1, endless_program());
        const auto start = std::chrono::steady_clock::now();
        expect_error("endless program, direct",
                     [&] { run_direct(*h->v3d, job.programs, milliseconds(100)); },
                     { "0 of 1", "within 100 ms" });
        const double s = seconds_since(start);
        CPPUNIT_ASSERT_MESSAGE("gave up after " + std::to_string(s) + " s", s >= 0.1 && s < 10);
    }

    void mailbox_timeout()
    {
        fake_pi pi;
        auto h = pi.open(pi3_board());
        pi.mb->execute_cycle_budget = 100000;
        row_job job(*h, 1, endless_program());
        expect_error("endless program, mailbox",
                     [&] { run_by_mailbox(*h->mb, 1, job.control_bus, milliseconds(100)); },
                     { "execute_qpu timed out", "100 ms" });
        expect_words("emulator's stop", pi.mb->last_run_message, { "cycle" });
    }
};

class qa_qpu_memory : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_qpu_memory);
    CPPUNIT_TEST(released_on_destruction);
    CPPUNIT_TEST(failed_allocation_leaves_nothing);
    CPPUNIT_TEST(released_once_by_release_all);
    CPPUNIT_TEST_SUITE_END();

public:
    void released_on_destruction()
    {
        fake_pi pi;
        auto h = pi.open(pi3_board());
        {
            gpu_memory a(h->mb, *h->memory, 8192, h->info.mem_flags);
            gpu_memory b(h->mb, *h->memory, 4096, h->info.mem_flags);
            CPPUNIT_ASSERT_EQUAL(2u, pi.mb->live_handles());
            CPPUNIT_ASSERT_EQUAL(2u, pi.mb->locked_handles());
            CPPUNIT_ASSERT(a.live() && b.live());
            // Locked through the uncached alias the board asks for.
            CPPUNIT_ASSERT_EQUAL(0xc0000000u, a.bus() & 0xc0000000u);
            CPPUNIT_ASSERT(a.host() == pi.gpu.memory(a.bus(), 8192));
        }
        CPPUNIT_ASSERT_EQUAL(0u, pi.mb->live_handles());
        CPPUNIT_ASSERT_EQUAL(2u, pi.mapper->unmapped);
        CPPUNIT_ASSERT_EQUAL(0u, pi.mb->unknown_handles.load());
    }

    void failed_allocation_leaves_nothing()
    {
        fake_pi pi;
        auto h = pi.open(pi3_board());
        expect_error("more than the GPU has",
                     [&] { gpu_memory m(h->mb, *h->memory, 128u << 20, h->info.mem_flags); },
                     { "could not allocate", "gpu_mem" });
        CPPUNIT_ASSERT_EQUAL(0u, pi.mb->live_handles());
        gpu_memory after(h->mb, *h->memory, 4096, h->info.mem_flags);
        CPPUNIT_ASSERT(after.live());
    }

    void released_once_by_release_all()
    {
        fake_pi pi;
        auto h = pi.open(pi3_board());
        {
            gpu_memory a(h->mb, *h->memory, 4096, h->info.mem_flags);
            release_all_gpu_memory();
            CPPUNIT_ASSERT(!a.live());
            CPPUNIT_ASSERT_EQUAL(0u, pi.mb->live_handles());
        }
        CPPUNIT_ASSERT_EQUAL(0u, pi.mb->unknown_handles.load());
    }
};

/*
 * Release on a signal or exit: a child process allocates two blocks through
 * a fake mailbox that writes every call to a pipe, then waits to be killed
 * (or calls exit() with the blocks still allocated, or raises a signal it
 * ignores and reports whether its blocks are still held). Its
 * handlers are installed by its first allocation, so this suite must run in
 * a process that has allocated nothing (ctest runs it alone).
 */
class qa_qpu_signal : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_qpu_signal);
    CPPUNIT_TEST(sigterm_default_action);
    CPPUNIT_TEST(sigint_default_action);
    CPPUNIT_TEST(sigterm_chains_to_previous_handler);
    CPPUNIT_TEST(ignored_sighup_keeps_the_memory);
    CPPUNIT_TEST(exit_without_destruction);
    CPPUNIT_TEST_SUITE_END();

    static int s_pipe;
    static void previous_handler(int)
    {
        const char line[] = "previous handler\n";
        if (::write(s_pipe, line, sizeof line - 1) < 0)
            _exit(4);
        _exit(3);
    }

    struct outcome {
        std::string lines;
        int status = 0;
    };

    // Reads what is there within `ms`; false at end of file or timeout.
    static bool read_some(int fd, std::string& into, int ms)
    {
        pollfd p{ fd, POLLIN, 0 };
        if (::poll(&p, 1, ms) <= 0)
            return false;
        char buf[256];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0)
            return false;
        into.append(buf, std::size_t(n));
        return true;
    }

    //! What the child's disposition of `sig` is before it allocates.
    enum class before { default_action, handler, ignored };

    // sig 0: the child calls exit() instead of waiting for a signal. An
    // ignored sig the child raises itself, then writes "held" or "released".
    static outcome run_child(int sig, before disposition)
    {
        struct sigaction now;
        sigaction(sig ? sig : SIGTERM, nullptr, &now);
        CPPUNIT_ASSERT_MESSAGE("a signal handler is already installed: run this suite alone "
                               "(qa_qpu_host qpu_signal)",
                               !(now.sa_flags & SA_SIGINFO));
        int fds[2];
        CPPUNIT_ASSERT_EQUAL(0, ::pipe(fds));
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        CPPUNIT_ASSERT(pid >= 0);
        if (pid == 0) {
            ::close(fds[0]);
            s_pipe = fds[1];
            // Set even the default: a shell starts background jobs with SIGINT ignored.
            if (sig)
                std::signal(sig, disposition == before::handler   ? previous_handler
                                 : disposition == before::ignored ? SIG_IGN
                                                                  : SIG_DFL);
            ::qpu::emu::config c;
            c.memory_bytes = 1u << 20;
            ::qpu::emu::emulator gpu(c);
            auto mb = std::make_shared<fake_mailbox>(&gpu, fds[1]);
            emulator_mapper mapper(gpu);
            gpu_memory a(mb, mapper, 8192, mem_flag::direct);
            gpu_memory b(mb, mapper, 4096, mem_flag::direct);
            const char ready[] = "ready\n";
            if (::write(fds[1], ready, sizeof ready - 1) < 0)
                _exit(5);
            if (sig == 0)
                std::exit(0); // leaves a and b undestroyed
            if (disposition == before::ignored) {
                ::raise(sig);
                const char held[] = "held\n", released[] = "released\n";
                const bool live = a.live() && b.live();
                if (::write(fds[1], live ? held : released, live ? sizeof held - 1 : sizeof released - 1) < 0)
                    _exit(5);
                _exit(0);
            }
            for (;;)
                ::pause();
        }
        ::close(fds[1]);
        outcome o;
        while (o.lines.find("ready\n") == std::string::npos && read_some(fds[0], o.lines, 10000)) {
        }
        if (sig && disposition != before::ignored)
            ::kill(pid, sig);
        while (read_some(fds[0], o.lines, 10000)) {
        }
        ::close(fds[0]);
        for (int i = 0; i < 1000 && ::waitpid(pid, &o.status, WNOHANG) == 0; ++i)
            ::usleep(10000);
        if (::waitpid(pid, &o.status, WNOHANG) == 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &o.status, 0);
            CPPUNIT_FAIL("the child did not end on its signal; it wrote:\n" + o.lines);
        }
        return o;
    }

    static void expect_released(const outcome& o)
    {
        const std::string after_ready = o.lines.substr(o.lines.find("ready\n") + 6);
        for (const char* want : { "unlock 0x00000001\n", "release 0x00000001\n",
                                  "unlock 0x00000002\n", "release 0x00000002\n" })
            CPPUNIT_ASSERT_MESSAGE(std::string("no \"") + want + "\" after the signal; the child wrote:\n" +
                                       o.lines,
                                   after_ready.find(want) != std::string::npos);
        CPPUNIT_ASSERT_MESSAGE("the child allocated other than twice:\n" + o.lines,
                               o.lines.find("alloc 0x00000002\n") < o.lines.find("ready") &&
                                   o.lines.find("alloc 0x00000003") == std::string::npos);
    }

    static void expect_killed_by(int sig)
    {
        const outcome o = run_child(sig, before::default_action);
        expect_released(o);
        CPPUNIT_ASSERT_MESSAGE("the child did not die of its signal (status " + std::to_string(o.status) + ")",
                               WIFSIGNALED(o.status) && WTERMSIG(o.status) == sig);
    }

public:
    void sigterm_default_action() { expect_killed_by(SIGTERM); }
    void sigint_default_action() { expect_killed_by(SIGINT); }

    void sigterm_chains_to_previous_handler()
    {
        const outcome o = run_child(SIGTERM, before::handler);
        expect_released(o);
        CPPUNIT_ASSERT_MESSAGE("the previous handler did not run after the release:\n" + o.lines,
                               o.lines.find("previous handler") != std::string::npos &&
                                   o.lines.find("previous handler") > o.lines.find("release 0x00000002"));
        CPPUNIT_ASSERT(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 3);
    }

    void ignored_sighup_keeps_the_memory()
    {
        // Under nohup SIGHUP is ignored: the process goes on, and so must its plans.
        const outcome o = run_child(SIGHUP, before::ignored);
        const std::string after_ready = o.lines.substr(o.lines.find("ready\n") + 6);
        CPPUNIT_ASSERT_MESSAGE("an ignored SIGHUP released GPU memory; the child wrote:\n" + o.lines,
                               after_ready == "held\n");
        CPPUNIT_ASSERT(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0);
    }

    void exit_without_destruction()
    {
        const outcome o = run_child(0, before::default_action);
        expect_released(o);
        CPPUNIT_ASSERT(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0);
    }
};

int qa_qpu_signal::s_pipe = -1;

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_qpu_submit, "qpu_submit");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_qpu_memory, "qpu_memory");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_qpu_signal, "qpu_signal");

} // namespace qa
