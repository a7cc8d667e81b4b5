// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum engine: parameters, framing and the streaming API. */
#include "engine.h"

#include <gpufft/error.h>
#include <gpufft/spectrum.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>

namespace gpufft {

namespace {

template <class T>
std::string str(const T& v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

void require(bool ok, const std::string& msg)
{
    if (!ok)
        throw error("gpufft: spectrum: " + msg);
}

//! How an engine frames its input: frames start `hop` samples apart, `per_output` make an output, `batch` a run.
struct framing {
    std::size_t hop, per_output, batch;
};

//! The checks of every setting the framing reads, and the framing; throws gpufft::error naming a bad one.
framing framing_of(const spectrum_config& c)
{
    const std::size_t n = c.fft_size;
    require(n >= 1, "fft_size must be >= 1 (got 0)");
    // VOLK counts in unsigned int, and a batch must fit in memory.
    require(n <= (std::size_t(1) << 28), "fft_size must be at most 2^28 (got " + str(n) + ")");
    require(c.batch <= (std::size_t(1) << 28) / n,
            "batch * fft_size must be at most 2^28 samples (batch " + str(c.batch) + ")");
    require(c.sample_rate > 0 && std::isfinite(c.sample_rate),
            "sample_rate must be > 0 (got " + str(c.sample_rate) + ")");
    require(c.overlap >= 0 && c.overlap <= 0.9,
            "overlap must be in [0, 0.9] (got " + str(c.overlap) + ")");
    require(c.frames_per_output >= 1, "frames_per_output (K) must be >= 1 (got 0)");
    require(c.frames_per_output <= spectrum_config::max_frames_per_output,
            "frames_per_output (K) must be at most " + str(spectrum_config::max_frames_per_output) +
                " (got " + str(c.frames_per_output) + ")");
    require(c.output_rate >= 0 && std::isfinite(c.output_rate),
            "output_rate must be >= 0 (0: use frames_per_output; got " + str(c.output_rate) + ")");
    framing f;
    f.hop = std::max<std::size_t>(1, n - std::size_t(std::lround(c.overlap * double(n))));
    f.per_output = c.frames_per_output;
    if (c.output_rate > 0) {
        const double frame_rate = c.sample_rate / double(f.hop);
        require(c.output_rate <= frame_rate * (1 + 1e-9),
                "output_rate " + str(c.output_rate) + " is above the frame rate sample_rate / hop = " +
                    str(frame_rate));
        // Checked before rounding: a tiny rate would overflow the count.
        const double frames = frame_rate / c.output_rate;
        require(frames < double(spectrum_config::max_frames_per_output) + 0.5,
                "output_rate " + str(c.output_rate) + " is below frame rate / " +
                    str(spectrum_config::max_frames_per_output) + " = " +
                    str(frame_rate / double(spectrum_config::max_frames_per_output)) +
                    " (at most that many frames per output)");
        f.per_output = std::max<std::size_t>(1, std::size_t(std::llround(frames)));
    }
    // About 32k samples per FFT call amortize its cost without much latency.
    f.batch = c.batch ? c.batch : std::max<std::size_t>(1, 32768 / n);
    return f;
}

} // namespace

spectrum_needs spectrum_requirements(const spectrum_config& config)
{
    const framing f = framing_of(config);
    const std::uint64_t n = config.fft_size;
    spectrum_needs needs;
    needs.samples_per_output = n + (std::uint64_t(f.per_output) - 1) * f.hop;
    // One batch of raw input, the window and one output: every chain holds these on the host.
    needs.host_bytes = ((std::uint64_t(f.batch) - 1) * f.hop + n) * sample_bytes(config.format) + 2 * n * sizeof(float);
    return needs;
}

sample_format parse_sample_format(const std::string& name)
{
    for (auto f : { sample_format::cf32, sample_format::cs16, sample_format::cs8, sample_format::cu8 })
        if (name == format_name(f))
            return f;
    throw error("gpufft: unknown sample format \"" + name + "\" (known: cf32, cs16, cs8, cu8)");
}

std::string format_name(sample_format f)
{
    switch (f) {
    case sample_format::cf32:
        return "cf32";
    case sample_format::cs16:
        return "cs16";
    case sample_format::cs8:
        return "cs8";
    case sample_format::cu8:
        return "cu8";
    }
    throw error("gpufft: unknown sample format");
}

std::size_t sample_bytes(sample_format f)
{
    switch (f) {
    case sample_format::cf32:
        return 8;
    case sample_format::cs16:
        return 4;
    case sample_format::cs8:
    case sample_format::cu8:
        return 2;
    }
    throw error("gpufft: unknown sample format");
}

void convert_samples(sample_format f, const void* raw, complex* out, std::size_t count)
{
    auto* dst = reinterpret_cast<float*>(out);
    switch (f) {
    case sample_format::cf32:
        std::memcpy(out, raw, count * sizeof(complex));
        return;
    case sample_format::cs16:
        for (std::size_t i = 0; i < 2 * count; ++i)
            dst[i] = float(static_cast<const std::int16_t*>(raw)[i]) / 32768.0f;
        return;
    case sample_format::cs8:
        for (std::size_t i = 0; i < 2 * count; ++i)
            dst[i] = float(static_cast<const std::int8_t*>(raw)[i]) / 128.0f;
        return;
    case sample_format::cu8:
        for (std::size_t i = 0; i < 2 * count; ++i)
            dst[i] = float((double(static_cast<const std::uint8_t*>(raw)[i]) - 127.5) / 127.5);
        return;
    }
}

averaging parse_averaging(const std::string& name)
{
    if (name == "exponential" || name == "exp")
        return averaging::exponential;
    if (name == "linear" || name == "mean")
        return averaging::linear;
    if (name == "peak" || name == "max")
        return averaging::peak_hold;
    if (name == "min")
        return averaging::min_hold;
    throw error("gpufft: unknown averaging \"" + name + "\" (known: exponential, linear, peak, min)");
}

level_scale parse_level_scale(const std::string& name)
{
    if (name == "dbfs")
        return level_scale::dbfs;
    if (name == "logpwrfft")
        return level_scale::logpwrfft;
    throw error("gpufft: unknown level scale \"" + name + "\" (known: dbfs, logpwrfft)");
}

namespace detail {

engine::engine(const spectrum_config& c, const display_config* display) : d_config(c)
{
    const framing f = framing_of(c);
    const std::size_t n = c.fft_size;
    require(c.alpha > 0 && c.alpha <= 1, "alpha must be in (0, 1] (got " + str(c.alpha) + ")");
    require(c.ref_scale > 0 && std::isfinite(c.ref_scale),
            "ref_scale must be > 0 (got " + str(c.ref_scale) + ")");

    auto& s = d_setup;
    s.n = n;
    s.hop = f.hop;
    s.format = c.format;
    d_bps = sample_bytes(c.format);
    if (c.user_window.empty()) {
        s.window = make_window(c.window, n, c.window_param);
    } else {
        require(c.user_window.size() == n,
                "window length " + str(c.user_window.size()) + " != fft_size " + str(n));
        s.window = c.user_window;
    }
    double sum = 0, power = 0; // sum(w), sum(w^2)
    for (float w : s.window)
        sum += w, power += double(w) * double(w);
    require(power > 0 && std::isfinite(power), "the window has no power (all zero or not finite)");
    // dBFS divides by the window's coherent gain: taps summing to 0 have none.
    require(c.scale == level_scale::logpwrfft || std::abs(sum) > 1e-6 * std::sqrt(power * double(n)),
            "the window's taps sum to about 0: no tone gain for the dbfs scale");

    s.per_output = f.per_output;
    s.average = c.average;
    s.alpha = float(c.alpha);
    // The one place the level scale is set (docs/levels.md): P over the
    // power a full-scale tone puts in its bin, (sum w)^2 (ref/2)^2, or
    // logpwrfft's N sum(w^2) (ref/2)^2; and the mean's 1/K.
    const double half_ref = c.ref_scale / 2;
    const double full = c.scale == level_scale::dbfs ? sum * sum : double(n) * power;
    s.scale = float(1.0 / (full * half_ref * half_ref) /
                    (c.average == averaging::linear ? double(s.per_output) : 1.0));
    s.db = c.db;
    s.shift = c.shift;
    s.batch = f.batch;
    s.plan.backend = c.backend;
    s.plan.threads = c.threads;
    s.plan.tune = c.tune;
    if (display)
        s.display = *display;

    d_chain = make_chain(s);
    d_span = ((s.batch - 1) * s.hop + n) * d_bps;
    d_deliver = [this](const float* spectrum, std::size_t len) { deliver(spectrum, len); };
}

void engine::deliver(const float* spectrum, std::size_t n)
{
    d_output_nonfinite = 0;
    if (!d_pending_nonfinite.empty()) {
        d_output_nonfinite = d_pending_nonfinite.front();
        d_pending_nonfinite.pop_front();
    }
    ++d_delivered;
    if (d_out && *d_out)
        (*d_out)(spectrum, n);
    d_output_nonfinite = 0;
}

void engine::note_nonfinite(std::uint64_t i)
{
    ++d_nonfinite;
    if (d_chain->display()) // it delivers no outputs to flag
        return;
    // Output k holds the samples of frames [kK, (k+1)K): [kS, kS + L).
    const std::uint64_t hop = d_setup.hop, stride = d_setup.per_output * hop,
                        span = (d_setup.per_output - 1) * hop + d_setup.n;
    const std::uint64_t last = i / stride, first = std::max(d_delivered, i < span ? 0 : (i - span) / stride + 1);
    if (last < first)
        return;
    if (d_pending_nonfinite.size() <= last - d_delivered)
        d_pending_nonfinite.resize(last - d_delivered + 1, 0);
    for (std::uint64_t k = first; k <= last; ++k)
        ++d_pending_nonfinite[k - d_delivered];
}

void engine::zero_nonfinite()
{
    if (d_setup.format != sample_format::cf32)
        return;
    // A float is NaN or infinite when its exponent bits are all ones.
    const auto bad = [](const unsigned char* p) {
        std::uint32_t w[2];
        std::memcpy(w, p, sizeof w);
        return ((w[0] & 0x7f800000u) == 0x7f800000u) | ((w[1] & 0x7f800000u) == 0x7f800000u);
    };
    unsigned char* in = d_chain->input();
    const std::size_t end = d_fill / d_bps * d_bps;
    // Blocks tested word by word (a loop that vectorizes); only a block with
    // one is searched sample by sample.
    constexpr std::size_t block = 512;
    std::uint32_t words[2 * block];
    for (std::size_t b = d_checked; b < end;) {
        const std::size_t stop = std::min(end, b + block * d_bps);
        std::memcpy(words, in + b, stop - b);
        unsigned any = 0;
        for (std::size_t j = 0; j < (stop - b) / sizeof(std::uint32_t); ++j)
            any |= (words[j] & 0x7f800000u) == 0x7f800000u;
        for (std::size_t j = b; any && j < stop; j += d_bps)
            if (bad(in + j)) {
                std::memset(in + j, 0, d_bps);
                note_nonfinite(d_base + j / d_bps);
            }
        b = stop;
    }
    d_checked = end;
}

// Runs the first `count` frames held in the chain's input; the samples a
// later frame needs move to the start of the next input.
std::size_t engine::run(std::size_t count, const spectrum::sink& deliver)
{
    const std::size_t used = count * d_setup.hop * d_bps;
    d_out = &deliver;
    const std::size_t outputs = d_chain->run(count, used, d_fill, d_deliver);
    d_out = nullptr;
    d_frames += count;
    d_fill -= used;
    d_checked = d_checked > used ? d_checked - used : 0;
    d_base += count * d_setup.hop;
    return outputs;
}

input_span engine::acquire(std::size_t max_bytes)
{
    d_acquired = std::min(max_bytes, d_span - d_fill); // d_fill < d_span between calls
    return { d_chain->input() + d_fill, d_acquired };
}

std::size_t engine::take(std::size_t bytes, const spectrum::sink& deliver)
{
    if (bytes > d_acquired)
        throw error("gpufft: spectrum: commit of " + str(bytes) + " bytes, but the span acquire() " +
                    "handed out holds " + str(d_acquired) + " bytes");
    d_acquired = 0;
    d_fill += bytes;
    zero_nonfinite();
    return d_fill == d_span ? run(d_setup.batch, deliver) : 0; // exactly one full batch of frames
}

std::size_t engine::commit(std::size_t bytes, const spectrum::sink& out)
{
    const std::size_t outputs = take(bytes, out);
    return outputs + delivered_now(out);
}

std::size_t engine::drain(const spectrum::sink& out)
{
    d_out = &out;
    const std::size_t outputs = d_chain->drain(d_deliver);
    d_out = nullptr;
    return outputs;
}

std::size_t engine::delivered_now(const spectrum::sink& out)
{
    return d_config.deferred_delivery ? 0 : drain(out);
}

std::size_t engine::push_bytes(const void* data, std::size_t bytes, const spectrum::sink& out)
{
    if (bytes && !data)
        throw error("gpufft: spectrum: push of " + str(bytes) + " bytes from a null pointer");
    const auto* src = static_cast<const unsigned char*>(data);
    std::size_t outputs = 0;
    while (bytes) {
        const input_span span = acquire(bytes);
        std::memcpy(span.data, src, span.bytes);
        outputs += take(span.bytes, out);
        src += span.bytes;
        bytes -= span.bytes;
    }
    return outputs + delivered_now(out);
}

std::size_t engine::push(const complex* samples, std::size_t count, const spectrum::sink& out)
{
    if (d_setup.format != sample_format::cf32)
        throw error("gpufft: spectrum: push(complex*) needs format cf32; the engine takes " +
                    format_name(d_setup.format) + " (use push_bytes)");
    return push_bytes(samples, count * sizeof(complex), out);
}

std::size_t engine::flush(const spectrum::sink& out)
{
    d_acquired = 0;
    const std::size_t held = d_fill / d_bps;
    if (held < d_setup.n)
        return drain(out);
    const std::size_t outputs = run((held - d_setup.n) / d_setup.hop + 1, out);
    return outputs + drain(out);
}

void engine::reset()
{
    d_chain->drain({});
    d_fill = 0;
    d_acquired = 0;
    d_frames = 0;
    d_chain->reset();
    d_checked = 0;
    d_base = 0;
    d_delivered = 0;
    d_pending_nonfinite.clear();
}

double engine::bin_hz(std::size_t i) const
{
    const auto n = std::ptrdiff_t(d_setup.n), k = std::ptrdiff_t(i);
    const std::ptrdiff_t bin = d_setup.shift ? k - n / 2 : (k < (n + 1) / 2 ? k : k - n);
    return double(bin) * d_config.sample_rate / double(n);
}

} // namespace detail

struct spectrum::impl : detail::engine {
    using detail::engine::engine;
};

spectrum::spectrum(const spectrum_config& c) : d_impl(std::make_unique<impl>(c)) {}

spectrum::~spectrum() = default;
spectrum::spectrum(spectrum&&) noexcept = default;
spectrum& spectrum::operator=(spectrum&&) noexcept = default;

std::size_t spectrum::push_bytes(const void* data, std::size_t bytes, const sink& out)
{
    return d_impl->push_bytes(data, bytes, out);
}

input_span spectrum::acquire(std::size_t max_bytes) { return d_impl->acquire(max_bytes); }

std::size_t spectrum::commit(std::size_t bytes, const sink& out)
{
    return d_impl->commit(bytes, out);
}

std::size_t spectrum::push(const complex* samples, std::size_t count, const sink& out)
{
    return d_impl->push(samples, count, out);
}

std::size_t spectrum::flush(const sink& out) { return d_impl->flush(out); }
void spectrum::reset() { d_impl->reset(); }

std::size_t spectrum::fft_size() const { return d_impl->setup().n; }
std::size_t spectrum::hop() const { return d_impl->setup().hop; }
std::size_t spectrum::batch() const { return d_impl->setup().batch; }
std::size_t spectrum::frames_per_output() const { return d_impl->setup().per_output; }
std::size_t spectrum::frames() const { return d_impl->frames(); }
std::uint64_t spectrum::nonfinite_samples() const { return d_impl->nonfinite_samples(); }
std::size_t spectrum::output_nonfinite_samples() const { return d_impl->output_nonfinite_samples(); }
const std::vector<float>& spectrum::window() const { return d_impl->setup().window; }
const std::string& spectrum::backend() const { return d_impl->stages().backend(); }
const spectrum_config& spectrum::config() const { return d_impl->config(); }
double spectrum::bin_hz(std::size_t i) const { return d_impl->bin_hz(i); }

} // namespace gpufft
