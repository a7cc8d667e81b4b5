// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: one instruction set's kernels. This file is compiled
 * once per instruction set with the same compiler flags and GPUFFT_ISA naming
 * it; the ISA's header (isa/<name>.h) enables its instructions with
 * `#pragma GCC target`, so the same codelets and driver become scalar, SSE2,
 * AVX2, AVX-512 or NEON code. */
#include "transform.h"
#include "../../core/exact_dft.h"
#include <gpufft/error.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h> // outside the namespace; the ISA headers' own includes are then no-ops
#elif defined(__aarch64__) || defined(__arm__)
#include <arm_neon.h> // the same for isa/neon.h (it enables NEON itself where it needs to)
#endif

#define GPUFFT_INLINE inline __attribute__((always_inline))
#define GPUFFT_STRINGIFY2(x) #x
#define GPUFFT_STRINGIFY(x) GPUFFT_STRINGIFY2(x)
#define GPUFFT_CONCAT2(a, b) a##b
#define GPUFFT_CONCAT(a, b) GPUFFT_CONCAT2(a, b)

namespace gpufft::simd::GPUFFT_ISA {
namespace {
#include GPUFFT_STRINGIFY(isa/GPUFFT_ISA.h)
#include "codelets.inc"
#include "stockham.h"
#include "bluestein.h"
#include "rader.h"
#include "four_step.h"
#include "lane_batch.h"
#include "columns.h"
#include "real_pass.h"

bool has_codelet(int radix)
{
    for (int r : { GPUFFT_CODELET_RADICES })
        if (r == radix)
            return true;
    return false;
}

std::unique_ptr<transform> make_mixed_radix(const mixed_radix_spec& spec)
{
    return std::make_unique<mixed_radix>(spec);
}

std::unique_ptr<transform> make_four_step(std::size_t n, bool forward, std::size_t a,
                                          const std::vector<int>& column_radices,
                                          std::unique_ptr<transform> rows,
                                          const std::vector<float>& weights)
{
    return std::make_unique<four_step>(n, forward, a, column_radices, std::move(rows), weights);
}

std::unique_ptr<transform> make_lane_batch(std::size_t n, bool forward,
                                           const std::vector<int>& radices,
                                           std::unique_ptr<transform> rest,
                                           const std::vector<float>& weights)
{
    return std::make_unique<lane_batch>(n, forward, radices, std::move(rest), weights);
}

std::unique_ptr<transform> make_bluestein(std::size_t n, bool forward, std::size_t fft_len,
                                          std::unique_ptr<transform> forward_fft,
                                          std::unique_ptr<transform> inverse_fft,
                                          const std::vector<float>& weights)
{
    return std::make_unique<bluestein>(
        n, forward, fft_len, std::move(forward_fft), std::move(inverse_fft), weights);
}

std::unique_ptr<transform> make_rader(std::size_t p, bool forward,
                                      std::unique_ptr<transform> forward_fft,
                                      std::unique_ptr<transform> inverse_fft,
                                      const std::vector<float>& weights)
{
    return std::make_unique<rader>(p, forward, std::move(forward_fft), std::move(inverse_fft), weights);
}
} // namespace
} // namespace gpufft::simd::GPUFFT_ISA

namespace gpufft::simd {
extern const isa_kernels GPUFFT_CONCAT(kernels_, GPUFFT_ISA);
const isa_kernels GPUFFT_CONCAT(kernels_, GPUFFT_ISA) = {
    GPUFFT_ISA::isa_name,
    GPUFFT_ISA::lanes,
    GPUFFT_ISA::few_registers,
    GPUFFT_ISA::pass_costs,
    GPUFFT_ISA::has_codelet,
    GPUFFT_ISA::make_mixed_radix,
    GPUFFT_ISA::make_four_step,
    GPUFFT_ISA::make_lane_batch,
    GPUFFT_ISA::make_bluestein,
    GPUFFT_ISA::make_rader,
    GPUFFT_ISA::move_columns,
    GPUFFT_ISA::r2c_post,
    GPUFFT_ISA::c2r_pre,
};
} // namespace gpufft::simd
