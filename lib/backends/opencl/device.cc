// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: platforms, devices and one context per device. */
#include "device.h"
#include <gpufft/error.h>
#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace gpufft::opencl {

namespace detail {

namespace {

std::string platform_string(cl_platform_id p, cl_platform_info what)
{
    std::size_t size = 0;
    if (api()->clGetPlatformInfo(p, what, 0, nullptr, &size) != CL_SUCCESS || size == 0)
        return "";
    std::string s(size, '\0');
    api()->clGetPlatformInfo(p, what, size, s.data(), nullptr);
    return std::string(s.c_str());
}

std::string device_string(cl_device_id d, cl_device_info what)
{
    std::size_t size = 0;
    if (api()->clGetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS || size == 0)
        return "";
    std::string s(size, '\0');
    api()->clGetDeviceInfo(d, what, size, s.data(), nullptr);
    return std::string(s.c_str());
}

template <class T>
T device_value(cl_device_id d, cl_device_info what)
{
    T v{};
    check(api()->clGetDeviceInfo(d, what, sizeof v, &v, nullptr), "clGetDeviceInfo");
    return v;
}

/*!
 * Calls fn(key, value) for each NAME=COUNT item of environment variable
 * `var` (comma-separated, COUNT a whole number); throws gpufft::error
 * naming the item and the form (`want`) when one is malformed or fn
 * returns false (an unknown name or a value out of range).
 */
template <class F>
void for_each_setting(const char* var, const char* want, F fn)
{
    const char* env = std::getenv(var);
    if (!env || !*env)
        return;
    const std::string spec = env;
    const auto bad = [&](const std::string& why) {
        return error(std::string("gpufft: opencl: ") + var + "=\"" + spec + "\": " + why +
                     " (want " + want + ")");
    };
    std::size_t at = 0;
    while (at <= spec.size()) {
        const std::size_t end = std::min(spec.find(',', at), spec.size());
        const std::string item = spec.substr(at, end - at);
        const std::size_t eq = item.find('=');
        const std::string key = item.substr(0, eq), value = eq == item.npos ? "" : item.substr(eq + 1);
        if (value.empty() || value.find_first_not_of("0123456789") != value.npos || value.size() > 12)
            throw bad("\"" + item + "\" is not NAME=WHOLE_NUMBER");
        if (!fn(key, std::size_t(std::stoull(value))))
            throw bad("\"" + item + "\" is no setting here");
        at = end + 1;
    }
}

/*!
 * GPUFFT_OPENCL_LIMITS="local_memory=BYTES,work_group=ITEMS" (either or
 * both) lowers every device's limits to plan as a smaller device would, e.g.
 * an H100's 49152 and 1024 or a Mali's 32768 and 256 on PoCL; it never
 * raises them. kernel_work_group=ITEMS caps what a compiled kernel is read
 * to allow (CL_KERNEL_WORK_GROUP_SIZE), as NVIDIA's OpenCL under-reports it
 * (fft_plan.cc, fft_chain).
 */
void apply_limits(device_entry& e)
{
    device_info& i = e.info;
    for_each_setting("GPUFFT_OPENCL_LIMITS", "local_memory=BYTES,work_group=ITEMS,kernel_work_group=ITEMS",
                     [&](const std::string& key, std::size_t v) {
                         if (v == 0)
                             return false;
                         if (key == "local_memory")
                             i.local_memory = std::min(i.local_memory, v);
                         else if (key == "work_group")
                             i.max_work_group = std::min(i.max_work_group, v);
                         else if (key == "kernel_work_group")
                             e.limits.kernel_work_group = std::min(e.limits.kernel_work_group, v);
                         else
                             return false;
                         return true;
                     });
}

device_entry describe(cl_platform_id p, cl_device_id d, std::size_t index)
{
    device_entry e;
    e.platform = p;
    e.id = d;
    e.type = device_value<cl_device_type>(d, CL_DEVICE_TYPE);
    e.clock_mhz = device_value<cl_uint>(d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    e.max_alloc = device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    e.preferred_float_width =
        std::max<cl_uint>(1, device_value<cl_uint>(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT));
    device_info& i = e.info;
    i.index = index;
    i.platform = platform_string(p, CL_PLATFORM_NAME);
    i.name = device_string(d, CL_DEVICE_NAME);
    i.type = e.is_gpu()                                  ? "gpu"
             : e.is_cpu()                                ? "cpu"
             : (e.type & CL_DEVICE_TYPE_ACCELERATOR) != 0 ? "accelerator"
                                                         : "other";
    i.version = device_string(d, CL_DEVICE_VERSION);
    i.driver = device_string(d, CL_DRIVER_VERSION);
    i.global_memory = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
    i.max_buffer = e.max_alloc;
    i.local_memory = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
    i.max_work_group = device_value<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    i.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
    i.unified_memory = device_value<cl_bool>(d, CL_DEVICE_HOST_UNIFIED_MEMORY) == CL_TRUE;
    i.id = d;
    apply_limits(e);
    device_limits& l = e.limits;
    l.name = e.label();
    l.local_memory = i.local_memory;
    l.max_work_group = i.max_work_group;
    // OpenCL does not say how many registers a work-item has: devices of
    // fewer than 1024 work-items a group are taken for a Mali's 64 at full
    // occupancy, others for the 255 of NVIDIA's and AMD's desktop GPUs.
    l.registers = i.max_work_group < 1024 ? 64 : 255;
    l.compute_units = i.compute_units;
    // The quirk the nvidia presets name (device_limits.h): known before a
    // kernel is built, so the planner keeps register-mode groups within it.
    if (i.platform.find("NVIDIA") != std::string::npos)
        l.kernel_work_group = std::min<std::size_t>(l.kernel_work_group, 256);
    l.gpu = e.is_gpu();
    l.unified_memory = i.unified_memory;
    return e;
}

struct enumeration {
    std::vector<device_entry> devices;
    std::string failure;
};

enumeration enumerate()
{
    enumeration r;
    const cl_api* a = api();
    if (!a) {
        r.failure = load_failure();
        return r;
    }
    cl_uint count = 0;
    const cl_int err = a->clGetPlatformIDs(0, nullptr, &count);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && count == 0)) {
        r.failure = "no OpenCL platform is installed (no ICD in /etc/OpenCL/vendors)";
        return r;
    }
    if (err != CL_SUCCESS) {
        r.failure = "clGetPlatformIDs failed: " + error_name(err);
        return r;
    }
    std::vector<cl_platform_id> platforms(count);
    a->clGetPlatformIDs(count, platforms.data(), nullptr);
    for (cl_platform_id p : platforms) {
        cl_uint n = 0;
        if (a->clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0)
            continue;
        std::vector<cl_device_id> ids(n);
        a->clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr);
        for (cl_device_id d : ids)
            r.devices.push_back(describe(p, d, r.devices.size()));
    }
    if (r.devices.empty())
        r.failure = "the OpenCL platforms have no device";
    return r;
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string device_list()
{
    std::string s;
    for (const device_entry& d : all_devices())
        s += (s.empty() ? "" : ", ") + std::to_string(d.info.index) + ": " + d.label() + " (" +
             d.info.type + ")";
    return s;
}

} // namespace

planner_override read_planner_override()
{
    planner_override o;
    planner_knobs& k = o.knobs;
    for_each_setting("GPUFFT_OPENCL_PLANNER",
                     "odd_shapes=0|1|2,rader=0|1|2,register_from=N,register_exchange=N,group_local=BYTES,"
                     "register_rounds=0|1,search=0|1,candidate=K",
                     [&](const std::string& key, std::size_t v) {
                         if (key == "odd_shapes" || key == "rader") {
                             if (v > 2)
                                 return false;
                             (key == "rader" ? k.rader : k.odd_shapes) = int(v);
                         } else if (key == "search" || key == "register_rounds") {
                             if (v > 1)
                                 return false;
                             (key == "search" ? o.search : k.register_rounds) = int(v);
                         } else if (key == "candidate") {
                             o.candidate = v;
                         } else if (v == 0) {
                             return false;
                         } else if (key == "register_from") {
                             k.register_from = v;
                         } else if (key == "register_exchange") {
                             k.register_exchange = v;
                         } else if (key == "group_local") {
                             k.group_local = v;
                         } else {
                             return false;
                         }
                         return true;
                     });
    return o;
}

device_limits planning_limits(const device_entry& d)
{
    device_limits l = d.limits;
    l.knobs = read_planner_override().knobs;
    return l;
}

const std::vector<device_entry>& all_devices()
{
    static const enumeration e = enumerate();
    if (e.devices.empty())
        throw error("gpufft: opencl: " + e.failure);
    return e.devices;
}

std::vector<std::size_t> ranked_devices()
{
    const auto& all = all_devices();
    std::vector<std::size_t> order(all.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    auto score = [&](std::size_t i) {
        return double(all[i].info.compute_units) * double(std::max(1u, all[i].clock_mhz));
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (all[a].is_gpu() != all[b].is_gpu())
            return all[a].is_gpu();
        return score(a) > score(b);
    });
    return order;
}

const device_entry& select(const std::string& selector)
{
    const auto& all = all_devices();
    if (selector.empty()) {
        const char* env = std::getenv("GPUFFT_OPENCL_DEVICE");
        if (env && *env)
            return select(env);
        return all[ranked_devices().front()];
    }
    if (std::all_of(selector.begin(), selector.end(), [](char c) { return std::isdigit(c); })) {
        const unsigned long index = std::strtoul(selector.c_str(), nullptr, 10);
        if (selector.size() < 10 && index < all.size())
            return all[index];
    } else {
        const std::string want = lower(selector);
        for (const device_entry& d : all)
            if (lower(d.label()).find(want) != std::string::npos)
                return d;
    }
    throw error("gpufft: opencl: no device matches '" + selector + "'; devices: " +
                device_list());
}

device_context::device_context(const device_entry& d) : device(d)
{
    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = { CL_CONTEXT_PLATFORM,
                                            cl_context_properties(d.platform), 0 };
    context.reset(need_api().clCreateContext(props, 1, &d.id, nullptr, nullptr, &err));
    check(err, "clCreateContext");
}

device_context& context_for(const device_entry& d)
{
    // Contexts live as long as the process (plans share them and their
    // programs) and are never destroyed: releasing them during static
    // destruction could run after the driver has shut down.
    static std::mutex mutex;
    static auto* contexts = new std::map<cl_device_id, std::unique_ptr<device_context>>;
    std::lock_guard<std::mutex> lock(mutex);
    auto& c = (*contexts)[d.id];
    if (!c)
        c = std::make_unique<device_context>(d);
    return *c;
}

queue_handle make_queue(const device_context& c, bool profiling)
{
    cl_int err = CL_SUCCESS;
    queue_handle q(need_api().clCreateCommandQueue(
        c.context.get(), c.device.id, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err));
    check(err, "clCreateCommandQueue");
    return q;
}

} // namespace detail

std::vector<device_info> devices()
{
    std::vector<device_info> out;
    for (const auto& d : detail::all_devices())
        out.push_back(d.info);
    return out;
}

device_info select_device(const std::string& selector)
{
    return detail::select(selector).info;
}

} // namespace gpufft::opencl
