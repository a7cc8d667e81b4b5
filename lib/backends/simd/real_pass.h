// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: the post-pass of an even-size r2c and the
 * pre-pass of a c2r (real.h has the algebra), a vector of k at a time with
 * the mirrored m - k read and written reversed. Included by isa_kernels.cc
 * inside each instruction set's namespace, after the ISA header. w[k] =
 * exp(-2 pi i k / 2m) for k <= m/2. */

// x: one row, Z[0..m) in, X[0..m] out, in place.
void r2c_post(complex* x, std::size_t m, const complex* w)
{
    const complex z0 = x[0];
    x[0] = complex(z0.real() + z0.imag(), 0.0f);
    x[m] = complex(z0.real() - z0.imag(), 0.0f);
    std::size_t k = 1;
    // Blocks [k, k + lanes) and the mirrored [m - k - lanes + 1, m - k] are disjoint.
    for (; 2 * (k + lanes) <= m + 1; k += lanes) {
        complex* high = x + m - k - lanes + 1;
        const V a = loadu(x + k), c = vconj(vreverse(loadu(high)));
        // E = (Z[k] + conj Z[m-k]) / 2, O = (Z[k] - conj Z[m-k]) / 2i, t = w^k O.
        const V e = vscale(vadd(a, c), 0.5f);
        const V t = vcmul_lanes(vmul_neg_i(vscale(vsub(a, c), 0.5f)), loadu(w + k));
        storeu(x + k, vadd(e, t));                    // X[k] = E + t
        storeu(high, vreverse(vconj(vsub(e, t))));   // X[m-k] = conj(E - t)
    }
    // The middle, one k at a time.
    for (std::size_t j = m - k; k <= j; ++k, --j) {
        const float ar = x[k].real(), ai = x[k].imag(), cr = x[j].real(), ci = x[j].imag();
        const float er = 0.5f * (ar + cr), ei = 0.5f * (ai - ci);
        const float o_r = 0.5f * (ai + ci), o_i = -0.5f * (ar - cr);
        const float wr = w[k].real(), wi = w[k].imag();
        const float tr = wr * o_r - wi * o_i, ti = wr * o_i + wi * o_r;
        x[k] = complex(er + tr, ei + ti);
        x[j] = complex(er - tr, ti - ei);
    }
}

// x: one row of X[0..m]; z: Z[0..m) for the inverse m-point FFT (scaled so
// that c2r(r2c(x)) = 2m x).
void c2r_pre(const complex* x, complex* z, std::size_t m, const complex* w)
{
    // Only the real parts of X[0] and X[m] count, as in FFTW.
    const float r0 = x[0].real(), rm = x[m].real();
    z[0] = complex(r0 + rm, r0 - rm);
    std::size_t k = 1;
    for (; 2 * (k + lanes) <= m + 1; k += lanes) {
        const std::size_t high = m - k - lanes + 1;
        const V a = loadu(x + k), c = vconj(vreverse(loadu(x + high)));
        // 2E = X[k] + conj X[m-k], 2O = (X[k] - conj X[m-k]) conj(w^k); Z = 2E + 2iO.
        const V e = vadd(a, c);
        const V io = vmul_i(vcmul_lanes(vsub(a, c), vconj(loadu(w + k))));
        storeu(z + k, vadd(e, io));
        storeu(z + high, vreverse(vconj(vsub(e, io))));   // Z[m-k] = conj(2E - 2iO)
    }
    for (std::size_t j = m - k; k <= j; ++k, --j) {
        const float ar = x[k].real(), ai = x[k].imag(), cr = x[j].real(), ci = x[j].imag();
        const float er = ar + cr, ei = ai - ci, dr = ar - cr, di = ai + ci;
        const float wr = w[k].real(), wi = w[k].imag();
        const float o_r = dr * wr + di * wi, o_i = di * wr - dr * wi;
        z[k] = complex(er - o_i, ei + o_r);
        z[j] = complex(er + o_i, o_r - ei);
    }
}
