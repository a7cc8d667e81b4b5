// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum layer: the spectrum chain on an OpenCL device
 * (spectrum_chain.cc), for backends whose device interface is "opencl"
 * (gpufft::backend::device_api). */
#ifndef GPUFFT_LIB_SPECTRUM_OPENCL_SPECTRUM_CHAIN_H
#define GPUFFT_LIB_SPECTRUM_OPENCL_SPECTRUM_CHAIN_H

#include "../chain.h"
#include <memory>

namespace gpufft::detail {

/*!
 * The chain on the OpenCL device that setup.plan.backend names ("<backend>"
 * or "<backend>:<selector>"); throws gpufft::error naming the cause when
 * the device cannot run the setup.
 */
std::unique_ptr<chain> make_opencl_chain(const chain_setup& setup);

} // namespace gpufft::detail

#endif
