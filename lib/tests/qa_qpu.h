// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu host-driver tests: shared helpers. */
#ifndef GPUFFT_QA_QPU_H
#define GPUFFT_QA_QPU_H

#include "gpu_memory.h"
#include "host.h"
#include "mailbox.h"
#include "qpu_backend.h"
#include "v3d.h"
#include "qa_common.h"
#include "qpu_fakes.h"
#include <gpufft/gpufft.h>
#include <functional>
#include <string>
#include <vector>

namespace qa {

/*!
 * Test programs (qpu_programs.cc), in our QPU syntax (qpu/README.md).
 * doubling: reads (input row, output row) bus address pairs from its
 * uniforms until an input of 0; copies each row of 16 floats, times 2,
 * through the TMU, its own VPM row and a VDW DMA; then raises host_int.
 * endless: a loop that never ends.
 */
const std::vector<std::uint64_t>& doubling_program();
const std::vector<std::uint64_t>& endless_program();
//! doubling's uniforms for rows of 64 bytes: (in, out) pairs, then the end marker.
std::vector<std::uint32_t> doubling_uniforms(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& rows);

} // namespace qa

#endif
