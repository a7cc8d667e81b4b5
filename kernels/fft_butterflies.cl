// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL kernels: complex helpers and the radix butterflies.
 *
 * SIGN (-1 forward, +1 inverse) is the sign of the DFT's exponent; every
 * butterfly (radices 2, 3, 4, 5, 7, 8, 16, and primes 11 to 47; the
 * composite radices 6 to 49 that lib/backends/opencl/codelets.cc generates
 * from these, COMPOSITE_RADIX and composite_butterfly) computes
 * v[k] = sum_j v[j] exp(SIGN 2 pi i jk / R) in place, inputs and outputs in
 * natural order. */

inline float2 cmul(float2 a, float2 b)
{
    return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* a * (SIGN i) */
inline float2 rot_i(float2 a)
{
#if SIGN < 0
    return (float2)(a.y, -a.x);
#else
    return (float2)(-a.y, a.x);
#endif
}

/* a * (c + SIGN i s) */
inline float2 rot(float2 a, float c, float s)
{
    return c * a + s * rot_i(a);
}

#define SQRT1_2 0.70710678118654752f

inline void bf1(float2* v) {}

inline void bf2(float2* v)
{
    const float2 a = v[0];
    v[0] = a + v[1];
    v[1] = a - v[1];
}

inline void bf3(float2* v)
{
    const float2 s = v[1] + v[2];
    const float2 m = v[0] - 0.5f * s;
    const float2 r = 0.86602540378443865f * rot_i(v[1] - v[2]);
    v[0] = v[0] + s;
    v[1] = m + r;
    v[2] = m - r;
}

inline void bf4(float2* v)
{
    const float2 s0 = v[0] + v[2], d0 = v[0] - v[2];
    const float2 s1 = v[1] + v[3], d1 = rot_i(v[1] - v[3]);
    v[0] = s0 + s1;
    v[1] = d0 + d1;
    v[2] = s0 - s1;
    v[3] = d0 - d1;
}

/* Odd radices: pairs x_j +- x_{R-j} against the cosines and sines of 2 pi k / R. */
inline void bf5(float2* v)
{
    const float c1 = 0.30901699437494745f, s1 = 0.95105651629515357f;
    const float c2 = -0.80901699437494742f, s2 = 0.58778525229247313f;
    const float2 x0 = v[0];
    const float2 a1 = v[1] + v[4], b1 = v[1] - v[4];
    const float2 a2 = v[2] + v[3], b2 = v[2] - v[3];
    const float2 r1 = x0 + c1 * a1 + c2 * a2, i1 = rot_i(s1 * b1 + s2 * b2);
    const float2 r2 = x0 + c2 * a1 + c1 * a2, i2 = rot_i(s2 * b1 - s1 * b2);
    v[0] = x0 + a1 + a2;
    v[1] = r1 + i1;
    v[4] = r1 - i1;
    v[2] = r2 + i2;
    v[3] = r2 - i2;
}

inline void bf7(float2* v)
{
    const float c1 = 0.62348980185873353f, s1 = 0.78183148246802981f;
    const float c2 = -0.22252093395631434f, s2 = 0.97492791218182361f;
    const float c3 = -0.90096886790241903f, s3 = 0.43388373911755823f;
    const float2 x0 = v[0];
    const float2 a1 = v[1] + v[6], b1 = v[1] - v[6];
    const float2 a2 = v[2] + v[5], b2 = v[2] - v[5];
    const float2 a3 = v[3] + v[4], b3 = v[3] - v[4];
    const float2 r1 = x0 + c1 * a1 + c2 * a2 + c3 * a3, i1 = rot_i(s1 * b1 + s2 * b2 + s3 * b3);
    const float2 r2 = x0 + c2 * a1 + c3 * a2 + c1 * a3, i2 = rot_i(s2 * b1 - s3 * b2 - s1 * b3);
    const float2 r3 = x0 + c3 * a1 + c1 * a2 + c2 * a3, i3 = rot_i(s3 * b1 - s1 * b2 + s2 * b3);
    v[0] = x0 + a1 + a2 + a3;
    v[1] = r1 + i1;
    v[6] = r1 - i1;
    v[2] = r2 + i2;
    v[5] = r2 - i2;
    v[3] = r3 + i3;
    v[4] = r3 - i3;
}

/* Radix 8 and 16: two half-size DFTs of the even and odd inputs, joined
 * with the twiddles exp(SIGN 2 pi i k / R). */
inline void bf8(float2* v)
{
    float2 e[4] = { v[0], v[2], v[4], v[6] };
    float2 o[4] = { v[1], v[3], v[5], v[7] };
    bf4(e);
    bf4(o);
    o[1] = rot(o[1], SQRT1_2, SQRT1_2);
    o[2] = rot_i(o[2]);
    o[3] = rot(o[3], -SQRT1_2, SQRT1_2);
    for (int k = 0; k < 4; ++k) {
        v[k] = e[k] + o[k];
        v[k + 4] = e[k] - o[k];
    }
}

inline void bf16(float2* v)
{
    const float c = 0.92387953251128674f, s = 0.38268343236508977f;
    float2 e[8], o[8];
    for (int j = 0; j < 8; ++j) {
        e[j] = v[2 * j];
        o[j] = v[2 * j + 1];
    }
    bf8(e);
    bf8(o);
    o[1] = rot(o[1], c, s);
    o[2] = rot(o[2], SQRT1_2, SQRT1_2);
    o[3] = rot(o[3], s, c);
    o[4] = rot_i(o[4]);
    o[5] = rot(o[5], -s, c);
    o[6] = rot(o[6], -SQRT1_2, SQRT1_2);
    o[7] = rot(o[7], -c, s);
    for (int k = 0; k < 8; ++k) {
        v[k] = e[k] + o[k];
        v[k + 8] = e[k] - o[k];
    }
}

/* Primes from 11 to 47: the direct DFT over the pairs x_j +- x_{R-j}, with
 * roots[m] = (cos, sin)(2 pi m / R) from a table (R a compile-time constant
 * after inlining, so the loops unroll). */
#define MAX_DFT_PAIRS 23
inline void bf_dft(float2* v, const uint R, __global const float2* roots)
{
    const uint h = (R - 1) / 2;
    float2 s[MAX_DFT_PAIRS], d[MAX_DFT_PAIRS];
    const float2 x0 = v[0];
    float2 sum = x0;
    for (uint j = 1; j <= h; ++j) {
        s[j - 1] = v[j] + v[R - j];
        d[j - 1] = v[j] - v[R - j];
        sum += s[j - 1];
    }
    for (uint k = 1; k <= h; ++k) {
        float2 re = x0, im = (float2)(0.0f, 0.0f);
        for (uint j = 1; j <= h; ++j) {
            const float2 w = roots[(j * k) % R];
            re += w.x * s[j - 1];
            im += w.y * d[j - 1];
        }
        v[k] = re + rot_i(im);
        v[R - k] = re - rot_i(im);
    }
    v[0] = sum;
}

/* BUTTERFLY(R, v, roots): radix R's butterfly (R a constant: the compiler
 * keeps one branch). */
#define BUTTERFLY(R, v, roots)                                                 \
    if (R == 1)                                                                \
        bf1(v);                                                                \
    else if (R == 2)                                                           \
        bf2(v);                                                                \
    else if (R == 3)                                                           \
        bf3(v);                                                                \
    else if (R == 4)                                                           \
        bf4(v);                                                                \
    else if (R == 5)                                                           \
        bf5(v);                                                                \
    else if (R == 7)                                                           \
        bf7(v);                                                                \
    else if (R == 8)                                                           \
        bf8(v);                                                                \
    else if (R == 16)                                                          \
        bf16(v);                                                               \
    else if (COMPOSITE_RADIX(R))                                               \
        composite_butterfly(R, v);                                             \
    else                                                                       \
        bf_dft(v, R, roots)
