// SPDX-License-Identifier: GPL-3.0-or-later
/* Plan-time tables in double precision that more than one backend needs:
 * roots of unity, Bluestein's chirp and the spectrum of its conjugate,
 * Rader's permutations and kernel spectrum. A backend rounds them to float
 * once. Computed with a float FFT instead, the transformed chirp carries that FFT's rounding into every transform: the
 * simd backend's Bluestein sizes were a third less accurate (forward, an
 * impulse at 97: 1.4e-7 against 1.0e-7; at 4099: 1.9e-7 against 1.3e-7,
 * where scipy.fft in float32 gives 2.1e-7). */
#ifndef GPUFFT_CORE_EXACT_DFT_H
#define GPUFFT_CORE_EXACT_DFT_H

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpufft::exact {

//! exp(sign 2 pi i m / k), m < k.
inline std::vector<std::complex<double>> roots(std::size_t k, int sign)
{
    std::vector<std::complex<double>> w(k);
    for (std::size_t m = 0; m < k; ++m) {
        const double a = 2.0 * M_PI * double(m) / double(k);
        w[m] = { std::cos(a), sign * std::sin(a) };
    }
    return w;
}

//! Bluestein's chirp exp(sign i pi j^2 / n), j < n; j^2 mod 2n keeps the
//! angle small, so it stays exact for large n.
inline std::vector<std::complex<double>> chirp(std::size_t n, int sign)
{
    std::vector<std::complex<double>> c(n);
    for (std::size_t j = 0; j < n; ++j) {
        const std::uint64_t q = (std::uint64_t(j) * j) % (2 * std::uint64_t(n));
        const double a = M_PI * double(q) / double(n);
        c[j] = { std::cos(a), sign * std::sin(a) };
    }
    return c;
}

//! a b without std::complex's checks for infinities (C99 Annex G), which
//! cost a library call a product; every operand here is finite.
inline std::complex<double> times(std::complex<double> a, std::complex<double> b)
{
    return { a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real() };
}

/*!
 * out[k], k < n: the forward DFT of in[j * stride], j < n, n a divisor of
 * w.size() (w: the forward roots of w.size() points). Stockham passes, one
 * for each prime factor p of n, each a direct p-point DFT: n times the sum of
 * n's prime factors multiply-adds, so fast for the smooth lengths Bluestein
 * and Rader convolve at, O(n^2) for a prime.
 */
inline void dft(const std::complex<double>* in, std::size_t stride, std::complex<double>* out, std::size_t n,
                const std::vector<std::complex<double>>& w)
{
    std::vector<std::complex<double>> a(n), b(n), v;
    for (std::size_t j = 0; j < n; ++j)
        a[j] = in[j * stride];
    const std::size_t roots = w.size();
    std::size_t rest = n;
    for (std::size_t span = 1; span < n;) {
        std::size_t p = 2;
        while (rest % p)
            ++p;
        v.resize(p);
        const std::size_t rows = n / p, twiddle_step = roots / (span * p), dft_step = roots / p;
        for (std::size_t j = 0; j < rows; ++j) {
            const std::size_t k = j % span;
            for (std::size_t r = 0; r < p; ++r)
                v[r] = times(a[j + r * rows], w[k * r * twiddle_step]); // k r < span p: no wrap
            const std::size_t to = (j / span) * span * p + k;
            for (std::size_t q = 0; q < p; ++q) {
                std::complex<double> sum = v[0];
                for (std::size_t r = 1, at = q; r < p; ++r, at = at + q >= p ? at + q - p : at + q)
                    sum += times(v[r], w[at * dft_step]);
                b[to + q * span] = sum;
            }
        }
        a.swap(b);
        span *= p;
        rest /= p;
    }
    std::copy(a.begin(), a.end(), out);
}

//! Bluestein's convolution kernel: the m-point spectrum of the conjugate
//! chirp c, wrapped (c[j] at j and m - j), divided by m for the inverse FFT.
inline std::vector<std::complex<double>> bluestein_spectrum(const std::vector<std::complex<double>>& c,
                                                            std::size_t m)
{
    std::vector<std::complex<double>> b(m);
    for (std::size_t j = 0; j < c.size(); ++j) {
        b[j] = std::conj(c[j]);
        if (j)
            b[m - j] = std::conj(c[j]);
    }
    std::vector<std::complex<double>> spectrum(m);
    dft(b.data(), 1, spectrum.data(), m, roots(m, -1));
    for (auto& x : spectrum)
        x /= double(m);
    return spectrum;
}

//! b^e mod m.
inline std::uint64_t power_mod(std::uint64_t b, std::uint64_t e, std::uint64_t m)
{
    std::uint64_t r = 1;
    for (b %= m; e; e >>= 1, b = b * b % m)
        if (e & 1)
            r = r * b % m;
    return r;
}

//! Whether n is prime (trial division: n is at most a few million here).
inline bool is_prime(std::size_t n)
{
    if (n < 2)
        return false;
    for (std::size_t q = 2; q * q <= n; ++q)
        if (n % q == 0)
            return false;
    return true;
}

//! The smallest generator of the multiplicative group mod the prime p: g
//! with g^((p - 1) / q) != 1 for every prime q dividing p - 1.
inline std::size_t generator(std::size_t p)
{
    std::vector<std::size_t> factors;
    std::size_t rest = p - 1;
    for (std::size_t q = 2; q * q <= rest; ++q)
        if (rest % q == 0) {
            factors.push_back(q);
            while (rest % q == 0)
                rest /= q;
        }
    if (rest > 1)
        factors.push_back(rest);
    for (std::size_t g = 2;; ++g)
        if (std::all_of(factors.begin(), factors.end(),
                        [&](std::size_t q) { return power_mod(g, (p - 1) / q, p) != 1; }))
            return g;
}

//! Rader's permutation of the prime p: g^(s q) mod p for q < p - 1, s = +-1.
inline std::vector<std::size_t> rader_indices(std::size_t p, std::size_t g, int s)
{
    const std::uint64_t step = s > 0 ? g : power_mod(g, p - 2, p);
    std::vector<std::size_t> out(p - 1);
    std::uint64_t x = 1;
    for (auto& v : out) {
        v = std::size_t(x);
        x = x * step % p;
    }
    return out;
}

/*!
 * Rader's convolution kernel for the prime p ("Discrete Fourier transforms
 * when the number of data samples is prime", Proc. IEEE 56, 1968): the
 * (p - 1)-point forward DFT of w^(g^-q), w = exp(sign 2 pi i / p), divided
 * by p - 1 for the inverse FFT. Then X[g^-m] = x[0] + (a * b)[m] with
 * a[q] = x[g^q], a circular convolution of p - 1 points.
 */
inline std::vector<std::complex<double>> rader_spectrum(std::size_t p, std::size_t g, int sign)
{
    const auto w = roots(p, sign);
    const auto at = rader_indices(p, g, -1);
    std::vector<std::complex<double>> b(p - 1), spectrum(p - 1);
    for (std::size_t q = 0; q + 1 < p; ++q)
        b[q] = w[at[q]];
    dft(b.data(), 1, spectrum.data(), p - 1, roots(p - 1, -1));
    for (auto& x : spectrum)
        x /= double(p - 1);
    return spectrum;
}

} // namespace gpufft::exact

#endif
