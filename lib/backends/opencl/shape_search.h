// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the plan-time search over kernel shapes.
 *
 * Where a plan tunes (plan_options::tune), a c2c chain's shape is the
 * fastest of shape_candidates (planner.h) timed on the device itself, on
 * the batch the plan is made for (at most 256 MiB), instead of plan_chain's
 * rules alone. The choice goes to the library's wisdom (lib/core/wisdom.h),
 * keyed by the device, its driver, the size, the direction, the timed batch
 * and shape_candidates_version, so that a later plan that does not tune
 * takes it without timing; a value that names none of the candidates as
 * they are now is ignored. */
#ifndef GPUFFT_LIB_OPENCL_SHAPE_SEARCH_H
#define GPUFFT_LIB_OPENCL_SHAPE_SEARCH_H

#include "fft_plan.h"
#include <memory>
#include <vector>

namespace gpufft::opencl::detail {

/*!
 * The shape of an n-point c2c chain run on batches of up to max_batch
 * transforms: with `tune` the fastest candidate, timed, and kept in the
 * wisdom; without, the wisdom's choice, else plan_chain's. search_note says
 * which candidate and how it was chosen. GPUFFT_OPENCL_PLANNER's search=0
 * takes the rules whatever the plan asks, search=1 times the candidates
 * as if it tuned, candidate=K takes candidate K untimed (to test each one);
 * a K beyond the list throws gpufft::error.
 */
chain_shape searched_chain(device_context& ctx, std::size_t n, direction dir, std::size_t max_batch, bool tune);

/*!
 * fft_chains of `shapes` for batches of up to max_batch transforms `dist`
 * points apart, built on as many threads as the host has cores; a null
 * entry for a shape the device's compiler or limits refuse (gpufft::error),
 * any other exception rethrown. Exported for qa_opencl, which builds every
 * candidate of many sizes so.
 */
GPUFFT_API std::vector<std::unique_ptr<fft_chain>> build_chains(device_context& ctx,
                                                                const std::vector<chain_shape>& shapes,
                                                                std::size_t max_batch,
                                                                std::size_t dist);

} // namespace gpufft::opencl::detail

#endif
