// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the runtime it lends device pipelines around
 * its plans (<gpufft/opencl.h>): the loaded entry points, queues and
 * programs in the context a device's plans share. */
#include "device.h"
#include "program_cache.h"
#include <gpufft/error.h>

namespace gpufft::opencl {

namespace {

// The device behind a device_info, which must have come from devices().
detail::device_context& context_of(const device_info& d)
{
    const auto& all = detail::all_devices();
    if (d.index >= all.size() || all[d.index].id != d.id || !d.id)
        throw error("gpufft: opencl: '" + d.label() + "' is not one of gpufft::opencl::devices()");
    return detail::context_for(all[d.index]);
}

} // namespace

const functions& runtime() { return detail::need_api(); }

void check(cl_int err, const char* call)
{
    if (err != CL_SUCCESS)
        throw error(std::string("gpufft: opencl: ") + call + " failed: " + detail::error_name(err));
}

queue_handle make_queue(const device_info& device) { return detail::make_queue(context_of(device)); }

program_handle build_program(const device_info& device, const std::string& source, const std::string& options)
{
    return detail::build_program(context_of(device), source, options);
}

kernel_handle make_kernel(cl_program program, const char* name)
{
    cl_int err = CL_SUCCESS;
    kernel_handle k(runtime().clCreateKernel(program, name, &err));
    check(err, "clCreateKernel");
    return k;
}

} // namespace gpufft::opencl
