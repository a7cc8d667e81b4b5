// SPDX-License-Identifier: GPL-3.0-or-later
/* Scalar primitives: one complex value per vector; the reference path. */
struct V {
    float re, im;
};
constexpr int lanes = 1;
constexpr const char* isa_name = "scalar";
// Not a vector set: its codelets measured 1.1-1.4x faster as radix 16 than
// as radix 8 (x86-64, 1024 to 16384 points).
constexpr bool few_registers = false;
// No pass-cost model: the planner's rules for it were timed (planner.cc).
constexpr pass_cost pass_costs[] = { { 0, 0, 0 } };

GPUFFT_INLINE V vadd(V a, V b) { return { a.re + b.re, a.im + b.im }; }
GPUFFT_INLINE V vsub(V a, V b) { return { a.re - b.re, a.im - b.im }; }
GPUFFT_INLINE V vscale(V a, float c) { return { a.re * c, a.im * c }; }
// Each float of a times the one in the same slot of b (input weights).
GPUFFT_INLINE V vmul_floats(V a, V b) { return { a.re * b.re, a.im * b.im }; }
GPUFFT_INLINE V vfmadd(V a, float c, V b) { return { a.re * c + b.re, a.im * c + b.im }; }
GPUFFT_INLINE V vfnmadd(V a, float c, V b) { return { b.re - a.re * c, b.im - a.im * c }; }
GPUFFT_INLINE V vmul_i(V a) { return { -a.im, a.re }; }
GPUFFT_INLINE V vmul_neg_i(V a) { return { a.im, -a.re }; }
GPUFFT_INLINE V vadd_i(V a, V b) { return { a.re - b.im, a.im + b.re }; }
GPUFFT_INLINE V vsub_i(V a, V b) { return { a.re + b.im, a.im - b.re }; }
GPUFFT_INLINE V vcmul(V a, float re, float im)
{
    return { a.re * re - a.im * im, a.re * im + a.im * re };
}
GPUFFT_INLINE V vcmul_lanes(V a, V w) { return vcmul(a, w.re, w.im); }
GPUFFT_INLINE V loadu(const complex* p) { return { p->real(), p->imag() }; }
GPUFFT_INLINE void storeu(complex* p, V v) { *p = complex(v.re, v.im); }
GPUFFT_INLINE void transpose(V*) {}
GPUFFT_INLINE V vconj(V a) { return { a.re, -a.im }; }
GPUFFT_INLINE V vreverse(V a) { return a; }
constexpr std::size_t stream_alignment = 8;
GPUFFT_INLINE void stream(complex* p, V v) { storeu(p, v); }
GPUFFT_INLINE void stream_fence() {}
