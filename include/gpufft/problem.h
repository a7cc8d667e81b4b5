/* gr-gpufft: what a plan computes, independent of how. */
#ifndef GPUFFT_PROBLEM_H
#define GPUFFT_PROBLEM_H

#include <gpufft/api.h>
#include <complex>
#include <cstddef>
#include <string>

namespace gpufft {

using complex = std::complex<float>;

//! Sign of the exponent: forward is exp(-2 pi i jk/N), inverse exp(+2 pi i jk/N).
enum class direction { forward, inverse };

/*!
 * \brief A batch of 1-D complex-float DFTs.
 *
 * Transform b reads in[b * distance + j] and writes out[b * distance + j]
 * for j in [0, n). Results are unnormalized, as in FFTW and gr-fft: a forward
 * then inverse transform multiplies by n.
 */
struct GPUFFT_API problem {
    std::size_t n = 0;        //!< transform size, >= 1
    direction dir = direction::forward;
    std::size_t batch = 1;    //!< number of transforms, >= 1
    std::size_t distance = 0; //!< elements between transform starts; 0 means n

    std::size_t stride() const { return distance ? distance : n; }
    //! Elements a buffer must hold: (batch - 1) * distance + n.
    std::size_t span() const { return (batch - 1) * stride() + n; }
    //! Throws gpufft::error naming the first bad field.
    void validate() const;
    std::string describe() const;
};

} // namespace gpufft

#endif
