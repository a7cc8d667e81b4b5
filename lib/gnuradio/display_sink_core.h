// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: what display_sink_c and display_sink_f share
 * (internal): a display engine behind a lock, the settings the widget reads
 * with it, and the widget's creation. */
#ifndef GPUFFT_GNURADIO_DISPLAY_SINK_CORE_H
#define GPUFFT_GNURADIO_DISPLAY_SINK_CORE_H

#include "display_widget.h"
#include <gpufft/display.h>
#include <gpufft/error.h>
#include <gpufft/spectrum_display.h>
#include <QApplication>
#include <QPointer>
#include <cmath>
#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gr::gpufft {

//! The display settings every display sink checks the same way (throws gpufft::error naming the parameter).
struct display_sink_settings {
    double center_freq;
    double samp_rate;
    double ref_level;
    double db_range;
    double decay;
    double frame_rate;
    std::string colormap;
    int width;
    int height;
    std::string level_unit; //!< what the input's levels are: the axis' label
    //! The average line: "off", "exponential" (time constant average_frames
    //! frames: each frame weighs 1 - exp(-1 / average_frames)) or "linear"
    //! (the mean of the newest average_frames frames, a whole number in
    //! [1, display_waterfall_rows]).
    std::string average = "exponential";
    double average_frames = 10;
    bool min_hold = false; //!< keep the min-hold trace
    std::string density = "log"; //!< the persistence's density mapping (display_widget::density_names())

    void check(const std::string& block) const;
    //! The display_config for n bins.
    ::gpufft::display_config display(std::size_t n) const;
};

//! Makes the QApplication GNU Radio's Qt sinks expect when none exists yet
//! (a C++ flowgraph), as gr-qtgui's sinks do.
void ensure_qapplication();

//! Waterfall rows a display keeps: the frames one redraw can combine, the
//! most a linear average spans and the most frames between two redraws the
//! min-hold sees.
constexpr std::size_t display_waterfall_rows = 512;

// Seconds of signal per frame: N samples for an I/Q display, unknown for vectors of dB values.
inline double frame_seconds_of(const ::gpufft::display&, const display_sink_settings&) { return 0.0; }
inline double frame_seconds_of(const ::gpufft::spectrum_display& d, const display_sink_settings& s)
{
    return double(d.display_settings().n) / s.samp_rate;
}

// What the widget shows of the transform: its window, and that window's
// equivalent noise bandwidth in bins (none where spectra come in).
struct transform_info {
    std::string window;
    double enbw = 0;
};
inline transform_info transform_of(const ::gpufft::display&) { return {}; }
transform_info transform_of(const ::gpufft::spectrum_display& d);

// The engine's display settings, under either engine type.
inline const ::gpufft::display_config& settings_of(const ::gpufft::display& d) { return d.config(); }
inline const ::gpufft::display_config& settings_of(const ::gpufft::spectrum_display& d)
{
    return d.display_settings();
}

/*!
 * An engine (gpufft::display or gpufft::spectrum_display) shared by work()
 * and the widget's timer: work() pushes every frame under the lock, the
 * widget copies the display-sized read-outs under it.
 */
template <class Engine>
class display_sink_core : public display_feed
{
public:
    //! \p block names the block in error messages.
    display_sink_core(std::unique_ptr<Engine> engine, const display_sink_settings& s, std::string block)
        : d_engine(std::move(engine)), d_transform(transform_of(*d_engine)), d_settings(s), d_block(std::move(block))
    {
        restart_min_hold();
    }

    //! Runs f(engine) under the lock (work(), setters).
    template <class F>
    auto with_engine(F&& f)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return f(*d_engine);
    }
    //! A new engine (built by the caller, outside the lock); the old one is freed outside it too.
    void replace(std::unique_ptr<Engine> engine)
    {
        transform_info t = transform_of(*engine);
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            std::swap(d_engine, engine);
            std::swap(d_transform, t);
            ++d_generation;
            restart_min_hold();
        }
    }

    display_sink_settings settings() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_settings;
    }
    //! Changes the settings that need no new engine (axis, dB range, decay); throws for a bad value.
    template <class F>
    void update_settings(F&& change)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        display_sink_settings s = d_settings;
        change(s);
        s.check(d_block);
        // A new range clears the histogram: only when it changes.
        if (s.ref_level != d_settings.ref_level || s.db_range != d_settings.db_range)
            d_engine->set_db_range(s.ref_level - s.db_range, s.ref_level);
        d_engine->set_decay(s.decay);
        if (s.average != d_settings.average || s.average_frames != d_settings.average_frames) {
            const auto c = s.display(settings_of(*d_engine).n);
            d_engine->set_average(c.average, c.alpha);
        }
        const bool min_hold_changed = s.min_hold != d_settings.min_hold;
        d_settings = s;
        if (min_hold_changed)
            restart_min_hold();
    }

    //! Where a click goes (the block's message port); cleared when the block goes.
    void on_click(std::function<void(double)> f)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_on_click = std::move(f);
    }
    //! What builds a new transform (the block's setters); cleared when the block goes.
    void on_transform(std::function<void(int)> fft_size, std::function<void(const std::string&)> window)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_on_fft_size = std::move(fft_size);
        d_on_window = std::move(window);
    }

    // display_feed, on the GUI thread.
    void read(display_snapshot& s, std::size_t frames_seen) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        const auto& c = settings_of(*d_engine);
        s.width = c.width;
        s.height = c.height;
        s.bins = c.n;
        s.bin_begin = c.bin_begin;
        s.bin_end = c.bin_end;
        s.db_min = c.db_min;
        s.db_max = c.db_max;
        s.decay = c.decay;
        s.max_hold = c.max_hold;
        s.min_hold = d_settings.min_hold;
        s.average_mode = d_settings.average;
        s.average_frames = d_settings.average_frames;
        s.frame_seconds = frame_seconds_of(*d_engine, d_settings);
        s.center_freq = d_settings.center_freq;
        s.sample_rate = d_settings.samp_rate;
        s.window = d_transform.window;
        s.enbw = d_transform.enbw;
        const bool same_engine = s.engine == d_generation;
        s.engine = d_generation;
        s.frames = d_engine->frames();
        s.levels.resize(c.width * c.height);
        s.lit_rows.resize(c.height);
        s.average.resize(c.width);
        s.max_hold_trace.resize(c.width);
        constexpr std::size_t top = display_snapshot::histogram_levels - 1;
        d_engine->read_histogram_levels(s.levels.data(), float(double(top) * (1.0 - c.decay)), std::uint16_t(top),
                                        s.lit_rows.data());
        d_engine->read_average(s.average.data());
        d_engine->read_max_hold(s.max_hold_trace.data());
        read_frame_traces(s);
        const std::size_t fresh = same_engine && s.frames >= frames_seen ? s.frames - frames_seen : s.frames;
        s.new_rows = std::min(fresh, c.waterfall_rows);
        s.waterfall.resize(s.new_rows > 0 ? c.width : 0);
        if (s.new_rows > 0)
            d_engine->read_waterfall_max(s.waterfall.data(), s.new_rows);
    }
    void set_db_range(double db_min, double db_max) override
    {
        update_settings([&](display_sink_settings& s) {
            s.ref_level = db_max;
            s.db_range = db_max - db_min;
        });
    }
    void set_max_hold(bool on) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_engine->set_max_hold(on);
    }
    void reset_max_hold() override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_engine->reset_max_hold();
        restart_min_hold();
    }
    void set_min_hold(bool on) override
    {
        update_settings([on](display_sink_settings& s) { s.min_hold = on; });
    }
    void set_average(const std::string& mode, double frames) override
    {
        update_settings([&](display_sink_settings& s) {
            s.average = mode;
            s.average_frames = frames;
        });
    }
    //! A range past the engine's bins (rebuilt with a smaller N since the
    //! widget read it) is ignored: the widget sets one again after its next read.
    void set_bin_range(std::size_t begin, std::size_t end) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        if (begin < end && end <= settings_of(*d_engine).n) {
            d_engine->set_bin_range(begin, end);
            restart_min_hold(); // its columns meant other bins
        }
    }
    bool newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) override
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return begin < end && end <= settings_of(*d_engine).n && d_engine->newest_peak_bin(begin, end, bin);
    }
    void clicked(double hz) override
    {
        std::function<void(double)> f;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            f = d_on_click;
        }
        if (f)
            f(hz);
    }
    // Called outside the lock: the block builds the new engine and replaces this one.
    void set_fft_size(int n) override
    {
        std::function<void(int)> f;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            f = d_on_fft_size;
        }
        if (!f)
            throw ::gpufft::error(d_block + ": the FFT size is the input's vector length here");
        f(n);
    }
    void set_window(const std::string& window) override
    {
        std::function<void(const std::string&)> f;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            f = d_on_window;
        }
        if (!f)
            throw ::gpufft::error(d_block + ": spectra come in: there is no window to set");
        f(window);
    }

private:
    /*!
     * The traces the engine does not keep, from its waterfall ring (every
     * frame's columns, the newest display_waterfall_rows of them): the
     * min-hold folds in the frames since the last read (all of them while
     * redraws come at least every display_waterfall_rows frames), the
     * linear average is the mean of the newest average_frames rows that
     * hold a frame. The off average reads NaN (no line). Under the lock.
     */
    void read_frame_traces(display_snapshot& s)
    {
        const std::size_t w = s.width, frames = s.frames;
        const bool linear = d_settings.average == "linear";
        if (d_settings.average == "off")
            std::fill(s.average.begin(), s.average.end(), std::numeric_limits<float>::quiet_NaN());
        s.min_hold_trace.resize(w);
        if (!d_settings.min_hold || d_min_hold.size() != w)
            restart_min_hold();
        const std::size_t fresh = d_settings.min_hold ? frames - std::min(d_min_hold_frames, frames) : 0;
        const std::size_t ring = settings_of(*d_engine).waterfall_rows;
        const std::size_t k = linear ? std::size_t(d_settings.average_frames) : 0;
        const std::size_t rows = std::min(std::min(std::max(fresh, k), frames), ring);
        if (rows > 0) {
            d_rows.resize(rows * w);
            d_engine->read_waterfall(d_rows.data(), rows); // oldest first
            for (std::size_t r = rows - std::min(fresh, rows); r < rows; ++r)
                for (std::size_t c = 0; c < w; ++c) {
                    const float v = d_rows[r * w + c];
                    if (v < d_min_hold[c] || (std::isnan(d_min_hold[c]) && !std::isnan(v)))
                        d_min_hold[c] = v;
                }
            if (linear)
                for (std::size_t c = 0; c < w; ++c) {
                    double sum = 0;
                    std::size_t count = 0;
                    for (std::size_t r = rows - std::min(k, rows); r < rows; ++r) {
                        const float v = d_rows[r * w + c];
                        if (!std::isnan(v)) { // NaN: a row before the first frame
                            sum += v;
                            ++count;
                        }
                    }
                    s.average[c] = count > 0 ? float(sum / double(count)) : std::numeric_limits<float>::quiet_NaN();
                }
        } else if (linear) {
            std::fill(s.average.begin(), s.average.end(), std::numeric_limits<float>::quiet_NaN());
        }
        d_min_hold_frames = frames;
        std::copy(d_min_hold.begin(), d_min_hold.end(), s.min_hold_trace.begin());
    }

    // The min-hold from the next frame on. Under the lock.
    void restart_min_hold()
    {
        d_min_hold.assign(settings_of(*d_engine).width, std::numeric_limits<float>::quiet_NaN());
        d_min_hold_frames = d_engine->frames();
    }

    mutable std::mutex d_mutex;
    std::unique_ptr<Engine> d_engine; // guarded by d_mutex
    transform_info d_transform;       // d_engine's; guarded by d_mutex
    std::size_t d_generation = 1;     // engines built so far (0: none read yet); guarded by d_mutex
    display_sink_settings d_settings; // guarded by d_mutex
    std::function<void(double)> d_on_click; // guarded by d_mutex
    std::function<void(int)> d_on_fft_size; // guarded by d_mutex
    std::function<void(const std::string&)> d_on_window; // guarded by d_mutex
    std::vector<float> d_min_hold;          // W; guarded by d_mutex
    std::size_t d_min_hold_frames = 0;      // the engine's frames when it was last brought up to date; guarded by d_mutex
    std::vector<float> d_rows;              // waterfall rows read; guarded by d_mutex
    const std::string d_block;
};

/*!
 * The widget of a display sink: made on the constructor's (GUI) thread,
 * reached from any thread through the GUI thread's event loop.
 */
class display_sink_view
{
public:
    display_sink_view(std::shared_ptr<display_feed> feed, const display_sink_settings& s, QWidget* parent);
    //! A widget in a window stays (Qt's parent owns it); a lone one is deleted.
    ~display_sink_view();

    QWidget* qwidget() const { return d_widget.data(); }
    void set_frame_rate(double rate);
    void set_colormap(const std::string& name);
    void set_density(const std::string& name);
    std::size_t redraws() const;

private:
    // f(widget) on the widget's thread: now if that is this one, else queued.
    void on_gui_thread(std::function<void(display_widget&)> f);

    QPointer<display_widget> d_widget;
};

} // namespace gr::gpufft

#endif
