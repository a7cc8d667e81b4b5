// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.display_sink_f, the live display of
 * precomputed dB spectra (Qt5 widget). */
#ifndef GPUFFT_GNURADIO_DISPLAY_SINK_F_H
#define GPUFFT_GNURADIO_DISPLAY_SINK_F_H

#include <gnuradio/sync_block.h>
#include <gpufft/api.h>
#include <cstdint>
#include <string>

class QWidget;

namespace gr::gpufft {

/*!
 * \brief The display of gpufft.display_sink_c for spectra computed elsewhere:
 * gpufft.spectrum_c, a file or a ZeroMQ stream of dB vectors.
 * \ingroup gpufft
 *
 * Input: vectors of \p vlen floats, dB values in display order (fftshifted:
 * the lowest frequency first, DC at vlen / 2, as spectrum_c gives them with
 * shift on). Every vector goes into the display pipeline (gpufft::display);
 * the frequency axis spans samp_rate around center_freq, bin k centred on
 * center_freq + (k - floor(vlen / 2)) samp_rate / vlen.
 *
 * The widget, its controls and the "freq" message port are display_sink_c's.
 */
class GPUFFT_API display_sink_f : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<display_sink_f> sptr;

    /*!
     * \param vlen bins per spectrum N, >= 1.
     * \param samp_rate the band the spectra span, Hz, > 0.
     * \param center_freq the band's centre, Hz.
     * Other parameters as display_sink_c's (parent last; the lines and the
     * density by their setters). Throws std::invalid_argument
     * (gpufft::error) naming the bad parameter.
     */
    static sptr make(int vlen,
                     double samp_rate,
                     double center_freq = 0.0,
                     double ref_level = 0.0,
                     double db_range = 120.0,
                     double decay = 0.98,
                     double frame_rate = 30.0,
                     const std::string& colormap = "fosphor",
                     int width = 1024,
                     int height = 256,
                     QWidget* parent = nullptr);

    virtual QWidget* qwidget() = 0;

    //! Each setter throws (and changes nothing) for a bad value.
    virtual void set_center_freq(double center_freq) = 0;
    virtual void set_samp_rate(double samp_rate) = 0;
    virtual void set_ref_level(double ref_level) = 0;
    virtual void set_db_range(double db_range) = 0;
    virtual void set_decay(double decay) = 0;
    virtual void set_frame_rate(double frame_rate) = 0;
    virtual void set_colormap(const std::string& colormap) = 0;
    virtual void set_average(const std::string& average, double average_frames) = 0;
    virtual void set_min_hold(bool on) = 0;
    //! The persistence's density mapping (as display_sink_c's).
    virtual void set_density(const std::string& density) = 0;

    virtual int vlen() const = 0;
    virtual double samp_rate() const = 0;
    virtual double center_freq() const = 0;
    virtual double ref_level() const = 0;
    virtual double db_range() const = 0;
    virtual double decay() const = 0;
    virtual double frame_rate() const = 0;
    virtual std::string colormap() const = 0;
    virtual std::string average() const = 0;
    virtual double average_frames() const = 0;
    virtual bool min_hold() const = 0;
    virtual std::string density() const = 0;

    //! Spectra that went into the display since construction.
    virtual uint64_t frames_displayed() const = 0;
    //! Redraws with new data since construction.
    virtual uint64_t redraws() const = 0;
};

} // namespace gr::gpufft

#endif
