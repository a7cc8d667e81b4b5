// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.iq_replay_source's implementation (internal). */
#ifndef GPUFFT_GNURADIO_IQ_REPLAY_SOURCE_IMPL_H
#define GPUFFT_GNURADIO_IQ_REPLAY_SOURCE_IMPL_H

#include <gpufft/demo_signal.h>
#include <gpufft/gnuradio/iq_replay_source.h>
#include <gpufft/spectrum.h>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace gr::gpufft {

class iq_replay_source_impl : public iq_replay_source
{
public:
    iq_replay_source_impl(const std::string& filename,
                          const std::string& format,
                          double sample_rate,
                          bool throttle,
                          bool repeat);

    std::string format() const override { return ::gpufft::format_name(d_format); }
    double sample_rate() const override { return d_rate; }
    bool throttle() const override { return d_throttle; }

    bool start() override;
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override;

private:
    // Up to `count` samples from the file into out (rewinding if repeating); 0 at its end.
    std::size_t read(gr_complex* out, std::size_t count);
    // Up to `count` samples from a FIFO or character device; 0 when the writer has closed it.
    std::size_t read_stream(gr_complex* out, std::size_t count);

    const ::gpufft::sample_format d_format;
    const double d_rate;
    const bool d_throttle;
    const bool d_repeat;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> d_file;
    std::string d_stream_path; // a FIFO or character device, opened by the first read
    std::size_t d_file_samples = 0; // whole samples in the file
    std::size_t d_position = 0;     // next sample to read
    std::vector<unsigned char> d_raw;
    std::unique_ptr<::gpufft::demo_signal> d_demo; // without a file
    std::chrono::steady_clock::time_point d_start;
    double d_sent = 0; // samples since start()
};

} // namespace gr::gpufft

#endif
