// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: the kernel sources of kernels/<name>.cl, embedded at
 * build time (cmake/embed_kernels.cmake writes their definitions). */
#ifndef GPUFFT_LIB_OPENCL_KERNEL_SOURCES_H
#define GPUFFT_LIB_OPENCL_KERNEL_SOURCES_H

namespace gpufft::opencl::detail {

extern const char* const fft_butterflies_cl;
extern const char* const fft_pass_cl;
extern const char* const real_pass_cl;

} // namespace gpufft::opencl::detail

#endif
