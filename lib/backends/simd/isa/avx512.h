// SPDX-License-Identifier: GPL-3.0-or-later
/* AVX-512F primitives: eight complex floats per vector. */
#include <immintrin.h>
// Only the code below is built for this instruction set. Compiler flags would
// also build the std:: templates this file instantiates for it, and the linker
// may keep those copies for every caller, so wider instructions would leak
// into code that runs before the CPU check.
#pragma GCC target("avx512f,avx2,fma")
// GCC 12 warns inside its own AVX-512 intrinsics (_mm512_undefined_ps, GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

using V = __m512;
constexpr int lanes = 8;
constexpr const char* isa_name = "avx512";
constexpr bool few_registers = false; // zmm0-31
// No pass-cost model: the planner's rules for it were timed (planner.cc).
constexpr pass_cost pass_costs[] = { { 0, 0, 0 } };

GPUFFT_INLINE V vadd(V a, V b) { return _mm512_add_ps(a, b); }
GPUFFT_INLINE V vsub(V a, V b) { return _mm512_sub_ps(a, b); }
GPUFFT_INLINE V vscale(V a, float c) { return _mm512_mul_ps(a, _mm512_set1_ps(c)); }
// Each float of a times the one in the same slot of b (input weights).
GPUFFT_INLINE V vmul_floats(V a, V b) { return _mm512_mul_ps(a, b); }
GPUFFT_INLINE V vfmadd(V a, float c, V b) { return _mm512_fmadd_ps(a, _mm512_set1_ps(c), b); }
GPUFFT_INLINE V vfnmadd(V a, float c, V b) { return _mm512_fnmadd_ps(a, _mm512_set1_ps(c), b); }
GPUFFT_INLINE V swap_pairs(V a) { return _mm512_shuffle_ps(a, a, _MM_SHUFFLE(2, 3, 0, 1)); }
GPUFFT_INLINE V negate_mask(V a, __mmask16 lanes_to_negate)
{
    return _mm512_mask_sub_ps(a, lanes_to_negate, _mm512_setzero_ps(), a);
}
GPUFFT_INLINE V vmul_i(V a) { return negate_mask(swap_pairs(a), 0x5555); }
GPUFFT_INLINE V vmul_neg_i(V a) { return negate_mask(swap_pairs(a), 0xAAAA); }
// a + i b and a - i b: the real slots a - b.im and a + b.im, with a times 1
// exact, so one rounding as in vadd(a, vmul_i(b)).
GPUFFT_INLINE V vadd_i(V a, V b) { return _mm512_fmaddsub_ps(a, _mm512_set1_ps(1.0f), swap_pairs(b)); }
GPUFFT_INLINE V vsub_i(V a, V b) { return _mm512_fmsubadd_ps(a, _mm512_set1_ps(1.0f), swap_pairs(b)); }
GPUFFT_INLINE V vconj(V a) { return negate_mask(a, 0xAAAA); }
//! The complex lanes in reverse order.
GPUFFT_INLINE V vreverse(V a)
{
    return _mm512_castpd_ps(
        _mm512_permutexvar_pd(_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_castps_pd(a)));
}
// a * (wr + i wi) with fmaddsub: real slots a*wr - t, imaginary a*wr + t.
GPUFFT_INLINE V cmul_split(V a, V wr, V wi)
{
    return _mm512_fmaddsub_ps(a, wr, _mm512_mul_ps(swap_pairs(a), wi));
}
GPUFFT_INLINE V vcmul(V a, float re, float im)
{
    return cmul_split(a, _mm512_set1_ps(re), _mm512_set1_ps(im));
}
GPUFFT_INLINE V vcmul_lanes(V a, V w)
{
    return cmul_split(a, _mm512_moveldup_ps(w), _mm512_movehdup_ps(w));
}
GPUFFT_INLINE V loadu(const complex* p) { return _mm512_loadu_ps(reinterpret_cast<const float*>(p)); }
GPUFFT_INLINE void storeu(complex* p, V v) { _mm512_storeu_ps(reinterpret_cast<float*>(p), v); }
// Non-temporal store, no read of the line first, as two 32-byte halves: they
// need only the 32-byte alignment common allocators give, and the halves of
// a line merge in the write-combining buffer.
constexpr std::size_t stream_alignment = 32;
GPUFFT_INLINE void stream(complex* p, V v)
{
    float* f = reinterpret_cast<float*>(p);
    _mm256_stream_ps(f, _mm512_castps512_ps256(v));
    _mm256_stream_ps(f + 8, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}
GPUFFT_INLINE void stream_fence() { _mm_sfence(); }
// A complex float is 64 bits: transpose 8x8 doubles in three shuffle stages.
GPUFFT_INLINE void transpose(V* c)
{
    __m512d r[8], t[8];
    for (int i = 0; i < 8; ++i)
        r[i] = _mm512_castps_pd(c[i]);
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);     // a0 b0 a2 b2 a4 b4 a6 b6
        t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]); // a1 b1 a3 b3 ...
    }
    // Pair 128-bit blocks of rows i and i+2.
    for (int i = 0; i < 8; i += 4)
        for (int j = 0; j < 2; ++j) {
            r[i + j] = _mm512_shuffle_f64x2(t[i + j], t[i + j + 2], 0x88);     // blocks 0,2 | 0,2
            r[i + j + 2] = _mm512_shuffle_f64x2(t[i + j], t[i + j + 2], 0xDD); // blocks 1,3 | 1,3
        }
    // Pair 256-bit halves of rows i and i+4.
    for (int j = 0; j < 4; ++j) {
        t[j] = _mm512_shuffle_f64x2(r[j], r[j + 4], 0x88);
        t[j + 4] = _mm512_shuffle_f64x2(r[j], r[j + 4], 0xDD);
    }
    for (int i = 0; i < 8; ++i)
        c[i] = _mm512_castpd_ps(t[i]);
}
