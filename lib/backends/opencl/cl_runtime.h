// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the ICD loader, opened at run time.
 *
 * The library links no OpenCL library: it dlopens libOpenCL.so.1 (then
 * libOpenCL.so) on first use and calls through this table, so it loads and
 * runs on machines without OpenCL. */
#ifndef GPUFFT_LIB_OPENCL_CL_RUNTIME_H
#define GPUFFT_LIB_OPENCL_CL_RUNTIME_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <gpufft/api.h>
#include <string>

namespace gpufft::opencl::detail {

// Every entry point the backend calls: X(name).
#define GPUFFT_CL_FUNCTIONS(X)      \
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

struct cl_api {
#define GPUFFT_CL_MEMBER(name) decltype(&::name) name = nullptr;
    GPUFFT_CL_FUNCTIONS(GPUFFT_CL_MEMBER)
#undef GPUFFT_CL_MEMBER
};

/*!
 * The loaded entry points, or nullptr when there is no usable loader;
 * load_failure() then says why. Loaded once, thread-safely.
 */
// Exported from libgpufft for the spectrum layer's device pipelines
// (lib/spectrum/opencl/); not installed, not a public interface.
GPUFFT_API const cl_api* api();
const std::string& load_failure();

//! The entry points; throws gpufft::error naming the cause without them.
const cl_api& need_api();

//! "CL_OUT_OF_RESOURCES" for -5, "CL error -9999" for unknown codes.
std::string error_name(cl_int err);

//! Throws gpufft::error "gpufft: opencl: <call> failed: <error name>" unless
//! err is CL_SUCCESS.
GPUFFT_API void check(cl_int err, const char* call);

} // namespace gpufft::opencl::detail

#endif
