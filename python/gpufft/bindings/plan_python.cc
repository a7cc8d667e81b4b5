// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * gr-gpufft Python bindings: gpufft.plan, which executes on numpy arrays:
 * complex64 for c2c, float32 in and complex64 out for r2c, the reverse for c2r.
 *
 * Nothing is converted silently: an array of another dtype, layout or length
 * is refused with TypeError (dtype) or ValueError (everything else).
 */
#include "bindings.h"
#include <gpufft/gpufft.h>
#include <pybind11/numpy.h>
#include <algorithm>
#include <cstring>
#include <complex>
#include <cstdint>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

using cfloat = std::complex<float>;

//! obj's type as a user would spell it: "float", "numpy.complex64".
std::string type_name(const py::handle& obj)
{
    const py::handle type = py::type::of(obj);
    const std::string module = py::str(type.attr("__module__"));
    const std::string name = py::str(type.attr("__qualname__"));
    return module == "builtins" ? name : module + "." + name;
}

//! An integer argument taken as operator.index() takes it: a TypeError naming
//! the parameter for anything else (1.5, "8"), an OverflowError beyond int64.
std::int64_t integer_arg(const py::handle& v, const char* what)
{
    if (!PyIndex_Check(v.ptr()))
        throw py::type_error(std::string("gpufft: ") + what + " must be an integer, got " +
                             type_name(v));
    const auto i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
    if (!i)
        throw py::error_already_set();
    int overflow = 0;
    const long long r = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow != 0) {
        const std::string msg = std::string("gpufft: ") + what + " is out of range (got " +
                                std::string(py::str(i)) + ")";
        PyErr_SetString(PyExc_OverflowError, msg.c_str());
        throw py::error_already_set();
    }
    if (r == -1 && PyErr_Occurred())
        throw py::error_already_set();
    return r;
}

std::size_t non_negative(std::int64_t v, const char* what)
{
    if (v < 0) {
        std::ostringstream msg;
        msg << "gpufft: " << what << " must not be negative (got " << v << ")";
        throw gpufft::error(msg.str());
    }
    return static_cast<std::size_t>(v);
}

gpufft::transform_kind parse_kind(const std::string& kind)
{
    for (auto k : { gpufft::transform_kind::c2c, gpufft::transform_kind::r2c,
                    gpufft::transform_kind::c2r })
        if (kind == gpufft::kind_name(k))
            return k;
    throw gpufft::error("gpufft: kind must be 'c2c', 'r2c' or 'c2r' (got '" + kind + "')");
}

// direction: "forward", "inverse" or None; None takes `forward`, except
// that c2r is always inverse.
gpufft::direction parse_direction(const py::object& direction, bool forward, gpufft::transform_kind k)
{
    if (direction.is_none())
        return forward && k != gpufft::transform_kind::c2r ? gpufft::direction::forward
                                                           : gpufft::direction::inverse;
    if (!py::isinstance<py::str>(direction))
        throw py::type_error("gpufft: direction must be 'forward', 'inverse' or None, got " +
                             type_name(direction));
    const auto d = direction.cast<std::string>();
    if (d == "forward")
        return gpufft::direction::forward;
    if (d == "inverse" || d == "backward")
        return gpufft::direction::inverse;
    throw gpufft::error("gpufft: direction must be 'forward' or 'inverse' (got '" + d + "')");
}

gpufft::problem make_problem(const py::object& n,
                             const py::object& shape,
                             const std::string& kind,
                             bool forward,
                             const py::object& direction,
                             const py::object& batch,
                             const py::object& distance,
                             const py::object& real_distance)
{
    gpufft::problem p;
    if (n.is_none() == shape.is_none())
        throw gpufft::error("gpufft: give either n (a 1-D size) or shape (a tuple of dimensions)");
    if (!n.is_none())
        p.n = non_negative(integer_arg(n, "n"), "n");
    else if (!py::isinstance<py::iterable>(shape))
        throw gpufft::error("gpufft: shape must be a tuple of dimensions, e.g. (ny, nx)");
    else
        for (const auto& d : shape)
            p.dims.push_back(non_negative(integer_arg(d, "a dimension of shape"), "a dimension of shape"));
    if (!shape.is_none() && p.dims.empty())
        throw gpufft::error("gpufft: shape must have at least one dimension");
    p.kind = parse_kind(kind);
    p.dir = parse_direction(direction, forward, p.kind);
    p.batch = non_negative(integer_arg(batch, "batch"), "batch");
    p.distance = non_negative(integer_arg(distance, "distance"), "distance");
    p.real_distance = non_negative(integer_arg(real_distance, "real_distance"), "real_distance");
    return p;
}

std::string shape_string(const std::vector<py::ssize_t>& shape)
{
    std::ostringstream s;
    s << "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s << (i ? ", " : "") << shape[i];
    s << (shape.size() == 1 ? ",)" : ")");
    return s.str();
}

std::vector<py::ssize_t> shape_of(const py::array& a)
{
    return std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim());
}

//! plan_options::input_weights from a 1-D array or sequence of reals (None:
//! no weights); the core checks their count and values.
std::vector<float> input_weights_of(const py::object& w)
{
    if (w.is_none())
        return {};
    const py::array a = py::array::ensure(w);
    if (!a)
        throw py::type_error("gpufft: input_weights must be a 1-D array of real numbers, got " +
                             type_name(w));
    const char kind = a.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u')
        throw py::type_error("gpufft: input_weights must be real numbers, got dtype " +
                             std::string(py::str(a.dtype())));
    if (a.ndim() != 1)
        throw gpufft::error("gpufft: input_weights must be 1-D (one weight a point), got shape " +
                            shape_string(shape_of(a)));
    const auto values = py::array_t<double, py::array::forcecast>::ensure(a);
    std::vector<float> out(static_cast<std::size_t>(values.size()));
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<float>(values.at(py::ssize_t(i)));
    return out;
}

gpufft::plan_options make_options(const std::string& backend,
                                  bool tune,
                                  const py::object& threads,
                                  const py::object& input_weights)
{
    gpufft::plan_options o;
    o.backend = backend;
    o.tune = tune;
    o.input_weights = input_weights_of(input_weights);
    const std::size_t t = non_negative(integer_arg(threads, "threads"), "threads");
    if (t > 0xffffffffu)
        throw gpufft::error("gpufft: threads is too large");
    o.threads = static_cast<unsigned>(t);
    return o;
}

// One side of a problem's buffers: the real side of r2c/c2r, else the complex one.
struct side {
    bool real;
    std::size_t span;                     //!< elements of a flat buffer
    std::vector<py::ssize_t> transform;   //!< one packed transform's shape
    bool packed;                          //!< transforms back to back
};

side side_of(const gpufft::problem& p, bool real)
{
    side s{ real, real ? p.real_span() : p.span(), {}, false };
    for (std::size_t d : p.shape())
        s.transform.push_back(py::ssize_t(d));
    if (!real && p.kind != gpufft::transform_kind::c2c)
        s.transform.back() = s.transform.back() / 2 + 1;
    s.packed = p.strides.empty() &&
               (real ? p.real_stride() == p.real_extent() : p.stride() == p.complex_extent());
    return s;
}

// The accepted array shapes: flat (span elements), (batch, *transform) when
// packed, and transform itself when batch is 1. Returns whether `shape` is
// one of the shaped forms (else flat); throws if it is none.
bool check_shape(const std::vector<py::ssize_t>& shape,
                 const gpufft::problem& p,
                 const side& s,
                 const char* name)
{
    std::vector<py::ssize_t> batched{ py::ssize_t(p.batch) };
    batched.insert(batched.end(), s.transform.begin(), s.transform.end());
    if (s.packed && shape == batched)
        return true;
    if (p.batch == 1 && shape == s.transform)
        return true;
    if (shape.size() == 1 && std::size_t(shape[0]) == s.span)
        return false;
    std::ostringstream msg;
    msg << "gpufft: " << name << " has shape " << shape_string(shape) << " but the plan ("
        << p.describe() << ") takes " << (s.real ? "float32" : "complex64") << " arrays of "
        << s.span << " elements";
    if (s.packed)
        msg << " or shape " << shape_string(batched);
    if (p.batch == 1)
        msg << " or " << shape_string(s.transform);
    if (p.kind != gpufft::transform_kind::c2c)
        msg << " (" << p.shape().back() << " reals <-> " << p.shape().back() / 2 + 1
            << " complex along the last axis)";
    throw gpufft::error(msg.str());
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
        const auto& p = d_plan.problem();
        const side in_side = side_of(p, p.kind == gpufft::transform_kind::r2c);
        const side out_side = side_of(p, p.kind == gpufft::transform_kind::c2r);
        const py::array in = checked_array(in_obj, "input", in_side.real);
        const bool shaped = check_shape(shape_of(in), p, in_side, "input");
        // The output's form follows the input's: flat, or shaped like it.
        std::vector<py::ssize_t> shape{ py::ssize_t(out_side.span) };
        if (shaped) {
            shape = out_side.transform;
            if (std::size_t(in.ndim()) > in_side.transform.size())
                shape.insert(shape.begin(), py::ssize_t(p.batch));
        }
        py::array out;
        if (out_obj.is_none()) {
            if (out_side.real)
                out = py::array_t<float>(shape);
            else
                out = py::array_t<cfloat>(shape);
        } else {
            out = checked_array(out_obj, "out", out_side.real);
            if (!out.writeable())
                throw gpufft::error("gpufft: out is read-only");
            if (shape_of(out) != shape)
                throw gpufft::error("gpufft: out has shape " + shape_string(shape_of(out)) +
                                    " but an input of shape " + shape_string(shape_of(in)) +
                                    " gives " + shape_string(shape));
        }

        const auto in_len = static_cast<std::size_t>(in.size());
        const auto out_len = static_cast<std::size_t>(out.size());
        const bool fresh = out_obj.is_none();
        const bool gaps = out_side.real ? p.real_stride() > p.real_extent()
                                        : p.stride() > p.complex_extent() || !p.strides.empty();
        const void* src = in.data();
        void* dst = out.mutable_data();
        {
            py::gil_scoped_release nogil;
            // A new array's elements between transforms are not written by
            // the transform: make them zero, not garbage.
            if (fresh && gaps)
                std::memset(dst, 0, out_len * (out_side.real ? sizeof(float) : sizeof(cfloat)));
            std::lock_guard<std::mutex> lock(d_mutex);
            // The checked calls also refuse partly overlapping buffers.
            switch (p.kind) {
            case gpufft::transform_kind::c2c:
                d_plan.execute(static_cast<const cfloat*>(src), in_len, static_cast<cfloat*>(dst),
                               out_len);
                break;
            case gpufft::transform_kind::r2c:
                d_plan.execute_r2c(static_cast<const float*>(src), in_len,
                                   static_cast<cfloat*>(dst), out_len);
                break;
            case gpufft::transform_kind::c2r:
                d_plan.execute_c2r(static_cast<const cfloat*>(src), in_len,
                                   static_cast<float*>(dst), out_len);
                break;
            }
        }
        return std::move(out);
    }

private:
    //! A C-contiguous, aligned, native array of the side's dtype.
    static py::array checked_array(const py::object& obj, const char* name, bool real)
    {
        const char* want = real ? "float32" : "complex64";
        if (!py::isinstance<py::array>(obj))
            throw py::type_error(std::string("gpufft: ") + name + " must be a numpy array of dtype " +
                                 want + ", got an object of type " + type_name(obj) +
                                 " (use numpy.asarray)");
        const auto a = py::reinterpret_borrow<py::array>(obj);
        const bool dtype_ok = real ? py::array_t<float>::check_(a) : py::array_t<cfloat>::check_(a);
        if (!dtype_ok) {
            const std::string dt = py::str(a.dtype());
            std::string msg = std::string("gpufft: ") + name + " must have dtype " + want +
                              ", got " + dt;
            if (a.dtype().kind() == (real ? 'f' : 'c'))
                msg += std::string("; cast it with .astype(numpy.") + want +
                       ") (nothing is converted silently)";
            throw py::type_error(msg);
        }
        if (!(a.flags() & py::array::c_style))
            throw gpufft::error(std::string("gpufft: ") + name +
                                " must be C-contiguous; use numpy.ascontiguousarray()");
        if (!py::detail::check_flags(a.ptr(), py::detail::npy_api::NPY_ARRAY_ALIGNED_))
            throw gpufft::error(std::string("gpufft: ") + name + " is not aligned for " + want);
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
                        "A batched FFT (c2c, r2c or c2r, any rank), planned once and\n"
                        "executed many times.\n\n"
                        "Transform b reads a[b*distance + j] for j < n (a 1-D array of\n"
                        "(batch-1)*distance + n elements, or a 2-D (batch, n) array when\n"
                        "distance is n); with shape=, arrays of shape or (batch,) + shape.\n"
                        "Unnormalized: forward then inverse multiplies by n.\n"
                        "One plan runs one execute() at a time; use a plan per thread for\n"
                        "parallel work.")
        .def(py::init([](const py::object& n,
                         bool forward,
                         const py::object& batch,
                         const std::string& backend,
                         const py::object& distance,
                         bool tune,
                         const py::object& threads,
                         const py::object& shape,
                         const std::string& kind,
                         const py::object& direction,
                         const py::object& real_distance,
                         const py::object& input_weights) {
                 const auto p =
                     make_problem(n, shape, kind, forward, direction, batch, distance, real_distance);
                 const auto o = make_options(backend, tune, threads, input_weights);
                 // Planning may probe drivers or measure (tune): let other threads run.
                 py::gil_scoped_release nogil;
                 return std::make_unique<py_plan>(p, o);
             }),
             py::arg("n") = py::none(),
             py::arg("forward") = true,
             py::arg("batch") = py::int_(1),
             py::arg("backend") = "auto",
             py::arg("distance") = py::int_(0),
             py::arg("tune") = false,
             py::arg("threads") = py::int_(1),
             py::kw_only(),
             py::arg("shape") = py::none(),
             py::arg("kind") = "c2c",
             py::arg("direction") = py::none(),
             py::arg("real_distance") = py::int_(0),
             py::arg("input_weights") = py::none(),
             "Plan batch transforms of size n, or of a shape (a tuple, row-major,\n"
             "last axis contiguous). backend: 'auto', a name ('simd') or\n"
             "name:variant ('simd:avx2'). distance: complex elements between\n"
             "transform starts, 0 meaning packed. tune: measure candidates and\n"
             "remember the winner (1-D c2c). threads: worker threads a batch is\n"
             "split across. kind: 'c2c', 'r2c' (float32 in, complex64 out, last\n"
             "axis N -> N//2 + 1, forward) or 'c2r' (the reverse, inverse).\n"
             "direction: 'forward' or 'inverse', overriding forward.\n"
             "real_distance: r2c/c2r, float32 elements between transforms on the\n"
             "real side, 0 meaning packed. input_weights: one real weight a\n"
             "point (c2c, r2c), e.g. a window, multiplied into every transform's\n"
             "input as the plan reads it (the simd backend in its first pass).\n"
             "Unnormalized (FFTW's convention).\n"
             "Raises gpufft.error (a ValueError) for bad arguments or shapes, an\n"
             "unknown backend or one without this kind; TypeError for a size that\n"
             "is not an integer, OverflowError for one beyond 64 bits.")
        .def("execute",
             &py_plan::execute,
             py::arg("a"),
             py::arg("out") = py::none(),
             "Transform the array a: complex64 (c2c, c2r) or float32 (r2c), flat\n"
             "(span elements), shape, or (batch,) + shape. Returns a new array of\n"
             "the output's dtype in a's form (the last axis N//2 + 1 for r2c, N for\n"
             "c2r), or writes into out and returns it (c2c in place when out is a).\n"
             "Raises TypeError for another dtype and ValueError for a wrong shape,\n"
             "layout or partly overlapping out.")
        .def_property_readonly(
            "n", [](const py_plan& p) { return p.problem().n; },
            "Points of one transform (the product of shape).")
        .def_property_readonly(
            "shape",
            [](const py_plan& p) {
                py::tuple t(p.problem().shape().size());
                for (std::size_t i = 0; i < t.size(); ++i)
                    t[i] = p.problem().shape()[i];
                return t;
            },
            "The transform's logical shape (reals for r2c/c2r), (n,) in 1-D.")
        .def_property_readonly(
            "kind",
            [](const py_plan& p) { return std::string(gpufft::kind_name(p.problem().kind)); },
            "'c2c', 'r2c' or 'c2r'.")
        .def_property_readonly(
            "real_distance",
            [](const py_plan& p) { return p.problem().real_stride(); },
            "r2c/c2r: float32 elements between transforms on the real side.")
        .def_property_readonly(
            "real_span",
            [](const py_plan& p) { return p.problem().real_span(); },
            "r2c/c2r: elements a flat float32 buffer holds.")
        .def_property_readonly(
            "batch", [](const py_plan& p) { return p.problem().batch; }, "Number of transforms.")
        .def_property_readonly(
            "distance",
            [](const py_plan& p) { return p.problem().stride(); },
            "Complex elements between transform starts (packed when planned with distance=0).")
        .def_property_readonly(
            "span",
            [](const py_plan& p) { return p.problem().span(); },
            "Complex elements a flat buffer holds: (batch - 1) * distance + extent.")
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
