// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft Python bindings: gpufft.spectrum_c, the block (hand-written). */
#include "bindings.h"
#include <gnuradio/block.h>
#include <gpufft/gnuradio/spectrum_c.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_spectrum_c(py::module& m)
{
    using gr::gpufft::spectrum_c;
    py::class_<spectrum_c, gr::block, gr::basic_block, std::shared_ptr<spectrum_c>>(
        m,
        "spectrum_c",
        "Averaged power spectra in dBFS (scale \"dbfs\": a full-scale tone on a bin\n"
        "reads 0 dB whatever the window; \"logpwrfft\": logpwrfft's values) from I/Q\n"
        "samples: format cf32 (complex), cs16 (interleaved int16), cs8 (int8) or\n"
        "cu8 (uint8, rtl_sdr). Output: float vectors of fft_size. average:\n"
        "exponential (alpha), linear, peak or min over every frame of one output;\n"
        "one output per frames_per_output frames, or frame_rate outputs per second\n"
        "when frames_per_output is 0. window_param: Kaiser beta, gaussian sigma, tukey\n"
        "alpha, exponential decay (-1: the default). Every setter works while the\n"
        "flowgraph runs. Raises gpufft.error naming a bad parameter.")
        .def(py::init(&spectrum_c::make),
             py::arg("fft_size"),
             py::arg("sample_rate"),
             py::arg("frame_rate") = 30.0,
             py::arg("overlap") = 0.0,
             py::arg("window") = "blackmanharris",
             py::arg("average") = "exponential",
             py::arg("alpha") = 1.0,
             py::arg("frames_per_output") = 0,
             py::arg("ref_scale") = 2.0,
             py::arg("shift") = false,
             py::arg("format") = "cf32",
             py::arg("backend") = "auto",
             py::arg("window_param") = -1.0,
             py::arg("scale") = "dbfs",
             py::arg("tune") = false)
        .def("set_window", &spectrum_c::set_window, py::arg("window"))
        .def("set_window_param", &spectrum_c::set_window_param, py::arg("window_param"))
        .def("set_overlap", &spectrum_c::set_overlap, py::arg("overlap"))
        .def("set_shift", &spectrum_c::set_shift, py::arg("shift"))
        .def("set_average", &spectrum_c::set_average, py::arg("average"))
        .def("set_alpha", &spectrum_c::set_alpha, py::arg("alpha"))
        .def("set_sample_rate", &spectrum_c::set_sample_rate, py::arg("sample_rate"),
             "The input's sample rate (sets K, the frames per output, from frame_rate).")
        .def("set_frame_rate", &spectrum_c::set_frame_rate, py::arg("frame_rate"))
        .def("set_frames_per_output", &spectrum_c::set_frames_per_output, py::arg("frames_per_output"))
        .def("set_ref_scale", &spectrum_c::set_ref_scale, py::arg("ref_scale"))
        .def("set_scale", &spectrum_c::set_scale, py::arg("scale"))
        .def("fft_size", &spectrum_c::fft_size)
        .def("sample_rate", &spectrum_c::sample_rate)
        .def("frame_rate", &spectrum_c::frame_rate)
        .def("window", &spectrum_c::window)
        .def("window_param", &spectrum_c::window_param)
        .def("overlap", &spectrum_c::overlap)
        .def("shift", &spectrum_c::shift)
        .def("format", &spectrum_c::format)
        .def("average", &spectrum_c::average)
        .def("alpha", &spectrum_c::alpha)
        .def("ref_scale", &spectrum_c::ref_scale)
        .def("scale", &spectrum_c::scale)
        .def("frames_per_output", &spectrum_c::frames_per_output,
             "K, the frames combined into one output, as in use.")
        .def("hop", &spectrum_c::hop, "Samples between frame starts.")
        .def("backend", &spectrum_c::backend)
        .def("tune", &spectrum_c::tune, "Whether the FFT plan was tuned (the tune argument).");
}
