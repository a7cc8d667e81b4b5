// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the plan-time search over kernel shapes.
 *
 * Where it is on, a c2c chain's shape is the fastest of shape_candidates
 * (fft_plan.h) timed on the device itself, on the batch the plan is made for
 * (at most 256 MiB), instead of plan_chain's rules alone. The choice is kept on disk next to the kernel binaries
 * (kernel_cache_dir()/shapes), keyed by the device, its driver, the size,
 * the direction, the layout and shape_candidates_version, so that a later
 * plan reads it instead of timing again. An entry that does not match its
 * key or the candidate list is ignored and rewritten. */
#ifndef GPUFFT_LIB_OPENCL_SHAPE_SEARCH_H
#define GPUFFT_LIB_OPENCL_SHAPE_SEARCH_H

#include "fft_plan.h"

namespace gpufft::opencl::detail {

/*!
 * Whether plans on d search: by default on GPUs (the candidates' kernels
 * build once a device, in the kernel cache; timing them takes a fraction of
 * a second a size), not on CPU devices such as PoCL, where the rules are
 * tuned and each build takes seconds; GPUFFT_OPENCL_SEARCH=0 or 1 decides
 * instead. Throws gpufft::error for another value.
 */
bool shape_search_on(const device_entry& d);

/*!
 * The shape of an n-point c2c chain run on batches of up to max_batch
 * transforms: plan_chain's where the search is off, else the fastest
 * candidate (search_note says which, and whether it was timed or read from
 * the cache). GPUFFT_OPENCL_CANDIDATE=K takes candidate K untimed (to test
 * each one); a K beyond the list throws gpufft::error.
 */
chain_shape searched_chain(device_context& ctx, std::size_t n, direction dir, std::size_t max_batch);

} // namespace gpufft::opencl::detail

#endif
