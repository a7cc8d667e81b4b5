// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL suite: gpufft::spectrum_display with the display stages
 * on the device (lib/spectrum/opencl/display_stage.cc, kernels/display.cl)
 * against the same raw I/Q through the simd backend, whose display runs on
 * the CPU (lib/spectrum/display.cc): one definition (include/gpufft/display.h),
 * equal read-outs on both.
 *
 *   qa_opencl_display
 *
 * The device is GPUFFT_OPENCL_DEVICE's, else the best one. Exit status 77
 * (skipped) when no OpenCL device is usable here, saying why.
 *
 * The two backends' dB spectra differ by their FFTs' float rounding (a few
 * 1e-6 dB for bins near the frame's mean power, more for much weaker bins:
 * qa_opencl_spectrum's bounds), so:
 *   - traces and waterfall rows agree within 0.01 dB where the value lies
 *     within 40 dB of its row's mean power, within 1 dB below that;
 *   - histogram cells agree within 1e-4 of the steady-state count
 *     1 / (1 - decay), except where a column value within rounding of a row
 *     boundary landed in the adjacent row on one backend (display.h step 2):
 *     such a flip is a pair of adjacent cells of one column whose
 *     differences are opposite and at most one hit (1) each. Flips are
 *     counted: at most 2 + 3 / 1000 of the frames' values a comparison,
 *     times the columns one value fills (a seed drew 1.35 a thousand hits
 *     at cs16, W = 5000 columns over 3278 bins, where one bin's flip is up
 *     to two columns'; another 4 flips at W = 300 over 90 bins, one bin's;
 *     a row definition that differs flips most hits). */
#include "qa_common.h"

#include <gpufft/opencl.h>
#include <gpufft/spectrum_display.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace qa {

namespace {

using gpufft::display_average;
using gpufft::display_config;
using gpufft::display_resample;
using gpufft::sample_format;
using gpufft::spectrum_config;
using gpufft::spectrum_display;

// Written into every output before a read-out: an element left unwritten keeps it.
constexpr float unwritten = -7.25e33f;
constexpr double trace_db = 0.01, weak_trace_db = 1.0, weak_below_mean_db = 40.0;
constexpr double cell_tolerance = 1e-4;

std::string describe(const spectrum_config& s, const display_config& c)
{
    std::ostringstream m;
    m << gpufft::format_name(s.format) << " N=" << s.fft_size << " overlap=" << s.overlap << " batch=" << s.batch
      << " W=" << c.width << " H=" << c.height << " dB [" << c.db_min << ", " << c.db_max << "] decay=" << c.decay
      << " resample=" << (c.resample == display_resample::max ? "max" : "mean")
      << " average=" << (c.average == display_average::exponential ? "exp" : "linear") << " alpha=" << c.alpha
      << " rows=" << c.waterfall_rows << " bins [" << c.bin_begin << ", " << (c.bin_end ? c.bin_end : s.fft_size)
      << ")";
    return m.str();
}

//! Every read-out of a spectrum_display, each from a poisoned buffer.
struct readouts {
    std::vector<float> hist, avg, peak, fall;

    explicit readouts(const spectrum_display& d)
    {
        const auto& c = d.display_settings();
        hist.assign(c.width * c.height, unwritten);
        avg.assign(c.width, unwritten);
        peak.assign(c.width, unwritten);
        fall.assign(c.width * c.waterfall_rows, unwritten);
        d.read_histogram(hist.data());
        d.read_average(avg.data());
        d.read_max_hold(peak.data());
        d.read_waterfall(fall.data(), c.waterfall_rows);
    }
};

//! The bound for value `want` of a row of dB values whose mean power is `mean_db`.
double db_bound(double want, double mean_db)
{
    return want >= mean_db - weak_below_mean_db ? trace_db : weak_trace_db;
}

//! 10 log10 of the mean power of a row of dB values (NaN and -inf rows: -inf).
double mean_db(const float* row, std::size_t w)
{
    double sum = 0;
    for (std::size_t i = 0; i < w; ++i)
        if (std::isfinite(row[i]))
            sum += std::pow(10.0, row[i] / 10.0);
    return 10 * std::log10(sum / double(w));
}

//! Compares traces or waterfall rows (`rows` rows of w): equal within db_bound, or both NaN.
void compare_rows(failures& f, const std::string& what, const std::vector<float>& got,
                  const std::vector<float>& want, std::size_t w)
{
    for (std::size_t at = 0; at < want.size(); at += w) {
        const double mean = mean_db(want.data() + at, w);
        for (std::size_t i = at; i < at + w; ++i) {
            f.checked();
            const bool ok = std::isnan(want[i]) ? std::isnan(got[i])
                                                : std::abs(double(got[i]) - want[i]) <= db_bound(want[i], mean);
            if (!ok) {
                std::ostringstream m;
                m << what << ": row " << at / w << " column " << i - at << " = " << got[i] << " on the device, "
                  << want[i] << " on the CPU";
                f.add(m.str());
                return;
            }
        }
    }
}

//! Histograms equal within cell_tolerance or by boundary flips (file comment).
void compare_histograms(failures& f, const std::string& what, const display_config& c, std::size_t frames,
                        const std::vector<float>& got, const std::vector<float>& want)
{
    const std::size_t w = c.width;
    const double tol = cell_tolerance / (1 - c.decay);
    std::size_t flips = 0;
    for (std::size_t col = 0; col < w; ++col)
        for (std::size_t r = 0; r < c.height; ++r) {
            f.checked();
            const auto diff = [&](std::size_t row) { return double(got[row * w + col]) - want[row * w + col]; };
            const double d = diff(r);
            if (std::abs(d) <= tol)
                continue;
            const bool flip = r + 1 < c.height && std::abs(d) <= 1 + tol && std::abs(d + diff(r + 1)) <= tol;
            if (!flip) {
                std::ostringstream m;
                m << what << ": histogram row " << r << " column " << col << " = " << got[r * w + col]
                  << " on the device, " << want[r * w + col] << " on the CPU";
                f.add(m.str());
                return;
            }
            ++flips;
            ++r; // the pair's other cell
        }
    // A frame has min(W, m) values of m bins; with fewer bins than columns
    // a bin's value fills up to ceil(W / m) columns (display.h step 1), and
    // so does its flip.
    const std::size_t bins = c.bin_end - c.bin_begin, values = std::min(w, bins);
    const std::size_t allowed = (2 + 3 * frames * values / 1000) * ((w + values - 1) / values);
    f.note(what + " (boundary flips / allowed)", double(flips), double(allowed));
    if (flips > allowed)
        f.add(what + ": " + std::to_string(flips) + " boundary flips in the histogram of " +
              std::to_string(w) + " columns over " + std::to_string(bins) + " bins, at most " +
              std::to_string(allowed) + " expected");
}

//! Both displays' read-outs and frame counts, equal as the file comment says.
void compare(failures& f, const std::string& what, const spectrum_display& dev, const spectrum_display& cpu)
{
    const auto& c = cpu.display_settings();
    if (dev.frames() != cpu.frames()) {
        f.add(what + ": " + std::to_string(dev.frames()) + " frames on the device, " +
              std::to_string(cpu.frames()) + " on the CPU");
        return;
    }
    const readouts got(dev), want(cpu);
    compare_histograms(f, what, c, cpu.frames(), got.hist, want.hist);
    compare_rows(f, what + " (average)", got.avg, want.avg, c.width);
    compare_rows(f, what + " (max-hold)", got.peak, want.peak, c.width);
    compare_rows(f, what + " (waterfall)", got.fall, want.fall, c.width);
    // The newest frame's peak bin behind four columns spread over the
    // width and over all bins (each a read from the device: a few keep the
    // suite's time): known on both or neither; the same bin but where two
    // of a range's bins are within the backends' rounding (noise).
    std::size_t differ = 0, ranges = 0;
    for (std::size_t k = 0; k <= 4; ++k) {
        const auto [b0, b1] = k < 4 ? gpufft::display_column_bins(c, k * (c.width - 1) / 3)
                                    : std::make_pair(std::size_t(0), c.n);
        std::size_t a = 0, b = 0;
        const bool known = dev.newest_peak_bin(b0, b1, a);
        if (known != cpu.newest_peak_bin(b0, b1, b)) {
            f.add(what + ": the peak bin of [" + std::to_string(b0) + ", " + std::to_string(b1) +
                  ") known on one backend only");
            return;
        }
        ranges += known;
        differ += known && a != b;
        if (known && !(a >= b0 && a < b1))
            f.add(what + ": the peak bin " + std::to_string(a) + " outside [" + std::to_string(b0) + ", " +
                  std::to_string(b1) + ")");
    }
    if (differ > 1)
        f.add(what + ": " + std::to_string(differ) + " of " + std::to_string(ranges) +
              " ranges' peak bins differ between the backends");
}

//! `samples` raw samples: noise (fill_random) and a tone at a quarter of full scale.
std::vector<unsigned char> test_signal(sample_format f, std::size_t samples, const std::string& tag)
{
    std::vector<cf> x(samples);
    fill_random(x.data(), samples, tag);
    for (std::size_t j = 0; j < samples; ++j)
        x[j] = 0.5f * x[j] + std::polar(0.25f, float(2 * M_PI * 0.1234 * double(j)));
    std::vector<unsigned char> raw(samples * gpufft::sample_bytes(f));
    const float* v = reinterpret_cast<const float*>(x.data());
    for (std::size_t i = 0; i < 2 * samples; ++i)
        if (f == sample_format::cf32) {
            std::memcpy(raw.data() + 4 * i, v + i, 4);
        } else {
            const auto s = std::int16_t(std::lround(v[i] * 32767.0f));
            std::memcpy(raw.data() + 2 * i, &s, 2);
        }
    return raw;
}

//! One configuration on both backends, with every runtime setter between pushes.
void check_config(failures& f, spectrum_config s, const display_config& c, std::mt19937_64& g)
{
    const std::string name = describe(s, c);
    s.backend = "opencl";
    spectrum_display dev(s, c);
    s.backend = "simd";
    spectrum_display cpu(s, c);
    if (dev.backend().compare(0, 7, "opencl:") != 0) {
        f.add(name + ": the display runs on " + dev.backend() + ", not the opencl chain");
        return;
    }
    const std::size_t frame_bytes = s.fft_size * gpufft::sample_bytes(s.format);
    const auto raw = test_signal(s.format, 40 * s.fft_size, name);
    std::size_t at = 0;
    // Pushes a random part of the signal (whole frames or not) to both.
    const auto push = [&](const std::string& step) {
        const std::size_t bytes = std::min(raw.size() - at, frame_bytes * (1 + g() % 6) + g() % frame_bytes);
        const std::size_t a = dev.push_bytes(raw.data() + at, bytes), b = cpu.push_bytes(raw.data() + at, bytes);
        at += bytes;
        if (a != b)
            f.add(name + " " + step + ": push displayed " + std::to_string(a) + " frames on the device, " +
                  std::to_string(b) + " on the CPU");
        compare(f, name + " " + step, dev, cpu);
    };
    compare(f, name + " before any frame", dev, cpu);
    push("first push");
    push("second push");
    const double lo = c.db_min + 5, hi = c.db_max - 3;
    dev.set_db_range(lo, hi);
    cpu.set_db_range(lo, hi);
    push("after set_db_range");
    dev.set_decay(0.7);
    cpu.set_decay(0.7);
    push("after set_decay");
    dev.reset_max_hold();
    cpu.reset_max_hold();
    push("after reset_max_hold");
    const auto other_resample =
        c.resample == display_resample::max ? display_resample::mean : display_resample::max;
    const auto other_average =
        c.average == display_average::linear ? display_average::exponential : display_average::linear;
    dev.set_resample(other_resample);
    cpu.set_resample(other_resample);
    dev.set_average(other_average, 0.3);
    cpu.set_average(other_average, 0.3);
    dev.set_max_hold(false);
    cpu.set_max_hold(false);
    push("after set_resample, set_average, set_max_hold(false)");
    dev.set_max_hold(true);
    cpu.set_max_hold(true);
    push("after set_max_hold(true)");
    // Zoomed: a range of more bins than columns, then one of fewer (each
    // bin over several columns), at random places.
    for (const std::size_t m : { c.width + 1 + g() % c.width, 1 + g() % c.width }) {
        const std::size_t bins = std::min(m, s.fft_size), begin = g() % (s.fft_size - bins + 1);
        dev.set_bin_range(begin, begin + bins);
        cpu.set_bin_range(begin, begin + bins);
        const std::string step = "after set_bin_range(" + std::to_string(begin) + ", " + std::to_string(begin + bins) + ")";
        compare(f, name + " " + step + ", before a frame", dev, cpu);
        push(step);
    }
    dev.reset();
    cpu.reset();
    // reset() drops a pending partial sample: go on from a sample's start.
    const std::size_t bps = gpufft::sample_bytes(s.format);
    at = std::min(raw.size(), (at + bps - 1) / bps * bps);
    compare(f, name + " after reset", dev, cpu);
    push("after reset");
    const std::size_t a = dev.flush(), b = cpu.flush();
    if (a != b)
        f.add(name + ": flush displayed " + std::to_string(a) + " frames on the device, " + std::to_string(b) +
              " on the CPU");
    compare(f, name + " after flush", dev, cpu);
}

class qa_opencl_display : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_opencl_display);
    CPPUNIT_TEST(across_backends);
    CPPUNIT_TEST(bad_input);
    CPPUNIT_TEST_SUITE_END();

public:
    /* N = 1024 (power of two), 1000 (mixed radix), 4410 (odd factors) with
     * W below and above N, both resample modes and both averages each;
     * N = 61 (Bluestein) and 16384 (two passes on PoCL) with W below and
     * above. Formats, overlaps and batches (3 frames: batches straddle the
     * pushes; 0: the engine's choice) rotate through the cases. */
    void across_backends()
    {
        auto g = rng_for("across_backends");
        failures f;
        std::size_t i = 0;
        const auto one = [&](std::size_t n, std::size_t w, display_resample resample, display_average average) {
            spectrum_config s;
            s.fft_size = n;
            s.format = i % 2 ? sample_format::cs16 : sample_format::cf32;
            s.overlap = i / 2 % 2 ? 0.5 : 0.0;
            s.batch = i / 4 % 2 ? 3 : 0;
            display_config c;
            c.width = w;
            c.height = 50 + g() % 150;
            c.db_min = -90 - double(g() % 20);
            c.db_max = -10 + double(g() % 10);
            c.decay = i % 3 ? 0.9 : 0.5;
            c.resample = resample;
            c.average = average;
            c.alpha = 0.05 + 0.9 * double(g() % 100) / 100;
            c.waterfall_rows = 1 + g() % 6;
            if (i % 3 == 2) { // a range from the start
                c.bin_begin = g() % (n / 2);
                c.bin_end = c.bin_begin + 1 + g() % (n - c.bin_begin);
            }
            ++i;
            try {
                check_config(f, s, c, g);
            } catch (const std::exception& e) {
                f.add(describe(s, c) + ": " + e.what());
            }
        };
        const std::size_t shapes[][3] = { { 1024, 300, 1500 }, { 1000, 256, 2000 }, { 4410, 1024, 5000 } };
        for (const auto& shape : shapes)
            for (std::size_t k = 1; k <= 2; ++k)
                for (auto resample : { display_resample::max, display_resample::mean })
                    for (auto average : { display_average::exponential, display_average::linear })
                        one(shape[0], shape[k], resample, average);
        one(61, 20, display_resample::max, display_average::linear);
        one(61, 137, display_resample::mean, display_average::exponential);
        one(16384, 1024, display_resample::mean, display_average::linear);
        one(16384, 20000, display_resample::max, display_average::exponential);
        f.report("device display vs CPU display");
        QA_ASSERT_NO_FAILURES(f);
    }

    // The device display checks its arguments as gpufft::display does.
    void bad_input()
    {
        spectrum_config s;
        s.backend = "opencl";
        display_config c;
        c.width = 0;
        expect_error("width 0", [&] { spectrum_display d(s, c); }, { "width" });
        c.width = 64;
        c.decay = 1;
        expect_error("decay 1", [&] { spectrum_display d(s, c); }, { "decay" });
        c.decay = 0.9;
        spectrum_display d(s, c);
        CPPUNIT_ASSERT_EQUAL(std::string("opencl:"), d.backend().substr(0, 7));
        std::vector<float> out(64 * 256);
        expect_error("set_decay 0", [&] { d.set_decay(0); }, { "decay" });
        expect_error("set_db_range", [&] { d.set_db_range(0, -1); }, { "dB range" });
        expect_error("set_average alpha", [&] { d.set_average(display_average::linear, 0); }, { "alpha" });
        expect_error("set_resample", [&] { d.set_resample(display_resample(5)); }, { "resample" });
        expect_error("waterfall rows 0", [&] { d.read_waterfall(out.data(), 0); }, { "rows" });
        expect_error("waterfall rows 2 of 1", [&] { d.read_waterfall(out.data(), 2); }, { "rows" });
        expect_error("read null", [&] { d.read_histogram(nullptr); }, { "null" });
        expect_error("read null average", [&] { d.read_average(nullptr); }, { "null" });
        expect_error("empty bin range", [&] { d.set_bin_range(5, 5); }, { "bin range" });
        expect_error("bin range past n", [&] { d.set_bin_range(0, 1025); }, { "bin range", "1024" });
        c.bin_begin = 1024;
        expect_error("bin_begin n", [&] { spectrum_display e(s, c); }, { "bin range" });
        // A failed setter changes nothing.
        CPPUNIT_ASSERT_EQUAL(0.9, d.display_settings().decay);
        CPPUNIT_ASSERT_EQUAL(-120.0, d.display_settings().db_min);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1024), d.display_settings().bin_end);
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_opencl_display, "opencl_display");

} // namespace

} // namespace qa

int main()
{
    for (const auto& b : gpufft::backends())
        if (b.name == "opencl" && !b.usable) {
            std::printf("qa_opencl_display: skipped, no usable OpenCL device: %s\n", b.reason.c_str());
            return 77;
        }
    const auto dev = gpufft::opencl::select_device("");
    std::printf("qa_opencl_display: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run); device %zu: %s: %s\n",
                (unsigned long long)qa::run_seed(), (unsigned long long)qa::run_seed(), dev.index,
                dev.platform.c_str(), dev.name.c_str());
    std::fflush(stdout);
    CppUnit::TextTestRunner runner;
    runner.addTest(CppUnit::TestFactoryRegistry::getRegistry("opencl_display").makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
