// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: Rader's algorithm for primes p whose p - 1 has
 * passes (Rader, "Discrete Fourier transforms when the number of data samples
 * is prime", Proc. IEEE 56, 1968). Included by isa_kernels.cc inside each
 * instruction set's namespace, after bluestein.h (multiply). */

/*
 * X[0] = x[0] + sum_j x[j]; X[g^-m] = x[0] + (a * b)[m], a[q] = x[g^q], a
 * circular convolution of p - 1 points by two FFTs and the kernel spectrum
 * (exact_dft.h, computed in double). x[0] stays out of the convolution, so
 * an impulse is exact and a dominant first element (strong DC in an inverse
 * transform) costs no digits; Bluestein's two float FFTs of twice the length
 * smear every input over every output.
 */
class rader final : public transform
{
public:
    rader(std::size_t p, bool forward, std::unique_ptr<transform> forward_fft,
          std::unique_ptr<transform> inverse_fft, const std::vector<float>& weights)
        : d_m(p - 1),
          d_kernel(p - 1),
          d_work(p - 1),
          d_forward_fft(std::move(forward_fft)),
          d_inverse_fft(std::move(inverse_fft))
    {
        const std::size_t g = exact::generator(p);
        d_gather = exact::rader_indices(p, g, 1);
        d_scatter = exact::rader_indices(p, g, -1);
        if (!weights.empty()) {
            d_weight0 = weights[0];
            d_weights.resize(d_m);
            for (std::size_t q = 0; q < d_m; ++q)
                d_weights[q] = weights[d_gather[q]];
        }
        const auto kernel = exact::rader_spectrum(p, g, forward ? -1 : 1);
        for (std::size_t k = 0; k < d_m; ++k)
            d_kernel.data()[k] = complex(float(kernel[k].real()), float(kernel[k].imag()));
        d_describe = "rader via " + d_forward_fft->describe();
    }

    void run(const complex* in, complex* out, std::size_t batch, std::size_t dist) override
    {
        complex* a = d_work.data();
        for (std::size_t b = 0; b < batch; ++b) {
            const complex* x = in + b * dist;
            complex* y = out + b * dist;
            complex x0 = x[0];
            if (d_weights.empty()) {
                for (std::size_t q = 0; q < d_m; ++q)
                    a[q] = x[d_gather[q]];
            } else {
                x0 *= d_weight0;
                for (std::size_t q = 0; q < d_m; ++q)
                    a[q] = x[d_gather[q]] * d_weights[q];
            }
            d_forward_fft->run(a, a, 1, d_m);
            const complex sum = a[0];
            multiply(a, d_kernel.data(), d_m);
            d_inverse_fft->run(a, a, 1, d_m);
            // x is read in full: in place, y may overwrite it now.
            y[0] = x0 + sum;
            for (std::size_t q = 0; q < d_m; ++q)
                y[d_scatter[q]] = x0 + a[q];
        }
    }

    std::string describe() const override { return d_describe; }

private:
    std::size_t d_m;
    float d_weight0 = 1;
    std::vector<std::size_t> d_gather, d_scatter;
    std::vector<float> d_weights;
    buffer d_kernel, d_work;
    std::unique_ptr<transform> d_forward_fft, d_inverse_fft;
    std::string d_describe;
};
