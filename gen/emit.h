// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-codeletgen: lowering to the primitives, operation counts, C++ output. */
#ifndef GPUFFT_GEN_EMIT_H
#define GPUFFT_GEN_EMIT_H

#include "dag.h"

#include <ostream>
#include <vector>

namespace cgen {

//! One straight-line n-point transform: out[k] is the node stored to x[k].
struct Codelet {
    int n = 0;
    bool forward = true;
    Dag dag;
    std::vector<int> out;
    std::vector<int> order; // a schedule: nodes in the order elaboration made them
};

//! Primitive calls in a codelet, and what they cost in real flops.
struct Counts {
    int add = 0, scale = 0, fma = 0, muli = 0, cmul = 0;
    int real_adds() const { return 2 * add + 2 * fma + 2 * cmul; }
    int real_muls() const { return 2 * scale + 2 * fma + 4 * cmul; }
    int calls() const { return add + scale + fma + muli + cmul; }
};

/*!
 * The codelet computing the outputs `out` of `d`, with only the nodes they
 * reach (dead code gone) and every vscale that feeds a single vadd/vsub fused
 * into a vfmadd/vfnmadd. A vscale used more than once stays shared: fusing it
 * would repeat the multiplication.
 */
Codelet lower(const Dag& d, const std::vector<int>& out, int n, bool forward);

Counts count(const Codelet& c);

//! The n1<n, forward> specialization, one SSA statement per node.
void emit(std::ostream& os, const Codelet& c);

} // namespace cgen

#endif
