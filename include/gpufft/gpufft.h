// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft core library: one include for headless programs. */
#ifndef GPUFFT_GPUFFT_H
#define GPUFFT_GPUFFT_H

#include <gpufft/backend.h>
#include <gpufft/demo_signal.h>
#include <gpufft/display.h>
#include <gpufft/spectrum_display.h>
#include <gpufft/error.h>
#include <gpufft/plan.h>
#include <gpufft/problem.h>
#include <gpufft/registry.h>
#include <gpufft/spectrum.h>

#endif
