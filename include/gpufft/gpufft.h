// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft FFT library (libgpufft): one include for its whole API. The
 * spectrum and display library above it has its own,
 * <gpufft/gpufft_spectrum.h>. */
#ifndef GPUFFT_GPUFFT_H
#define GPUFFT_GPUFFT_H

#include <gpufft/backend.h>
#include <gpufft/error.h>
#include <gpufft/plan.h>
#include <gpufft/problem.h>
#include <gpufft/registry.h>

#endif
