// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench without the OpenCL backend: the device modes say why they cannot run. */
#include "device_modes.h"

#include <cstdio>

namespace gpufft::bench {

void list_opencl_devices()
{
    std::printf("opencl: this gpufft-bench was built without the OpenCL backend\n");
}

std::size_t run_device_modes(const options&)
{
    throw usage_error("--device-resident and --streaming need a build with the OpenCL backend");
}

} // namespace gpufft::bench
