/*
 * gr-gpufft Python bindings: gpufft.display, the display pipeline
 * (include/gpufft/display.h), fed with numpy arrays of dB spectra.
 */
#include "bindings.h"
#include <gpufft/display.h>
#include <gpufft/error.h>
#include <pybind11/numpy.h>
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

class py_display
{
public:
    explicit py_display(const gpufft::display_config& c) : d_d(c) {}

    void push(const py::array& a)
    {
        if (!py::array_t<float>::check_(a))
            throw py::type_error("gpufft: display.push takes a float32 array, got " +
                                 std::string(py::str(a.dtype())) + " (nothing is converted silently)");
        if (!(a.flags() & py::array::c_style))
            throw gpufft::error("gpufft: display.push: frames must be C-contiguous; use numpy.ascontiguousarray()");
        const std::size_t n = d_d.config().n;
        const bool one = a.ndim() == 1 && std::size_t(a.shape(0)) == n;
        const bool many = a.ndim() == 2 && std::size_t(a.shape(1)) == n;
        if (!one && !many)
            throw gpufft::error("gpufft: display.push takes frames of shape (count, n) or (n,) with n = " +
                                std::to_string(n) + ", got shape " + std::string(py::str(py::cast(a.request().shape))));
        const auto* data = static_cast<const float*>(a.data());
        const std::size_t count = one ? 1 : std::size_t(a.shape(0));
        py::gil_scoped_release nogil;
        std::lock_guard<std::mutex> lock(d_mutex);
        d_d.push(data, count);
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
    void locked(F&& fn)
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        fn(d_d);
    }

    gpufft::display& engine() { return d_d; }

private:
    gpufft::display d_d;
    std::mutex d_mutex;
};

} // namespace

void bind_display(py::module& m)
{
    using gpufft::display;
    py::class_<py_display>(m,
                           "display",
                           "The display pipeline: frames of n dB values (fftshifted) in, a\n"
                           "persistence histogram (height x width), average and max-hold traces\n"
                           "and waterfall rows (width columns) out. Definitions: README.md,\n"
                           "'Display pipeline', and include/gpufft/display.h.")
        .def(py::init([](std::size_t n,
                         std::size_t width,
                         std::size_t height,
                         double db_min,
                         double db_max,
                         double decay,
                         const std::string& resample,
                         const std::string& average,
                         double alpha,
                         bool max_hold,
                         std::size_t waterfall_rows) {
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
                 return std::make_unique<py_display>(c);
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
             "resample: max or mean over the bins of a column; average: exponential\n"
             "(alpha) or linear. Raises gpufft.error naming a bad parameter.")
        .def("push", &py_display::push, py::arg("frames"),
             "Push float32 dB frames, shape (count, n) or (n,).")
        .def("histogram",
             [](py_display& d) {
                 const auto& c = d.engine().config();
                 return d.read({ py::ssize_t(c.height), py::ssize_t(c.width) },
                               [&](float* p) { d.engine().read_histogram(p); });
             },
             "The histogram, shape (height, width); row 0 is db_min.")
        .def("average",
             [](py_display& d) {
                 return d.read({ py::ssize_t(d.engine().config().width) },
                               [&](float* p) { d.engine().read_average(p); });
             },
             "The average trace (width,), NaN before the first frame.")
        .def("max_hold",
             [](py_display& d) {
                 return d.read({ py::ssize_t(d.engine().config().width) },
                               [&](float* p) { d.engine().read_max_hold(p); });
             },
             "The max-hold trace (width,), NaN before the first frame or while off.")
        .def(
            "waterfall",
            [](py_display& d, std::size_t rows) {
                const auto& c = d.engine().config();
                if (rows == 0) // the default: every row kept
                    rows = c.waterfall_rows;
                // rows > waterfall_rows: read_waterfall raises, naming it.
                return d.read({ py::ssize_t(std::min(rows, c.waterfall_rows)), py::ssize_t(c.width) },
                              [&](float* p) { d.engine().read_waterfall(p, rows); });
            },
            py::arg("rows") = 0,
            "The newest rows (default all waterfall_rows), shape (rows, width),\n"
            "oldest first; rows before the first frame are NaN.")
        .def("reset", [](py_display& d) { d.locked([](display& e) { e.reset(); }); })
        .def("reset_max_hold", [](py_display& d) { d.locked([](display& e) { e.reset_max_hold(); }); })
        .def(
            "set_db_range",
            [](py_display& d, double lo, double hi) { d.locked([&](display& e) { e.set_db_range(lo, hi); }); },
            py::arg("db_min"),
            py::arg("db_max"),
            "New dB range; clears the histogram.")
        .def(
            "set_decay",
            [](py_display& d, double decay) { d.locked([&](display& e) { e.set_decay(decay); }); },
            py::arg("decay"))
        .def(
            "set_resample",
            [](py_display& d, const std::string& mode) {
                const auto r = gpufft::parse_display_resample(mode);
                d.locked([&](display& e) { e.set_resample(r); });
            },
            py::arg("mode"))
        .def(
            "set_average",
            [](py_display& d, const std::string& mode, double alpha) {
                const auto a = gpufft::parse_display_average(mode);
                d.locked([&](display& e) { e.set_average(a, alpha); });
            },
            py::arg("mode"),
            py::arg("alpha") = 0.1)
        .def(
            "set_max_hold",
            [](py_display& d, bool on) { d.locked([&](display& e) { e.set_max_hold(on); }); },
            py::arg("on"))
        .def_property_readonly("frames", [](py_display& d) { return d.engine().frames(); })
        .def_property_readonly("n", [](py_display& d) { return d.engine().config().n; })
        .def_property_readonly("width", [](py_display& d) { return d.engine().config().width; })
        .def_property_readonly("height", [](py_display& d) { return d.engine().config().height; })
        .def_property_readonly(
            "column_bins",
            [](py_display& d) {
                const std::size_t w = d.engine().config().width;
                py::array_t<std::int64_t> out({ py::ssize_t(w), py::ssize_t(2) });
                auto* p = out.mutable_data();
                for (std::size_t c = 0; c < w; ++c) {
                    const auto b = d.engine().column_bins(c);
                    p[2 * c] = std::int64_t(b.first);
                    p[2 * c + 1] = std::int64_t(b.second);
                }
                return out;
            },
            "(width, 2): the bins [first, last) each column covers.");
}
