// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft display pipeline suite (include/gpufft/display.h): histogram
 * with decay, traces, waterfall and resampling against a reference computed
 * here in double from the header's definition; a tone and a noise floor
 * through the spectrum engine; runtime changes; bad parameters.
 *
 *   qa_display [SUITE...]    suites: display (the default)
 *
 * Random data is fresh each run; GPUFFT_TEST_SEED reproduces one. */
#include "qa_common.h"

#include <gpufft/display.h>
#include <gpufft/spectrum.h>
#include <gpufft/spectrum_display.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <sstream>

namespace qa {

namespace {

using gpufft::display;
using gpufft::display_average;
using gpufft::display_config;
using gpufft::display_resample;

constexpr double nan_d = std::numeric_limits<double>::quiet_NaN();
// Written into every output before a read-out: an element left unwritten keeps it.
constexpr float unwritten = -7.25e33f;

std::string describe(const display_config& c)
{
    std::ostringstream s;
    s << "n=" << c.n << " W=" << c.width << " H=" << c.height << " dB [" << c.db_min << ", " << c.db_max
      << "] decay=" << c.decay << " resample=" << (c.resample == display_resample::max ? "max" : "mean")
      << " average=" << (c.average == display_average::exponential ? "exp" : "linear") << " alpha=" << c.alpha
      << " max_hold=" << c.max_hold << " rows=" << c.waterfall_rows << " bins [" << c.bin_begin << ", "
      << (c.bin_end ? c.bin_end : c.n) << ")";
    return s.str();
}

//! The header's definition in double, written from its text, step by step.
class reference
{
public:
    explicit reference(const display_config& c) : c(c), hist(c.width * c.height, 0.0) { clear(); }

    void clear()
    {
        std::fill(hist.begin(), hist.end(), 0.0);
        avg.assign(c.width, nan_d);
        peak.assign(c.width, nan_d);
        rows.clear();
        avg_count = 0;
        peak_started = false;
    }

    std::size_t begin() const { return c.bin_begin; }
    std::size_t bins() const { return (c.bin_end ? c.bin_end : c.n) - c.bin_begin; } // m
    std::size_t b0(std::size_t col) const { return begin() + col * bins() / c.width; }
    std::size_t b1(std::size_t col) const { return std::max(b0(col) + 1, begin() + (col + 1) * bins() / c.width); }

    //! Step 1, in double.
    std::vector<double> columns(const float* x) const
    {
        std::vector<double> v(c.width);
        for (std::size_t col = 0; col < c.width; ++col) {
            double acc = c.resample == display_resample::max ? -INFINITY : 0.0;
            for (std::size_t i = b0(col); i < b1(col); ++i)
                acc = c.resample == display_resample::max ? std::max(acc, double(x[i])) : acc + x[i];
            v[col] = c.resample == display_resample::max ? acc : acc / double(b1(col) - b0(col));
        }
        return v;
    }

    //! Step 2 without the clamp: the row coordinate.
    double row_coordinate(double v) const { return (v - c.db_min) * double(c.height) / (c.db_max - c.db_min); }

    std::size_t row(double v) const
    {
        const double t = std::floor(row_coordinate(v));
        return !(t >= 0) ? 0 : t >= double(c.height) ? c.height - 1 : std::size_t(t);
    }

    /*!
     * Moves frame values whose column value lies within 1e-3 rows of a row
     * boundary by 0.01 rows (float rounding may put those in either row,
     * header step 2): the column's max, or its first bin for the mean.
     */
    void keep_off_boundaries(float* x) const
    {
        const auto v = columns(x);
        const double row_db = (c.db_max - c.db_min) / double(c.height);
        for (std::size_t col = 0; col < c.width; ++col) {
            const double t = row_coordinate(v[col]);
            if (!(t > 0.5 && t < double(c.height) - 0.5) || std::abs(t - std::round(t)) > 1e-3)
                continue;
            const std::size_t len = b1(col) - b0(col);
            float* at = x + b0(col);
            if (c.resample == display_resample::max)
                at = std::max_element(x + b0(col), x + b1(col));
            *at = float(*at + 0.01 * row_db * double(c.resample == display_resample::max ? 1 : len));
        }
    }

    void push(const float* x)
    {
        const auto v = columns(x);
        for (auto& h : hist)
            h *= c.decay;
        for (std::size_t col = 0; col < c.width; ++col)
            hist[row(v[col]) * c.width + col] += 1.0;
        ++avg_count;
        for (std::size_t col = 0; col < c.width; ++col) {
            double& a = avg[col];
            if (avg_count == 1)
                a = v[col];
            else if (c.average == display_average::exponential)
                a = c.alpha * v[col] + (1 - c.alpha) * a;
            else
                a += (v[col] - a) / double(avg_count);
            if (c.max_hold)
                peak[col] = peak_started ? std::max(peak[col], v[col]) : v[col];
        }
        peak_started = c.max_hold;
        rows.push_back(v);
    }

    display_config c;
    std::vector<double> hist, avg, peak;
    std::vector<std::vector<double>> rows;
    std::size_t avg_count = 0;
    bool peak_started = false;
};

//! Compares every read-out of `d` with `ref`; failures go to `f`.
void compare(failures& f, const std::string& what, const display& d, const reference& ref)
{
    const auto& c = d.config();
    const std::size_t w = c.width;
    std::vector<float> hist(w * c.height, unwritten), avg(w, unwritten), peak(w, unwritten);
    d.read_histogram(hist.data());
    d.read_average(avg.data());
    d.read_max_hold(peak.data());
    const double steady = 1.0 / (1.0 - c.decay);
    for (std::size_t i = 0; i < hist.size(); ++i) {
        f.checked();
        if (!(std::abs(hist[i] - ref.hist[i]) <= 1e-5 * steady)) {
            std::ostringstream m;
            m << what << ": histogram row " << i / w << " column " << i % w << " = " << hist[i] << ", want "
              << ref.hist[i];
            f.add(m.str());
            return;
        }
    }
    // Equal, or both NaN ("no data").
    const auto same = [](double got, double want, double tol) {
        return std::isnan(want) ? std::isnan(got) : std::abs(got - want) <= tol;
    };
    for (std::size_t col = 0; col < w; ++col) {
        f.checked();
        if (!same(avg[col], ref.avg[col], 1e-3) || !same(peak[col], ref.peak[col], 1e-4)) {
            std::ostringstream m;
            m << what << ": column " << col << " average " << avg[col] << " max-hold " << peak[col] << ", want "
              << ref.avg[col] << ", " << ref.peak[col];
            f.add(m.str());
            return;
        }
    }
    const std::size_t rows = c.waterfall_rows;
    std::vector<float> fall(rows * w, unwritten);
    d.read_waterfall(fall.data(), rows);
    for (std::size_t j = 0; j < rows; ++j) {
        // Row j of the read-out is frame (pushed - rows + j); older than the first: NaN.
        const std::size_t pushed = ref.rows.size();
        const bool exists = pushed + j >= rows;
        for (std::size_t col = 0; col < w; ++col) {
            const double want = exists ? ref.rows[pushed + j - rows][col] : nan_d;
            f.checked();
            if (!same(fall[j * w + col], want, 1e-4)) {
                std::ostringstream m;
                m << what << ": waterfall row " << j << " of " << rows << " column " << col << " = "
                  << fall[j * w + col] << ", want " << want;
                f.add(m.str());
                return;
            }
        }
    }
}

//! `count` frames of dB values uniform in [db_min - 10, db_max + 10], so some clamp.
std::vector<float> random_frames(std::mt19937_64& g, const display_config& c, std::size_t count)
{
    std::uniform_real_distribution<float> u(float(c.db_min - 10), float(c.db_max + 10));
    std::vector<float> x(count * c.n);
    for (auto& v : x)
        v = u(g);
    return x;
}

class qa_display : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_display);
    CPPUNIT_TEST(against_reference);
    CPPUNIT_TEST(tone_and_noise_floor);
    CPPUNIT_TEST(runtime_changes);
    CPPUNIT_TEST(edges);
    CPPUNIT_TEST(bad_input);
    CPPUNIT_TEST(spectrum_display_is_spectrum_then_display);
    CPPUNIT_TEST_SUITE_END();

public:
    // Every read-out after every batch, over sizes with even and uneven runs
    // of bins per column, short (inline) and long (VOLK) runs, and W > n;
    // decays that fold the scale every few frames (1e-3) or every ~60 (0.5).
    // Bin ranges: the whole frame, and (from the third shape on) a part
    // that starts and ends inside it, of more bins than columns or fewer.
    void against_reference()
    {
        auto g = rng_for("reference");
        failures f;
        const std::size_t shapes[][4] = { // n, W, bin_begin, bin_end (0: n)
                                          { 64, 64, 0, 0 },      { 1000, 128, 0, 0 },  { 4096, 100, 0, 0 },
                                          { 50, 137, 0, 0 },     { 7, 3, 0, 0 },       { 1, 5, 0, 0 },
                                          { 4096, 100, 1234, 2999 }, { 4096, 256, 2000, 2064 },
                                          { 1000, 128, 999, 1000 },  { 50, 137, 0, 31 },  { 7, 3, 2, 6 } };
        for (const auto& shape : shapes)
            for (auto resample : { display_resample::max, display_resample::mean })
                for (auto average : { display_average::exponential, display_average::linear })
                    for (double decay : { 0.9, 0.5, 1e-3 }) {
                        display_config c;
                        c.n = shape[0];
                        c.width = shape[1];
                        c.bin_begin = shape[2];
                        c.bin_end = shape[3];
                        c.height = 1 + g() % 200;
                        c.db_min = -100 - double(g() % 20);
                        c.db_max = c.db_min + 10 + double(g() % 100);
                        c.decay = decay;
                        c.resample = resample;
                        c.average = average;
                        c.alpha = 0.05 + 0.9 * double(g() % 100) / 100;
                        c.max_hold = g() % 4 != 0;
                        c.waterfall_rows = 1 + g() % 6;
                        display d(c);
                        reference ref(c);
                        compare(f, describe(c) + " before any frame", d, ref);
                        std::size_t bin = 0;
                        CPPUNIT_ASSERT(!d.newest_peak_bin(0, c.n, bin));
                        std::vector<float> newest;
                        for (std::size_t batch : { 1, 3, 1, 40, 90 }) {
                            auto x = random_frames(g, c, batch);
                            for (std::size_t k = 0; k < batch; ++k) {
                                ref.keep_off_boundaries(x.data() + k * c.n);
                                ref.push(x.data() + k * c.n);
                            }
                            d.push(x.data(), batch);
                            compare(f, describe(c) + " after " + std::to_string(ref.rows.size()) + " frames", d, ref);
                            newest.assign(x.end() - std::ptrdiff_t(c.n), x.end());
                        }
                        CPPUNIT_ASSERT_EQUAL(ref.rows.size(), d.frames());
                        const display_config& resolved = d.config();
                        for (std::size_t col = 0; col < c.width; ++col) {
                            CPPUNIT_ASSERT(d.column_bins(col) == std::make_pair(ref.b0(col), ref.b1(col)));
                            CPPUNIT_ASSERT(gpufft::display_column_bins(resolved, col) == d.column_bins(col));
                            // The bin that gave the column its max in the newest frame.
                            const std::size_t want =
                                std::size_t(std::max_element(newest.begin() + std::ptrdiff_t(ref.b0(col)),
                                                             newest.begin() + std::ptrdiff_t(ref.b1(col))) -
                                            newest.begin());
                            CPPUNIT_ASSERT(d.newest_peak_bin(ref.b0(col), ref.b1(col), bin));
                            CPPUNIT_ASSERT_EQUAL(want, bin);
                        }
                        // Each bin's column: the last whose bins hold it.
                        for (std::size_t b = resolved.bin_begin; b < resolved.bin_end; ++b) {
                            const std::size_t col = gpufft::display_bin_column(resolved, b);
                            CPPUNIT_ASSERT_MESSAGE(describe(c) + " bin " + std::to_string(b),
                                                   col < c.width && ref.b0(col) <= b && b < ref.b1(col) &&
                                                       (col + 1 == c.width || ref.b0(col + 1) > b));
                        }
                        // Bins outside the range shown hold no number.
                        if (resolved.bin_begin > 0)
                            CPPUNIT_ASSERT(!d.newest_peak_bin(0, resolved.bin_begin, bin));
                    }
        f.report("display reference");
        QA_ASSERT_NO_FAILURES(f);
    }

    // Complex noise plus a tone through gpufft::spectrum (shifted dB), then
    // the display: the tone is the top of the column its frequency maps to
    // (max resampling), and the noise fills the row of its mean dB level
    // (mean resampling), 10 log10(E|x|^2 / N) - 2.51 dB: logpwrfft's scale
    // puts the mean power of white noise at E|x|^2 / N, and the mean of the
    // dB of an exponential variable lies 10 gamma / ln 10 = 2.507 dB below
    // the dB of its mean (gamma: Euler's constant).
    void tone_and_noise_floor()
    {
        auto g = rng_for("tone");
        const std::size_t n = 4096, w = 64, frames = 40;
        gpufft::spectrum_config sc;
        sc.fft_size = n;
        sc.shift = true;
        sc.sample_rate = 1e6;
        sc.scale = gpufft::level_scale::logpwrfft; // the floor's level below
        gpufft::spectrum s(sc);
        const std::size_t bin = 1 + g() % (n - 2); // FFT bin of the tone
        const double tone_hz = (bin < n / 2 ? double(bin) : double(bin) - double(n)) * 1e6 / double(n);
        std::vector<cf> x(frames * n);
        fill_random(x.data(), x.size(), "tone noise"); // E|x|^2 = 2/3
        for (std::size_t j = 0; j < x.size(); ++j)
            x[j] += cf(std::polar(1.0, 2 * M_PI * double(j * bin % n) / double(n)));
        std::vector<float> spectra;
        s.push(x.data(), x.size(), [&](const float* p, std::size_t k) { spectra.insert(spectra.end(), p, p + k); });
        s.flush([&](const float* p, std::size_t k) { spectra.insert(spectra.end(), p, p + k); });
        CPPUNIT_ASSERT_EQUAL(frames * n, spectra.size());

        display_config c;
        c.n = n;
        c.width = w;
        c.height = 100; // 1 dB rows
        c.db_min = -100;
        c.db_max = 0;
        // The column whose bins hold the tone's frequency: shifted bin i is at (i - n/2) fs / n.
        const auto i = std::size_t(std::lround(tone_hz * double(n) / 1e6)) + n / 2;
        const std::size_t tone_col = i * w / n;
        std::vector<float> hist(w * c.height, unwritten);
        {
            display d(c);
            d.push(spectra.data(), frames);
            d.read_histogram(hist.data());
            std::size_t top_col = 0, top_row = 0;
            for (std::size_t r = 0; r < c.height; ++r)
                for (std::size_t col = 0; col < w; ++col)
                    if (hist[r * w + col] > 0.5f && r >= top_row)
                        top_row = r, top_col = col;
            std::ostringstream m;
            m << "tone at bin " << bin << " (" << tone_hz << " Hz): top of the histogram in column " << top_col
              << " row " << top_row << ", want column " << tone_col;
            CPPUNIT_ASSERT_MESSAGE(m.str(), top_col == tone_col && top_row >= 90);
        }
        c.resample = display_resample::mean;
        display d(c);
        d.push(spectra.data(), frames);
        d.read_histogram(hist.data());
        // The noise columns' hits per row, summed over columns.
        std::vector<double> per_row(c.height, 0.0);
        for (std::size_t r = 0; r < c.height; ++r)
            for (std::size_t col = 0; col < w; ++col)
                if (col != tone_col)
                    per_row[r] += hist[r * w + col];
        const std::size_t mode = std::size_t(std::max_element(per_row.begin(), per_row.end()) - per_row.begin());
        const double floor_db = 10 * std::log10(2.0 / 3.0 / double(n)) - 2.507;
        const auto want = std::size_t(std::floor(floor_db - c.db_min));
        std::ostringstream m;
        m << "noise floor " << floor_db << " dB: most hits in row " << mode << ", want row " << want << " +- 1";
        CPPUNIT_ASSERT_MESSAGE(m.str(), mode + 1 >= want && mode <= want + 1);
        std::printf("tone: column %zu of %zu; noise floor row %zu (%.2f dB)\n", tone_col, w, mode, floor_db);
    }

    // Each setter against the reference changed the same way between batches.
    void runtime_changes()
    {
        auto g = rng_for("runtime");
        failures f;
        display_config c;
        c.n = 300;
        c.width = 70;
        c.height = 50;
        c.db_min = -90;
        c.db_max = -10;
        c.decay = 0.8;
        c.waterfall_rows = 4;
        display d(c);
        reference ref(c);
        const auto step = [&](const std::string& what) {
            auto x = random_frames(g, ref.c, 7);
            for (std::size_t k = 0; k < 7; ++k) {
                ref.keep_off_boundaries(x.data() + k * c.n);
                ref.push(x.data() + k * c.n);
            }
            d.push(x.data(), 7);
            compare(f, what, d, ref);
        };
        step("start");
        d.set_decay(0.3);
        ref.c.decay = 0.3;
        step("decay 0.3");
        d.set_db_range(-60, 20);
        ref.c.db_min = -60;
        ref.c.db_max = 20;
        std::fill(ref.hist.begin(), ref.hist.end(), 0.0);
        step("dB range [-60, 20]");
        d.set_resample(display_resample::mean);
        ref.c.resample = display_resample::mean;
        step("mean");
        d.set_average(display_average::linear, 1.0);
        ref.c.average = display_average::linear;
        ref.avg_count = 0;
        step("linear average");
        d.set_max_hold(false);
        ref.c.max_hold = false;
        ref.peak.assign(c.width, nan_d);
        ref.peak_started = false;
        step("max-hold off");
        d.set_max_hold(true);
        ref.c.max_hold = true;
        step("max-hold on");
        d.reset_max_hold();
        ref.peak_started = false;
        step("max-hold reset");
        // A new bin range: every column means other bins (histogram 0,
        // traces and waterfall NaN until the next frame), the frame count goes on.
        for (const auto& range : { std::make_pair(17, 251), std::make_pair(100, 130), std::make_pair(0, 300) }) {
            const std::size_t frames = d.frames();
            d.set_bin_range(std::size_t(range.first), std::size_t(range.second));
            ref.c.bin_begin = std::size_t(range.first);
            ref.c.bin_end = std::size_t(range.second);
            const auto pushed = std::move(ref.rows);
            ref.clear();
            ref.rows.assign(pushed.size(), std::vector<double>(c.width, nan_d));
            const std::string what = "bins [" + std::to_string(range.first) + ", " + std::to_string(range.second) + ")";
            CPPUNIT_ASSERT_EQUAL(frames, d.frames());
            CPPUNIT_ASSERT_EQUAL(ref.b0(0), d.column_bins(0).first);
            CPPUNIT_ASSERT_EQUAL(ref.b1(c.width - 1), d.column_bins(c.width - 1).second);
            compare(f, what + " before a frame", d, ref);
            step(what);
        }
        d.reset();
        ref.clear();
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), d.frames());
        compare(f, "reset", d, ref);
        step("after reset");
        QA_ASSERT_NO_FAILURES(f);
    }

    // -inf and NaN land in row 0, values above db_max in the top row; a
    // steady column converges to 1 / (1 - decay), decay close to 1 included;
    // frame by frame across the folds of the histogram's scale (every 60
    // frames at decay 0.5, every frame at 1e-30).
    void edges()
    {
        for (double decay : { 0.5, 1e-30 }) {
            display_config c;
            c.n = c.width = 1;
            c.height = 2;
            c.decay = decay;
            display d(c);
            const float frame = -100.0f; // row 0 of [-120, 0]
            float cell[2];
            for (std::size_t t = 1; t <= 200; ++t) {
                d.push(&frame, 1);
                d.read_histogram(cell);
                const double want = (1 - std::pow(decay, double(t))) / (1 - decay);
                std::ostringstream m;
                m << "decay " << decay << " frame " << t << ": " << cell[0] << ", " << cell[1] << ", want " << want;
                CPPUNIT_ASSERT_MESSAGE(m.str(), std::abs(cell[0] - want) <= 1e-5 * want && cell[1] == 0.0f);
            }
        }
        display_config c;
        c.n = 4;
        c.width = 4;
        c.height = 10;
        c.db_min = -50;
        c.db_max = 0;
        c.decay = 0.999;
        display d(c);
        const float frame[4] = { -INFINITY, std::numeric_limits<float>::quiet_NaN(), 1e30f, -25.0f };
        const std::size_t frames = 20000;
        std::vector<float> x(frames * 4);
        for (std::size_t k = 0; k < frames; ++k)
            std::copy(frame, frame + 4, x.begin() + std::ptrdiff_t(4 * k));
        d.push(x.data(), frames);
        std::vector<float> hist(40, unwritten);
        d.read_histogram(hist.data());
        const double want = (1 - std::pow(0.999, double(frames))) / (1 - 0.999);
        const std::size_t rows[4] = { 0, 0, 9, 5 };
        for (std::size_t col = 0; col < 4; ++col)
            for (std::size_t r = 0; r < 10; ++r) {
                const double expect = r == rows[col] ? want : 0.0;
                std::ostringstream m;
                m << "column " << col << " row " << r << " = " << hist[r * 4 + col] << ", want " << expect;
                CPPUNIT_ASSERT_MESSAGE(m.str(), std::abs(hist[r * 4 + col] - expect) <= 1e-3 * want);
            }
    }

    void bad_input()
    {
        const auto with = [](const std::function<void(display_config&)>& edit) {
            return [edit] {
                display_config c;
                edit(c);
                display d(c);
            };
        };
        expect_error("n 0", with([](auto& c) { c.n = 0; }), { "n (bins" });
        expect_error("width 0", with([](auto& c) { c.width = 0; }), { "width" });
        expect_error("height 0", with([](auto& c) { c.height = 0; }), { "height" });
        expect_error("waterfall_rows 0", with([](auto& c) { c.waterfall_rows = 0; }), { "waterfall_rows" });
        expect_error("huge histogram", with([](auto& c) { c.width = c.height = std::size_t(1) << 15; }),
                     { "width", "height" });
        expect_error("decay 0", with([](auto& c) { c.decay = 0; }), { "decay" });
        expect_error("decay 1", with([](auto& c) { c.decay = 1; }), { "decay" });
        expect_error("decay -0.5", with([](auto& c) { c.decay = -0.5; }), { "decay" });
        expect_error("decay NaN", with([](auto& c) { c.decay = nan_d; }), { "decay" });
        expect_error("empty dB range", with([](auto& c) { c.db_min = c.db_max = -10; }), { "dB range" });
        expect_error("inverted dB range", with([](auto& c) { c.db_min = 0, c.db_max = -100; }), { "dB range" });
        expect_error("NaN db_min", with([](auto& c) { c.db_min = nan_d; }), { "dB range" });
        expect_error("infinite db_max", with([](auto& c) { c.db_max = INFINITY; }), { "dB range" });
        expect_error("too narrow dB range", with([](auto& c) { c.db_min = -1e-300, c.db_max = 0; }), { "dB range" });
        expect_error("alpha 0", with([](auto& c) { c.alpha = 0; }), { "alpha" });
        expect_error("alpha 1.5", with([](auto& c) { c.alpha = 1.5; }), { "alpha" });
        expect_error("resample 7", with([](auto& c) { c.resample = display_resample(7); }), { "resample" });
        expect_error("average 7", with([](auto& c) { c.average = display_average(7); }), { "average" });
        expect_error("empty bin range", with([](auto& c) { c.bin_begin = c.bin_end = 5; }), { "bin range" });
        expect_error("bin_begin n", with([](auto& c) { c.bin_begin = c.n; }), { "bin range" });
        expect_error("bin_end past n", with([](auto& c) { c.bin_end = c.n + 1; }), { "bin range", "1024" });
        expect_error("resample name", [] { gpufft::parse_display_resample("median"); }, { "resample", "median" });
        expect_error("average name", [] { gpufft::parse_display_average("peak"); }, { "average", "peak" });
        CPPUNIT_ASSERT(gpufft::parse_display_resample("mean") == display_resample::mean);
        CPPUNIT_ASSERT(gpufft::parse_display_average("exp") == display_average::exponential);

        display d{ display_config() };
        std::vector<float> out(1024 * 8);
        expect_error("set_decay 1", [&] { d.set_decay(1); }, { "decay" });
        expect_error("set_db_range", [&] { d.set_db_range(5, 5); }, { "dB range" });
        expect_error("set_average alpha", [&] { d.set_average(display_average::linear, 2); }, { "alpha" });
        expect_error("set_resample", [&] { d.set_resample(display_resample(9)); }, { "resample" });
        expect_error("waterfall rows 0", [&] { d.read_waterfall(out.data(), 0); }, { "rows" });
        expect_error("waterfall rows 2 of 1", [&] { d.read_waterfall(out.data(), 2); }, { "rows" });
        expect_error("column 1024", [&] { d.column_bins(1024); }, { "column" });
        std::size_t bin = 0;
        expect_error("newest_peak_bin empty", [&] { d.newest_peak_bin(7, 7, bin); }, { "bin range" });
        expect_error("newest_peak_bin past n", [&] { d.newest_peak_bin(0, 1025, bin); }, { "bin range", "1024" });
        expect_error("display_bin_column 1024", [&] { gpufft::display_bin_column(d.config(), 1024); },
                     { "bin 1024", "[0, 1024)" });
        // A frame's peak bin, forgotten by a new bin range and by reset().
        display e{ display_config() };
        std::vector<float> frame(1024, -90.0f);
        frame[300] = -10;
        e.push(frame.data(), 1);
        CPPUNIT_ASSERT(e.newest_peak_bin(290, 310, bin) && bin == 300);
        e.set_bin_range(256, 512);
        CPPUNIT_ASSERT(!e.newest_peak_bin(290, 310, bin));
        e.push(frame.data(), 1);
        CPPUNIT_ASSERT(e.newest_peak_bin(0, 1024, bin) && bin == 300);
        e.reset();
        CPPUNIT_ASSERT(!e.newest_peak_bin(0, 1024, bin));
        expect_error("set_bin_range empty", [&] { d.set_bin_range(7, 7); }, { "bin range" });
        expect_error("set_bin_range inverted", [&] { d.set_bin_range(8, 7); }, { "bin range" });
        expect_error("set_bin_range past n", [&] { d.set_bin_range(0, 1025); }, { "bin range", "1024" });
        expect_error("push null", [&] { d.push(nullptr, 1); }, { "null" });
        expect_error("read null", [&] { d.read_histogram(nullptr); }, { "null" });
        // A failed setter changes nothing.
        CPPUNIT_ASSERT_EQUAL(0.99, d.config().decay);
        CPPUNIT_ASSERT_EQUAL(-120.0, d.config().db_min);
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), d.config().bin_begin);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1024), d.config().bin_end); // 0 resolved to n
    }
    // gpufft::spectrum_display on raw bytes equals gpufft::spectrum (one dB,
    // shifted frame per output) feeding gpufft::display, whatever the
    // spectrum settings it must override say, fed by push_bytes() and by
    // acquire()/commit().
    void spectrum_display_is_spectrum_then_display()
    {
        auto g = rng_for("spectrum_display");
        gpufft::spectrum_config sc;
        sc.fft_size = 1000;
        sc.format = gpufft::sample_format::cu8;
        sc.overlap = 0.25;
        sc.batch = 7;
        display_config dc;
        dc.width = 300;
        dc.height = 80;
        dc.waterfall_rows = 5;
        std::vector<unsigned char> raw(2 * 23456);
        for (auto& b : raw)
            b = static_cast<unsigned char>(g());

        gpufft::spectrum_config parts = sc;
        parts.shift = true;
        gpufft::spectrum s(parts);
        display_config pc = dc;
        pc.n = sc.fft_size;
        display want(pc);
        const auto sink = [&](const float* db, std::size_t) { want.push(db, 1); };
        s.push_bytes(raw.data(), raw.size(), sink);
        s.flush(sink);

        sc.average = gpufft::averaging::peak_hold; // overridden: one frame per output
        sc.frames_per_output = 9;
        sc.db = false;
        gpufft::spectrum_display got(sc, dc);
        std::size_t shown = got.push_bytes(raw.data(), 1001); // a partial sample stays pending
        // The rest through acquire()/commit() in odd spans.
        for (std::size_t at = 1001; at < raw.size();) {
            const gpufft::input_span span = got.acquire(std::min<std::size_t>(777, raw.size() - at));
            std::memcpy(span.data, raw.data() + at, span.bytes);
            shown += got.commit(span.bytes);
            at += span.bytes;
        }
        shown += got.flush();
        CPPUNIT_ASSERT_EQUAL(want.frames(), shown);
        CPPUNIT_ASSERT_EQUAL(want.frames(), got.frames());

        const auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
            for (std::size_t i = 0; i < a.size(); ++i)
                if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))))
                    return false;
            return true;
        };
        std::vector<float> a(dc.width * dc.height, unwritten), b(a.size(), unwritten);
        want.read_histogram(a.data());
        got.read_histogram(b.data());
        CPPUNIT_ASSERT_MESSAGE("histogram", same(a, b));
        a.assign(dc.width * dc.waterfall_rows, unwritten);
        b.assign(a.size(), unwritten);
        want.read_waterfall(a.data(), dc.waterfall_rows);
        got.read_waterfall(b.data(), dc.waterfall_rows);
        CPPUNIT_ASSERT_MESSAGE("waterfall", same(a, b));
        a.assign(dc.width, unwritten);
        b.assign(dc.width, unwritten);
        want.read_max_hold(a.data());
        got.read_max_hold(b.data());
        CPPUNIT_ASSERT_MESSAGE("max hold", same(a, b));
        CPPUNIT_ASSERT_EQUAL(s.bin_hz(0), got.bin_hz(0));
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_display, "display");

} // namespace

} // namespace qa

int main(int argc, char** argv)
{
    std::printf("qa_display: seed %llu (GPUFFT_TEST_SEED=%llu reproduces this run)\n",
                (unsigned long long)qa::run_seed(), (unsigned long long)qa::run_seed());
    CppUnit::TextTestRunner runner;
    std::vector<std::string> suites(argv + 1, argv + argc);
    if (suites.empty())
        suites = { "display" };
    for (const auto& s : suites)
        runner.addTest(CppUnit::TestFactoryRegistry::getRegistry(s).makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
