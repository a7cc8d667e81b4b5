// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: the half of display_sink_c and display_sink_f
 * that is the same (internal): the widget, the display settings' setters and
 * getters, the "freq" message port. */
#ifndef GPUFFT_GNURADIO_DISPLAY_SINK_BASE_H
#define GPUFFT_GNURADIO_DISPLAY_SINK_BASE_H

#include "display_sink_core.h"
#include <gnuradio/logger.h>
#include <gnuradio/tags.h>
#include <pmt/pmt.h>
#include <vector>

namespace gr::gpufft {

/*!
 * Implements \p Interface's display part over an \p Engine. The most
 * derived class constructs gr::sync_block (a virtual base) itself.
 */
template <class Interface, class Engine>
class display_sink_base : public Interface
{
public:
    QWidget* qwidget() override { return d_view.qwidget(); }

    void set_center_freq(double v) override
    {
        d_core->update_settings([v](display_sink_settings& s) { s.center_freq = v; });
    }
    void set_samp_rate(double v) override
    {
        d_core->update_settings([v](display_sink_settings& s) { s.samp_rate = v; });
    }
    void set_ref_level(double v) override
    {
        d_core->update_settings([v](display_sink_settings& s) { s.ref_level = v; });
    }
    void set_db_range(double v) override
    {
        d_core->update_settings([v](display_sink_settings& s) { s.db_range = v; });
    }
    void set_decay(double v) override
    {
        d_core->update_settings([v](display_sink_settings& s) { s.decay = v; });
    }
    void set_frame_rate(double v) override
    {
        d_core->update_settings([v](display_sink_settings& s) { s.frame_rate = v; });
        d_view.set_frame_rate(v);
    }
    void set_colormap(const std::string& v) override
    {
        d_core->update_settings([&v](display_sink_settings& s) { s.colormap = v; });
        d_view.set_colormap(v);
    }

    void set_average(const std::string& mode, double frames) override { d_core->set_average(mode, frames); }
    void set_min_hold(bool on) override { d_core->set_min_hold(on); }
    void set_density(const std::string& v) override
    {
        d_core->update_settings([&v](display_sink_settings& s) { s.density = v; });
        d_view.set_density(v);
    }

    double samp_rate() const override { return d_core->settings().samp_rate; }
    double center_freq() const override { return d_core->settings().center_freq; }
    double ref_level() const override { return d_core->settings().ref_level; }
    double db_range() const override { return d_core->settings().db_range; }
    double decay() const override { return d_core->settings().decay; }
    double frame_rate() const override { return d_core->settings().frame_rate; }
    std::string colormap() const override { return d_core->settings().colormap; }
    std::string average() const override { return d_core->settings().average; }
    double average_frames() const override { return d_core->settings().average_frames; }
    bool min_hold() const override { return d_core->settings().min_hold; }
    std::string density() const override { return d_core->settings().density; }

    uint64_t frames_displayed() const override
    {
        return d_core->with_engine([](Engine& e) { return uint64_t(e.frames()); });
    }
    uint64_t redraws() const override { return d_view.redraws(); }

protected:
    //! \p settings checked, \p engine built from them by the caller.
    display_sink_base(const std::string& block,
                      std::unique_ptr<Engine> engine,
                      const display_sink_settings& settings,
                      QWidget* parent)
        : d_core(std::make_shared<display_sink_core<Engine>>(std::move(engine), settings, block)),
          d_view(d_core, settings, parent)
    {
        // As the QT GUI sinks: a click sends ("freq" . hz).
        const pmt::pmt_t port = pmt::intern("freq");
        this->message_port_register_out(port);
        d_core->on_click([this, port](double hz) { this->message_port_pub(port, pmt::cons(port, pmt::from_double(hz))); });
    }
    ~display_sink_base() override
    {
        d_core->on_click(nullptr);
        d_core->on_transform(nullptr, nullptr);
    }

    /*!
     * The axis follows the rx_freq and rx_rate stream tags among the next
     * \p n items: what a radio source read back (gr-soapy's and gr-uhd's
     * sources tag their first sample and every retune with them; the QT GUI
     * sinks follow rx_freq). A tag that is no number the setter takes is
     * logged and ignored: a source's bad tag must not stop the flowgraph.
     */
    void follow_radio_tags(int n)
    {
        static const pmt::pmt_t freq_key = pmt::intern("rx_freq"), rate_key = pmt::intern("rx_rate");
        std::vector<gr::tag_t> tags;
        this->get_tags_in_window(tags, 0, 0, uint64_t(n));
        for (const auto& t : tags) {
            const bool freq = pmt::eq(t.key, freq_key);
            if (!freq && !pmt::eq(t.key, rate_key))
                continue;
            try {
                if (!pmt::is_number(t.value) || pmt::is_complex(t.value))
                    throw std::invalid_argument("not a real number");
                const double v = pmt::to_double(t.value);
                if (freq)
                    set_center_freq(v);
                else
                    set_samp_rate(v);
            } catch (const std::exception& e) {
                this->d_logger->warn("{:s} tag at item {:d} ignored: {:s}", freq ? "rx_freq" : "rx_rate",
                                     t.offset, e.what());
            }
        }
    }

    std::shared_ptr<display_sink_core<Engine>> d_core;
    display_sink_view d_view;
};

} // namespace gr::gpufft

#endif
