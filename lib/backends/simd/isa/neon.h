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

GPUFFT_INLINE V vadd(V a, V b) { return vaddq_f32(a, b); }
GPUFFT_INLINE V vsub(V a, V b) { return vsubq_f32(a, b); }
GPUFFT_INLINE V vscale(V a, float c) { return vmulq_n_f32(a, c); }
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
