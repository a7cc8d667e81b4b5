/* gr-gpufft simd backend: which instruction sets this build has and the CPU runs. */
#include "isa_table.h"

namespace gpufft::simd {

extern const isa_kernels kernels_scalar;
#if defined(__x86_64__) || defined(__i386__)
extern const isa_kernels kernels_sse2;
extern const isa_kernels kernels_avx2;
extern const isa_kernels kernels_avx512;
#endif

namespace {
bool always() { return true; }
#if defined(__x86_64__) || defined(__i386__)
// __builtin_cpu_supports also checks that the OS saves the wider registers.
bool has_sse2() { return __builtin_cpu_supports("sse2"); }
bool has_avx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
bool has_avx512() { return __builtin_cpu_supports("avx512f"); }
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
        { kernels_scalar, always },
    };
    return table;
}

} // namespace gpufft::simd
