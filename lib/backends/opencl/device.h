// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: platforms, devices and one context per device. */
#ifndef GPUFFT_LIB_OPENCL_DEVICE_H
#define GPUFFT_LIB_OPENCL_DEVICE_H

#include "cl_runtime.h"
#include "device_limits.h"
#include <gpufft/opencl.h>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace gpufft::opencl::detail {

//! A device with what the planner needs beyond device_info.
struct device_entry {
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
    device_info info;
    cl_device_type type = 0;
    unsigned clock_mhz = 0;
    std::size_t max_alloc = 0;
    unsigned preferred_float_width = 1;
    //! What the planner knows of it (GPUFFT_OPENCL_LIMITS lowered; device.cc,
    //! apply_limits), the knobs the rules'.
    device_limits limits;
    bool is_gpu() const { return (type & CL_DEVICE_TYPE_GPU) != 0; }
    bool is_cpu() const { return (type & CL_DEVICE_TYPE_CPU) != 0; }
    std::string label() const { return info.label(); }
};

/*!
 * Every device of every platform, enumerated once per process. Throws
 * gpufft::error naming the cause (no loader, no platform) when there is none.
 */
const std::vector<device_entry>& all_devices();

/*!
 * GPUFFT_OPENCL_PLANNER, the one override for experiments with the planner
 * (docs/backend-opencl.md): comma-separated NAME=VALUE of planner_knobs'
 * fields, and search=0|1 (plan-time search off or on whatever the plan
 * asks) and candidate=K (take the search's candidate K untimed). Read
 * afresh at every call; throws gpufft::error naming a bad item.
 */
struct planner_override {
    planner_knobs knobs;
    int search = -1; //!< -1: as the plan asks
    std::size_t candidate = SIZE_MAX;
};
planner_override read_planner_override();

//! What d's plans are made for: d.limits with GPUFFT_OPENCL_PLANNER's knobs.
GPUFFT_API device_limits planning_limits(const device_entry& d);

//! Device indices, best first: GPUs before other devices, each by compute
//! units x clock.
std::vector<std::size_t> ranked_devices();

//! The device a selector names (see gpufft::opencl::select_device).
// Exported from libgpufft, as context_for and make_queue, for its tests.
GPUFFT_API const device_entry& select(const std::string& selector);

/*!
 * The context every plan on one device shares, made once per process, with
 * the in-memory table of programs built in it (program_cache.h), which
 * threads may build into at once.
 */
struct device_context {
    const device_entry& device;
    context_handle context;
    std::mutex programs_mutex;
    std::map<std::string, program_handle> programs; //!< by cache key
    std::set<std::string> building;                 //!< keys a thread is building
    std::condition_variable program_built;          //!< one left `building`

    // Exported for qa_opencl, which builds candidates in a context of its
    // own as a preset's driver would read their kernels.
    GPUFFT_API explicit device_context(const device_entry& d);
};

GPUFFT_API device_context& context_for(const device_entry& d);

//! A new in-order queue on the device, with profiling if asked for.
GPUFFT_API queue_handle make_queue(const device_context& c, bool profiling = false);

} // namespace gpufft::opencl::detail

#endif
