// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the planner, (device limits, problem) -> the
 * shape of a chain of kernel passes (kernels/fft_pass.cl), with no OpenCL
 * runtime, so that every device's plans are made and checked anywhere
 * (device_limits.h has presets); fft_plan.h builds and runs them.
 *
 *   - one pass when the transform fits in a work-group's local memory;
 *   - one pass in registers when it does not but the work-group's
 *     work-items hold it (at most 32 points each), exchanging between
 *     stages through local memory in chunks: powers of two to 16384 and,
 *     with the knobs' register_rounds, every size to 32768 in at most four
 *     stages of radices that the work-items' registers hold;
 *   - two passes (four-step) above that: N1-point column FFTs with the
 *     twiddles fused into their store, then N2-point row FFTs that store
 *     the transposed result;
 *   - Bluestein for sizes with a prime factor above 47 (31 on devices of
 *     few registers; planner.cc, dft_radix_cap): the chirp multiply
 *     and zero padding fused into the load of an m-point forward FFT,
 *     the kernel spectrum into the load of the inverse FFT, the chirp into
 *     its store; where m takes two passes, three: forward columns, the
 *     rows forward, times the spectrum and inverse in one kernel, inverse
 *     columns.
 *   - Rader for primes n whose n - 1 has stages here (and takes no more
 *     points through device memory than Bluestein's m): the same passes
 *     on n - 1 points, the input gathered by powers of a generator in the
 *     first load and the result scattered by its inverse powers in the
 *     last store.
 *
 * A pass is a pass_spec. */
#ifndef GPUFFT_LIB_OPENCL_PLANNER_H
#define GPUFFT_LIB_OPENCL_PLANNER_H

#include "device_limits.h"
#include <gpufft/problem.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpufft::opencl::detail {

//! The buffers a pass reads and writes.
enum class buffer_slot { in,
                         out,
                         scratch0,
                         scratch1 };

//! What fused into a pass's load or store (LOAD_HOOK / STORE_HOOK in fft_pass.cl).
//! chirp and spectrum are Bluestein's, gather and scatter Rader's
//! permutations; weights the input weights of device_callbacks.
enum class load_hook { none = 0,
                       chirp = 1,
                       spectrum = 2,
                       weights = 3,
                       gather = 4 };
enum class store_hook { none = 0,
                        chirp = 1,
                        scatter = 2 };
//! How a pass hands on Rader's x0 and X[0] (fft_pass.cl's RADER); whole:
//! the pass is the whole convolution and writes X[0] itself.
enum class rader_slot { none = 0,
                        keep_x0 = 1,
                        sum = 2,
                        emit = 3,
                        whole = 4 };

//! One kernel launch: `tpb` transforms of n points per batch entry.
struct pass_spec {
    std::size_t n = 1;
    int sign = -1;
    std::vector<std::size_t> radices;
    std::size_t tt = 1; //!< work-items per transform
    std::size_t g = 1;  //!< transforms per work-group
    std::size_t tpb = 1;
    //! 0: the transform sits in local memory whole; else the register mode
    //! (fft_pass.cl's XCHG): elements a local-memory exchange round.
    std::size_t xchg = 0;
    //! Local memory padded against bank conflicts (fft_pass.cl's LDS_PAD).
    bool lds_pad = true;
    //! Bluestein's fused middle pass (fft_pass.cl's CONVOLVE).
    bool convolve = false;
    buffer_slot from = buffer_slot::in, to = buffer_slot::out;
    //! Elements between batch entries in scratch slots (user slots use the
    //! chain's distances).
    std::size_t from_dist = 0, to_dist = 0;
    std::size_t in_cstr = 0, in_estr = 1, out_cstr = 0, out_estr = 1;
    bool map_cols = false, store_cols = false;
    std::size_t twiddle_n = 0;
    load_hook load = load_hook::none;
    store_hook store = store_hook::none;
    //! The input read, the output written through device_callbacks
    //! (fft_pass.cl's LOAD_CALLBACK, STORE_CALLBACK).
    bool load_callback = false, store_callback = false;
    rader_slot rader = rader_slot::none;
    //! Element j of the logical transform is c * jc + e * je.
    std::size_t in_jc = 0, in_je = 1, out_jc = 0, out_je = 1;
};

//! The passes for one transform size on one device, before any buffer exists.
struct chain_shape {
    std::size_t n = 0;
    direction dir = direction::forward;
    std::vector<pass_spec> passes;
    std::size_t scratch_points[2] = { 0, 0 }; //!< per transform
    //! The convolution's length (Bluestein's m, or Rader's n - 1), else 0.
    std::size_t convolution_m = 0;
    std::size_t rader_generator = 0; //!< 0 unless Rader
    //! How the plan-time search chose this shape (shape_search.h), or empty.
    std::string search_note;
    std::string describe() const;
};

/*!
 * Plans the passes for n points on a device (no OpenCL calls). Throws
 * gpufft::error when n is beyond what two passes reach. rader false:
 * Bluestein for every prime (with_callbacks puts callbacks on the first load
 * and last store, which hold Rader's permutations).
 */
GPUFFT_API chain_shape plan_chain(const device_limits& d, std::size_t n, direction dir, bool rader = true);

/*!
 * The shapes the plan-time search times for an n-point c2c chain, plan_chain's
 * first: a one-kernel pass's work-items a transform and transforms a group
 * around plan_chain's, its hand-written radices where plan_chain's are
 * composite (codelets.h), and the fewest stages of radices up to 16 with a
 * butterfly of the largest a work-item; above 4096 points a few four-step
 * splits, and the register mode at powers of two and where local memory
 * falls short up to 8192 points. Each respects d's local memory and
 * work-group limits. Bluestein and Rader sizes have plan_chain's only. Bump
 * shape_candidates_version when the list or the kernels' speed changes, so
 * that cached choices are not read against another list or stale timings
 * (6: the fewest stages of radices up to 16; 7: twiddles multiplied from
 * fewer loads, fft_pass.cl's APPLY_TWIDDLES; 8: the rules' plan one pass in
 * rounds up to 32768 points, planner_knobs' register_rounds).
 */
std::vector<chain_shape> shape_candidates(const device_limits& d, std::size_t n, direction dir);
constexpr int shape_candidates_version = 9;

/*!
 * Why the kernels cannot run c on d (a pass whose radices do not make its
 * points or have no butterfly there, a work-group or local memory beyond d's,
 * a scratch buffer the chain lacks...), or empty: what every plan_chain and
 * shape_candidates shape must pass; fft_chain refuses the others.
 */
std::string shape_fault(const device_limits& d, const chain_shape& c);

/*!
 * A chain run `entries` times a batch entry, entries `dist` points apart:
 * one step of a multi-dimensional plan.
 */
struct axis_chain {
    chain_shape shape;
    std::size_t entries = 1;
    std::size_t dist = 0;
};

/*!
 * Multi-dimensional c2c on a packed row-major array, two ways (timed
 * per shape at plan time; device_transform keeps the faster):
 *
 *   strided: a one-pass chain per axis, each in place: the contiguous last
 *     axis's rows, then every other axis as a column pass whose
 *     neighbouring work-items take neighbouring columns, so each load and
 *     store of a group covers consecutive addresses;
 *   transposed: one chain of rank passes, each FFTing the contiguous last
 *     axis and storing its result transposed through local memory, which
 *     rotates the axes (z, y, x) -> (x, z, y) -> (y, x, z) -> (z, y, x):
 *     every load is a contiguous row (the row FFTs plus transposes of the
 *     3-D FFT papers), at the cost of scratch buffers.
 *
 * Every dimension must fit one kernel (multi_dim_unsupported says why not).
 */
//! rows false: every axis but the last (its rows are planned otherwise).
std::vector<axis_chain> plan_strided(const device_limits& d, const std::vector<std::size_t>& dims,
                                     direction dir, bool rows = true);
std::vector<axis_chain> plan_transposed(const device_limits& d,
                                        const std::vector<std::size_t>& dims,
                                        direction dir);
//! Why dims cannot be planned on d as above, or empty.
std::string multi_dim_unsupported(const device_limits& d, const std::vector<std::size_t>& dims);

//! Where a pass may take composite radices (planner.cc,
//! composite_min_saving): in a one-kernel plan, in a pass of a two-pass
//! plan (fewer stages saved are enough), or nowhere.
enum class composites { one_kernel,
                        two_pass,
                        none };

//! The radices of n's Stockham stages: powers of two to 16, 3, 5, 7 and the
//! composite radices of codelets.h (where `use` allows them and they save
//! enough stages), then the primes 11..47; empty if n has a prime factor
//! above 47 (a device may take fewer: planner.cc, dft_radix_cap).
std::vector<std::size_t> radices_for(const device_limits& d, std::size_t n,
                                     composites use = composites::one_kernel);

//! Whether a stage of radix r is a direct DFT (the primes 11 to 47).
bool has_dft_radix(std::size_t r);
//! Radices as "8x4x3".
std::string radices_text(const std::vector<std::size_t>& r);

} // namespace gpufft::opencl::detail

#endif
