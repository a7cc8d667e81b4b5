// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the spectrum engine, from raw SDR samples to averaged dB spectra. */
#ifndef GPUFFT_SPECTRUM_H
#define GPUFFT_SPECTRUM_H

#include <gpufft/api.h>
#include <gpufft/problem.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpufft {

/*!
 * \brief Interleaved I/Q sample formats SDRs produce, converted to complex
 * float on load:
 *
 * | format | bytes | one component x becomes |
 * |---|---|---|
 * | cf32 | 8 | x (native float) |
 * | cs16 | 4 | x / 32768 (int16, native byte order) |
 * | cs8  | 2 | x / 128 (int8, HackRF) |
 * | cu8  | 2 | (x - 127.5) / 127.5 (uint8, rtl_sdr) |
 */
enum class sample_format { cf32, cs16, cs8, cu8 };

//! "cf32", "cs16", "cs8" or "cu8"; throws gpufft::error naming the format otherwise.
GPUFFT_API sample_format parse_sample_format(const std::string& name);
GPUFFT_API std::string format_name(sample_format f);
//! Bytes of one complex sample.
GPUFFT_API std::size_t sample_bytes(sample_format f);
//! Converts `count` samples of format `f` at `raw` to complex float (the table above).
GPUFFT_API void convert_samples(sample_format f, const void* raw, complex* out, std::size_t count);

//! The param of make_window() that asks for the window's default (gr::fft::window::INVALID_WIN_PARAM).
constexpr double window_default_param = -1.0;

/*!
 * \brief A window of n taps, equal (within float rounding) to
 * gr::fft::window's of the same name.
 *
 * Names: rectangular, hann, hamming, blackman, blackmanharris (4 terms, 92 dB;
 * also "blackman-harris"), flattop (SRS), kaiser (param = beta in [0, 700],
 * default 6.76), bartlett, nuttall (= blackman-nuttall), nuttall_cfd, welch, parzen,
 * riemann, gaussian (param = sigma > 0 in samples, default n / 6), tukey
 * (param = alpha in [0, 1], default 0.5), exponential (param = decay > 0 in
 * dB over half the window, default 6). param = window_default_param (-1)
 * means the default; any other is checked by check_window_param(). n = 1
 * gives {1} for every window (GNU Radio returns NaN there). Throws
 * gpufft::error for n = 0, an unknown name (the message lists the known
 * ones) or a param out of the window's range.
 */
GPUFFT_API std::vector<float>
make_window(const std::string& name, std::size_t n, double param = window_default_param);
/*!
 * Throws gpufft::error naming the window, its parameter and the range
 * unless `param` is a value the window takes (the ranges of make_window();
 * the windows without a parameter take none), or if the name is unknown.
 * For a parameter given explicitly: window_default_param is no value of any.
 */
GPUFFT_API void check_window_param(const std::string& name, double param);
//! The names make_window() knows.
GPUFFT_API std::vector<std::string> window_names();

//! How the frames of one output are combined. Every frame is used.
enum class averaging {
    exponential, //!< avg = alpha * P + (1 - alpha) * avg on every frame (starts at the first frame)
    linear,      //!< mean of the frames since the last output
    peak_hold,   //!< per-bin maximum over the frames since the last output
    min_hold     //!< per-bin minimum over the frames since the last output
};

//! "exponential" (or "exp"), "linear" (or "mean"), "peak" (or "max"), "min".
GPUFFT_API averaging parse_averaging(const std::string& name);

/*!
 * What a spectrum's power is relative to (docs/levels.md). A is the
 * full-scale amplitude, ref_scale / 2; w the window; P = |X|^2.
 */
enum class level_scale {
    /*!
     * dBFS: P / ((sum w)^2 A^2). A complex tone of amplitude A centred on a
     * bin reads 0 dB whatever the window and N.
     */
    dbfs,
    /*!
     * gr-fft logpwrfft's: P / (N sum(w^2) A^2). A tone reads lower than in
     * dBFS by 10 log10(N sum(w^2) / (sum w)^2) (1.76 dB for Hann, 3.02 dB for
     * blackmanharris); white noise of power A^2 reads 0 dB per bin less 10 log10(N).
     */
    logpwrfft
};

//! "dbfs" or "logpwrfft"; throws gpufft::error naming the scale otherwise.
GPUFFT_API level_scale parse_level_scale(const std::string& name);

//! What the engine computes; the defaults give dBFS spectra without dropped frames.
struct GPUFFT_API spectrum_config {
    std::size_t fft_size = 1024;              //!< N, any size >= 1
    double sample_rate = 1.0;                 //!< Hz; sets output_rate's meaning and bin_hz()
    sample_format format = sample_format::cf32;
    double overlap = 0.0;                     //!< fraction of N shared by consecutive frames, [0, 0.9]
    std::string window = "blackmanharris";    //!< a make_window() name
    double window_param = window_default_param; //!< beta, alpha, ...; -1: the window's default
    std::vector<float> user_window;           //!< if not empty, used instead of `window` (length N)
    averaging average = averaging::exponential;
    double alpha = 1.0;                       //!< exponential weight of the newest frame, (0, 1]
    /*!
     * Frames combined into one output (K, 1 to max_frames_per_output).
     * Ignored when output_rate > 0. For exponential averaging the state is
     * reported every K frames.
     */
    std::size_t frames_per_output = 1;
    //! The largest K: it fits an int (GNU Radio's counts, the blocks' getters).
    static constexpr std::size_t max_frames_per_output = 2147483647;
    /*!
     * Outputs per second, if > 0: K = max(1, round(frame rate / output_rate)),
     * frame rate = sample_rate / hop. Must not exceed the frame rate, nor
     * ask for a K above max_frames_per_output.
     */
    double output_rate = 0.0;
    /*!
     * Twice the full-scale amplitude (as gr-fft logpwrfft's ref_scale): a
     * complex tone of amplitude ref_scale / 2 is full scale.
     */
    double ref_scale = 2.0;
    level_scale scale = level_scale::dbfs; //!< what the power is relative to
    bool db = true;     //!< false: linear power, the same normalization without the log
    bool shift = false; //!< fftshift: DC in the middle, negative frequencies first
    std::size_t batch = 0;            //!< frames per FFT call; 0 picks about 32k samples' worth
    /*!
     * false: push_bytes(), push() and commit() deliver every output their
     * frames complete before returning, waiting for the device if need be.
     * true: they return once the full batches are queued, and outputs
     * arrive in order, through the sink of a later call, or at flush()
     * (which delivers every one still in flight); reset() drops them. A device chain then keeps its ring of
     * batches busy across calls instead of emptying it at the end of each;
     * the CPU chains deliver at once either way.
     */
    bool deferred_delivery = false;
    std::string backend = "auto";     //!< as plan_options::backend
    unsigned threads = 1;             //!< as plan_options::threads
    /*!
     * As plan_options::tune, for the FFT of a CPU chain. A device chain's FFT
     * carries the window and |X|^2 as callbacks, whose kernel shapes are not
     * searched: there the engine throws gpufft::error rather than not tune.
     */
    bool tune = false;
};

//! What an engine of a configuration needs, known before it allocates or plans anything.
struct spectrum_needs {
    //! Samples of one output: N + (K - 1) hop, with hop and K as the engine takes them.
    std::uint64_t samples_per_output = 0;
    /*!
     * A lower bound of the host memory its buffers take: one batch of raw
     * input, the window and one output (the chain's other buffers and the
     * FFT plan's come on top, on the host or a device).
     */
    std::uint64_t host_bytes = 0;
};
//! Throws gpufft::error, as spectrum's constructor does, for a bad fft_size, batch, rate, overlap or K.
GPUFFT_API spectrum_needs spectrum_requirements(const spectrum_config& config);

//! Where a producer writes raw samples straight into an engine's input (spectrum::acquire()).
struct input_span {
    unsigned char* data = nullptr; //!< the next byte of the input, in the configured format
    std::size_t bytes = 0;         //!< room from data on: at most the max_bytes asked for
};

/*!
 * \brief Streaming spectra: push samples of any chunk size, get every output
 * spectrum (N floats) through a callback.
 *
 * Frames of N samples start every hop() = N - round(overlap * N) samples;
 * frames straddle pushes (the engine keeps the samples it still needs). Frames
 * are gathered into batches and each batch runs one FFT plan call, so spectra
 * come out when a batch fills: up to batch() frames after their samples
 * arrived; flush() runs the frames already complete. All memory is allocated
 * in the constructor: pushing allocates nothing.
 *
 * \code
 *   gpufft::spectrum_config c;
 *   c.fft_size = 4096; c.sample_rate = 2.4e6; c.format = gpufft::sample_format::cu8;
 *   c.average = gpufft::averaging::linear; c.output_rate = 10; c.shift = true;
 *   gpufft::spectrum s(c);
 *   s.push_bytes(buf, len, [](const float* db, std::size_t n) { ... });
 * \endcode
 *
 * Not thread safe: one engine, one thread at a time.
 */
class GPUFFT_API spectrum
{
public:
    //! Called once per output with N values (dB or linear power), valid during the call.
    using sink = std::function<void(const float* spectrum, std::size_t n)>;

    //! Throws gpufft::error naming the bad parameter.
    explicit spectrum(const spectrum_config& config);
    ~spectrum();
    spectrum(spectrum&&) noexcept;
    spectrum& operator=(spectrum&&) noexcept;

    /*!
     * Raw bytes in the configured format, any length: a partial sample is
     * kept for the next call. Returns the number of outputs delivered.
     */
    std::size_t push_bytes(const void* data, std::size_t bytes, const sink& out);
    /*!
     * \brief Zero-copy input: a writable span inside the engine's current
     * input batch, for a producer (a radio driver's read) to write raw
     * bytes into, followed by commit().
     *
     * The span is the engine's own memory: on the OpenCL backend a pinned
     * staging buffer the device reads directly, on the CPU backends the
     * batch buffer the conversion reads; push_bytes() is acquire(), a copy
     * and commit() in a loop, so both paths frame and deliver alike. The
     * span ends at the end of the batch, so it may be shorter than
     * max_bytes (never empty while max_bytes > 0, unless the last batch's
     * run threw: commit(0) retries it): write up to span.bytes (whole
     * samples are span.bytes / sample_bytes(format)), commit, acquire
     * again for the rest. Its start follows
     * the bytes already held, so after a push_bytes() that ended inside a
     * sample the span starts inside that sample too.
     *
     * The span is valid until the next commit(), push_bytes(), push(),
     * flush() or reset(), and nothing is taken until commit(). Calling
     * acquire() again before commit() hands out the same place (what was
     * written there stays) with the new max_bytes, and only that last
     * span bounds the commit.
     */
    input_span acquire(std::size_t max_bytes);
    /*!
     * Takes the first `bytes` of the span acquire() last handed out (0 is
     * allowed and takes nothing) and, as push_bytes(), runs every batch
     * that fills and delivers every output its frames complete before
     * returning; returns how many. Throws gpufft::error when `bytes`
     * exceeds that span (or no span is held), taking nothing.
     */
    std::size_t commit(std::size_t bytes, const sink& out);
    //! Complex float samples; the format must be cf32.
    std::size_t push(const complex* samples, std::size_t count, const sink& out);
    //! Runs the complete frames still waiting for a full batch; delivers every output in flight.
    std::size_t flush(const sink& out);
    //! Forgets pending samples, frames and the average.
    void reset();

    std::size_t fft_size() const;
    std::size_t hop() const;
    std::size_t batch() const;
    std::size_t frames_per_output() const;
    //! Frames transformed since construction or reset().
    std::size_t frames() const;
    /*!
     * cf32 samples with a NaN or infinite component pushed since
     * construction (reset() keeps the count): each is taken as 0 + 0i, so
     * that it cannot turn its frames' spectra into NaN (read as silence) or
     * infinity; the other formats cannot hold one.
     */
    std::uint64_t nonfinite_samples() const;
    /*!
     * During a sink call: how many samples of that output's frames were
     * non-finite (taken as 0); 0 outside a call. For exponential averaging,
     * the frames since the output before.
     */
    std::size_t output_nonfinite_samples() const;
    //! Frequency of output bin i relative to the centre, in Hz (accounts for shift).
    double bin_hz(std::size_t i) const;
    //! The window in use (length N).
    const std::vector<float>& window() const;
    //! The FFT's backend and variant, e.g. "simd:avx2".
    const std::string& backend() const;
    const spectrum_config& config() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace gpufft

#endif
