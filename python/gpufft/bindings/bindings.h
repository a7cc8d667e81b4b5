// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft Python bindings: one function per bound part (internal). */
#ifndef GPUFFT_PYTHON_BINDINGS_H
#define GPUFFT_PYTHON_BINDINGS_H

#include <gpufft/spectrum.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <string>

void bind_plan(pybind11::module& m);
void bind_spectrum(pybind11::module& m);
void bind_display(pybind11::module& m);
void bind_fft_v(pybind11::module& m); // fft_vcc and fft_vfc
void bind_range_doppler_c(pybind11::module& m);
void bind_spectrum_c(pybind11::module& m);
void bind_iq_replay_source(pybind11::module& m);
void bind_display_sinks(pybind11::module& m);

//! Throws TypeError unless `a` has the dtype `format` arrives in (complex64,
//! int16, int8, uint8), gpufft.error unless it is C-contiguous; `who` names the caller.
void check_samples(const pybind11::array& a, gpufft::sample_format format, const std::string& who);

#endif
