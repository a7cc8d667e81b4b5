// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.display_sink_c, I/Q into the display. */
#include "display_sink_c_impl.h"
#include <gnuradio/io_signature.h>
#include <gpufft/gnuradio/logging.h>
#include <algorithm>
#include <cmath>

namespace gr::gpufft {

namespace {

const char* const block_name = "gpufft.display_sink_c";

std::size_t item_size(const std::string& format)
{
    try {
        return ::gpufft::sample_bytes(::gpufft::parse_sample_format(format));
    } catch (const ::gpufft::error& e) {
        throw ::gpufft::error(std::string(block_name) + ": format: " + e.what());
    }
}

} // namespace

display_sink_c::sptr display_sink_c::make(int fft_size,
                                          double samp_rate,
                                          double center_freq,
                                          const std::string& backend,
                                          const std::string& format,
                                          const std::string& window,
                                          double ref_level,
                                          double db_range,
                                          double decay,
                                          double frame_rate,
                                          const std::string& colormap,
                                          int width,
                                          int height,
                                          QWidget* parent)
{
    const display_sink_c_impl::spectrum_params p{ fft_size, window, backend, format };
    const display_sink_settings s{ center_freq, samp_rate, ref_level, db_range, decay,
                                   frame_rate, colormap, width, height, "dBFS" };
    return gnuradio::make_block_sptr<display_sink_c_impl>(p, s, parent);
}

std::unique_ptr<::gpufft::spectrum_display> display_sink_c_impl::build(const spectrum_params& p,
                                                                       const display_sink_settings& s)
{
    const std::string block = block_name;
    if (p.fft_size <= 0 || p.fft_size > (1 << 28))
        throw ::gpufft::error(block + ": fft_size must be in [1, 2^28] (got " + std::to_string(p.fft_size) + ")");
    s.check(block);
    ::gpufft::spectrum_config c;
    c.fft_size = std::size_t(p.fft_size);
    c.sample_rate = s.samp_rate;
    c.window = p.window;
    c.backend = p.backend;
    // Frames per FFT call: about 32k samples' worth, but no more than 20 ms
    // of signal, so that a slow stream still reaches the display every redraw
    // or so (as spectrum_c).
    const double in_20ms = std::floor(0.02 * s.samp_rate / double(p.fft_size));
    c.batch = std::size_t(std::max(1.0, std::min(std::max(1.0, std::floor(32768.0 / p.fft_size)), in_20ms)));
    try {
        c.format = ::gpufft::parse_sample_format(p.format);
        return std::make_unique<::gpufft::spectrum_display>(c, s.display(c.fft_size));
    } catch (const ::gpufft::error& e) {
        throw ::gpufft::error(block + ": " + e.what());
    }
}

display_sink_c_impl::display_sink_c_impl(const spectrum_params& p,
                                         const display_sink_settings& s,
                                         QWidget* parent)
    : gr::sync_block("display_sink_c",
                     gr::io_signature::make(1, 1, item_size(p.format)),
                     gr::io_signature::make(0, 0, 0)),
      display_sink_base(block_name, build(p, s), s, parent),
      d_params(p),
      d_itemsize(item_size(p.format))
{
    route_log_to_gnuradio();
    // The widget's FFT size and window choosers build the engine as these setters do.
    d_core->on_transform([this](int n) { set_fft_size(n); }, [this](const std::string& w) { set_window(w); });
}

template <class T>
void display_sink_c_impl::rebuild(T spectrum_params::*field, const T& value)
{
    std::lock_guard<std::mutex> lock(d_params_mutex);
    spectrum_params p = d_params;
    p.*field = value;
    d_core->replace(build(p, d_core->settings())); // built outside work()'s lock
    d_params = p;
}

void display_sink_c_impl::set_fft_size(int v) { rebuild(&spectrum_params::fft_size, v); }
void display_sink_c_impl::set_window(const std::string& v) { rebuild(&spectrum_params::window, v); }
void display_sink_c_impl::set_backend(const std::string& v) { rebuild(&spectrum_params::backend, v); }

int display_sink_c_impl::fft_size() const
{
    std::lock_guard<std::mutex> lock(d_params_mutex);
    return d_params.fft_size;
}
std::string display_sink_c_impl::window() const
{
    std::lock_guard<std::mutex> lock(d_params_mutex);
    return d_params.window;
}
std::string display_sink_c_impl::format() const
{
    std::lock_guard<std::mutex> lock(d_params_mutex);
    return d_params.format;
}
std::string display_sink_c_impl::backend() const
{
    return d_core->with_engine([](::gpufft::spectrum_display& e) { return e.backend(); });
}

bool display_sink_c_impl::stop()
{
    // The frames of a batch that did not fill: the display shows every frame.
    d_core->with_engine([](::gpufft::spectrum_display& e) { e.flush(); });
    return true;
}

int display_sink_c_impl::work(int noutput_items,
                              gr_vector_const_void_star& input_items,
                              gr_vector_void_star&)
{
    follow_radio_tags(noutput_items);
    const void* in = input_items[0];
    const std::size_t bytes = std::size_t(noutput_items) * d_itemsize;
    d_core->with_engine([&](::gpufft::spectrum_display& e) { e.push_bytes(in, bytes); });
    return noutput_items;
}

} // namespace gr::gpufft
