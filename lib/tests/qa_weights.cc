// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft correctness suite: input weights (plan_options::input_weights),
 * a window with an fftshift's (-1)^j folded in, multiplied into each input
 * point by the pass that first reads it (the simd backend: lane batches,
 * fused codelets, Stockham first passes, generic odd-radix passes,
 * four-step gathers, Bluestein's chirp) or by a weighted copy the plan
 * makes (other backends, real and multi-dimensional transforms, strided
 * layouts). */
#include "qa_common.h"

#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <limits>

namespace qa {

namespace {

using gpufft::direction;
using gpufft::transform_kind;

// Weights in [-1.5, 1.5): signs flip as an fftshift's modulation does,
// magnitudes vary as a window's; a stream of their own per case.
std::vector<float> random_weights(std::size_t n, const std::string& tag)
{
    auto rng = rng_for(tag + " weights");
    std::uniform_real_distribution<float> u(-1.5f, 1.5f);
    std::vector<float> w(n);
    for (auto& v : w)
        v = u(rng);
    return w;
}

// A Hann window times (-1)^j: what gpufft.fft_vcc hands its plans for a
// windowed, shifted forward transform of even n.
std::vector<float> shifted_hann(std::size_t n)
{
    std::vector<float> w(n);
    for (std::size_t j = 0; j < n; ++j)
        w[j] = float(0.5 - 0.5 * std::cos(2.0 * M_PI * double(j) / double(n))) * (j % 2 ? -1.0f : 1.0f);
    return w;
}

/*
 * A weighted plan of a layout that takes the plan's weighted copy (real,
 * multi-dimensional, strided) against the same plan unweighted on input the
 * test multiplied itself: the unweighted plans are checked against FFTW in
 * the real and multidim suites, so a relative L2 difference beyond float
 * rounding means the weights were skipped or misplaced. Outputs are
 * poisoned first.
 */
void check_against_premultiplied(failures& f, const std::string& backend, const gpufft::problem& p)
{
    const std::string name = backend + " " + p.describe() + " weighted";
    try {
        const std::vector<float> w = random_weights(p.points(), name);
        gpufft::plan_options plain;
        plain.backend = backend;
        gpufft::plan_options weighted = plain;
        weighted.input_weights = w;
        gpufft::plan ours(p, weighted), reference(p, plain);
        const bool real = p.kind == transform_kind::r2c;
        const auto shape = p.shape();
        // Row-major point index of each input element of one transform (the
        // offset of each point: packed, or the given strides).
        std::vector<std::size_t> offsets;
        for (std::size_t j = 0; j < p.points(); ++j) {
            std::size_t rest = j, offset = 0;
            for (std::size_t d = shape.size(); d-- > 0;) {
                const std::size_t i = rest % shape[d];
                rest /= shape[d];
                std::size_t stride = 1;
                if (!p.strides.empty())
                    stride = p.strides[d];
                else
                    for (std::size_t e = d + 1; e < shape.size(); ++e)
                        stride *= shape[e];
                offset += i * stride;
            }
            offsets.push_back(offset);
        }
        const std::size_t in_span = real ? p.real_span() : p.span();
        const std::size_t in_stride = real ? p.real_stride() : p.stride();
        std::vector<cf> x((in_span + 1) / (real ? 2 : 1) + 1), xw(x.size());
        fill_random(x.data(), x.size(), name);
        xw = x;
        for (std::size_t b = 0; b < p.batch; ++b)
            for (std::size_t j = 0; j < p.points(); ++j) {
                const std::size_t at = b * in_stride + offsets[j];
                if (real)
                    reinterpret_cast<float*>(xw.data())[at] *= w[j];
                else
                    xw[at] *= w[j];
            }
        std::vector<cf> y(p.span()), want(p.span());
        poison(y.data(), y.size());
        poison(want.data(), want.size());
        if (real) {
            ours.execute_r2c(reinterpret_cast<const float*>(x.data()), y.data());
            reference.execute_r2c(reinterpret_cast<const float*>(xw.data()), want.data());
        } else {
            ours.execute(x.data(), y.data());
            reference.execute(xw.data(), want.data());
        }
        double err2 = 0, ref2 = 0;
        for (std::size_t i = 0; i < y.size(); ++i) {
            if (std::isnan(want[i].real())) // a gap neither plan writes
                continue;
            err2 += std::norm(std::complex<double>(y[i]) - std::complex<double>(want[i]));
            ref2 += std::norm(std::complex<double>(want[i]));
        }
        const double rel = std::sqrt(err2 / ref2);
        f.note(name, rel, 1e-6);
        if (!(rel <= 1e-6))
            f.add(name + ": relative L2 difference " + std::to_string(rel) +
                  " from the unweighted plan on weighted input");
    } catch (const std::exception& e) {
        f.add(name + ": threw: " + e.what());
    }
}

} // namespace

class qa_weights : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_weights);
    CPPUNIT_TEST(weighted_c2c);
    CPPUNIT_TEST(weighted_layouts);
    CPPUNIT_TEST(simd_fuses_weights);
    CPPUNIT_TEST(bad_weights);
    CPPUNIT_TEST_SUITE_END();

    /*
     * Every scheme's first pass on every variant: powers of two (the fused
     * codelets up to 32 lanes' worth, Stockham first passes, 2^17 four-step),
     * mixed sizes (1000, 2400, 6000), sizes without a codelet for a factor
     * (61 and 183: generic passes) and primes beyond them (97: Rader,
     * 4099: Bluestein); batches of 1, 4 and 17 (17 fills 8 lanes twice with one
     * left: lane batches and their rest), both directions, in place and out.
     */
    void weighted_c2c()
    {
        static const std::size_t sizes[] = { 1,  2,    8,    16,   24,   60,   64,   256, 1024,
                                             61, 97,   183,  1000, 2400, 4096, 4099, 6000 };
        failures f;
        for (const auto& backend : targets()) {
            for (std::size_t n : sizes)
                for (direction dir : { direction::forward, direction::inverse })
                    for (std::size_t batch : { 1, 4, 17 }) {
                        const std::string tag = case_name(backend, n, dir, batch);
                        check_transform(f, backend, n, dir, batch, 0, batch == 4, 1, 0,
                                        random_weights(n, tag));
                    }
            // Gaps between transforms, two threads, a window with the
            // shift's modulation folded in, a misaligned buffer.
            check_transform(f, backend, 1000, direction::forward, 5, 1003, false, 2, 0,
                            random_weights(1000, backend + " gaps"));
            check_transform(f, backend, 1024, direction::forward, 9, 0, false, 1, 1, shifted_hann(1024));
            check_transform(f, backend, 4096, direction::forward, 3, 0, true, 1, 0, shifted_hann(4096));
        }
        for (const auto& backend : big_size_targets())
            check_transform(f, backend, std::size_t(1) << 17, direction::forward, 1, 0, false, 1, 0,
                            random_weights(std::size_t(1) << 17, backend + " four-step"));
        f.report("weighted_c2c");
        QA_ASSERT_NO_FAILURES(f);
    }

    // Layouts the plan weighs in a copy or a gather.
    void weighted_layouts()
    {
        gpufft::problem r2c{ 1024, direction::forward, 3 };
        r2c.kind = transform_kind::r2c;
        gpufft::problem r2c_odd{ 999, direction::forward, 2 };
        r2c_odd.kind = transform_kind::r2c;
        gpufft::problem grid{ 0, direction::forward, 2 };
        grid.dims = { 12, 20 };
        gpufft::problem strided{ 0, direction::inverse, 2 };
        strided.dims = { 16, 8 };
        strided.strides = { 1, 16 };
        strided.distance = 130;
        failures f;
        for (const auto& backend : targets())
            for (const auto& p : { r2c, r2c_odd, grid, strided })
                check_against_premultiplied(f, backend, p);
        f.report("weighted_layouts");
        QA_ASSERT_NO_FAILURES(f);
    }

    // The simd backend's 1-D plans weigh in their first pass, not in the
    // plan's copy (whose describe() says so): the copy costs a pass through
    // memory, which is what the weights are for saving.
    void simd_fuses_weights()
    {
        failures f;
        for (const auto& isa : simd_variants())
            for (std::size_t n : { 1, 64, 1000, 1024, 4096, 4099, 1 << 17 })
                for (std::size_t batch : { 1, 4, 17 }) {
                    gpufft::plan_options o;
                    o.backend = "simd:" + isa;
                    o.input_weights.assign(n, 0.5f);
                    const gpufft::plan p(gpufft::problem{ n, direction::forward, batch }, o);
                    f.checked();
                    if (p.describe().find("copied") != std::string::npos)
                        f.add(case_name(o.backend, n, direction::forward, batch) +
                              ": weights in a copy: " + p.describe());
                }
        QA_ASSERT_NO_FAILURES(f);
    }

    void bad_weights()
    {
        const auto plan_with = [](gpufft::problem p, std::vector<float> w) {
            return [p, w] {
                gpufft::plan_options o;
                o.input_weights = w;
                gpufft::plan(p, o);
            };
        };
        const gpufft::problem c2c{ 64, direction::forward, 2 };
        expect_error("too few weights", plan_with(c2c, std::vector<float>(63, 1.0f)),
                     { "input_weights", "63", "64" });
        expect_error("too many weights", plan_with(c2c, std::vector<float>(128, 1.0f)),
                     { "input_weights", "128", "64" });
        std::vector<float> w(64, 1.0f);
        w[5] = std::numeric_limits<float>::quiet_NaN();
        expect_error("a NaN weight", plan_with(c2c, w), { "input_weights[5]", "NaN" });
        w[5] = 1.0f;
        w[63] = -std::numeric_limits<float>::infinity();
        expect_error("an infinite weight", plan_with(c2c, w), { "input_weights[63]", "infinite" });
        gpufft::problem c2r{ 64, direction::inverse, 1 };
        c2r.kind = transform_kind::c2r;
        expect_error("weights on c2r", plan_with(c2r, std::vector<float>(64, 1.0f)),
                     { "input_weights", "c2r" });
        gpufft::problem grid{ 0, direction::forward, 1 };
        grid.dims = { 4, 8 };
        expect_error("weights per row, not per point", plan_with(grid, std::vector<float>(8, 1.0f)),
                     { "input_weights", "8", "32" });
    }
};

CPPUNIT_TEST_SUITE_NAMED_REGISTRATION(qa_weights, "weights");

} // namespace qa
