// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft Python bindings: gpufft.iq_replay_source (the block) and
 * gpufft.demo_signal, the generator it plays without a file (hand-written). */
#include "bindings.h"
#include <gnuradio/block.h>
#include <gnuradio/sync_block.h>
#include <gpufft/demo_signal.h>
#include <gpufft/gnuradio/iq_replay_source.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_iq_replay_source(py::module& m)
{
    using gr::gpufft::iq_replay_source;
    py::class_<iq_replay_source, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<iq_replay_source>>(
        m,
        "iq_replay_source",
        "Complex samples from an IQ recording replayed in a loop (format auto: by\n"
        "extension .cu8, .cs8, .cs16, else cf32; or cf32, cs16, cs8, cu8), or without\n"
        "a file gpufft.demo_signal (tones, FM, noise); paced at sample_rate when\n"
        "throttle is set. Raises gpufft.error naming a bad parameter.")
        .def(py::init(&iq_replay_source::make),
             py::arg("filename") = "",
             py::arg("format") = "auto",
             py::arg("sample_rate") = 2.4e6,
             py::arg("throttle") = true,
             py::arg("repeat") = true)
        .def("format", &iq_replay_source::format, "The format in use (never auto).")
        .def("sample_rate", &iq_replay_source::sample_rate)
        .def("throttle", &iq_replay_source::throttle);

    using gpufft::demo_signal;
    py::class_<demo_signal>(m,
                            "demo_signal",
                            "The demo signal of gpufft-spectrum --demo: four tones of known power\n"
                            "(.tones(): list of (hz, dbfs)), an FM carrier and noise; frequencies\n"
                            "scale with sample_rate; fft_size > 0 puts the tones on bin centres.")
        .def(py::init<double, std::size_t, std::uint64_t>(),
             py::arg("sample_rate"),
             py::arg("fft_size") = 0,
             py::arg("seed") = 12345)
        .def(
            "generate",
            [](demo_signal& d, std::size_t count) {
                py::array_t<std::complex<float>> out(count);
                d.generate(out.mutable_data(), count);
                return out;
            },
            py::arg("count"),
            "The next count samples as a complex64 array.")
        .def("tones",
             [](const demo_signal& d) {
                 py::list out;
                 for (const auto& t : d.tones())
                     out.append(py::make_tuple(t.hz, t.dbfs));
                 return out;
             })
        .def("fm_hz", &demo_signal::fm_hz)
        .def("fm_deviation_hz", &demo_signal::fm_deviation_hz)
        .def("sample_rate", &demo_signal::sample_rate);
}
