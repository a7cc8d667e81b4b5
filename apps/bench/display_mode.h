// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench --display: frames per second of the display pipeline's CPU
 * stages (include/gpufft/display.h) and of the whole pipeline from raw I/Q
 * per backend (include/gpufft/spectrum_display.h). */
#ifndef GPUFFT_BENCH_DISPLAY_MODE_H
#define GPUFFT_BENCH_DISPLAY_MODE_H

#include "common.h"
#include <string>
#include <vector>

namespace gpufft::bench {

//! Times gpufft::display for o.display_sizes, both resample modes, on one
//! thread, then gpufft::spectrum_display on each of `backends` (specs as
//! spectrum_config::backend); prints tables and writes o.json when set.
void run_display_mode(const options& o, const std::vector<std::string>& backends);

} // namespace gpufft::bench

#endif
