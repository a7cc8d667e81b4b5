// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the OpenCL backend's device-side interface.
 *
 * gpufft::plan with backend "opencl" takes host buffers like every backend.
 * This header is for programs that keep data on the device (their own OpenCL
 * pipeline, benchmarks of device-resident throughput): it lists devices and
 * plans transforms that run on cl_mem buffers in the plan's queue. */
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
 * \brief A transform planned on one device, run on device buffers.
 *
 * All kernels, twiddles and scratch are made in the constructor (kernel
 * binaries come from the on-disk cache when they can). enqueue() only sets
 * arguments and enqueues kernels in queue(); it does not wait.
 */
class GPUFFT_API device_plan
{
public:
    explicit device_plan(const problem& p, const std::string& device_selector = "");
    ~device_plan();
    device_plan(const device_plan&) = delete;
    device_plan& operator=(const device_plan&) = delete;

    //! Transforms p.batch vectors from `in` to `out` (may be the same buffer);
    //! both hold at least p.span() complex floats.
    void enqueue(cl_mem in, cl_mem out);
    //! Waits for everything enqueued; throws gpufft::error on a device fault.
    void finish();

    cl_context context() const;
    cl_command_queue queue() const;
    const device_info& device() const;
    const gpufft::problem& problem() const;
    //! One line on the kernels chosen, e.g. "one kernel 8x8x16, 4 transforms a work-group".
    std::string describe() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace gpufft::opencl

#endif
