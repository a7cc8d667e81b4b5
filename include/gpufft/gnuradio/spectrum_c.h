// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.spectrum_c, the spectrum engine as one block. */
#ifndef GPUFFT_GNURADIO_SPECTRUM_C_H
#define GPUFFT_GNURADIO_SPECTRUM_C_H

#include <gnuradio/block.h>
#include <gpufft/api.h>
#include <string>

namespace gr::gpufft {

/*!
 * \brief Averaged power spectra in dB from a stream of I/Q samples.
 * \ingroup gpufft
 *
 * Input: one stream of samples in \p format: "cf32" (gr_complex), "cs16"
 * (interleaved int16 I/Q, read as x / 32768), "cs8" (int8, x / 128) or "cu8"
 * (uint8 as rtl_sdr writes it, (x - 127.5) / 127.5), so that 8- and 16-bit
 * sources need no conversion block. Output: vectors of fft_size floats.
 *
 * Frames of fft_size samples start every fft_size * (1 - overlap) samples;
 * each is windowed, transformed (a gpufft plan, many frames per call) and its
 * |X|^2 combined by \p average over every frame of one output:
 * "exponential" (weight \p alpha for the newest frame), "linear" (mean),
 * "peak" (maximum) or "min". One output comes every K frames, where K is
 * \p frames_per_output if > 0, else round(frame rate / \p frame_rate).
 * Values are dBFS (\p scale "dbfs", docs/levels.md): 10 log10(P) - 20
 * log10(sum(w)) - 20 log10(ref_scale / 2), so that a complex tone of amplitude
 * ref_scale / 2 centred on a bin reads 0 dB whatever the window and N, as in
 * every other output of this module. \p scale "logpwrfft" gives logpwrfft's
 * values instead, 10 log10(P) - 20 log10(N) - 10 log10(sum(w^2) / N) - 20
 * log10(ref_scale / 2) (a tone reads lower by the window's noise bandwidth,
 * 3.02 dB for blackmanharris), for use beside GNU Radio's logpwrfft.
 *
 * Frames are transformed in batches of up to 20 ms of signal; when the input
 * ends (the upstream block is done), the frames of the batch that did not
 * fill are transformed too, so a finite input gives every output its frames
 * complete (K = all the frames of a file gives one spectrum).
 *
 * Setters can be called while the flowgraph runs: they build a new engine on
 * the caller's thread and work() switches to it between calls (the partial
 * frame and the running average restart).
 */
class GPUFFT_API spectrum_c : virtual public gr::block
{
public:
    typedef std::shared_ptr<spectrum_c> sptr;

    /*!
     * \param fft_size N, >= 1 (any size).
     * \param sample_rate input samples per second, > 0.
     * \param frame_rate outputs per second, at most sample_rate and at least the
     *        frame rate / (2^31 - 1); ignored if frames_per_output > 0.
     * \param overlap fraction of a frame shared with the next, [0, 0.9].
     * \param window a window name (gpufft::window_names()), e.g. "blackmanharris".
     *        Kaiser, gaussian, tukey and exponential take \p window_param.
     * \param average "exponential", "linear", "peak" or "min".
     * \param alpha weight of the newest frame for exponential averaging, (0, 1].
     * \param frames_per_output K frames per output if > 0 (then frame_rate is ignored).
     * \param ref_scale twice the full-scale amplitude, > 0 (as logpwrfft's).
     * \param shift DC in the middle (fftshift).
     * \param format "cf32", "cs16", "cs8" or "cu8".
     * \param backend "auto", "simd", "simd:avx2", "opencl", ...
     * \param window_param the window's parameter: Kaiser beta, gaussian sigma
     *        (samples), tukey alpha, exponential decay (dB); < 0: the window's
     *        default (see gpufft::make_window()); ignored by the other windows.
     * \param scale "dbfs" or "logpwrfft" (see above).
     * \param tune time the backend's candidate algorithms for the FFT when
     *        the block is made and keep the fastest in the wisdom file
     *        (gpufft::plan_options::tune); the engines a setter builds take
     *        the choice from there untimed. A CPU backend only: where the
     *        chain runs on an OpenCL device, its FFT carries the window and
     *        |X|^2 as callbacks, whose kernel shapes are not searched, and
     *        make() throws.
     *
     * Throws std::invalid_argument (gpufft::error) naming the bad parameter.
     */
    static sptr make(int fft_size,
                     double sample_rate,
                     double frame_rate = 30.0,
                     double overlap = 0.0,
                     const std::string& window = "blackmanharris",
                     const std::string& average = "exponential",
                     double alpha = 1.0,
                     int frames_per_output = 0,
                     double ref_scale = 2.0,
                     bool shift = false,
                     const std::string& format = "cf32",
                     const std::string& backend = "auto",
                     double window_param = -1.0,
                     const std::string& scale = "dbfs",
                     bool tune = false);

    //! Each setter throws (and changes nothing) for a bad value.
    /*!
     * The input's sample rate: with frames_per_output 0 it sets K (frames per
     * output, from frame_rate) and the batch (20 ms of signal). No output
     * depends on a centre frequency, so there is no set_center_freq.
     */
    virtual void set_sample_rate(double sample_rate) = 0;
    virtual void set_window(const std::string& window) = 0;
    virtual void set_window_param(double window_param) = 0;
    virtual void set_average(const std::string& average) = 0;
    virtual void set_alpha(double alpha) = 0;
    virtual void set_frame_rate(double frame_rate) = 0;
    virtual void set_frames_per_output(int frames_per_output) = 0;
    virtual void set_ref_scale(double ref_scale) = 0;
    virtual void set_scale(const std::string& scale) = 0;
    virtual void set_overlap(double overlap) = 0;
    virtual void set_shift(bool shift) = 0;

    virtual int fft_size() const = 0;
    virtual double sample_rate() const = 0;
    virtual double frame_rate() const = 0;
    virtual std::string window() const = 0;
    virtual double window_param() const = 0;
    virtual std::string average() const = 0;
    virtual double alpha() const = 0;
    virtual double ref_scale() const = 0;
    //! "dbfs" or "logpwrfft".
    virtual std::string scale() const = 0;
    virtual double overlap() const = 0;
    virtual bool shift() const = 0;
    virtual std::string format() const = 0;
    //! K, the frames combined into one output, as in use.
    virtual int frames_per_output() const = 0;
    //! Samples between frame starts.
    virtual int hop() const = 0;
    //! The FFT's backend and variant, e.g. "simd:avx2".
    virtual std::string backend() const = 0;
    //! Whether the FFT plan was tuned (make()'s tune).
    virtual bool tune() const = 0;
};

} // namespace gr::gpufft

#endif
