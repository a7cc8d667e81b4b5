// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: batched FFTs on device buffers, the planner's
 * chains (planner.h) built into kernels, tables and scratch buffers and
 * enqueued.
 *
 * A chain takes an open load and store callback (device_callbacks, as
 * cuFFT's and VkFFT's callbacks): the caller's OpenCL C reads the first
 * pass's input and writes the last pass's output, and input weights (a
 * window) multiply the first load. */
#ifndef GPUFFT_LIB_OPENCL_FFT_PLAN_H
#define GPUFFT_LIB_OPENCL_FFT_PLAN_H

#include "device.h"
#include "planner.h"
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace gpufft::opencl::detail {

//! The open load/store callback on a chain (<gpufft/opencl.h>, as cuFFT's and
//! VkFFT's): the caller's OpenCL C compiled into the first pass (load) and
//! the last pass (store), and input weights multiplying the first load.
using device_callbacks = gpufft::opencl::callbacks;

/*!
 * c with the callbacks on its first load and last store (and the input
 * weights on the first load). Throws gpufft::error for Rader's chain, whose
 * first load and last store are its permutations (plan_chain with rader
 * false).
 */
chain_shape with_callbacks(chain_shape c, const device_callbacks& callbacks);

/*!
 * \brief A planned chain on one device: kernels, tables and scratch for up
 * to max_batch transforms a call. Exported (not installed) for qa_opencl's
 * shapes suite, which builds the plans the planner makes for other devices.
 */
class GPUFFT_API fft_chain
{
public:
    //! `callbacks` as with_callbacks gave them to `shape`; throws
    //! gpufft::error when its input weights are not shape.n.
    fft_chain(device_context& ctx,
              const chain_shape& shape,
              std::size_t max_batch,
              std::size_t in_dist,
              std::size_t out_dist,
              const device_callbacks& callbacks = {});

    //! Enqueues `batch` (<= max_batch) transforms from in to out (may be the
    //! same buffer) in q; does not wait.
    void enqueue(cl_command_queue q, cl_mem in, cl_mem out, std::size_t batch);

    const chain_shape& shape() const { return d_shape; }
    //! Device bytes the chain holds (scratch and tables).
    std::size_t device_bytes() const { return d_device_bytes; }

private:
    struct pass {
        pass_spec spec;
        kernel_handle kernel;
        cl_mem tw = nullptr, tw4 = nullptr, hook_in = nullptr, hook_out = nullptr;
    };
    cl_mem table(const std::string& key, const std::vector<float>& values);
    //! Sets p's kernel arguments (fft_pass.cl's fft_pass).
    static void bind(const pass& p, cl_mem from, cl_mem to, cl_uint nt, cl_uint in_dist,
                     cl_uint out_dist, cl_uint n);
    //! Whether p's kernel launches at its work-group size (fft_plan.cc).
    bool launches(const pass& p);

    device_context& d_ctx;
    chain_shape d_shape;
    std::size_t d_max_batch, d_in_dist, d_out_dist;
    std::vector<pass> d_passes;
    std::map<std::string, mem_handle> d_tables;
    mem_handle d_scratch[2];
    std::size_t d_device_bytes = 0;
};

} // namespace gpufft::opencl::detail

#endif
