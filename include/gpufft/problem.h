// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: what a plan computes, independent of how. */
#ifndef GPUFFT_PROBLEM_H
#define GPUFFT_PROBLEM_H

#include <gpufft/api.h>
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

namespace gpufft {

using complex = std::complex<float>;

//! Sign of the exponent: forward is exp(-2 pi i jk/N), inverse exp(+2 pi i jk/N).
enum class direction { forward, inverse };

/*!
 * What a transform maps. r2c (forward only) takes real samples to the
 * non-redundant half of their DFT, c2r (inverse only) takes that half back
 * (FFTW manual, "One-Dimensional DFTs of Real Data" and "Multi-Dimensional
 * DFTs of Real Data"): along the last dimension, N reals <-> N/2 + 1 complex.
 * c2r reads only the real parts of the N/2 + 1 outputs' first element (and
 * of the last one for even N), as FFTW does.
 */
enum class transform_kind { c2c, r2c, c2r };

//! "c2c", "r2c" or "c2r".
GPUFFT_API const char* kind_name(transform_kind k);

/*!
 * \brief A batch of complex-float DFTs of one shape.
 *
 * 1-D: transform b reads in[b * distance + j] and writes out[b * distance + j]
 * for j in [0, n).
 *
 * Multi-dimensional: `dims` gives the shape, row-major (the last dimension is
 * contiguous, as in C and numpy); element (i0, ..., ik) of transform b is at
 * b * distance + sum(i_d * strides[d]), with packed row-major strides when
 * `strides` is empty. `strides` (c2c only) apply to input and output alike.
 *
 * Real kinds: the complex side has dims with the last one d replaced by
 * d/2 + 1, packed, transforms `distance` complex elements apart; the real
 * side is packed with dims, `real_distance` real elements apart.
 *
 * Results are unnormalized, as in FFTW and gr-fft: a forward then inverse
 * transform (c2r after r2c too) multiplies by points(), the product of dims.
 *
 * `problem{ n, dir, batch, distance }` keeps meaning a batch of 1-D complex
 * transforms.
 */
struct GPUFFT_API problem {
    std::size_t n = 0;        //!< 1-D transform size, >= 1; with dims: 0 or points()
    direction dir = direction::forward;
    std::size_t batch = 1;    //!< number of transforms, >= 1
    std::size_t distance = 0; //!< complex elements between transform starts; 0: packed
    transform_kind kind = transform_kind::c2c;
    std::vector<std::size_t> dims;    //!< shape, row-major; empty: { n }
    std::vector<std::size_t> strides; //!< c2c: elements per step along each dim; empty: packed
    std::size_t real_distance = 0;    //!< r2c/c2r: real elements between transforms; 0: packed

    //! dims, or { n } for a 1-D problem given by n alone.
    std::vector<std::size_t> shape() const;
    std::size_t rank() const { return dims.empty() ? 1 : dims.size(); }
    //! Points of one transform, the product of the shape (the scale of a round trip).
    std::size_t points() const;
    //! A 1-D packed complex problem: what every backend computes.
    bool is_1d_c2c() const;
    //! Complex elements one transform spans (with strides: the last one's offset + 1).
    std::size_t complex_extent() const;
    //! Real elements one transform spans (real kinds).
    std::size_t real_extent() const;

    //! Complex elements between transform starts: distance, or the extent.
    std::size_t stride() const { return distance ? distance : complex_extent(); }
    //! Real elements between transform starts: real_distance, or the extent.
    std::size_t real_stride() const { return real_distance ? real_distance : real_extent(); }
    //! Complex elements a complex-side buffer must hold: (batch - 1) * stride() + extent.
    std::size_t span() const { return (batch - 1) * stride() + complex_extent(); }
    //! Real elements a real-side buffer must hold (r2c input, c2r output).
    std::size_t real_span() const { return (batch - 1) * real_stride() + real_extent(); }
    //! Throws gpufft::error naming the first bad field.
    void validate() const;
    std::string describe() const;
};

} // namespace gpufft

#endif
