/* gpufft-bench --display: frames per second of the display pipeline's CPU
 * stages (include/gpufft/display.h). */
#ifndef GPUFFT_BENCH_DISPLAY_MODE_H
#define GPUFFT_BENCH_DISPLAY_MODE_H

#include "common.h"

namespace gpufft::bench {

//! Times gpufft::display for o.display_sizes, both resample modes, on one
//! thread; prints a table and writes o.json when set.
void run_display_mode(const options& o);

} // namespace gpufft::bench

#endif
