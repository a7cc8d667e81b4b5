// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * gr-gpufft Python bindings: gpufft.spectrum, the streaming spectrum engine,
 * fed with numpy arrays of SDR samples; gpufft.window and window_names.
 */
#include "bindings.h"
#include <gpufft/error.h>
#include <gpufft/spectrum.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <complex>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

class py_spectrum
{
public:
    explicit py_spectrum(const gpufft::spectrum_config& c) : d_s(c) {}

    py::array_t<float> push(const py::array& a)
    {
        check_samples(a, d_s.config().format, "spectrum");
        const auto* data = a.data();
        const auto bytes = std::size_t(a.nbytes());
        return run([&](const gpufft::spectrum::sink& sink) { d_s.push_bytes(data, bytes, sink); });
    }

    py::array_t<float> flush()
    {
        return run([&](const gpufft::spectrum::sink& sink) { d_s.flush(sink); });
    }

    void reset()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        d_s.reset();
    }

    const gpufft::spectrum& engine() const { return d_s; }

private:
    template <class F>
    py::array_t<float> run(F&& fn)
    {
        std::vector<float> out;
        {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(d_mutex);
            fn([&](const float* p, std::size_t n) { out.insert(out.end(), p, p + n); });
        }
        const auto n = py::ssize_t(d_s.fft_size());
        py::array_t<float> result({ py::ssize_t(out.size()) / n, n });
        std::copy(out.begin(), out.end(), result.mutable_data());
        return result;
    }

    gpufft::spectrum d_s;
    std::mutex d_mutex;
};

py::array_t<float> to_numpy(const std::vector<float>& v)
{
    py::array_t<float> a(py::ssize_t(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

} // namespace

// The dtype each format arrives in: I and Q interleaved for the integer ones.
void check_samples(const py::array& a, gpufft::sample_format f, const std::string& who)
{
    const bool ok = f == gpufft::sample_format::cf32   ? py::array_t<std::complex<float>>::check_(a)
                    : f == gpufft::sample_format::cs16 ? py::array_t<std::int16_t>::check_(a)
                    : f == gpufft::sample_format::cs8  ? py::array_t<std::int8_t>::check_(a)
                                                       : py::array_t<std::uint8_t>::check_(a);
    if (!ok) {
        const char* want = f == gpufft::sample_format::cf32   ? "complex64"
                           : f == gpufft::sample_format::cs16 ? "int16"
                           : f == gpufft::sample_format::cs8  ? "int8"
                                                              : "uint8";
        throw py::type_error("gpufft: " + who + " with format " + gpufft::format_name(f) +
                             " takes a numpy array of dtype " + want + ", got " +
                             std::string(py::str(a.dtype())) + " (nothing is converted silently)");
    }
    if (!(a.flags() & py::array::c_style))
        throw gpufft::error("gpufft: samples must be C-contiguous; use numpy.ascontiguousarray()");
}

void bind_spectrum(py::module& m)
{
    m.def(
        "window",
        [](const std::string& name, std::size_t n, double param) {
            return to_numpy(gpufft::make_window(name, n, param));
        },
        py::arg("name"),
        py::arg("n"),
        py::arg("param") = -1.0,
        "A window of n taps equal to gnuradio.fft.window's of the same name\n"
        "(param: kaiser beta in [0, 700], tukey alpha in [0, 1], gaussian sigma > 0,\n"
        "exponential decay > 0; -1: the default; the other windows take none).");
    m.def("window_names", &gpufft::window_names, "The names gpufft.window() knows.");

    py::class_<py_spectrum>(m,
                            "spectrum",
                            "Streaming spectra in dBFS (scale \"dbfs\": a full-scale tone on a bin reads\n"
                            "0 dB whatever the window; \"logpwrfft\": logpwrfft's normalization;\n"
                            "ref_scale: twice the full-scale amplitude) from SDR samples:\n"
                            "frames of fft_size with overlap, window, FFT, |X|^2, averaging over\n"
                            "every frame. push() takes any number of samples and returns the\n"
                            "finished spectra as a (count, fft_size) float32 array.")
        .def(py::init([](std::size_t fft_size,
                         double sample_rate,
                         const std::string& format,
                         double overlap,
                         const py::object& window,
                         double window_param,
                         const std::string& average,
                         double alpha,
                         std::size_t frames_per_output,
                         double output_rate,
                         double ref_scale,
                         const std::string& scale,
                         bool db,
                         bool shift,
                         std::size_t batch,
                         const std::string& backend,
                         unsigned threads) {
                 gpufft::spectrum_config c;
                 c.fft_size = fft_size;
                 c.sample_rate = sample_rate;
                 c.format = gpufft::parse_sample_format(format);
                 c.overlap = overlap;
                 if (py::isinstance<py::str>(window))
                     c.window = window.cast<std::string>();
                 else
                     c.user_window = window.cast<std::vector<float>>();
                 c.window_param = window_param;
                 c.average = gpufft::parse_averaging(average);
                 c.alpha = alpha;
                 c.frames_per_output = frames_per_output;
                 c.output_rate = output_rate;
                 c.ref_scale = ref_scale;
                 c.scale = gpufft::parse_level_scale(scale);
                 c.db = db;
                 c.shift = shift;
                 c.batch = batch;
                 c.backend = backend;
                 c.threads = threads;
                 py::gil_scoped_release nogil;
                 return std::make_unique<py_spectrum>(c);
             }),
             py::arg("fft_size"),
             py::arg("sample_rate") = 1.0,
             py::arg("format") = "cf32",
             py::arg("overlap") = 0.0,
             py::arg("window") = "blackmanharris",
             py::arg("window_param") = -1.0,
             py::arg("average") = "exponential",
             py::arg("alpha") = 1.0,
             py::arg("frames_per_output") = 1,
             py::arg("output_rate") = 0.0,
             py::arg("ref_scale") = 2.0,
             py::arg("scale") = "dbfs",
             py::arg("db") = true,
             py::arg("shift") = false,
             py::arg("batch") = 0,
             py::arg("backend") = "auto",
             py::arg("threads") = 1,
             "format: cf32 (complex64 arrays), cs16 (int16), cs8 (int8), cu8 (uint8;\n"
             "(x - 127.5) / 127.5), integers with I and Q interleaved. window: a name\n"
             "or a sequence of fft_size taps. average: exponential (alpha), linear,\n"
             "peak or min over frames_per_output frames, or output_rate spectra per\n"
             "second. Raises gpufft.error naming a bad parameter.")
        .def("push", &py_spectrum::push, py::arg("samples"),
             "Push samples (dtype per format, any length); returns the finished\n"
             "spectra, shape (count, fft_size), count possibly 0.")
        .def("flush", &py_spectrum::flush, "Run the complete frames still waiting for a batch.")
        .def("reset", &py_spectrum::reset, "Forget pending samples and the average.")
        .def_property_readonly("fft_size", [](const py_spectrum& s) { return s.engine().fft_size(); })
        .def_property_readonly("hop", [](const py_spectrum& s) { return s.engine().hop(); })
        .def_property_readonly("batch", [](const py_spectrum& s) { return s.engine().batch(); })
        .def_property_readonly("frames_per_output",
                               [](const py_spectrum& s) { return s.engine().frames_per_output(); })
        .def_property_readonly("frames", [](const py_spectrum& s) { return s.engine().frames(); })
        .def_property_readonly("backend", [](const py_spectrum& s) { return s.engine().backend(); })
        .def_property_readonly("window", [](const py_spectrum& s) { return to_numpy(s.engine().window()); })
        .def_property_readonly(
            "frequencies",
            [](const py_spectrum& s) {
                std::vector<float> f(s.engine().fft_size());
                for (std::size_t i = 0; i < f.size(); ++i)
                    f[i] = float(s.engine().bin_hz(i));
                return to_numpy(f);
            },
            "Frequency of each output bin relative to the centre, Hz.");
}
