// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft display widget, C++ suite: the display sinks' Qt5 widget
 * (lib/gnuradio/display_widget.h) drawn headless (QT_QPA_PLATFORM=offscreen)
 * and grabbed to an image. A display is fed synthetic dB frames (a floor at
 * one level, a tone in one bin), so where each must be drawn follows from the
 * axis definition alone; the test computes those pixels itself from the plot
 * rectangle, the centre frequency, the sample rate and N, and finds them in
 * the image. Also: zoom by key and wheel, pan by drag, a click's frequency,
 * freeze, and the display sinks' bad parameters.
 *
 *   qa_display_widget          every suite (display_widget, display_sink_params)
 *
 * The grabbed images are written to qa_display_widget_*.png in the working
 * directory (look at them).
 */
#include "display_sink_core.h"
#include "display_widget.h"

#include <gpufft/error.h>
#include <gpufft/gnuradio/display_sink_c.h>
#include <gpufft/gnuradio/display_sink_f.h>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QKeyEvent>
#include <QTemporaryDir>
#include <QLabel>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QScreen>
#include <QSplitter>
#include <QThread>
#include <QWheelEvent>
#include <cppunit/TestAssert.h>
#include <cppunit/TextTestRunner.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cppunit/extensions/TestFactoryRegistry.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

using gr::gpufft::display_sink_core;
using gr::gpufft::display_sink_settings;
using gr::gpufft::display_widget;

namespace {

constexpr std::size_t n = 1024;     // bins
constexpr std::size_t width = 512;  // display columns: 2 bins each
constexpr std::size_t height = 200; // histogram rows: 0.6 dB each
constexpr double fc = 100e6, fs = 2.048e6; // 2 kHz bins
constexpr double floor_db = -80, tone_db = -20;
constexpr std::size_t tone_bin = n / 2 + 200; // fc + 400 kHz

// Bin k (fftshifted) is centred on fc + (k - n/2) fs / n; the band starts half a bin before bin 0.
double bin_centre(std::size_t k) { return fc + (double(k) - double(n / 2)) * fs / double(n); }

// The pixel column a frequency falls in, for a plot showing [lo, hi] over `plot`.
int pixel_of(double hz, const QRect& plot, double lo, double hi)
{
    return plot.left() + int(std::floor((hz - lo) / (hi - lo) * plot.width()));
}
// The pixel row of a dB value on the spectrum plot (db_max 0 at the top, range 120).
double row_of(double db, const QRect& plot) { return plot.top() + (0.0 - db) / 120.0 * plot.height(); }

int grey(const QImage& img, int x, int y) { return qRed(img.pixel(x, y)); }

// The columns of row y in [x0, x1] where the image is brightest.
std::vector<int> brightest_columns(const QImage& img, int y, int x0, int x1)
{
    int best = -1;
    std::vector<int> at;
    for (int x = x0; x <= x1; ++x) {
        const int v = grey(img, x, y);
        if (v > best) {
            best = v;
            at.clear();
        }
        if (v == best)
            at.push_back(x);
    }
    return at;
}

// The row of column x in [y0, y1] where the image is brightest (the middle one of
// ties); -1 for an empty range.
int brightest_row(const QImage& img, int x, int y0, int y1)
{
    int best = -1;
    std::vector<int> at;
    for (int y = y0; y <= y1; ++y) {
        const int v = grey(img, x, y);
        if (v > best) {
            best = v;
            at.clear();
        }
        if (v == best)
            at.push_back(y);
    }
    return at.empty() ? -1 : at[at.size() / 2];
}

// The brightest columns are a narrow run (a display column or two wide at
// most zooms here, not a flat row) at x, within a pixel.
bool at_pixel(const std::vector<int>& xs, int x)
{
    return xs.size() <= 6 && std::any_of(xs.begin(), xs.end(), [&](int v) { return std::abs(v - x) <= 1; });
}

std::string list(const std::vector<int>& xs)
{
    std::string s;
    for (int x : xs)
        s += (s.empty() ? "" : " ") + std::to_string(x);
    return s;
}

//! A widget over a real display (the display_sink_f path), fed by hand.
struct fixture {
    const std::size_t bins;
    display_sink_settings settings;
    std::shared_ptr<display_sink_core<::gpufft::display>> core;
    std::unique_ptr<display_widget> widget;
    std::vector<double> clicks;

    explicit fixture(std::size_t bins = n, std::size_t columns = width)
        : bins(bins), settings{ fc, fs, 0.0, 120.0, 0.9, 30.0, "grey", int(columns), int(height), "dB" }
    {
        core = std::make_shared<display_sink_core<::gpufft::display>>(
            std::make_unique<::gpufft::display>(settings.display(bins)), settings, "test");
        core->on_click([this](double hz) { clicks.push_back(hz); });
        widget = std::make_unique<display_widget>(core, settings.colormap, settings.frame_rate, settings.level_unit);
        widget->resize(900, 700);
        widget->show();
        QApplication::processEvents();
        // Lines off: the histogram's own pixels are measured.
        widget->set_show_average(false);
        core->set_max_hold(false);
    }

    //! `count` frames: every bin at floor_db, the bins `tones` at tone_db.
    void push(const std::vector<std::size_t>& tones, std::size_t count = 50)
    {
        std::vector<float> frames(bins * count, float(floor_db));
        for (std::size_t f = 0; f < count; ++f)
            for (std::size_t t : tones)
                frames[f * bins + t] = float(tone_db);
        core->with_engine([&](::gpufft::display& d) { d.push(frames.data(), count); });
        widget->refresh();
    }
    void push(std::size_t tone, std::size_t count = 50) { push(std::vector<std::size_t>{ tone }, count); }

    //! The engine's bin range.
    std::pair<std::size_t, std::size_t> engine_bins()
    {
        return core->with_engine([](::gpufft::display& d) {
            return std::make_pair(d.config().bin_begin, d.config().bin_end);
        });
    }

    //! Runs the event loop for `ms` milliseconds (the widget's timers fire).
    static void wait(int ms)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) {
            QApplication::processEvents(QEventLoop::AllEvents, 5);
            QThread::msleep(2);
        }
    }

    QImage grab(const char* name)
    {
        QApplication::processEvents();
        QImage img = widget->grab().toImage();
        img.save(QString("qa_display_widget_") + name + ".png");
        return img;
    }

    // Pane coordinates of a widget point.
    QPoint in_pane(QWidget* pane, QPoint p) const { return p - pane->mapTo(widget.get(), QPoint(0, 0)); }

    //! A left-button drag on pane from a to b (pane coordinates).
    static void drag(QWidget* pane, QPoint a, QPoint b)
    {
        QMouseEvent press(QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QMouseEvent move(QEvent::MouseMove, b, Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QMouseEvent release(QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(pane, &press);
        QApplication::sendEvent(pane, &move);
        QApplication::sendEvent(pane, &release);
    }

    void click(int x, int y)
    {
        QWidget* pane = widget->spectrum_pane();
        const QPoint at = in_pane(pane, QPoint(x, y));
        QMouseEvent press(QEvent::MouseButtonPress, at, Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        QMouseEvent release(QEvent::MouseButtonRelease, at, Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(pane, &press);
        QApplication::sendEvent(pane, &release);
    }

    //! The pointer moved, no button held, to widget point (x, y) over `pane`.
    void hover(QWidget* pane, int x, int y)
    {
        QMouseEvent move(QEvent::MouseMove, in_pane(pane, QPoint(x, y)), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(pane, &move);
    }
    QWidget* waterfall_pane() const { return widget->waterfall_pane(); }

    //! `count` frames of noise: each bin the dB of an exponential power of mean 1 (complex Gaussian noise) plus `db`.
    std::vector<float> noise(std::mt19937& rng, std::size_t count, double db)
    {
        std::exponential_distribution<double> power(1.0);
        std::vector<float> frames(bins * count);
        for (auto& v : frames)
            v = float(db + 10 * std::log10(power(rng)));
        core->with_engine([&](::gpufft::display& d) { d.push(frames.data(), count); });
        return frames;
    }
    //! Column c's value in frame f (two bins a column: their max, the display's resampling).
    double column_value(const std::vector<float>& frames, std::size_t f, std::size_t c) const
    {
        const std::size_t per = bins / std::size_t(settings.width);
        double v = -INFINITY;
        for (std::size_t b = c * per; b < (c + 1) * per; ++b)
            v = std::max(v, double(frames[f * bins + b]));
        return v;
    }
    //! What the widget reads.
    gr::gpufft::display_snapshot snapshot()
    {
        gr::gpufft::display_snapshot s;
        core->read(s, 0);
        return s;
    }

    void key(int k, const QString& text)
    {
        QKeyEvent e(QEvent::KeyPress, k, Qt::NoModifier, text);
        QApplication::sendEvent(widget.get(), &e);
    }
};

// `make` must throw gpufft::error whose message names `word`.
void expect_error(const std::function<void()>& make, const std::string& word);

class qa_display_widget : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_display_widget);
    CPPUNIT_TEST(full_band_axis);
    CPPUNIT_TEST(tone_and_floor_pixels);
    CPPUNIT_TEST(zoom_by_key_moves_the_tone);
    CPPUNIT_TEST(wheel_zooms_around_the_pointer);
    CPPUNIT_TEST(click_sends_the_frequency);
    CPPUNIT_TEST(drag_pans_without_a_click);
    CPPUNIT_TEST(freeze_keeps_the_picture);
    CPPUNIT_TEST(waterfall_keeps_a_short_burst);
    CPPUNIT_TEST(new_engine_restarts_the_waterfall);
    CPPUNIT_TEST(db_range_moves_the_floor);
    CPPUNIT_TEST(keys_set_the_db_range);
    CPPUNIT_TEST(colour_maps);
    CPPUNIT_TEST(new_frames_repaint_the_plots_only);
    CPPUNIT_TEST(waterfall_scrolls_one_row_per_redraw);
    CPPUNIT_TEST(emptied_histogram_rows_show_the_grid);
    CPPUNIT_TEST(partial_repaints_equal_the_whole);
    CPPUNIT_TEST(empty_cells_show_the_grid);
    CPPUNIT_TEST(bin_range_follows_the_view_after_a_pause);
    CPPUNIT_TEST(zoom_resolves_tones_within_a_column);
    CPPUNIT_TEST(readout_at_the_tone);
    CPPUNIT_TEST(waterfall_readout_has_the_rows_age);
    CPPUNIT_TEST(time_axis_has_the_rows_age);
    CPPUNIT_TEST(min_hold_below_the_average);
    CPPUNIT_TEST(linear_average_reduces_the_spread);
    CPPUNIT_TEST(exponential_average_time_constant);
    CPPUNIT_TEST(colour_bars_match_the_plots);
    CPPUNIT_TEST(colour_bar_text_whole);
    CPPUNIT_TEST(fosphor_keys);
    CPPUNIT_TEST(markers_find_the_peaks);
    CPPUNIT_TEST(markers_land_on_bins);
    CPPUNIT_TEST(readout_and_markers_relayout_nothing);
    CPPUNIT_TEST(drag_moves_a_marker);
    CPPUNIT_TEST(choosers_set_the_transform);
    CPPUNIT_TEST(saved_traces_read_back);
    CPPUNIT_TEST(density_brightest_at_the_most_frequent_level);
    CPPUNIT_TEST_SUITE_END();

public:
    void full_band_axis()
    {
        fixture f;
        f.push(tone_bin);
        // The band: n bins of fs / n side by side, bin k centred on bin_centre(k).
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(0) - fs / n / 2, f.widget->view_lo(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(n - 1) + fs / n / 2, f.widget->view_hi(), 1e-3);
    }

    void tone_and_floor_pixels()
    {
        fixture f;
        f.push(tone_bin);
        const QImage img = f.grab("tone");
        const QRect sp = f.widget->spectrum_plot_rect(), wf = f.widget->waterfall_plot_rect();
        const double lo = bin_centre(0) - fs / n / 2, hi = lo + fs;
        const int tone_x = pixel_of(bin_centre(tone_bin), sp, lo, hi);
        CPPUNIT_ASSERT_EQUAL(sp.left(), wf.left());
        CPPUNIT_ASSERT_EQUAL(sp.width(), wf.width());

        // Waterfall, newest row: the tone's column is the brightest.
        const auto wf_bright = brightest_columns(img, wf.top(), wf.left(), wf.right());
        CPPUNIT_ASSERT_MESSAGE("waterfall brightest at " + list(wf_bright) + ", tone at " + std::to_string(tone_x),
                               at_pixel(wf_bright, tone_x));

        // Persistence: the floor's row in a column without the tone, the tone's row in its own.
        const double row_px = double(sp.height()) / height; // one histogram row
        const int noise_x = sp.left() + sp.width() / 4;
        const int floor_y = brightest_row(img, noise_x, sp.top(), sp.bottom());
        CPPUNIT_ASSERT_MESSAGE("floor at row " + std::to_string(floor_y) + ", expected " +
                                   std::to_string(row_of(floor_db, sp)),
                               std::abs(floor_y - row_of(floor_db, sp)) <= row_px + 1);
        const int tone_y = brightest_row(img, tone_x, sp.top(), sp.bottom());
        CPPUNIT_ASSERT_MESSAGE("tone at row " + std::to_string(tone_y) + ", expected " +
                                   std::to_string(row_of(tone_db, sp)),
                               std::abs(tone_y - row_of(tone_db, sp)) <= row_px + 1);
        // And in the tone's column, no hit at the floor: its cell there is empty.
        CPPUNIT_ASSERT(grey(img, tone_x, int(std::lround(row_of(floor_db, sp)))) < 100);
    }

    void zoom_by_key_moves_the_tone()
    {
        fixture f;
        f.push(tone_bin);
        const double lo0 = f.widget->view_lo(), hi0 = f.widget->view_hi();
        f.key(Qt::Key_Plus, "+"); // 2x about the view's centre
        const double c = (lo0 + hi0) / 2, lo = c - (c - lo0) / 2, hi = c + (hi0 - c) / 2;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(lo, f.widget->view_lo(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(hi, f.widget->view_hi(), 1e-3);
        f.widget->apply_view_bins(); // as after the delay: the display computes the view's bins
        f.push(tone_bin);
        const QImage img = f.grab("zoom");
        const QRect sp = f.widget->spectrum_plot_rect(), wf = f.widget->waterfall_plot_rect();
        const int tone_x = pixel_of(bin_centre(tone_bin), sp, lo, hi);
        const auto bright = brightest_columns(img, wf.top(), wf.left(), wf.right());
        CPPUNIT_ASSERT_MESSAGE("zoomed: waterfall brightest at " + list(bright) + ", tone at " + std::to_string(tone_x),
                               at_pixel(bright, tone_x));
        const double row_px = double(sp.height()) / height;
        CPPUNIT_ASSERT(std::abs(brightest_row(img, tone_x, sp.top(), sp.bottom()) - row_of(tone_db, sp)) <= row_px + 1);
        CPPUNIT_ASSERT(std::abs(brightest_row(img, sp.left() + 10, sp.top(), sp.bottom()) - row_of(floor_db, sp)) <=
                       row_px + 1);
        // Pan right by a tenth of the view, then back to the whole band.
        f.key(Qt::Key_Right, "");
        CPPUNIT_ASSERT_DOUBLES_EQUAL(lo + (hi - lo) / 10, f.widget->view_lo(), 1e-3);
        f.key(Qt::Key_0, "0");
        CPPUNIT_ASSERT_DOUBLES_EQUAL(lo0, f.widget->view_lo(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(hi0, f.widget->view_hi(), 1e-3);
    }

    void wheel_zooms_around_the_pointer()
    {
        fixture f;
        f.push(tone_bin);
        const QRect sp = f.widget->spectrum_plot_rect();
        const double lo0 = f.widget->view_lo(), hi0 = f.widget->view_hi();
        const int x = sp.left() + sp.width() / 3;
        const double at = lo0 + (x + 0.5 - sp.left()) / sp.width() * (hi0 - lo0); // the pixel's centre
        QWidget* pane = f.widget->spectrum_pane();
        const QPointF p = f.in_pane(pane, QPoint(x, sp.center().y()));
        QWheelEvent wheel(p, p, QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(pane, &wheel);
        // Two steps of 1.25: the span shrinks 1.5625 times, `at` stays under the pointer.
        const double lo = at - (at - lo0) / 1.5625, hi = at + (hi0 - at) / 1.5625;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(lo, f.widget->view_lo(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(hi, f.widget->view_hi(), 1e-3);
        f.widget->apply_view_bins();
        f.push(tone_bin);
        const QImage img = f.grab("wheel");
        const QRect wf = f.widget->waterfall_plot_rect();
        const int tone_x = pixel_of(bin_centre(tone_bin), sp, lo, hi);
        const auto bright = brightest_columns(img, wf.top(), wf.left(), wf.right());
        CPPUNIT_ASSERT_MESSAGE("wheel: waterfall brightest at " + list(bright) + ", tone at " + std::to_string(tone_x),
                               at_pixel(bright, tone_x));
    }

    void click_sends_the_frequency()
    {
        fixture f;
        f.push(tone_bin);
        const QRect sp = f.widget->spectrum_plot_rect();
        const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
        const int tone_x = pixel_of(bin_centre(tone_bin), sp, lo, hi);
        f.click(tone_x, sp.center().y());
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), f.clicks.size());
        const double pixel_hz = (hi - lo) / sp.width();
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(tone_bin), f.clicks[0], pixel_hz);
        // The centre of the pixel, exactly.
        CPPUNIT_ASSERT_DOUBLES_EQUAL(lo + (tone_x + 0.5 - sp.left()) * pixel_hz, f.clicks[0], 1e-3);
        // Zoomed in 8x around the tone: the click is 8 times finer.
        f.widget->zoom(8.0, bin_centre(tone_bin));
        const double zlo = f.widget->view_lo(), zhi = f.widget->view_hi();
        const int zx = pixel_of(bin_centre(tone_bin), sp, zlo, zhi);
        f.click(zx, sp.center().y());
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), f.clicks.size());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(tone_bin), f.clicks[1], (zhi - zlo) / sp.width());
        // Outside the plot (the axis labels): no message.
        f.click(sp.left() - 20, sp.center().y());
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), f.clicks.size());
    }

    void drag_pans_without_a_click()
    {
        fixture f;
        f.push(tone_bin);
        f.widget->zoom(4.0, fc);
        const QRect sp = f.widget->spectrum_plot_rect();
        const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
        QWidget* pane = f.widget->spectrum_pane();
        const QPoint a = f.in_pane(pane, QPoint(sp.center().x(), sp.center().y()));
        const QPoint b = a + QPoint(100, 0);
        fixture::drag(pane, a, b);
        // Dragged right by 100 pixels: the view moves left by 100 pixels' worth.
        const double shift = 100.0 / sp.width() * (hi - lo);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(lo - shift, f.widget->view_lo(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(hi - shift, f.widget->view_hi(), 1e-3);
        CPPUNIT_ASSERT(f.clicks.empty());
    }

    void freeze_keeps_the_picture()
    {
        fixture f;
        f.push(tone_bin);
        f.key(Qt::Key_F, "f");
        CPPUNIT_ASSERT(f.widget->frozen());
        const std::size_t redraws = f.widget->redraws();
        f.push(n / 4); // a tone elsewhere, not drawn
        CPPUNIT_ASSERT_EQUAL(redraws, f.widget->redraws());
        const QImage img = f.grab("frozen");
        const QRect sp = f.widget->spectrum_plot_rect(), wf = f.widget->waterfall_plot_rect();
        const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
        CPPUNIT_ASSERT(at_pixel(brightest_columns(img, wf.top(), wf.left(), wf.right()),
                                pixel_of(bin_centre(tone_bin), sp, lo, hi)));
        f.key(Qt::Key_F, "f");
        f.push(n / 4);
        const QImage after = f.grab("thawed");
        CPPUNIT_ASSERT(at_pixel(brightest_columns(after, wf.top(), wf.left(), wf.right()),
                                pixel_of(bin_centre(n / 4), sp, lo, hi)));
    }

    void waterfall_keeps_a_short_burst()
    {
        fixture f;
        f.push(tone_bin);
        // 50 frames before the next redraw, the burst in one of them only.
        const std::size_t burst_bin = n / 4;
        std::vector<float> frames(n * 50, float(floor_db));
        frames[10 * n + burst_bin] = float(tone_db);
        f.core->with_engine([&](::gpufft::display& d) { d.push(frames.data(), 50); });
        f.widget->refresh();
        const QImage img = f.grab("burst");
        const QRect sp = f.widget->spectrum_plot_rect(), wf = f.widget->waterfall_plot_rect();
        const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
        const auto newest = brightest_columns(img, wf.top(), wf.left(), wf.right());
        CPPUNIT_ASSERT_MESSAGE("newest row brightest at " + list(newest),
                               at_pixel(newest, pixel_of(bin_centre(burst_bin), sp, lo, hi)));
        // The row before it: the tone of the first redraw.
        CPPUNIT_ASSERT(at_pixel(brightest_columns(img, wf.top() + 1, wf.left(), wf.right()),
                                pixel_of(bin_centre(tone_bin), sp, lo, hi)));
    }

    void new_engine_restarts_the_waterfall()
    {
        fixture f;
        f.push(tone_bin);
        // A new display (as set_fft_size builds) that already holds as many
        // frames as the old one did at the last redraw.
        f.core->replace(std::make_unique<::gpufft::display>(f.settings.display(n)));
        f.core->set_max_hold(false);
        f.push(n / 4);
        const QImage img = f.grab("new_engine");
        const QRect sp = f.widget->spectrum_plot_rect(), wf = f.widget->waterfall_plot_rect();
        const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
        CPPUNIT_ASSERT(at_pixel(brightest_columns(img, wf.top(), wf.left(), wf.right()),
                                pixel_of(bin_centre(n / 4), sp, lo, hi)));
        // The old engine's rows are gone: below the new row, nothing is drawn.
        const auto below = brightest_columns(img, wf.top() + 1, wf.left(), wf.right());
        CPPUNIT_ASSERT_EQUAL(std::size_t(wf.width()), below.size());
        // The histogram is the new engine's: no tone left at the old bin.
        const int old_x = pixel_of(bin_centre(tone_bin), sp, lo, hi);
        CPPUNIT_ASSERT(grey(img, old_x, int(std::lround(row_of(tone_db, sp)))) < 100);
    }

    void db_range_moves_the_floor()
    {
        fixture f;
        // Reference level -40, range 60: the floor (-80) is 40/60 down the plot.
        f.core->set_db_range(-100, -40);
        f.push(tone_bin);
        const QImage img = f.grab("range");
        const QRect sp = f.widget->spectrum_plot_rect();
        const double expected = sp.top() + (-40.0 - floor_db) / 60.0 * sp.height();
        const int y = brightest_row(img, sp.left() + sp.width() / 4, sp.top(), sp.bottom());
        CPPUNIT_ASSERT_MESSAGE("floor at " + std::to_string(y) + ", expected " + std::to_string(expected),
                               std::abs(y - expected) <= double(sp.height()) / height + 1);
    }

    void keys_set_the_db_range()
    {
        fixture f;
        f.push(tone_bin);
        f.key(Qt::Key_Up, "");       // reference level +5 dB
        f.key(Qt::Key_PageDown, ""); // range -10 dB
        CPPUNIT_ASSERT_DOUBLES_EQUAL(5.0, f.core->settings().ref_level, 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(110.0, f.core->settings().db_range, 1e-9);
        f.core->with_engine([](::gpufft::display& d) {
            CPPUNIT_ASSERT_DOUBLES_EQUAL(-105.0, d.config().db_min, 1e-9);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(5.0, d.config().db_max, 1e-9);
        });
        // The peak-hold key switches the engine's max-hold trace on (the fixture turned it off).
        f.key(Qt::Key_P, "p");
        f.core->with_engine([](::gpufft::display& d) { CPPUNIT_ASSERT(d.config().max_hold); });
    }

    // The axis moves at once; the display's bin range follows the view
    // once it has stayed bin_range_delay_ms (a wheel spin clears the
    // histogram once), then the view's bins are the range.
    void bin_range_follows_the_view_after_a_pause()
    {
        fixture f;
        f.push(tone_bin);
        const auto whole = std::make_pair(std::size_t(0), n);
        CPPUNIT_ASSERT(f.engine_bins() == whole);
        QWidget* pane = f.widget->spectrum_pane();
        const QRect sp = f.widget->spectrum_plot_rect();
        const QPointF p = f.in_pane(pane, QPoint(sp.left() + sp.width() / 3, sp.center().y()));
        const auto notch = [&] {
            QWheelEvent wheel(p, p, QPoint(), QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(pane, &wheel);
        };
        QElapsedTimer since_first;
        since_first.start();
        notch();
        const double lo1 = f.widget->view_lo();
        CPPUNIT_ASSERT(lo1 > bin_centre(0)); // the axis moved at once
        fixture::wait(60);
        notch(); // the second notch restarts the delay
        QElapsedTimer since_second;
        since_second.start();
        fixture::wait(display_widget::bin_range_delay_ms - 60);
        // Qt may fire a coarse timer 5% early: only a wait well inside the
        // delay since the second notch (and past it since the first) tells.
        if (since_second.elapsed() < display_widget::bin_range_delay_ms * 9 / 10)
            CPPUNIT_ASSERT_MESSAGE("the range followed " + std::to_string(since_first.elapsed()) +
                                       " ms after the first notch, before the delay after the second",
                                   f.engine_bins() == whole);
        for (int k = 0; k < 100 && f.engine_bins() == whole; ++k)
            fixture::wait(20);
        const auto bins = f.engine_bins();
        CPPUNIT_ASSERT(bins == f.widget->view_bins());
        // The view's bins: the bins whose span meets [view_lo, view_hi].
        const double bin_hz = fs / n, left = bin_centre(0) - bin_hz / 2;
        const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
        CPPUNIT_ASSERT_EQUAL(std::size_t(std::floor((lo - left) / bin_hz)), bins.first);
        CPPUNIT_ASSERT_EQUAL(std::size_t(std::ceil((hi - left) / bin_hz)), bins.second);
        // Back to the whole band: the whole frame again.
        f.key(Qt::Key_0, "0");
        f.widget->apply_view_bins();
        CPPUNIT_ASSERT(f.engine_bins() == whole);
    }

    // 65536 bins on 1024 columns (64 bins each): two tones 32 bins apart
    // share one column and draw as one. Zoomed 16x (about 4 bins a column),
    // they are two bright runs at their own pixels, in the histogram and
    // the waterfall, with the floor between them.
    void zoom_resolves_tones_within_a_column()
    {
        const std::size_t bins = 65536, columns = 1024;
        const std::size_t t1 = bins / 2 + 64 * 37 + 16, t2 = t1 + 32; // both in column 512 + 37
        fixture f(bins, columns);
        const auto hz = [&](std::size_t k) { return fc + (double(k) - double(bins / 2)) * fs / double(bins); };
        const auto bright_runs = [](const QImage& img, int y, int x0, int x1) {
            std::vector<std::pair<int, int>> runs; // [first, last] pixels brighter than the floor's colour
            for (int x = x0; x <= x1; ++x)
                if (grey(img, x, y) > 160) {
                    if (!runs.empty() && runs.back().second == x - 1)
                        runs.back().second = x;
                    else
                        runs.emplace_back(x, x);
                }
            return runs;
        };
        const auto describe = [](const std::vector<std::pair<int, int>>& runs) {
            std::string s;
            for (const auto& r : runs)
                s += " [" + std::to_string(r.first) + ", " + std::to_string(r.second) + "]";
            return s;
        };
        const auto check = [&](const char* name, std::size_t want_runs) {
            const QImage img = f.grab(name);
            const QRect sp = f.widget->spectrum_plot_rect(), wf = f.widget->waterfall_plot_rect();
            const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
            const int x1 = pixel_of(hz(t1), sp, lo, hi), x2 = pixel_of(hz(t2), sp, lo, hi);
            // The middle of the pixel rows that show the tone's histogram row
            // (plot row y shows row floor((h - y - 0.5) / h H)).
            const double tone_row = std::floor((tone_db + 120.0) / 120.0 * height);
            const int tone_y = sp.top() + int(std::floor(sp.height() - (tone_row + 0.5) / height * sp.height()));
            for (const auto& [what, y] : { std::make_pair("waterfall", wf.top()), std::make_pair("histogram", tone_y) }) {
                const auto runs = bright_runs(img, y, sp.left(), sp.right());
                const std::string m = std::string(name) + ": " + what + " row " + std::to_string(y) +
                                      ": bright runs" + describe(runs) + ", tones at pixels " + std::to_string(x1) +
                                      " and " + std::to_string(x2);
                CPPUNIT_ASSERT_MESSAGE(m, runs.size() == want_runs);
                for (int x : { x1, x2 })
                    CPPUNIT_ASSERT_MESSAGE(m, std::any_of(runs.begin(), runs.end(), [&](const auto& r) {
                                               return r.first - 1 <= x && x <= r.second + 1;
                                           }));
            }
        };
        f.push({ t1, t2 });
        check("zoom_detail_whole_band", 1);
        f.widget->zoom(16.0, (hz(t1) + hz(t2)) / 2);
        f.widget->apply_view_bins();
        const auto range = f.engine_bins();
        CPPUNIT_ASSERT_MESSAGE("bin range [" + std::to_string(range.first) + ", " + std::to_string(range.second) + ")",
                               range.second - range.first <= bins / 16 + 2 && range.first < t1 && t2 < range.second);
        f.push({ t1, t2 });
        check("zoom_detail_16x", 2);
    }

    void colour_maps()
    {
        fixture f;
        for (const auto& name : display_widget::colormap_names()) {
            f.widget->set_colormap(name);
            CPPUNIT_ASSERT_EQUAL(name, f.widget->colormap());
        }
        CPPUNIT_ASSERT(display_widget::colormap_names().size() >= 3);
        CPPUNIT_ASSERT_THROW(f.widget->set_colormap("rainbow"), ::gpufft::error);
        f.key(Qt::Key_C, "c"); // the next map
        CPPUNIT_ASSERT_EQUAL(display_widget::colormap_names()[0], f.widget->colormap());
    }

    // A redraw with new frames repaints each pane's plot, not the axes
    // around it (drawn once per layout), but for the waterfall's time axis
    // below "now" (its rows are older).
    void new_frames_repaint_the_plots_only()
    {
        struct paint_rects : QObject {
            std::vector<std::pair<QObject*, QRegion>> seen;
            bool eventFilter(QObject* o, QEvent* e) override
            {
                if (e->type() == QEvent::Paint)
                    seen.emplace_back(o, static_cast<QPaintEvent*>(e)->region());
                return false;
            }
        } rects;
        fixture f;
        f.push(tone_bin);
        QApplication::processEvents();
        auto* splitter = f.widget->findChild<QSplitter*>();
        QWidget* panes[] = { splitter->widget(0), splitter->widget(1) };
        const QRect plots[] = { f.widget->spectrum_plot_rect(), f.widget->waterfall_plot_rect() };
        for (QWidget* p : panes)
            p->installEventFilter(&rects);
        f.push(n / 4);
        QApplication::processEvents();
        for (int k = 0; k < 2; ++k) {
            const QRect plot(panes[k]->mapFrom(f.widget.get(), plots[k].topLeft()), plots[k].size());
            const QRect time_axis = k == 1 ? QRect(0, plot.top() + 40, plot.left(), plot.height() - 40) : QRect();
            int painted = 0;
            for (const auto& [pane, rect] : rects.seen)
                if (pane == panes[k]) {
                    ++painted;
                    CPPUNIT_ASSERT_MESSAGE("pane " + std::to_string(k) + " painted beyond its plot",
                                           (rect - plot - time_axis).isEmpty());
                }
            CPPUNIT_ASSERT_MESSAGE("pane " + std::to_string(k) + " not repainted", painted > 0);
        }
    }

    // The histogram picture is kept between redraws: a level no longer seen
    // (here: a new display without the tone) goes back to the empty plot.
    void emptied_histogram_rows_show_the_grid()
    {
        fixture f;
        f.push(tone_bin);
        QApplication::processEvents();
        const QRect sp = f.widget->spectrum_plot_rect();
        const int x = pixel_of(bin_centre(tone_bin), sp, f.widget->view_lo(), f.widget->view_hi());
        const int y = int(std::lround(row_of(tone_db, sp)));
        CPPUNIT_ASSERT(grey(f.grab("tone_seen"), x, y) > 100);
        f.core->replace(std::make_unique<::gpufft::display>(f.settings.display(n)));
        f.core->set_max_hold(false);
        f.push(std::vector<std::size_t>{});
        CPPUNIT_ASSERT(grey(f.grab("tone_gone"), x, y) < 100);
    }

    // A redraw changes the pictures where the data changed and repaints
    // those pixels only (the waterfall scrolled in the window). After
    // redraws whose levels and lines move (rows filling and emptying), what
    // the window shows (its backing store) equals the widget painted whole,
    // and that equals the pictures drawn anew. The lines are drawn into the
    // picture: the max-hold line passes through a tone's level at its pixel.
    void empty_cells_show_the_grid()
    {
        // Rows lit only at the tone's column (its level moving over ten
        // rows) against the same rows unlit: elsewhere they show the grid.
        fixture plain, lit;
        plain.push(std::vector<std::size_t>{});
        std::vector<float> frames(n * 10, float(floor_db));
        for (std::size_t k = 0; k < 10; ++k)
            frames[k * n + tone_bin] = float(tone_db - 0.6 * double(k));
        lit.core->with_engine([&](::gpufft::display& d) { d.push(frames.data(), 10); });
        lit.widget->refresh();
        const QImage a = plain.grab("grid_plain"), b = lit.grab("grid_lit");
        const QRect sp = lit.widget->spectrum_plot_rect();
        const int tone_x = pixel_of(bin_centre(tone_bin), sp, lit.widget->view_lo(), lit.widget->view_hi());
        int dots = 0, differ = 0;
        for (int y = int(row_of(tone_db, sp)) + 1; y < int(row_of(tone_db - 5.4, sp)); ++y)
            for (int x = sp.left() + 1; x < sp.right(); ++x) {
                if (std::abs(x - tone_x) <= 2)
                    continue;
                dots += a.pixel(x, y) != qRgb(0, 0, 0);
                differ += a.pixel(x, y) != b.pixel(x, y);
            }
        CPPUNIT_ASSERT_MESSAGE("no grid pixels in the rows compared", dots > 0);
        CPPUNIT_ASSERT_MESSAGE(std::to_string(differ) + " pixels beside the tone differ from the grid", differ == 0);
        CPPUNIT_ASSERT(grey(b, tone_x, int(std::lround(row_of(tone_db - 2.7, sp)))) > 0); // lit
    }

    void partial_repaints_equal_the_whole()
    {
        fixture f;
        f.widget->set_show_average(true);
        f.core->set_max_hold(true);
        const QRect sp = f.widget->spectrum_plot_rect(), wf = f.widget->waterfall_plot_rect();
        QRegion plots = QRegion(sp) + QRegion(wf);
        for (std::size_t r = 0; r < 40; ++r) {
            const std::size_t tone = n / 8 + (r * 53) % (n * 3 / 4);
            std::vector<float> frames(n * 3, float(floor_db));
            for (std::size_t k = 0; k < 3; ++k)
                frames[k * n + tone] = float(tone_db + 3.0 * double(r % 7));
            frames[n + n / 3] = float(floor_db + 5.0 * double(r % 9)); // a level seen once, then decaying
            f.core->with_engine([&](::gpufft::display& d) { d.push(frames.data(), 3); });
            f.widget->refresh();
            QApplication::processEvents();
        }
        const QImage window = QApplication::primaryScreen()
                                  ->grabWindow(f.widget->winId())
                                  .toImage()
                                  .convertToFormat(QImage::Format_RGB32);
        window.save("qa_display_widget_partial_window.png");
        const QImage whole = f.grab("partial_whole").convertToFormat(QImage::Format_RGB32);
        for (const QRect& r : plots) {
            const QImage a = window.copy(r), b = whole.copy(r);
            int differ = 0;
            for (int y = 0; y < a.height(); ++y)
                for (int x = 0; x < a.width(); ++x)
                    differ += a.pixel(x, y) != b.pixel(x, y);
            CPPUNIT_ASSERT_MESSAGE("window and whole repaint differ in " + std::to_string(differ) + " pixels of " +
                                       std::to_string(r.width()) + " x " + std::to_string(r.height()),
                                   differ == 0);
        }
        f.widget->set_colormap(f.widget->colormap()); // the pictures drawn anew
        CPPUNIT_ASSERT(whole.copy(sp) == f.grab("partial_anew").convertToFormat(QImage::Format_RGB32).copy(sp));

        // A new peak hold over one frame with the tone: its line passes
        // through the tone's level at the tone's pixel.
        f.widget->set_show_average(false);
        f.core->set_max_hold(true); // restarts the peak hold
        f.push(tone_bin, 1);
        const QImage img = f.grab("max_hold_line");
        const int x = pixel_of(bin_centre(tone_bin), sp, f.widget->view_lo(), f.widget->view_hi());
        const int y = int(std::floor(row_of(tone_db, sp)));
        const QColor line(255, 64, 64);
        bool found = false;
        for (int dx = -1; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
                found |= img.pixel(x + dx, y + dy) == line.rgb();
        CPPUNIT_ASSERT_MESSAGE("no max-hold line at the tone's level", found);
    }

    // "100.400 MHz  -20.0 dBFS avg": the frequency in Hz and the level (in the widget's unit).
    static std::pair<double, double> parse_readout(const QString& text, const QString& unit)
    {
        const std::regex re(R"(^(-?[0-9.]+) (GHz|MHz|kHz|Hz)  (-?[0-9.]+) )" + unit.toStdString() + "( .*)?");
        std::smatch m;
        const std::string t = text.toStdString();
        CPPUNIT_ASSERT_MESSAGE("readout \"" + t + "\"", std::regex_match(t, m, re));
        const double scale = m[2] == "GHz" ? 1e9 : m[2] == "MHz" ? 1e6 : m[2] == "kHz" ? 1e3 : 1.0;
        return { std::stod(m[1]) * scale, std::stod(m[3]) };
    }

    // The pointer at the tone's pixel reads its frequency within a bin and
    // its level within 0.5 dB: from the average line, from the pointer's
    // height with no line, and on the waterfall from the row.
    void readout_at_the_tone()
    {
        fixture f;
        f.widget->set_show_average(true);
        f.push(tone_bin);
        const QRect sp = f.widget->spectrum_plot_rect(), wf = f.widget->waterfall_plot_rect();
        const int tone_x = pixel_of(bin_centre(tone_bin), sp, f.widget->view_lo(), f.widget->view_hi());
        const int tone_y = int(std::floor(row_of(tone_db, sp)));
        const double bin_hz = fs / n;
        CPPUNIT_ASSERT(f.widget->readout().isEmpty());
        f.hover(f.widget->spectrum_pane(), tone_x, tone_y + 40); // below the tone: the line's level still
        f.grab("readout"); // the readout in the controls' second row
        auto [hz, db] = parse_readout(f.widget->readout(), f.widget->level_unit());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(tone_bin), hz, bin_hz);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(tone_db, db, 0.5);
        CPPUNIT_ASSERT(f.widget->readout().endsWith("avg"));
        // No line: the pointer's height.
        f.widget->set_show_average(false);
        f.hover(f.widget->spectrum_pane(), tone_x, tone_y);
        std::tie(hz, db) = parse_readout(f.widget->readout(), f.widget->level_unit());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(tone_bin), hz, bin_hz);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(tone_db, db, 0.5);
        // The waterfall's newest row.
        f.hover(f.waterfall_pane(), tone_x, wf.top());
        std::tie(hz, db) = parse_readout(f.widget->readout(), f.widget->level_unit());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(tone_bin), hz, bin_hz);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(tone_db, db, 0.5);
        // Off the plot: none.
        f.hover(f.widget->spectrum_pane(), sp.left() - 20, tone_y);
        CPPUNIT_ASSERT(f.widget->readout().isEmpty());
    }

    // A waterfall row reads its own frames' level and how many frames before the newest it ends.
    void waterfall_readout_has_the_rows_age()
    {
        fixture f;
        f.push(tone_bin, 50);
        f.push(n / 4, 7); // a newer row, the tone elsewhere
        const QRect wf = f.widget->waterfall_plot_rect();
        const int tone_x = pixel_of(bin_centre(tone_bin), wf, f.widget->view_lo(), f.widget->view_hi());
        f.hover(f.waterfall_pane(), tone_x, wf.top() + 1); // the older row
        const QString text = f.widget->readout();
        f.grab("readout_waterfall");
        const auto [hz, db] = parse_readout(text, f.widget->level_unit());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(tone_bin), hz, fs / n);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(tone_db, db, 0.5);
        CPPUNIT_ASSERT_MESSAGE(text.toStdString(), text.endsWith("  -7 frames"));
        f.hover(f.waterfall_pane(), tone_x, wf.top()); // the newest: the floor here
        CPPUNIT_ASSERT_DOUBLES_EQUAL(floor_db, parse_readout(f.widget->readout(), f.widget->level_unit()).second, 0.5);
        CPPUNIT_ASSERT(f.widget->readout().endsWith("  0 frames"));
    }

    // The waterfall's time axis: every 60 rows, how many frames before the
    // newest that row's newest frame came (against the frames pushed, one
    // row per read, a different count each).
    void time_axis_has_the_rows_age()
    {
        fixture f;
        std::vector<std::size_t> newest; // each row's newest frame, oldest row first
        std::size_t seen = 0;
        for (std::size_t k = 0; k < 130; ++k) {
            f.push(tone_bin, 1 + k % 4);
            newest.push_back(seen += 1 + k % 4);
        }
        f.grab("time_axis");
        CPPUNIT_ASSERT(f.widget->waterfall_plot_rect().height() > 128);
        const auto& labels = f.widget->time_axis();
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), labels.size());
        for (std::size_t k = 0; k < labels.size(); ++k) {
            const std::size_t row = 60 * (k + 1);
            const QString want = QString::number(-double(seen - newest[newest.size() - 1 - row]), 'f', 0) + " fr";
            CPPUNIT_ASSERT_EQUAL(want.toStdString(), labels[k].toStdString());
        }
    }

    // Min-hold: the least of every frame's column value (against the frames
    // themselves), hence at or below the average line everywhere; drawn.
    void min_hold_below_the_average()
    {
        fixture f;
        f.widget->set_show_average(true);
        f.core->set_max_hold(true);
        f.core->set_min_hold(true);
        std::mt19937 rng(5);
        std::vector<float> all;
        for (int r = 0; r < 6; ++r) { // 6 reads of 40 frames
            const auto frames = f.noise(rng, 40, -70);
            all.insert(all.end(), frames.begin(), frames.end());
            f.widget->refresh();
        }
        const auto s = f.snapshot();
        const std::size_t frames = all.size() / n;
        for (std::size_t c = 0; c < width; ++c) {
            double least = INFINITY;
            for (std::size_t fr = 0; fr < frames; ++fr)
                least = std::min(least, f.column_value(all, fr, c));
            CPPUNIT_ASSERT_DOUBLES_EQUAL(least, double(s.min_hold_trace[c]), 1e-4);
            CPPUNIT_ASSERT(s.min_hold_trace[c] <= s.average[c]);
            CPPUNIT_ASSERT(s.average[c] <= s.max_hold_trace[c]);
        }
        f.grab("min_hold");
        // Off: no line (NaN).
        f.core->set_min_hold(false);
        CPPUNIT_ASSERT(std::isnan(f.snapshot().min_hold_trace[0]));
    }

    // Linear over K frames: the mean of the newest K (against the frames),
    // whose spread from one K frames to the next shrinks about sqrt(K)
    // times from K = 1's.
    void linear_average_reduces_the_spread()
    {
        auto spread = [](std::size_t k) {
            fixture f;
            f.core->set_average("linear", double(k));
            std::mt19937 rng(11);
            f.noise(rng, k, -70);
            const auto a = f.snapshot().average;
            const auto frames = f.noise(rng, k, -70);
            const auto b = f.snapshot().average;
            double sum = 0, sum2 = 0;
            for (std::size_t c = 0; c < width; ++c) {
                double mean = 0;
                for (std::size_t fr = 0; fr < k; ++fr)
                    mean += f.column_value(frames, fr, c) / double(k);
                CPPUNIT_ASSERT_DOUBLES_EQUAL(mean, double(b[c]), 1e-3);
                const double d = double(b[c]) - double(a[c]);
                sum += d;
                sum2 += d * d;
            }
            return std::sqrt(sum2 / width - (sum / width) * (sum / width));
        };
        const double one = spread(1), sixteen = spread(16);
        const double ratio = one / sixteen;
        CPPUNIT_ASSERT_MESSAGE("spread 1 frame " + std::to_string(one) + " dB, 16 frames " + std::to_string(sixteen) +
                                   " dB: ratio " + std::to_string(ratio) + ", sqrt(16) = 4",
                               ratio > 3.2 && ratio < 4.8);
        fixture f;
        f.core->set_average("off", 10);
        f.push(tone_bin);
        CPPUNIT_ASSERT(std::isnan(f.snapshot().average[0]));
    }

    // Exponential with time constant tau frames: each frame weighs 1 - exp(-1 / tau) (against a double recursion).
    void exponential_average_time_constant()
    {
        fixture f;
        const double tau = 4;
        f.core->set_average("exponential", tau);
        std::mt19937 rng(3);
        const auto frames = f.noise(rng, 30, -60);
        const auto s = f.snapshot();
        const double alpha = 1 - std::exp(-1 / tau);
        for (std::size_t c = 0; c < width; c += 37) {
            double avg = f.column_value(frames, 0, c);
            for (std::size_t fr = 1; fr < 30; ++fr)
                avg += alpha * (f.column_value(frames, fr, c) - avg);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(avg, double(s.average[c]), 1e-3);
        }
        expect_error([&] { f.core->set_average("linear", 513); }, "average_frames");
        expect_error([&] { f.core->set_average("linear", 2.5); }, "average_frames");
        expect_error([&] { f.core->set_average("median", 4); }, "average");
    }

    // The waterfall's colour bar at the tone's level has the colour of the
    // tone's waterfall pixel (within a bar row: the bar's rows are levels
    // at their centres); the persistence's bar at its top (100 % of the
    // frames) has the colour of the tone's cell, hit by every frame.
    void colour_bars_match_the_plots()
    {
        for (const char* map : { "fosphor", "viridis" }) {
            fixture f;
            f.widget->set_colormap(map);
            f.push(tone_bin, 200);
            const QImage img = f.grab((std::string("colour_bars_") + map).c_str());
            const QRect sp = f.widget->spectrum_plot_rect(), wf = f.widget->waterfall_plot_rect();
            const QRect wbar = f.widget->waterfall_bar_rect(), pbar = f.widget->persistence_bar_rect();
            const int tone_x = pixel_of(bin_centre(tone_bin), wf, f.widget->view_lo(), f.widget->view_hi());
            const QRgb tone = img.pixel(tone_x, wf.top());
            const int y = wbar.top() + int(std::floor((0.0 - tone_db) / 120.0 * wbar.height()));
            bool found = false;
            for (int dy = -1; dy <= 1; ++dy)
                found |= img.pixel(wbar.center().x(), y + dy) == tone;
            CPPUNIT_ASSERT_MESSAGE(std::string(map) + ": waterfall bar at the tone's level", found);
            // And not the floor's colour there.
            CPPUNIT_ASSERT(img.pixel(tone_x, wf.top()) != img.pixel(wf.left() + 5, wf.top()));
            // The tone's histogram cell (every frame hits it): the bar's top.
            const double tone_row = std::floor((tone_db + 120.0) / 120.0 * height);
            const int cell_y = sp.top() + int(std::floor(sp.height() - (tone_row + 0.5) / height * sp.height()));
            const QColor cell(img.pixel(tone_x, cell_y)), top(img.pixel(pbar.center().x(), pbar.top()));
            CPPUNIT_ASSERT_MESSAGE(std::string(map) + ": persistence bar top " + top.name().toStdString() +
                                       ", tone's cell " + cell.name().toStdString(),
                                   std::abs(cell.red() - top.red()) <= 8 && std::abs(cell.green() - top.green()) <= 8 &&
                                       std::abs(cell.blue() - top.blue()) <= 8);
        }
    }

    // The colour bars' unit and end labels are drawn whole in a desktop's
    // larger font: the unit's rotated text spans its advance along the
    // pane's right edge, and the waterfall bar's lowest label keeps clear
    // of the pane's last rows.
    void colour_bar_text_whole()
    {
        fixture f;
        QFont font = f.widget->font();
        font.setPixelSize(17);
        f.widget->setFont(font);
        f.push(tone_bin, 20);
        const QImage img = f.grab("colour_bar_text");
        const QWidget* sp = f.widget->spectrum_pane();
        const QRect pane(sp->mapTo(f.widget.get(), QPoint(0, 0)), sp->size());
        const QRect pbar = f.widget->persistence_bar_rect();
        const int advance = QFontMetrics(sp->font()).horizontalAdvance("% of column peak");
        int top = pane.bottom(), bottom = pane.top();
        for (int y = pane.top(); y <= pane.bottom(); ++y)
            for (int x = pane.right() - QFontMetrics(sp->font()).height(); x <= pane.right(); ++x)
                if (grey(img, x, y) > 128) {
                    top = std::min(top, y);
                    bottom = std::max(bottom, y);
                }
        CPPUNIT_ASSERT_MESSAGE("the unit spans " + std::to_string(bottom - top + 1) + " px of its " +
                                   std::to_string(advance),
                               bottom - top + 1 >= advance * 9 / 10);
        CPPUNIT_ASSERT(pbar.right() < pane.right() - QFontMetrics(sp->font()).height());
        const QWidget* wp = f.widget->waterfall_pane();
        const QRect wpane(wp->mapTo(f.widget.get(), QPoint(0, 0)), wp->size());
        const QRect wbar = f.widget->waterfall_bar_rect();
        for (int y = wpane.bottom() - 1; y <= wpane.bottom(); ++y)
            for (int x = wbar.right() + 5; x < wbar.right() + 45; ++x)
                CPPUNIT_ASSERT_MESSAGE("label text in the waterfall pane's last two rows at " + std::to_string(x) +
                                           ", " + std::to_string(y),
                                       grey(img, x, y) <= 128);
    }

    // gr-fosphor's keys as an option: Space freezes, Left / Right step the
    // dB per division 1-2-5, Z W S A D zoom; ? lists the map's keys.
    void fosphor_keys()
    {
        fixture f;
        f.push(tone_bin);
        const double lo0 = f.widget->view_lo(), hi0 = f.widget->view_hi(), span = hi0 - lo0;
        CPPUNIT_ASSERT_THROW(f.widget->set_keymap("emacs"), ::gpufft::error);
        f.widget->set_keymap("fosphor");
        f.key(Qt::Key_Space, " ");
        CPPUNIT_ASSERT(f.widget->frozen());
        f.key(Qt::Key_Space, " ");
        CPPUNIT_ASSERT(!f.widget->frozen());
        auto range = [&] { return f.snapshot().db_max - f.snapshot().db_min; };
        f.key(Qt::Key_Right, ""); // 12 dB a division: 20
        CPPUNIT_ASSERT_DOUBLES_EQUAL(200.0, range(), 1e-9);
        f.key(Qt::Key_Left, "");
        f.key(Qt::Key_Left, ""); // 10, then 5
        CPPUNIT_ASSERT_DOUBLES_EQUAL(50.0, range(), 1e-9);
        f.key(Qt::Key_Z, "z"); // a quarter of the band about the view's centre
        const double c = (lo0 + hi0) / 2;
        CPPUNIT_ASSERT_DOUBLES_EQUAL(c - span / 8, f.widget->view_lo(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(c + span / 8, f.widget->view_hi(), 1e-3);
        f.key(Qt::Key_W, "w"); // half as wide
        CPPUNIT_ASSERT_DOUBLES_EQUAL(span / 8, f.widget->view_hi() - f.widget->view_lo(), 1e-3);
        f.key(Qt::Key_D, "d"); // a tenth of the width right
        CPPUNIT_ASSERT_DOUBLES_EQUAL(c + span / 80, (f.widget->view_lo() + f.widget->view_hi()) / 2, 1e-3);
        f.key(Qt::Key_Z, "z");
        CPPUNIT_ASSERT_DOUBLES_EQUAL(lo0, f.widget->view_lo(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(hi0, f.widget->view_hi(), 1e-3);
        // The help lists the map's keys.
        f.key(Qt::Key_Question, "?");
        CPPUNIT_ASSERT(f.widget->help_shown());
        f.grab("help_fosphor");
        const QLabel* help = nullptr;
        for (const QLabel* l : f.widget->findChildren<QLabel*>())
            if (l->text().contains("Keys (fosphor)"))
                help = l;
        CPPUNIT_ASSERT(help && help->text().contains("Space"));
        f.key(Qt::Key_Question, "?");
        CPPUNIT_ASSERT(!f.widget->help_shown());
        // The widget's own map: Right pans again, the range stays.
        f.widget->set_keymap("gpufft");
        f.key(Qt::Key_Plus, "+");
        const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
        f.key(Qt::Key_Right, "");
        CPPUNIT_ASSERT_DOUBLES_EQUAL(lo + (hi - lo) / 10, f.widget->view_lo(), 1e-3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(50.0, range(), 1e-9);
    }

    // K puts the marker on the strongest tone, N on the second; a right
    // click adds one; the table reads their frequencies, levels and offsets.
    // The readout and the marker table change at every redraw (the levels
    // of noise): each repaints its own line, and asks no layout to
    // recompute (the instrument's cost at 30 redraws a second:
    // apps/display_bench.py --instrument-ab).
    void readout_and_markers_relayout_nothing()
    {
        struct layout_requests : QObject {
            int count = 0;
            bool eventFilter(QObject*, QEvent* e) override
            {
                count += e->type() == QEvent::LayoutRequest;
                return false;
            }
        } requests;
        fixture f;
        f.widget->set_show_average(true);
        std::mt19937 rng(3);
        f.noise(rng, 20, floor_db);
        f.widget->refresh();
        const QRect sp = f.widget->spectrum_plot_rect();
        f.key(Qt::Key_K, "k");
        f.hover(f.widget->spectrum_pane(), sp.center().x(), sp.center().y());
        QApplication::processEvents();
        f.widget->installEventFilter(&requests);
        for (QWidget* w : f.widget->findChildren<QWidget*>())
            w->installEventFilter(&requests);
        std::set<QString> readouts, tables;
        for (int k = 0; k < 10; ++k) {
            f.noise(rng, 1, floor_db);
            f.widget->refresh();
            QApplication::processEvents();
            readouts.insert(f.widget->readout());
            tables.insert(f.widget->marker_table());
        }
        CPPUNIT_ASSERT_MESSAGE("the readout did not change", readouts.size() > 1);
        CPPUNIT_ASSERT_MESSAGE("the marker table did not change", tables.size() > 1);
        CPPUNIT_ASSERT_EQUAL(0, requests.count);
    }

    void markers_find_the_peaks()
    {
        fixture f;
        f.widget->set_show_average(true);
        const std::size_t second = n / 2 - 150; // fc - 300 kHz
        const double second_db = -35;
        std::vector<float> frames(n * 20, float(floor_db));
        for (std::size_t fr = 0; fr < 20; ++fr) {
            frames[fr * n + tone_bin] = float(tone_db);
            frames[fr * n + second] = float(second_db);
        }
        f.core->with_engine([&](::gpufft::display& d) { d.push(frames.data(), 20); });
        f.widget->refresh();
        const double bin_hz = fs / n;
        CPPUNIT_ASSERT(f.widget->marker_table().isEmpty());
        f.key(Qt::Key_K, "k");
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), f.widget->markers().size());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(tone_bin), f.widget->markers()[0], bin_hz);
        f.key(Qt::Key_N, "n");
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), f.widget->markers().size());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(second), f.widget->markers()[0], bin_hz);
        // A second marker, right click at the strongest tone's pixel.
        const QRect sp = f.widget->spectrum_plot_rect();
        const int x = pixel_of(bin_centre(tone_bin), sp, f.widget->view_lo(), f.widget->view_hi());
        QWidget* pane = f.widget->spectrum_pane();
        QMouseEvent press(QEvent::MouseButtonPress, f.in_pane(pane, QPoint(x, sp.center().y())), Qt::RightButton,
                          Qt::RightButton, Qt::NoModifier);
        QApplication::sendEvent(pane, &press);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), f.widget->markers().size());
        const QImage img = f.grab("markers");
        const std::string table = f.widget->marker_table().toStdString();
        const std::string unit = f.widget->level_unit().toStdString();
        const std::regex re(R"(M1 ([0-9.]+) MHz (-[0-9.]+) )" + unit + R"(   M2 ([0-9.]+) MHz (-[0-9.]+) )" + unit +
                            R"( \(M2-M1 ([0-9.]+) kHz, ([0-9.]+) dB\))");
        std::smatch m;
        CPPUNIT_ASSERT_MESSAGE(table, std::regex_match(table, m, re));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(second), std::stod(m[1]) * 1e6, bin_hz);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(second_db, std::stod(m[2]), 0.05);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(tone_bin), std::stod(m[3]) * 1e6, bin_hz);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(tone_db, std::stod(m[4]), 0.05);
        CPPUNIT_ASSERT_DOUBLES_EQUAL((bin_centre(tone_bin) - bin_centre(second)) / 1e3, std::stod(m[5]), bin_hz / 1e3);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(tone_db - second_db, std::stod(m[6]), 0.05);
        // The mark: white pixels on the average line at the marker.
        const int y = int(std::floor(row_of(tone_db, sp)));
        bool mark = false;
        for (int dx = -3; dx <= 3; ++dx)
            mark |= img.pixel(x + dx, y + 2) == qRgb(255, 255, 255);
        CPPUNIT_ASSERT_MESSAGE("no marker drawn", mark);
        f.key(Qt::Key_X, "x");
        CPPUNIT_ASSERT(f.widget->markers().empty());
    }

    // Columns of 4.27 bins (N 4096 over 960 columns: 2.13 kHz, bins of
    // 500 Hz), tones on bins whose centres lie 0.4 column off their
    // column's centre: peak search, next peak and a right click put the
    // markers on the tones' bins, and the table prints them (and the
    // delta) with the bin's digits; the saved lines say which frequencies
    // each row stands for, and the row under a marker reads its level.
    // The readout prints what the pixel shows: a column wider than the
    // pixel with the column's digits, a bin with the bin's.
    void markers_land_on_bins()
    {
        const std::size_t bins = 4096, columns = 960;
        const double bin_hz = fs / double(bins);
        const auto centre = [&](std::size_t k) { return fc + (double(k) - double(bins / 2)) * bin_hz; };
        // The first bin from k whose centre lies 0.35 to 0.45 column left of its column's centre.
        const auto off_centre = [&](std::size_t k) {
            while (std::fmod((double(k) + 0.5) * double(columns) / double(bins), 1.0) > 0.15)
                ++k;
            return k;
        };
        const std::size_t first = off_centre(bins / 2 + 800), second = off_centre(bins / 2 - 600);
        const double second_db = -35;
        fixture f(bins, columns);
        f.widget->set_show_average(true);
        const auto mhz = [](double hz, int decimals) { return QString::number(hz / 1e6, 'f', decimals) + " MHz"; };
        // No frame yet, no bin known: the marker on the column's centre, with its digits and width.
        const double col_hz = fs / double(columns), left = centre(0) - bin_hz / 2;
        const std::size_t column = std::size_t(std::floor((centre(first) - left) / col_hz));
        const double column_centre = left + (double(column) + 0.5) * col_hz;
        f.widget->place_marker(centre(first));
        CPPUNIT_ASSERT_DOUBLES_EQUAL(column_centre, f.widget->markers()[0], 1e-6);
        CPPUNIT_ASSERT_EQUAL("M1 " + mhz(column_centre, 3).toStdString() + " no data (column of 2.13 kHz)",
                             f.widget->marker_table().toStdString());
        f.key(Qt::Key_X, "x");
        std::vector<float> frames(bins * 20, float(floor_db));
        for (std::size_t fr = 0; fr < 20; ++fr) {
            frames[fr * bins + first] = float(tone_db);
            frames[fr * bins + second] = float(second_db);
        }
        f.core->with_engine([&](::gpufft::display& d) { d.push(frames.data(), 20); });
        f.widget->refresh();
        f.key(Qt::Key_K, "k");
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), f.widget->markers().size());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(centre(first), f.widget->markers()[0], 1e-6 * centre(first));
        // 500 Hz bins: four decimals of MHz.
        QString want = "M1 " + mhz(centre(first), 4) + " -20.0 dB";
        CPPUNIT_ASSERT_EQUAL(want.toStdString(), f.widget->marker_table().toStdString());
        f.key(Qt::Key_N, "n");
        CPPUNIT_ASSERT_DOUBLES_EQUAL(centre(second), f.widget->markers()[0], 1e-6 * centre(second));
        want = "M1 " + mhz(centre(second), 4) + " -35.0 dB";
        CPPUNIT_ASSERT_EQUAL(want.toStdString(), f.widget->marker_table().toStdString());
        // A right click a pixel beside the first tone: the marker on its bin.
        const QRect sp = f.widget->spectrum_plot_rect();
        const int x = pixel_of(centre(first), sp, f.widget->view_lo(), f.widget->view_hi());
        QWidget* pane = f.widget->spectrum_pane();
        QMouseEvent press(QEvent::MouseButtonPress, f.in_pane(pane, QPoint(x + 1, sp.center().y())), Qt::RightButton,
                          Qt::RightButton, Qt::NoModifier);
        QApplication::sendEvent(pane, &press);
        CPPUNIT_ASSERT_EQUAL(std::size_t(2), f.widget->markers().size());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(centre(first), f.widget->markers()[1], 1e-6 * centre(first));
        want += "   M2 " + mhz(centre(first), 4) + " -20.0 dB (M2-M1 " +
                QString::number((centre(first) - centre(second)) / 1e3, 'f', 1) + " kHz, 15.0 dB)";
        CPPUNIT_ASSERT_EQUAL(want.toStdString(), f.widget->marker_table().toStdString());
        // The saved lines: each row a display column, its bins' centre and width; the row
        // holding M2's bin reads the level the table shows.
        QTemporaryDir dir;
        const QString csv = dir.filePath("traces.csv");
        f.widget->save_traces(csv);
        QFile file(csv);
        CPPUNIT_ASSERT(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        CPPUNIT_ASSERT_EQUAL(std::string("frequency_hz,width_hz,average_dB"), lines[0].toStdString());
        int holding = 0;
        for (int i = 1; i < lines.size(); ++i) {
            const QStringList cells = lines[i].split(',');
            const double hz = cells[0].toDouble(), w = cells[1].toDouble();
            // Whole bins: 4 or 5 of them.
            CPPUNIT_ASSERT_MESSAGE(lines[i].toStdString(), w == 4 * bin_hz || w == 5 * bin_hz);
            if (std::abs(centre(first) - hz) < w / 2) {
                ++holding;
                CPPUNIT_ASSERT_EQUAL(std::string("-20.0"), QString::number(cells[2].toDouble(), 'f', 1).toStdString());
            }
        }
        CPPUNIT_ASSERT_EQUAL(1, holding);
        // The readout, zoomed in to about 50 Hz a pixel: a 2.13 kHz column under the
        // pointer, its centre with its digits (one decimal of kHz: three of MHz).
        f.widget->set_view(centre(first) - 20e3, centre(first) + 20e3);
        const int px = pixel_of(centre(first), sp, f.widget->view_lo(), f.widget->view_hi());
        f.hover(pane, px, sp.center().y());
        CPPUNIT_ASSERT_MESSAGE(f.widget->readout().toStdString(),
                               f.widget->readout().startsWith(mhz(column_centre, 3) + "  "));
        // Once the bin range follows the view, a column shows a bin: the bin's digits.
        f.widget->apply_view_bins();
        f.core->with_engine([&](::gpufft::display& d) { d.push(frames.data(), 20); });
        f.widget->refresh();
        f.hover(pane, px, sp.center().y());
        CPPUNIT_ASSERT_MESSAGE(f.widget->readout().toStdString(),
                               f.widget->readout().startsWith(mhz(centre(first), 4) + "  "));
    }

    // A left drag that starts on a marker's mark moves the marker, not the
    // view, and sends no click.
    void drag_moves_a_marker()
    {
        fixture f;
        f.widget->set_show_average(true);
        f.push(tone_bin, 20);
        f.widget->place_marker(bin_centre(tone_bin));
        const QRect sp = f.widget->spectrum_plot_rect();
        const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
        const int x = pixel_of(bin_centre(tone_bin), sp, lo, hi);
        QWidget* pane = f.widget->spectrum_pane();
        const QPoint a = f.in_pane(pane, QPoint(x + 2, sp.center().y()));
        const QPoint b = a + QPoint(-150, 30);
        fixture::drag(pane, a, b);
        // On the bin that gave the column under the pixel it was dropped on
        // its value: every bin at the floor, the column's first (two bins a column).
        const double dropped = lo + (x + 2 - 150 - sp.left() + 0.5) / sp.width() * (hi - lo);
        const std::size_t column = std::size_t(std::floor((dropped - (bin_centre(0) - fs / n / 2)) / (2 * fs / n)));
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), f.widget->markers().size());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(bin_centre(2 * column), f.widget->markers()[0], 1e-6);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(lo, f.widget->view_lo(), 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(hi, f.widget->view_hi(), 1e-9);
        CPPUNIT_ASSERT(f.clicks.empty());
        // The table follows: M1 now reads the floor.
        CPPUNIT_ASSERT_MESSAGE(f.widget->marker_table().toStdString(),
                               f.widget->marker_table().contains(QString::number(floor_db, 'f', 1)));
    }

    // The FFT size and window choosers build the sink's transform anew (its
    // getters and the display's bin count read the new one), the block's
    // setters show in them; the annotation names the view's centre and
    // span and the RBW (the window's equivalent noise bandwidth x fs / N,
    // against a double reference). Where spectra come in there is nothing
    // to choose.
    void choosers_set_the_transform()
    {
        auto b = gr::gpufft::display_sink_c::make(1024, fs, fc, "simd", "cf32", "hann", 0.0, 120.0, 0.9, 30.0, "grey",
                                                  512, int(height));
        // The block's widget class is the library's copy: reached through Qt's properties.
        QWidget* w = b->qwidget();
        w->resize(900, 700);
        w->show();
        auto prop = [w](const char* name) { return w->property(name); };
        // Until the widget's timer has read what is asked for (30 reads a second).
        auto read_until = [&](const std::function<bool()>& done) {
            for (int i = 0; i < 200 && !done(); ++i)
                fixture::wait(10);
        };
        read_until([&] { return prop("bins").toULongLong() == 1024; });
        auto* size = w->findChild<QComboBox*>("fft_size");
        auto* window = w->findChild<QComboBox*>("window");
        CPPUNIT_ASSERT(size && window && size->isVisible() && window->isVisible());
        CPPUNIT_ASSERT_EQUAL(std::string("1024"), size->currentText().toStdString());
        CPPUNIT_ASSERT_EQUAL(std::string("hann"), window->currentText().toStdString());
        // hann (gr::fft::window's, symmetric): 0.5 - 0.5 cos(2 pi i / (N - 1)).
        auto rbw = [](std::size_t bins, bool hann) {
            double sum = 0, power = 0;
            for (std::size_t i = 0; i < bins; ++i) {
                const double v = hann ? 0.5 - 0.5 * std::cos(2 * M_PI * double(i) / double(bins - 1)) : 1.0;
                sum += v;
                power += v * v;
            }
            return double(bins) * power / (sum * sum) * fs / double(bins);
        };
        const std::regex re(R"(Centre ([0-9.]+) MHz   Span ([0-9.]+) MHz   RBW ([0-9.]+) (k?Hz) \((\w+), N (\d+)\))");
        auto check = [&](double centre, double span, std::size_t bins, bool hann) {
            const std::string text = prop("annotation").toString().toStdString();
            std::smatch m;
            CPPUNIT_ASSERT_MESSAGE(text, std::regex_match(text, m, re));
            CPPUNIT_ASSERT_DOUBLES_EQUAL(centre, std::stod(m[1]) * 1e6, 0.5e3);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(span, std::stod(m[2]) * 1e6, 0.5e3);
            const double got = std::stod(m[3]) * (m[4] == "kHz" ? 1e3 : 1.0), want = rbw(bins, hann);
            CPPUNIT_ASSERT_MESSAGE(text + ": RBW " + std::to_string(want), std::abs(got - want) <= want * 5e-3);
            CPPUNIT_ASSERT_EQUAL(std::string(hann ? "hann" : "rectangular"), std::string(m[5]));
            CPPUNIT_ASSERT_EQUAL(bins, std::size_t(std::stoul(m[6])));
        };
        check(fc, fs, 1024, true);
        // Drawn above the plot: light text over the pane's background.
        const QImage img = w->grab().toImage();
        img.save("qa_display_widget_annotation.png");
        const QRect sp = prop("spectrum_plot").toRect();
        int light = 0;
        for (int y = sp.top() - 18; y < sp.top() - 2; ++y)
            for (int x = sp.left(); x < sp.left() + 200; ++x)
                light += qRed(img.pixel(x, y)) > 128;
        CPPUNIT_ASSERT_MESSAGE("no annotation text", light > 50);

        // The choosers, as the user picks an item.
        size->setCurrentText("4096");
        emit size->textActivated("4096");
        CPPUNIT_ASSERT_EQUAL(4096, b->fft_size());
        CPPUNIT_ASSERT_EQUAL(qulonglong(4096), prop("bins").toULongLong()); // the display's bins, read back
        window->setCurrentText("rectangular");
        emit window->textActivated("rectangular");
        CPPUNIT_ASSERT_EQUAL(std::string("rectangular"), b->window());
        CPPUNIT_ASSERT_EQUAL(std::string("rectangular"), prop("window").toString().toStdString());
        check(fc, fs, 4096, false);
        // Zoomed in twice about the centre: the view's centre and span.
        QKeyEvent plus(QEvent::KeyPress, Qt::Key_Plus, Qt::NoModifier, "+");
        QApplication::sendEvent(w, &plus);
        check(fc, fs / 2, 4096, false);
        // The transform in use picked again builds no new engine: the
        // zoomed view's bin range (which a new engine would reset to the
        // whole band) stays.
        read_until([&] { return prop("bin_end").toULongLong() - prop("bin_begin").toULongLong() < 4096; });
        const auto zoomed = prop("bin_end").toULongLong() - prop("bin_begin").toULongLong();
        CPPUNIT_ASSERT(zoomed < 4096);
        emit size->textActivated("4096");
        emit window->textActivated("rectangular");
        CPPUNIT_ASSERT_EQUAL(zoomed, prop("bin_end").toULongLong() - prop("bin_begin").toULongLong());
        // The block's setters show in the choosers (a size off the list too).
        b->set_fft_size(1000);
        b->set_window("hann");
        read_until([&] { return prop("bins").toULongLong() == 1000 && prop("window").toString() == "hann"; });
        CPPUNIT_ASSERT_EQUAL(std::string("1000"), size->currentText().toStdString());
        CPPUNIT_ASSERT_EQUAL(std::string("hann"), window->currentText().toStdString());
        CPPUNIT_ASSERT_EQUAL(qulonglong(1000), prop("bins").toULongLong());

        // Spectra in: no choosers, the bin width instead of an RBW, and the feed refuses.
        fixture f;
        f.push(tone_bin);
        CPPUNIT_ASSERT(!f.widget->findChild<QComboBox*>("fft_size")->isVisible());
        CPPUNIT_ASSERT(!f.widget->findChild<QComboBox*>("window")->isVisible());
        CPPUNIT_ASSERT_EQUAL(std::string("Centre 100.000 MHz   Span 2.048 MHz   Bin 2.000 kHz (N 1024)"),
                             f.widget->annotation().toStdString());
        CPPUNIT_ASSERT_THROW(f.core->set_fft_size(2048), ::gpufft::error);
        CPPUNIT_ASSERT_THROW(f.core->set_window("hann"), ::gpufft::error);
    }

    // The CSV reads back to the drawn lines exactly (frequency in Hz, each
    // line in the level unit, the view's columns only); the PNG is the widget.
    void saved_traces_read_back()
    {
        fixture f;
        f.widget->set_show_average(true);
        f.core->set_max_hold(true);
        f.core->set_min_hold(true);
        std::mt19937 rng(7);
        f.noise(rng, 30, -70);
        f.widget->refresh();
        f.widget->set_view(fc - 100e3, fc + 300e3);
        const gr::gpufft::display_snapshot s = f.snapshot();
        QTemporaryDir dir;
        const QString csv = dir.filePath("traces.csv"), png = dir.filePath("picture.png");
        f.widget->save_traces(csv);
        QFile file(csv);
        CPPUNIT_ASSERT(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        file.close();
        CPPUNIT_ASSERT_EQUAL(std::string("frequency_hz,width_hz,average_dB,max_hold_dB,min_hold_dB"),
                             lines[0].toStdString());
        // Columns of 2 bins: column c's centre is the edge between bins 2c and 2c + 1.
        const double column_hz = 2 * fs / n, left = bin_centre(0) - fs / n / 2;
        std::size_t rows = 0;
        for (std::size_t c = 0; c < width; ++c) {
            const double hz = left + (double(c) + 0.5) * column_hz;
            if (hz < f.widget->view_lo() || hz > f.widget->view_hi())
                continue;
            const QStringList cells = lines[int(++rows)].split(',');
            CPPUNIT_ASSERT_EQUAL(5, int(cells.size()));
            CPPUNIT_ASSERT_DOUBLES_EQUAL(hz, cells[0].toDouble(), 1e-6);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(column_hz, cells[1].toDouble(), 1e-9);
            CPPUNIT_ASSERT_EQUAL(s.average[c], cells[2].toFloat());
            CPPUNIT_ASSERT_EQUAL(s.max_hold_trace[c], cells[3].toFloat());
            CPPUNIT_ASSERT_EQUAL(s.min_hold_trace[c], cells[4].toFloat());
        }
        CPPUNIT_ASSERT(rows > 90);
        CPPUNIT_ASSERT_EQUAL(int(rows) + 1, int(lines.size()));
        // Only the lines drawn.
        f.core->set_min_hold(false);
        f.widget->set_show_average(false);
        f.widget->refresh();
        f.widget->save_traces(csv);
        CPPUNIT_ASSERT(file.open(QIODevice::ReadOnly));
        CPPUNIT_ASSERT_EQUAL(std::string("frequency_hz,width_hz,max_hold_dB"),
                             QString(file.readLine()).trimmed().toStdString());
        file.close();
        f.widget->save_picture(png);
        // Grabbed before the event loop runs: the view's bin range (which clears the display) not yet applied.
        const QImage saved(png), shown = f.widget->grab().toImage();
        CPPUNIT_ASSERT(saved.size() == shown.size());
        saved.save("qa_display_widget_saved.png");
        CPPUNIT_ASSERT(saved.convertToFormat(QImage::Format_RGB32) == shown.convertToFormat(QImage::Format_RGB32));
        CPPUNIT_ASSERT_THROW(f.widget->save_traces(dir.filePath("no/such/dir.csv")), ::gpufft::error);
    }

    // Two levels in every column, one in 70 % of the frames, one in 30 %:
    // relative to the most frequent cell ("log", "linear"), the 70 % level
    // is the map's top colour (white in "grey"), the 30 % one darker; by
    // the share of frames ("frames") neither reaches the top.
    void density_brightest_at_the_most_frequent_level()
    {
        const double often = -80, seldom = -50;
        const QRgb white = qRgb(255, 255, 255);
        for (const char* mapping : { "log", "linear", "frames" }) {
            fixture f;
            f.widget->set_density(mapping);
            std::vector<float> frames(n * 200);
            for (std::size_t fr = 0; fr < 200; ++fr)
                std::fill_n(&frames[fr * n], n, float(fr % 10 < 7 ? often : seldom));
            f.core->with_engine([&](::gpufft::display& d) { d.push(frames.data(), 200); });
            f.widget->refresh();
            const QImage img = f.grab((std::string("density_") + mapping).c_str());
            const QRect sp = f.widget->spectrum_plot_rect();
            auto cell = [&](double db) {
                const double row = std::floor((db + 120.0) / 120.0 * height);
                return img.pixel(sp.center().x(), sp.top() + int(std::floor(sp.height() - (row + 0.5) / height * sp.height())));
            };
            const QRgb top = img.pixel(f.widget->persistence_bar_rect().center().x(), f.widget->persistence_bar_rect().top());
            const std::string what = std::string(mapping) + ": often " + QColor(cell(often)).name().toStdString() +
                                     ", seldom " + QColor(cell(seldom)).name().toStdString();
            CPPUNIT_ASSERT_MESSAGE(what, qRed(cell(often)) > qRed(cell(seldom)) && qRed(cell(seldom)) > 0);
            if (std::string(mapping) == "frames") {
                CPPUNIT_ASSERT_MESSAGE(what, cell(often) != white);
            } else {
                CPPUNIT_ASSERT_MESSAGE(what, cell(often) == white);
                CPPUNIT_ASSERT_MESSAGE(what, top == white);
            }
        }
        CPPUNIT_ASSERT_THROW(display_widget::check_density("shiny"), ::gpufft::error);
    }

    // The waterfall's picture is a ring of rows that takes one row per
    // redraw: after more redraws than it has rows, each painted as it came,
    // it shows every redraw, newest at the top, exactly as the waterfall
    // drawn whole from its history.
    void waterfall_scrolls_one_row_per_redraw()
    {
        fixture f;
        const QRect wf = f.widget->waterfall_plot_rect();
        const double lo = f.widget->view_lo(), hi = f.widget->view_hi();
        const std::size_t redraws = std::size_t(wf.height()) + 20;
        auto tone_of = [](std::size_t redraw) { return n / 8 + (redraw * 37) % (n * 3 / 4); };
        for (std::size_t r = 0; r < redraws; ++r) {
            f.push(tone_of(r), 5);
            QApplication::processEvents();
        }
        const QImage scrolled = f.grab("waterfall_scrolled").copy(wf);
        for (int y : { 0, 1, 2, wf.height() / 2, wf.height() - 1 }) {
            const auto at = brightest_columns(scrolled, y, 0, wf.width() - 1);
            const int expected = pixel_of(bin_centre(tone_of(redraws - 1 - std::size_t(y))), wf, lo, hi) - wf.left();
            CPPUNIT_ASSERT_MESSAGE("row " + std::to_string(y) + " brightest at " + list(at) + ", not " +
                                       std::to_string(expected),
                                   at_pixel(at, expected));
        }
        f.widget->set_colormap(f.widget->colormap()); // drawn whole from the history
        const QImage whole = f.grab("waterfall_whole").copy(wf);
        CPPUNIT_ASSERT(scrolled == whole);
    }
};

void expect_error(const std::function<void()>& make, const std::string& word)
{
    try {
        make();
    } catch (const ::gpufft::error& e) {
        CPPUNIT_ASSERT_MESSAGE(std::string("\"") + e.what() + "\" does not name " + word,
                               std::string(e.what()).find(word) != std::string::npos);
        return;
    }
    CPPUNIT_FAIL("no error for a bad " + word);
}

class qa_display_sink_params : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_display_sink_params);
    CPPUNIT_TEST(bad_parameters);
    CPPUNIT_TEST(bad_setters_change_nothing);
    CPPUNIT_TEST(parent_last);
    CPPUNIT_TEST_SUITE_END();

public:
    void bad_parameters()
    {
        using gr::gpufft::display_sink_c;
        using gr::gpufft::display_sink_f;
        auto c = [](int size, double rate, const std::string& backend, const std::string& format,
                    double range, double decay, double fps, const std::string& map, int w, int h) {
            return [=] { display_sink_c::make(size, rate, 0.0, backend, format, "hann", 0.0, range, decay, fps, map, w, h); };
        };
        expect_error(c(0, 1e6, "simd", "cf32", 120, 0.9, 30, "grey", 512, 128), "fft_size");
        expect_error(c(1024, 0, "simd", "cf32", 120, 0.9, 30, "grey", 512, 128), "samp_rate");
        expect_error(c(1024, 1e6, "nope", "cf32", 120, 0.9, 30, "grey", 512, 128), "nope");
        expect_error(c(1024, 1e6, "simd", "cf64", 120, 0.9, 30, "grey", 512, 128), "format");
        expect_error(c(1024, 1e6, "simd", "cf32", 0, 0.9, 30, "grey", 512, 128), "db_range");
        expect_error(c(1024, 1e6, "simd", "cf32", 120, 0.0, 30, "grey", 512, 128), "decay");
        expect_error(c(1024, 1e6, "simd", "cf32", 120, 1.0, 30, "grey", 512, 128), "decay");
        expect_error(c(1024, 1e6, "simd", "cf32", 120, 0.9, 0, "grey", 512, 128), "frame_rate");
        expect_error(c(1024, 1e6, "simd", "cf32", 120, 0.9, 30, "rainbow", 512, 128), "colormap");
        expect_error(c(1024, 1e6, "simd", "cf32", 120, 0.9, 30, "grey", 0, 128), "width");
        expect_error(c(1024, 1e6, "simd", "cf32", 120, 0.9, 30, "grey", 512, 0), "height");
        expect_error([] { display_sink_f::make(0, 1e6); }, "vlen");
        expect_error([] { display_sink_f::make(1024, 1e6, 0.0, 0.0, 120.0, 1.5); }, "decay");
        expect_error([] { display_sink_f::make(1024, 1e6, 0.0, 0.0, 120.0, 0.9, 30.0, "grey", 0); }, "width");
        expect_error([] { display_sink_f::make(1024, 1e6, 0.0, 0.0, 120.0, 0.9, 30.0, "jet"); }, "colormap");
    }

    // make's parent comes last, after height, as in GNU Radio's QT GUI
    // sinks' make (the lines and the density are set by setters): a caller's
    // parent cannot land in another parameter (a pointer would convert to a
    // bool, a null one to a string).
    void parent_last()
    {
        using gr::gpufft::display_sink_c;
        using gr::gpufft::display_sink_f;
        using s = const std::string&;
        static_assert(std::is_invocable_v<decltype(&display_sink_c::make), int, double, double, s, s, s, double,
                                          double, double, double, s, int, int, QWidget*>);
        static_assert(!std::is_invocable_v<decltype(&display_sink_c::make), int, double, double, s, s, s, double,
                                           double, double, double, s, int, int, const char*, double, QWidget*>);
        static_assert(std::is_invocable_v<decltype(&display_sink_f::make), int, double, double, double, double,
                                          double, double, s, int, int, QWidget*>);
        static_assert(!std::is_invocable_v<decltype(&display_sink_f::make), int, double, double, double, double,
                                           double, double, s, int, int, const char*, double, QWidget*>);
        QWidget parent;
        auto c = display_sink_c::make(256, 1e6, 0.0, "simd", "cf32", "hann", 0.0, 120.0, 0.9, 30.0, "grey", 256, 64,
                                      &parent);
        CPPUNIT_ASSERT(c->qwidget()->parentWidget() == &parent);
        auto f = display_sink_f::make(256, 1e6, 0.0, 0.0, 120.0, 0.9, 30.0, "grey", 256, 64, &parent);
        CPPUNIT_ASSERT(f->qwidget()->parentWidget() == &parent);
    }

    void bad_setters_change_nothing()
    {
        auto b = gr::gpufft::display_sink_c::make(256, 1e6, 5e6, "simd");
        expect_error([&] { b->set_decay(1.0); }, "decay");
        expect_error([&] { b->set_fft_size(0); }, "fft_size");
        expect_error([&] { b->set_backend("nope"); }, "nope");
        expect_error([&] { b->set_colormap("jet"); }, "colormap");
        expect_error([&] { b->set_samp_rate(-1); }, "samp_rate");
        expect_error([&] { b->set_density("shiny"); }, "density");
        CPPUNIT_ASSERT_EQUAL(std::string("log"), b->density());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.98, b->decay(), 0);
        CPPUNIT_ASSERT_EQUAL(256, b->fft_size());
        CPPUNIT_ASSERT_EQUAL(std::string("fosphor"), b->colormap());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(1e6, b->samp_rate(), 0);
        b->set_fft_size(512);
        b->set_window("hann");
        CPPUNIT_ASSERT_EQUAL(512, b->fft_size());
        CPPUNIT_ASSERT_EQUAL(std::string("hann"), b->window());
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_display_widget, "display_widget");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_display_sink_params, "display_sink_params");

} // namespace

int main(int argc, char** argv)
{
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 1);
    int qt_argc = 1;
    QApplication app(qt_argc, argv);
    CppUnit::TextTestRunner runner;
    std::vector<std::string> suites(argv + 1, argv + argc);
    if (suites.empty())
        suites = { "display_widget", "display_sink_params" };
    for (const auto& s : suites)
        runner.addTest(CppUnit::TestFactoryRegistry::getRegistry(s).makeTest());
    return runner.run("", false, true, false) ? 0 : 1;
}
