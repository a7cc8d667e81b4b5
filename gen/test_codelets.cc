// SPDX-License-Identifier: GPL-3.0-or-later
/* Self-test of the generated codelets: every radix, both directions, against
 * the DFT's definition in long double.
 *
 * The codelets are compiled twice over a plain two-lane complex vector:
 *  - with double lanes and the constants as unrounded double literals, where
 *    anything but a correct algorithm shows up far above 1e-14 (a constant
 *    wrong in its 9th digit, a sign, a swapped output);
 *  - with float lanes and float constants, as the library compiles them.
 * Each in-place run is between two canaries, so a write outside x[0..R) is
 * caught, and an output the codelet failed to write keeps its input, which the
 * error measure catches. The out-of-place form (load, store) runs into
 * outputs poisoned with NaN and must read each input and store each output
 * exactly once. */
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <vector>

namespace prim {

constexpr int lanes = 2; // two different transforms per vector: lanes must not mix

template <class T>
struct Vec {
    std::complex<T> l[lanes];
};

template <class T, class F>
Vec<T> map(Vec<T> a, F f)
{
    Vec<T> r;
    for (int i = 0; i < lanes; ++i)
        r.l[i] = f(a.l[i], i);
    return r;
}

// Lanewise primitives with the meaning the instruction-set headers give them.
template <class T>
Vec<T> vadd(Vec<T> a, Vec<T> b)
{
    return map(a, [&](std::complex<T> v, int i) { return v + b.l[i]; });
}
template <class T>
Vec<T> vsub(Vec<T> a, Vec<T> b)
{
    return map(a, [&](std::complex<T> v, int i) { return v - b.l[i]; });
}
template <class T>
Vec<T> vscale(Vec<T> a, double c)
{
    return map(a, [&](std::complex<T> v, int) { return v * T(c); });
}
template <class T>
Vec<T> vfmadd(Vec<T> a, double c, Vec<T> b)
{
    return map(a, [&](std::complex<T> v, int i) { return v * T(c) + b.l[i]; });
}
template <class T>
Vec<T> vfnmadd(Vec<T> a, double c, Vec<T> b)
{
    return map(a, [&](std::complex<T> v, int i) { return b.l[i] - v * T(c); });
}
template <class T>
Vec<T> vmul_i(Vec<T> a)
{
    return map(a, [](std::complex<T> v, int) { return std::complex<T>(-v.imag(), v.real()); });
}
template <class T>
Vec<T> vmul_neg_i(Vec<T> a)
{
    return map(a, [](std::complex<T> v, int) { return std::complex<T>(v.imag(), -v.real()); });
}
template <class T>
Vec<T> vadd_i(Vec<T> a, Vec<T> b)
{
    return vadd(a, vmul_i(b));
}
template <class T>
Vec<T> vsub_i(Vec<T> a, Vec<T> b)
{
    return vadd(a, vmul_neg_i(b));
}
template <class T>
Vec<T> vcmul(Vec<T> a, double re, double im)
{
    return map(a, [&](std::complex<T> v, int) { return v * std::complex<T>(T(re), T(im)); });
}

} // namespace prim

#define GPUFFT_INLINE inline

namespace dbl {
using V = prim::Vec<double>;
#define GPUFFT_K(x) x
#include "codelets.inc"
#undef GPUFFT_K
} // namespace dbl

namespace flt {
using V = prim::Vec<float>;
#include "codelets.inc" // GPUFFT_K defaults to float literals
} // namespace flt

namespace {

using ld = long double;
std::mt19937_64 rng(12345);
int failures = 0;

void fail(const char* what, int r, bool fwd, double err)
{
    std::printf("FAIL %s radix %d %s: %.3g\n", what, r, fwd ? "forward" : "inverse", err);
    ++failures;
}

// Relative L2 distance of y (lane `lane`) from the DFT of x with this sign.
template <class T>
double rel_error(const std::vector<prim::Vec<T>>& x, const prim::Vec<T>* y, int lane, int sign)
{
    const int n = int(x.size());
    const ld pi = std::acos(ld(-1));
    ld num = 0, den = 0;
    for (int k = 0; k < n; ++k) {
        std::complex<ld> ref = 0;
        for (int j = 0; j < n; ++j) {
            const ld a = sign * 2 * pi * ld((long(j) * k) % n) / n;
            ref += std::complex<ld>(x[j].l[lane]) * std::complex<ld>(std::cos(a), std::sin(a));
        }
        num += std::norm(std::complex<ld>(y[k].l[lane]) - ref);
        den += std::norm(ref);
    }
    return double(std::sqrt(num / den));
}

template <class T, int R, bool Fwd, class Codelet>
double check_one(double tol)
{
    using Vec = prim::Vec<T>;
    std::uniform_real_distribution<T> u(-1, 1);
    std::vector<Vec> x(R);
    for (auto& v : x)
        for (auto& c : v.l)
            c = { u(rng), u(rng) };
    Vec buf[R + 2];
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (auto& c : buf[0].l)
        c = { nan, nan };
    buf[R + 1] = buf[0];
    for (int j = 0; j < R; ++j)
        buf[j + 1] = x[j];
    Codelet::run(buf + 1);

    const int sign = Fwd ? -1 : 1;
    double worst = 0;

    Vec out[R];
    for (auto& v : out)
        v = buf[0]; // NaN
    int reads[R] = {}, stores[R] = {};
    Codelet::run(
        [&](int j) {
            ++reads[j];
            return x[j];
        },
        [&](int k, Vec v) {
            ++stores[k];
            out[k] = v;
        });
    for (int j = 0; j < R; ++j)
        if (reads[j] != 1 || stores[j] != 1)
            fail("out of place: an input read or an output stored other than once", R, Fwd, j);
    for (int lane = 0; lane < prim::lanes; ++lane) {
        const double err = rel_error(x, out, lane, sign);
        if (!(err < tol))
            fail("out-of-place accuracy", R, Fwd, err);
        worst = std::max(worst, err);
    }

    for (int lane = 0; lane < prim::lanes; ++lane) {
        for (const Vec* g : { &buf[0], &buf[R + 1] })
            if (!std::isnan(g->l[lane].real()) || !std::isnan(g->l[lane].imag()))
                fail("canary overwritten", R, Fwd, 0);
        const double err = rel_error(x, buf + 1, lane, sign);
        if (!(err < tol)) // also catches NaN
            fail("accuracy", R, Fwd, err);
        worst = std::max(worst, err);
        // The measure must tell the directions apart (they coincide for R <= 2)
        // and see a tiny error in one output.
        if (R > 2 && !(rel_error(x, buf + 1, lane, -sign) > 1e-3))
            fail("direction not distinguished", R, Fwd, 0);
        Vec y[R];
        for (int k = 0; k < R; ++k)
            y[k] = buf[k + 1];
        y[R - 1].l[lane] += std::abs(y[0].l[lane]) * T(1e-4) + T(1e-4);
        if (!(rel_error(x, y, lane, sign) > tol))
            fail("perturbation not detected", R, Fwd, 0);
    }
    return worst;
}

template <int R>
void check_radix(double& worst_d, double& worst_f)
{
    for (int trial = 0; trial < 20; ++trial) {
        worst_d = std::max(worst_d, check_one<double, R, true, dbl::n1<R, true>>(1e-14));
        worst_d = std::max(worst_d, check_one<double, R, false, dbl::n1<R, false>>(1e-14));
        worst_f = std::max(worst_f, check_one<float, R, true, flt::n1<R, true>>(1e-6));
        worst_f = std::max(worst_f, check_one<float, R, false, flt::n1<R, false>>(1e-6));
    }
}

template <int... Rs>
void check_all()
{
    (
        [] {
            double wd = 0, wf = 0;
            check_radix<Rs>(wd, wf);
            std::printf("radix %2d: max rel error %.2e (double), %.2e (float)\n", Rs, wd, wf);
        }(),
        ...);
}

} // namespace

int main()
{
    check_all<GPUFFT_CODELET_RADICES>();
    // The library's planner counts on these.
    const std::set<int> have = { GPUFFT_CODELET_RADICES };
    for (int r : { 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 32 })
        if (!have.count(r))
            fail("radix missing", r, true, 0);
    std::printf(failures ? "%d failures\n" : "all codelets pass\n", failures);
    return failures ? 1 : 0;
}
