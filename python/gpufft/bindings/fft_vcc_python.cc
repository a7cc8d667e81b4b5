/* gr-gpufft Python bindings: gpufft.fft_vcc, the block (hand-written). */
#include "bindings.h"
#include <gnuradio/block.h>
#include <gnuradio/sync_block.h>
#include <gpufft/gnuradio/fft_vcc.h>
#include <pybind11/stl.h>

namespace py = pybind11;

void bind_fft_vcc(py::module& m)
{
    using gr::gpufft::fft_vcc;
    py::class_<fft_vcc, gr::sync_block, gr::block, gr::basic_block, std::shared_ptr<fft_vcc>>(
        m,
        "fft_vcc",
        "Complex FFT of vectors, a drop-in for gnuradio.fft.fft_vcc(fft_size, forward,\n"
        "window, shift, nthreads) with the same outputs, plus backend (\"auto\",\n"
        "\"simd\", \"simd:avx2\", \"opencl\", ...) and batch (vectors per backend call).\n"
        "Raises gpufft.error (a ValueError) naming a bad parameter.")
        .def(py::init(&fft_vcc::make),
             py::arg("fft_size"),
             py::arg("forward") = true,
             py::arg("window") = std::vector<float>(),
             py::arg("shift") = false,
             py::arg("nthreads") = 1,
             py::arg("backend") = "auto",
             py::arg("batch") = 64)
        .def("set_window", &fft_vcc::set_window, py::arg("window"),
             "Replace the window (empty or fft_size taps); False if the length is wrong.")
        .def("set_nthreads", &fft_vcc::set_nthreads, py::arg("n"),
             "Replan with n worker threads (as gnuradio.fft.fft_vcc.set_nthreads).")
        .def("fft_size", &fft_vcc::fft_size)
        .def("nthreads", &fft_vcc::nthreads)
        .def("batch", &fft_vcc::batch)
        .def("backend", &fft_vcc::backend, "The backend running the plan, e.g. \"simd:avx512\".");
}
