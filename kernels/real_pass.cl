// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL kernels: the real-data passes around a complex FFT
 * (lib/backends/opencl/device_transform.h; the same algebra as the simd
 * backend's lib/backends/simd/real.h).
 *
 * Even N = 2M: the N reals of a row are M complex numbers z = x[2j] + i
 * x[2j+1]; after the M-point FFT, X[k] = E + w^k O with E = (Z[k] + conj
 * Z[M-k]) / 2, O = (Z[k] - conj Z[M-k]) / 2i and X[M-k] = conj(E - w^k O),
 * w = exp(-2 pi i / N) (Numerical Recipes, 3rd ed., 12.3.2). One work-item
 * computes the pair k, M - k. c2r runs the inverse (a pre-pass), scaled so
 * that c2r(r2c(x)) = N x.
 *
 * Odd N: rows a = 2p and b = 2p + 1 share one N-point FFT of z = x_a + i
 * x_b (12.3.1); X_a = (Z[k] + conj Z[N-k]) / 2, X_b = (Z[k] - conj Z[N-k]) /
 * 2i. A last row without a partner has x_b = 0 and no X_b stored.
 *
 * Only the real parts of X[0] (and X[M]) are read by c2r, as in FFTW.
 *
 * The complex side's rows (h points each) need not be packed: a transform's
 * `per` rows lie back to back and transforms start `dist` points apart, so
 * that a 1-D batch with gaps needs no copy (crow below). */

// Where complex row `row` starts.
inline size_t crow(uint row, uint per, uint dist, uint h)
{
    return (size_t)(row / per) * dist + (size_t)(row % per) * h;
}

// r2c, even N: z holds rows of m points, x rows of m + 1; w[k] = w^k, k <= m/2.
__kernel void r2c_post_even(__global const float2* z, __global float2* x,
                            __global const float2* w, uint rows, uint m, uint per, uint dist)
{
    const uint per_row = m / 2 + 1, gid = get_global_id(0);
    const uint row = gid / per_row, k = gid % per_row;
    if (row >= rows)
        return;
    __global const float2* zr = z + (size_t)row * m;
    __global float2* xr = x + crow(row, per, dist, m + 1);
    if (k == 0) {
        const float2 z0 = zr[0];
        xr[0] = (float2)(z0.x + z0.y, 0.0f);
        xr[m] = (float2)(z0.x - z0.y, 0.0f);
        return;
    }
    const uint j = m - k;
    const float2 a = zr[k], c = zr[j], wk = w[k];
    const float2 e = (float2)(0.5f * (a.x + c.x), 0.5f * (a.y - c.y));
    const float2 o = (float2)(0.5f * (a.y + c.y), -0.5f * (a.x - c.x));
    const float2 t = (float2)(wk.x * o.x - wk.y * o.y, wk.x * o.y + wk.y * o.x);
    xr[k] = e + t;
    xr[j] = (float2)(e.x - t.x, t.y - e.y);
}

// c2r, even N: x holds rows of m + 1 points, z rows of m.
__kernel void c2r_pre_even(__global const float2* x, __global float2* z,
                           __global const float2* w, uint rows, uint m, uint per, uint dist)
{
    const uint per_row = m / 2 + 1, gid = get_global_id(0);
    const uint row = gid / per_row, k = gid % per_row;
    if (row >= rows)
        return;
    __global const float2* xr = x + crow(row, per, dist, m + 1);
    __global float2* zr = z + (size_t)row * m;
    if (k == 0) {
        const float r0 = xr[0].x, rm = xr[m].x;
        zr[0] = (float2)(r0 + rm, r0 - rm);
        return;
    }
    const uint j = m - k;
    const float2 a = xr[k], c = xr[j], wk = w[k];
    const float2 e = (float2)(a.x + c.x, a.y - c.y);
    const float2 d = (float2)(a.x - c.x, a.y + c.y);
    const float2 o = (float2)(d.x * wk.x + d.y * wk.y, d.y * wk.x - d.x * wk.y);
    zr[k] = (float2)(e.x - o.y, e.y + o.x);
    zr[j] = (float2)(e.x + o.y, o.x - e.y);
}

// r2c, odd n: z holds pairs of n points, x rows of h = (n + 1) / 2.
__kernel void r2c_post_odd(__global const float2* z, __global float2* x, uint rows, uint n,
                           uint per, uint dist)
{
    const uint h = (n + 1) / 2, gid = get_global_id(0);
    const uint pair = gid / h, k = gid % h;
    if (2 * pair >= rows)
        return;
    __global const float2* zp = z + (size_t)pair * n;
    const float2 zk = zp[k], zn = zp[k ? n - k : 0];
    x[crow(2 * pair, per, dist, h) + k] = (float2)(0.5f * (zk.x + zn.x), 0.5f * (zk.y - zn.y));
    if (2 * pair + 1 < rows)
        x[crow(2 * pair + 1, per, dist, h) + k] = (float2)(0.5f * (zk.y + zn.y), -0.5f * (zk.x - zn.x));
}

// c2r, odd n: x holds rows of h, z pairs of n points.
__kernel void c2r_pre_odd(__global const float2* x, __global float2* z, uint rows, uint n,
                          uint per, uint dist)
{
    const uint h = (n + 1) / 2, gid = get_global_id(0);
    const uint pair = gid / h, k = gid % h;
    if (2 * pair >= rows)
        return;
    const bool has_b = 2 * pair + 1 < rows;
    const float2 a = x[crow(2 * pair, per, dist, h) + k];
    const float2 b = has_b ? x[crow(2 * pair + 1, per, dist, h) + k] : (float2)(0.0f, 0.0f);
    __global float2* zp = z + (size_t)pair * n;
    if (k == 0) {
        zp[0] = (float2)(a.x, b.x);
        return;
    }
    zp[k] = (float2)(a.x - b.y, a.y + b.x);
    zp[n - k] = (float2)(a.x + b.y, b.x - a.y);
}
