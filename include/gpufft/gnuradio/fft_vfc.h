// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.fft_vfc, a batched drop-in for gr::fft::fft_vfc (real input). */
#ifndef GPUFFT_GNURADIO_FFT_VFC_H
#define GPUFFT_GNURADIO_FFT_VFC_H

#include <gpufft/gnuradio/fft_v.h>

#endif
