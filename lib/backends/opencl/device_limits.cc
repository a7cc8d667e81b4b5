// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the device presets (device_limits.h). */
#include "device_limits.h"
#include <gpufft/error.h>

namespace gpufft::opencl::detail {

namespace {

device_limits preset(const char* name,
                     std::size_t local_memory,
                     std::size_t max_work_group,
                     std::size_t registers,
                     unsigned compute_units,
                     bool unified_memory,
                     std::size_t kernel_work_group)
{
    device_limits d;
    d.name = name;
    d.local_memory = local_memory;
    d.max_work_group = max_work_group;
    d.registers = registers;
    d.compute_units = compute_units;
    d.gpu = std::string(name) != "pocl";
    d.unified_memory = unified_memory;
    d.kernel_work_group = kernel_work_group;
    return d;
}

} // namespace

const std::vector<device_limits>& limit_presets()
{
    // NVIDIA's OpenCL allows 48 KiB of local memory a work-group (the
    // hardware 228 KiB) and reads compiled kernels as allowing 256
    // work-items; 255 registers a work-item. A Mali at full occupancy has
    // 64 registers a work-item. PoCL's CPU device as CI's runs it.
    static const std::vector<device_limits> presets = {
        preset("nvidia-h100", 49152, 1024, 255, 132, false, 256),
        preset("nvidia-h200", 49152, 1024, 255, 132, false, 256),
        preset("mali-g", 32768, 256, 64, 10, true, SIZE_MAX),
        preset("intel-igpu", 65536, 512, 128, 96, true, SIZE_MAX),
        preset("pocl", 524288, 4096, 255, 2, true, SIZE_MAX),
    };
    return presets;
}

const device_limits& limit_preset(const std::string& name)
{
    std::string names;
    for (const device_limits& d : limit_presets()) {
        if (d.name == name)
            return d;
        names += (names.empty() ? "" : ", ") + d.name;
    }
    throw error("gpufft: opencl: no device preset \"" + name + "\" (presets: " + names + ")");
}

} // namespace gpufft::opencl::detail
