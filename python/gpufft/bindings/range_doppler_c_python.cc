// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft Python bindings: gpufft.range_doppler_c, the block (hand-written). */
#include "bindings.h"
#include <gnuradio/block.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/sync_decimator.h>
#include <gpufft/gnuradio/range_doppler_c.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_range_doppler_c(py::module& m)
{
    using gr::gpufft::range_doppler_c;
    py::class_<range_doppler_c, gr::sync_decimator, gr::sync_block, gr::block, gr::basic_block,
               std::shared_ptr<range_doppler_c>>(
        m,
        "range_doppler_c",
        "Range-Doppler map: every num_pulses (M) input vectors of fft_size (N) complex\n"
        "samples make one output vector of N x M values, row n = range bin n, element\n"
        "n * M + m = Doppler bin m: FFTs along fast time, a transpose, FFTs along slow\n"
        "time (batched gpufft plans). Without windows and shift: numpy.fft.fft2(x).T.\n"
        "shift: fftshift along Doppler; db: float 10 log10(|X|^2) instead of complex.\n"
        "tune: time the backend's candidate algorithms for both plans when the block is\n"
        "made and keep the fastest in the wisdom file (as gpufft.fft_vcc's tune).\n"
        "Raises gpufft.error (a ValueError) naming a bad parameter.")
        .def(py::init(&range_doppler_c::make),
             py::arg("fft_size"),
             py::arg("num_pulses"),
             py::arg("range_window") = std::vector<float>(),
             py::arg("doppler_window") = std::vector<float>(),
             py::arg("shift") = true,
             py::arg("db") = false,
             py::arg("backend") = "auto",
             py::arg("nthreads") = 1,
             py::arg("tune") = false)
        .def("fft_size", &range_doppler_c::fft_size)
        .def("num_pulses", &range_doppler_c::num_pulses)
        .def("backend", &range_doppler_c::backend, "The backend running the plans, e.g. \"simd:avx512\".")
        .def("tune", &range_doppler_c::tune, "Whether the plans were tuned (the tune argument).");
}
