// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.display_sink_c, a live spectrum,
 * persistence and waterfall display of an I/Q stream (Qt5 widget). */
#ifndef GPUFFT_GNURADIO_DISPLAY_SINK_C_H
#define GPUFFT_GNURADIO_DISPLAY_SINK_C_H

#include <gnuradio/sync_block.h>
#include <gpufft/api.h>
#include <cstdint>
#include <string>

class QWidget;

namespace gr::gpufft {

/*!
 * \brief A gr-fosphor-like display: spectrum lines (average, max-hold) over a
 * persistence histogram, and a waterfall below, with a frequency axis in Hz.
 * \ingroup gpufft
 *
 * Input: one stream of samples in \p format ("cf32" gr_complex, "cs16",
 * "cs8" or "cu8" interleaved I/Q, as gpufft.spectrum_c). Every frame of
 * fft_size samples (no overlap) is windowed, transformed on \p backend and
 * goes into the display pipeline (gpufft::spectrum_display; README.md,
 * "Display pipeline"): none is dropped, whatever the redraw rate. The widget
 * reads the display-sized images \p frame_rate times a second and draws them.
 *
 * Levels are dBFS (docs/levels.md): a full-scale complex tone (amplitude 1
 * for cf32) centred on a bin reads 0 dBFS whatever the window and N, as in
 * spectrum_c and gpufft-spectrum. The axis, labelled dBFS, runs from
 * ref_level - db_range to ref_level.
 *
 * Message output "freq": a click on the plot sends
 * pmt::cons(pmt::intern("freq"), pmt::from_double(hz)), hz the absolute
 * frequency under the pointer, as the QT GUI sinks do.
 *
 * The widget is a QWidget (qwidget()) to embed in a Qt window, as the QT
 * GUI sinks are; the block makes a QApplication if none exists.
 */
class GPUFFT_API display_sink_c : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<display_sink_c> sptr;

    /*!
     * \param fft_size N, >= 1 (any size).
     * \param samp_rate input samples per second, > 0 (the axis spans it).
     * \param center_freq the frequency of DC in the input, Hz (the axis' centre).
     * \param backend "auto", "simd", "simd:avx2", "opencl", ...
     * \param format "cf32", "cs16", "cs8" or "cu8".
     * \param window a window name (gpufft::window_names()).
     * \param ref_level the top of the dB axis.
     * \param db_range the dB axis' span, > 0.
     * \param decay the persistence histogram's decay per frame, in (0, 1).
     * \param frame_rate redraws per second, in (0, 1000].
     * \param colormap "fosphor", "viridis" or "grey".
     * \param width display columns W (the images' width), >= 1.
     * \param height persistence histogram rows H, >= 1.
     * \param parent the widget's Qt parent: last, as in GNU Radio's QT GUI
     *        sinks' make; the lines and the density (set_average,
     *        set_min_hold, set_density) are set as theirs are, by setters.
     *
     * Throws std::invalid_argument (gpufft::error) naming the bad parameter.
     */
    static sptr make(int fft_size,
                     double samp_rate,
                     double center_freq = 0.0,
                     const std::string& backend = "auto",
                     const std::string& format = "cf32",
                     const std::string& window = "blackmanharris",
                     double ref_level = 0.0,
                     double db_range = 120.0,
                     double decay = 0.98,
                     double frame_rate = 30.0,
                     const std::string& colormap = "fosphor",
                     int width = 1024,
                     int height = 256,
                     QWidget* parent = nullptr);

    virtual QWidget* qwidget() = 0;

    //! Each setter throws (and changes nothing) for a bad value. These four
    //! build a new engine (the display restarts empty).
    virtual void set_fft_size(int fft_size) = 0;
    virtual void set_window(const std::string& window) = 0;
    virtual void set_backend(const std::string& backend) = 0;
    //! These keep the engine (set_ref_level and set_db_range clear the histogram).
    virtual void set_center_freq(double center_freq) = 0;
    virtual void set_samp_rate(double samp_rate) = 0;
    virtual void set_ref_level(double ref_level) = 0;
    virtual void set_db_range(double db_range) = 0;
    virtual void set_decay(double decay) = 0;
    virtual void set_frame_rate(double frame_rate) = 0;
    virtual void set_colormap(const std::string& colormap) = 0;
    /*!
     * The average line: "off", "exponential" (time constant average_frames
     * frames: each frame weighs 1 - exp(-1 / average_frames)) or "linear"
     * (the mean of the newest average_frames frames). average_frames: the
     * exponential's time constant in frames, in [1, 1e6]; the linear's
     * frames, a whole number in [1, 512]. The line restarts. At first
     * "exponential", 10.
     */
    virtual void set_average(const std::string& average, double average_frames) = 0;
    //! On: the min-hold line (the least of every frame per column) starts at
    //! the next frame; off (at first): none.
    virtual void set_min_hold(bool on) = 0;
    /*!
     * The persistence's colours: "log" (at first: a log scale of each cell's
     * density relative to the most frequent level of a typical column, the
     * median over the columns of each one's densest cell: it and denser
     * cells get the colour map's top; three decades), "linear" (relative to
     * it, linear) or "frames" (a log scale of the share of frames that hit a
     * cell, the top a cell hit by every frame).
     */
    virtual void set_density(const std::string& density) = 0;

    virtual int fft_size() const = 0;
    virtual double samp_rate() const = 0;
    virtual double center_freq() const = 0;
    virtual std::string window() const = 0;
    virtual std::string format() const = 0;
    //! The FFT's backend and variant in use, e.g. "simd:avx2".
    virtual std::string backend() const = 0;
    virtual double ref_level() const = 0;
    virtual double db_range() const = 0;
    virtual double decay() const = 0;
    virtual double frame_rate() const = 0;
    virtual std::string colormap() const = 0;
    virtual std::string average() const = 0;
    virtual double average_frames() const = 0;
    virtual bool min_hold() const = 0;
    virtual std::string density() const = 0;

    //! Frames that went into the display since the engine was built
    //! (construction or the last engine setter).
    virtual uint64_t frames_displayed() const = 0;
    //! Redraws with new data since construction.
    virtual uint64_t redraws() const = 0;
};

} // namespace gr::gpufft

#endif
