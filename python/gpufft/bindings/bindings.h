/* gr-gpufft Python bindings: one function per bound part (internal). */
#ifndef GPUFFT_PYTHON_BINDINGS_H
#define GPUFFT_PYTHON_BINDINGS_H

#include <pybind11/pybind11.h>

void bind_plan(pybind11::module& m);
void bind_spectrum(pybind11::module& m);
void bind_display(pybind11::module& m);
void bind_fft_vcc(pybind11::module& m);
void bind_spectrum_c(pybind11::module& m);
void bind_iq_replay_source(pybind11::module& m);
void bind_display_sinks(pybind11::module& m);

#endif
