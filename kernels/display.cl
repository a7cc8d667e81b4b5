// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL kernels: the display pipeline of include/gpufft/display.h
 * on the spectrum chain's dB frames (kernels/spectrum.cl's spectrum_average
 * writes them, fftshifted, into a device buffer that never leaves the
 * device); lib/spectrum/opencl/display_stage.cc runs them.
 *
 * A call of F frames is two launches:
 *   display_decay   one work-item per histogram cell: h <- decay^F h, the
 *                   F frames' decay at once (weights[F] = decay^F);
 *   display_frames  one work-item per column c: for each frame in order,
 *                   the column's value v (step 1), its row (step 2), the
 *                   hit weights[F - 1 - f] = decay^(F - 1 - f) (the decay
 *                   of the frames after it, step 3), the traces (step 4)
 *                   and the waterfall ring row (step 5).
 * So the histogram costs W H per call, not per frame, plus W F for the hits.
 *
 * Neither kernel uses local memory or barriers, so any work-group size
 * runs (the host asks for 64, within every embedded GPU's limit, e.g.
 * Mali's 256). Settings come as arguments: one program serves every
 * display on a device.
 */

/* Cells below this read 0 (display.h step 3): they never become subnormal. */
#define CELL_FLOOR 1e-30f

/* gpufft::display_resample's and gpufft::display_average's order. */
#define RESAMPLE_MAX 0
#define AVERAGE_EXPONENTIAL 0

__kernel void display_decay(__global float* hist, uint cells, __global const float* weights, uint frames)
{
    const uint i = get_global_id(0);
    if (i >= cells)
        return;
    const float y = hist[i] * weights[frames];
    hist[i] = y < CELL_FLOOR ? 0.0f : y;
}

/* db: `frames` frames of n dB values. first: the W + 1 column edges (the last
 * is bin_end: the columns show the bins [first[0], first[W])), column
 * c covering bins [first[c], max(first[c] + 1, first[c + 1])). avg_count:
 * frames already in the average; peak_started: the max-hold trace holds a
 * frame; ring_next: the ring row the call's first frame writes. The
 * comparisons are written as the CPU's (VOLK's max is a > b ? a : b). */
__kernel void display_frames(__global const float* db,
                             __global const uint* first,
                             __global float* hist,
                             __global float* avg,
                             __global float* peak,
                             __global float* ring,
                             __global const float* weights,
                             uint n,
                             uint width,
                             uint height,
                             uint frames,
                             float low,
                             float rows_per_db,
                             uint resample,
                             uint average,
                             float alpha,
                             float keep,
                             uint avg_count,
                             uint max_hold,
                             uint peak_started,
                             uint ring_rows,
                             uint ring_next)
{
    const uint c = get_global_id(0);
    if (c >= width)
        return;
    const uint b0 = first[c], b1 = max(b0 + 1, first[c + 1]);
    float a = avg[c], p = peak[c];
    for (uint f = 0; f < frames; ++f) {
        __global const float* x = db + (size_t)f * n;
        float v = x[b0];
        if (resample == RESAMPLE_MAX) {
            for (uint i = b0 + 1; i < b1; ++i)
                v = v < x[i] ? x[i] : v;
        } else {
            for (uint i = b0 + 1; i < b1; ++i)
                v += x[i];
            v /= (float)(b1 - b0);
        }

        const float t = (v - low) * rows_per_db;
        /* t >= 1 is false for NaN: NaN lands in row 0. */
        const uint r = t >= 1.0f ? (t < (float)height ? (uint)t : height - 1) : 0;
        hist[(size_t)r * width + c] += weights[frames - 1 - f];

        const uint k = avg_count + f + 1; /* frames in the average with this one */
        if (k == 1)
            a = v;
        else if (average == AVERAGE_EXPONENTIAL)
            a = a * keep + v * alpha;
        else
            a += (v - a) * (1.0f / (float)k);
        if (max_hold)
            p = peak_started || f ? (p > v ? p : v) : v;

        ring[(size_t)((ring_next + f) % ring_rows) * width + c] = v;
    }
    avg[c] = a;
    peak[c] = p;
}
