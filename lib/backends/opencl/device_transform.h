// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: any problem (c2c, r2c, c2r; any rank; batched)
 * on device buffers. What gpufft::opencl::device_plan runs, and what
 * real_executor runs between its copies.
 *
 *   c2c, rank 1: one chain (the plan-time search's shape, or plan_chain's
 *     with the caller's load/store callbacks), over the problem's distance.
 *   c2c, rank > 1: fft_plan.h's two layouts (strided column passes, or row
 *     FFTs that store transposed), each timed at plan time and the faster
 *     kept; the first step reads `in`, the others work in place on `out`.
 *   r2c: the rows along the last axis as a half-size complex chain (even N)
 *     or as pairs of rows (odd N) into an internal buffer, then a pass of
 *     kernels/real_pass.cl into `out`, then strided column passes in place
 *     on `out` (rank > 1). Where the real rows are not float2-packed (odd N,
 *     gaps between transforms) the chain's first load reads them through a
 *     load callback, so no copy pass is needed.
 *   c2r: the column passes from `in` into an internal buffer (so `in` is
 *     left as it was), the real pass, the row chain into `out` (through a
 *     store callback where the real rows are not float2-packed).
 *
 * Multi-dimensional problems take packed transforms (distance 0 or the
 * extent); every dimension but a real problem's last must fit one kernel
 * (multi_dim_unsupported). */
#ifndef GPUFFT_LIB_OPENCL_DEVICE_TRANSFORM_H
#define GPUFFT_LIB_OPENCL_DEVICE_TRANSFORM_H

#include "fft_plan.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpufft::opencl::detail {

//! A read-write device buffer of `bytes` (at least 8), or a read-only one
//! holding a copy of `init`.
GPUFFT_API mem_handle make_buffer(device_context& ctx, std::size_t bytes, const void* init = nullptr);

//! The median of 5 runs of `run` (which enqueues into q) after a warm-up, in
//! milliseconds of wall time to clFinish.
double median_run_ms(cl_command_queue q, const std::function<void()>& run);

/*!
 * fft_plan.h's multi-dimensional layouts, strided then transposed, as
 * describe() names the one kept: "transposing passes (kept: strided column
 * passes 0.5 ms, transposing passes 0.4 ms for 137 transforms)".
 */
std::string layout_note(const std::vector<double>& ms, std::size_t kept, std::size_t transforms);

//! Exported (not installed) for qa_opencl, which checks twin() directly.
class GPUFFT_API device_transform
{
public:
    /*!
     * Kernels, tables and internal buffers for up to p.batch transforms a
     * call. `callbacks` (1-D c2c only) go on the first load and the last
     * store. Multi-dimensional c2c layouts are timed in `timing_queue`.
     * `tune` (1-D c2c without callbacks only: the one chain whose shape is
     * searched) times the search's candidates (shape_search.h).
     * Throws gpufft::error naming what p asks that cannot be planned.
     */
    device_transform(device_context& ctx,
                     const problem& p,
                     cl_command_queue timing_queue,
                     const device_callbacks& callbacks = {},
                     bool tune = false);

    /*!
     * Another transform of the same problem on the same context, with the
     * chains this one chose and no search or timing: one for each queue
     * that runs the problem at once (host_executor's slots).
     */
    std::unique_ptr<device_transform> twin() const;

    /*!
     * Enqueues `batch` (<= problem().batch) transforms from in to out (may be
     * the same buffer) in q; does not wait. Odd-N real problems read (r2c) or
     * write (c2r) the rows of all problem().batch transforms' pairs: the
     * buffers must hold them.
     */
    void enqueue(cl_command_queue q, cl_mem in, cl_mem out, std::size_t batch);

    const problem& get_problem() const { return d_problem; }
    //! The chains and passes, e.g. "strided column passes (...): ... then ...".
    std::string describe() const;
    //! Device bytes the chains and internal buffers hold.
    std::size_t device_bytes() const;
    //! The first chain's shape (1-D c2c: the whole transform).
    const chain_shape& first_shape() const { return d_steps.front().chain->shape(); }

    //! Why p cannot run on device buffers on d, or empty.
    static std::string unsupported(const device_entry& d, const problem& p);

private:
    //! A chain and how many times a transform it runs (see axis_chain).
    struct step {
        std::unique_ptr<fft_chain> chain;
        std::size_t entries = 1;
    };
    struct twin_of {
        const device_transform& like;
    };
    explicit device_transform(twin_of t);
    std::vector<step> make_steps(const std::vector<axis_chain>& layout, std::size_t batch) const;
    void plan_c2c_layouts(cl_command_queue timing_queue);
    void plan_real();
    void enqueue_real_pass(cl_command_queue q, cl_mem from, cl_mem to, std::size_t batch);

    device_context& d_ctx;
    problem d_problem;
    device_callbacks d_callbacks;      //!< 1-D c2c: on the chain's first load and last store
    std::string d_layout;              //!< multi-dimensional c2c: the layout kept and the timings
    std::vector<axis_chain> d_chosen;  //!< c2c: what d_steps are built from (twin() builds them again)
    std::vector<step> d_steps;         //!< c2c: every step; real: the column passes
    // Real problems.
    std::unique_ptr<fft_chain> d_rows; //!< the row chain
    std::size_t d_n = 0;               //!< the last dimension, in reals
    std::size_t d_per = 1;             //!< rows a transform
    bool d_odd = false;
    kernel_handle d_pass;
    mem_handle d_real;              //!< the row chain's complex rows
    mem_handle d_columns;           //!< c2r, rank > 1: the column passes' output
    mem_handle d_twiddles;          //!< even N: w^k, k <= N/4
    std::size_t d_buffer_bytes = 0; //!< d_real's and d_columns'
};

} // namespace gpufft::opencl::detail

#endif
