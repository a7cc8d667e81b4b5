// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: gpufft.fft_vcc, a batched drop-in for gr::fft::fft_vcc (complex input). */
#ifndef GPUFFT_GNURADIO_FFT_VCC_H
#define GPUFFT_GNURADIO_FFT_VCC_H

#include <gpufft/gnuradio/fft_v.h>

#endif
