// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.display_sink_c's implementation (internal). */
#ifndef GPUFFT_GNURADIO_DISPLAY_SINK_C_IMPL_H
#define GPUFFT_GNURADIO_DISPLAY_SINK_C_IMPL_H

#include "display_sink_base.h"
#include <gpufft/gnuradio/display_sink_c.h>

namespace gr::gpufft {

class display_sink_c_impl : public display_sink_base<display_sink_c, ::gpufft::spectrum_display>
{
public:
    // What a new engine needs besides the display settings.
    struct spectrum_params {
        int fft_size;
        std::string window;
        std::string backend;
        std::string format;
    };

    display_sink_c_impl(const spectrum_params& p, const display_sink_settings& s, QWidget* parent);

    void set_fft_size(int fft_size) override;
    void set_window(const std::string& window) override;
    void set_backend(const std::string& backend) override;

    int fft_size() const override;
    std::string window() const override;
    std::string format() const override;
    std::string backend() const override;

    bool stop() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    // Checks p and s and builds their engine; throws gpufft::error naming the bad parameter.
    static std::unique_ptr<::gpufft::spectrum_display> build(const spectrum_params& p,
                                                             const display_sink_settings& s);
    // A new engine with one spectrum parameter changed.
    template <class T>
    void rebuild(T spectrum_params::*field, const T& value);

    spectrum_params d_params; // guarded by d_params_mutex
    mutable std::mutex d_params_mutex;
    const std::size_t d_itemsize;
};

} // namespace gr::gpufft

#endif
