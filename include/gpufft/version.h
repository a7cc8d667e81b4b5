// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft core library: its version. */
#ifndef GPUFFT_VERSION_H
#define GPUFFT_VERSION_H

#include <gpufft/api.h>

namespace gpufft {

//! The version of the libgpufft in use ("0.1.0"): the project's, compiled into the library itself.
GPUFFT_API const char* version();

} // namespace gpufft

#endif
