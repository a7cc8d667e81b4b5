// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: the instruction sets compiled in, widest first (internal). */
#ifndef GPUFFT_LIB_SIMD_ISA_TABLE_H
#define GPUFFT_LIB_SIMD_ISA_TABLE_H

#include "transform.h"
#include <vector>

namespace gpufft::simd {

struct isa_entry {
    const isa_kernels& kernels;
    bool (*cpu_has)(); //!< run-time probe of the processor and OS
};

//! Every instruction set built for this target, widest first, scalar last.
const std::vector<isa_entry>& compiled_isas();

} // namespace gpufft::simd

#endif
