// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the table of compiled-in backends (internal). */
#ifndef GPUFFT_LIB_CORE_REGISTRY_H
#define GPUFFT_LIB_CORE_REGISTRY_H

#include <gpufft/backend.h>
#include <string>
#include <vector>

namespace gpufft::detail {

//! A backend with its probe result, probed once per process.
struct registered_backend {
    backend* impl;
    availability probed;
};

//! Every compiled-in backend, in preference order for equal cost.
const std::vector<registered_backend>& registered_backends();

} // namespace gpufft::detail

#endif
