// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.range_doppler_c, two batched FFT passes and a transpose. */
#include "block_plan.h"
#include <gnuradio/io_signature.h>
#include <gpufft/error.h>
#include <gpufft/gnuradio/logging.h>
#include <gpufft/gnuradio/range_doppler_c.h>
#include <gpufft/plan.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace gr::gpufft {

namespace {

constexpr const char* block_name = "range_doppler_c";

[[noreturn]] void fail(const std::string& what)
{
    throw ::gpufft::error(std::string("gpufft.") + block_name + ": " + what);
}

// The map is one GNU Radio item, whose size is an int.
std::size_t map_bytes(int fft_size, int num_pulses, bool db)
{
    const std::size_t n = std::size_t(detail::checked_positive(block_name, fft_size, "fft_size"));
    const std::size_t m = std::size_t(detail::checked_positive(block_name, num_pulses, "num_pulses"));
    const std::size_t bytes = n * m * (db ? sizeof(float) : sizeof(gr_complex));
    if (n * m > std::size_t(INT_MAX) || bytes > std::size_t(INT_MAX))
        fail("fft_size x num_pulses = " + std::to_string(n * m) +
             " values is more than one GNU Radio item holds (2^31 bytes)");
    return bytes;
}

void check_window(const std::vector<float>& w, int size, const char* what, const char* size_name)
{
    if (!w.empty() && w.size() != std::size_t(size))
        fail(std::string(what) + " must be empty or have " + size_name + " = " + std::to_string(size) +
             " taps (got " + std::to_string(w.size()) + ")");
}

class range_doppler_c_impl : public range_doppler_c
{
public:
    range_doppler_c_impl(int fft_size,
                         int num_pulses,
                         const std::vector<float>& range_window,
                         const std::vector<float>& doppler_window,
                         bool shift,
                         bool db,
                         const std::string& backend,
                         int nthreads,
                         bool tune)
        : gr::sync_decimator(block_name,
                             gr::io_signature::make(1, 1, std::size_t(fft_size) * sizeof(gr_complex)),
                             gr::io_signature::make(1, 1, map_bytes(fft_size, num_pulses, db)),
                             unsigned(num_pulses)),
          d_n(std::size_t(fft_size)),
          d_m(std::size_t(num_pulses)),
          d_range_window(range_window),
          d_doppler_window(doppler_window),
          d_shift(shift),
          d_db(db),
          d_tune(tune),
          d_range((route_log_to_gnuradio(),
                   detail::block_plan(block_name, d_n, true, d_m,
                                      detail::checked_positive(block_name, nthreads, "nthreads"), backend, {},
                                      tune))),
          d_doppler(detail::block_plan(block_name, d_m, true, d_n, nthreads, d_range.backend(), {}, tune)),
          d_pulses(d_n * d_m),
          d_map(db ? d_n * d_m : 0)
    {
        check_window(range_window, fft_size, "range_window", "fft_size");
        check_window(doppler_window, num_pulses, "doppler_window", "num_pulses");
    }

    int fft_size() const override { return int(d_n); }
    int num_pulses() const override { return int(d_m); }
    std::string backend() const override { return d_range.backend(); }
    bool tune() const override { return d_tune; }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) override
    {
        const auto* in = static_cast<const gr_complex*>(input_items[0]);
        for (int k = 0; k < noutput_items; ++k) {
            gr_complex* map = d_db ? d_map.data() : static_cast<gr_complex*>(output_items[0]) + k * d_n * d_m;
            one_map(in + k * d_m * d_n, map);
            if (d_db)
                to_db(map, static_cast<float*>(output_items[0]) + k * d_n * d_m);
        }
        return noutput_items;
    }

private:
    // M pulses of N samples (M x N) into the N x M map.
    void one_map(const gr_complex* pulses, gr_complex* map)
    {
        const std::size_t n = d_n, m = d_m;
        if (d_range_window.empty()) {
            d_range.execute(pulses, d_pulses.data());
        } else {
            for (std::size_t p = 0; p < m; ++p)
                for (std::size_t j = 0; j < n; ++j)
                    d_pulses[p * n + j] = pulses[p * n + j] * d_range_window[j];
            d_range.execute(d_pulses.data(), d_pulses.data());
        }
        // Transpose in tiles that stay in cache on both sides.
        constexpr std::size_t tile = 32;
        for (std::size_t p0 = 0; p0 < m; p0 += tile)
            for (std::size_t j0 = 0; j0 < n; j0 += tile)
                for (std::size_t p = p0; p < std::min(m, p0 + tile); ++p) {
                    const float w = d_doppler_window.empty() ? 1.0f : d_doppler_window[p];
                    for (std::size_t j = j0; j < std::min(n, j0 + tile); ++j)
                        map[j * m + p] = d_pulses[p * n + j] * w;
                }
        d_doppler.execute(map, map);
        if (d_shift && m > 1)
            for (std::size_t j = 0; j < n; ++j) // fftshift: row[i] = X[(i + ceil(m / 2)) % m]
                std::rotate(map + j * m, map + j * m + (m + 1) / 2, map + (j + 1) * m);
    }

    void to_db(const gr_complex* map, float* out) const
    {
        for (std::size_t i = 0; i < d_n * d_m; ++i) {
            const float p = std::norm(map[i]);
            out[i] = p > 0.0f ? 10.0f * std::log10(p) : -200.0f;
        }
    }

    const std::size_t d_n, d_m;
    const std::vector<float> d_range_window, d_doppler_window;
    const bool d_shift, d_db, d_tune;
    ::gpufft::plan d_range;   // M transforms of N points
    ::gpufft::plan d_doppler; // N transforms of M points
    std::vector<gr_complex> d_pulses; // the range pass's output, M x N
    std::vector<gr_complex> d_map;    // the complex map when the output is dB
};

} // namespace

range_doppler_c::sptr range_doppler_c::make(int fft_size,
                                            int num_pulses,
                                            const std::vector<float>& range_window,
                                            const std::vector<float>& doppler_window,
                                            bool shift,
                                            bool db,
                                            const std::string& backend,
                                            int nthreads,
                                            bool tune)
{
    map_bytes(fft_size, num_pulses, db); // before the io signatures see them
    return gnuradio::make_block_sptr<range_doppler_c_impl>(
        fft_size, num_pulses, range_window, doppler_window, shift, db, backend, nthreads, tune);
}

} // namespace gr::gpufft
