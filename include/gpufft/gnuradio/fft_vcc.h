/* gr-gpufft, GNU Radio side: gpufft.fft_vcc, a batched drop-in for gr::fft::fft_vcc. */
#ifndef GPUFFT_GNURADIO_FFT_VCC_H
#define GPUFFT_GNURADIO_FFT_VCC_H

#include <gnuradio/sync_block.h>
#include <gpufft/api.h>
#include <string>
#include <vector>

namespace gr::gpufft {

/*!
 * \brief Complex FFT of vectors of fft_size items, computed by a gpufft plan.
 * \ingroup gpufft
 *
 * Takes the same arguments as gr::fft::fft_v<gr_complex, forward>::make() and
 * gives the same outputs: the window (empty or fft_size taps) multiplies the
 * input, \p shift applies fftshift to the output of a forward transform and
 * ifftshift to the input of an inverse one, nothing is normalized (a forward
 * then inverse transform multiplies by fft_size).
 *
 * Unlike gr-fft, up to \p batch vectors are handed to the backend in one call
 * (what is left of a work call goes through plans of 2^k < batch vectors);
 * work() allocates nothing. To receive many vectors per call the block asks for
 * buffers of about two batches within 256 KiB (a minimum output buffer, and a
 * history, which sizes the upstream buffer; work() skips the history items).
 * Tags pass through unchanged (sync block).
 */
class GPUFFT_API fft_vcc : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<fft_vcc> sptr;

    /*!
     * \param fft_size N, >= 1 (any size).
     * \param forward true: exp(-2 pi i jk/N); false: the inverse.
     * \param window empty, or N taps.
     * \param shift fftshift the output (forward) or ifftshift the input (inverse).
     * \param nthreads worker threads a batch is split across.
     * \param backend "auto", "simd", "simd:avx2", "opencl", ... (see gpufft::backends()).
     * \param batch vectors per backend call, >= 1 (at most what the output
     *        buffer holds: larger values are lowered to that; see batch()).
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
                     int batch = 64);

    //! Replaces the window (empty or N taps); returns false (and keeps the old one) otherwise.
    virtual bool set_window(const std::vector<float>& window) = 0;
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
};

} // namespace gr::gpufft

#endif
