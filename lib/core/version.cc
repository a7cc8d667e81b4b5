// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the library's version (the project's, set by CMake). */
#include <gpufft/version.h>

namespace gpufft {

const char* version() { return GPUFFT_VERSION; }

} // namespace gpufft
