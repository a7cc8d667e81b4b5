// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * gr-gpufft Python bindings: gpufft.display, the display pipeline
 * (include/gpufft/display.h), fed with numpy arrays of dB spectra; and
 * gpufft.spectrum_display (include/gpufft/spectrum_display.h), the same
 * pipeline fed with raw I/Q, on the device for the opencl backend.
 */
#include "bindings.h"
#include <gpufft/display.h>
#include <gpufft/error.h>
#include <gpufft/spectrum_display.h>
#include <pybind11/numpy.h>
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

using gpufft::display;
using gpufft::spectrum_display;

//! A display behind a mutex, so Python threads may share it.
template <class D>
class guarded
{
public:
    template <class... A>
    explicit guarded(A&&... a) : d_d(std::forward<A>(a)...)
    {
    }

    //! A new float32 array of `shape`, filled by read(out).
    template <class F>
    py::array_t<float> read(std::vector<py::ssize_t> shape, F&& read)
    {
        py::array_t<float> out(shape);
        float* p = out.mutable_data();
        std::lock_guard<std::mutex> lock(d_mutex);
        read(p);
        return out;
    }

    template <class F>
    auto locked(F&& fn)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return fn(d_d);
    }

    //! As locked(), with the GIL released (pushes, which may take a while).
    template <class F>
    auto locked_nogil(F&& fn)
    {
        py::gil_scoped_release nogil;
        return locked(std::forward<F>(fn));
    }

    D& engine() { return d_d; }

private:
    D d_d;
    std::mutex d_mutex;
};

const gpufft::display_config& settings(const display& d) { return d.config(); }
const gpufft::display_config& settings(const spectrum_display& d) { return d.display_settings(); }

//! The read-outs, setters and sizes both display classes have.
template <class D>
void bind_display_common(py::class_<guarded<D>>& cls)
{
    using G = guarded<D>;
    cls.def("histogram",
            [](G& d) {
                const auto& c = settings(d.engine());
                return d.read({ py::ssize_t(c.height), py::ssize_t(c.width) },
                              [&](float* p) { d.engine().read_histogram(p); });
            },
            "The histogram, shape (height, width); row 0 is db_min.")
        .def("histogram_levels",
             [](G& d, float scale, std::uint16_t top) {
                 const auto& c = settings(d.engine());
                 py::array_t<std::uint16_t> levels({ py::ssize_t(c.height), py::ssize_t(c.width) });
                 py::array_t<std::uint8_t> lit(py::ssize_t(c.height));
                 std::uint16_t* out = levels.mutable_data();
                 std::uint8_t* lit_rows = lit.mutable_data();
                 d.locked([&](D& e) { e.read_histogram_levels(out, scale, top, lit_rows); });
                 return py::make_tuple(levels, lit);
             },
             py::arg("scale"), py::arg("top") = 65535,
             "(levels, lit_rows): the histogram as uint16 levels min(cell * scale + 0.5, top)\n"
             "truncated, shape (height, width), and per row 1 if any level is non-zero.")
        .def("average",
             [](G& d) {
                 return d.read({ py::ssize_t(settings(d.engine()).width) },
                               [&](float* p) { d.engine().read_average(p); });
             },
             "The average trace (width,), NaN before the first frame.")
        .def("max_hold",
             [](G& d) {
                 return d.read({ py::ssize_t(settings(d.engine()).width) },
                               [&](float* p) { d.engine().read_max_hold(p); });
             },
             "The max-hold trace (width,), NaN before the first frame or while off.")
        .def(
            "waterfall",
            [](G& d, std::size_t rows) {
                const auto& c = settings(d.engine());
                if (rows == 0) // the default: every row kept
                    rows = c.waterfall_rows;
                // rows > waterfall_rows: read_waterfall raises, naming it.
                return d.read({ py::ssize_t(std::min(rows, c.waterfall_rows)), py::ssize_t(c.width) },
                              [&](float* p) { d.engine().read_waterfall(p, rows); });
            },
            py::arg("rows") = 0,
            "The newest rows (default all waterfall_rows), shape (rows, width),\n"
            "oldest first; rows before the first frame are NaN.")
        .def("waterfall_max",
             [](G& d, std::size_t rows) {
                 return d.read({ py::ssize_t(settings(d.engine()).width) },
                               [&](float* p) { d.engine().read_waterfall_max(p, rows); });
             },
             py::arg("rows"),
             "The column-wise max of the newest rows (width,); NaN only where all are NaN.")
        .def("reset", [](G& d) { d.locked([](D& e) { e.reset(); }); })
        .def("reset_max_hold", [](G& d) { d.locked([](D& e) { e.reset_max_hold(); }); })
        .def(
            "set_db_range",
            [](G& d, double lo, double hi) { d.locked([&](D& e) { e.set_db_range(lo, hi); }); },
            py::arg("db_min"),
            py::arg("db_max"),
            "New dB range; clears the histogram.")
        .def(
            "set_decay", [](G& d, double decay) { d.locked([&](D& e) { e.set_decay(decay); }); }, py::arg("decay"))
        .def(
            "set_resample",
            [](G& d, const std::string& mode) {
                const auto r = gpufft::parse_display_resample(mode);
                d.locked([&](D& e) { e.set_resample(r); });
            },
            py::arg("mode"))
        .def(
            "set_average",
            [](G& d, const std::string& mode, double alpha) {
                const auto a = gpufft::parse_display_average(mode);
                d.locked([&](D& e) { e.set_average(a, alpha); });
            },
            py::arg("mode"),
            py::arg("alpha") = 0.1)
        .def(
            "set_max_hold", [](G& d, bool on) { d.locked([&](D& e) { e.set_max_hold(on); }); }, py::arg("on"))
        .def(
            "set_bin_range",
            [](G& d, std::size_t begin, std::size_t end) { d.locked([&](D& e) { e.set_bin_range(begin, end); }); },
            py::arg("begin"),
            py::arg("end"),
            "The columns show the bins [begin, end) from the next frame; clears the\n"
            "histogram, traces and waterfall (frames keeps counting).")
        .def_property_readonly("bin_range",
                               [](G& d) {
                                   const auto& c = settings(d.engine());
                                   return std::make_pair(c.bin_begin, c.bin_end);
                               },
                               "(begin, end): the bins the columns show.")
        .def_property_readonly("frames", [](G& d) { return d.engine().frames(); })
        .def_property_readonly("width", [](G& d) { return settings(d.engine()).width; })
        .def_property_readonly("height", [](G& d) { return settings(d.engine()).height; });
}

gpufft::display_config display_settings(std::size_t n,
                                        std::size_t width,
                                        std::size_t height,
                                        double db_min,
                                        double db_max,
                                        double decay,
                                        const std::string& resample,
                                        const std::string& average,
                                        double alpha,
                                        bool max_hold,
                                        std::size_t waterfall_rows,
                                        std::size_t bin_begin,
                                        std::size_t bin_end)
{
    gpufft::display_config c;
    c.n = n;
    c.width = width;
    c.height = height;
    c.db_min = db_min;
    c.db_max = db_max;
    c.decay = decay;
    c.resample = gpufft::parse_display_resample(resample);
    c.average = gpufft::parse_display_average(average);
    c.alpha = alpha;
    c.max_hold = max_hold;
    c.waterfall_rows = waterfall_rows;
    c.bin_begin = bin_begin;
    c.bin_end = bin_end;
    return c;
}

void push_frames(guarded<display>& d, const py::array& a)
{
    if (!py::array_t<float>::check_(a))
        throw py::type_error("gpufft: display.push takes a float32 array, got " + std::string(py::str(a.dtype())) +
                             " (nothing is converted silently)");
    if (!(a.flags() & py::array::c_style))
        throw gpufft::error("gpufft: display.push: frames must be C-contiguous; use numpy.ascontiguousarray()");
    const std::size_t n = d.engine().config().n;
    const bool one = a.ndim() == 1 && std::size_t(a.shape(0)) == n;
    const bool many = a.ndim() == 2 && std::size_t(a.shape(1)) == n;
    if (!one && !many)
        throw gpufft::error("gpufft: display.push takes frames of shape (count, n) or (n,) with n = " +
                            std::to_string(n) + ", got shape " + std::string(py::str(py::cast(a.request().shape))));
    const auto* data = static_cast<const float*>(a.data());
    const std::size_t count = one ? 1 : std::size_t(a.shape(0));
    d.locked_nogil([&](display& e) { e.push(data, count); });
}

} // namespace

void bind_display(py::module& m)
{
    py::class_<guarded<display>> d(m,
                                   "display",
                                   "The display pipeline: frames of n dB values (fftshifted) in, a\n"
                                   "persistence histogram (height x width), average and max-hold traces\n"
                                   "and waterfall rows (width columns) out. Definitions: docs/spectrum.md,\n"
                                   "'Display pipeline', and include/gpufft/display.h.");
    d.def(py::init([](std::size_t n, std::size_t width, std::size_t height, double db_min, double db_max,
                      double decay, const std::string& resample, const std::string& average, double alpha,
                      bool max_hold, std::size_t waterfall_rows, std::size_t bin_begin, std::size_t bin_end) {
              return std::make_unique<guarded<display>>(display_settings(n, width, height, db_min, db_max, decay,
                                                                         resample, average, alpha, max_hold,
                                                                         waterfall_rows, bin_begin, bin_end));
          }),
          py::arg("n"),
          py::arg("width") = 1024,
          py::arg("height") = 256,
          py::arg("db_min") = -120.0,
          py::arg("db_max") = 0.0,
          py::arg("decay") = 0.99,
          py::arg("resample") = "max",
          py::arg("average") = "exponential",
          py::arg("alpha") = 0.1,
          py::arg("max_hold") = true,
          py::arg("waterfall_rows") = 1,
          py::arg("bin_begin") = 0,
          py::arg("bin_end") = 0,
          "resample: max or mean over the bins of a column; average: exponential\n"
          "(alpha) or linear; the columns show the bins [bin_begin, bin_end)\n"
          "(bin_end 0: n). Raises gpufft.error naming a bad parameter.")
        .def("push", &push_frames, py::arg("frames"), "Push float32 dB frames, shape (count, n) or (n,).")
        .def_property_readonly("n", [](guarded<display>& g) { return g.engine().config().n; })
        .def_property_readonly(
            "column_bins",
            [](guarded<display>& g) {
                const std::size_t w = g.engine().config().width;
                py::array_t<std::int64_t> out({ py::ssize_t(w), py::ssize_t(2) });
                auto* p = out.mutable_data();
                for (std::size_t c = 0; c < w; ++c) {
                    const auto b = g.engine().column_bins(c);
                    p[2 * c] = std::int64_t(b.first);
                    p[2 * c + 1] = std::int64_t(b.second);
                }
                return out;
            },
            "(width, 2): the bins [first, last) each column covers.");
    bind_display_common(d);

    using G = guarded<spectrum_display>;
    py::class_<G> s(m,
                    "spectrum_display",
                    "Raw I/Q in, display images out: every frame's dB spectrum (window, FFT,\n"
                    "|X|^2, dBFS as gpufft.spectrum's, fftshift) goes into the display pipeline (as\n"
                    "gpufft.display). On the opencl backend the whole pipeline runs on the\n"
                    "device and only the read-outs come back. include/gpufft/spectrum_display.h.");
    s.def(py::init([](std::size_t fft_size, std::size_t width, std::size_t height, double db_min, double db_max,
                      double decay, const std::string& resample, const std::string& average, double alpha,
                      bool max_hold, std::size_t waterfall_rows, double sample_rate, const std::string& format,
                      double overlap, const std::string& window, std::size_t batch, const std::string& backend,
                      std::size_t bin_begin, std::size_t bin_end) {
              gpufft::spectrum_config sc;
              sc.fft_size = fft_size;
              sc.sample_rate = sample_rate;
              sc.format = gpufft::parse_sample_format(format);
              sc.overlap = overlap;
              sc.window = window;
              sc.batch = batch;
              sc.backend = backend;
              const auto dc = display_settings(fft_size, width, height, db_min, db_max, decay, resample, average,
                                               alpha, max_hold, waterfall_rows, bin_begin, bin_end);
              py::gil_scoped_release nogil;
              return std::make_unique<G>(sc, dc);
          }),
          py::arg("fft_size"),
          py::arg("width") = 1024,
          py::arg("height") = 256,
          py::arg("db_min") = -120.0,
          py::arg("db_max") = 0.0,
          py::arg("decay") = 0.99,
          py::arg("resample") = "max",
          py::arg("average") = "exponential",
          py::arg("alpha") = 0.1,
          py::arg("max_hold") = true,
          py::arg("waterfall_rows") = 1,
          py::arg("sample_rate") = 1.0,
          py::arg("format") = "cf32",
          py::arg("overlap") = 0.0,
          py::arg("window") = "blackmanharris",
          py::arg("batch") = 0,
          py::arg("backend") = "auto",
          py::arg("bin_begin") = 0,
          py::arg("bin_end") = 0,
          "The display's settings as gpufft.display's (n = fft_size), the spectrum's as\n"
          "gpufft.spectrum's. Raises gpufft.error naming a bad parameter.")
        .def(
            "push",
            [](G& d, const py::array& a) {
                check_samples(a, d.engine().spectrum_settings().format, "spectrum_display");
                const auto* data = a.data();
                const auto bytes = std::size_t(a.nbytes());
                return d.locked_nogil([&](spectrum_display& e) { return e.push_bytes(data, bytes); });
            },
            py::arg("samples"),
            "Push samples (dtype per format, any length); returns the frames displayed.")
        .def(
            "flush",
            [](G& d) { return d.locked_nogil([](spectrum_display& e) { return e.flush(); }); },
            "Display the complete frames still waiting for a batch; returns how many.")
        .def_property_readonly("fft_size", [](G& d) { return d.engine().spectrum_settings().fft_size; })
        .def_property_readonly("backend", [](G& d) { return d.engine().backend(); });
    bind_display_common(s);
}
