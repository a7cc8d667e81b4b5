// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the library's one log line sink (internal). */
#ifndef GPUFFT_LIB_CORE_LOG_H
#define GPUFFT_LIB_CORE_LOG_H

#include <gpufft/registry.h>
#include <string>

namespace gpufft::detail {

//! Sends one line to the handler set with gpufft::set_log_handler.
//! Exported from libgpufft for the spectrum library above it.
GPUFFT_API void log_line(log_level level, const std::string& line);

} // namespace gpufft::detail

#endif
