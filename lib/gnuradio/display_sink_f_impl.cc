// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.display_sink_f, dB spectra into the display. */
#include "display_sink_f_impl.h"
#include <gnuradio/io_signature.h>
#include <gpufft/gnuradio/logging.h>
#include <algorithm>

namespace gr::gpufft {

namespace {

const char* const block_name = "gpufft.display_sink_f";

} // namespace

display_sink_f::sptr display_sink_f::make(int vlen,
                                          double samp_rate,
                                          double center_freq,
                                          double ref_level,
                                          double db_range,
                                          double decay,
                                          double frame_rate,
                                          const std::string& colormap,
                                          int width,
                                          int height,
                                          QWidget* parent)
{
    // The input's levels are the caller's (dBFS from spectrum_c by default).
    const display_sink_settings s{ center_freq, samp_rate, ref_level, db_range, decay,
                                   frame_rate, colormap, width, height, "dB" };
    return gnuradio::make_block_sptr<display_sink_f_impl>(vlen, s, parent);
}

std::unique_ptr<::gpufft::display> display_sink_f_impl::build(int vlen, const display_sink_settings& s)
{
    const std::string block = block_name;
    if (vlen <= 0 || vlen > (1 << 28))
        throw ::gpufft::error(block + ": vlen must be in [1, 2^28] (got " + std::to_string(vlen) + ")");
    s.check(block);
    try {
        return std::make_unique<::gpufft::display>(s.display(std::size_t(vlen)));
    } catch (const ::gpufft::error& e) {
        throw ::gpufft::error(block + ": " + e.what());
    }
}

display_sink_f_impl::display_sink_f_impl(int vlen, const display_sink_settings& s, QWidget* parent)
    : gr::sync_block("display_sink_f",
                     gr::io_signature::make(1, 1, std::size_t(std::max(vlen, 1)) * sizeof(float)),
                     gr::io_signature::make(0, 0, 0)),
      display_sink_base(block_name, build(vlen, s), s, parent),
      d_vlen(vlen)
{
    route_log_to_gnuradio();
}

int display_sink_f_impl::work(int noutput_items,
                              gr_vector_const_void_star& input_items,
                              gr_vector_void_star&)
{
    follow_radio_tags(noutput_items);
    const auto* in = static_cast<const float*>(input_items[0]);
    d_core->with_engine([&](::gpufft::display& e) { e.push(in, std::size_t(noutput_items)); });
    return noutput_items;
}

} // namespace gr::gpufft
