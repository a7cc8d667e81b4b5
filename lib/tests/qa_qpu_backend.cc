// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend tests: the executor's whole path (GPU memory
 * layout, copies, launches, both submission paths) over the emulated Pi,
 * with a test shader that doubles its input in place of an FFT. */
#include "qa_common.h"
#include "qa_qpu.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cstring>

namespace qa {

using namespace qpu_fakes;
using gpufft::direction;

namespace {

// Twiddle words the test shader's table holds, per direction, so the test
// can find them where the layout says.
std::vector<std::uint32_t> test_twiddles(direction d)
{
    return { 0x7717d1e5, d == direction::forward ? 1u : 2u, 0xfeedf00d };
}

/*
 * The doubling program as a shader of 2^log2n points: QPU q doubles rows
 * q, q + qpus, ... (16 floats each) of every job, from input[j] to output[j]
 * or, with result_in_output false, back into input[j].
 */
fft_shader doubling_shader(unsigned log2n, bool result_in_output, std::uint32_t* seen_twiddles)
{
    fft_shader s;
    s.log2n = log2n;
    s.qpus = 8;
    s.code = doubling_program();
    s.twiddles = test_twiddles;
    s.result_in_output = result_in_output;
    s.describe = "doubling test shader";
    s.uniforms = [=](const launch_layout& l, unsigned q) {
        *seen_twiddles = l.twiddles;
        const std::uint32_t rows = (2u << log2n) / 16;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
        for (std::size_t j = 0; j < l.input.size(); ++j)
            for (std::uint32_t r = q; r < rows; r += l.qpus)
                pairs.push_back({ l.input[j] + 64 * r, (result_in_output ? l.output[j] : l.input[j]) + 64 * r });
        return doubling_uniforms(pairs);
    };
    return s;
}

struct emulated_backend {
    fake_pi pi;
    std::uint32_t twiddles_bus = 0;
    std::unique_ptr<gpufft::backend> backend;

    explicit emulated_backend(const std::function<void(backend_config&)>& adjust = {})
    {
        backend_config c;
        c.probe = [] { return probe_board(pi_files("pi3")); };
        c.open = [this](const board& b) { return pi.open(b); };
        for (unsigned log2n : { 8, 9, 10 })
            c.shaders.push_back(doubling_shader(log2n, log2n != 10, &twiddles_bus));
        c.timeout = std::chrono::milliseconds(10000);
        if (adjust)
            adjust(c);
        backend = make_qpu_backend(std::move(c));
    }

    std::unique_ptr<gpufft::executor> plan(const gpufft::problem& p, const std::string& variant = "")
    {
        return backend->make_executor(p, variant, gpufft::plan_options{});
    }
};

struct path_case {
    std::size_t n, batch, distance;
    bool in_place;
    std::string variant;
    std::size_t launch_bytes; // 0: the default
};

} // namespace

class qa_qpu_backend : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_qpu_backend);
    CPPUNIT_TEST(probe_and_errors);
    CPPUNIT_TEST(data_paths);
    CPPUNIT_TEST(automatic_submission);
    CPPUNIT_TEST(plans_release_their_memory);
    CPPUNIT_TEST(hung_launch);
    CPPUNIT_TEST_SUITE_END();

public:
    void probe_and_errors()
    {
        emulated_backend e;
        const gpufft::availability a = e.backend->probe();
        CPPUNIT_ASSERT_MESSAGE(a.reason, a.usable);
        CPPUNIT_ASSERT_EQUAL(std::string("qpu"), e.backend->name());
        for (std::size_t n : { std::size_t(1000), std::size_t(128), std::size_t(1) << 21 })
            expect_error("size " + std::to_string(n),
                         [&] { e.plan(gpufft::problem{ n }); },
                         { "no shader for size " + std::to_string(n), "2^8 (256) to 2^10 (1024)" });
        expect_error("unknown variant", [&] { e.plan(gpufft::problem{ 256 }, "fast"); },
                     { "'fast'", "direct", "mailbox" });

        emulated_backend none([](backend_config& c) { c.shaders.clear(); });
        CPPUNIT_ASSERT_EQUAL(std::string("built without FFT shaders"), none.backend->probe().reason);
        expect_error("no shaders", [&] { none.plan(gpufft::problem{ 256 }); }, { "without FFT shaders" });

        emulated_backend pc([](backend_config& c) { c.probe = [] { return probe_board(fake_files{}); }; });
        CPPUNIT_ASSERT(!pc.backend->probe().usable);
        expect_error("not a Pi", [&] { pc.plan(gpufft::problem{ 256 }); }, { "not usable", "not a Raspberry Pi" });
    }

    void data_paths()
    {
        const path_case cases[] = {
            { 256, 1, 0, false, "", 0 },
            { 256, 3, 0, false, "mailbox", 0 },
            { 512, 3, 600, false, "direct", 0 },         // guard pages between buffers
            { 1024, 5, 0, true, "direct", 3 * 16384 },   // launches of 2, 2, then 1; result in input
            { 512, 4, 515, true, "mailbox", 2 * 12288 }, // launches of 1
        };
        failures f;
        for (const path_case& c : cases)
            for (direction dir : { direction::forward, direction::inverse }) {
                emulated_backend e([&](backend_config& cfg) {
                    if (c.launch_bytes)
                        cfg.launch_data_bytes = c.launch_bytes;
                });
                const gpufft::problem p{ c.n, dir, c.batch, c.distance };
                const std::string name = case_name("qpu:" + c.variant, c.n, dir, c.batch, c.distance, c.in_place);
                try {
                    auto exec = e.plan(p, c.variant);
                    check_doubled(f, name, p, *exec, c.in_place);
                    check_twiddles(f, name, e, dir);
                    const std::size_t jobs = c.launch_bytes ? c.launch_bytes / (2 * (((8 * c.n) | 4095) + 1)) : c.batch;
                    const unsigned launches = unsigned((c.batch + jobs - 1) / jobs);
                    const unsigned direct = c.variant == "mailbox" ? 0 : 8 * launches;
                    if (e.pi.v3d->writes[v3d::SRQPC] != direct || e.pi.mb->execute_calls != (direct ? 0 : launches))
                        f.add(name + ": " + std::to_string(e.pi.v3d->writes[v3d::SRQPC]) + " SRQPC writes and " +
                              std::to_string(e.pi.mb->execute_calls) + " execute_qpu calls, want " +
                              std::to_string(launches) + " launches");
                } catch (const std::exception& ex) {
                    f.add(name + ": " + ex.what());
                }
            }
        f.report("qpu data paths");
        QA_ASSERT_NO_FAILURES(f);
    }

    void automatic_submission()
    {
        // GPU_FFT's rule: short launches poll the registers, long ones go through the firmware.
        emulated_backend e([](backend_config& c) { c.direct_max_points = 1024; });
        auto small = e.plan(gpufft::problem{ 256, direction::forward, 4 });
        auto big = e.plan(gpufft::problem{ 256, direction::forward, 5 });
        expect_words("small describe", small->describe(), { "doubling test shader", "8 QPUs", "direct" });
        expect_words("big describe", big->describe(), { "mailbox" });
        failures f;
        check_doubled(f, "small", gpufft::problem{ 256, direction::forward, 4 }, *small, false);
        CPPUNIT_ASSERT_EQUAL(8u, e.pi.v3d->writes[v3d::SRQPC]);
        check_doubled(f, "big", gpufft::problem{ 256, direction::forward, 5 }, *big, false);
        CPPUNIT_ASSERT_EQUAL(1u, e.pi.mb->execute_calls.load());
        QA_ASSERT_NO_FAILURES(f);
    }

    void plans_release_their_memory()
    {
        emulated_backend e;
        auto one = e.plan(gpufft::problem{ 256 });
        auto two = e.plan(gpufft::problem{ 512, direction::inverse, 2 });
        const auto& mb = e.pi.mb; // both plans share one host
        CPPUNIT_ASSERT_EQUAL(2u, mb->live_handles());
        CPPUNIT_ASSERT(mb->qpus_enabled);
        one.reset();
        CPPUNIT_ASSERT_EQUAL(1u, mb->live_handles());
        // After a signal handler released everything, the plan refuses to run.
        release_all_gpu_memory();
        std::vector<cf> data(1024);
        expect_error("after release", [&] { two->execute(data.data(), data.data()); }, { "released", "new plan" });
        two.reset();
        CPPUNIT_ASSERT_EQUAL(0u, mb->unknown_handles.load());
        CPPUNIT_ASSERT_EQUAL(0u, mb->live_handles());
    }

    void hung_launch()
    {
        // A shader that never ends: the launch times out, and the plan
        // refuses to launch again on QPUs that may still be running.
        for (const char* variant : { "direct", "mailbox" }) {
            emulated_backend e([](backend_config& c) {
                c.shaders[0].code = endless_program();
                c.timeout = std::chrono::milliseconds(200);
            });
            auto exec = e.plan(gpufft::problem{ 256 }, variant); // opens the emulated Pi
            e.pi.v3d->cycles_per_poll = 1000;
            e.pi.mb->execute_cycle_budget = 100000;
            std::vector<cf> data(256);
            expect_error(std::string(variant) + " timeout", [&] { exec->execute(data.data(), data.data()); },
                         { "200 ms" });
            expect_error(std::string(variant) + " after the timeout",
                         [&] { exec->execute(data.data(), data.data()); }, { "did not finish", "reboot" });
        }
    }

private:
    // Every transform's output is twice its input; gaps and (out of place) the input are untouched.
    static void check_doubled(failures& f, const std::string& name, const gpufft::problem& p,
                              gpufft::executor& exec, bool in_place)
    {
        const std::size_t span = p.span();
        std::vector<cf> in(span), out(span);
        for (std::size_t i = 0; i < span; ++i)
            in[i] = sentinel(i);
        for (std::size_t b = 0; b < p.batch; ++b)
            fill_random(in.data() + b * p.stride(), p.n, name + " " + std::to_string(b));
        const std::vector<cf> original = in;
        if (in_place)
            out = in;
        else
            poison(out.data(), span);
        const std::vector<cf> before = out;
        exec.execute(in_place ? out.data() : in.data(), out.data());
        for (std::size_t i = 0; i < span; ++i) {
            // Gaps keep their sentinel (in place) or NaN poison, bit for bit.
            const bool gap = i % p.stride() >= p.n;
            const bool right = gap ? std::memcmp(&out[i], &before[i], sizeof(cf)) == 0
                                   : out[i] == 2.0f * original[i];
            if (!right || (!in_place && !(in[i] == original[i]))) {
                f.add(name + ": element " + std::to_string(i) + (gap ? " (gap)" : "") + " wrong");
                return;
            }
            f.checked();
        }
    }

    static void check_twiddles(failures& f, const std::string& name, emulated_backend& e, direction dir)
    {
        const auto want = test_twiddles(dir);
        for (std::size_t k = 0; k < want.size(); ++k)
            if (e.pi.gpu.read_word(e.twiddles_bus + 4 * std::uint32_t(k)) != want[k])
                f.add(name + ": twiddle word " + std::to_string(k) + " not where the layout says");
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_qpu_backend, "qpu_backend");

} // namespace qa
