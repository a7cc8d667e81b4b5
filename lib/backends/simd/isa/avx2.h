// SPDX-License-Identifier: GPL-3.0-or-later
/* AVX2 + FMA primitives: four complex floats per vector. */
#include <immintrin.h>
// Only the code below is built for this instruction set. Compiler flags would
// also build the std:: templates this file instantiates for it, and the linker
// may keep those copies for every caller, so wider instructions would leak
// into code that runs before the CPU check.
#pragma GCC target("avx2,fma")

using V = __m256;
constexpr int lanes = 4;
constexpr const char* isa_name = "avx2";
constexpr bool few_registers = true; // ymm0-15
// No pass-cost model: the planner's rules for it were timed (planner.cc).
constexpr pass_cost pass_costs[] = { { 0, 0, 0 } };

GPUFFT_INLINE V vadd(V a, V b) { return _mm256_add_ps(a, b); }
GPUFFT_INLINE V vsub(V a, V b) { return _mm256_sub_ps(a, b); }
GPUFFT_INLINE V vscale(V a, float c) { return _mm256_mul_ps(a, _mm256_set1_ps(c)); }
// Each float of a times the one in the same slot of b (input weights).
GPUFFT_INLINE V vmul_floats(V a, V b) { return _mm256_mul_ps(a, b); }
GPUFFT_INLINE V vfmadd(V a, float c, V b) { return _mm256_fmadd_ps(a, _mm256_set1_ps(c), b); }
GPUFFT_INLINE V vfnmadd(V a, float c, V b) { return _mm256_fnmadd_ps(a, _mm256_set1_ps(c), b); }
GPUFFT_INLINE V swap_pairs(V a) { return _mm256_permute_ps(a, _MM_SHUFFLE(2, 3, 0, 1)); }
GPUFFT_INLINE V vmul_i(V a)
{
    return _mm256_xor_ps(swap_pairs(a), _mm256_setr_ps(-0.0f, 0, -0.0f, 0, -0.0f, 0, -0.0f, 0));
}
GPUFFT_INLINE V vmul_neg_i(V a)
{
    return _mm256_xor_ps(swap_pairs(a), _mm256_setr_ps(0, -0.0f, 0, -0.0f, 0, -0.0f, 0, -0.0f));
}
// a + i b and a - i b: the real slots a - b.im and a + b.im, with a times 1
// exact, so one rounding as in vadd(a, vmul_i(b)).
GPUFFT_INLINE V vadd_i(V a, V b) { return _mm256_fmaddsub_ps(a, _mm256_set1_ps(1.0f), swap_pairs(b)); }
GPUFFT_INLINE V vsub_i(V a, V b) { return _mm256_fmsubadd_ps(a, _mm256_set1_ps(1.0f), swap_pairs(b)); }
GPUFFT_INLINE V vconj(V a)
{
    return _mm256_xor_ps(a, _mm256_setr_ps(0, -0.0f, 0, -0.0f, 0, -0.0f, 0, -0.0f));
}
//! The complex lanes in reverse order.
GPUFFT_INLINE V vreverse(V a)
{
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(a), _MM_SHUFFLE(0, 1, 2, 3)));
}
// a * (wr + i wi) with fmaddsub: real slots a*wr - t, imaginary a*wr + t.
GPUFFT_INLINE V cmul_split(V a, V wr, V wi)
{
    return _mm256_fmaddsub_ps(a, wr, _mm256_mul_ps(swap_pairs(a), wi));
}
GPUFFT_INLINE V vcmul(V a, float re, float im)
{
    return cmul_split(a, _mm256_set1_ps(re), _mm256_set1_ps(im));
}
GPUFFT_INLINE V vcmul_lanes(V a, V w)
{
    return cmul_split(a, _mm256_moveldup_ps(w), _mm256_movehdup_ps(w));
}
GPUFFT_INLINE V loadu(const complex* p) { return _mm256_loadu_ps(reinterpret_cast<const float*>(p)); }
GPUFFT_INLINE void storeu(complex* p, V v) { _mm256_storeu_ps(reinterpret_cast<float*>(p), v); }
// Non-temporal store of a whole aligned vector: no read of the line first.
constexpr std::size_t stream_alignment = 32;
GPUFFT_INLINE void stream(complex* p, V v) { _mm256_stream_ps(reinterpret_cast<float*>(p), v); }
GPUFFT_INLINE void stream_fence() { _mm_sfence(); }
// A complex float is 64 bits: transpose 4x4 doubles.
GPUFFT_INLINE void transpose(V* c)
{
    const __m256d r0 = _mm256_castps_pd(c[0]), r1 = _mm256_castps_pd(c[1]);
    const __m256d r2 = _mm256_castps_pd(c[2]), r3 = _mm256_castps_pd(c[3]);
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    c[0] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x20));
    c[1] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x20));
    c[2] = _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x31));
    c[3] = _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x31));
}
