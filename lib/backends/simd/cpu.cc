// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: which instruction sets this build has and the CPU runs. */
#include "isa_table.h"
#if defined(__arm__) && !defined(__aarch64__)
#include <sys/auxv.h> // getauxval
#endif

namespace gpufft::simd {

extern const isa_kernels kernels_scalar;
#if defined(__x86_64__) || defined(__i386__)
extern const isa_kernels kernels_sse2;
extern const isa_kernels kernels_avx2;
extern const isa_kernels kernels_avx512;
#endif
#if defined(__aarch64__) || defined(__arm__)
extern const isa_kernels kernels_neon;
#endif

namespace {
bool always() { return true; }
#if defined(__x86_64__) || defined(__i386__)
// __builtin_cpu_supports also checks that the OS saves the wider registers.
bool has_sse2() { return __builtin_cpu_supports("sse2"); }
bool has_avx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
bool has_avx512() { return __builtin_cpu_supports("avx512f"); }
#endif
#if defined(__aarch64__)
// Advanced SIMD (with FMA) is mandatory in AArch64.
bool has_neon() { return true; }
#elif defined(__arm__)
// The kernel's HWCAP bits (glibc's HWCAP_ARM_NEON, HWCAP_ARM_VFPv4): NEON,
// and VFPv4 for the fused multiply-add the neon kernels use. ARMv7 cores
// without VFPv4 (Cortex-A8, A9: BeagleBone, older i.MX) fall back to scalar.
bool has_neon()
{
    constexpr unsigned long hwcap_neon = 1ul << 12, hwcap_vfpv4 = 1ul << 16;
    const unsigned long hw = getauxval(AT_HWCAP);
    return (hw & hwcap_neon) && (hw & hwcap_vfpv4);
}
#endif
} // namespace

const std::vector<isa_entry>& compiled_isas()
{
    static const std::vector<isa_entry> table = {
#if defined(__x86_64__) || defined(__i386__)
        { kernels_avx512, has_avx512 },
        { kernels_avx2, has_avx2 },
        { kernels_sse2, has_sse2 },
#endif
#if defined(__aarch64__) || defined(__arm__)
        { kernels_neon, has_neon },
#endif
        { kernels_scalar, always },
    };
    return table;
}

} // namespace gpufft::simd
