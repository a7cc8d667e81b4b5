// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL kernels: one pass of batched FFTs, all in local memory.
 *
 * A work-group takes G transforms of N points: it reads each input element
 * from global memory once, runs the Stockham stages (autosort: the output
 * comes out in natural order, no digit reversal) through registers and local
 * memory, and writes each output element once. The plan builds every kernel
 * from this file with -D options:
 *
 *   SIGN          -1 forward, +1 inverse
 *   N             points per transform, in NSTAGES stages
 *   STAGES        the stages, STAGE(radix, span, first, last, offset, roots)
 *                 one after the other (span: the product of the radices
 *                 before it; offset: where its twiddles start in table tw;
 *                 roots: where a prime radix's DFT roots are in tw)
 *   TT, G         work-items per transform, transforms per work-group
 *   TPB           transforms per batch entry: transform t is column
 *                 c = t % TPB of entry b = t / TPB
 *   IN_CSTR, IN_ESTR, OUT_CSTR, OUT_ESTR
 *                 element (b, c, e) is at b * dist + c * CSTR + e * ESTR
 *                 (dist is a run-time argument)
 *   MAP_COLS      1: neighbouring work-items take neighbouring transforms
 *                 (transforms lie side by side in memory, a column pass);
 *                 0: neighbouring work-items take neighbouring elements
 *   STORE_COLS    how the output is laid out; when it differs from MAP_COLS
 *                 the result goes through local memory to be stored in the
 *                 order that coalesces
 *   TWIDDLE_N     0, or the four-step twiddle: output e of column c is
 *                 multiplied by exp(SIGN 2 pi i c e / TWIDDLE_N), table tw4
 *                 at e * TPB + c (neighbouring columns read neighbours)
 *   LOAD_HOOK     0 none; 1 Bluestein's chirp: element j = c * IN_JC +
 *                 e * IN_JE is in[...] * hook_in[j] for j < nsrc, else 0
 *                 (hook_in: the chirp times the input weights, if any);
 *                 2 in[...] * hook_in[j] (a spectrum); 3 input weights: as
 *                 1, hook_in holding the weights;
 *                 4 Rader's gather: in[hook_in[j].x] of the entry
 *   STORE_HOOK    0 none; 1 Bluestein's chirp: only j = c * OUT_JC +
 *                 e * OUT_JE < ndst is stored, multiplied by hook_out[j];
 *                 2 Rader's scatter: stored at hook_out[j].x of the entry
 *   LOAD_CALLBACK 1: the pass reads its input elements through the
 *                 caller's `float2 gpufft_load(__global const float2* in,
 *                 uint i)` (OpenCL C compiled before this file), i the
 *                 element's index in `in`, instead of in[i]
 *   STORE_CALLBACK 1: the pass writes its output elements through the
 *                 caller's `void gpufft_store(__global float2* out, uint k,
 *                 float2 v)` instead of out[k] = v
 *   RADER         Rader's x0 and X[0] (lib/backends/opencl/planner.cc,
 *                 append_convolution), through slot nsrc - 1 after a
 *                 scratch entry's nsrc - 1 points: 1 the store of element
 *                 (0, 0) writes x0 there; 2 where A[0] of the gathered
 *                 sequence is known (the store of a whole forward
 *                 transform, or CONVOLVE's forward rows) X[0] = A[0] + x0
 *                 there, and A[0] goes on as A[0] - (nsrc - 1) x0; 3 the
 *                 load of element (0, 0) copies it to the output's element
 *                 0; 4 CONVOLVE's whole convolution does as 2, writing
 *                 X[0] to the output itself
 *   CONVOLVE      1: Bluestein's fused middle pass (convolve() below), or
 *                 with a LOAD_HOOK the whole convolution in one pass:
 *                 STAGES lists the stages twice, the first time ending in
 *                 LAST 2, the second starting with FIRST 2; the kernel
 *                 spectrum is in hook_in, or tw4 with a LOAD_HOOK (SPECTRUM)
 *   XCHG          0, or the register mode below: elements a local-memory
 *                 exchange round; STAGES then lists XSTAGE(...)s
 *   LDS_PAD       1 (default) pad local memory, 0 not (LDS_TS below)
 *
 * Stage s (radix R, span S): butterfly i < N / R takes the elements
 * i + r N / R, multiplies them by the twiddles exp(SIGN 2 pi i r k / (S R)),
 * k = i % S (APPLY_TWIDDLES: table tw from offset, rows of S entries, so
 * neighbouring butterflies read neighbouring entries), and writes element
 * (i / S) S R + k + r S. The first stage reads global memory, the last
 * writes it. */

#ifndef LOAD_HOOK
#define LOAD_HOOK 0
#endif
#ifndef LOAD_CALLBACK
#define LOAD_CALLBACK 0
#endif
#ifndef STORE_CALLBACK
#define STORE_CALLBACK 0
#endif
#if LOAD_CALLBACK
#define LOAD_INPUT(in, i) gpufft_load(in, i)
#else
#define LOAD_INPUT(in, i) (in)[i]
#endif
#ifndef STORE_HOOK
#define STORE_HOOK 0
#endif
#ifndef TWIDDLE_N
#define TWIDDLE_N 0
#endif
#ifndef RADER
#define RADER 0
#endif

/* Butterfly k's twiddles w^r (w = exp(SIGN 2 pi i k / (S R)), r = 1 .. R-1)
 * into VA[1 .. R-1]: the table holds w^1 at OFF + k and w^(4m) at
 * OFF + m S + k, the rest are multiplied from them (w^(4m + b) = w^(4m) w^b,
 * w^2 = w^1 w^1, w^3 = w^2 w^1), at most three rounded products a twiddle.
 * Loading all R - 1 held one-kernel sizes up to a fifth lower on the H200
 * (1296 at 0.89 of cuFFT against 0.97), for errors of 1.2e-7 against
 * 1.4e-7 this way (scripts/device/results/h200-2026-12-01-twiddles.md). */
#define APPLY_TWIDDLES(VA, R, S, OFF, k)                                                   \
    {                                                                                      \
        const float2 w1 = tw[(OFF) + (k)], w2 = cmul(w1, w1), w3 = cmul(w2, w1);           \
        _Pragma("unroll") for (uint r = 1; r < (R); ++r)                                  \
        {                                                                                  \
            const uint b = r % 4, q = r - b;                                               \
            const float2 wb = b == 1 ? w1 : b == 2 ? w2 : w3;                              \
            const float2 w = b == 0   ? tw[(OFF) + q / 4 * (S) + (k)]                      \
                             : q == 0 ? wb                                                 \
                                      : cmul(tw[(OFF) + q / 4 * (S) + (k)], wb);          \
            VA[r] = cmul(VA[r], w);                                                        \
        }                                                                                  \
    }

#define STORE_VIA_LDS (STORE_COLS != MAP_COLS)
#ifndef CONVOLVE
#define CONVOLVE 0
#endif
#define NEED_LDS (NSTAGES > 1 || STORE_VIA_LDS || CONVOLVE)
/* One padding slot every 16 elements and an odd stride between transforms
 * keep strided accesses off a single bank; LDS_PAD 0 drops them where only
 * the unpadded transform fits local memory. */
#ifndef LDS_PAD
#define LDS_PAD 1
#endif
#if LDS_PAD
#define LDS_TS ((N + N / 16) | 1)
#define LIDX(g, e) ((g) * LDS_TS + (e) + ((e) >> 4))
#else
#define LDS_TS N
#define LIDX(g, e) ((g) * LDS_TS + (e))
#endif

/* Rader's x0 for entry b: the user's input's element 0 in the pass that
 * gathers it, else the slot after the scratch entry. */
inline float2 rader_x0(__global const float2* in, uint b, uint in_dist, uint nsrc)
{
#if LOAD_HOOK == 4
    return in[b * in_dist];
#else
    return in[b * in_dist + nsrc - 1];
#endif
}

/* Rader's A[0] - (p - 1) x0: the kernel spectrum's B[0] is -1 / (p - 1),
 * so this adds x0 to every output of the convolution. Adding it here and
 * not to each gathered element keeps x0 out of the forward transform, where
 * a dominant x0 (an impulse) cost the other bins digits. */
inline float2 rader_dc(float2 a0, float2 x0, uint p)
{
    return a0 - (float)(p - 1) * x0;
}

inline float2 load_elem(__global const float2* in,
                        __global float2* out,
                        __global const float2* hook_in,
                        uint t, uint e, uint in_dist, uint out_dist, uint nsrc)
{
    const uint b = t / TPB, c = t % TPB;
    const uint at = b * in_dist + c * IN_CSTR + e * IN_ESTR;
#if RADER == 3
    if (c == 0 && e == 0)
        out[b * out_dist] = rader_x0(in, b, in_dist, nsrc);
#endif
#if LOAD_HOOK == 4
    const uint j = c * IN_JC + e * IN_JE;
    return LOAD_INPUT(in, b * in_dist + (uint)hook_in[j].x);
#elif LOAD_HOOK
    const uint j = c * IN_JC + e * IN_JE;
#if LOAD_HOOK == 1 || LOAD_HOOK == 3
    if (j >= nsrc)
        return (float2)(0.0f, 0.0f);
#endif
    return cmul(LOAD_INPUT(in, at), hook_in[j]);
#else
    return LOAD_INPUT(in, at);
#endif
}

/* CONVOLVE's kernel spectrum: in tw4 where the pass is the whole
 * convolution (its first load takes the chirp or window from hook_in; it
 * has no four-step twiddle), else in hook_in. */
#if CONVOLVE && LOAD_HOOK
#define SPECTRUM tw4
#else
#define SPECTRUM hook_in
#endif

/* CONVOLVE: Bluestein's middle pass of a four-step convolution: row t (k1)
 * is transformed, multiplied by the kernel spectrum at k1 + TPB k2 and
 * conjugated, transformed again and conjugated on store (an inverse
 * transform), so that forward and inverse rows cost one pass. */
inline float2 convolve(__global const float2* in,
                       __global float2* out,
                       __global const float2* spectrum,
                       uint t, uint e, float2 v, uint in_dist, uint out_dist, uint nsrc,
                       bool active)
{
#if RADER == 2 || RADER == 4
    /* Not for the idle transforms past the batch that fill a work-group.
     * RADER 4: X[0] straight to the output (the scatter never stores
     * element 0). */
    if (active && t % TPB == 0 && e == 0) {
        const float2 x0 = rader_x0(in, t / TPB, in_dist, nsrc);
        out[RADER == 4 ? t * out_dist : t / TPB * out_dist + nsrc - 1] = v + x0;
        v = rader_dc(v, x0, nsrc);
    }
#endif
    v = cmul(v, spectrum[t % TPB + TPB * e]);
    return (float2)(v.x, -v.y);
}

inline void store_elem(__global const float2* in,
                       __global float2* out,
                       __global const float2* tw4,
                       __global const float2* hook_out,
                       uint t, uint e, float2 v, uint in_dist, uint out_dist, uint ndst)
{
    const uint b = t / TPB, c = t % TPB;
#if STORE_HOOK == 2
    const uint at = b * out_dist + (uint)hook_out[c * OUT_JC + e * OUT_JE].x;
#else
    const uint at = b * out_dist + c * OUT_CSTR + e * OUT_ESTR;
#endif
#if TWIDDLE_N
    v = cmul(v, tw4[e * TPB + c]);
#endif
#if RADER == 1
    if (c == 0 && e == 0)
        out[b * out_dist + ndst - 1] = rader_x0(in, b, in_dist, ndst);
#elif RADER == 2 && !CONVOLVE
    if (c == 0 && e == 0) {
        const float2 x0 = rader_x0(in, b, in_dist, ndst);
        out[b * out_dist + ndst - 1] = v + x0;
        v = rader_dc(v, x0, ndst);
    }
#endif
#if CONVOLVE
    /* conj(v) exp(-SIGN 2 pi i c e / TWIDDLE_N): the inverse's twiddle. */
    v = (float2)(v.x, -v.y);
#endif
#if STORE_HOOK == 1
    const uint j = c * OUT_JC + e * OUT_JE;
    if (j >= ndst)
        return;
    v = cmul(v, hook_out[j]);
#endif
#if STORE_CALLBACK
    gpufft_store(out, at, v);
#else
    out[at] = v;
#endif
}

#define DIRECT_STORE(LAST) ((LAST) == 1 && !STORE_VIA_LDS)

/* One Stockham stage; FIRST and LAST are compile-time constants: FIRST 1
 * loads global memory, 2 (CONVOLVE's second transform) local memory without
 * twiddles; LAST 1 stores global memory, 2 (CONVOLVE's first transform)
 * local memory through convolve(). */
#define STAGE(R, S, FIRST, LAST, OFF, ROOTS)                                             \
    {                                                                                    \
        float2 v[((N / R + TT - 1) / TT) * R];                                           \
        _Pragma("unroll") for (uint c = 0; c < (N / R + TT - 1) / TT; ++c)              \
        {                                                                                \
            const uint i = tid + c * TT;                                                 \
            if ((N / R) % TT == 0 || i < N / R) {                                        \
                _Pragma("unroll") for (uint r = 0; r < R; ++r)                          \
                {                                                                        \
                    if (FIRST == 1)                                                      \
                        v[c * R + r] = active ? load_elem(in, out, hook_in, t, i + r * (N / R), \
                                                          in_dist, out_dist, nsrc)       \
                                              : (float2)(0.0f, 0.0f);                   \
                    else                                                                 \
                        v[c * R + r] = lds[LIDX(g, i + r * (N / R))];                    \
                }                                                                        \
                if (!FIRST) {                                                            \
                    const uint k = i % S;                                                \
                    APPLY_TWIDDLES((v + c * R), R, S, OFF, k)                          \
                }                                                                        \
                BUTTERFLY(R, v + c * R, tw + ROOTS);                                     \
            }                                                                            \
        }                                                                                \
        if (FIRST != 1 || DIRECT_STORE(LAST))                                           \
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                         \
        _Pragma("unroll") for (uint c = 0; c < (N / R + TT - 1) / TT; ++c)              \
        {                                                                                \
            const uint i = tid + c * TT;                                                 \
            if ((N / R) % TT == 0 || i < N / R) {                                        \
                const uint j = (i / S) * S * R + i % S;                                  \
                _Pragma("unroll") for (uint r = 0; r < R; ++r)                          \
                {                                                                        \
                    if (DIRECT_STORE(LAST)) {                                            \
                        if (active)                                                      \
                            store_elem(in, out, tw4, hook_out, t, j + r * S, v[c * R + r], \
                                       in_dist, out_dist, ndst);                         \
                    } else {                                                             \
                        lds[LIDX(g, j + r * S)] = LAST == 2 ? convolve(in, out, SPECTRUM, t, \
                                                                       j + r * S, v[c * R + r], \
                                                                       in_dist, out_dist, nsrc, \
                                                                       active)           \
                                                            : v[c * R + r];              \
                    }                                                                    \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        if (!DIRECT_STORE(LAST))                                                         \
            barrier(CLK_LOCAL_MEM_FENCE);                                                \
    }

/* Register mode (XCHG > 0, one transform a work-group, MAP_COLS = STORE_COLS
 * = 0): for transforms that local memory cannot hold whole. Each stage's
 * elements stay in the work-items' registers (v0, v1, ... one array a
 * stage); between stages they go through a float array of XCHG slots, one
 * component (x, then y) and XCHG elements (a chunk) a round: write what
 * falls in the chunk, barrier, read it, barrier. Exchanging x before y lets
 * the compiler keep one array's registers, and chunks fit any local memory. */
#ifndef XCHG
#define XCHG 0
#endif
#define XROUNDS ((N + XCHG - 1) / XCHG)
#define XIDX(e) ((e) + ((e) >> 4))
#define BFLY_PER_ITEM(R) ((N / R + TT - 1) / TT)

/* Stage RP's outputs (in VP, span SP) to stage RN's inputs (VN), component COMP. */
#define EXCHANGE(VP, RP, SP, VN, RN, COMP)                                               \
    _Pragma("unroll") for (uint q = 0; q < XROUNDS; ++q)                                \
    {                                                                                    \
        _Pragma("unroll") for (uint c = 0; c < BFLY_PER_ITEM(RP); ++c)                  \
        {                                                                                \
            const uint i = tid + c * TT;                                                 \
            if ((N / RP) % TT == 0 || i < N / RP) {                                      \
                const uint j = (i / SP) * SP * RP + i % SP;                              \
                _Pragma("unroll") for (uint r = 0; r < RP; ++r)                         \
                {                                                                        \
                    const uint e = j + r * SP - q * XCHG;                                \
                    if (XROUNDS == 1 || e < XCHG)                                        \
                        xl[XIDX(e)] = VP[c * RP + r].COMP;                               \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                    \
        _Pragma("unroll") for (uint c = 0; c < BFLY_PER_ITEM(RN); ++c)                  \
        {                                                                                \
            const uint i = tid + c * TT;                                                 \
            if ((N / RN) % TT == 0 || i < N / RN) {                                      \
                _Pragma("unroll") for (uint r = 0; r < RN; ++r)                         \
                {                                                                        \
                    const uint e = i + r * (N / RN) - q * XCHG;                          \
                    if (XROUNDS == 1 || e < XCHG)                                        \
                        VN[c * RN + r].COMP = xl[XIDX(e)];                               \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                    \
    }

/* Stage K of the register mode; KP, RP, SP name the stage before it (the
 * stage itself for the first). */
#define XSTAGE(K, R, S, FIRST, LAST, OFF, ROOTS, KP, RP, SP)                             \
    float2 v##K[BFLY_PER_ITEM(R) * R];                                                   \
    if (!FIRST) {                                                                        \
        EXCHANGE(v##KP, RP, SP, v##K, R, x)                                              \
        EXCHANGE(v##KP, RP, SP, v##K, R, y)                                              \
    }                                                                                    \
    _Pragma("unroll") for (uint c = 0; c < BFLY_PER_ITEM(R); ++c)                       \
    {                                                                                    \
        const uint i = tid + c * TT;                                                     \
        if ((N / R) % TT == 0 || i < N / R) {                                            \
            if (FIRST) {                                                                 \
                _Pragma("unroll") for (uint r = 0; r < R; ++r)                          \
                    v##K[c * R + r] = active ? load_elem(in, out, hook_in, t, i + r * (N / R), \
                                                         in_dist, out_dist, nsrc)        \
                                             : (float2)(0.0f, 0.0f);                    \
            } else {                                                                     \
                const uint k = i % S;                                                    \
                APPLY_TWIDDLES((v##K + c * R), R, S, OFF, k)                            \
            }                                                                            \
            BUTTERFLY(R, v##K + c * R, tw + ROOTS);                                      \
            if (LAST && active) {                                                        \
                const uint j = (i / S) * S * R + i % S;                                  \
                _Pragma("unroll") for (uint r = 0; r < R; ++r)                          \
                    store_elem(in, out, tw4, hook_out, t, j + r * S, v##K[c * R + r],    \
                               in_dist, out_dist, ndst);                                 \
            }                                                                            \
        }                                                                                \
    }

__kernel __attribute__((reqd_work_group_size(TT * G, 1, 1))) void
fft_pass(__global const float2* in,
         __global float2* out,
         __global const float2* restrict tw,
         __global const float2* restrict tw4,
         __global const float2* restrict hook_in,
         __global const float2* restrict hook_out,
         uint nt, uint in_dist, uint out_dist, uint nsrc, uint ndst)
{
    const uint l = get_local_id(0);
#if MAP_COLS
    const uint g = l % G, tid = l / G;
#else
    const uint g = l / TT, tid = l % TT;
#endif
    const uint t = get_group_id(0) * G + g;
    const bool active = t < nt;
#if XCHG
    __local float xl[XIDX(XCHG) + 1];
#else
    __local float2 lds[NEED_LDS ? G * LDS_TS : 1];
#endif

    STAGES

#if STORE_VIA_LDS
    /* The other order: neighbouring work-items store neighbouring addresses. */
    for (uint idx = l; idx < G * N; idx += G * TT) {
#if STORE_COLS
        const uint g2 = idx % G, e2 = idx / G;
#else
        const uint g2 = idx / N, e2 = idx % N;
#endif
        const uint t2 = get_group_id(0) * G + g2;
        if (t2 < nt)
            store_elem(in, out, tw4, hook_out, t2, e2, lds[LIDX(g2, e2)], in_dist, out_dist, ndst);
    }
#endif
}
