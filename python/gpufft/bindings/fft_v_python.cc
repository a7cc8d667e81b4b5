// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft Python bindings: gpufft.fft_vcc and gpufft.fft_vfc, the blocks (hand-written). */
#include "bindings.h"
#include <gnuradio/block.h>
#include <gnuradio/sync_block.h>
#include <gpufft/error.h>
#include <gpufft/gnuradio/fft_v.h>
#include <pybind11/stl.h>
#include <optional>

namespace py = pybind11;

namespace {

using gr::fft::window;

//! A gnuradio.fft.window.WIN_* value as the C++ enum, or nothing for taps.
std::optional<window::win_type> window_type(const py::object& w)
{
    static const py::object type = py::module::import("gnuradio.fft").attr("window").attr("win_type");
    if (!py::isinstance(w, type))
        return std::nullopt;
    return window::win_type(py::int_(w.attr("__int__")()).cast<int>());
}

std::vector<float> window_taps(const py::object& w, const char* block)
{
    try {
        return w.cast<std::vector<float>>();
    } catch (const py::cast_error&) {
        throw py::type_error(std::string("gpufft.") + block +
                             ": window must be a sequence of taps or a gnuradio.fft.window.WIN_* "
                             "value, got " +
                             std::string(py::str(py::type::of(w).attr("__name__"))));
    }
}

template <class T>
void bind_one(py::module& m, const char* name, const char* doc)
{
    using block = gr::gpufft::fft_v<T>;
    py::class_<block, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<block>>(m, name, doc)
        .def(py::init([name](int fft_size,
                             bool forward,
                             const py::object& w,
                             bool shift,
                             int nthreads,
                             const std::string& backend,
                             int batch,
                             bool tune) {
                 if (const auto type = window_type(w))
                     return block::make(fft_size, forward, *type, shift, nthreads, backend, batch, tune);
                 return block::make(
                     fft_size, forward, window_taps(w, name), shift, nthreads, backend, batch, tune);
             }),
             py::arg("fft_size"),
             py::arg("forward") = true,
             py::arg("window") = py::list(),
             py::arg("shift") = false,
             py::arg("nthreads") = 1,
             py::arg("backend") = "auto",
             py::arg("batch") = 64,
             py::arg("tune") = false)
        .def(
            "set_window",
            [name](block& b, const py::object& w) {
                if (const auto type = window_type(w))
                    return b.set_window(*type);
                return b.set_window(window_taps(w, name));
            },
            py::arg("window"),
            "Replace the window (fft_size taps, empty, or a gnuradio.fft.window.WIN_* value);\n"
            "False if the taps have the wrong length.")
        .def("set_nthreads", &block::set_nthreads, py::arg("n"),
             "Replan with n worker threads (as gnuradio.fft's set_nthreads).")
        .def("fft_size", &block::fft_size)
        .def("nthreads", &block::nthreads)
        .def("batch", &block::batch)
        .def("backend", &block::backend, "The backend running the plan, e.g. \"simd:avx512\".")
        .def("tune", &block::tune, "Whether the plans were tuned (the tune argument).");
}

} // namespace

void bind_fft_v(py::module& m)
{
    bind_one<gr_complex>(
        m,
        "fft_vcc",
        "Complex FFT of complex vectors, a drop-in for gnuradio.fft.fft_vcc(fft_size, forward,\n"
        "window, shift, nthreads) with the same outputs, plus backend (\"auto\", \"simd\",\n"
        "\"simd:avx2\", \"opencl\", ...), batch (vectors per backend call) and tune (time the\n"
        "backend's candidate algorithms at plan time, kept in the wisdom file). window: taps,\n"
        "or a gnuradio.fft.window.WIN_* value (built with fft_size taps).\n"
        "Raises gpufft.error (a ValueError) naming a bad parameter.");
    bind_one<float>(
        m,
        "fft_vfc",
        "Complex FFT of real vectors (fft_size complex outputs), a drop-in for\n"
        "gnuradio.fft.fft_vfc(fft_size, forward, window, shift, nthreads) with the same\n"
        "outputs, plus backend, batch and tune as gpufft.fft_vcc's. window: taps, or a\n"
        "gnuradio.fft.window.WIN_* value (built with fft_size taps).\n"
        "Raises gpufft.error (a ValueError) naming a bad parameter.");
}
