// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the ICD loader, opened at run time. */
#include "cl_runtime.h"
#include <gpufft/error.h>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace gpufft::opencl::detail {

namespace {

struct loaded {
    cl_api table;
    bool ok = false;
    std::string failure;
};

const loaded& load()
{
    static const loaded l = [] {
        loaded r;
        void* lib = nullptr;
        std::string tried;
        // GPUFFT_OPENCL_LOADER names one loader instead (a vendor's loader
        // outside the library path, or none at all for tests).
        std::vector<std::string> names = { "libOpenCL.so.1", "libOpenCL.so" };
        if (const char* chosen = std::getenv("GPUFFT_OPENCL_LOADER"); chosen && *chosen)
            names = { chosen };
        for (const std::string& name : names) {
            lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (lib)
                break;
            const char* why = dlerror();
            tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name.c_str());
        }
        if (!lib) {
            r.failure = "no OpenCL ICD loader (" + tried + ")";
            return r;
        }
        // The library stays open for the life of the process.
#define GPUFFT_CL_RESOLVE(name)                                                   \
        r.table.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name));     \
        if (!r.table.name) {                                                       \
            r.failure = "the OpenCL ICD loader lacks " #name;                      \
            return r;                                                              \
        }
        GPUFFT_OPENCL_FUNCTIONS(GPUFFT_CL_RESOLVE)
#undef GPUFFT_CL_RESOLVE
        r.ok = true;
        return r;
    }();
    return l;
}

} // namespace

const cl_api* api() { return load().ok ? &load().table : nullptr; }

const std::string& load_failure() { return load().failure; }

const cl_api& need_api()
{
    if (const cl_api* a = api())
        return *a;
    throw error("gpufft: opencl: " + load_failure());
}

std::string error_name(cl_int err)
{
    switch (err) {
#define GPUFFT_CL_ERROR(e) \
    case e:                \
        return #e;
        GPUFFT_CL_ERROR(CL_SUCCESS)
        GPUFFT_CL_ERROR(CL_DEVICE_NOT_FOUND)
        GPUFFT_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
        GPUFFT_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
        GPUFFT_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        GPUFFT_CL_ERROR(CL_OUT_OF_RESOURCES)
        GPUFFT_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
        GPUFFT_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
        GPUFFT_CL_ERROR(CL_MEM_COPY_OVERLAP)
        GPUFFT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
        GPUFFT_CL_ERROR(CL_MAP_FAILURE)
        GPUFFT_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        GPUFFT_CL_ERROR(CL_INVALID_VALUE)
        GPUFFT_CL_ERROR(CL_INVALID_DEVICE_TYPE)
        GPUFFT_CL_ERROR(CL_INVALID_PLATFORM)
        GPUFFT_CL_ERROR(CL_INVALID_DEVICE)
        GPUFFT_CL_ERROR(CL_INVALID_CONTEXT)
        GPUFFT_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
        GPUFFT_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
        GPUFFT_CL_ERROR(CL_INVALID_HOST_PTR)
        GPUFFT_CL_ERROR(CL_INVALID_MEM_OBJECT)
        GPUFFT_CL_ERROR(CL_INVALID_BUFFER_SIZE)
        GPUFFT_CL_ERROR(CL_INVALID_BINARY)
        GPUFFT_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
        GPUFFT_CL_ERROR(CL_INVALID_PROGRAM)
        GPUFFT_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
        GPUFFT_CL_ERROR(CL_INVALID_KERNEL_NAME)
        GPUFFT_CL_ERROR(CL_INVALID_KERNEL)
        GPUFFT_CL_ERROR(CL_INVALID_ARG_INDEX)
        GPUFFT_CL_ERROR(CL_INVALID_ARG_VALUE)
        GPUFFT_CL_ERROR(CL_INVALID_ARG_SIZE)
        GPUFFT_CL_ERROR(CL_INVALID_KERNEL_ARGS)
        GPUFFT_CL_ERROR(CL_INVALID_WORK_DIMENSION)
        GPUFFT_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
        GPUFFT_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
        GPUFFT_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
        GPUFFT_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
        GPUFFT_CL_ERROR(CL_INVALID_EVENT)
        GPUFFT_CL_ERROR(CL_INVALID_OPERATION)
        GPUFFT_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
#undef GPUFFT_CL_ERROR
    case -1001:
        return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        return "CL error " + std::to_string(err);
    }
}

} // namespace gpufft::opencl::detail
