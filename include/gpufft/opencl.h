// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the OpenCL backend's device-side interface.
 *
 * gpufft::plan with backend "opencl" takes host buffers like every backend.
 * This header is for programs that keep data on the device (their own OpenCL
 * pipeline, benchmarks of device-resident throughput): it lists devices and
 * plans transforms that run on cl_mem buffers in the plan's queue, with
 * the caller's load and store callbacks if asked, and lends such a pipeline
 * the library's OpenCL runtime (the entry points it loaded, owning handles,
 * programs through its kernel cache) for the kernels of its own. */
#ifndef GPUFFT_OPENCL_H
#define GPUFFT_OPENCL_H

#include <gpufft/api.h>
#include <gpufft/problem.h>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
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
    std::size_t max_buffer = 0;      //!< bytes, the largest one buffer may have
    std::size_t local_memory = 0;    //!< bytes per work-group
    std::size_t max_work_group = 0;  //!< work-items
    unsigned compute_units = 0;
    bool unified_memory = false;  //!< host and device share memory (zero-copy buffers pay off)
    cl_device_id id = nullptr;    //!< the OpenCL device, valid for the life of the process

    //! "platform: name", what a selector's substring is matched against.
    std::string label() const { return platform + ": " + name; }
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

// The OpenCL 1.2 entry points of `functions`, X(name) each.
#define GPUFFT_OPENCL_FUNCTIONS(X)  \
    X(clGetPlatformIDs)             \
    X(clGetPlatformInfo)            \
    X(clGetDeviceIDs)               \
    X(clGetDeviceInfo)              \
    X(clCreateContext)              \
    X(clReleaseContext)             \
    X(clCreateCommandQueue)         \
    X(clReleaseCommandQueue)        \
    X(clCreateBuffer)               \
    X(clReleaseMemObject)           \
    X(clCreateProgramWithSource)    \
    X(clCreateProgramWithBinary)    \
    X(clBuildProgram)               \
    X(clGetProgramInfo)             \
    X(clGetProgramBuildInfo)        \
    X(clReleaseProgram)             \
    X(clRetainProgram)              \
    X(clCreateKernel)               \
    X(clReleaseKernel)              \
    X(clSetKernelArg)               \
    X(clGetKernelWorkGroupInfo)     \
    X(clEnqueueNDRangeKernel)       \
    X(clEnqueueWriteBuffer)         \
    X(clEnqueueReadBuffer)          \
    X(clEnqueueMapBuffer)           \
    X(clEnqueueUnmapMemObject)      \
    X(clEnqueueFillBuffer)          \
    X(clEnqueueBarrierWithWaitList) \
    X(clFlush)                      \
    X(clFinish)                     \
    X(clWaitForEvents)              \
    X(clReleaseEvent)               \
    X(clGetEventProfilingInfo)

/*!
 * \brief The OpenCL entry points the library loaded, one member a function
 * of the same name.
 *
 * libgpufft links no OpenCL library: it opens the ICD loader (libOpenCL.so.1,
 * then libOpenCL.so, or the file GPUFFT_OPENCL_LOADER names) on first use,
 * so that it loads and runs where OpenCL is missing. A device pipeline
 * around a device_plan calls OpenCL through this table for the same reason.
 */
struct functions {
#define GPUFFT_OPENCL_MEMBER(name) decltype(&::name) name = nullptr;
    GPUFFT_OPENCL_FUNCTIONS(GPUFFT_OPENCL_MEMBER)
#undef GPUFFT_OPENCL_MEMBER
};

//! The loaded entry points; throws gpufft::error naming the cause when
//! there is no usable loader. Loaded once, thread-safely.
GPUFFT_API const functions& runtime();

//! Throws gpufft::error "gpufft: opencl: <call> failed: <error name>"
//! unless err is CL_SUCCESS.
GPUFFT_API void check(cl_int err, const char* call);

namespace detail {
// How a handle drops its reference, per object type.
template <class T>
struct release;
template <>
struct release<cl_mem> {
    static void run(cl_mem h) { runtime().clReleaseMemObject(h); }
};
template <>
struct release<cl_kernel> {
    static void run(cl_kernel h) { runtime().clReleaseKernel(h); }
};
template <>
struct release<cl_program> {
    static void run(cl_program h) { runtime().clReleaseProgram(h); }
};
template <>
struct release<cl_command_queue> {
    static void run(cl_command_queue h) { runtime().clReleaseCommandQueue(h); }
};
template <>
struct release<cl_context> {
    static void run(cl_context h) { runtime().clReleaseContext(h); }
};
template <>
struct release<cl_event> {
    static void run(cl_event h) { runtime().clReleaseEvent(h); }
};
} // namespace detail

//! Owns one reference to an OpenCL object (released through runtime()); move-only.
template <class T>
class handle
{
public:
    handle() = default;
    explicit handle(T h) : d_h(h) {}
    ~handle() { reset(); }
    handle(handle&& o) noexcept : d_h(std::exchange(o.d_h, nullptr)) {}
    handle& operator=(handle&& o) noexcept
    {
        if (this != &o) {
            reset();
            d_h = std::exchange(o.d_h, nullptr);
        }
        return *this;
    }
    handle(const handle&) = delete;
    handle& operator=(const handle&) = delete;

    T get() const { return d_h; }
    //! Where an OpenCL call that returns the object through a pointer writes it.
    T* out()
    {
        reset();
        return &d_h;
    }
    void reset(T h = nullptr)
    {
        if (d_h)
            detail::release<T>::run(d_h);
        d_h = h;
    }

private:
    T d_h = nullptr;
};

using mem_handle = handle<cl_mem>;
using kernel_handle = handle<cl_kernel>;
using program_handle = handle<cl_program>;
using queue_handle = handle<cl_command_queue>;
using context_handle = handle<cl_context>;
using event_handle = handle<cl_event>;

/*!
 * A new in-order queue on `device` (one of devices()), in the context every
 * device_plan on it shares, so that its commands may use those plans'
 * buffers and wait for their events. Throws gpufft::error when the device
 * is not one of devices() or the queue cannot be made.
 */
GPUFFT_API queue_handle make_queue(const device_info& device);

/*!
 * A program built from OpenCL C `source` with build `options` for `device`
 * (one of devices()), in the context its device_plans share, through the
 * library's program cache: built once a process, its binary kept in the
 * kernel cache on disk (docs/backend-opencl.md). Throws gpufft::error
 * quoting the first lines of the build log when the source does not build,
 * or when the device is not one of devices().
 */
GPUFFT_API program_handle build_program(const device_info& device, const std::string& source,
                                        const std::string& options);

//! The kernel `name` of a built program; throws gpufft::error when it has none.
GPUFFT_API kernel_handle make_kernel(cl_program program, const char* name);

} // namespace gpufft::opencl

#endif
