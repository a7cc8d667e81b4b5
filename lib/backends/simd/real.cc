// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: real-data transforms (see real.h). */
#include "real.h"
#include <cmath>

namespace gpufft::simd {

real_transform::real_transform(const std::vector<const isa_kernels*>& isas, std::size_t n,
                               bool forward)
    : d_n(n), d_isa(*isas.front())
{
    if (n % 2 == 0) {
        d_fft = make_transform(isas, n / 2, forward);
        // w^k = exp(-2 pi i k / n) for the k <= n/4 that the passes pair up.
        for (std::size_t k = 0; k <= n / 4; ++k) {
            const double angle = 2.0 * M_PI * double(k) / double(n);
            d_twiddles.emplace_back(float(std::cos(angle)), float(-std::sin(angle)));
        }
    } else {
        d_fft = make_transform(isas, n, forward);
        d_pair.resize(n);
    }
}

std::string real_transform::describe() const
{
    return d_n % 2 == 0 ? "half-size " + std::to_string(d_n / 2) + " (" + d_fft->describe() +
                              ") + real post-pass"
                        : "two rows per " + std::to_string(d_n) + " (" + d_fft->describe() + ")";
}

void real_transform::r2c(const float* in, complex* out, std::size_t batch, std::size_t in_dist,
                         std::size_t out_dist)
{
    if (d_n % 2) {
        for (std::size_t b = 0; b < batch; b += 2) {
            const bool pair = b + 1 < batch;
            r2c_pair(in + b * in_dist, pair ? in + (b + 1) * in_dist : nullptr, out + b * out_dist,
                     pair ? out + (b + 1) * out_dist : nullptr);
        }
        return;
    }
    const std::size_t m = d_n / 2;
    for (std::size_t b = 0; b < batch; ++b) {
        // n reals are n/2 complex numbers x[2j] + i x[2j+1] ([complex.numbers]
        // makes complex<float> an array of two floats).
        const auto* z = reinterpret_cast<const complex*>(in + b * in_dist);
        complex* x = out + b * out_dist;
        d_fft->run(z, x, 1, m);
        d_isa.r2c_post(x, m, d_twiddles.data());
    }
}

void real_transform::c2r(const complex* in, float* out, std::size_t batch, std::size_t in_dist,
                         std::size_t out_dist)
{
    if (d_n % 2) {
        for (std::size_t b = 0; b < batch; b += 2) {
            const bool pair = b + 1 < batch;
            c2r_pair(in + b * in_dist, pair ? in + (b + 1) * in_dist : nullptr, out + b * out_dist,
                     pair ? out + (b + 1) * out_dist : nullptr);
        }
        return;
    }
    const std::size_t m = d_n / 2;
    for (std::size_t b = 0; b < batch; ++b) {
        const complex* x = in + b * in_dist;
        auto* z = reinterpret_cast<complex*>(out + b * out_dist);
        d_isa.c2r_pre(x, z, m, d_twiddles.data());
        d_fft->run(z, z, 1, m);
    }
}

void real_transform::r2c_pair(const float* a, const float* b, complex* out_a, complex* out_b)
{
    const std::size_t n = d_n;
    complex* z = d_pair.data();
    for (std::size_t j = 0; j < n; ++j)
        z[j] = complex(a[j], b ? b[j] : 0.0f);
    d_fft->run(z, z, 1, n);
    for (std::size_t k = 0; k <= n / 2; ++k) {
        const complex zk = z[k], zn = z[k ? n - k : 0];
        // X_a = (Z[k] + conj Z[n-k]) / 2, X_b = (Z[k] - conj Z[n-k]) / 2i.
        out_a[k] = complex(0.5f * (zk.real() + zn.real()), 0.5f * (zk.imag() - zn.imag()));
        if (out_b)
            out_b[k] = complex(0.5f * (zk.imag() + zn.imag()), -0.5f * (zk.real() - zn.real()));
    }
}

void real_transform::c2r_pair(const complex* a, const complex* b, float* out_a, float* out_b)
{
    const std::size_t n = d_n;
    complex* z = d_pair.data();
    // Z = X_a + i X_b over the whole Hermitian spectrum; X[0]'s imaginary part is ignored.
    z[0] = complex(a[0].real(), b ? b[0].real() : 0.0f);
    for (std::size_t k = 1; k <= n / 2; ++k) {
        const float ar = a[k].real(), ai = a[k].imag();
        const float br = b ? b[k].real() : 0.0f, bi = b ? b[k].imag() : 0.0f;
        z[k] = complex(ar - bi, ai + br);
        z[n - k] = complex(ar + bi, br - ai);
    }
    d_fft->run(z, z, 1, n);
    for (std::size_t j = 0; j < n; ++j) {
        out_a[j] = z[j].real();
        if (out_b)
            out_b[j] = z[j].imag();
    }
}

} // namespace gpufft::simd
