// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: real and multi-dimensional problems (internal). */
#ifndef GPUFFT_LIB_SIMD_SHAPED_H
#define GPUFFT_LIB_SIMD_SHAPED_H

#include "transform.h"
#include <gpufft/backend.h>
#include <memory>
#include <vector>

namespace gpufft::simd {

/*!
 * An executor for a packed problem other than 1-D c2c: r2c/c2r rows, and
 * 2-D and higher c2c, r2c and c2r as passes of batched 1-D transforms, the
 * last dimension first (see shaped.cc). isas: widest first.
 */
std::unique_ptr<executor> make_shaped_executor(const problem& p,
                                               const std::vector<const isa_kernels*>& isas,
                                               unsigned threads);

} // namespace gpufft::simd

#endif
