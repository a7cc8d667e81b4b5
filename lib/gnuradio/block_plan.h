// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: what the FFT blocks share when they make their
 * plans (internal). */
#ifndef GPUFFT_LIB_GNURADIO_BLOCK_PLAN_H
#define GPUFFT_LIB_GNURADIO_BLOCK_PLAN_H

#include <gpufft/error.h>
#include <gpufft/plan.h>
#include <cstddef>
#include <string>
#include <vector>

namespace gr::gpufft::detail {

//! v, if at least 1; else an error naming the block and the parameter.
inline int checked_positive(const std::string& block, int v, const char* what)
{
    if (v < 1)
        throw ::gpufft::error("gpufft." + block + ": " + what + " must be >= 1 (got " + std::to_string(v) + ")");
    return v;
}

//! `batch` transforms of n points, each input point times its weight (none
//! if empty), tuned if asked (plan_options::tune); a plan that cannot be
//! made names the block and the backend.
inline ::gpufft::plan block_plan(const std::string& block,
                                 std::size_t n,
                                 bool forward,
                                 std::size_t batch,
                                 int threads,
                                 const std::string& backend,
                                 const std::vector<float>& weights = {},
                                 bool tune = false)
{
    ::gpufft::problem p;
    p.n = n;
    p.dir = forward ? ::gpufft::direction::forward : ::gpufft::direction::inverse;
    p.batch = batch;
    ::gpufft::plan_options o;
    o.backend = backend;
    o.threads = unsigned(threads);
    o.input_weights = weights;
    o.tune = tune;
    try {
        return ::gpufft::plan(p, o);
    } catch (const ::gpufft::error& e) {
        throw ::gpufft::error("gpufft." + block + ": backend \"" + backend + "\": " + e.what());
    }
}

} // namespace gr::gpufft::detail

#endif
