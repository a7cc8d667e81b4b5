// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: mixed-radix passes over vectors of independent
 * columns, written once over the primitives of isa/<name>.h and the generated
 * codelets; included by isa_kernels.cc inside each instruction set's namespace. */

// Storage allocated at plan time but first written by the transform: in some
// virtual machines a first touch costs about 5 us a page, which would make
// plan time grow with the scratch size. Aligned for whole-vector access.
class buffer
{
public:
    buffer() = default;
    explicit buffer(std::size_t count)
        : d_data(static_cast<complex*>(
              std::aligned_alloc(64, (count * sizeof(complex) + 63) / 64 * 64)))
    {
        if (!d_data && count)
            throw std::bad_alloc();
    }
    complex* data() const { return d_data.get(); }

private:
    struct release {
        void operator()(complex* p) const { std::free(p); }
    };
    std::unique_ptr<complex, release> d_data;
};

// w_n^j = exp(-+2 pi i j / n), from a table of the first octant only: exact
// values, n / 8 + 1 sines and cosines per plan, little memory to touch.
class unit_roots
{
public:
    unit_roots(std::size_t n, bool forward) : d_n(n), d_sign(forward ? -1.0 : 1.0)
    {
        d_octant.resize(n / 8 + 1);
        for (std::size_t j = 0; j < d_octant.size(); ++j) {
            const double a = 2.0 * M_PI * double(j) / double(n);
            d_octant[j] = { std::cos(a), std::sin(a) };
        }
    }

    std::complex<double> operator()(std::size_t j) const
    {
        j %= d_n;
        // Reduce to the first octant: 8j/n picks the octant when 8 | n;
        // otherwise the angle is computed directly.
        if (d_n % 8) {
            const double a = 2.0 * M_PI * double(j) / double(d_n);
            return { std::cos(a), d_sign * std::sin(a) };
        }
        const std::size_t q = d_n / 4, quadrant = j / q, r = j % q;
        std::complex<double> v = r <= d_n / 8 ? d_octant[r]
                                              : std::complex<double>(d_octant[q - r].imag(),
                                                                     d_octant[q - r].real());
        for (std::size_t i = 0; i < quadrant; ++i)
            v = { -v.imag(), v.real() }; // a quarter turn
        return { v.real(), d_sign * v.imag() };
    }

private:
    std::size_t d_n;
    double d_sign;
    std::vector<std::complex<double>> d_octant;
};

// Input weights (plan_options::input_weights) as (w, w) pairs, laid out as
// the input: one vmul_floats by the vector at the same offset weights a
// vector of input points. Empty without weights.
inline buffer paired_weights(const std::vector<float>& weights)
{
    if (weights.empty())
        return buffer();
    buffer paired(weights.size());
    for (std::size_t j = 0; j < weights.size(); ++j)
        paired.data()[j] = complex(weights[j], weights[j]);
    return paired;
}

// Per pass, twiddles w_{ns r}^(t k) for k < ns, 1 <= t < r, as (re, im) floats.
inline std::vector<float> pass_twiddles(const unit_roots& w, std::size_t len, std::size_t ns, int r)
{
    std::vector<float> tw;
    if (ns == 1)
        return tw;
    tw.reserve(2 * (r - 1) * ns);
    const std::size_t step = len / (ns * r); // w_{ns r} = w_len^step
    for (std::size_t k = 0; k < ns; ++k)
        for (int t = 1; t < r; ++t) {
            const auto v = w(t * k * step);
            tw.push_back(float(v.real()));
            tw.push_back(float(v.imag()));
        }
    return tw;
}

struct pass;
using pass_fn = void (*)(const complex* src, complex* dst, std::size_t m, const pass& p);

//! One Stockham pass of the column FFT.
struct pass {
    pass_fn fn;
    int radix;
    std::size_t ns;             // product of the radices before this pass
    std::vector<float> twiddles; // (re, im) pairs, radix - 1 per butterfly index k < ns
    // Generic passes only: cos and sin of 2 pi j / radix, and room for one butterfly.
    std::vector<float> cosines, sines;
    buffer work;
    // A first pass on the user's input: its weights paired (paired_weights),
    // laid out as the pass's src; null if none.
    const complex* weights = nullptr;
};

// Input t of a Stockham butterfly, times its twiddle t (t >= 1; tw holds
// (re, im) pairs) or its input weights (paired, at the same offset as in)
// as the codelet first uses it.
template <bool Twiddled, bool Weighted = false>
struct butterfly_load {
    const complex* in;
    std::size_t stride;
    const float* tw;
    const complex* weights = nullptr;
    GPUFFT_INLINE V operator()(int t) const
    {
        const V v = loadu(in + t * stride);
        if constexpr (Weighted)
            return vmul_floats(v, loadu(weights + t * stride));
        return Twiddled && t > 0 ? vcmul(v, tw[2 * (t - 1)], tw[2 * (t - 1) + 1]) : v;
    }
};

struct butterfly_store {
    complex* out;
    std::size_t stride;
    GPUFFT_INLINE void operator()(int t, V v) const { storeu(out + t * stride, v); }
};

/*
 * One radix-R Stockham pass on m vectors (autosort, decimation in time): the
 * butterfly j reads vectors j + t m/R, multiplies by w_{ns R}^{t (j mod ns)}
 * and writes vectors (j / ns) ns R + (j mod ns) + t ns. With ns == 1 every
 * twiddle is 1. The codelet loads, twiddles and stores each vector where it
 * needs it, so a radix-32 butterfly fits the register file.
 */
template <int R, bool Forward, bool Twiddled, bool Weighted>
void stockham_pass(const complex* src, complex* dst, std::size_t m, const pass& p)
{
    const std::size_t ns = p.ns;
    const std::size_t stride = m / R * lanes;
    const std::size_t blocks = m / (R * ns);
    for (std::size_t b = 0; b < blocks; ++b) {
        const complex* in = src + b * ns * lanes;
        complex* out = dst + b * ns * R * lanes;
        for (std::size_t k = 0; k < ns; ++k)
            n1<R, Forward>::run(
                butterfly_load<Twiddled, Weighted>{ in + k * lanes, stride,
                                                    p.twiddles.data() + 2 * (R - 1) * k,
                                                    Weighted ? p.weights + (in - src) + k * lanes
                                                             : nullptr },
                butterfly_store{ out + k * lanes, ns * lanes });
    }
}

/*
 * The same pass for an odd prime radix with no codelet: a direct DFT that
 * pairs inputs t and R - t, so outputs q and R - q share (R-1)^2/4 real-by-
 * vector multiply-adds. As accurate as a codelet, which Bluestein's three
 * extra float passes are not.
 */
template <bool Forward>
void generic_pass(const complex* src, complex* dst, std::size_t m, const pass& p)
{
    const int r = p.radix, half = (r - 1) / 2;
    const std::size_t ns = p.ns;
    const std::size_t stride = m / r * lanes;
    const std::size_t blocks = m / (r * ns);
    complex* sums = p.work.data();               // x_t + x_{r-t}, t = 1..half
    complex* differences = sums + half * lanes; // x_t - x_{r-t}
    for (std::size_t b = 0; b < blocks; ++b) {
        const complex* in = src + b * ns * lanes;
        complex* out = dst + b * ns * r * lanes;
        for (std::size_t k = 0; k < ns; ++k) {
            const float* tw = p.twiddles.data() + 2 * (r - 1) * k;
            const auto load = [&](int t) {
                const std::size_t at = t * stride + k * lanes;
                const V v = loadu(in + at);
                if (p.weights)
                    return vmul_floats(v, loadu(p.weights + (in - src) + at));
                return ns > 1 && t > 0 ? vcmul(v, tw[2 * (t - 1)], tw[2 * (t - 1) + 1]) : v;
            };
            const V x0 = load(0);
            V dc = x0;
            for (int t = 1; t <= half; ++t) {
                const V a = load(t), c = load(r - t);
                const V sum = vadd(a, c);
                storeu(sums + (t - 1) * lanes, sum);
                storeu(differences + (t - 1) * lanes, vsub(a, c));
                dc = vadd(dc, sum);
            }
            storeu(out + k * lanes, dc);
            for (int q = 1; q <= half; ++q) {
                V re = x0, im = vscale(x0, 0.0f);
                // tq = t q mod r by steps: Debian armhf's baseline (ARMv7-A)
                // has no integer divide, so each % there is a library call.
                int tq = 0;
                for (int t = 1; t <= half; ++t) {
                    tq += q;
                    if (tq >= r)
                        tq -= r;
                    re = vfmadd(loadu(sums + (t - 1) * lanes), p.cosines[tq], re);
                    im = vfmadd(loadu(differences + (t - 1) * lanes), p.sines[tq], im);
                }
                // exp(-+i a) = cos a -+ i sin a
                const V rotated = Forward ? vmul_neg_i(im) : vmul_i(im);
                storeu(out + (q * ns + k) * lanes, vadd(re, rotated));
                storeu(out + ((r - q) * ns + k) * lanes, vsub(re, rotated));
            }
        }
    }
}

// The first pass (ns == 1) has no twiddles; a weighted one multiplies by
// the input weights instead.
template <int R, bool Forward>
pass_fn pick_pass(std::size_t ns, bool weighted)
{
    return ns > 1    ? &stockham_pass<R, Forward, true, false>
           : weighted ? &stockham_pass<R, Forward, false, true>
                      : &stockham_pass<R, Forward, false, false>;
}

template <int... Radices>
pass_fn find_codelet_pass(int radix, bool forward, std::size_t ns, bool weighted)
{
    pass_fn fn = nullptr;
    ((radix == Radices ? (fn = forward ? pick_pass<Radices, true>(ns, weighted)
                                       : pick_pass<Radices, false>(ns, weighted))
                       : fn),
     ...);
    return fn;
}

// A pass of the given radix for a length-len column FFT, with its twiddles;
// a first pass (ns == 1) may multiply its src by paired input weights.
inline pass make_pass(const unit_roots& w, std::size_t len, std::size_t ns, int radix, bool forward,
                      const complex* weights = nullptr)
{
    if (ns > 1 && weights)
        throw error("gpufft: only a first pass applies input weights");
    pass p{ find_codelet_pass<GPUFFT_CODELET_RADICES>(radix, forward, ns, weights != nullptr),
            radix, ns, pass_twiddles(w, len, ns, radix), {}, {}, {}, weights };
    if (!p.fn) {
        if (radix % 2 == 0)
            throw error("gpufft: no codelet for even radix " + std::to_string(radix));
        p.fn = forward ? &generic_pass<true> : &generic_pass<false>;
        for (int j = 0; j < radix; ++j) {
            const double a = 2.0 * M_PI * double(j) / double(radix);
            p.cosines.push_back(float(std::cos(a)));
            p.sines.push_back(float(std::sin(a)));
        }
        p.work = buffer(std::size_t(radix) * lanes);
    }
    return p;
}

// The column FFT of length m: the first `count` passes (all by default) from
// src, alternating between the buffers first and second; returns where the
// result is (src if no pass).
inline const complex* run_passes(const std::vector<pass>& passes, const complex* src,
                                 complex* first, complex* second, std::size_t m,
                                 std::size_t count = std::size_t(-1))
{
    for (std::size_t i = 0; i < passes.size() && i < count; ++i) {
        passes[i].fn(src, first, m, passes[i]);
        src = first;
        std::swap(first, second);
    }
    return src;
}

// The lanes-point DFT across vectors needs a codelet of that size; scalar has none.
template <bool Forward>
GPUFFT_INLINE void dft_across_lanes(V* c)
{
    if constexpr (lanes > 1)
        n1<lanes, Forward>::run(c);
}

/*
 * The lane stage for k2 in [g lanes, g lanes + lanes): c[i] holds column k2
 * (one value per lane n1). X[k2 + m k1] = DFT over n1 of c * w_n^(n1 k2):
 * transpose so lanes become k2 and vectors n1, twiddle the vectors n1 >= 1
 * (lane_twiddles holds their lanes - 1 vectors of each group; those of n1
 * = 0 are 1), DFT across vectors, store rows.
 */
template <bool Forward, bool Stream>
GPUFFT_INLINE void lane_group(V* c, std::size_t g, std::size_t m, complex* out, const complex* lane_twiddles)
{
    transpose(c);
    const complex* tw = lane_twiddles + g * (lanes - 1) * lanes;
    for (int n1 = 1; n1 < lanes; ++n1)
        c[n1] = vcmul_lanes(c[n1], loadu(tw + (n1 - 1) * lanes));
    dft_across_lanes<Forward>(c);
    complex* o = out + g * lanes;
    const std::size_t valid = std::min<std::size_t>(lanes, m - g * lanes);
    if (valid == std::size_t(lanes)) {
        for (int k1 = 0; k1 < lanes; ++k1)
            if (Stream)
                stream(o + k1 * m, c[k1]);
            else
                storeu(o + k1 * m, c[k1]);
    } else {
        // The last, partial group: full-width stores would overwrite the next row.
        complex row[lanes];
        for (int k1 = 0; k1 < lanes; ++k1) {
            storeu(row, c[k1]);
            std::copy(row, row + valid, o + k1 * m);
        }
    }
}

using fused_fn = void (*)(const complex* in, complex* out, const complex* lane_twiddles,
                          const complex* weights);

/*
 * n = lanes * R with one column codelet: everything stays in registers, from
 * the input loads (times the paired input weights if Weighted) to the
 * output stores, with no pass through scratch.
 */
template <int R, bool Forward, bool Stream, bool Weighted>
void fused_single_pass(const complex* in, complex* out, const complex* lane_twiddles,
                       const complex* weights)
{
    constexpr int groups = (R + lanes - 1) / lanes;
    V c[groups * lanes];
    n1<R, Forward>::run(butterfly_load<false, Weighted>{ in, lanes, nullptr, weights },
                        codelet_array_store{ c });
    for (int t = R; t < groups * lanes; ++t)
        c[t] = c[0]; // padding lanes, discarded by lane_group
    for (int g = 0; g < groups; ++g)
        lane_group<Forward, Stream>(c + g * lanes, g, R, out, lane_twiddles);
}

template <int R, bool Stream>
fused_fn fused_for(bool forward, bool weighted)
{
    return forward ? (weighted ? &fused_single_pass<R, true, Stream, true>
                               : &fused_single_pass<R, true, Stream, false>)
                   : (weighted ? &fused_single_pass<R, false, Stream, true>
                               : &fused_single_pass<R, false, Stream, false>);
}

template <bool Stream, int... Radices>
fused_fn find_fused(int radix, bool forward, bool weighted)
{
    fused_fn fn = nullptr;
    ((radix == Radices ? (fn = fused_for<Radices, Stream>(forward, weighted)) : fn), ...);
    return fn;
}

/*
 * The last column pass and the lane stage in one, for a last pass whose ns
 * butterflies are whole lane groups: butterflies k0 to k0 + lanes - 1 write
 * the column groups k0 / lanes + t ns / lanes (t < R) into a tile of R x
 * lanes vectors, which stays in L1 for the lane stage, so those columns never
 * go through scratch.
 */
using last_pass_fn = void (*)(const complex* src, complex* out, std::size_t m, const pass& p,
                              complex* tile, const complex* lane_twiddles);

template <int R, bool Forward>
void last_pass_lane_stage(const complex* src, complex* out, std::size_t m, const pass& p,
                          complex* tile, const complex* lane_twiddles)
{
    const std::size_t ns = p.ns, stride = m / R * lanes;
    for (std::size_t k0 = 0; k0 < ns; k0 += lanes) {
        for (int i = 0; i < lanes; ++i) {
            const std::size_t k = k0 + i;
            n1<R, Forward>::run(butterfly_load<true>{ src + k * lanes, stride,
                                                      p.twiddles.data() + 2 * (R - 1) * k },
                                butterfly_store{ tile + i * lanes, std::size_t(lanes) * lanes });
        }
        for (int t = 0; t < R; ++t) {
            V c[lanes];
            for (int i = 0; i < lanes; ++i)
                c[i] = loadu(tile + (t * lanes + i) * lanes);
            lane_group<Forward, false>(c, (k0 + t * ns) / lanes, m, out, lane_twiddles);
        }
    }
}

template <int... Radices>
last_pass_fn find_last_pass(int radix, bool forward)
{
    last_pass_fn fn = nullptr;
    ((radix == Radices ? (fn = forward ? &last_pass_lane_stage<Radices, true>
                                       : &last_pass_lane_stage<Radices, false>)
                       : fn),
     ...);
    return fn;
}

/*
 * Outputs bigger than this go around the cache (non-temporal stores): they
 * will not be read again from it, and a normal store would first read each
 * output line from memory, a third of the traffic of a streamed batch.
 */
constexpr std::size_t streaming_bytes = std::size_t(4) << 20;

/*
 * Where not streaming keeps the fused register path (mixed_radix, n up to 32
 * lanes), which streamed batches give up for a pass through scratch except
 * at n = lanes^2, the threshold is the last-level cache instead: measured
 * on AVX-512 Zen 4 (32 MiB L3; gpufft-bench, both paths in one process,
 * four runs, CPU time a transform), calls of 8 MiB ran 7-16% faster at 64
 * points, 10-43% at 128 and 0-14% at 256 on the fused path; calls of
 * 64 MiB 3-25% slower at 64 and 2-11% at 256, so those still stream.
 */
constexpr std::size_t fused_streaming_bytes = std::size_t(32) << 20;

// Whether every full-vector store of a batch of outputs can bypass the cache:
// larger than min_bytes, and every vector of every transform suitably aligned.
inline bool use_streaming(const complex* out, std::size_t batch, std::size_t dist, std::size_t m,
                          std::size_t min_bytes = streaming_bytes)
{
    return lanes > 1 && reinterpret_cast<std::uintptr_t>(out) % stream_alignment == 0 &&
           (dist * sizeof(complex)) % stream_alignment == 0 &&
           (m * sizeof(complex)) % stream_alignment == 0 &&
           batch * dist * sizeof(complex) > min_bytes;
}

/*
 * From this many bytes a transform, the column passes use its output as one
 * of their two buffers: three buffers in the working set, not four. Measured
 * on an AVX-512 Xeon (2 MiB L2, gpufft-bench, 256 KB a call): 16384 points
 * 6%, 32768 8%, 65536 17% faster; below, no gain beyond the noise (2048 to
 * 8192), and 512 and 1024 10% slower. Not when streaming: it would bring the
 * output into the cache that its stores bypass.
 */
constexpr std::size_t output_as_scratch_bytes = std::size_t(128) << 10;

/*
 * Transforms of this many bytes have the last column pass feed the lane
 * stage through a tile in L1 (last_pass_lane_stage) where its radix has a
 * codelet. Measured on an AVX-512 Xeon (gpufft-bench, 256 KB a call, both
 * plans in one run, three runs): 8192 points 2-6%, 16384 6-7% faster;
 * 1024 to 4096 up to 6% slower; 32768 8% faster to 12% slower from run to
 * run, 65536 up to 7% slower; AVX2's 4 lanes 17-20% slower at 8192 to
 * 32768, so only with 8 lanes. Not when streaming:
 * the lane groups then leave in a scattered order, which non-temporal
 * stores pay for.
 */
constexpr std::size_t last_pass_lane_stage_min_bytes = std::size_t(64) << 10;
constexpr std::size_t last_pass_lane_stage_max_bytes = std::size_t(128) << 10;

class mixed_radix final : public transform
{
public:
    explicit mixed_radix(const mixed_radix_spec& spec)
        : d_n(spec.n),
          d_m(spec.n / lanes),
          d_padded((d_m + lanes - 1) / lanes * lanes),
          d_forward(spec.forward),
          d_radices(spec.radices),
          d_lane_twiddles(d_padded * (lanes - 1)),
          d_weights(paired_weights(spec.weights))
    {
        const unit_roots w(d_n, d_forward);
        std::size_t ns = 1;
        for (int r : d_radices) {
            // The first pass reads the input: it applies the weights.
            d_passes.push_back(make_pass(w, d_n, ns, r, d_forward, ns == 1 ? d_weights.data() : nullptr));
            ns *= r;
        }
        // Twiddles between the column and lane stages, w_n^(n1 k2), as
        // lane_group takes them: for each group of lanes columns k2, a
        // vector of them for each n1 >= 1.
        complex* tw = d_lane_twiddles.data();
        for (std::size_t g = 0; g < d_padded / lanes; ++g)
            for (int n1 = 1; n1 < lanes; ++n1)
                for (int i = 0; i < lanes; ++i) {
                    const std::size_t k2 = g * lanes + i;
                    const auto v = k2 < d_m ? w(n1 * k2) : std::complex<double>(0, 0);
                    *tw++ = complex(float(v.real()), float(v.imag()));
                }
        // Up to 32 columns fit the register file with room for the lane stage
        // (find_fused gives none for a radix without a codelet).
        if constexpr (lanes > 1) {
            if (d_radices.size() == 1 && d_m <= 32) {
                d_fused = find_fused<false, GPUFFT_CODELET_RADICES>(d_radices[0], d_forward,
                                                                    d_weights.data() != nullptr);
                // Streaming, the fused path's output order (a line from each
                // row group in turn) is slower than a pass through scratch,
                // measured at 128 and 256 points; at n = lanes^2 its stores
                // are in order.
                if (d_m == lanes)
                    d_fused_streaming = find_fused<true, GPUFFT_CODELET_RADICES>(
                        d_radices[0], d_forward, d_weights.data() != nullptr);
            }
        }
        if constexpr (lanes >= 8) {
            const std::size_t bytes = d_n * sizeof(complex);
            if (bytes >= last_pass_lane_stage_min_bytes &&
                bytes <= last_pass_lane_stage_max_bytes && d_passes.size() > 1 &&
                d_passes.back().ns % lanes == 0) {
                d_last_pass = find_last_pass<GPUFFT_CODELET_RADICES>(d_radices.back(), d_forward);
                if (d_last_pass)
                    d_tile = buffer(std::size_t(d_radices.back()) * lanes * lanes);
            }
        }
        if (!d_fused || !d_fused_streaming) {
            d_scratch[0] = buffer(d_padded * lanes);
            d_scratch[1] = buffer(d_padded * lanes);
            // Only the padding columns are read without being written first.
            for (auto& b : d_scratch)
                std::fill(b.data() + d_m * lanes, b.data() + d_padded * lanes, complex(0, 0));
        }
    }

    void run(const complex* in, complex* out, std::size_t batch, std::size_t dist) override
    {
        if (d_forward)
            run_batch<true>(in, out, batch, dist);
        else
            run_batch<false>(in, out, batch, dist);
    }

    std::string describe() const override
    {
        std::string s = "mixed-radix ";
        for (std::size_t i = 0; i < d_radices.size(); ++i)
            s += (i ? "x" : "") + std::to_string(d_radices[i]);
        if (d_radices.empty())
            s += "1";
        return s + (lanes > 1 ? " x " + std::to_string(lanes) + " lanes" : "");
    }

private:
    template <bool Forward>
    void run_batch(const complex* in, complex* out, std::size_t batch, std::size_t dist)
    {
        if (use_streaming(out, batch, dist, d_m, d_fused ? fused_streaming_bytes : streaming_bytes)) {
            for (std::size_t b = 0; b < batch; ++b)
                run_one<Forward, true>(in + b * dist, out + b * dist);
            stream_fence();
        } else {
            for (std::size_t b = 0; b < batch; ++b)
                run_one<Forward, false>(in + b * dist, out + b * dist);
        }
    }

    template <bool Forward, bool Stream>
    void run_one(const complex* in, complex* out)
    {
        if (const fused_fn fused = Stream ? d_fused_streaming : d_fused)
            return fused(in, out, d_lane_twiddles.data(), d_weights.data());
        // With lanes > 1 there is at least one pass (n >= lanes^2), so the
        // columns end in scratch[0], padded with zero columns to whole lane
        // groups; with last_pass_lane_stage, all passes but the last (at
        // least one) do. The passes alternate between it and scratch[1], or
        // `out` (see output_as_scratch_bytes) where the first pass does not
        // overwrite the input.
        const last_pass_fn last = Stream ? nullptr : d_last_pass;
        const std::size_t count = d_passes.size() - (last ? 1 : 0);
        const bool odd = count % 2 == 1;
        complex* other = d_n * sizeof(complex) >= output_as_scratch_bytes && !Stream &&
                                 (odd || in != out)
                             ? out
                             : d_scratch[1].data();
        const complex* columns =
            odd ? run_passes(d_passes, in, d_scratch[0].data(), other, d_m, count)
                : run_passes(d_passes, in, other, d_scratch[0].data(), d_m, count);
        if (last)
            return last(columns, out, d_m, d_passes.back(), d_tile.data(), d_lane_twiddles.data());
        if constexpr (lanes == 1) {
            // n = 1 has no pass to weigh the input.
            if (d_passes.empty() && d_weights.data())
                for (std::size_t j = 0; j < d_n; ++j)
                    out[j] = columns[j] * d_weights.data()[j].real();
            else if (columns != out)
                std::copy(columns, columns + d_n, out);
        } else {
            // Locals: the stores to out could alias the members.
            const std::size_t groups = d_padded / lanes, m = d_m;
            const complex* lane_twiddles = d_lane_twiddles.data();
            for (std::size_t g = 0; g < groups; ++g) {
                V c[lanes];
                for (int i = 0; i < lanes; ++i)
                    c[i] = loadu(columns + (g * lanes + i) * lanes);
                lane_group<Forward, Stream>(c, g, m, out, lane_twiddles);
            }
        }
    }

    std::size_t d_n, d_m, d_padded;
    bool d_forward;
    std::vector<int> d_radices;
    std::vector<pass> d_passes;
    fused_fn d_fused = nullptr, d_fused_streaming = nullptr;
    last_pass_fn d_last_pass = nullptr;
    buffer d_tile;
    buffer d_lane_twiddles;
    buffer d_weights; // paired input weights, or none
    buffer d_scratch[2];
};
