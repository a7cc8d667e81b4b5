// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.spectrum_c, a stream of samples into dB spectra. */
#include "spectrum_c_impl.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/buffer_reader.h>
#include <gnuradio/io_signature.h>
#include <gpufft/error.h>
#include <gpufft/gnuradio/logging.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace gr::gpufft {

namespace {

[[noreturn]] void fail(const std::string& what)
{
    throw ::gpufft::error("gpufft.spectrum_c: " + what);
}

std::string num(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

std::size_t item_size(const std::string& format)
{
    try {
        return ::gpufft::sample_bytes(::gpufft::parse_sample_format(format));
    } catch (const ::gpufft::error& e) {
        fail(std::string("format: ") + e.what());
    }
}

} // namespace

spectrum_c::sptr spectrum_c::make(int fft_size,
                                  double sample_rate,
                                  double frame_rate,
                                  double overlap,
                                  const std::string& window,
                                  const std::string& average,
                                  double alpha,
                                  int frames_per_output,
                                  double ref_scale,
                                  bool shift,
                                  const std::string& format,
                                  const std::string& backend,
                                  double window_param,
                                  const std::string& scale,
                                  bool tune)
{
    spectrum_c_impl::params p{ fft_size, sample_rate, frame_rate, overlap, window, average,
                               alpha, frames_per_output, ref_scale, shift, format, backend,
                               window_param, scale, tune };
    return gnuradio::make_block_sptr<spectrum_c_impl>(p);
}

spectrum_c_impl::engine::engine(const ::gpufft::spectrum_config& c)
    : s(c),
      // Outputs of one push beyond the output space: the frames waiting for a
      // batch, plus rounding (see general_work()).
      capacity(s.batch() / s.frames_per_output() + 4)
{
    pending.resize(capacity * s.fft_size());
}

::gpufft::spectrum_config spectrum_c_impl::to_config(const params& p)
{
    if (p.fft_size <= 0 || p.fft_size > (1 << 28))
        fail("fft_size must be in [1, 2^28] (got " + std::to_string(p.fft_size) + ")");
    if (!(p.sample_rate > 0) || !std::isfinite(p.sample_rate))
        fail("sample_rate must be > 0 (got " + num(p.sample_rate) + ")");
    if (p.frames_per_output < 0)
        fail("frames_per_output must be >= 0 (0: use frame_rate; got " +
             std::to_string(p.frames_per_output) + ")");
    if (!(p.ref_scale > 0) || !std::isfinite(p.ref_scale))
        fail("ref_scale must be > 0 (got " + num(p.ref_scale) + ")");
    ::gpufft::spectrum_config c;
    c.fft_size = std::size_t(p.fft_size);
    c.sample_rate = p.sample_rate;
    try {
        c.format = ::gpufft::parse_sample_format(p.format);
    } catch (const ::gpufft::error& e) {
        fail(std::string("format: ") + e.what());
    }
    c.overlap = p.overlap;
    if (!(p.overlap >= 0 && p.overlap <= 0.9))
        fail("overlap must be in [0, 0.9] (got " + num(p.overlap) + ")");
    if (!std::isfinite(p.window_param))
        fail("window_param must be finite (-1: the window's default; got " + num(p.window_param) + ")");
    try {
        c.user_window = ::gpufft::make_window(p.window, c.fft_size, p.window_param);
    } catch (const ::gpufft::error& e) {
        fail("window \"" + p.window + "\" with window_param " + num(p.window_param) + ": " + e.what());
    }
    try {
        c.average = ::gpufft::parse_averaging(p.average);
    } catch (const ::gpufft::error& e) {
        fail(std::string("average: ") + e.what());
    }
    if (!(p.alpha > 0 && p.alpha <= 1))
        fail("alpha must be in (0, 1] (got " + num(p.alpha) + ")");
    c.alpha = p.alpha;
    if (p.frames_per_output > 0) {
        c.frames_per_output = std::size_t(p.frames_per_output);
    } else {
        const double n = double(p.fft_size);
        const double hop = std::max(1.0, n - std::round(p.overlap * n));
        // Below this, frames per output would not fit the engine's count.
        const double lowest =
            p.sample_rate / hop / double(::gpufft::spectrum_config::max_frames_per_output);
        if (!(p.frame_rate >= lowest) || p.frame_rate > p.sample_rate)
            fail("frame_rate must be in [sample_rate / hop / (2^31 - 1) = " + num(lowest) +
                 ", sample_rate = " + num(p.sample_rate) + "] (got " + num(p.frame_rate) + ")");
        // Above the rate frames come at, every frame is an output.
        c.output_rate = std::min(p.frame_rate, p.sample_rate / hop);
    }
    // Frames per FFT call: about 32k samples' worth (the engine's own choice),
    // but no more than 20 ms of signal, so that a live display at a low
    // sample rate does not wait long for a batch to fill.
    {
        const double n = double(p.fft_size);
        const double hop = std::max(1.0, n - std::round(p.overlap * n));
        const double in_20ms = std::floor(0.02 * p.sample_rate / hop);
        const double by_size = std::max(1.0, std::floor(32768.0 / n));
        c.batch = std::size_t(std::max(1.0, std::min(by_size, in_20ms)));
    }
    c.ref_scale = p.ref_scale;
    try {
        c.scale = ::gpufft::parse_level_scale(p.scale);
    } catch (const ::gpufft::error& e) {
        fail(std::string("scale: ") + e.what());
    }
    c.shift = p.shift;
    c.backend = p.backend;
    c.tune = p.tune;
    return c;
}

spectrum_c_impl::spectrum_c_impl(const params& p)
    : gr::block("spectrum_c",
                gr::io_signature::make(1, 1, item_size(p.format)),
                gr::io_signature::make(1, 1, std::size_t(std::max(p.fft_size, 1)) * sizeof(float))),
      d_params(p),
      d_itemsize(item_size(p.format))
{
    route_log_to_gnuradio();
    const auto c = to_config(p);
    try {
        d_engine = std::make_unique<engine>(c);
    } catch (const ::gpufft::error& e) {
        fail(e.what());
    }
    set_relative_rate(1, uint64_t(d_engine->s.hop()) * d_engine->s.frames_per_output());
}

spectrum_c_impl::~spectrum_c_impl() = default;

void spectrum_c_impl::rebuild(const params& p)
{
    auto c = to_config(p);
    // The first engine's tuning is in the wisdom file: a setter takes it
    // from there rather than timing on the caller's (often the GUI's) thread.
    c.tune = false;
    std::unique_ptr<engine> e;
    try {
        e = std::make_unique<engine>(c); // the slow part, outside work()'s lock
    } catch (const ::gpufft::error& err) {
        fail(err.what());
    }
    std::unique_ptr<engine> old;
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        old = std::move(d_retired);
        std::swap(d_next, e); // an engine set before and not yet taken goes too
    }
    d_params = p;
    // old and e are freed here, on the caller's thread.
}

void spectrum_c_impl::set_sample_rate(double v) { set(&params::sample_rate, v); }
void spectrum_c_impl::set_window(const std::string& v) { set(&params::window, v); }
void spectrum_c_impl::set_window_param(double v) { set(&params::window_param, v); }
void spectrum_c_impl::set_average(const std::string& v) { set(&params::average, v); }
void spectrum_c_impl::set_alpha(double v) { set(&params::alpha, v); }
void spectrum_c_impl::set_frame_rate(double v) { set(&params::frame_rate, v); }
void spectrum_c_impl::set_frames_per_output(int v) { set(&params::frames_per_output, v); }
void spectrum_c_impl::set_ref_scale(double v) { set(&params::ref_scale, v); }
void spectrum_c_impl::set_scale(const std::string& v) { set(&params::scale, v); }
void spectrum_c_impl::set_overlap(double v) { set(&params::overlap, v); }
void spectrum_c_impl::set_shift(bool v) { set(&params::shift, v); }

int spectrum_c_impl::frames_per_output() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return int((d_next ? d_next : d_engine)->s.frames_per_output());
}
int spectrum_c_impl::hop() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return int((d_next ? d_next : d_engine)->s.hop());
}
std::string spectrum_c_impl::backend() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return (d_next ? d_next : d_engine)->s.backend();
}

bool spectrum_c_impl::start()
{
    d_flushed = false;
    return true;
}

bool spectrum_c_impl::input_ended(int seen) const
{
    // Read under the buffer's mutex, as GNU Radio's block executor does.
    const auto& in = detail()->input(0);
    gr::thread::scoped_lock guard(*in->mutex());
    return in->done() && in->items_available() == seen;
}

void spectrum_c_impl::forecast(int noutput_items, gr_vector_int& ninput_items_required)
{
    // Any input helps: frames straddle calls and outputs come per batch.
    // Spectra waiting for output space need none, and neither does the
    // flush of the last batch once the input has ended, so that both still
    // go out then. (Called on work()'s thread: d_engine is stable.)
    (void)noutput_items;
    const bool to_flush = !d_flushed && input_ended(0);
    ninput_items_required[0] = d_engine->count > 0 || to_flush ? 0 : 1;
}

int spectrum_c_impl::general_work(int noutput_items,
                                  gr_vector_int& ninput_items,
                                  gr_vector_const_void_star& input_items,
                                  gr_vector_void_star& output_items)
{
    auto* out = static_cast<float*>(output_items[0]);
    std::lock_guard<std::mutex> lock(d_mutex);
    engine* e = d_engine.get();
    const std::size_t n = e->s.fft_size();
    const std::size_t space = std::size_t(noutput_items);
    std::size_t produced = 0;

    // 1. Spectra left over from the last call.
    while (e->count > 0 && produced < space) {
        std::memcpy(out + produced * n, &e->pending[e->head * n], n * sizeof(float));
        ++produced;
        e->head = (e->head + 1) % e->capacity;
        --e->count;
    }
    if (e->count > 0)
        return int(produced);

    // 2. A new engine from a setter, once the old one has nothing pending.
    if (d_next) {
        d_retired = std::move(d_engine);
        d_engine = std::move(d_next);
        e = d_engine.get();
        set_relative_rate(1, uint64_t(e->s.hop()) * e->s.frames_per_output());
    }
    if (produced == space)
        return int(produced);

    // 3. Only as many samples as the free output space takes in outputs; the
    //    batch the engine may be holding spills into `pending`.
    const std::size_t per_output = e->s.hop() * e->s.frames_per_output();
    const std::size_t room = space - produced;
    std::size_t take = std::size_t(ninput_items[0]);
    if (room < std::numeric_limits<std::size_t>::max() / per_output)
        take = std::min(take, room * per_output);
    auto sink = [&](const float* spectrum, std::size_t len) {
        if (produced < space) {
            std::memcpy(out + produced * len, spectrum, len * sizeof(float));
            ++produced;
        } else if (e->count < e->capacity) {
            const std::size_t slot = (e->head + e->count) % e->capacity;
            std::memcpy(&e->pending[slot * len], spectrum, len * sizeof(float));
            ++e->count;
        } else {
            d_logger->warn("spectrum_c: output buffer full, one spectrum dropped");
        }
    };
    // Whether this call sees the end of the input: checked before consuming.
    const bool last = !d_flushed && take == std::size_t(ninput_items[0]) && input_ended(ninput_items[0]);
    e->s.push_bytes(input_items[0], take * d_itemsize, sink);
    consume_each(int(take));
    // The frames of a batch that will never fill (e.g. averaging a whole file).
    if (last) {
        e->s.flush(sink);
        d_flushed = true;
    }
    return int(produced);
}

} // namespace gr::gpufft
