// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft GNU Radio blocks, C++ suite: flowgraphs built in C++ check
 * gpufft::fft_vcc against gr::fft::fft_vcc and a double-precision DFT,
 * spectrum_c against a double-precision spectrum, iq_replay_source against
 * the bytes it replays, and every bad parameter's exception.
 *
 *   qa_blocks                 every suite
 *   qa_blocks SUITE...        fft_vcc, spectrum_c, iq_replay_source, bad_params
 *
 * GPUFFT_TEST_SEED reproduces a run's random data (the seed is printed).
 */
#include "qa_common.h"

#include <gnuradio/blocks/head.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/fft/fft_v.h>
#include <gnuradio/fft/window.h>
#include <gnuradio/top_block.h>
#include <gpufft/demo_signal.h>
#include <gpufft/gnuradio/fft_vcc.h>
#include <gpufft/gnuradio/fft_vfc.h>
#include <gpufft/gnuradio/iq_replay_source.h>
#include <gpufft/gnuradio/spectrum_c.h>
#include <gpufft/spectrum.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <fftw3.h>
#include <atomic>
#include <sys/stat.h>
#include <thread>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using qa::cd;
using qa::cf;

//! FFTW double of one size and direction: the reference.
class dft_double
{
public:
    dft_double(std::size_t n, bool forward) : d_n(n)
    {
        d_buf = static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * n));
        d_plan = fftw_plan_dft_1d(int(n), d_buf, d_buf, forward ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
    }
    ~dft_double()
    {
        fftw_destroy_plan(d_plan);
        fftw_free(d_buf);
    }
    dft_double(const dft_double&) = delete;
    dft_double& operator=(const dft_double&) = delete;

    void run(const cd* in, cd* out)
    {
        // std::complex<double> and fftw_complex share their layout.
        std::copy(in, in + d_n, reinterpret_cast<cd*>(d_buf));
        fftw_execute(d_plan);
        std::copy(reinterpret_cast<const cd*>(d_buf), reinterpret_cast<const cd*>(d_buf) + d_n, out);
    }

private:
    std::size_t d_n;
    fftw_complex* d_buf;
    fftw_plan d_plan;
};

//! Runs fn; it must throw std::invalid_argument whose message contains `word`.
void expect_invalid(const std::string& what, const std::string& word, const std::function<void()>& fn)
{
    try {
        fn();
    } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT_MESSAGE(what + ": the message \"" + e.what() + "\" does not name " + word,
                               std::string(e.what()).find(word) != std::string::npos);
        return;
    } catch (const std::exception& e) {
        CPPUNIT_FAIL(what + ": threw another exception than std::invalid_argument: " + e.what());
    }
    CPPUNIT_FAIL(what + ": did not throw");
}

// ------------------------------------------------------------------ fft_vcc

/*!
 * What gr::fft::fft_vcc computes, in double: window, ifftshift of the input
 * (inverse with shift), DFT, fftshift of the output (forward with shift).
 */
void fft_reference(dft_double& dft,
                   const cf* x,
                   std::size_t n,
                   bool forward,
                   const std::vector<float>& window,
                   bool shift,
                   cd* out)
{
    std::vector<cd> in(n), y(n);
    for (std::size_t j = 0; j < n; ++j) {
        const std::size_t src = !forward && shift ? (j + n / 2) % n : j;
        in[j] = cd(x[src]) * (window.empty() ? 1.0 : double(window[src]));
    }
    dft.run(in.data(), y.data());
    for (std::size_t j = 0; j < n; ++j)
        out[j] = forward && shift ? y[(j + (n + 1) / 2) % n] : y[j];
}

class qa_fft_vcc : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_fft_vcc);
    CPPUNIT_TEST(against_gr_fft);
    CPPUNIT_TEST(work_writes_every_output);
    CPPUNIT_TEST(tags_pass_through);
    CPPUNIT_TEST(batch_within_buffer);
    CPPUNIT_TEST(window_types);
    CPPUNIT_TEST_SUITE_END();

public:
    /*!
     * One flowgraph per case: a vector source feeds gpufft::fft_vcc and
     * gr::fft::fft_vcc side by side. Ours must be within twice gr-fft's
     * error against FFTW double over the whole run, and every vector within
     * transform_cap times gr-fft's (see qa_common.h).
     */
    void against_gr_fft()
    {
        qa::failures f;
        for (std::size_t n : { 1, 2, 5, 16, 100, 256, 1000, 1024, 4096, 65536 })
            for (bool forward : { true, false })
                for (bool shift : { false, true })
                    for (bool windowed : { false, true }) {
                        if (windowed && n == 1)
                            continue; // gr::fft::window gives NaN for one tap
                        const std::string name = "n=" + std::to_string(n) + (forward ? " forward" : " inverse") +
                                                 (shift ? " shift" : "") + (windowed ? " window" : "");
                        // Enough points for the RMS criterion, and an odd count
                        // of vectors so that batches and the rest both run.
                        const std::size_t vectors = std::max<std::size_t>(3, qa::min_points / n) | 1;
                        std::vector<cf> x(vectors * n);
                        qa::fill_random(x.data(), x.size(), name);
                        const auto window = windowed ? gr::fft::window::blackmanharris(int(n)) : std::vector<float>();

                        auto tb = gr::make_top_block("qa_fft_vcc");
                        auto src = gr::blocks::vector_source_c::make(x, false, unsigned(n));
                        auto ours = gr::gpufft::fft_vcc::make(int(n), forward, window, shift, 1, "auto", 16);
                        gr::basic_block_sptr stock;
                        if (forward)
                            stock = gr::fft::fft_v<gr_complex, true>::make(int(n), window, shift, 1);
                        else
                            stock = gr::fft::fft_v<gr_complex, false>::make(int(n), window, shift, 1);
                        auto sink_ours = gr::blocks::vector_sink_c::make(unsigned(n));
                        auto sink_stock = gr::blocks::vector_sink_c::make(unsigned(n));
                        tb->connect(src, 0, ours, 0);
                        tb->connect(ours, 0, sink_ours, 0);
                        tb->connect(src, 0, stock, 0);
                        tb->connect(stock, 0, sink_stock, 0);
                        tb->run();

                        const auto& got = sink_ours->data();
                        const auto& yard = sink_stock->data();
                        if (got.size() != x.size() || yard.size() != x.size()) {
                            f.add(name + ": " + std::to_string(got.size()) + " outputs, want " +
                                  std::to_string(x.size()));
                            continue;
                        }
                        dft_double dft(n, forward);
                        std::vector<cd> ref(n);
                        qa::l2_error e_ours, e_stock;
                        for (std::size_t v = 0; v < vectors; ++v) {
                            fft_reference(dft, &x[v * n], n, forward, window, shift, ref.data());
                            const double mine = e_ours.add(&got[v * n], ref.data(), n);
                            const double theirs = e_stock.add(&yard[v * n], ref.data(), n);
                            if (!(mine <= qa::transform_cap * std::max(theirs, qa::error_floor)))
                                f.add(name + " vector " + std::to_string(v) + ": error " + std::to_string(mine) +
                                      " vs gr-fft's " + std::to_string(theirs));
                        }
                        const double bound = qa::bound_for(e_stock.rel());
                        f.note(name, e_ours.rel(), bound);
                        if (!(e_ours.rel() <= bound))
                            f.add(name + ": error " + std::to_string(e_ours.rel()) + " > bound " +
                                  std::to_string(bound) + " (gr-fft: " + std::to_string(e_stock.rel()) + ")");
                    }
        f.report("fft_vcc against gr::fft::fft_vcc");
        QA_ASSERT_NO_FAILURES(f);
    }

    /*!
     * work() called directly with a poisoned output buffer, for counts that
     * take whole batches, the smaller plans and both: every element written,
     * and right.
     */
    void work_writes_every_output()
    {
        qa::failures f;
        for (std::size_t n : { 8, 1000 })
            for (bool forward : { true, false }) {
                const int batch = 8;
                auto blk = gr::gpufft::fft_vcc::make(int(n), forward, {}, true, 1, "auto", batch);
                auto* sync = dynamic_cast<gr::sync_block*>(blk.get());
                CPPUNIT_ASSERT(sync);
                dft_double dft(n, forward);
                for (std::size_t count : { 1, 3, 8, 13, 23 }) {
                    const std::string name = "n=" + std::to_string(n) + (forward ? " forward" : " inverse") +
                                             " count=" + std::to_string(count);
                    // work() skips the history() - 1 vectors before the new ones.
                    const std::size_t old = sync->history() - 1;
                    std::vector<cf> in((old + count) * n), out(count * n);
                    qa::fill_random(in.data(), in.size(), name);
                    qa::poison(out.data(), out.size());
                    gr_vector_const_void_star ins{ in.data() };
                    gr_vector_void_star outs{ out.data() };
                    const int made = sync->work(int(count), ins, outs);
                    f.checked();
                    if (made != int(count)) {
                        f.add(name + ": work() returned " + std::to_string(made));
                        continue;
                    }
                    if (qa::first_nonfinite(out.data(), out.size()) != out.size()) {
                        f.add(name + ": element " + std::to_string(qa::first_nonfinite(out.data(), out.size())) +
                              " not written");
                        continue;
                    }
                    std::vector<cd> ref(n);
                    qa::l2_error e;
                    for (std::size_t v = 0; v < count; ++v) {
                        fft_reference(dft, &in[(old + v) * n], n, forward, {}, true, ref.data());
                        e.add(&out[v * n], ref.data(), n);
                    }
                    // One float FFT of random data errs about 1e-7 relative.
                    f.note(name, e.rel(), 1e-6);
                    if (!(e.rel() <= 1e-6))
                        f.add(name + ": error " + std::to_string(e.rel()));
                }
            }
        f.report("fft_vcc work()");
        QA_ASSERT_NO_FAILURES(f);
    }

    //! The batch asked for, unless the output buffer holds fewer vectors.
    void batch_within_buffer()
    {
        CPPUNIT_ASSERT_EQUAL(64, gr::gpufft::fft_vcc::make(256, true, {}, false, 1, "auto", 64)->batch());
        CPPUNIT_ASSERT_EQUAL(3, gr::gpufft::fft_vcc::make(4096, true, {}, false, 1, "auto", 3)->batch());
        CPPUNIT_ASSERT_EQUAL(8, gr::gpufft::fft_vcc::make(4096, true, {}, false, 1, "auto", 64)->batch());
        CPPUNIT_ASSERT_EQUAL(4, gr::gpufft::fft_vcc::make(65536, true, {}, false, 1, "auto", 64)->batch());
    }

    //! A gr::fft::window::win_type is its taps (as GRC's C++ flowgraphs pass it); {} is no window.
    void window_types()
    {
        using gr::fft::window;
        const int n = 64;
        auto by_type = gr::gpufft::fft_vfc::make(n, true, window::WIN_HANN);
        auto by_taps = gr::gpufft::fft_vfc::make(n, true, window::hann(n));
        auto none = gr::gpufft::fft_vfc::make(n, true, {});
        std::vector<float> x(n);
        for (int j = 0; j < n; ++j)
            x[j] = float(j % 5) - 2.0f;
        std::vector<cf> a(n), b(n), c(n);
        for (auto [blk, out] : { std::pair{ by_type, &a }, { by_taps, &b }, { none, &c } }) {
            gr_vector_const_void_star ins{ x.data() };
            gr_vector_void_star outs{ out->data() };
            CPPUNIT_ASSERT(blk->history() == 1);
            CPPUNIT_ASSERT_EQUAL(1, blk->work(1, ins, outs));
        }
        for (int k = 0; k < n; ++k)
            CPPUNIT_ASSERT(std::abs(a[k] - b[k]) < 1e-4f);
        CPPUNIT_ASSERT(std::abs(c[0]) > std::abs(a[0]) + 1.0f); // unwindowed: DC sum of all x
        CPPUNIT_ASSERT(by_type->set_window(window::WIN_BLACKMAN));
        CPPUNIT_ASSERT_THROW(gr::gpufft::fft_vcc::make(n, true, window::WIN_KAISER), std::invalid_argument);
    }

    void tags_pass_through()
    {
        const std::size_t n = 64, vectors = 40;
        std::vector<cf> x(n * vectors);
        qa::fill_random(x.data(), x.size(), "tags");
        std::vector<gr::tag_t> tags;
        for (std::uint64_t at : { 0, 7, 39 }) {
            gr::tag_t t;
            t.offset = at;
            t.key = pmt::intern("mark");
            t.value = pmt::from_uint64(at);
            tags.push_back(t);
        }
        auto tb = gr::make_top_block("qa_fft_vcc_tags");
        auto src = gr::blocks::vector_source_c::make(x, false, unsigned(n), tags);
        auto blk = gr::gpufft::fft_vcc::make(int(n), true, {}, false, 1, "auto", 4);
        auto sink = gr::blocks::vector_sink_c::make(unsigned(n));
        tb->connect(src, 0, blk, 0);
        tb->connect(blk, 0, sink, 0);
        tb->run();
        const auto got = sink->tags();
        CPPUNIT_ASSERT_EQUAL(tags.size(), got.size());
        for (std::size_t i = 0; i < tags.size(); ++i) {
            CPPUNIT_ASSERT_EQUAL(tags[i].offset, got[i].offset);
            CPPUNIT_ASSERT(pmt::eqv(tags[i].value, got[i].value));
        }
    }
};

// --------------------------------------------------------------- spectrum_c

//! One spectrum_c configuration and the input it gets.
struct spectrum_case {
    int n;
    double sample_rate;
    double overlap;
    std::string window;
    double window_param;
    std::string average;
    double alpha;
    int k;          // frames per output
    double ref_scale;
    bool shift;
    std::string format;
    std::string scale = "dbfs";
};

//! What spectrum_c outputs for `x` (as complex values), in double (see spectrum_c.h).
std::vector<double> spectrum_reference(const spectrum_case& c, const std::vector<cd>& x, std::size_t* outputs)
{
    const std::size_t n = std::size_t(c.n);
    const std::size_t hop = std::max<std::size_t>(1, n - std::size_t(std::lround(c.overlap * double(n))));
    const auto w = gpufft::make_window(c.window, n, c.window_param);
    double wsum = 0, wpow = 0;
    for (float v : w)
        wsum += v, wpow += double(v) * v;
    const double half_ref = c.ref_scale / 2;
    const double full = c.scale == "dbfs" ? wsum * wsum : double(n) * wpow;
    const double scale = 1.0 / (full * half_ref * half_ref);
    dft_double dft(n, true);
    std::vector<cd> frame(n), y(n);
    std::vector<double> state(n), out;
    std::size_t frames = 0;
    for (std::size_t start = 0; start + n <= x.size(); start += hop, ++frames) {
        for (std::size_t j = 0; j < n; ++j)
            frame[j] = x[start + j] * double(w[j]);
        dft.run(frame.data(), y.data());
        const bool first = c.average == "exponential" ? frames == 0 : frames % std::size_t(c.k) == 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double p = std::norm(y[j]);
            if (first)
                state[j] = p;
            else if (c.average == "exponential")
                state[j] = c.alpha * p + (1 - c.alpha) * state[j];
            else if (c.average == "linear")
                state[j] += p;
            else if (c.average == "peak")
                state[j] = std::max(state[j], p);
            else
                state[j] = std::min(state[j], p);
        }
        if (frames % std::size_t(c.k) == std::size_t(c.k) - 1) {
            const double norm = scale / (c.average == "linear" ? double(c.k) : 1.0);
            for (std::size_t j = 0; j < n; ++j)
                out.push_back(10 * std::log10(state[c.shift ? (j + (n + 1) / 2) % n : j] * norm));
        }
    }
    *outputs = out.size() / n;
    return out;
}

//! Random raw samples in `format`, and the complex values they stand for.
void random_input(const std::string& format, std::size_t samples, const std::string& tag,
                  std::vector<unsigned char>& raw, std::vector<cd>& x)
{
    const auto f = gpufft::parse_sample_format(format);
    std::vector<cf> u(samples);
    qa::fill_random(u.data(), samples, tag);
    raw.resize(samples * gpufft::sample_bytes(f));
    if (f == gpufft::sample_format::cf32) {
        std::memcpy(raw.data(), u.data(), raw.size());
    } else {
        // Whole numbers over the format's range, from the same random stream.
        for (std::size_t i = 0; i < 2 * samples; ++i) {
            const float r = i % 2 ? u[i / 2].imag() : u[i / 2].real(); // [-1, 1)
            if (f == gpufft::sample_format::cs16) {
                const auto v = std::int16_t(std::floor(r * 32768));
                std::memcpy(&raw[2 * i], &v, 2);
            } else if (f == gpufft::sample_format::cs8) {
                raw[i] = std::uint8_t(std::int8_t(std::floor(r * 128)));
            } else {
                raw[i] = std::uint8_t(std::floor((r + 1) * 128));
            }
        }
    }
    std::vector<cf> conv(samples);
    gpufft::convert_samples(f, raw.data(), conv.data(), samples);
    x.assign(conv.begin(), conv.end());
}

class qa_spectrum_c : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_spectrum_c);
    CPPUNIT_TEST(against_double_reference);
    CPPUNIT_TEST(setters_before_start);
    CPPUNIT_TEST(whole_input_averaged);
    CPPUNIT_TEST(setters_while_running);
    CPPUNIT_TEST_SUITE_END();

    // Runs the block on the case's random input; compares every spectrum it
    // made with the reference by the relative L2 error of linear power.
    void check(qa::failures& f,
               const std::string& name,
               const spectrum_case& c,
               const gr::gpufft::spectrum_c::sptr& blk,
               std::size_t outputs_wanted)
    {
        const std::size_t n = std::size_t(c.n);
        const std::size_t hop = std::size_t(blk->hop());
        const std::size_t samples = n + (outputs_wanted * std::size_t(c.k) - 1) * hop;
        std::vector<unsigned char> raw;
        std::vector<cd> x;
        random_input(c.format, samples, name, raw, x);
        std::size_t expected = 0;
        const auto ref = spectrum_reference(c, x, &expected);

        auto tb = gr::make_top_block("qa_spectrum_c");
        gr::basic_block_sptr src;
        if (c.format == "cf32") {
            src = gr::blocks::vector_source_c::make(std::vector<gr_complex>(reinterpret_cast<const cf*>(raw.data()),
                                                                            reinterpret_cast<const cf*>(raw.data()) + samples));
        } else {
            // Raw I/Q as vectors of bytes, one sample per item.
            const unsigned bps = unsigned(raw.size() / samples);
            src = gr::blocks::vector_source_b::make(raw, false, bps);
        }
        auto sink = gr::blocks::vector_sink_f::make(unsigned(n));
        tb->connect(src, 0, blk, 0);
        tb->connect(blk, 0, sink, 0);
        tb->run();
        const auto& got = sink->data();
        const std::size_t outputs = got.size() / n;
        f.checked();
        // At the end of the input the block runs the batch that did not fill:
        // every output comes out.
        if (got.size() != expected * n) {
            f.add(name + ": " + std::to_string(got.size()) + " floats, want " + std::to_string(expected) +
                  " spectra of " + std::to_string(n));
            return;
        }
        double err2 = 0, ref2 = 0;
        for (std::size_t i = 0; i < outputs * n; ++i) {
            const double p = std::pow(10.0, double(got[i]) / 10), q = std::pow(10.0, ref[i] / 10);
            err2 += std::isfinite(p) ? (p - q) * (p - q) : INFINITY;
            ref2 += q * q;
        }
        const double err = std::sqrt(err2 / ref2);
        // Float FFT and power (about 1e-7 relative) and float dB (about 1e-7 of
        // the dB value, i.e. up to 1e-6 of the power at -100 dB), with room.
        const double bound = 1e-5;
        f.note(name, err, bound);
        if (!(err <= bound))
            f.add(name + ": error " + std::to_string(err) + " > " + std::to_string(bound));
    }

public:
    void against_double_reference()
    {
        qa::failures f;
        const std::vector<spectrum_case> cases = {
            // n, fs, overlap, window, param, average, alpha, k, ref, shift, format
            { 64, 1e5, 0.0, "blackmanharris", -1, "exponential", 0.3, 4, 2.0, false, "cf32" },
            { 64, 3200, 0.5, "hann", -1, "linear", 1.0, 3, 1.0, true, "cf32" },
            { 100, 1e5, 0.25, "kaiser", 8.0, "peak", 1.0, 5, 2.0, true, "cs16" },
            { 1024, 1e5, 0.0, "flattop", -1, "min", 1.0, 2, 0.5, false, "cs8" },
            { 1000, 2.4e6, 0.75, "tukey", 0.25, "exponential", 1.0, 1, 2.0, true, "cu8", "logpwrfft" },
            { 255, 255 * 50, 0.0, "gaussian", 30, "linear", 1.0, 7, 4.0, true, "cu8" },
        };
        for (const auto& c : cases) {
            const std::string name = "n=" + std::to_string(c.n) + " fs=" + std::to_string(int(c.sample_rate)) + " " +
                                     c.format + " " + c.window + " " + c.average + " k=" + std::to_string(c.k) +
                                     " overlap=" + std::to_string(c.overlap) + (c.shift ? " shift" : "") + " " +
                                     c.scale;
            auto blk = gr::gpufft::spectrum_c::make(c.n, c.sample_rate, 30.0, c.overlap, c.window, c.average,
                                                    c.alpha, c.k, c.ref_scale, c.shift, c.format, "auto",
                                                    c.window_param, c.scale);
            check(f, name, c, blk, 40);
        }
        f.report("spectrum_c against a double reference");
        QA_ASSERT_NO_FAILURES(f);
    }

    //! K = every frame of a finite input: one spectrum, although no batch
    //! ever fills (it used to give none). Frames counts below and above one
    //! batch (fs = 1e5, n = 64: 20 ms is 31 frames).
    void whole_input_averaged()
    {
        qa::failures f;
        for (int k : { 7, 31, 100, 1000 })
            for (const char* average : { "linear", "exponential", "peak" }) {
                const spectrum_case c{ 64, 1e5, 0.0, "hann", -1, average, 0.2, k, 2.0, false, "cf32" };
                auto blk = gr::gpufft::spectrum_c::make(c.n, c.sample_rate, 30.0, c.overlap, c.window, c.average,
                                                        c.alpha, c.k, c.ref_scale, c.shift, c.format);
                check(f, "K = all " + std::to_string(k) + " frames, " + average, c, blk, 1);
            }
        f.report("spectrum_c over a whole input");
        QA_ASSERT_NO_FAILURES(f);
    }

    //! Setters on one thread and getters on another while work() runs: each
    //! getter sees a value that was set (a data race here is what
    //! ThreadSanitizer finds; this build checks the values and the output).
    void setters_while_running()
    {
        const int n = 256;
        auto blk = gr::gpufft::spectrum_c::make(n, 1e6, 1000.0);
        auto tb = gr::make_top_block("qa_spectrum_c_setters");
        auto src = gr::blocks::vector_source_c::make(std::vector<gr_complex>(64 * n, gr_complex(0.5f, 0)), true);
        auto head = gr::blocks::head::make(sizeof(gr_complex), std::size_t(n) * 20000);
        auto sink = gr::blocks::vector_sink_f::make(unsigned(n));
        tb->connect(src, 0, head, 0);
        tb->connect(head, 0, blk, 0);
        tb->connect(blk, 0, sink, 0);
        tb->start();
        std::atomic<bool> stop{ false };
        std::string bad;
        std::thread reader([&] {
            while (!stop && bad.empty()) {
                const std::string window = blk->window();
                if (blk->fft_size() != n || blk->format() != "cf32" || blk->sample_rate() != 1e6 ||
                    (window != "hann" && window != "blackmanharris") || blk->frames_per_output() < 1 ||
                    blk->hop() < 1)
                    bad = "a getter returned a value never set: fft_size " + std::to_string(blk->fft_size()) +
                          ", format " + blk->format() + ", window " + window + ", K " +
                          std::to_string(blk->frames_per_output()) + ", hop " + std::to_string(blk->hop());
            }
        });
        for (int i = 0; i < 200; ++i) {
            blk->set_window(i % 2 ? "hann" : "blackmanharris");
            blk->set_alpha(i % 2 ? 0.5 : 1.0);
            blk->set_frames_per_output(1 + i % 4);
            blk->set_overlap(i % 3 ? 0.0 : 0.5);
        }
        stop = true;
        reader.join();
        tb->wait();
        CPPUNIT_ASSERT_MESSAGE(bad, bad.empty());
        CPPUNIT_ASSERT(sink->data().size() % n == 0 && !sink->data().empty());
        for (float v : sink->data())
            CPPUNIT_ASSERT_MESSAGE("a spectrum value is not finite", std::isfinite(v));
    }

    //! Every setter, called before the run, gives the spectra of a block made with its value.
    void setters_before_start()
    {
        qa::failures f;
        const spectrum_case c{ 128, 1e5, 0.5, "kaiser", 5.0, "peak", 1.0, 3, 1.0, true, "cf32", "logpwrfft" };
        auto blk = gr::gpufft::spectrum_c::make(128, 1e5, 1000.0, 0.0, "hann", "exponential", 0.5, 0, 2.0, false);
        blk->set_overlap(c.overlap);
        blk->set_window(c.window);
        blk->set_window_param(c.window_param);
        blk->set_average(c.average);
        blk->set_alpha(0.9);
        blk->set_frames_per_output(c.k);
        blk->set_ref_scale(c.ref_scale);
        blk->set_scale(c.scale);
        blk->set_shift(c.shift);
        CPPUNIT_ASSERT_EQUAL(64, blk->hop());
        CPPUNIT_ASSERT_EQUAL(3, blk->frames_per_output());
        CPPUNIT_ASSERT_EQUAL(5.0, blk->window_param());
        CPPUNIT_ASSERT_EQUAL(true, blk->shift());
        CPPUNIT_ASSERT_EQUAL(std::string("logpwrfft"), blk->scale());
        check(f, "after setters", c, blk, 30);
        // frame_rate sets K while frames_per_output is 0: 1e5 / 64 frames a second.
        blk->set_frames_per_output(0);
        blk->set_frame_rate(1e5 / 64 / 10);
        CPPUNIT_ASSERT_EQUAL(10, blk->frames_per_output());
        f.report("spectrum_c setters");
        QA_ASSERT_NO_FAILURES(f);
    }
};

// --------------------------------------------------------- iq_replay_source

class qa_iq_replay_source : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_iq_replay_source);
    CPPUNIT_TEST(replays_every_format);
    CPPUNIT_TEST(demo_signal);
    CPPUNIT_TEST(reads_a_fifo);
    CPPUNIT_TEST(reads_a_character_device);
    CPPUNIT_TEST_SUITE_END();

    static std::vector<gr_complex> collect(const gr::gpufft::iq_replay_source::sptr& src, std::size_t count)
    {
        auto tb = gr::make_top_block("qa_iq_replay_source");
        auto head = gr::blocks::head::make(sizeof(gr_complex), count);
        auto sink = gr::blocks::vector_sink_c::make();
        tb->connect(src, 0, head, 0);
        tb->connect(head, 0, sink, 0);
        tb->run();
        return sink->data();
    }

public:
    //! A file of each format, looped two and a half times: exactly its values.
    void replays_every_format()
    {
        for (const char* format : { "cf32", "cs16", "cs8", "cu8" }) {
            const std::size_t samples = 1001;
            std::vector<unsigned char> raw;
            std::vector<cd> x;
            random_input(format, samples, std::string("replay ") + format, raw, x);
            const std::string path = "/tmp/qa_blocks_" + std::to_string(getpid()) + "." + format;
            std::FILE* file = std::fopen(path.c_str(), "wb");
            CPPUNIT_ASSERT(file);
            std::fwrite(raw.data(), 1, raw.size(), file);
            std::fclose(file);
            auto src = gr::gpufft::iq_replay_source::make(path, "auto", 1e6, false, true);
            const auto got = collect(src, 2 * samples + samples / 2);
            std::remove(path.c_str());
            CPPUNIT_ASSERT_EQUAL(std::string(format), src->format());
            CPPUNIT_ASSERT_EQUAL(2 * samples + samples / 2, got.size());
            for (std::size_t i = 0; i < got.size(); ++i)
                CPPUNIT_ASSERT_MESSAGE(std::string(format) + " sample " + std::to_string(i),
                                       cd(got[i]) == cd(cf(x[i % samples])));
        }
    }

    //! A FIFO whose writer comes after the flowgraph starts, writes in
    //! pieces and closes: every sample once (repeat does not apply), then
    //! the end of the stream.
    void reads_a_fifo()
    {
        const std::size_t samples = 50000;
        std::vector<unsigned char> raw;
        std::vector<cd> x;
        random_input("cs16", samples, "fifo", raw, x);
        const std::string path = "/tmp/qa_blocks_fifo_" + std::to_string(getpid()) + ".cs16";
        CPPUNIT_ASSERT(mkfifo(path.c_str(), 0600) == 0);
        auto src = gr::gpufft::iq_replay_source::make(path, "auto", 1e6, false, true);
        auto tb = gr::make_top_block("qa_iq_replay_source_fifo");
        auto sink = gr::blocks::vector_sink_c::make();
        tb->connect(src, 0, sink, 0);
        tb->start();
        std::FILE* writer = std::fopen(path.c_str(), "wb");
        CPPUNIT_ASSERT(writer);
        for (std::size_t at = 0; at < raw.size(); at += 10007) {
            std::fwrite(raw.data() + at, 1, std::min<std::size_t>(10007, raw.size() - at), writer);
            std::fflush(writer);
        }
        std::fclose(writer);
        tb->wait();
        std::remove(path.c_str());
        const auto& got = sink->data();
        CPPUNIT_ASSERT_EQUAL(samples, got.size());
        for (std::size_t i = 0; i < samples; ++i)
            CPPUNIT_ASSERT_MESSAGE("sample " + std::to_string(i), cd(got[i]) == cd(cf(x[i])));
    }

    //! /dev/zero as cu8: every byte 0 is -1 - 1j. (It used to be refused as
    //! a file of no sample.)
    void reads_a_character_device()
    {
        const auto got = collect(gr::gpufft::iq_replay_source::make("/dev/zero", "cu8", 1e6, false, false), 40000);
        CPPUNIT_ASSERT_EQUAL(std::size_t(40000), got.size());
        for (const auto& v : got)
            CPPUNIT_ASSERT(v == gr_complex(-1.0f, -1.0f));
        // /dev/null: accepted, and its stream ends at once.
        const auto none = collect(gr::gpufft::iq_replay_source::make("/dev/null", "cu8", 1e6, false, true), 10);
        CPPUNIT_ASSERT(none.empty());
    }

    //! Without a file: gpufft::demo_signal at the block's rate.
    void demo_signal()
    {
        const std::size_t count = 100000;
        const auto got = collect(gr::gpufft::iq_replay_source::make("", "auto", 1e6, false, true), count);
        CPPUNIT_ASSERT_EQUAL(count, got.size());
        gpufft::demo_signal demo(1e6);
        std::vector<cf> want(count);
        demo.generate(want.data(), count);
        std::vector<cd> ref(want.begin(), want.end());
        qa::l2_error e;
        e.add(got.data(), ref.data(), count);
        // Equal but for where the rotations are renormalized (per call).
        CPPUNIT_ASSERT_MESSAGE("error " + std::to_string(e.rel()), e.rel() < 1e-6);
    }
};

// --------------------------------------------------------------- bad_params

class qa_bad_params : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_bad_params);
    CPPUNIT_TEST(fft_vcc);
    CPPUNIT_TEST(spectrum_c);
    CPPUNIT_TEST(spectrum_c_setters);
    CPPUNIT_TEST(iq_replay_source);
    CPPUNIT_TEST_SUITE_END();

public:
    void fft_vcc()
    {
        using gr::gpufft::fft_vcc;
        expect_invalid("fft_size 0", "fft_size", [] { fft_vcc::make(0, true, {}); });
        expect_invalid("fft_size -4", "fft_size", [] { fft_vcc::make(-4, true, {}); });
        // 2^28 complex floats overflow GNU Radio's int item size ("gr::io_signature(3)" before).
        expect_invalid("fft_size 2^28", "fft_size", [] { fft_vcc::make(1 << 28, true, {}); });
        expect_invalid("backend \"\"", "unknown backend ''", [] { fft_vcc::make(16, true, {}, false, 1, ""); });
        expect_invalid("window of 5 for N 4", "window", [] { fft_vcc::make(4, true, std::vector<float>(5, 1.0f)); });
        expect_invalid("nthreads 0", "nthreads", [] { fft_vcc::make(16, true, {}, false, 0); });
        expect_invalid("batch 0", "batch", [] { fft_vcc::make(16, true, {}, false, 1, "auto", 0); });
        expect_invalid("unknown backend", "backend", [] { fft_vcc::make(16, true, {}, false, 1, "cuda"); });
        expect_invalid("unknown variant", "backend", [] { fft_vcc::make(16, true, {}, false, 1, "simd:mmx"); });
        auto blk = fft_vcc::make(16, true, {});
        CPPUNIT_ASSERT(!blk->set_window(std::vector<float>(15, 1.0f)));
        CPPUNIT_ASSERT(blk->set_window(std::vector<float>(16, 1.0f)));
        expect_invalid("set_nthreads(0)", "nthreads", [&] { blk->set_nthreads(0); });
    }

    void spectrum_c()
    {
        using gr::gpufft::spectrum_c;
        const double nan = std::nan("");
        struct bad {
            std::string what, word;
            std::function<void()> make;
        };
        const std::vector<bad> cases = {
            { "fft_size 0", "fft_size", [] { spectrum_c::make(0, 1e6); } },
            { "fft_size -1", "fft_size", [] { spectrum_c::make(-1, 1e6); } },
            { "sample_rate 0", "sample_rate", [] { spectrum_c::make(64, 0); } },
            { "sample_rate NaN", "sample_rate", [=] { spectrum_c::make(64, nan); } },
            { "frame_rate 0", "frame_rate", [] { spectrum_c::make(64, 1e6, 0); } },
            { "frame_rate above sample_rate", "frame_rate", [] { spectrum_c::make(64, 1e6, 2e6); } },
            // K = frame rate / frame_rate would not fit ("decimation rate cannot be 0" before).
            { "frame_rate 1e-300", "frame_rate", [] { spectrum_c::make(1024, 1e6, 1e-300); } },
            { "overlap -0.1", "overlap", [] { spectrum_c::make(64, 1e6, 30, -0.1); } },
            { "overlap 0.95", "overlap", [] { spectrum_c::make(64, 1e6, 30, 0.95); } },
            { "unknown window", "window", [] { spectrum_c::make(64, 1e6, 30, 0, "triangle-ish"); } },
            { "tukey alpha 2", "window_param",
              [] { spectrum_c::make(64, 1e6, 30, 0, "tukey", "exponential", 1, 0, 2, false, "cf32", "auto", 2.0); } },
            { "window_param NaN", "window_param",
              [=] { spectrum_c::make(64, 1e6, 30, 0, "kaiser", "exponential", 1, 0, 2, false, "cf32", "auto", nan); } },
            { "kaiser beta -5", "beta must be in [0, 700]",
              [] { spectrum_c::make(64, 1e6, 30, 0, "kaiser", "exponential", 1, 0, 2, false, "cf32", "auto", -5); } },
            { "gaussian sigma 0", "sigma must be > 0",
              [] { spectrum_c::make(64, 1e6, 30, 0, "gaussian", "exponential", 1, 0, 2, false, "cf32", "auto", 0); } },
            { "hann with a parameter", "takes no parameter",
              [] { spectrum_c::make(64, 1e6, 30, 0, "hann", "exponential", 1, 0, 2, false, "cf32", "auto", 3); } },
            { "unknown average", "average", [] { spectrum_c::make(64, 1e6, 30, 0, "hann", "median"); } },
            { "alpha 0", "alpha", [] { spectrum_c::make(64, 1e6, 30, 0, "hann", "exponential", 0.0); } },
            { "alpha 1.5", "alpha", [] { spectrum_c::make(64, 1e6, 30, 0, "hann", "exponential", 1.5); } },
            { "frames_per_output -1", "frames_per_output",
              [] { spectrum_c::make(64, 1e6, 30, 0, "hann", "linear", 1, -1); } },
            { "ref_scale 0", "ref_scale", [] { spectrum_c::make(64, 1e6, 30, 0, "hann", "linear", 1, 0, 0.0); } },
            { "unknown format", "format",
              [] { spectrum_c::make(64, 1e6, 30, 0, "hann", "linear", 1, 0, 2, false, "cf64"); } },
            { "unknown backend", "backend",
              [] { spectrum_c::make(64, 1e6, 30, 0, "hann", "linear", 1, 0, 2, false, "cf32", "cuda"); } },
        };
        for (const auto& c : cases)
            expect_invalid(c.what, c.word, c.make);
    }

    //! A setter given a bad value throws and changes nothing.
    void spectrum_c_setters()
    {
        auto blk = gr::gpufft::spectrum_c::make(64, 1e6, 1000.0, 0.5, "hann", "exponential", 0.5);
        expect_invalid("set_alpha(2)", "alpha", [&] { blk->set_alpha(2); });
        expect_invalid("set_frame_rate(0)", "frame_rate", [&] { blk->set_frame_rate(0); });
        expect_invalid("set_overlap(1)", "overlap", [&] { blk->set_overlap(1); });
        expect_invalid("set_window(x)", "window", [&] { blk->set_window("x"); });
        expect_invalid("set_window_param(NaN)", "window_param", [&] { blk->set_window_param(std::nan("")); });
        expect_invalid("set_window_param(3) on hann", "takes no parameter", [&] { blk->set_window_param(3); });
        expect_invalid("set_average(x)", "average", [&] { blk->set_average("x"); });
        expect_invalid("set_frames_per_output(-2)", "frames_per_output", [&] { blk->set_frames_per_output(-2); });
        expect_invalid("set_ref_scale(-1)", "ref_scale", [&] { blk->set_ref_scale(-1); });
        expect_invalid("set_scale(db)", "scale", [&] { blk->set_scale("db"); });
        CPPUNIT_ASSERT_EQUAL(0.5, blk->alpha());
        CPPUNIT_ASSERT_EQUAL(1000.0, blk->frame_rate());
        CPPUNIT_ASSERT_EQUAL(0.5, blk->overlap());
        CPPUNIT_ASSERT_EQUAL(std::string("hann"), blk->window());
        CPPUNIT_ASSERT_EQUAL(std::string("exponential"), blk->average());
        CPPUNIT_ASSERT_EQUAL(32, blk->hop());
        CPPUNIT_ASSERT_EQUAL(2.0, blk->ref_scale());
        CPPUNIT_ASSERT_EQUAL(std::string("dbfs"), blk->scale());
    }

    void iq_replay_source()
    {
        using gr::gpufft::iq_replay_source;
        expect_invalid("unknown format", "format", [] { iq_replay_source::make("", "cf64"); });
        expect_invalid("sample_rate 0", "sample_rate", [] { iq_replay_source::make("", "auto", 0); });
        expect_invalid("missing file", "filename", [] { iq_replay_source::make("/nonexistent/x.cu8"); });
        const std::string empty = "/tmp/qa_blocks_empty_" + std::to_string(getpid()) + ".cu8";
        std::fclose(std::fopen(empty.c_str(), "wb"));
        expect_invalid("empty file", "filename", [&] { iq_replay_source::make(empty, "cu8"); });
        std::remove(empty.c_str());
        // A directory opens but reads nothing: refused, naming it.
        expect_invalid("a directory", "\"/tmp\" is a directory", [] { iq_replay_source::make("/tmp", "cu8"); });
    }
};

const char* const suite_names[] = { "bad_params", "iq_replay_source", "spectrum_c", "fft_vcc" };

} // namespace

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_fft_vcc, "fft_vcc");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_spectrum_c, "spectrum_c");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_iq_replay_source, "iq_replay_source");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_bad_params, "bad_params");

int main(int argc, char** argv)
{
    std::vector<std::string> chosen(argv + 1, argv + argc);
    if (chosen.empty())
        chosen.assign(std::begin(suite_names), std::end(suite_names));
    for (const auto& s : chosen)
        if (std::find(std::begin(suite_names), std::end(suite_names), s) == std::end(suite_names)) {
            std::fprintf(stderr, "%s: unknown suite \"%s\" (suites: bad_params iq_replay_source spectrum_c fft_vcc)\n",
                         argv[0], s.c_str());
            return 2;
        }
    std::printf("qa_blocks: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run)\n",
                (unsigned long long)qa::run_seed(), (unsigned long long)qa::run_seed());
    std::fflush(stdout);
    CppUnit::TextTestRunner runner;
    for (const auto& s : chosen)
        runner.addTest(CppUnit::TestFactoryRegistry::getRegistry(s).makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
