// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: the display sinks' shared parts (display_sink_core.h). */
#include "display_sink_core.h"
#include <QThread>
#include <sstream>

namespace gr::gpufft {

namespace {

std::string num(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

} // namespace

void display_sink_settings::check(const std::string& block) const
{
    auto fail = [&](const std::string& what) { throw ::gpufft::error(block + ": " + what); };
    if (!(samp_rate > 0) || !std::isfinite(samp_rate))
        fail("samp_rate must be > 0 (got " + num(samp_rate) + ")");
    if (!std::isfinite(center_freq))
        fail("center_freq must be finite (got " + num(center_freq) + ")");
    if (!std::isfinite(ref_level))
        fail("ref_level must be finite (got " + num(ref_level) + ")");
    if (!(db_range > 0) || !std::isfinite(db_range))
        fail("db_range must be > 0 (got " + num(db_range) + ")");
    if (!(decay > 0 && decay < 1))
        fail("decay must be in (0, 1) (got " + num(decay) + ")");
    if (!(frame_rate > 0 && frame_rate <= 1000))
        fail("frame_rate must be in (0, 1000] redraws per second (got " + num(frame_rate) + ")");
    if (width < 1)
        fail("width must be >= 1 (got " + std::to_string(width) + ")");
    if (height < 1)
        fail("height must be >= 1 (got " + std::to_string(height) + ")");
    if (average != "off" && average != "exponential" && average != "linear")
        fail("average must be off, exponential or linear (got \"" + average + "\")");
    if (!(average_frames >= 1 && average_frames <= 1e6))
        fail("average_frames must be in [1, 1e6] (got " + num(average_frames) + ")");
    if (average == "linear" && (average_frames != std::floor(average_frames) ||
                                average_frames > double(display_waterfall_rows)))
        fail("average_frames must be a whole number in [1, " + std::to_string(display_waterfall_rows) +
             "] for the linear average (got " + num(average_frames) + ")");
    try {
        display_widget::check_colormap(colormap);
        display_widget::check_density(density);
    } catch (const ::gpufft::error& e) {
        fail(e.what());
    }
}

transform_info transform_of(const ::gpufft::spectrum_display& d)
{
    const auto& c = d.spectrum_settings();
    const std::vector<float> w =
        c.user_window.empty() ? ::gpufft::make_window(c.window, c.fft_size, c.window_param) : c.user_window;
    double sum = 0, power = 0;
    for (float v : w)
        sum += v, power += double(v) * double(v);
    return { c.user_window.empty() ? c.window : "user", double(w.size()) * power / (sum * sum) };
}

::gpufft::display_config display_sink_settings::display(std::size_t n) const
{
    ::gpufft::display_config c;
    c.n = n;
    c.width = std::size_t(width);
    c.height = std::size_t(height);
    c.db_min = ref_level - db_range;
    c.db_max = ref_level;
    c.decay = decay;
    c.waterfall_rows = display_waterfall_rows;
    // The engine keeps the exponential average; the other modes come from its waterfall rows.
    c.average = ::gpufft::display_average::exponential;
    c.alpha = -std::expm1(-1.0 / average_frames);
    return c;
}

void ensure_qapplication()
{
    if (qApp)
        return;
    // QApplication keeps references to argc and argv for its lifetime.
    static int argc = 1;
    static char name[] = "gpufft";
    static char* argv[] = { name, nullptr };
    new QApplication(argc, argv);
}

display_sink_view::display_sink_view(std::shared_ptr<display_feed> feed,
                                     const display_sink_settings& s,
                                     QWidget* parent)
{
    ensure_qapplication();
    d_widget = new display_widget(std::move(feed), s.colormap, s.frame_rate, s.level_unit, parent);
    d_widget->set_density(s.density);
}

display_sink_view::~display_sink_view()
{
    if (!d_widget || d_widget->parent())
        return;
    if (QThread::currentThread() == d_widget->thread())
        delete d_widget.data();
    else
        d_widget->deleteLater();
}

void display_sink_view::on_gui_thread(std::function<void(display_widget&)> f)
{
    QPointer<display_widget> w = d_widget;
    if (!w)
        return;
    if (QThread::currentThread() == w->thread()) {
        f(*w);
        return;
    }
    QMetaObject::invokeMethod(w, [w, f] {
        if (w)
            f(*w);
    }, Qt::QueuedConnection);
}

void display_sink_view::set_frame_rate(double rate)
{
    on_gui_thread([rate](display_widget& w) { w.set_frame_rate(rate); });
}

void display_sink_view::set_colormap(const std::string& name)
{
    display_widget::check_colormap(name);
    on_gui_thread([name](display_widget& w) { w.set_colormap(name); });
}

void display_sink_view::set_density(const std::string& name)
{
    display_widget::check_density(name);
    on_gui_thread([name](display_widget& w) { w.set_density(name); });
}

std::size_t display_sink_view::redraws() const { return d_widget ? d_widget->redraws() : 0; }

} // namespace gr::gpufft
