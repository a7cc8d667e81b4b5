// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft core library: symbol visibility. */
#ifndef GPUFFT_API_H
#define GPUFFT_API_H

#if defined(_WIN32)
#define GPUFFT_API __declspec(dllexport)
#else
#define GPUFFT_API __attribute__((visibility("default")))
#endif

#endif
