// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: real-data transforms along contiguous rows (internal). */
#ifndef GPUFFT_LIB_SIMD_REAL_H
#define GPUFFT_LIB_SIMD_REAL_H

#include "planner.h"
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gpufft::simd {

/*!
 * r2c and c2r of n reals <-> n/2 + 1 complex, unnormalized (FFTW's
 * convention: c2r(r2c(x)) = n x).
 *
 * Even n: the reals as n/2 complex numbers z[j] = x[2j] + i x[2j+1], one
 * n/2-point complex FFT, and a post-pass that splits the even and odd
 * halves' spectra E and O from Z[k] and conj(Z[n/2 - k]) and combines
 * X[k] = E[k] + w^k O[k] (Numerical Recipes, 3rd ed., section 12.3.2
 * "FFT of Single Real Function"); c2r runs the pre-pass that undoes it,
 * then the inverse n/2-point FFT, in the output buffer. Both passes are
 * vectorized per instruction set (real_pass.h).
 *
 * Odd n has no half-size split: two rows a, b of the batch share one n-point
 * complex FFT of z = x_a + i x_b, separated as X_a = (Z[k] + conj(Z[n-k]))/2
 * and X_b = (Z[k] - conj(Z[n-k]))/(2i) (same book, 12.3.1 "FFT of Two Real
 * Functions Simultaneously"): half a complex FFT per row, as for even n. A
 * batch's odd last row runs with x_b = 0.
 */
class real_transform
{
public:
    //! forward: r2c; else c2r.
    real_transform(const std::vector<const isa_kernels*>& isas, std::size_t n, bool forward);

    //! batch rows, in_dist reals and out_dist complex elements apart.
    void r2c(const float* in, complex* out, std::size_t batch, std::size_t in_dist,
             std::size_t out_dist);
    //! batch rows, in_dist complex and out_dist reals apart; in is not written.
    void c2r(const complex* in, float* out, std::size_t batch, std::size_t in_dist,
             std::size_t out_dist);
    std::string describe() const;

private:
    void r2c_pair(const float* a, const float* b, complex* out_a, complex* out_b);
    void c2r_pair(const complex* a, const complex* b, float* out_a, float* out_b);

    std::size_t d_n;
    const isa_kernels& d_isa;             //!< the widest allowed: its passes
    std::unique_ptr<transform> d_fft;     //!< n/2 points (even n) or n (odd n)
    std::vector<complex> d_twiddles;      //!< even n: exp(-2 pi i k / n), k in [0, n/4]
    std::vector<complex> d_pair;          //!< odd n: the shared z of two rows
};

} // namespace gpufft::simd

#endif
