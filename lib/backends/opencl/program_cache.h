// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL backend: programs built once per process and cached on disk.
 *
 * A program is keyed by a hash of the platform, device name, driver and
 * device version, the source and the build options. In memory, each
 * device_context keeps the programs it built; on disk the binaries live in
 * $GPUFFT_CACHE_DIR, else $XDG_CACHE_HOME/gpufft/kernels, else
 * ~/.cache/gpufft/kernels, written atomically (temp file + rename). An entry
 * that fails to load is rebuilt from source and replaced. */
#ifndef GPUFFT_LIB_OPENCL_PROGRAM_CACHE_H
#define GPUFFT_LIB_OPENCL_PROGRAM_CACHE_H

#include "device.h"
#include <string>

namespace gpufft::opencl::detail {

//! The directory binaries are cached in (may not exist yet).
std::string kernel_cache_dir();

//! 128 bits of hash of `text` in hex: a cache file's name.
std::string cache_hash(const std::string& text);

//! A cache file's bytes, empty if it is missing or unreadable.
std::string read_cache_file(const std::string& path);

//! Writes a cache file atomically (temp file + rename), its directory made
//! if need be; best effort (a cache that cannot be written costs a rebuild).
void write_cache_file(const std::string& path, const std::string& bytes);

/*!
 * A built program for `source` with `options` (a new reference the caller
 * owns). Throws gpufft::error quoting the first lines of the build log when
 * the source does not build. (gpufft::opencl::build_program for a device_info.)
 */
program_handle build_program(device_context& ctx, const std::string& source, const std::string& options);

} // namespace gpufft::opencl::detail

#endif
