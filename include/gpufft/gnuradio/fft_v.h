// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * gr-gpufft, GNU Radio side: gpufft.fft_vcc and gpufft.fft_vfc, batched
 * drop-ins for gr::fft::fft_vcc and fft_vfc (include fft_vcc.h or fft_vfc.h).
 */
#ifndef GPUFFT_GNURADIO_FFT_V_H
#define GPUFFT_GNURADIO_FFT_V_H

#include <gnuradio/fft/window.h>
#include <gnuradio/sync_block.h>
#include <gpufft/api.h>
#include <string>
#include <type_traits>
#include <vector>

namespace gr::gpufft {

/*!
 * \brief Complex FFT of vectors of fft_size items (T: gr_complex or float),
 * computed by a gpufft plan: fft_vcc and fft_vfc.
 * \ingroup gpufft
 *
 * Takes the same arguments as gr::fft::fft_v<T, forward>::make() and gives
 * the same outputs, N complex values per vector (real input is transformed
 * as complex with zero imaginary parts, the whole spectrum comes out): the
 * window (empty or fft_size taps) multiplies the input, \p shift applies
 * fftshift to the output of a forward transform and ifftshift to the input of
 * an inverse one, nothing is normalized (a forward then inverse transform
 * multiplies by fft_size).
 *
 * Unlike gr-fft, up to \p batch vectors are handed to the backend in one call
 * (what is left of a work call goes through plans of 2^k < batch vectors);
 * work() allocates nothing. To receive many vectors per call the block asks for
 * buffers of about two batches within 256 KiB (a minimum output buffer, and a
 * history, which sizes the upstream buffer; work() skips the history items).
 * Tags pass through unchanged (sync block).
 *
 * The window is N taps (e.g. gr::fft::window::blackmanharris(N)), or a
 * gr::fft::window::win_type (WIN_HANN, ...), built with N taps by
 * gr::fft::window::build() (types that need a parameter, such as WIN_KAISER,
 * are refused there: pass their taps).
 *
 * Unlike gr-fft 3.10's fft_vfc, an inverse transform with \p shift of odd N
 * ifftshifts the real input as fft_vcc does (numpy.fft.ifftshift); gr-fft's
 * drops the last input sample and repeats the middle one there.
 */
template <class T>
class GPUFFT_API fft_v : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<fft_v<T>> sptr;

    /*!
     * \param fft_size N, >= 1 (any size).
     * \param forward true: exp(-2 pi i jk/N); false: the inverse.
     * \param window empty, or N taps.
     * \param shift fftshift the output (forward) or ifftshift the input (inverse).
     * \param nthreads worker threads a batch is split across.
     * \param backend "auto", "simd", "simd:avx2", "opencl", ... (see gpufft::backends()).
     * \param batch vectors per backend call, >= 1 (at most what the output
     *        buffer holds: larger values are lowered to that; see batch()).
     * \param tune time the backend's candidate algorithms when the plans
     *        are made and keep the fastest in the wisdom file, which later
     *        plans take untimed (gpufft::plan_options::tune).
     *
     * Throws std::invalid_argument (gpufft::error) naming the bad parameter:
     * fft_size <= 0, a window of another length, nthreads or batch < 1, an
     * unknown or unusable backend.
     */
    static sptr make(int fft_size,
                     bool forward,
                     const std::vector<float>& window,
                     bool shift = false,
                     int nthreads = 1,
                     const std::string& backend = "auto",
                     int batch = 64,
                     bool tune = false);

    /*!
     * make() with the window window_taps(window, fft_size). A template, so
     * that make(n, true, {}) still means no window (an empty vector).
     */
    template <class W, std::enable_if_t<std::is_same_v<W, gr::fft::window::win_type>, int> = 0>
    static sptr make(int fft_size,
                     bool forward,
                     W window,
                     bool shift = false,
                     int nthreads = 1,
                     const std::string& backend = "auto",
                     int batch = 64,
                     bool tune = false)
    {
        return make(fft_size, forward, window_taps(window, fft_size), shift, nthreads, backend, batch, tune);
    }

    /*!
     * gr::fft::window::build(window, fft_size); throws gpufft::error naming
     * the block for a bad fft_size or a type that needs a parameter.
     */
    static std::vector<float> window_taps(gr::fft::window::win_type window, int fft_size);

    //! Replaces the window (empty or N taps); returns false (and keeps the old one) otherwise.
    virtual bool set_window(const std::vector<float>& window) = 0;
    //! Replaces the window by window_taps(window, fft_size()).
    template <class W, std::enable_if_t<std::is_same_v<W, gr::fft::window::win_type>, int> = 0>
    bool set_window(W window)
    {
        return set_window(window_taps(window, fft_size()));
    }
    /*!
     * Replans with \p n worker threads (as gr-fft's set_nthreads); the new
     * plans are made on the caller's thread. Throws for n < 1.
     */
    virtual void set_nthreads(int n) = 0;
    virtual int fft_size() const = 0;
    virtual int nthreads() const = 0;
    //! The batch in use: the one asked for, or what the output buffer holds if less.
    virtual int batch() const = 0;
    //! The backend that runs the plan, with its variant, e.g. "simd:avx512".
    virtual std::string backend() const = 0;
    //! Whether the plans are tuned (make()'s tune).
    virtual bool tune() const = 0;
};

using fft_vcc = fft_v<gr_complex>;
using fft_vfc = fft_v<float>;

} // namespace gr::gpufft

#endif
