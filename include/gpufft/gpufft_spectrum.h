// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum and display library (libgpufft-spectrum, above
 * libgpufft): one include for its whole API and the FFT library's. */
#ifndef GPUFFT_GPUFFT_SPECTRUM_H
#define GPUFFT_GPUFFT_SPECTRUM_H

#include <gpufft/demo_signal.h>
#include <gpufft/display.h>
#include <gpufft/gpufft.h>
#include <gpufft/spectrum.h>
#include <gpufft/spectrum_display.h>

#endif
