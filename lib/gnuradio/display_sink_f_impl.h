// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.display_sink_f's implementation (internal). */
#ifndef GPUFFT_GNURADIO_DISPLAY_SINK_F_IMPL_H
#define GPUFFT_GNURADIO_DISPLAY_SINK_F_IMPL_H

#include "display_sink_base.h"
#include <gpufft/gnuradio/display_sink_f.h>

namespace gr::gpufft {

class display_sink_f_impl : public display_sink_base<display_sink_f, ::gpufft::display>
{
public:
    display_sink_f_impl(int vlen, const display_sink_settings& s, QWidget* parent);

    int vlen() const override { return d_vlen; }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    // Checks vlen and s and builds their display; throws gpufft::error naming the bad parameter.
    static std::unique_ptr<::gpufft::display> build(int vlen, const display_sink_settings& s);

    const int d_vlen;
};

} // namespace gr::gpufft

#endif
