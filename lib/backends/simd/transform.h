// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: the per-instruction-set transform objects (internal). */
#ifndef GPUFFT_LIB_SIMD_TRANSFORM_H
#define GPUFFT_LIB_SIMD_TRANSFORM_H

#include <gpufft/problem.h>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gpufft::simd {

/*!
 * A size-n transform for one instruction set. It owns its twiddles and
 * scratch, so one object serves one thread at a time.
 */
class transform
{
public:
    virtual ~transform() = default;
    //! batch transforms, dist elements apart; in == out is allowed.
    virtual void run(const complex* in, complex* out, std::size_t batch, std::size_t dist) = 0;
    virtual std::string describe() const = 0;
    //! Transforms that go through one path together (a vector's lanes): a
    //! batch split at multiples of it is computed exactly as when whole.
    virtual std::size_t batch_granule() const { return 1; }
};

/*!
 * The mixed-radix algorithm for n = lanes * product(radices): column FFTs of
 * length n / lanes on vectors whose lanes are the n mod lanes residues, then a
 * lanes-point DFT across each vector after a twiddle and a transpose.
 */
struct mixed_radix_spec {
    std::size_t n = 0;
    bool forward = true;
    std::vector<int> radices; //!< Stockham passes, in order
    std::vector<float> weights; //!< empty, or n input weights (plan_options::input_weights)
};

/*!
 * The modelled cost of one Stockham pass of a radix, per vector of the
 * column FFT: as the first pass (no twiddles) and as a later one. Lists of
 * them end with radix 0.
 */
struct pass_cost {
    int radix;
    float first, twiddled;
};

//! What one instruction set's translation unit provides.
struct isa_kernels {
    const char* name;
    int lanes;
    //! 16 vector registers (SSE2, AVX2, 32-bit NEON): radix 16 and 32
    //! codelets spill there, so the planner prefers radix 8 passes.
    bool few_registers;
    //! Pass costs the planner chooses passes by (factor_passes,
    //! pass_style::modelled), or none (radix 0 first): then its rules.
    const pass_cost* pass_costs;
    //! Whether a codelet of this radix was generated for this instruction set.
    bool (*has_codelet)(int radix);
    std::unique_ptr<transform> (*make_mixed_radix)(const mixed_radix_spec&);
    //! n = a * b: columns of length a with these radices, then rows (size b).
    //! `weights` (empty, or n input weights) are applied as the columns are gathered.
    std::unique_ptr<transform> (*make_four_step)(std::size_t n, bool forward, std::size_t a,
                                                 const std::vector<int>& column_radices,
                                                 std::unique_ptr<transform> rows,
                                                 const std::vector<float>& weights);
    //! Batches of n-point transforms with these radices, one transform per
    //! lane (lane_batch.h); `rest` takes the batch mod lanes left over (with
    //! the same weights). `weights` are applied as the lanes are interleaved.
    std::unique_ptr<transform> (*make_lane_batch)(std::size_t n, bool forward,
                                                  const std::vector<int>& radices,
                                                  std::unique_ptr<transform> rest,
                                                  const std::vector<float>& weights);
    //! Bluestein's algorithm for any n, convolving with transforms of length
    //! fft_len (>= 2n - 1) in both directions; `weights` are folded into the
    //! first chirp multiply.
    std::unique_ptr<transform> (*make_bluestein)(std::size_t n, bool forward, std::size_t fft_len,
                                                 std::unique_ptr<transform> forward_fft,
                                                 std::unique_ptr<transform> inverse_fft,
                                                 const std::vector<float>& weights);
    //! Rader's algorithm for the prime p, convolving with transforms of
    //! p - 1 points in both directions; `weights` are applied as the input
    //! is permuted.
    std::unique_ptr<transform> (*make_rader)(std::size_t p, bool forward,
                                             std::unique_ptr<transform> forward_fft,
                                             std::unique_ptr<transform> inverse_fft,
                                             const std::vector<float>& weights);
    //! Columns [0, w) of a length x inner row-major matrix to w columns of
    //! `length` points `pitch` apart in block (to_block), or back.
    void (*move_columns)(complex* matrix, std::size_t inner, std::size_t length, std::size_t w,
                         complex* block, std::size_t pitch, bool to_block);
    //! Even-size real transforms' passes on one row of m + 1 (real.h,
    //! real_pass.h); w[k] = exp(-2 pi i k / 2m), k <= m/2.
    void (*r2c_post)(complex* x, std::size_t m, const complex* w);
    void (*c2r_pre)(const complex* x, complex* z, std::size_t m, const complex* w);
};

} // namespace gpufft::simd

#endif
