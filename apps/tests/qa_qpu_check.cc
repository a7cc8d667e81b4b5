// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench --qpu-check over the fake Pi of lib/tests/qpu_fakes.h (the
 * qpu backend's driver on fake firmware and V3D registers backed by the QPU
 * emulator): the report, its system lines, a failing size, and the one-line
 * refusal on a machine without a V3D. Small sizes only: the path is the
 * same at every size and the emulator is slow. */
#include "bench/qpu_check.h"
#include "qpu_fakes.h"
#include "qpu_backend.h"

#include <gpufft/error.h>
#include <gpufft/plan.h>

#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cstdio>
#include <memory>
#include <string>

namespace {

using namespace gpufft::bench;
using qa::qpu_fakes::fake_files;

//! A Pi 3's files, as the report reads them, and its vcgencmd.
struct fake_pi_system {
    fake_files files = qa::qpu_fakes::pi_files("pi3");
    bool has_vcgencmd = true;

    fake_pi_system()
    {
        files.contents["/proc/cpuinfo"] = "processor\t: 0\nmodel name\t: ARMv7 Processor rev 4 (v7l)\n"
                                          "Hardware\t: BCM2835\nRevision\t: a02082\nModel\t: Raspberry Pi 3\n";
        files.contents["/proc/version"] = "Linux version 6.1.21-v7+ (dom@buildbot) #1642 SMP\n";
        files.contents["/boot/config.txt"] = "# comment\ngpu_mem=128\ndtparam=audio=on\n";
    }

    pi_facts facts() const
    {
        pi_facts f;
        f.read_file = [this](const std::string& path) { return files.read(path); };
        f.vcgencmd = [this](const std::string& args) -> std::optional<std::string> {
            if (!has_vcgencmd)
                return std::nullopt;
            if (args == "version")
                return "Mar 17 2023 10:52:42 \nCopyright (c) 2012 Broadcom\nversion 82f1d6 (clean) (release) (start)\n";
            if (args == "get_mem gpu")
                return "gpu=128M\n";
            if (args == "get_mem arm")
                return "arm=896M\n";
            return std::nullopt;
        };
        return f;
    }
};

//! The qpu backend over an emulated Pi, and the library's simd backend.
struct emulated_engines {
    qa::qpu_fakes::fake_pi pi;
    std::unique_ptr<gpufft::backend> backend;
    qpu_check_engines engines;

    explicit emulated_engines(const fake_files& probe_files)
    {
        gpufft::qpu::backend_config c;
        c.probe = [probe_files] { return gpufft::qpu::probe_board(probe_files); };
        c.open = [this](const gpufft::qpu::board& b) {
            auto h = pi.open(b);
            pi.mb->execute_cycle_budget = std::uint64_t(1) << 40;
            return h;
        };
        c.shaders = gpufft::qpu::fft_shaders();
        c.timeout = std::chrono::minutes(10); // the emulator, on a loaded machine
        backend = gpufft::qpu::make_qpu_backend(std::move(c));
        engines.qpu = backend->probe();
        engines.reference = "simd";
        engines.make_qpu = [this](const gpufft::problem& p) -> transform {
            std::shared_ptr<gpufft::executor> e = backend->make_executor(p, "", gpufft::plan_options{});
            return [e](const gpufft::complex* in, gpufft::complex* out) { e->execute(in, out); };
        };
        engines.make_reference = [](const gpufft::problem& p) -> transform {
            gpufft::plan_options o;
            o.backend = "simd";
            auto pl = std::make_shared<gpufft::plan>(p, o);
            return [pl](const gpufft::complex* in, gpufft::complex* out) { pl->execute(in, out); };
        };
    }
};

//! What qpu_check wrote to its two streams, and its status.
struct outcome {
    int status;
    std::string out, err;
};

std::string contents(std::FILE* f)
{
    std::rewind(f);
    std::string s;
    char buf[512];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0)
        s.append(buf, got);
    std::fclose(f);
    return s;
}

outcome run(const qpu_check_engines& engines, const pi_facts& facts, const qpu_check_config& config)
{
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    CPPUNIT_ASSERT(out && err);
    const int status = qpu_check(engines, facts, config, out, err);
    return { status, contents(out), contents(err) };
}

qpu_check_config small_config()
{
    qpu_check_config c;
    c.from_log2 = 8;
    c.to_log2 = 9;
    c.batches = { 1, 3 };
    c.repeats = 1;
    return c;
}

void expect_in(const std::string& text, const std::string& part)
{
    CPPUNIT_ASSERT_MESSAGE("\"" + part + "\" not in:\n" + text, text.find(part) != std::string::npos);
}

} // namespace

class qa_qpu_check : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_qpu_check);
    CPPUNIT_TEST(report_on_an_emulated_pi);
    CPPUNIT_TEST(system_lines_without_vcgencmd);
    CPPUNIT_TEST(wrong_results_fail);
    CPPUNIT_TEST(no_v3d_one_line);
    CPPUNIT_TEST_SUITE_END();

public:
    void report_on_an_emulated_pi()
    {
        fake_pi_system sys;
        emulated_engines e(sys.files);
        CPPUNIT_ASSERT_MESSAGE(e.engines.qpu.reason, e.engines.qpu.usable);
        const outcome o = run(e.engines, sys.facts(), small_config());
        CPPUNIT_ASSERT_EQUAL_MESSAGE(o.out + o.err, 0, o.status);
        CPPUNIT_ASSERT_EQUAL(std::string(), o.err);
        expect_in(o.out, "board:      Raspberry Pi 3 Model B Rev 1.2, revision a02082, BCM2835\n");
        expect_in(o.out, "firmware:   Mar 17 2023 10:52:42; Copyright (c) 2012 Broadcom; version 82f1d6 (clean)");
        expect_in(o.out, "memory:     gpu=128M arm=896M\n");
        expect_in(o.out, "config.txt: gpu_mem=128\n");
        expect_in(o.out, "kernel:     Linux version 6.1.21-v7+");
        expect_in(o.out, "qpu:        usable, paths direct, mailbox\n");
        for (const char* row : { "     8     1 ", "     8     3 ", "     9     1 ", "     9     3 " })
            expect_in(o.out, row);
        expect_in(o.out, "4 of 4 passed.");
        CPPUNIT_ASSERT(o.out.find("FAILED") == std::string::npos);
    }

    void system_lines_without_vcgencmd()
    {
        fake_pi_system sys;
        sys.has_vcgencmd = false;
        sys.files.contents.erase("/proc/device-tree/model");
        sys.files.contents.erase("/boot/config.txt");
        sys.files.contents["/boot/firmware/config.txt"] = "dtoverlay=vc4-kms-v3d\n";
        const std::string text = describe_system(sys.facts());
        expect_in(text, "board:      Raspberry Pi 3, revision a02082, BCM2835\n"); // cpuinfo's Model
        expect_in(text, "firmware:   unknown (vcgencmd not found or failed;");
        expect_in(text, "memory:     gpu unknown (vcgencmd not found or failed)\n");
        expect_in(text, "config.txt: dtoverlay=vc4-kms-v3d\n");
        const std::string bare = describe_system(pi_facts{
            [](const std::string&) { return std::optional<std::string>(); },
            [](const std::string&) { return std::optional<std::string>(); } });
        expect_in(bare, "board:      unknown (no /proc/device-tree/model)\n");
        expect_in(bare, "config.txt: not found\n");
        expect_in(bare, "kernel:     unknown\n");
    }

    // A qpu result off by more than rounding, and a plan that throws: the
    // size fails, the others still run, the status is 1.
    void wrong_results_fail()
    {
        fake_pi_system sys;
        emulated_engines e(sys.files);
        qpu_check_engines broken = e.engines;
        broken.make_qpu = [&e](const gpufft::problem& p) -> transform {
            if (p.batch == 3)
                throw gpufft::error("no GPU memory for this batch");
            transform good = e.engines.make_qpu(p);
            return [good](const gpufft::complex* in, gpufft::complex* out) {
                good(in, out);
                out[7] *= 1.001f;
            };
        };
        qpu_check_config c = small_config();
        c.to_log2 = 8;
        const outcome o = run(broken, sys.facts(), c);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(o.out, 1, o.status);
        expect_in(o.out, "FAILED: qpu error too large");
        expect_in(o.out, "FAILED: no GPU memory for this batch");
        expect_in(o.out, "0 of 2 passed.");
    }

    void no_v3d_one_line()
    {
        fake_pi_system sys;
        emulated_engines e(fake_files{}); // a PC: no device tree
        CPPUNIT_ASSERT(!e.engines.qpu.usable);
        const outcome o = run(e.engines, sys.facts(), small_config());
        CPPUNIT_ASSERT_EQUAL(3, o.status);
        CPPUNIT_ASSERT_EQUAL(std::string(), o.out);
        CPPUNIT_ASSERT_EQUAL(
            std::string("gpufft-bench: --qpu-check: no usable VideoCore IV V3D here: not a Raspberry Pi (no "
                        "device-tree model)\n"),
            o.err);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_qpu_check);

int main()
{
    CppUnit::TextTestRunner runner;
    runner.addTest(CppUnit::TestFactoryRegistry::getRegistry().makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
