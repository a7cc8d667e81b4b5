// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft tests: the OpenCL planner's plans for every device preset
 * (lib/backends/opencl/device_limits.h) at the sizes whose rules the tests
 * check: qa_opencl_planner checks the rules on them without a device, and
 * qa_opencl's opencl_shapes builds each distinct one and checks it against
 * FFTW double. */
#ifndef GPUFFT_QA_OPENCL_PLAN_TABLE_H
#define GPUFFT_QA_OPENCL_PLAN_TABLE_H

#include "planner.h"
#include <string>
#include <vector>

namespace qa {

//! A device preset with knobs: what a plan is made for.
struct plan_target {
    std::string name; //!< the preset's, and the knobs that differ
    gpufft::opencl::detail::device_limits limits;
};

/*!
 * Every preset with the rules' knobs; each again with rader 2 (every prime
 * whose p - 1 has stages); an H100 with the register mode from 4097 points
 * and odd_shapes 2.
 */
std::vector<plan_target> plan_targets();

//! The sizes of the rules: the register mode, one transform a group, odd
//! and composite radices, grouped columns, large prime radices and Rader.
const std::vector<std::size_t>& rule_sizes();

//! The sizes whose every search candidate is built (one point, the
//! smallest one-kernel shapes, mixed radices, the register mode, two-pass
//! splits).
const std::vector<std::size_t>& candidate_sizes();

//! One plan of the table and what it was made for.
struct planned {
    std::string target;
    gpufft::opencl::detail::device_limits limits;
    gpufft::opencl::detail::chain_shape shape;
    //! Which search candidate it is (0: the rules' plan).
    std::size_t candidate = 0;
};

/*!
 * The rules' plans of rule_sizes() for every plan_targets() (forward, and
 * inverse where the plan is a convolution), and every search candidate
 * (forward) of candidate_sizes() for every preset.
 */
std::vector<planned> plan_table();

//! Every field of a shape that reaches its kernels and tables: equal keys,
//! the same transform.
std::string shape_key(const gpufft::opencl::detail::chain_shape& c);

/*!
 * What a shape's kernels exercise, as traits: the chain's kind (a
 * convolution, Rader, how many passes); each pass's kind (the register
 * mode, the local-memory pad, the fused convolution, column loads and
 * stores, twiddles, hooks, Rader's slot, the sign, whether every stage's
 * butterflies split evenly over the work-items, several transforms a
 * work-group, several a batch entry); each radix it takes (in local memory
 * or in the register mode). opencl_shapes builds the plans that bring a
 * trait no plan before them brought.
 */
std::vector<std::string> shape_traits(const gpufft::opencl::detail::chain_shape& c);

} // namespace qa

#endif
