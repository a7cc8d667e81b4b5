// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: composite radix butterflies (9, 25, 27, 49, 15,
 * ...), generated as OpenCL source at plan time from the hand-written ones
 * of kernels/fft_butterflies.cl, so that sizes with odd factors take fewer
 * Stockham stages, each a local-memory round trip and a barrier. */
#ifndef GPUFFT_LIB_OPENCL_CODELETS_H
#define GPUFFT_LIB_OPENCL_CODELETS_H

#include <cstddef>
#include <string>
#include <vector>

namespace gpufft::opencl::detail {

//! Radix r = a * b, done as b butterflies of a points, twiddled, then a of b.
struct composite_radix {
    std::size_t r, a, b;
};

//! Every composite radix a stage may take, ascending: each product of 2, 3,
//! 5 and 7 up to composite_radix_cap that is neither a power of two nor
//! hand-written (6, 9, 10, 12, 14, 15, ...).
const std::vector<composite_radix>& composite_radices();

//! Every radix a stage of 2^a 3^b 5^c 7^d points may take: the hand-written
//! ones of kernels/fft_butterflies.cl and the composite ones, ascending.
const std::vector<std::size_t>& stage_radices();

//! The OpenCL source of bf<r>() for the composite radices among `radices`
//! (and those they are made of), COMPOSITE_RADIX(R) and
//! composite_butterfly(R, v) calling the one of radix R; it follows
//! kernels/fft_butterflies.cl in a program.
std::string composite_butterflies_source(const std::vector<std::size_t>& radices);

} // namespace gpufft::opencl::detail

#endif
