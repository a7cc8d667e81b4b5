// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench --device-resident: the FFT engines timed on device buffers
 * (gpufft's device_plan, clFFT, VkFFT, cuFFT) behind one interface. */
#ifndef GPUFFT_BENCH_ENGINES_H
#define GPUFFT_BENCH_ENGINES_H

#include "common.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace gpufft::bench {

//! Owning handles for OpenCL objects.
struct cl_release {
    void operator()(cl_mem m) const { clReleaseMemObject(m); }
    void operator()(cl_command_queue q) const { clReleaseCommandQueue(q); }
    void operator()(cl_context c) const { clReleaseContext(c); }
};
template <typename Handle>
using cl_ptr = std::unique_ptr<std::remove_pointer_t<Handle>, cl_release>;

//! Throws std::runtime_error naming `what` and the code unless err is CL_SUCCESS.
void cl_check(cl_int err, const char* what);

/*!
 * The buffers of one size on one OpenCL device: `inputs` input buffers and
 * one output, `span` complex floats each, shared by every OpenCL engine of
 * that size. The context and queue belong to the caller.
 */
class cl_buffers
{
public:
    cl_buffers(cl_context context, cl_command_queue queue, std::size_t span, std::size_t inputs);
    cl_buffers(const cl_buffers&) = delete;
    cl_buffers& operator=(const cl_buffers&) = delete;

    void upload(std::size_t slot, const cf* host);
    void poison_output(); //!< NaN everywhere, so an unwritten element shows
    void download(cf* host);

    cl_context context;
    cl_command_queue queue;
    std::size_t span;
    std::vector<cl_mem> in; //!< owned, released with `out`
    cl_mem out = nullptr;

private:
    std::vector<cl_ptr<cl_mem>> d_owned;
};

//! One library's batched transform (forward c2c or r2c, or c2r), out of
//! place, on its device's buffers.
class device_engine
{
public:
    virtual ~device_engine() = default;
    virtual std::string name() const = 0;     //!< "gpufft", "clFFT", "VkFFT", "cuFFT"
    virtual std::string describe() const = 0; //!< library version, algorithm, device
    //! Copies a call's input (at most span complex floats) from `host` into
    //! input buffer `slot`.
    virtual void upload(std::size_t slot, const cf* host) = 0;
    virtual void poison_output() = 0;
    //! Copies a call's whole output to `host`.
    virtual void download(cf* host) = 0;
    //! Starts one transform of the whole batch from input `slot`; does not wait.
    virtual void run(std::size_t slot) = 0;
    //! Waits for every transform started.
    virtual void finish() = 0;
    //! Runs `calls` transforms back to back, input slots 0, 1, ... modulo
    //! `inputs`, and returns the nanoseconds they took (host clock around
    //! the calls and one finish(), unless the engine has device timers).
    virtual double time_calls(std::size_t calls, std::size_t inputs);
};

//! An engine on shared cl_buffers.
class cl_engine : public device_engine
{
public:
    explicit cl_engine(cl_buffers& buffers) : d_buffers(buffers) {}
    void upload(std::size_t slot, const cf* host) override { d_buffers.upload(slot, host); }
    void poison_output() override { d_buffers.poison_output(); }
    void download(cf* host) override { d_buffers.download(host); }
    void finish() override;

protected:
    cl_buffers& d_buffers;
};

// Each throws std::runtime_error naming the library's error when planning fails.
std::unique_ptr<device_engine>
make_clfft_engine(cl_buffers& buffers, std::size_t n, std::size_t batch);
//! p's kind and shape (rank 1 to 3), packed.
std::unique_ptr<device_engine>
make_vkfft_engine(cl_buffers& buffers, cl_device_id device, const gpufft::problem& p);
//! p's kind and shape, packed, on its own CUDA buffers on CUDA device 0;
//! timed with CUDA events.
std::unique_ptr<device_engine> make_cufft_engine(const gpufft::problem& p, std::size_t inputs);

} // namespace gpufft::bench

#endif
