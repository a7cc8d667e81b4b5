// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: owning handles for OpenCL objects. */
#ifndef GPUFFT_LIB_OPENCL_CL_HANDLE_H
#define GPUFFT_LIB_OPENCL_CL_HANDLE_H

#include "cl_runtime.h"
#include <utility>

namespace gpufft::opencl::detail {

template <class T>
struct cl_release;
template <>
struct cl_release<cl_mem> {
    static void run(cl_mem h) { api()->clReleaseMemObject(h); }
};
template <>
struct cl_release<cl_kernel> {
    static void run(cl_kernel h) { api()->clReleaseKernel(h); }
};
template <>
struct cl_release<cl_program> {
    static void run(cl_program h) { api()->clReleaseProgram(h); }
};
template <>
struct cl_release<cl_command_queue> {
    static void run(cl_command_queue h) { api()->clReleaseCommandQueue(h); }
};
template <>
struct cl_release<cl_context> {
    static void run(cl_context h) { api()->clReleaseContext(h); }
};
template <>
struct cl_release<cl_event> {
    static void run(cl_event h) { api()->clReleaseEvent(h); }
};

//! Owns one reference to an OpenCL object; move-only.
template <class T>
class cl_handle
{
public:
    cl_handle() = default;
    explicit cl_handle(T h) : d_h(h) {}
    ~cl_handle() { reset(); }
    cl_handle(cl_handle&& o) noexcept : d_h(std::exchange(o.d_h, nullptr)) {}
    cl_handle& operator=(cl_handle&& o) noexcept
    {
        if (this != &o) {
            reset();
            d_h = std::exchange(o.d_h, nullptr);
        }
        return *this;
    }
    cl_handle(const cl_handle&) = delete;
    cl_handle& operator=(const cl_handle&) = delete;

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
            cl_release<T>::run(d_h);
        d_h = h;
    }

private:
    T d_h = nullptr;
};

using mem_handle = cl_handle<cl_mem>;
using kernel_handle = cl_handle<cl_kernel>;
using program_handle = cl_handle<cl_program>;
using queue_handle = cl_handle<cl_command_queue>;
using context_handle = cl_handle<cl_context>;
using event_handle = cl_handle<cl_event>;

} // namespace gpufft::opencl::detail

#endif
