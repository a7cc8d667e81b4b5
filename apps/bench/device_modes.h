// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-bench: the OpenCL device modes. Built from device_modes.cc when the
 * library has the OpenCL backend, else from no_opencl.cc. */
#ifndef GPUFFT_BENCH_DEVICE_MODES_H
#define GPUFFT_BENCH_DEVICE_MODES_H

#include "common.h"

namespace gpufft::bench {

//! Prints every OpenCL platform and device, or one line saying why there are none.
void list_opencl_devices();

/*!
 * --device-resident and/or --streaming, as `o` asks, on the device that
 * o.opencl_device selects; one JSON file for both when o.json is set.
 * Returns how many of gpufft's rows failed (error or wrong result). Throws
 * usage_error when the build has no OpenCL backend.
 */
std::size_t run_device_modes(const options& o);

} // namespace gpufft::bench

#endif
