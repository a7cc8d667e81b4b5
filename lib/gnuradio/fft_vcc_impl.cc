/* gr-gpufft, GNU Radio side: gpufft.fft_vcc, vectors through a batched gpufft plan. */
#include "fft_vcc_impl.h"
#include <gnuradio/io_signature.h>
#include <gpufft/error.h>
#include <gpufft/gnuradio/logging.h>
#include <algorithm>
#include <cstring>
#include <string>

namespace gr::gpufft {

namespace {

// GNU Radio's item size is an int: 2^27 complex floats (1 GiB) is the largest
// power of two whose vector fits.
constexpr int max_fft_size = 1 << 27;

std::size_t checked_size(int fft_size)
{
    if (fft_size <= 0 || fft_size > max_fft_size)
        throw ::gpufft::error("gpufft.fft_vcc: fft_size must be " +
                              std::string(fft_size <= 0 ? "at least 1" : "at most 2^27") +
                              " (got " + std::to_string(fft_size) + ")");
    return std::size_t(fft_size);
}

int checked_positive(int v, const char* what)
{
    if (v < 1)
        throw ::gpufft::error(std::string("gpufft.fft_vcc: ") + what + " must be >= 1 (got " +
                              std::to_string(v) + ")");
    return v;
}

::gpufft::plan make_plan(std::size_t n, bool forward, std::size_t batch, int threads, const std::string& backend)
{
    ::gpufft::problem p;
    p.n = n;
    p.dir = forward ? ::gpufft::direction::forward : ::gpufft::direction::inverse;
    p.batch = batch;
    ::gpufft::plan_options o;
    o.backend = backend;
    o.threads = unsigned(threads);
    try {
        return ::gpufft::plan(p, o);
    } catch (const ::gpufft::error& e) {
        throw ::gpufft::error(std::string("gpufft.fft_vcc: backend \"") + backend + "\": " + e.what());
    }
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

fft_vcc::sptr fft_vcc::make(int fft_size,
                            bool forward,
                            const std::vector<float>& window,
                            bool shift,
                            int nthreads,
                            const std::string& backend,
                            int batch)
{
    checked_size(fft_size); // before the io signatures see it
    return gnuradio::make_block_sptr<fft_vcc_impl>(
        fft_size, forward, window, shift, nthreads, backend, batch);
}

fft_vcc_impl::fft_vcc_impl(int fft_size,
                           bool forward,
                           const std::vector<float>& window,
                           bool shift,
                           int nthreads,
                           const std::string& backend,
                           int batch)
    : gr::sync_block("fft_vcc",
                     gr::io_signature::make(1, 1, checked_size(fft_size) * sizeof(gr_complex)),
                     gr::io_signature::make(1, 1, std::size_t(fft_size) * sizeof(gr_complex))),
      d_n(std::size_t(fft_size)),
      d_forward(forward),
      d_shift(shift),
      d_nthreads(checked_positive(nthreads, "nthreads")),
      d_batch(effective_batch(d_n, std::size_t(checked_positive(batch, "batch")))),
      d_plan_batch((route_log_to_gnuradio(), make_plan(d_n, forward, d_batch, nthreads, backend)))
{
    d_backend = d_plan_batch.backend();
    d_plan_rest = make_rest(nthreads);
    if (!window.empty() && window.size() != d_n)
        throw ::gpufft::error("gpufft.fft_vcc: window must be empty or have fft_size = " +
                              std::to_string(d_n) + " taps (got " +
                              std::to_string(window.size()) + ")");
    make_taps(window);
    if (const std::size_t want = wanted_buffer(d_n, d_batch)) {
        // The per-port form: the all-ports one logs a line at info level.
        set_min_output_buffer(0, long(want));
        // The input buffer belongs to the upstream block; GNU Radio sizes it
        // to at least twice a downstream block's history, so a history of
        // about one batch (whose old items work() skips) lets whole batches
        // reach work().
        set_history(unsigned(want / 2));
    }
}

std::vector<::gpufft::plan> fft_vcc_impl::make_rest(int threads) const
{
    std::vector<::gpufft::plan> rest;
    std::size_t top = 1;
    while (top * 2 < d_batch)
        top *= 2;
    for (std::size_t b = top; b >= 1 && b < d_batch; b /= 2)
        rest.push_back(make_plan(d_n, d_forward, b, threads, d_backend));
    return rest;
}

void fft_vcc_impl::set_nthreads(int n)
{
    checked_positive(n, "nthreads");
    // Planning (and freeing the old plans) happens here, not in work().
    auto batch = make_plan(d_n, d_forward, d_batch, n, d_backend);
    auto rest = make_rest(n);
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        std::swap(d_plan_batch, batch);
        std::swap(d_plan_rest, rest);
        d_nthreads = n;
    }
}

void fft_vcc_impl::make_taps(const std::vector<float>& window)
{
    const bool modulate = d_forward && d_shift && d_n % 2 == 0 && d_n > 1;
    d_taps.clear();
    if (window.empty() && !modulate)
        return;
    d_taps.resize(2 * d_n);
    for (std::size_t j = 0; j < d_n; ++j) {
        const float t = (window.empty() ? 1.0f : window[j]) * (modulate && j % 2 ? -1.0f : 1.0f);
        d_taps[2 * j] = d_taps[2 * j + 1] = t;
    }
}

void fft_vcc_impl::multiply(const gr_complex* in, std::size_t first, std::size_t count, gr_complex* out) const
{
    const float* __restrict a = reinterpret_cast<const float*>(in);
    const float* __restrict t = d_taps.data() + 2 * first;
    float* __restrict o = reinterpret_cast<float*>(out);
    for (std::size_t i = 0; i < 2 * count; ++i)
        o[i] = a[i] * t[i];
}

bool fft_vcc_impl::set_window(const std::vector<float>& window)
{
    if (!window.empty() && window.size() != d_n)
        return false;
    std::lock_guard<std::mutex> lock(d_mutex);
    make_taps(window);
    return true;
}

void fft_vcc_impl::transform(const gr_complex* in, gr_complex* out, std::size_t count)
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

int fft_vcc_impl::work(int noutput_items,
                       gr_vector_const_void_star& input_items,
                       gr_vector_void_star& output_items)
{
    // Items before history() - 1 are old ones, kept only for the buffer size.
    const auto* in = static_cast<const gr_complex*>(input_items[0]) + (history() - 1) * d_n;
    auto* out = static_cast<gr_complex*>(output_items[0]);
    const std::size_t count = std::size_t(noutput_items);
    const std::size_t n = d_n;

    std::lock_guard<std::mutex> lock(d_mutex);
    if (!d_forward && d_shift && n > 1) {
        // ifftshift while copying (and windowing): out[j] = in[(j + h) % n].
        const std::size_t h = n / 2;
        for (std::size_t v = 0; v < count; ++v) {
            const gr_complex* src = in + v * n;
            gr_complex* dst = out + v * n;
            if (d_taps.empty()) {
                std::memcpy(dst, src + h, (n - h) * sizeof(gr_complex));
                std::memcpy(dst + (n - h), src, h * sizeof(gr_complex));
            } else {
                multiply(src + h, h, n - h, dst);
                multiply(src, 0, h, dst + (n - h));
            }
        }
        transform(out, out, count);
    } else if (!d_taps.empty()) {
        for (std::size_t v = 0; v < count; ++v)
            multiply(in + v * n, 0, n, out + v * n);
        transform(out, out, count);
    } else {
        transform(in, out, count);
    }
    if (d_forward && d_shift && n % 2 == 1 && n > 1) {
        // Odd N: fftshift by rotation, out[j] = X[(j + (n + 1) / 2) % n].
        for (std::size_t v = 0; v < count; ++v)
            std::rotate(out + v * n, out + v * n + (n + 1) / 2, out + (v + 1) * n);
    }
    return noutput_items;
}

} // namespace gr::gpufft
