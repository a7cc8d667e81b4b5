// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: real (r2c, c2r) and multi-dimensional
 * transforms, and bad shapes. Each case runs on fresh random data with the
 * outputs poisoned, against FFTW double of the same shape, with the
 * criterion of qa_common.h (FFTW float's error on the same inputs as the
 * yardstick). */
#include "qa_common.h"
#include "qa_shaped_reference.h"

#include <fftw3.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>

namespace qa {

namespace {

using gpufft::direction;
using gpufft::transform_kind;

std::string joined(const std::vector<std::size_t>& v, const char* sep = "x")
{
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? sep : "") + std::to_string(v[i]);
    return s;
}

gpufft::problem shaped(transform_kind kind, std::vector<std::size_t> dims, std::size_t batch = 1,
                       std::size_t distance = 0, std::size_t real_distance = 0)
{
    gpufft::problem p;
    p.kind = kind;
    p.dir = kind == transform_kind::c2r ? direction::inverse : direction::forward;
    p.dims = std::move(dims);
    p.batch = batch;
    p.distance = distance;
    p.real_distance = real_distance;
    return p;
}

std::string name_of(const std::string& backend, const gpufft::problem& p, bool in_place)
{
    std::ostringstream s;
    s << backend << " " << gpufft::kind_name(p.kind) << " " << joined(p.dims) << " "
      << dir_name(p.dir) << " batch=" << p.batch;
    if (p.distance)
        s << " distance=" << p.distance;
    if (p.real_distance)
        s << " real_distance=" << p.real_distance;
    if (!p.strides.empty())
        s << " strides=" << joined(p.strides, ",");
    if (in_place)
        s << " in-place";
    return s.str();
}

// Offsets of one transform's elements in a strided layout, row-major order.
std::vector<std::size_t> element_offsets(const gpufft::problem& p)
{
    std::vector<std::size_t> offsets{ 0 };
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
        std::vector<std::size_t> next;
        const std::size_t stride = p.strides.empty() ? 0 : p.strides[d];
        for (std::size_t o : offsets)
            for (std::size_t i = 0; i < p.dims[d]; ++i)
                next.push_back(o + i * stride);
        offsets.swap(next);
    }
    if (p.strides.empty()) // packed: the complex side's row-major layout
        for (std::size_t i = 0; i < offsets.size(); ++i)
            offsets[i] = i;
    return offsets;
}

/*!
 * Plans p on `backend`, runs it on fresh random data (enough calls for
 * min_points points), and checks: every output written (NaN-poisoned
 * first); gaps between transforms untouched; the input unchanged out of
 * place; the error against FFTW double within the criterion.
 */
void check_shaped(failures& f, const std::string& backend, gpufft::problem p, bool in_place = false,
                  unsigned threads = 1)
{
    const std::string name =
        name_of(backend, p, in_place) + (threads > 1 ? " threads=" + std::to_string(threads) : "");
    try {
        gpufft::plan_options o;
        o.backend = backend;
        o.threads = threads;
        gpufft::plan pl(p, o);
        p = pl.problem();
        if (backend.find(':') != std::string::npos && pl.backend() != backend)
            f.add(name + ": plan.backend() reports \"" + pl.backend() + "\"");
        shaped_reference ref(p);
        const bool real_in = p.kind == transform_kind::r2c, real_out = p.kind == transform_kind::c2r;
        const std::size_t in_span = real_in ? p.real_span() : p.span();
        const std::size_t out_span = real_out ? p.real_span() : p.span();
        const std::size_t in_dist = real_in ? p.real_stride() : p.stride();
        const std::size_t out_dist = real_out ? p.real_stride() : p.stride();
        // Which elements of one transform's layout the transform owns.
        const std::vector<std::size_t> complex_offsets = element_offsets(p);
        std::vector<std::size_t> in_offsets(ref.in_size()), out_offsets(ref.out_size());
        for (std::size_t i = 0; i < in_offsets.size(); ++i)
            in_offsets[i] = real_in ? i : complex_offsets[i];
        for (std::size_t i = 0; i < out_offsets.size(); ++i)
            out_offsets[i] = real_out ? i : complex_offsets[i];
        auto owned = [&](const std::vector<std::size_t>& offsets, std::size_t dist,
                         std::size_t span) {
            std::vector<bool> mine(span, false);
            for (std::size_t b = 0; b < p.batch; ++b)
                for (std::size_t off : offsets)
                    mine[b * dist + off] = true;
            return mine;
        };
        const std::vector<bool> in_owned = owned(in_offsets, in_dist, in_span);
        const std::vector<bool> out_owned = owned(out_offsets, out_dist, out_span);

        // Buffers as complex numbers; real sides use the first half of them as floats.
        std::vector<cf> in_buf(in_span), out_buf(in_place ? 0 : out_span), x(in_span);
        float* in_real = reinterpret_cast<float*>(in_buf.data());
        float* out_real = reinterpret_cast<float*>(out_buf.data());
        std::vector<cf> packed_in(ref.in_size()), packed_out(ref.out_size()), yf(ref.out_size());
        std::vector<cd> exact(ref.out_size());
        l2_error ours, fftwf;
        const std::size_t rounds = std::min<std::size_t>(
            64, std::max<std::size_t>(1, min_points / std::max<std::size_t>(1, p.points() * p.batch)));
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (std::size_t r = 0; r < rounds; ++r) {
            const std::string call = rounds > 1 ? name + " call " + std::to_string(r) : name;
            fill_random(in_buf.data(), in_span, call);
            for (std::size_t i = 0; i < in_span; ++i) {
                if (real_in) // reals: the real parts, in place in the same buffer
                    in_real[i] = in_buf[i].real();
                else if (!in_owned[i])
                    in_buf[i] = sentinel(i);
            }
            if (real_in)
                for (std::size_t i = 0; i < in_span; ++i)
                    if (!in_owned[i])
                        in_real[i] = -777.25f;
            if (real_out && p.dims.size() > 1)
                // Beyond rank 1 c2r results depend on how non-Hermitian input is read.
                for (std::size_t b = 0; b < p.batch; ++b) {
                    std::vector<cf> random(p.points());
                    fill_random(random.data(), random.size(), call + " reals " + std::to_string(b));
                    std::vector<float> reals(random.size());
                    for (std::size_t i = 0; i < reals.size(); ++i)
                        reals[i] = random[i].real();
                    ref.hermitian(reals, in_buf.data() + b * in_dist);
                }
            x = in_buf;
            cf* out = in_place ? in_buf.data() : out_buf.data();
            float* out_r = in_place ? in_real : out_real;
            if (!in_place)
                for (std::size_t i = 0; i < out_span; ++i) {
                    if (real_out)
                        out_real[i] = out_owned[i] ? nan : -555.5f;
                    else
                        out_buf[i] = out_owned[i] ? cf(nan, nan) : sentinel(i + 1);
                }

            if (real_in)
                pl.execute_r2c(in_real, in_span, out, out_span);
            else if (real_out)
                pl.execute_c2r(in_buf.data(), in_span, out_r, out_span);
            else
                pl.execute(in_buf.data(), in_span, out, out_span);

            if (!in_place && std::memcmp(x.data(), in_buf.data(),
                                         (real_in ? in_span * sizeof(float) : in_span * sizeof(cf))) != 0) {
                f.add(call + ": out-of-place execute changed its input");
                return;
            }
            for (std::size_t i = 0; i < out_span && !in_place; ++i) {
                const cf want = sentinel(i + 1);
                const bool changed = real_out ? out_real[i] != -555.5f
                                              : std::memcmp(&out_buf[i], &want, sizeof(cf)) != 0;
                if (!out_owned[i] && changed) {
                    f.add(call + ": wrote into the gap at output element " + std::to_string(i));
                    return;
                }
            }
            const float* x_real = reinterpret_cast<const float*>(x.data());
            for (std::size_t b = 0; b < p.batch; ++b) {
                for (std::size_t i = 0; i < packed_in.size(); ++i)
                    packed_in[i] = real_in ? cf(x_real[b * in_dist + i], 0.0f)
                                           : x[b * in_dist + in_offsets[i]];
                for (std::size_t i = 0; i < packed_out.size(); ++i)
                    packed_out[i] = real_out ? cf(out_r[b * out_dist + i], 0.0f)
                                             : out[b * out_dist + out_offsets[i]];
                const std::string where = call + ": transform " + std::to_string(b);
                const std::size_t bad = first_nonfinite(packed_out.data(), packed_out.size());
                if (bad < packed_out.size()) {
                    f.add(where + " left element " + std::to_string(bad) + " unwritten or not finite");
                    return;
                }
                ref.run(packed_in.data(), exact.data(), yf.data());
                const double err_f = fftwf.add(yf.data(), exact.data(), exact.size());
                const double err = ours.add(packed_out.data(), exact.data(), exact.size());
                if (!(err <= transform_cap * std::max(err_f, error_floor))) {
                    std::ostringstream s;
                    s << where << ": rel L2 error " << err << " > " << transform_cap
                      << " x max(FFTW float's " << err_f << ", floor)";
                    f.add(s.str());
                    return;
                }
            }
        }
        check_total(f, name, ours, fftwf);
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

/*!
 * Whether `backend` plans this multi-dimensional shape: simd plans any;
 * opencl refuses dimensions that do not fit one kernel (too large, or a
 * prime factor above 31; for real kinds all but the last), saying so, and
 * that refusal is what is checked.
 */
bool plans_shape(failures& f, const std::string& backend, const gpufft::problem& p)
{
    if (backend.rfind("simd", 0) == 0)
        return true;
    try {
        gpufft::plan_options o;
        o.backend = backend;
        gpufft::plan pl(p, o);
        return true;
    } catch (const gpufft::error& e) {
        if (std::string(e.what()).find("fit one kernel") == std::string::npos)
            f.add(name_of(backend, p, false) + ": threw: " + e.what());
        else
            f.checked();
        return false;
    }
}

// 1, 2, 3, 5, powers of two, primes, mixed radices, sizes whose half is odd
// or prime (2 * 4099), the gr-fft audio size 4410, 2^16.
const std::size_t real_sizes[] = { 1,   2,   3,    4,    5,    6,    7,    8,     9,    10,
                                   11,  12,  13,   15,   16,   17,   18,   30,    31,   32,
                                   64,  97,  100,  127,  128,  250,  256,  1000,  1024, 1023,
                                   4096, 4099, 4410, 8198, 65536 };

} // namespace

// Batches split over worker threads: shares of 1 to 3 transforms, odd N
// real rows paired within each share; fewer transforms than threads split
// each transform's rows and column blocks instead.
static void multidim_threads(failures& f, const std::string& t)
{
    for (unsigned threads : { 2u, 3u }) {
        check_shaped(f, t, shaped(transform_kind::c2c, { 64, 100 }), false, threads);
        check_shaped(f, t, shaped(transform_kind::c2c, { 7, 1, 9 }), true, threads);
        check_shaped(f, t, shaped(transform_kind::c2c, { 5, 6, 17 }, 2, 520), false, threads);
        for (transform_kind k : { transform_kind::r2c, transform_kind::c2r }) {
            check_shaped(f, t, shaped(k, { 5, 9, 7 }), false, threads);
            check_shaped(f, t, shaped(k, { 16, 12, 33 }, 2, 3300, 6400), false, threads);
        }
        check_shaped(f, t, shaped(transform_kind::c2c, { 16, 12, 33 }, 5), false, threads);
        check_shaped(f, t, shaped(transform_kind::c2c, { 64, 100 }, 3), true, threads);
        for (transform_kind k : { transform_kind::r2c, transform_kind::c2r }) {
            check_shaped(f, t, shaped(k, { 17 }, 7), false, threads);
            check_shaped(f, t, shaped(k, { 1000 }, 5), false, threads);
            check_shaped(f, t, shaped(k, { 5, 9, 7 }, 4), false, threads);
        }
    }
}

class qa_real : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_real);
    CPPUNIT_TEST(r2c_sizes);
    CPPUNIT_TEST(c2r_sizes);
    CPPUNIT_TEST(batches_with_distance);
    CPPUNIT_TEST_SUITE_END();

    void r2c_sizes()
    {
        for_each_target("r2c sizes", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : real_sizes)
                check_shaped(f, t, shaped(transform_kind::r2c, { n }));
        });
    }

    // Random complex input, so FFTW's reading of X[0] and X[n/2] (real parts
    // only) is checked too.
    void c2r_sizes()
    {
        for_each_target("c2r sizes", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : real_sizes)
                check_shaped(f, t, shaped(transform_kind::c2r, { n }));
        });
    }

    // Odd batches (odd n pairs rows), gaps on both sides.
    void batches_with_distance()
    {
        for_each_target("real batches", targets(), [](failures& f, const std::string& t) {
            for (std::size_t n : { 1, 2, 5, 16, 17, 1000, 4410 })
                for (std::size_t batch : { 2, 3, 7 })
                    for (transform_kind k : { transform_kind::r2c, transform_kind::c2r }) {
                        check_shaped(f, t, shaped(k, { n }, batch));
                        check_shaped(f, t, shaped(k, { n }, batch, n / 2 + 4, n + 3));
                    }
        });
    }
};

class qa_multidim : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_multidim);
    CPPUNIT_TEST(c2c_shapes);
    CPPUNIT_TEST(real_shapes);
    CPPUNIT_TEST(strided);
    CPPUNIT_TEST(threads);
    CPPUNIT_TEST_SUITE_END();

    // Shapes with odd, prime, mixed-radix and unit dimensions; ranks 2 to 4.
    static std::vector<std::vector<std::size_t>> shapes()
    {
        return { { 1, 1 },   { 1, 8 },     { 8, 1 },       { 2, 3 },     { 5, 7 },
                 { 16, 16 }, { 17, 31 },   { 64, 100 },    { 3, 1000 },  { 256, 256 },
                 { 4099, 3 }, { 2, 3, 5 }, { 8, 8, 8 },    { 7, 1, 9 },  { 16, 12, 33 },
                 { 2, 3, 4, 5 } };
    }

    void c2c_shapes()
    {
        for_each_target("c2c shapes", targets(), [](failures& f, const std::string& t) {
            for (const auto& dims : shapes())
                for (direction d : { direction::forward, direction::inverse }) {
                    auto p = shaped(transform_kind::c2c, dims);
                    p.dir = d;
                    if (!plans_shape(f, t, p))
                        continue;
                    check_shaped(f, t, p);
                    p.batch = 3;
                    check_shaped(f, t, p, true);
                    p.distance = p.points() + 5;
                    check_shaped(f, t, p);
                }
        });
    }

    void real_shapes()
    {
        for_each_target("real shapes", targets(), [](failures& f, const std::string& t) {
            for (const auto& dims : shapes())
                for (transform_kind k : { transform_kind::r2c, transform_kind::c2r }) {
                    if (!plans_shape(f, t, shaped(k, dims)))
                        continue;
                    check_shaped(f, t, shaped(k, dims));
                    check_shaped(f, t, shaped(k, dims, 3));
                    const std::size_t points = shaped(k, dims).points();
                    const std::size_t complex_points = shaped(k, dims).complex_extent();
                    check_shaped(f, t, shaped(k, dims, 2, complex_points + 3, points + 2));
                }
        });
    }

    // Strided layouts (gathered by the plan): column-major, interleaved
    // batches, gaps, in place.
    void strided()
    {
        for_each_target("strided c2c", targets(), [](failures& f, const std::string& t) {
            auto p = shaped(transform_kind::c2c, { 6, 5 });
            p.strides = { 1, 6 }; // column-major
            check_shaped(f, t, p);
            p.strides = { 3, 20 }; // interleaved: 3 transforms, 1 apart
            p.batch = 3;
            p.distance = 1;
            check_shaped(f, t, p);
            check_shaped(f, t, p, true);
            p = shaped(transform_kind::c2c, { 100 });
            p.strides = { 2 };
            p.batch = 4;
            p.distance = 250;
            check_shaped(f, t, p);
            p = shaped(transform_kind::c2c, { 4, 6, 10 });
            p.strides = { 80, 12, 1 };
            p.dir = direction::inverse;
            check_shaped(f, t, p, true);
        });
    }

    void threads()
    {
        for_each_target("threads", targets(), [](failures& f, const std::string& t) {
            if (t.rfind("simd", 0) == 0) // threads are the simd backend's
                multidim_threads(f, t);
        });
    }
};

class qa_shape_errors : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_shape_errors);
    CPPUNIT_TEST(bad_shapes);
    CPPUNIT_TEST(wrong_buffers);
    CPPUNIT_TEST(unsupported_kinds);
    CPPUNIT_TEST_SUITE_END();

    void bad_shapes()
    {
        expect_error("zero dimension", [] { shaped(transform_kind::c2c, { 4, 0, 3 }).validate(); },
                     { "dimension 1", "4x0x3", "is 0" });
        expect_error("zero dimension in a plan",
                     [] { gpufft::plan p(shaped(transform_kind::r2c, { 0 })); }, { "dimension 0" });
        expect_error("n against dims",
                     [] {
                         auto p = shaped(transform_kind::c2c, { 4, 3 });
                         p.n = 13;
                         p.validate();
                     },
                     { "n (13)", "4x3 = 12" });
        expect_error("overlapping strides",
                     [] {
                         auto p = shaped(transform_kind::c2c, { 4, 3 });
                         p.strides = { 2, 1 };
                         p.validate();
                     },
                     { "strides", "overlap" });
        expect_error("zero stride",
                     [] {
                         auto p = shaped(transform_kind::c2c, { 4, 3 });
                         p.strides = { 3, 0 };
                         p.validate();
                     },
                     { "overlap" });
        expect_error("interleaved batches that collide",
                     [] {
                         auto p = shaped(transform_kind::c2c, { 8 });
                         p.strides = { 2 };
                         p.batch = 3;
                         p.distance = 1;
                         p.validate();
                     },
                     { "overlap", "distance 1" });
        expect_error("strides of the wrong rank",
                     [] {
                         auto p = shaped(transform_kind::c2c, { 4, 3 });
                         p.strides = { 1 };
                         p.validate();
                     },
                     { "strides", "rank 2" });
        expect_error("strides on r2c",
                     [] {
                         auto p = shaped(transform_kind::r2c, { 4, 3 });
                         p.strides = { 3, 1 };
                         p.validate();
                     },
                     { "strides", "c2c" });
        expect_error("r2c distance", [] { shaped(transform_kind::r2c, { 16 }, 2, 8).validate(); },
                     { "distance between transforms (8)", "(9)" });
        expect_error("c2r real_distance",
                     [] { shaped(transform_kind::c2r, { 16 }, 2, 0, 15).validate(); },
                     { "real_distance between transforms (15)", "(16)" });
        expect_error("inverse r2c",
                     [] {
                         auto p = shaped(transform_kind::r2c, { 16 });
                         p.dir = direction::inverse;
                         p.validate();
                     },
                     { "r2c", "forward" });
        expect_error("forward c2r",
                     [] {
                         auto p = shaped(transform_kind::c2r, { 16 });
                         p.dir = direction::forward;
                         p.validate();
                     },
                     { "c2r", "inverse" });
        expect_error("dims overflow",
                     [] {
                         const std::size_t half = std::size_t(1) << (4 * sizeof(std::size_t)); // 2^32 or 2^16
                         shaped(transform_kind::c2c, { half, half }).validate();
                     },
                     { "dims", "memory" });
        // The old 1-D form keeps its meaning.
        gpufft::problem old{ 8, direction::forward, 2, 9 };
        old.validate();
        CPPUNIT_ASSERT_EQUAL(std::size_t(17), old.span());
    }

    // c2r output: N reals from N/2 + 1 complex; the message gives both.
    void wrong_buffers()
    {
        gpufft::plan r2c(shaped(transform_kind::r2c, { 10 }));
        gpufft::plan c2r(shaped(transform_kind::c2r, { 10 }));
        std::vector<float> reals(10);
        std::vector<cf> spectrum(6);
        expect_error("c2r output of N/2 + 1 reals",
                     [&] { c2r.execute_c2r(spectrum.data(), 6, reals.data(), 6); },
                     { "output", "6 real elements", "needs 10", "10 reals", "6 complex" });
        expect_error("r2c output too short",
                     [&] { r2c.execute_r2c(reals.data(), 10, spectrum.data(), 5); },
                     { "output", "5 complex elements", "needs 6" });
        expect_error("r2c plan with complex buffers",
                     [&] { r2c.execute(spectrum.data(), spectrum.data()); }, { "r2c plan", "execute_r2c()", "not execute()" });
        expect_error("c2c plan with real buffers",
                     [&] {
                         gpufft::plan c(16);
                         c.execute_r2c(reals.data(), spectrum.data());
                     },
                     { "c2c plan", "not execute_r2c()" });
        expect_error("r2c in place",
                     [&] {
                         r2c.execute_r2c(reinterpret_cast<float*>(spectrum.data()), 12, spectrum.data(), 6);
                     },
                     { "overlap", "out of place" });
        expect_error("null buffer", [&] { c2r.execute_c2r(spectrum.data(), 6, nullptr, 10); },
                     { "output", "null" });
    }

    // A backend that cannot plan a shape says why; "auto" plans it on one
    // that can, without a fallback warning.
    void unsupported_kinds()
    {
        for (const auto& b : gpufft::backends())
            if (b.usable && b.name != "simd")
                expect_error(b.name + " 4099 x 16",
                             [&] {
                                 gpufft::plan_options o;
                                 o.backend = b.name;
                                 gpufft::plan p(shaped(transform_kind::c2c, { 4099, 16 }), o);
                             },
                             { b.name, "4099" });
        std::vector<std::string> warnings;
        gpufft::set_log_handler([&](gpufft::log_level level, const std::string& line) {
            if (level == gpufft::log_level::warning)
                warnings.push_back(line);
        });
        // The largest one (16 x 4099 x 16384 points, 8.6 GB) only where addresses reach it.
        for (std::size_t n : { std::size_t(64), std::size_t(1) << 16, sizeof(void*) > 4 ? std::size_t(1) << 20 : 64 }) {
            // r2c: any backend that plans it when named (simd here, opencl on a GPU machine).
            gpufft::plan p(shaped(transform_kind::r2c, { n }, 16));
            gpufft::plan_options named;
            named.backend = p.backend().substr(0, p.backend().find(':'));
            gpufft::plan again(shaped(transform_kind::r2c, { n }, 16), named);
            // 4099 points fit no other backend's kernels (checked above): simd.
            gpufft::plan q(shaped(transform_kind::c2c, { 4099, n / 64 }, 16));
            expect_words("auto 2-D backend", q.backend(), { "simd" });
        }
        gpufft::set_log_handler([](gpufft::log_level level, const std::string& line) {
            if (level != gpufft::log_level::debug)
                std::fprintf(stderr, "gpufft: %s\n", line.c_str());
        });
        CPPUNIT_ASSERT_MESSAGE(warnings.empty() ? "" : warnings.front(), warnings.empty());
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_real, "real");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_multidim, "multidim");
CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_shape_errors, "shape_errors");

} // namespace qa
