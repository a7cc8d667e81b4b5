// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: choosing an algorithm for a size (internal). */
#ifndef GPUFFT_LIB_SIMD_PLANNER_H
#define GPUFFT_LIB_SIMD_PLANNER_H

#include "isa_table.h"
#include <cstddef>
#include <memory>
#include <vector>

namespace gpufft::simd {

//! How sizes are split into passes; plans use `automatic`, tuning tries the others.
enum class pass_style {
    automatic, //!< modelled where the set has pass costs, else largest (radix8_16 with
               //!< few_registers); radix8 beyond the L2 cache
    largest,   //!< radix 16 and 32 passes, largest first
    radix8,    //!< radix 8 passes: smaller codelets, more passes
    radix8_16, //!< radix 8 passes, a leftover 2 or 4 folded into radix 16 ones
    ascending, //!< as largest, smallest radix first
    modelled,  //!< the passes of least total cost by isa_kernels::pass_costs (largest without)
};
constexpr pass_style all_pass_styles[] = { pass_style::largest, pass_style::radix8,
                                           pass_style::radix8_16, pass_style::ascending,
                                           pass_style::modelled };

//! Radices of the Stockham passes for m, or empty if m has a prime factor
//! too large for a pass (see max_generic_radix).
std::vector<int> factor_passes(std::size_t m, const isa_kernels& isa, pass_style style);

//! Column length for the four-step scheme (see four_step.h), 0 if n has none.
std::size_t four_step_split(std::size_t n, const isa_kernels& isa);

/*!
 * A transform for n on the widest of the given instruction sets (widest first)
 * whose lane count divides n; sizes with large prime factors go through
 * Rader (primes p whose p - 1 has codelet factors) or Bluestein on the
 * widest one. `batch` is how many transforms a run() call
 * will usually get: batches that fill the lanes of small sizes run one
 * transform per lane (lane_batch.h). `weights`, empty or n of them, multiply
 * the input points in the pass that first reads them
 * (plan_options::input_weights).
 */
std::unique_ptr<transform> make_transform(const std::vector<const isa_kernels*>& isas,
                                          std::size_t n,
                                          bool forward,
                                          pass_style style = pass_style::automatic,
                                          std::size_t batch = 1,
                                          const std::vector<float>& weights = {});

} // namespace gpufft::simd

#endif
