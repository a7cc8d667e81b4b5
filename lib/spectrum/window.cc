// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum engine: windows with the formulas and constants of
 * gr::fft::window (GNU Radio 3.10), so spectra match gr-fft's. */
#include <gpufft/error.h>
#include <gpufft/spectrum.h>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

namespace gpufft {

namespace {

// Sum of c[k] * (-1)^k * cos(2 pi k i / (n - 1)): GNU Radio's symmetric cosine windows.
std::vector<float> cosine_sum(std::size_t n, std::initializer_list<double> c)
{
    std::vector<float> w(n);
    const double m = double(n - 1);
    for (std::size_t i = 0; i < n; ++i) {
        double v = 0, sign = 1;
        std::size_t k = 0;
        for (double ck : c) {
            v += sign * ck * std::cos(2.0 * M_PI * double(k++) * double(i) / m);
            sign = -sign;
        }
        w[i] = float(v);
    }
    return w;
}

// Fills w[i] = f(i) for the first half (centre included) and mirrors it.
std::vector<float> symmetric(std::size_t n, const std::function<double(double)>& f)
{
    std::vector<float> w(n);
    for (std::size_t i = 0; i < (n + 1) / 2; ++i)
        w[i] = w[n - 1 - i] = float(f(double(i)));
    return w;
}

// Modified Bessel function of the first kind, order 0 (power series).
double bessel_i0(double x)
{
    double sum = 1, term = 1;
    for (int k = 1; k < 500 && term > 1e-17 * sum; ++k) {
        term *= (x / (2 * k)) * (x / (2 * k));
        sum += term;
    }
    return sum;
}

double param_or(double p, double fallback) { return p == window_default_param ? fallback : p; }

using maker = std::function<std::vector<float>(std::size_t n, double p)>;

// The parameter a window takes: its name and range, where GNU Radio's
// formulas give a window of that kind (a negative beta or sigma, or an alpha
// above 1, gives none; past beta 700 the Bessel function overflows a double
// and the taps are NaN, in gr::fft::window too).
struct parameter {
    const char* name;
    const char* range;
    bool (*in_range)(double);
};
const std::map<std::string, parameter>& parameters()
{
    static const std::map<std::string, parameter> table = {
        { "kaiser", { "beta", "in [0, 700]", [](double p) { return p >= 0 && p <= 700; } } },
        { "gaussian", { "sigma", "> 0 samples and finite", [](double p) { return p > 0 && std::isfinite(p); } } },
        { "tukey", { "alpha", "in [0, 1]", [](double p) { return p >= 0 && p <= 1; } } },
        { "exponential", { "decay", "> 0 dB and finite", [](double p) { return p > 0 && std::isfinite(p); } } },
    };
    return table;
}

const std::map<std::string, maker>& makers()
{
    static const std::map<std::string, maker> table = {
        { "rectangular", [](std::size_t n, double) { return std::vector<float>(n, 1.0f); } },
        { "hann", [](std::size_t n, double) { return cosine_sum(n, { 0.5, 0.5 }); } },
        { "hamming", [](std::size_t n, double) { return cosine_sum(n, { 0.54, 0.46 }); } },
        { "blackman",
          [](std::size_t n, double) { return cosine_sum(n, { 0.42, 0.5, 0.08 }); } },
        { "blackmanharris",
          [](std::size_t n, double) {
              return cosine_sum(n, { 0.35875, 0.48829, 0.14128, 0.01168 });
          } },
        { "nuttall",
          [](std::size_t n, double) {
              return cosine_sum(n, { 0.3635819, 0.4891775, 0.1365995, 0.0106411 });
          } },
        { "nuttall_cfd",
          [](std::size_t n, double) {
              return cosine_sum(n, { 0.355768, 0.487396, 0.144232, 0.012604 });
          } },
        // SRS SR785 flat top (1, 1.93, 1.29, 0.388, 0.028), scaled as GNU Radio does.
        { "flattop",
          [](std::size_t n, double) {
              const double s = 0.21557895;
              return cosine_sum(n, { s, 1.93 * s, 1.29 * s, 0.388 * s, 0.028 * s });
          } },
        { "kaiser",
          [](std::size_t n, double p) {
              const double beta = param_or(p, 6.76), m = double(n - 1);
              return symmetric(n, [=](double i) {
                  const double t = 2.0 * i / m - 1.0;
                  return bessel_i0(beta * std::sqrt(std::max(0.0, 1.0 - t * t))) /
                         bessel_i0(beta);
              });
          } },
        { "bartlett",
          [](std::size_t n, double) {
              const double m = double(n - 1);
              return symmetric(n, [=](double i) { return 2.0 * i / m; });
          } },
        { "welch",
          [](std::size_t n, double) {
              const double h = double(n - 1) / 2;
              return symmetric(n, [=](double i) {
                  const double t = (i - h) / (h + 1);
                  return 1.0 - t * t;
              });
          } },
        { "parzen",
          [](std::size_t n, double) {
              const double h = double(n) / 2, c = double(n - 1) / 2;
              return symmetric(n, [=](double i) {
                  const double t = std::abs(i - c) / h;
                  // GNU Radio switches to the inner part at i = n / 4 from the edge.
                  return i < double(n) / 4 ? 2.0 * std::pow(1.0 - t, 3) : 1.0 - 6.0 * t * t * (1.0 - t);
              });
          } },
        { "riemann",
          [](std::size_t n, double) {
              const double h = double(n) / 2;
              return symmetric(n, [=](double i) {
                  const double x = M_PI * (h - i) / h;
                  return x == 0 ? 1.0 : std::sin(x) / x;
              });
          } },
        { "gaussian",
          [](std::size_t n, double p) {
              const double sigma = param_or(p, double(n) / 6), c = double(n - 1) / 2;
              return symmetric(n, [=](double i) {
                  const double t = (i - c) / sigma;
                  return std::exp(-0.5 * t * t);
              });
          } },
        { "tukey",
          [](std::size_t n, double p) {
              const double a = param_or(p, 0.5), m = double(n - 1);
              return symmetric(n, [=](double i) {
                  return i < a * m / 2 ? 0.5 * (1 - std::cos(2 * M_PI * i / (a * m))) : 1.0;
              });
          } },
        { "exponential",
          [](std::size_t n, double p) {
              const double d = param_or(p, 6.0), c = double(n - 1) / 2;
              const double tau = (double(n) / 2) * 8.69 / d; // GNU Radio's 8.69 dB per neper
              return symmetric(n, [=](double i) { return std::exp(-std::abs(i - c) / tau); });
          } },
    };
    return table;
}

} // namespace

std::vector<std::string> window_names()
{
    std::vector<std::string> names;
    for (const auto& m : makers())
        names.push_back(m.first);
    return names;
}

namespace {

// The canonical name of a known window; throws for an unknown one, listing the known.
std::string known_window(const std::string& name)
{
    const std::string key = name == "blackman-harris" || name == "blackman_harris" ? "blackmanharris" : name;
    if (makers().count(key) == 0) {
        std::string known;
        for (const auto& w : window_names())
            known += (known.empty() ? "" : ", ") + w;
        throw error("gpufft: unknown window \"" + name + "\" (known: " + known + ")");
    }
    return key;
}

} // namespace

void check_window_param(const std::string& name, double param)
{
    const auto p = parameters().find(known_window(name));
    char got[32];
    std::snprintf(got, sizeof got, "%g", param);
    if (p == parameters().end())
        throw error("gpufft: the " + name + " window takes no parameter (got " + got + ")");
    if (!p->second.in_range(param))
        throw error("gpufft: " + name + " window: " + p->second.name + " must be " + p->second.range + " (got " +
                    got + ")");
}

std::vector<float> make_window(const std::string& name, std::size_t n, double param)
{
    const std::string key = known_window(name);
    if (param != window_default_param)
        check_window_param(name, param);
    if (n == 0)
        throw error("gpufft: window length must be >= 1");
    if (n == 1)
        return { 1.0f };
    return makers().at(key)(n, param);
}

} // namespace gpufft
