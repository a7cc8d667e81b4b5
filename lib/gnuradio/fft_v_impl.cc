// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.fft_vcc and fft_vfc, vectors through a batched gpufft plan. */
#include "fft_v_impl.h"
#include "block_plan.h"
#include <gnuradio/io_signature.h>
#include <gpufft/error.h>
#include <gpufft/gnuradio/logging.h>
#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

namespace gr::gpufft {

namespace {

// The block's name, in its errors and as GNU Radio's block name.
template <class T>
constexpr const char* block_name = std::is_same_v<T, float> ? "fft_vfc" : "fft_vcc";

// GNU Radio's item size is an int: 2^27 complex floats (1 GiB) is the largest
// power of two whose vector fits.
constexpr int max_fft_size = 1 << 27;

template <class T>
std::size_t checked_size(int fft_size)
{
    if (fft_size <= 0 || fft_size > max_fft_size)
        throw ::gpufft::error(std::string("gpufft.") + block_name<T> + ": fft_size must be " +
                              std::string(fft_size <= 0 ? "at least 1" : "at most 2^27") +
                              " (got " + std::to_string(fft_size) + ")");
    return std::size_t(fft_size);
}

/*
 * Vectors of output buffer to ask for: room for about two batches, within
 * 256 KiB (measured: larger buffers fall out of cache and lose more than the
 * batching gains); 0 when GNU Radio's default (64 KiB, and at least 4
 * vectors) is as large.
 */
std::size_t wanted_buffer(std::size_t n, std::size_t batch)
{
    const std::size_t item = n * sizeof(gr_complex);
    const std::size_t want = std::min(2 * batch, (std::size_t(256) << 10) / item);
    return want >= 4 && want * item > (std::size_t(64) << 10) ? want : 0;
}

// No call brings more vectors than the output buffer holds: plans for more
// would only hold memory (a batch of 64 at N = 65536 is 32 MiB of scratch).
std::size_t effective_batch(std::size_t n, std::size_t batch)
{
    const std::size_t room = std::max({ wanted_buffer(n, batch),
                                        (std::size_t(64) << 10) / (n * sizeof(gr_complex)),
                                        std::size_t(4) });
    return std::min(batch, room);
}

} // namespace

template <class T>
typename fft_v<T>::sptr fft_v<T>::make(int fft_size,
                                       bool forward,
                                       const std::vector<float>& window,
                                       bool shift,
                                       int nthreads,
                                       const std::string& backend,
                                       int batch,
                                       bool tune)
{
    checked_size<T>(fft_size); // before the io signatures see it
    return gnuradio::make_block_sptr<fft_v_impl<T>>(
        fft_size, forward, window, shift, nthreads, backend, batch, tune);
}

template <class T>
std::vector<float> fft_v<T>::window_taps(gr::fft::window::win_type window, int fft_size)
{
    checked_size<T>(fft_size);
    try {
        return gr::fft::window::build(window, fft_size);
    } catch (const std::exception& e) {
        // Kaiser, gaussian, tukey and exponential have no default parameter there.
        throw ::gpufft::error(std::string("gpufft.") + block_name<T> + ": window type " +
                              std::to_string(int(window)) + ": " + e.what() +
                              " (pass taps: gr::fft::window::build(type, fft_size, param))");
    }
}

template <class T>
fft_v_impl<T>::fft_v_impl(int fft_size,
                          bool forward,
                          const std::vector<float>& window,
                          bool shift,
                          int nthreads,
                          const std::string& backend,
                          int batch,
                          bool tune)
    : gr::sync_block(block_name<T>,
                     gr::io_signature::make(1, 1, checked_size<T>(fft_size) * sizeof(T)),
                     gr::io_signature::make(1, 1, std::size_t(fft_size) * sizeof(gr_complex))),
      d_n(std::size_t(fft_size)),
      d_forward(forward),
      d_shift(shift),
      d_nthreads(detail::checked_positive(block_name<T>, nthreads, "nthreads")),
      d_batch(effective_batch(d_n, std::size_t(detail::checked_positive(block_name<T>, batch, "batch")))),
      d_tune(tune),
      d_taps(taps_for(checked_window(window))),
      d_plan_batch((route_log_to_gnuradio(),
                    detail::block_plan(
                        block_name<T>, d_n, forward, d_batch, nthreads, backend, plan_weights(d_taps), tune)))
{
    d_backend = d_plan_batch.backend();
    d_plan_rest = make_rest(nthreads, plan_weights(d_taps));
    if (const std::size_t want = wanted_buffer(d_n, d_batch)) {
        // The per-port form: the all-ports one logs a line at info level.
        this->set_min_output_buffer(0, long(want));
        // The input buffer belongs to the upstream block; GNU Radio sizes it
        // to at least twice a downstream block's history, so a history of
        // about one batch (whose old items work() skips) lets whole batches
        // reach work().
        this->set_history(unsigned(want / 2));
    }
}

template <class T>
std::vector<::gpufft::plan> fft_v_impl<T>::make_rest(int threads, const std::vector<float>& weights) const
{
    std::vector<::gpufft::plan> rest;
    std::size_t top = 1;
    while (top * 2 < d_batch)
        top *= 2;
    for (std::size_t b = top; b >= 1 && b < d_batch; b /= 2)
        rest.push_back(detail::block_plan(block_name<T>, d_n, d_forward, b, threads, d_backend, weights, d_tune));
    return rest;
}

template <class T>
void fft_v_impl<T>::replan(int threads, std::vector<float> taps)
{
    // Planning (and freeing the old plans) happens here, not in work().
    std::vector<float> weights = plan_weights(taps);
    auto batch = detail::block_plan(block_name<T>, d_n, d_forward, d_batch, threads, d_backend, weights, d_tune);
    auto rest = make_rest(threads, weights);
    std::lock_guard<std::mutex> lock(d_mutex);
    std::swap(d_plan_batch, batch);
    std::swap(d_plan_rest, rest);
    std::swap(d_taps, taps);
    d_nthreads = threads;
}

template <class T>
void fft_v_impl<T>::set_nthreads(int n)
{
    detail::checked_positive(block_name<T>, n, "nthreads");
    std::lock_guard<std::mutex> lock(d_setter_mutex);
    replan(n, d_taps);
}

template <class T>
const std::vector<float>& fft_v_impl<T>::checked_window(const std::vector<float>& window) const
{
    if (!window.empty() && window.size() != d_n)
        throw ::gpufft::error(std::string("gpufft.") + block_name<T> +
                              ": window must be empty or have fft_size = " + std::to_string(d_n) +
                              " taps (got " + std::to_string(window.size()) + ")");
    return window;
}

template <class T>
std::vector<float> fft_v_impl<T>::taps_for(const std::vector<float>& window) const
{
    const bool modulate = d_forward && d_shift && d_n % 2 == 0 && d_n > 1;
    if (window.empty() && !modulate)
        return {};
    std::vector<float> taps(d_n);
    for (std::size_t j = 0; j < d_n; ++j)
        taps[j] = (window.empty() ? 1.0f : window[j]) * (modulate && j % 2 ? -1.0f : 1.0f);
    return taps;
}

template <class T>
std::vector<float> fft_v_impl<T>::plan_weights(std::vector<float> taps) const
{
    // fft_vfc multiplies as it converts to complex, a pass it makes anyway.
    if (!std::is_same_v<T, gr_complex>)
        return {};
    // An inverse shift loads in[(j + n/2) % n] into point j.
    if (!taps.empty() && !d_forward && d_shift && d_n > 1)
        std::rotate(taps.begin(), taps.begin() + d_n / 2, taps.end());
    return taps;
}

template <>
void fft_v_impl<gr_complex>::load(const gr_complex* in, std::size_t, std::size_t count, gr_complex* out) const
{
    std::memcpy(out, in, count * sizeof(gr_complex));
}

template <>
void fft_v_impl<float>::load(const float* in, std::size_t first, std::size_t count, gr_complex* out) const
{
    if (d_taps.empty()) {
        for (std::size_t i = 0; i < count; ++i)
            out[i] = gr_complex(in[i], 0.0f);
        return;
    }
    const float* t = d_taps.data() + first;
    for (std::size_t i = 0; i < count; ++i)
        out[i] = gr_complex(in[i] * t[i], 0.0f);
}

template <class T>
bool fft_v_impl<T>::set_window(const std::vector<float>& window)
{
    if (!window.empty() && window.size() != d_n)
        return false;
    std::lock_guard<std::mutex> lock(d_setter_mutex);
    replan(d_nthreads, taps_for(window));
    return true;
}

template <class T>
void fft_v_impl<T>::transform(const gr_complex* in, gr_complex* out, std::size_t count)
{
    std::size_t done = 0;
    for (; done + d_batch <= count; done += d_batch)
        d_plan_batch.execute(in + done * d_n, out + done * d_n);
    for (auto& p : d_plan_rest) {
        const std::size_t b = p.problem().batch;
        if (count - done >= b) {
            p.execute(in + done * d_n, out + done * d_n);
            done += b;
        }
    }
}

template <class T>
int fft_v_impl<T>::work(int noutput_items,
                        gr_vector_const_void_star& input_items,
                        gr_vector_void_star& output_items)
{
    // Items before history() - 1 are old ones, kept only for the buffer size.
    const auto* in = static_cast<const T*>(input_items[0]) + (this->history() - 1) * d_n;
    auto* out = static_cast<gr_complex*>(output_items[0]);
    const std::size_t count = std::size_t(noutput_items);
    const std::size_t n = d_n;

    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_forward && d_shift && n > 1) {
        // ifftshift while loading: out[j] = in[(j + h) % n] (windowed by
        // fft_vfc's load, fft_vcc's plans).
        const std::size_t h = n / 2;
        for (std::size_t v = 0; v < count; ++v) {
            load(in + v * n + h, h, n - h, out + v * n);
            load(in + v * n, 0, h, out + v * n + (n - h));
        }
        transform(out, out, count);
    } else if (std::is_same_v<T, gr_complex>) {
        // Complex input goes to the FFT as it is: the plans weigh it.
        transform(reinterpret_cast<const gr_complex*>(in), out, count);
    } else {
        for (std::size_t v = 0; v < count; ++v)
            load(in + v * n, 0, n, out + v * n);
        transform(out, out, count);
    }
    if (d_forward && d_shift && n % 2 == 1 && n > 1) {
        // Odd N: fftshift by rotation, out[j] = X[(j + (n + 1) / 2) % n].
        for (std::size_t v = 0; v < count; ++v)
            std::rotate(out + v * n, out + v * n + (n + 1) / 2, out + (v + 1) * n);
    }
    return noutput_items;
}

template class fft_v<gr_complex>;
template class fft_v<float>;
template class fft_v_impl<gr_complex>;
template class fft_v_impl<float>;

} // namespace gr::gpufft
