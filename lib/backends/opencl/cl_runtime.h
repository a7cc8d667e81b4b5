// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the ICD loader, opened at run time.
 *
 * The library links no OpenCL library: it dlopens libOpenCL.so.1 (then
 * libOpenCL.so) on first use and calls through this table, so it loads and
 * runs on machines without OpenCL. */
#ifndef GPUFFT_LIB_OPENCL_CL_RUNTIME_H
#define GPUFFT_LIB_OPENCL_CL_RUNTIME_H

#include <gpufft/opencl.h>
#include <string>

namespace gpufft::opencl::detail {

// The table, the owning handles and check() are public (<gpufft/opencl.h>);
// the backend's code finds them from its namespace.
using cl_api = functions;
using gpufft::opencl::context_handle;
using gpufft::opencl::event_handle;
using gpufft::opencl::kernel_handle;
using gpufft::opencl::mem_handle;
using gpufft::opencl::program_handle;
using gpufft::opencl::queue_handle;

/*!
 * The loaded entry points, or nullptr when there is no usable loader;
 * load_failure() then says why. Loaded once, thread-safely.
 */
const cl_api* api();
const std::string& load_failure();

//! The entry points; throws gpufft::error naming the cause without them
//! (gpufft::opencl::runtime()).
const cl_api& need_api();

//! "CL_OUT_OF_RESOURCES" for -5, "CL error -9999" for unknown codes.
std::string error_name(cl_int err);

} // namespace gpufft::opencl::detail

#endif
