// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-codeletgen: elaboration of small DFTs into the DAG. */
#ifndef GPUFFT_GEN_DFT_H
#define GPUFFT_GEN_DFT_H

#include "emit.h"

#include <string>

namespace cgen {

/*!
 * The n-point DFT, x[k] = sum_j x[j] exp(-+2 pi i jk/n), as a lowered codelet.
 * Every algorithm that applies to n is elaborated (with the best algorithm
 * already found for each smaller size inside it) and the one with the fewest
 * real flops, then fewest primitive calls, is kept.
 */
Codelet best_codelet(int n, bool forward);

//! The algorithm best_codelet chose for n, e.g. "split(16)" or "pfa(3x4)".
std::string best_plan_name(int n, bool forward);

} // namespace cgen

#endif
