// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft OpenCL kernels: the spectrum chain's stages around the FFT.
 *
 * The FFT does most of the chain in its own passes (kernels/fft_pass.cl),
 * through the load and store callbacks below: its first load converts raw
 * samples (gpufft_load; the FFT applies the window as its input weights),
 * its last store writes |X|^2 (gpufft_store). What remains is one small
 * kernel, spectrum_average, that folds each frame's power into the running
 * average and writes every finished output.
 *
 * The callbacks, compiled into the FFT's programs when SAMPLE_FORMAT is set:
 *   SAMPLE_FORMAT 0 cf32, 1 cs16, 2 cs8, 3 cu8 (gpufft::sample_format's
 *                 order), with its scaling: x, x / 32768, x / 128,
 *                 (x - 127.5) / 127.5
 *   FRAME_N, FRAME_HOP the frames' points and the samples between their
 *                 starts: the FFT's element j of frame b (at = b * FRAME_N
 *                 + j, the plan's transforms packed) is raw sample
 *                 b * FRAME_HOP + j, so that frames may overlap
 *
 * spectrum_average, compiled when SPECTRUM_AVERAGE is set, takes its
 * settings as arguments, so one program serves every engine on a device.
 */

#ifdef SAMPLE_FORMAT
/* Complex sample `at` of the raw buffer, as complex float. */
inline float2 gpufft_load(__global const float2* raw, uint at)
{
    at = at / FRAME_N * FRAME_HOP + at % FRAME_N;
#if SAMPLE_FORMAT == 0
    return raw[at];
#elif SAMPLE_FORMAT == 1
    return convert_float2(((__global const short2*)raw)[at]) * (1.0f / 32768.0f);
#elif SAMPLE_FORMAT == 2
    return convert_float2(((__global const char2*)raw)[at]) * (1.0f / 128.0f);
#else
    return (convert_float2(((__global const uchar2*)raw)[at]) - 127.5f) / 127.5f;
#endif
}

/* |X|^2 as a float, at the element's index of a float view of the output. */
inline void gpufft_store(__global float2* out, uint k, float2 v)
{
    ((__global float*)out)[k] = dot(v, v);
}
#endif

#ifdef SPECTRUM_AVERAGE
/* Powers below this (-300 dB) are clamped so that the log never sees zero. */
#define POWER_FLOOR 1e-30f

/* gpufft::averaging's order. */
#define AVERAGE_EXPONENTIAL 0
#define AVERAGE_LINEAR 1
#define AVERAGE_PEAK 2

/* Work-item (k, s) takes bin k of segment s of the call's frames: power
 * holds `frames` frames of n floats. A segment is the frames of one output
 * (count0 frames of the first one came in earlier calls), in order as the
 * CPU chain takes them, so outputs fill in parallel; exponential averaging
 * carries from output to output and takes all frames in one segment.
 * state_in holds the average the last call left (started: the exponential
 * one holds a frame); the last segment leaves its average in state_out.
 * Output s, when complete, is the average times scale (in dB if db,
 * fftshifted if shift) at out + s * n. */
__kernel void spectrum_average(__global const float* power,
                               __global const float* state_in,
                               __global float* state_out,
                               __global float* out,
                               uint n,
                               uint frames,
                               uint count0,
                               uint started,
                               uint per_output,
                               uint mode,
                               uint db,
                               uint shift,
                               float alpha,
                               float scale)
{
    const uint k = get_global_id(0), s = get_global_id(1);
    if (k >= n)
        return;
    /* With shift, bins [0, n - n/2) go to the top half, the rest below. */
    const uint lo = shift ? n / 2 : 0, hi = n - lo;
    const uint at = k < hi ? k + lo : k - hi;
    const uint end = mode == AVERAGE_EXPONENTIAL ? frames
                                                 : min(frames, (s + 1) * per_output - count0);
    float a = state_in[k];
    uint count = s ? 0 : count0, o = s;
    for (uint f = s ? s * per_output - count0 : 0; f < end; ++f) {
        const float p = power[f * n + k];
        if (mode == AVERAGE_EXPONENTIAL)
            a = started ? a * (1.0f - alpha) + p * alpha : p;
        else if (count == 0)
            a = p;
        else if (mode == AVERAGE_LINEAR)
            a += p;
        else
            a = mode == AVERAGE_PEAK ? fmax(a, p) : fmin(a, p);
        started = 1;
        if (++count == per_output) {
            const float v = a * scale;
            out[o * n + at] = db ? 10.0f * log10(fmax(v, POWER_FLOOR)) : v;
            ++o;
            count = 0;
        }
    }
    if (end == frames)
        state_out[k] = a;
}
#endif
