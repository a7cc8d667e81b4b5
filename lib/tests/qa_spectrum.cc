// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum engine suite: tones, averaging, framing, sample formats
 * and bad input, against references computed here in double precision.
 *
 *   qa_spectrum [SUITE...]    suites: spectrum (the default)
 *
 * The gpufft-spectrum app has its own suite in apps/tests.
 *
 * Random data is fresh each run; GPUFFT_TEST_SEED reproduces one. */
#include "qa_common.h"
#include "qa_spectrum_input.h"

#include <gpufft/spectrum.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <tuple>

namespace qa {

namespace {

using gpufft::averaging;
using gpufft::level_scale;
using gpufft::sample_format;
using gpufft::spectrum;
using gpufft::spectrum_config;

//! Every output of pushing `x`, then flushing, concatenated.
std::vector<float> run_all(spectrum& s, const std::vector<cf>& x, std::size_t chunk = 0)
{
    std::vector<float> out;
    const auto sink = [&](const float* p, std::size_t n) { out.insert(out.end(), p, p + n); };
    if (chunk == 0)
        chunk = x.size();
    for (std::size_t i = 0; i < x.size(); i += chunk)
        s.push(x.data() + i, std::min(chunk, x.size() - i), sink);
    s.flush(sink);
    return out;
}

//! |DFT|^2 of one windowed frame, in double.
std::vector<double> dft_power(const cf* x, const std::vector<float>& w)
{
    const std::size_t n = w.size();
    std::vector<double> p(n);
    for (std::size_t k = 0; k < n; ++k) {
        cd acc = 0;
        for (std::size_t j = 0; j < n; ++j)
            acc += cd(x[j]) * double(w[j]) * std::polar(1.0, -2 * M_PI * double(j * k % n) / double(n));
        p[k] = std::norm(acc);
    }
    return p;
}

//! The engine's outputs recomputed in double from the configuration.
std::vector<double> reference(const spectrum_config& c, const spectrum& s, const std::vector<cf>& x)
{
    const std::size_t n = c.fft_size, hop = s.hop(), k_out = s.frames_per_output();
    const auto& w = s.window();
    double sum = 0, power = 0;
    for (float v : w)
        sum += v, power += double(v) * v;
    const double full = c.scale == gpufft::level_scale::dbfs ? sum * sum : double(n) * power;
    const double scale = 4.0 / (full * c.ref_scale * c.ref_scale);
    std::vector<double> out, avg(n);
    std::size_t count = 0, seen = 0;
    for (std::size_t start = 0; start + n <= x.size(); start += hop, ++seen) {
        const auto p = dft_power(x.data() + start, w);
        for (std::size_t i = 0; i < n; ++i) {
            const bool first = c.average == averaging::exponential ? seen == 0 : count == 0;
            double& a = avg[i];
            switch (c.average) {
            case averaging::exponential:
                a = first ? p[i] : (1 - c.alpha) * a + c.alpha * p[i];
                break;
            case averaging::linear:
                a = first ? p[i] : a + p[i];
                break;
            case averaging::peak_hold:
                a = first ? p[i] : std::max(a, p[i]);
                break;
            case averaging::min_hold:
                a = first ? p[i] : std::min(a, p[i]);
                break;
            }
        }
        if (++count == k_out) {
            count = 0;
            const double div = c.average == averaging::linear ? double(k_out) : 1.0;
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t src = c.shift ? (i + n - n / 2) % n : i;
                const double v = avg[src] * scale / div;
                out.push_back(c.db ? 10 * std::log10(v) : v);
            }
        }
    }
    return out;
}

std::string describe(const spectrum_config& c)
{
    std::ostringstream s;
    s << "N=" << c.fft_size << " window=" << c.window << " overlap=" << c.overlap
      << " avg=" << int(c.average) << " K=" << c.frames_per_output << " db=" << c.db
      << " shift=" << c.shift << " batch=" << c.batch;
    return s.str();
}

void expect_error(const std::string& what, const std::function<void()>& fn, const std::string& word)
{
    try {
        fn();
    } catch (const gpufft::error& e) {
        CPPUNIT_ASSERT_MESSAGE(what + ": message \"" + e.what() + "\" does not name " + word,
                               std::string(e.what()).find(word) != std::string::npos);
        return;
    }
    CPPUNIT_FAIL(what + ": did not throw gpufft::error");
}

class qa_spectrum : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_spectrum);
    CPPUNIT_TEST(tones_every_window);
    CPPUNIT_TEST(full_scale_tone_reads_0_dbfs);
    CPPUNIT_TEST(averaging_against_reference);
    CPPUNIT_TEST(framing_and_chunking);
    CPPUNIT_TEST(formats_exact);
    CPPUNIT_TEST(output_rate_and_bins);
    CPPUNIT_TEST(zero_copy_input);
    CPPUNIT_TEST(non_finite_samples);
    CPPUNIT_TEST(bad_input);
    CPPUNIT_TEST_SUITE_END();

public:
    // A tone on bin k reads 20 log10(A) in dBFS, plus the window's
    // coherent/power gain ratio on logpwrfft's scale.
    void tones_every_window()
    {
        auto g = rng_for("tones");
        std::string fails;
        std::size_t checks = 0;
        for (const auto& name : gpufft::window_names())
            for (std::size_t n : { 64, 63, 1000, 243 })
                for (bool shift : { false, true }) {
                    spectrum_config c;
                    c.fft_size = n;
                    c.window = name;
                    c.shift = shift;
                    c.scale = shift ? level_scale::logpwrfft : level_scale::dbfs;
                    c.sample_rate = 1e6;
                    c.batch = 2; // the third frame comes from flush()
                    spectrum s(c);
                    const std::size_t bin = g() % n;
                    const double amp = std::pow(10.0, -double(g() % 60) / 20), phase = double(g() % 1000);
                    std::vector<cf> x(3 * n);
                    for (std::size_t j = 0; j < x.size(); ++j)
                        x[j] = cf(std::polar(amp, phase + 2 * M_PI * double(j * bin % n) / double(n)));
                    const auto out = run_all(s, x);
                    const std::size_t got = out.size() / n;
                    double sum = 0, power = 0;
                    for (float w : s.window())
                        sum += w, power += double(w) * w;
                    const double want = 20 * std::log10(amp) +
                                        (shift ? 10 * std::log10(sum * sum / (double(n) * power)) : 0.0);
                    for (std::size_t f = 0; f < std::min<std::size_t>(got, 3); ++f) {
                        const float* p = out.data() + f * n;
                        const std::size_t peak = std::max_element(p, p + n) - p;
                        const double hz = s.bin_hz(peak), want_hz = (bin < (n + 1) / 2 ? double(bin) : double(bin) - double(n)) * 1e6 / double(n);
                        ++checks;
                        if (out.size() != 3 * n || std::abs(p[peak] - want) > 0.1 || std::abs(hz - want_hz) > 1e-6) {
                            std::ostringstream m;
                            m << describe(c) << " bin " << bin << ": peak " << peak << " at " << hz << " Hz, "
                              << p[peak] << " dB; want " << want_hz << " Hz, " << want << " dB, 3 outputs (got " << got << ")\n";
                            fails += m.str();
                        }
                    }
                }
        std::printf("tones: %zu checks\n", checks);
        CPPUNIT_ASSERT_MESSAGE(fails, fails.empty());
    }

    /*
     * dBFS: a complex tone of full-scale amplitude (ref_scale / 2) centred
     * on a bin reads 0 dB, and one 20 dB down -20 dB, whatever the window,
     * N, format and ref_scale; logpwrfft's scale reads them lower by the
     * window's 10 log10(N sum(w^2) / (sum w)^2).
     */
    void full_scale_tone_reads_0_dbfs()
    {
        std::string fails;
        for (const char* window : { "rectangular", "hann", "blackmanharris", "flattop", "kaiser" })
            for (std::size_t n : { 64, 243, 4096 })
                for (double dbfs : { 0.0, -20.0 })
                    for (auto format : { sample_format::cf32, sample_format::cs16 }) {
                        spectrum_config c;
                        c.fft_size = n;
                        c.window = window;
                        c.format = format;
                        // cs16 reads x / 32768: a radio whose full scale is 2048 (12 bits) has ref_scale 2 * 2048 / 32768.
                        const double full = format == sample_format::cf32 ? 1.0 : 2048.0;
                        c.ref_scale = format == sample_format::cf32 ? 2.0 : 2 * full / 32768;
                        const std::size_t bin = n / 5;
                        const double amp = full * std::pow(10.0, dbfs / 20);
                        std::vector<cf> x(n);
                        std::vector<std::int16_t> raw(2 * n);
                        for (std::size_t j = 0; j < n; ++j) {
                            const auto v = std::polar(amp, 0.3 + 2 * M_PI * double(j * bin % n) / double(n));
                            x[j] = cf(v);
                            raw[2 * j] = std::int16_t(std::lround(v.real()));
                            raw[2 * j + 1] = std::int16_t(std::lround(v.imag()));
                        }
                        double sum = 0, power = 0;
                        std::vector<float> got[2];
                        for (auto scale : { level_scale::dbfs, level_scale::logpwrfft }) {
                            c.scale = scale;
                            spectrum s(c);
                            sum = 0, power = 0;
                            for (float w : s.window())
                                sum += w, power += double(w) * w;
                            std::vector<float>& out = got[scale == level_scale::logpwrfft];
                            const auto keep = [&](const float* p, std::size_t len) { out.assign(p, p + len); };
                            if (format == sample_format::cf32)
                                s.push(x.data(), n, keep);
                            else
                                s.push_bytes(raw.data(), raw.size() * sizeof raw[0], keep);
                            s.flush(keep);
                        }
                        const double loss = 10 * std::log10(double(n) * power / (sum * sum));
                        const double dbfs_read = got[0].empty() ? NAN : got[0][bin];
                        const double lp_read = got[1].empty() ? NAN : got[1][bin];
                        if (!(std::abs(dbfs_read - dbfs) < 0.05) || !(std::abs(lp_read - (dbfs - loss)) < 0.05)) {
                            std::ostringstream m;
                            m << window << " n " << n << " " << gpufft::format_name(format) << " tone " << dbfs
                              << " dBFS: reads " << dbfs_read << " dBFS, " << lp_read << " on logpwrfft's scale (want "
                              << dbfs - loss << ")\n";
                            fails += m.str();
                        }
                    }
        CPPUNIT_ASSERT_MESSAGE(fails, fails.empty());
    }

    void averaging_against_reference()
    {
        std::string fails;
        for (auto avg : { averaging::exponential, averaging::linear, averaging::peak_hold, averaging::min_hold })
            for (std::size_t n : { 60, 33 })
                for (bool db : { false, true }) {
                    spectrum_config c;
                    c.fft_size = n;
                    c.average = avg;
                    c.alpha = 0.3;
                    c.frames_per_output = 4;
                    c.overlap = 0.5;
                    c.db = db;
                    c.shift = n == 33;
                    c.window = "hann";
                    c.batch = 3;
                    spectrum s(c);
                    std::vector<cf> x(40 * n + 7);
                    fill_random(x.data(), x.size(), "avg " + describe(c));
                    const auto out = run_all(s, x, 17);
                    const auto ref = reference(c, s, x);
                    if (out.size() != ref.size()) {
                        fails += describe(c) + ": " + std::to_string(out.size()) + " values, want " +
                                 std::to_string(ref.size()) + "\n";
                        continue;
                    }
                    for (std::size_t o = 0; o < ref.size(); o += n) {
                        const double top = *std::max_element(ref.begin() + o, ref.begin() + o + n);
                        for (std::size_t i = o; i < o + n; ++i) {
                            const double err = std::abs(out[i] - ref[i]);
                            if (!(db ? err < 0.01 : err < 1e-5 * top)) {
                                fails += describe(c) + ": value " + std::to_string(i) + " = " + std::to_string(out[i]) +
                                         ", want " + std::to_string(ref[i]) + "\n";
                                break;
                            }
                        }
                    }
                }
        CPPUNIT_ASSERT_MESSAGE(fails, fails.empty());
    }

    // Exact frame and output counts; any chunking gives bit-identical outputs.
    void framing_and_chunking()
    {
        auto g = rng_for("framing");
        for (double overlap : { 0.0, 0.25, 0.5, 0.75, 0.9 })
            for (std::size_t n : { 16, 100, 37 }) {
                spectrum_config c;
                c.fft_size = n;
                c.overlap = overlap;
                c.average = averaging::linear;
                c.frames_per_output = 1 + g() % 4;
                c.batch = 1 + g() % 5;
                const std::size_t total = n * (20 + g() % 20) + g() % n;
                std::vector<cf> x(total);
                fill_random(x.data(), x.size(), "framing " + describe(c));
                spectrum whole(c), chunked(c);
                const auto a = run_all(whole, x);
                std::vector<float> b;
                for (std::size_t i = 0; i < total;) {
                    const std::size_t len = std::min<std::size_t>(g() % (3 * n), total - i);
                    chunked.push(x.data() + i, len, [&](const float* p, std::size_t k) { b.insert(b.end(), p, p + k); });
                    i += len;
                }
                chunked.flush([&](const float* p, std::size_t k) { b.insert(b.end(), p, p + k); });
                const std::size_t hop = n - std::size_t(std::lround(overlap * double(n)));
                const std::size_t frames = (total - n) / hop + 1;
                const std::string what = describe(c) + " samples=" + std::to_string(total);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, hop, whole.hop());
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, frames, whole.frames());
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, frames, chunked.frames());
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, frames / c.frames_per_output * n, a.size());
                CPPUNIT_ASSERT_MESSAGE(what + ": chunked pushes differ", a == b);
                whole.reset();
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::size_t(0), whole.frames());
                // spectrum_requirements: one output takes exactly its samples_per_output.
                const std::uint64_t needs = gpufft::spectrum_requirements(c).samples_per_output;
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, std::uint64_t(n + (c.frames_per_output - 1) * hop), needs);
                if (needs <= total) {
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(what, n, run_all(whole, { x.begin(), x.begin() + std::ptrdiff_t(needs) }).size());
                    whole.reset();
                    CPPUNIT_ASSERT_MESSAGE(what, run_all(whole, { x.begin(), x.begin() + std::ptrdiff_t(needs) - 1 }).empty());
                }
            }
    }

    // Each integer format through the engine equals cf32 samples decoded here
    // by the documented formula, bit for bit; bytes may arrive one at a time.
    void formats_exact()
    {
        auto g = rng_for("formats");
        const std::size_t n = 8, samples = 8 * 256;
        for (auto f : { sample_format::cs16, sample_format::cs8, sample_format::cu8 }) {
            const std::size_t bytes = samples * gpufft::sample_bytes(f);
            std::vector<unsigned char> raw(bytes);
            for (std::size_t i = 0; i < bytes; ++i) // every byte value, shuffled order
                raw[i] = std::uint8_t(i);
            std::shuffle(raw.begin(), raw.end(), g);
            std::vector<cf> ref(samples);
            for (std::size_t i = 0; i < samples; ++i) {
                float v[2];
                for (int k = 0; k < 2; ++k) {
                    const std::size_t at = i * gpufft::sample_bytes(f) + k * gpufft::sample_bytes(f) / 2;
                    switch (f) {
                    case sample_format::cs16:
                        v[k] = float(double(std::int16_t(raw[at] | raw[at + 1] << 8)) / 32768.0);
                        break;
                    case sample_format::cs8:
                        v[k] = float(double(std::int8_t(raw[at])) / 128.0);
                        break;
                    default:
                        v[k] = float((double(raw[at]) - 127.5) / 127.5);
                    }
                }
                ref[i] = cf(v[0], v[1]);
            }
            spectrum_config c;
            c.fft_size = n;
            c.window = "rectangular";
            c.db = false;
            c.batch = 5;
            spectrum want(c);
            const auto a = run_all(want, ref);
            c.format = f;
            spectrum got(c);
            std::vector<float> b(a.size(), std::numeric_limits<float>::quiet_NaN());
            std::size_t at = 0;
            const auto sink = [&](const float* p, std::size_t k) {
                std::copy(p, p + k, b.begin() + std::ptrdiff_t(at));
                at += k;
            };
            for (std::size_t i = 0; i < bytes; ++i)
                got.push_bytes(raw.data() + i, 1, sink);
            got.flush(sink);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(gpufft::format_name(f), a.size(), at);
            CPPUNIT_ASSERT_MESSAGE(gpufft::format_name(f) + " decodes differently", a == b);
        }
        CPPUNIT_ASSERT(gpufft::parse_sample_format("cu8") == sample_format::cu8);
        CPPUNIT_ASSERT_EQUAL(std::size_t(4), gpufft::sample_bytes(sample_format::cs16));
    }

    void output_rate_and_bins()
    {
        spectrum_config c;
        c.fft_size = 10;
        c.sample_rate = 1000; // 100 frames/s
        c.output_rate = 10;
        c.shift = true;
        spectrum s(c);
        CPPUNIT_ASSERT_EQUAL(std::size_t(10), s.frames_per_output());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-500.0, s.bin_hz(0), 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, s.bin_hz(5), 1e-9);
        c.overlap = 0.5; // 200 frames/s
        c.output_rate = 200;
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), spectrum(c).frames_per_output());
        c.shift = false;
        c.fft_size = 5;
        c.output_rate = 0;
        spectrum odd(c);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(400.0, odd.bin_hz(2), 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(-400.0, odd.bin_hz(3), 1e-9);
    }

    //! acquire()/commit() into the CPU chain's batch buffer equals push_bytes() (qa_spectrum_input.h).
    void zero_copy_input()
    {
        failures f;
        check_zero_copy_input(f, "simd");
        f.report("zero-copy input");
        QA_ASSERT_NO_FAILURES(f);
    }

    // NaN and infinite samples are taken as 0 + 0i: the outputs equal the
    // reference of the input with them zeroed, whichever byte chunks carry them.
    void non_finite_samples()
    {
        spectrum_config c;
        c.fft_size = 32;
        c.overlap = 0.5;
        c.average = averaging::linear;
        c.frames_per_output = 3;
        c.batch = 2;
        c.window = "hann";
        std::vector<cf> x(32 * 20 + 5);
        fill_random(x.data(), x.size(), "non-finite");
        std::vector<cf> zeroed(x);
        const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
        const std::vector<std::pair<std::size_t, cf>> bad = {
            { 40, { nan, 0.25f } }, { 41, { 0.5f, inf } }, { 300, { -inf, -inf } }, { 301, { nan, nan } },
            { x.size() - 1, { nan, 0 } } // in no output's frames
        };
        for (const auto& [i, v] : bad)
            x[i] = v, zeroed[i] = 0;
        spectrum s(c);
        std::vector<float> out;
        std::vector<std::size_t> flagged; // each output's count of non-finite samples
        const auto sink = [&](const float* p, std::size_t n) {
            out.insert(out.end(), p, p + n);
            flagged.push_back(s.output_nonfinite_samples());
        };
        const auto* bytes = reinterpret_cast<const unsigned char*>(x.data());
        for (std::size_t i = 0, len = x.size() * sizeof(cf); i < len; i += 13) // samples split across pushes
            s.push_bytes(bytes + i, std::min<std::size_t>(13, len - i), sink);
        s.flush(sink);
        const auto ref = reference(c, s, zeroed);
        CPPUNIT_ASSERT_EQUAL(ref.size(), out.size());
        for (std::size_t i = 0; i < ref.size(); ++i)
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE("value " + std::to_string(i), ref[i], out[i], 0.01);
        // Counted, and each output flags those in its K frames: samples [k S, k S + L).
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(bad.size()), s.nonfinite_samples());
        const std::size_t stride = 3 * s.hop(), span = 2 * s.hop() + 32;
        for (std::size_t k = 0; k < flagged.size(); ++k) {
            std::size_t want = 0;
            for (const auto& b : bad)
                want += b.first >= k * stride && b.first < k * stride + span;
            CPPUNIT_ASSERT_EQUAL_MESSAGE("output " + std::to_string(k), want, flagged[k]);
        }
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), s.output_nonfinite_samples());
        s.reset(); // keeps the count; the flags start afresh with the stream
        flagged.clear();
        s.push_bytes(bytes, 64 * sizeof(cf), sink);
        s.flush(sink);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(bad.size() + 2), s.nonfinite_samples());
        CPPUNIT_ASSERT(flagged == std::vector<std::size_t>{ 2 });
    }

    void bad_input()
    {
        const auto with = [](const std::function<void(spectrum_config&)>& edit) {
            return [edit] {
                spectrum_config c;
                edit(c);
                spectrum s(c);
            };
        };
        expect_error("fft size 0", with([](auto& c) { c.fft_size = 0; }), "fft_size");
        expect_error("requirements of fft size 0", [] {
            spectrum_config c;
            c.fft_size = 0;
            gpufft::spectrum_requirements(c);
        }, "fft_size");
        // 2^40, or 2^30 with a 32-bit size_t (armhf).
        constexpr std::size_t huge = std::size_t(1) << (sizeof(std::size_t) >= 8 ? 40 : 30);
        expect_error("fft size 2^40", with([](auto& c) { c.fft_size = huge; }), "fft_size");
        expect_error("huge batch", with([](auto& c) { c.batch = huge; }), "batch");
        expect_error("short window", with([](auto& c) { c.user_window.assign(10, 1.0f); }), "window length");
        expect_error("zero window", with([](auto& c) { c.user_window.assign(c.fft_size, 0.0f); }), "window");
        // Taps summing to 0 have no tone gain to divide by (logpwrfft's scale needs none).
        const auto alternating = [](auto& c) {
            c.user_window.resize(c.fft_size);
            for (std::size_t i = 0; i < c.fft_size; ++i)
                c.user_window[i] = i % 2 ? -1.0f : 1.0f;
        };
        expect_error("window summing to 0", with(alternating), "sum to about 0");
        CPPUNIT_ASSERT_NO_THROW(with([&](auto& c) { alternating(c), c.scale = level_scale::logpwrfft; })());
        // Each window's parameter in its range, none for the windows without
        // one; -1, GNU Radio's "no parameter", is the window's default.
        const std::tuple<const char*, double, const char*> bad_params[] = {
            { "tukey", -0.5, "alpha must be in [0, 1]" },  { "tukey", 1.5, "alpha must be in [0, 1]" },
            { "gaussian", -2, "sigma must be > 0" },       { "gaussian", 0, "sigma must be > 0" },
            { "kaiser", -1e6, "beta must be in [0, 700]" }, { "kaiser", 701, "beta must be in [0, 700]" },
            { "exponential", 0, "decay must be > 0" },     { "hann", 5, "hann window takes no parameter" },
            { "rectangular", 0, "takes no parameter" },    { "kaiser", NAN, "beta" },
        };
        for (const auto& [name, param, word] : bad_params) {
            const std::string what = std::string(name) + " " + std::to_string(param);
            expect_error(what, [name = name, param = param] { gpufft::make_window(name, 64, param); }, word);
            expect_error(what, with([name = name, param = param](auto& c) { c.window = name, c.window_param = param; }),
                         word);
            expect_error(what, [name = name, param = param] { gpufft::check_window_param(name, param); }, word);
        }
        expect_error("explicit -1", [] { gpufft::check_window_param("tukey", -1); }, "alpha must be in [0, 1]");
        expect_error("unknown", [] { gpufft::check_window_param("triangle", 1); }, "unknown window");
        CPPUNIT_ASSERT(gpufft::make_window("kaiser", 64, -1) == gpufft::make_window("kaiser", 64, 6.76));
        CPPUNIT_ASSERT(gpufft::make_window("tukey", 64, 0) == gpufft::make_window("rectangular", 64));
        CPPUNIT_ASSERT_NO_THROW(gpufft::make_window("hann", 64, -1));
        expect_error("overlap 0.95", with([](auto& c) { c.overlap = 0.95; }), "overlap");
        expect_error("overlap -0.1", with([](auto& c) { c.overlap = -0.1; }), "overlap");
        expect_error("overlap NaN", with([](auto& c) { c.overlap = std::nan(""); }), "overlap");
        expect_error("alpha 0", with([](auto& c) { c.alpha = 0; }), "alpha");
        expect_error("alpha 1.5", with([](auto& c) { c.alpha = 1.5; }), "alpha");
        expect_error("K 0", with([](auto& c) { c.frames_per_output = 0; }), "frames_per_output");
        expect_error("rate < 0", with([](auto& c) { c.output_rate = -1; }), "output_rate");
        // K = frame rate / output_rate would not fit (it came out as 2^63).
        expect_error("rate 1e-300", with([](auto& c) { c.output_rate = 1e-300; }), "output_rate");
        expect_error("K 2^31", with([](auto& c) { c.frames_per_output = std::size_t(1) << 31; }),
                     "frames_per_output");
        expect_error("rate too high", with([](auto& c) { c.sample_rate = 1024 * 10; c.output_rate = 11; }), "output_rate");
        expect_error("sample rate 0", with([](auto& c) { c.sample_rate = 0; }), "sample_rate");
        expect_error("ref scale 0", with([](auto& c) { c.ref_scale = 0; }), "ref_scale");
        expect_error("window name", with([](auto& c) { c.window = "hanning-ish"; }), "hanning-ish");
        expect_error("backend", with([](auto& c) { c.backend = "nope"; }), "nope");
        expect_error("format", [] { gpufft::parse_sample_format("ci12"); }, "ci12");
        expect_error("averaging", [] { gpufft::parse_averaging("median"); }, "median");
        expect_error("level scale", [] { gpufft::parse_level_scale("dB"); }, "dbfs, logpwrfft");
        CPPUNIT_ASSERT(gpufft::parse_level_scale("logpwrfft") == level_scale::logpwrfft);
        expect_error("push cf32 into cu8", [] {
            spectrum_config c;
            c.format = sample_format::cu8;
            spectrum s(c);
            cf x[4];
            s.push(x, 4, nullptr);
        }, "cf32");
        expect_error("null data", [] {
            spectrum s{ spectrum_config() };
            s.push_bytes(nullptr, 8, nullptr);
        }, "null");
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_spectrum, "spectrum");


} // namespace

} // namespace qa

int main(int argc, char** argv)
{
    std::printf("qa_spectrum: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run)\n",
                (unsigned long long)qa::run_seed(), (unsigned long long)qa::run_seed());
    CppUnit::TextTestRunner runner;
    std::vector<std::string> suites(argv + 1, argv + argc);
    if (suites.empty())
        suites = { "spectrum" };
    for (const auto& s : suites)
        runner.addTest(CppUnit::TestFactoryRegistry::getRegistry(s).makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
