// SPDX-License-Identifier: GPL-3.0-or-later
/* SSE2 primitives: two complex floats per vector. */
#include <emmintrin.h>
// Only the code below is built for this instruction set. Compiler flags would
// also build the std:: templates this file instantiates for it, and the linker
// may keep those copies for every caller, so wider instructions would leak
// into code that runs before the CPU check.
#pragma GCC target("sse2")

using V = __m128;
constexpr int lanes = 2;
constexpr const char* isa_name = "sse2";
constexpr bool few_registers = true; // xmm0-15
// No pass-cost model: the planner's rules for it were timed (planner.cc).
constexpr pass_cost pass_costs[] = { { 0, 0, 0 } };

GPUFFT_INLINE V vadd(V a, V b) { return _mm_add_ps(a, b); }
GPUFFT_INLINE V vsub(V a, V b) { return _mm_sub_ps(a, b); }
GPUFFT_INLINE V vscale(V a, float c) { return _mm_mul_ps(a, _mm_set1_ps(c)); }
// Each float of a times the one in the same slot of b (input weights).
GPUFFT_INLINE V vmul_floats(V a, V b) { return _mm_mul_ps(a, b); }
GPUFFT_INLINE V vfmadd(V a, float c, V b) { return _mm_add_ps(_mm_mul_ps(a, _mm_set1_ps(c)), b); }
GPUFFT_INLINE V vfnmadd(V a, float c, V b) { return _mm_sub_ps(b, _mm_mul_ps(a, _mm_set1_ps(c))); }
// (re, im) -> (im, re) in each complex pair.
GPUFFT_INLINE V swap_pairs(V a) { return _mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 3, 0, 1)); }
GPUFFT_INLINE V negate_re(V a) { return _mm_xor_ps(a, _mm_setr_ps(-0.0f, 0.0f, -0.0f, 0.0f)); }
GPUFFT_INLINE V negate_im(V a) { return _mm_xor_ps(a, _mm_setr_ps(0.0f, -0.0f, 0.0f, -0.0f)); }
GPUFFT_INLINE V vmul_i(V a) { return negate_re(swap_pairs(a)); }
GPUFFT_INLINE V vmul_neg_i(V a) { return negate_im(swap_pairs(a)); }
GPUFFT_INLINE V vadd_i(V a, V b) { return _mm_add_ps(a, vmul_i(b)); }
GPUFFT_INLINE V vsub_i(V a, V b) { return _mm_add_ps(a, vmul_neg_i(b)); }
GPUFFT_INLINE V vconj(V a) { return negate_im(a); }
//! The complex lanes in reverse order.
GPUFFT_INLINE V vreverse(V a) { return _mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 0, 3, 2)); }
// a * (wr + i wi), wr and wi holding each lane's factor in both slots.
GPUFFT_INLINE V cmul_split(V a, V wr, V wi)
{
    return _mm_add_ps(_mm_mul_ps(a, wr), negate_re(_mm_mul_ps(swap_pairs(a), wi)));
}
GPUFFT_INLINE V vcmul(V a, float re, float im) { return cmul_split(a, _mm_set1_ps(re), _mm_set1_ps(im)); }
GPUFFT_INLINE V vcmul_lanes(V a, V w)
{
    return cmul_split(a, _mm_shuffle_ps(w, w, _MM_SHUFFLE(2, 2, 0, 0)),
                      _mm_shuffle_ps(w, w, _MM_SHUFFLE(3, 3, 1, 1)));
}
GPUFFT_INLINE V loadu(const complex* p) { return _mm_loadu_ps(reinterpret_cast<const float*>(p)); }
GPUFFT_INLINE void storeu(complex* p, V v) { _mm_storeu_ps(reinterpret_cast<float*>(p), v); }
// Non-temporal store of a whole aligned vector: no read of the line first.
constexpr std::size_t stream_alignment = 16;
GPUFFT_INLINE void stream(complex* p, V v) { _mm_stream_ps(reinterpret_cast<float*>(p), v); }
GPUFFT_INLINE void stream_fence() { _mm_sfence(); }
GPUFFT_INLINE void transpose(V* c)
{
    const V lo = _mm_movelh_ps(c[0], c[1]);
    const V hi = _mm_movehl_ps(c[1], c[0]);
    c[0] = lo;
    c[1] = hi;
}
