// SPDX-License-Identifier: GPL-3.0-or-later
/* NEON primitives: two complex floats per vector, for AArch64 (Advanced SIMD,
 * always present) and 32-bit ARMv7 with NEON and VFPv4 (fused multiply-add):
 * the Raspberry Pi 2 and later under a 32-bit OS. */
#include <arm_neon.h> // isa_kernels.cc includes it first, at global scope

#if defined(__aarch64__)
// Advanced SIMD and FMA are part of the base AArch64 instruction set: this
// object needs no options beyond the target's defaults.
#elif defined(__arm__)
// Only the code below is built for NEON with VFPv4; everything the file
// includes (std:: templates included) keeps the target's defaults (Debian
// armhf: ARMv7, VFPv3-D16, no NEON), so nothing outside the kernels that
// run after the HWCAP check in cpu.cc uses NEON. The hard-float ABI passes
// floats in the same VFP registers with or without NEON, so the kernels'
// calls into the rest of the library are unaffected.
// GCC 12 generates NEON and VFPv4 code after this pragma but leaves the
// feature macros (__ARM_NEON, __ARM_FEATURE_FMA) as the command line set
// them; were NEON not enabled, every intrinsic below would fail to inline
// (target specific option mismatch), so the build would stop.
#pragma GCC target("fpu=neon-vfpv4")
#else
#error "neon.h is for ARM targets only"
#endif

// [re0, im0, re1, im1]: one complex float of each of two columns.
using V = float32x4_t;
constexpr int lanes = 2;
constexpr const char* isa_name = "neon";
#if defined(__aarch64__)
constexpr bool few_registers = false; // v0-v31
#else
constexpr bool few_registers = true; // q0-q15
#endif

/*
 * The planner's pass-cost model (planner.cc, pass_style::modelled):
 * instructions per vector of each radix's Stockham pass, as the first pass
 * and as a twiddled one, counted under qemu-user with GCC 12 -O3 by
 * scripts/insn-count/pass_costs.py (plans forced to R x 16 and 16 x R
 * columns). With no ARM hardware here, instruction counts stand in for
 * time. On AArch64, radix 25 and 32 passes spill to the stack (objdump
 * -d: 50-109 vector loads and stores at sp, against the 8 that save
 * d8-d15 in a radix-16 pass) and cost more per point than radix 16; on
 * ARMv7, twiddled passes of 9 points and more do.
 */
constexpr pass_cost pass_costs[] = {
#if defined(__aarch64__)
    { 2, 9.5f, 9.8f },    { 3, 9.2f, 11.5f },   { 4, 7.9f, 11.0f },   { 5, 9.7f, 13.2f },
    { 6, 8.5f, 12.4f },   { 7, 10.4f, 15.1f },  { 8, 8.8f, 13.0f },   { 9, 12.6f, 16.6f },
    { 10, 10.0f, 14.6f }, { 11, 13.2f, 17.9f }, { 12, 9.4f, 14.3f },  { 13, 18.3f, 21.8f },
    { 15, 12.1f, 17.4f }, { 16, 11.8f, 16.9f }, { 25, 25.5f, 30.0f }, { 32, 23.7f, 25.7f },
#else
    { 2, 10.6f, 11.5f },  { 3, 11.3f, 16.2f },  { 4, 8.9f, 13.7f },   { 5, 13.8f, 18.9f },
    { 6, 10.4f, 16.1f },  { 7, 16.3f, 25.5f },  { 8, 10.7f, 18.6f },  { 9, 18.0f, 29.9f },
    { 10, 13.8f, 27.2f }, { 11, 25.7f, 38.9f }, { 12, 12.2f, 22.5f }, { 13, 32.4f, 45.0f },
    { 15, 19.5f, 34.6f }, { 16, 18.4f, 31.7f }, { 25, 49.2f, 61.0f }, { 32, 42.4f, 55.0f },
#endif
    { 0, 0, 0 },
};

GPUFFT_INLINE V vadd(V a, V b) { return vaddq_f32(a, b); }
GPUFFT_INLINE V vsub(V a, V b) { return vsubq_f32(a, b); }
GPUFFT_INLINE V vscale(V a, float c) { return vmulq_n_f32(a, c); }
// Each float of a times the one in the same slot of b (input weights).
GPUFFT_INLINE V vmul_floats(V a, V b) { return vmulq_f32(a, b); }
// vfmaq_f32(b, a, c) = b + a * c, one rounding; vfmsq_f32(b, a, c) = b - a * c.
GPUFFT_INLINE V vfmadd(V a, float c, V b) { return vfmaq_f32(b, a, vdupq_n_f32(c)); }
GPUFFT_INLINE V vfnmadd(V a, float c, V b) { return vfmsq_f32(b, a, vdupq_n_f32(c)); }
// (re, im) -> (im, re) in each complex pair.
GPUFFT_INLINE V swap_pairs(V a) { return vrev64q_f32(a); }
// Sign flips as an exclusive or of the sign bits: exact, no multiply.
GPUFFT_INLINE V flip_signs(V a, uint32x4_t signs)
{
    return vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(a), signs));
}
GPUFFT_INLINE uint32x4_t even_signs() { return uint32x4_t{ 0x80000000u, 0, 0x80000000u, 0 }; }
GPUFFT_INLINE uint32x4_t odd_signs() { return uint32x4_t{ 0, 0x80000000u, 0, 0x80000000u }; }
// i (re + i im) = -im + i re; -i (re + i im) = im - i re.
GPUFFT_INLINE V vmul_i(V a) { return flip_signs(swap_pairs(a), even_signs()); }
GPUFFT_INLINE V vmul_neg_i(V a) { return flip_signs(swap_pairs(a), odd_signs()); }
GPUFFT_INLINE V vadd_i(V a, V b) { return vaddq_f32(a, vmul_i(b)); }
GPUFFT_INLINE V vsub_i(V a, V b) { return vaddq_f32(a, vmul_neg_i(b)); }
GPUFFT_INLINE V vconj(V a) { return flip_signs(a, odd_signs()); }
//! The complex lanes in reverse order.
GPUFFT_INLINE V vreverse(V a) { return vcombine_f32(vget_high_f32(a), vget_low_f32(a)); }
// a * (wr + i wi) = a wr + (i a) wi, wr and wi holding each lane's factor in
// both of its slots: one multiply, one fused multiply-add.
GPUFFT_INLINE V cmul_split(V a, V wr, V wi) { return vfmaq_f32(vmulq_f32(a, wr), vmul_i(a), wi); }
GPUFFT_INLINE V vcmul(V a, float re, float im)
{
    return vfmaq_f32(vmulq_n_f32(a, re), vmul_i(a), vdupq_n_f32(im));
}
GPUFFT_INLINE V vcmul_lanes(V a, V w)
{
    // [wr0, wr0, wr1, wr1] and [wi0, wi0, wi1, wi1]
#if defined(__aarch64__)
    return cmul_split(a, vtrn1q_f32(w, w), vtrn2q_f32(w, w));
#else
    const float32x4x2_t t = vtrnq_f32(w, w); // one VTRN
    return cmul_split(a, t.val[0], t.val[1]);
#endif
}
GPUFFT_INLINE V loadu(const complex* p) { return vld1q_f32(reinterpret_cast<const float*>(p)); }
GPUFFT_INLINE void storeu(complex* p, V v) { vst1q_f32(reinterpret_cast<float*>(p), v); }
// No streaming store is used: AArch64's STNP is only a hint, ARMv7 has none;
// plain stores keep the driver's streaming path correct.
constexpr std::size_t stream_alignment = 16;
GPUFFT_INLINE void stream(complex* p, V v) { storeu(p, v); }
GPUFFT_INLINE void stream_fence() {}
// A complex float is 64 bits: the 2x2 transpose swaps c[0]'s high half with
// c[1]'s low half.
GPUFFT_INLINE void transpose(V* c)
{
#if defined(__aarch64__)
    const float64x2_t r0 = vreinterpretq_f64_f32(c[0]), r1 = vreinterpretq_f64_f32(c[1]);
    c[0] = vreinterpretq_f32_f64(vzip1q_f64(r0, r1));
    c[1] = vreinterpretq_f32_f64(vzip2q_f64(r0, r1));
#else
    const V lo = vcombine_f32(vget_low_f32(c[0]), vget_low_f32(c[1]));
    const V hi = vcombine_f32(vget_high_f32(c[0]), vget_high_f32(c[1]));
    c[0] = lo;
    c[1] = hi;
#endif
}
