// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum layer: the device pipelines' OpenCL sources
 * (kernels/spectrum.cl, kernels/display.cl), embedded at build time by
 * cmake/embed_kernels.cmake. */
#ifndef GPUFFT_LIB_SPECTRUM_OPENCL_PIPELINE_KERNELS_H
#define GPUFFT_LIB_SPECTRUM_OPENCL_PIPELINE_KERNELS_H

namespace gpufft::detail {

extern const char* const spectrum_cl;
extern const char* const display_cl;

} // namespace gpufft::detail

#endif
