/*
 * gr-gpufft Python bindings: gpufft.plan, which executes on numpy complex64 arrays.
 *
 * Nothing is converted silently: an array of another dtype, layout or length
 * is refused with TypeError (dtype) or ValueError (everything else).
 */
#include "bindings.h"
#include <gpufft/gpufft.h>
#include <pybind11/numpy.h>
#include <algorithm>
#include <complex>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

using cfloat = std::complex<float>;

std::size_t non_negative(std::int64_t v, const char* what)
{
    if (v < 0) {
        std::ostringstream msg;
        msg << "gpufft: " << what << " must not be negative (got " << v << ")";
        throw gpufft::error(msg.str());
    }
    return static_cast<std::size_t>(v);
}

gpufft::problem make_problem(std::int64_t n,
                             bool forward,
                             std::int64_t batch,
                             std::int64_t distance)
{
    gpufft::problem p;
    p.n = non_negative(n, "n");
    p.dir = forward ? gpufft::direction::forward : gpufft::direction::inverse;
    p.batch = non_negative(batch, "batch");
    p.distance = non_negative(distance, "distance");
    return p;
}

gpufft::plan_options
make_options(const std::string& backend, bool tune, std::int64_t threads)
{
    gpufft::plan_options o;
    o.backend = backend;
    o.tune = tune;
    const std::size_t t = non_negative(threads, "threads");
    if (t > 0xffffffffu)
        throw gpufft::error("gpufft: threads is too large");
    o.threads = static_cast<unsigned>(t);
    return o;
}

std::string shape_string(const py::array& a)
{
    std::ostringstream s;
    s << "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i)
        s << (i ? ", " : "") << a.shape(i);
    s << (a.ndim() == 1 ? ",)" : ")");
    return s.str();
}

//! A gpufft::plan with a lock, so that two Python threads sharing one plan
//! (the GIL is released while it runs) take turns instead of racing.
class py_plan
{
public:
    py_plan(const gpufft::problem& p, const gpufft::plan_options& o) : d_plan(p, o) {}

    const gpufft::problem& problem() const { return d_plan.problem(); }
    const std::string& backend() const { return d_plan.backend(); }
    std::string describe() const { return d_plan.describe(); }

    py::object execute(const py::object& in_obj, const py::object& out_obj)
    {
        const py::array in = checked_array(in_obj, "input");
        py::array out;
        if (out_obj.is_none()) {
            std::vector<py::ssize_t> shape(in.shape(), in.shape() + in.ndim());
            out = py::array_t<cfloat>(shape);
        } else {
            out = checked_array(out_obj, "out");
            if (!out.writeable())
                throw gpufft::error("gpufft: out is read-only");
            if (out.ndim() != in.ndim() ||
                !std::equal(in.shape(), in.shape() + in.ndim(), out.shape()))
                throw gpufft::error("gpufft: out has shape " + shape_string(out) +
                                    " but the input has shape " + shape_string(in));
        }

        const auto* src = static_cast<const cfloat*>(in.data());
        auto* dst = static_cast<cfloat*>(out.mutable_data());
        const auto in_len = static_cast<std::size_t>(in.size());
        const auto out_len = static_cast<std::size_t>(out.size());
        const bool fresh = out_obj.is_none();
        const auto& p = d_plan.problem();
        {
            py::gil_scoped_release nogil;
            // A new array's elements between transforms (distance > n) are
            // not written by the transform: make them zero, not garbage.
            if (fresh && p.stride() > p.n)
                std::fill(dst, dst + out_len, cfloat(0.0f, 0.0f));
            std::lock_guard<std::mutex> lock(d_mutex);
            // The checked call also refuses partly overlapping buffers.
            d_plan.execute(src, in_len, dst, out_len);
        }
        return std::move(out);
    }

private:
    //! A C-contiguous, aligned, native complex64 array of an accepted shape.
    py::array checked_array(const py::object& obj, const char* name) const
    {
        if (!py::isinstance<py::array>(obj))
            throw py::type_error(std::string("gpufft: ") + name +
                                 " must be a numpy array of dtype complex64, got " +
                                 std::string(py::str(py::type::of(obj).attr("__name__"))));
        const auto a = py::reinterpret_borrow<py::array>(obj);
        if (!py::array_t<cfloat>::check_(a)) {
            const std::string dt = py::str(a.dtype());
            std::string msg = std::string("gpufft: ") + name +
                              " must have dtype complex64, got " + dt;
            if (a.dtype().kind() == 'c')
                msg += "; cast it with .astype(numpy.complex64) (nothing is converted "
                       "silently)";
            throw py::type_error(msg);
        }
        if (!(a.flags() & py::array::c_style))
            throw gpufft::error(std::string("gpufft: ") + name +
                                " must be C-contiguous; use numpy.ascontiguousarray()");
        if (!py::detail::check_flags(a.ptr(), py::detail::npy_api::NPY_ARRAY_ALIGNED_))
            throw gpufft::error(std::string("gpufft: ") + name +
                                " is not aligned for complex64");

        const auto& p = d_plan.problem();
        const bool ok_1d = a.ndim() == 1 && static_cast<std::size_t>(a.shape(0)) == p.span();
        const bool ok_2d = a.ndim() == 2 && p.stride() == p.n &&
                           static_cast<std::size_t>(a.shape(0)) == p.batch &&
                           static_cast<std::size_t>(a.shape(1)) == p.n;
        if (!ok_1d && !ok_2d) {
            std::ostringstream msg;
            msg << "gpufft: " << name << " has shape " << shape_string(a) << " but the plan ("
                << p.describe() << ") takes a 1-D array of " << p.span() << " elements";
            if (p.stride() == p.n)
                msg << " or a 2-D array of shape (" << p.batch << ", " << p.n << ")";
            throw gpufft::error(msg.str());
        }
        return a;
    }

    gpufft::plan d_plan;
    std::mutex d_mutex;
};

} // namespace

void bind_plan(py::module& m)
{
    py::class_<py_plan>(m,
                        "plan",
                        "A batched complex64 FFT, planned once and executed many times.\n\n"
                        "Transform b reads a[b*distance + j] for j < n (a 1-D array of\n"
                        "(batch-1)*distance + n elements, or a 2-D (batch, n) array when\n"
                        "distance is n). Unnormalized: forward then inverse multiplies by n.\n"
                        "One plan runs one execute() at a time; use a plan per thread for\n"
                        "parallel work.")
        .def(py::init([](std::int64_t n,
                         bool forward,
                         std::int64_t batch,
                         const std::string& backend,
                         std::int64_t distance,
                         bool tune,
                         std::int64_t threads) {
                 const auto p = make_problem(n, forward, batch, distance);
                 const auto o = make_options(backend, tune, threads);
                 // Planning may probe drivers or measure (tune): let other threads run.
                 py::gil_scoped_release nogil;
                 return std::make_unique<py_plan>(p, o);
             }),
             py::arg("n"),
             py::arg("forward") = true,
             py::arg("batch") = 1,
             py::arg("backend") = "auto",
             py::arg("distance") = 0,
             py::arg("tune") = false,
             py::arg("threads") = 1,
             "Plan batch transforms of size n. backend: 'auto', a name ('simd') or\n"
             "name:variant ('simd:avx2'). distance: elements between transform\n"
             "starts, 0 meaning n. tune: measure candidates and remember the winner.\n"
             "threads: worker threads a batch is split across. Raises gpufft.error\n"
             "(a ValueError) for bad arguments or an unknown backend.")
        .def("execute",
             &py_plan::execute,
             py::arg("a"),
             py::arg("out") = py::none(),
             "Transform the complex64 array a. Returns a new array of a's shape, or\n"
             "writes into out (same shape; in place when out is a) and returns it.\n"
             "Raises TypeError for another dtype and ValueError for a wrong shape,\n"
             "layout or partly overlapping out.")
        .def_property_readonly(
            "n", [](const py_plan& p) { return p.problem().n; }, "Transform size.")
        .def_property_readonly(
            "batch", [](const py_plan& p) { return p.problem().batch; }, "Number of transforms.")
        .def_property_readonly(
            "distance",
            [](const py_plan& p) { return p.problem().stride(); },
            "Elements between transform starts (n when planned with distance=0).")
        .def_property_readonly(
            "span",
            [](const py_plan& p) { return p.problem().span(); },
            "Elements a 1-D buffer holds: (batch - 1) * distance + n.")
        .def_property_readonly(
            "forward",
            [](const py_plan& p) { return p.problem().dir == gpufft::direction::forward; },
            "True for exp(-2 pi i jk/n), False for the inverse.")
        .def_property_readonly(
            "backend", &py_plan::backend, "The backend and variant running it, e.g. 'simd:avx2'.")
        .def("describe", &py_plan::describe, "The algorithm the backend chose.")
        .def("__repr__", [](const py_plan& p) {
            return "<gpufft.plan " + p.problem().describe() + " on " + p.backend() + ">";
        });
}
