// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.range_doppler_c, M pulses of N samples into an N x M map. */
#ifndef GPUFFT_GNURADIO_RANGE_DOPPLER_C_H
#define GPUFFT_GNURADIO_RANGE_DOPPLER_C_H

#include <gnuradio/sync_decimator.h>
#include <gpufft/api.h>
#include <string>
#include <vector>

namespace gr::gpufft {

/*!
 * \brief Range-Doppler map: a 2-D FFT of M consecutive vectors of N samples.
 * \ingroup gpufft
 *
 * Input: vectors of N = fft_size complex samples, one per pulse or chirp
 * (fast time; for an FMCW radar the dechirped beat signal). Every
 * M = num_pulses input vectors make one output vector of N x M values, row n
 * (range bin n) holding the M Doppler bins of that range: element n * M + m.
 *
 * Computed as two batched 1-D passes on gpufft plans: M FFTs of N points
 * (fast time, \p range_window multiplied in), a transpose (with
 * \p doppler_window multiplied in), then N FFTs of M points (slow time).
 * Without windows and shift the complex map is numpy.fft.fft2(x).T for x the
 * M x N input; \p shift applies fftshift along Doppler (zero velocity in
 * column M / 2). \p db outputs floats 10 log10(|X|^2) (-200 dB for an exact
 * zero) instead of complex values. Nothing is normalized.
 */
class GPUFFT_API range_doppler_c : virtual public gr::sync_decimator
{
public:
    typedef std::shared_ptr<range_doppler_c> sptr;

    /*!
     * \param fft_size N, samples per pulse (range bins), >= 1.
     * \param num_pulses M, pulses per map (Doppler bins), >= 1.
     * \param range_window empty, or N taps.
     * \param doppler_window empty, or M taps.
     * \param shift fftshift along Doppler.
     * \param db output 10 log10(|X|^2) as floats (else complex values).
     * \param backend "auto", "simd", "opencl", ... (see gpufft::backends()).
     * \param nthreads worker threads each pass is split across, >= 1.
     * \param tune time the backend's candidate algorithms when the two plans
     *        are made and keep the fastest in the wisdom file, which later
     *        plans take untimed (gpufft::plan_options::tune).
     *
     * Throws std::invalid_argument (gpufft::error) naming the bad parameter,
     * including a map larger than GNU Radio's item size (2^31 bytes).
     */
    static sptr make(int fft_size,
                     int num_pulses,
                     const std::vector<float>& range_window = {},
                     const std::vector<float>& doppler_window = {},
                     bool shift = true,
                     bool db = false,
                     const std::string& backend = "auto",
                     int nthreads = 1,
                     bool tune = false);

    virtual int fft_size() const = 0;
    virtual int num_pulses() const = 0;
    //! The backend that runs the plans, with its variant, e.g. "simd:avx512".
    virtual std::string backend() const = 0;
    //! Whether the plans are tuned (make()'s tune).
    virtual bool tune() const = 0;
};

} // namespace gr::gpufft

#endif
