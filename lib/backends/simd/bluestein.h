// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: Bluestein's algorithm, so that sizes with prime
 * factors above the codelet radices still run in O(n log n). Included by
 * isa_kernels.cc inside each instruction set's namespace, after stockham.h. */

// a[i] *= b[i] for count complex values: whole vectors with the ISA's
// lane-wise complex multiply (compilers do not vectorize a loop over floats
// for every ISA: not at all for 32-bit ARM NEON, which flushes denormals),
// then the last count % lanes values with real arithmetic (std::complex's
// operator* guards against NaN overflow cases).
GPUFFT_INLINE void multiply(complex* a, const complex* b, std::size_t count)
{
    std::size_t i = 0;
    for (; i + lanes <= count; i += lanes)
        storeu(a + i, vcmul_lanes(loadu(a + i), loadu(b + i)));
    float* x = reinterpret_cast<float*>(a);
    const float* y = reinterpret_cast<const float*>(b);
    for (i *= 2; i < 2 * count; i += 2) {
        const float re = x[i] * y[i] - x[i + 1] * y[i + 1];
        const float im = x[i] * y[i + 1] + x[i + 1] * y[i];
        x[i] = re;
        x[i + 1] = im;
    }
}

/*
 * X[k] = c[k] sum_j (x[j] c[j]) conj(c[k - j]) with the chirp
 * c[j] = exp(-+ i pi j^2 / n): a circular convolution of length fft_len >= 2n - 1
 * done with two mixed-radix FFTs and the transformed chirp.
 */
class bluestein final : public transform
{
public:
    bluestein(std::size_t n, bool forward, std::size_t fft_len,
              std::unique_ptr<transform> forward_fft, std::unique_ptr<transform> inverse_fft,
              const std::vector<float>& weights)
        : d_n(n),
          d_len(fft_len),
          d_chirp(n),
          d_kernel(fft_len),
          d_work(fft_len),
          d_forward_fft(std::move(forward_fft)),
          d_inverse_fft(std::move(inverse_fft))
    {
        const auto chirp = exact::chirp(n, forward ? -1 : 1);
        for (std::size_t j = 0; j < n; ++j)
            d_chirp[j] = complex(float(chirp[j].real()), float(chirp[j].imag()));
        // The input weights ride on the first chirp multiply.
        d_input_chirp = d_chirp;
        if (!weights.empty())
            for (std::size_t j = 0; j < n; ++j)
                d_input_chirp[j] *= weights[j];
        // The transformed chirp, scaled by 1/fft_len for the inverse FFT, in
        // double (exact_dft.h says why).
        const auto kernel = exact::bluestein_spectrum(chirp, fft_len);
        for (std::size_t k = 0; k < fft_len; ++k)
            d_kernel[k] = complex(float(kernel[k].real()), float(kernel[k].imag()));
        d_describe = "bluestein via " + d_forward_fft->describe();
    }

    void run(const complex* in, complex* out, std::size_t batch, std::size_t dist) override
    {
        for (std::size_t b = 0; b < batch; ++b) {
            const complex* x = in + b * dist;
            std::copy(x, x + d_n, d_work.begin());
            std::fill(d_work.begin() + d_n, d_work.end(), complex(0, 0));
            multiply(d_work.data(), d_input_chirp.data(), d_n);
            d_forward_fft->run(d_work.data(), d_work.data(), 1, d_len);
            multiply(d_work.data(), d_kernel.data(), d_len);
            d_inverse_fft->run(d_work.data(), d_work.data(), 1, d_len);
            multiply(d_work.data(), d_chirp.data(), d_n);
            std::copy(d_work.begin(), d_work.begin() + d_n, out + b * dist);
        }
    }

    std::string describe() const override { return d_describe; }

private:
    std::size_t d_n, d_len;
    std::vector<complex> d_chirp, d_input_chirp, d_kernel, d_work;
    std::unique_ptr<transform> d_forward_fft, d_inverse_fft;
    std::string d_describe;
};
