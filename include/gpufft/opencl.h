// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the OpenCL backend's device-side interface.
 *
 * gpufft::plan with backend "opencl" takes host buffers like every backend.
 * This header is for programs that keep data on the device (their own OpenCL
 * pipeline, benchmarks of device-resident throughput): it lists devices and
 * plans transforms that run on cl_mem buffers in the plan's queue, with
 * the caller's load and store callbacks if asked. */
#ifndef GPUFFT_OPENCL_H
#define GPUFFT_OPENCL_H

#include <gpufft/api.h>
#include <gpufft/problem.h>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

namespace gpufft::opencl {

//! One OpenCL device as the backend sees it.
struct GPUFFT_API device_info {
    std::size_t index = 0;        //!< position in devices(), what "opencl:<index>" names
    std::string platform;         //!< platform name, e.g. "NVIDIA CUDA", "Portable Computing Language"
    std::string name;             //!< device name
    std::string type;             //!< "gpu", "cpu", "accelerator" or "other"
    std::string version;          //!< device OpenCL version string
    std::string driver;           //!< driver version
    std::size_t global_memory = 0;   //!< bytes
    std::size_t local_memory = 0;    //!< bytes per work-group
    std::size_t max_work_group = 0;  //!< work-items
    unsigned compute_units = 0;
    bool unified_memory = false;  //!< host and device share memory (zero-copy buffers pay off)
};

/*!
 * Every device of every platform, in a stable order. Throws gpufft::error
 * naming the cause when there is no OpenCL loader or no platform.
 */
GPUFFT_API std::vector<device_info> devices();

/*!
 * The device a selector names: "" (GPUFFT_OPENCL_DEVICE if set, else the best
 * GPU, else any device), an index into devices(), or a case-insensitive
 * substring of "platform: name". Throws gpufft::error listing the devices when
 * nothing matches.
 */
GPUFFT_API device_info select_device(const std::string& selector = "");

/*!
 * \brief An open load/store callback on a device_plan, as cuFFT's and VkFFT's
 * callbacks: OpenCL C of the caller's compiled into the plan's first kernel
 * (the load) and its last (the store), so a device pipeline fuses its own
 * stages into the FFT's memory traffic instead of a kernel and a pass
 * through memory each. 1-D c2c plans only (docs/backend-opencl.md).
 */
struct GPUFFT_API callbacks {
    //! OpenCL C defining gpufft_load and/or gpufft_store; compiled before the
    //! FFT's kernel source into the kernels that call them.
    std::string source;
    //! Appended to those kernels' build options, e.g. " -DSCALE=2".
    std::string options;
    //! `float2 gpufft_load(__global const float2* in, uint i)` returns input
    //! element i (in[i] without a callback): i counts float2s from the start
    //! of the buffer given to enqueue, b * distance + j for element j of
    //! transform b. `in` may be cast to another type (e.g. short samples).
    bool load = false;
    //! `void gpufft_store(__global float2* out, uint k, float2 v)` stores
    //! output element k (out[k] = v without a callback), k as i above.
    bool store = false;
    //! Empty, or n real weights: element j of every transform is multiplied
    //! by input_weights[j] as it is loaded (after gpufft_load), e.g. a window.
    std::vector<float> input_weights;
};

/*!
 * \brief A transform planned on one device, run on device buffers.
 *
 * Every kind and rank of gpufft::problem: c2c, r2c and c2r, 1-D to 3-D (and
 * beyond), batched. Multi-dimensional transforms lie back to back (distance
 * 0) and run as row FFTs plus strided column passes or as row FFTs that
 * store transposed, whichever was faster when timed at plan time
 * (describe() says which); every dimension but a real transform's last fits
 * one kernel. Strides are not taken (gpufft::plan takes them).
 *
 * All kernels, twiddles and scratch are made in the constructor (kernel
 * binaries come from the on-disk cache when they can). enqueue() only sets
 * arguments and enqueues kernels in queue(); it does not wait.
 *
 * `tune`, as gpufft::plan_options::tune: a 1-D c2c plan times the plan-time
 * search's kernel shapes on the device and keeps the fastest in the wisdom
 * file, which later plans of the same problem on the same device and driver
 * take without timing (docs/backend-opencl.md). The other problems have no
 * shape to search (multi-dimensional layouts are timed whether or not), nor
 * have plans with callbacks: tune throws gpufft::error for them.
 */
class GPUFFT_API device_plan
{
public:
    explicit device_plan(const problem& p, const std::string& device_selector = "", bool tune = false);
    //! With the caller's load/store callbacks (1-D c2c only; throws
    //! gpufft::error for another problem).
    device_plan(const problem& p,
                const callbacks& cb,
                const std::string& device_selector = "",
                bool tune = false);
    ~device_plan();
    device_plan(const device_plan&) = delete;
    device_plan& operator=(const device_plan&) = delete;

    /*!
     * Transforms p.batch transforms from `in` to `out` (may be the same
     * buffer). c2c: both hold at least p.span() complex floats; r2c: `in`
     * p.real_span() floats, `out` p.span() complex floats; c2r the other way
     * round. `in` is left as it was unless it is `out`.
     */
    void enqueue(cl_mem in, cl_mem out);
    //! The first `batch` (at most p.batch) transforms only, e.g. a stream's
    //! last, shorter block. Odd-N r2c and c2r may still read (write) the
    //! row after the last transform's while it lies in the buffers' p.batch.
    void enqueue(cl_mem in, cl_mem out, std::size_t batch);
    //! Waits for everything enqueued; throws gpufft::error on a device fault.
    void finish();

    cl_context context() const;
    cl_command_queue queue() const;
    const device_info& device() const;
    const gpufft::problem& problem() const;
    //! Device bytes the plan holds (scratch, tables, internal buffers).
    std::size_t device_bytes() const;
    //! One line on the kernels chosen, e.g. "one kernel 8x8x16, 4 transforms a work-group".
    std::string describe() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace gpufft::opencl

#endif
