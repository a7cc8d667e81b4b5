/* gr-gpufft simd backend: Bluestein's algorithm, so that sizes with prime
 * factors above the codelet radices still run in O(n log n). Included by
 * isa_kernels.cc inside each instruction set's namespace, after stockham.h. */

// a[i] *= b[i] for count complex values, with real arithmetic so the compiler
// vectorizes it (std::complex's operator* guards against NaN overflow cases).
GPUFFT_INLINE void multiply(complex* a, const complex* b, std::size_t count)
{
    float* x = reinterpret_cast<float*>(a);
    const float* y = reinterpret_cast<const float*>(b);
    for (std::size_t i = 0; i < 2 * count; i += 2) {
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
              std::unique_ptr<transform> forward_fft, std::unique_ptr<transform> inverse_fft)
        : d_n(n),
          d_len(fft_len),
          d_chirp(n),
          d_kernel(fft_len),
          d_work(fft_len),
          d_forward_fft(std::move(forward_fft)),
          d_inverse_fft(std::move(inverse_fft))
    {
        const double sign = forward ? -1.0 : 1.0;
        for (std::size_t j = 0; j < n; ++j) {
            // j^2 mod 2n keeps the angle small, so it stays exact for large n.
            const unsigned long long sq = (unsigned long long)j * j % (2ull * n);
            const double a = sign * M_PI * double(sq) / double(n);
            d_chirp[j] = complex(float(std::cos(a)), float(std::sin(a)));
        }
        // The kernel is transformed in double precision: its error would
        // otherwise add to every output.
        std::vector<std::complex<double>> b(d_len);
        for (std::size_t j = 0; j < n; ++j) {
            const unsigned long long sq = (unsigned long long)j * j % (2ull * n);
            const double a = -sign * M_PI * double(sq) / double(n);
            b[j] = std::polar(1.0, a);
            if (j)
                b[d_len - j] = b[j];
        }
        dft_double(b);
        for (std::size_t j = 0; j < d_len; ++j)
            d_kernel[j] = complex(float(b[j].real() / double(d_len)),
                                  float(b[j].imag() / double(d_len)));
        d_describe = "bluestein via " + d_forward_fft->describe();
    }

    void run(const complex* in, complex* out, std::size_t batch, std::size_t dist) override
    {
        for (std::size_t b = 0; b < batch; ++b) {
            const complex* x = in + b * dist;
            std::copy(x, x + d_n, d_work.begin());
            std::fill(d_work.begin() + d_n, d_work.end(), complex(0, 0));
            multiply(d_work.data(), d_chirp.data(), d_n);
            d_forward_fft->run(d_work.data(), d_work.data(), 1, d_len);
            multiply(d_work.data(), d_kernel.data(), d_len);
            d_inverse_fft->run(d_work.data(), d_work.data(), 1, d_len);
            multiply(d_work.data(), d_chirp.data(), d_n);
            std::copy(d_work.begin(), d_work.begin() + d_n, out + b * dist);
        }
    }

    std::string describe() const override { return d_describe; }

private:
    // Forward DFT in double precision, for the plan only: Stockham passes over
    // the prime factors of len (at most 7, as len is chosen 7-smooth).
    static void dft_double(std::vector<std::complex<double>>& x)
    {
        const std::size_t len = x.size();
        const unit_roots w(len, true);
        std::vector<std::complex<double>> y(len);
        std::size_t ns = 1, rest = len;
        while (rest > 1) {
            std::size_t p = 2;
            while (rest % p)
                ++p;
            const std::size_t stride = len / p;
            std::complex<double> v[7];
            for (std::size_t j = 0; j < stride; ++j) {
                const std::size_t k = j % ns;
                for (std::size_t t = 0; t < p; ++t)
                    v[t] = x[j + t * stride] * w(t * k * (len / (ns * p)));
                std::complex<double>* out = &y[(j / ns) * ns * p + k];
                for (std::size_t q = 0; q < p; ++q) {
                    std::complex<double> acc = 0;
                    for (std::size_t t = 0; t < p; ++t)
                        acc += v[t] * w(t * q * stride);
                    out[q * ns] = acc;
                }
            }
            x.swap(y);
            ns *= p;
            rest /= p;
        }
    }

    std::size_t d_n, d_len;
    std::vector<complex> d_chirp, d_kernel, d_work;
    std::unique_ptr<transform> d_forward_fft, d_inverse_fft;
    std::string d_describe;
};
