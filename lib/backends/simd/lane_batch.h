// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: batches of small transforms, one transform per
 * lane. Included by isa_kernels.cc inside each instruction set's namespace,
 * after stockham.h.
 *
 * `lanes` transforms of the batch are moved into scratch lane-interleaved
 * (vector j holds point j of each), lanes x lanes tiles transposed in
 * registers as columns.h does; the Stockham passes of stockham.h then run a
 * whole n-point transform down the vectors, and a second tile transpose
 * writes the results back. No lane stage (twiddle, transpose and a DFT
 * across the vector) as mixed_radix has, and no n mod lanes constraint, at
 * the price of scratch lanes times larger, so it wins for small n only
 * (planner.cc says where). Sizes that are one codelet skip the scratch.
 * Transforms left over (batch mod lanes) run on the best plan for that
 * small a batch.
 */

// The lanes x lanes tile of points [j, j + lanes) of lanes transforms dist
// apart, each row times the paired input weights of those points if any.
GPUFFT_INLINE void load_tile(const complex* in, std::size_t dist, std::size_t j,
                             const complex* weights, V* tile)
{
    for (int i = 0; i < lanes; ++i)
        tile[i] = loadu(in + i * dist + j);
    if (weights) {
        const V w = loadu(weights + j);
        for (int i = 0; i < lanes; ++i)
            tile[i] = vmul_floats(tile[i], w);
    }
}

// lanes transforms dist apart <-> R vectors, vector j holding point j of
// each (R a multiple of lanes); x is overwritten on the way out.
template <int R>
GPUFFT_INLINE void interleave_lanes(const complex* in, std::size_t dist, const complex* weights, V* x)
{
    for (int j = 0; j < R; j += lanes) {
        load_tile(in, dist, j, weights, x + j);
        transpose(x + j);
    }
}

template <int R>
GPUFFT_INLINE void deinterleave_lanes(V* x, complex* out, std::size_t dist)
{
    for (int j = 0; j < R; j += lanes) {
        transpose(x + j);
        for (int i = 0; i < lanes; ++i)
            storeu(out + i * dist + j, x[j + i]);
    }
}

using lane_codelet_fn = void (*)(const complex* in, complex* out, std::size_t dist,
                                 const complex* weights);

// n = R, one codelet: from the input loads to the output stores in registers.
template <int R, bool Forward>
void lane_codelet(const complex* in, complex* out, std::size_t dist, const complex* weights)
{
    V x[R];
    interleave_lanes<R>(in, dist, weights, x);
    n1<R, Forward>::run(x);
    deinterleave_lanes<R>(x, out, dist);
}

// Only radices that are multiples of lanes: other sizes have points left
// over from the tiles, which a pass through scratch handles better. Scalar
// code never batches by lanes (planner.cc).
template <int R>
lane_codelet_fn lane_codelet_for(bool forward)
{
    if constexpr (lanes == 1 || R % lanes != 0)
        return nullptr;
    else
        return forward ? &lane_codelet<R, true> : &lane_codelet<R, false>;
}

template <int... Radices>
lane_codelet_fn find_lane_codelet(std::size_t n, bool forward)
{
    lane_codelet_fn fn = nullptr;
    ((n == std::size_t(Radices) ? (fn = lane_codelet_for<Radices>(forward)) : fn), ...);
    return fn;
}

class lane_batch final : public transform
{
public:
    lane_batch(std::size_t n, bool forward, const std::vector<int>& radices,
               std::unique_ptr<transform> rest, const std::vector<float>& weights)
        : d_n(n), d_radices(radices), d_rest(std::move(rest)), d_weights(paired_weights(weights))
    {
        const unit_roots w(n, forward);
        std::size_t ns = 1;
        for (int r : d_radices) {
            d_passes.push_back(make_pass(w, n, ns, r, forward));
            ns *= r;
        }
        // Up to 32 points, one codelet fits the register file (as mixed_radix's
        // fused path); larger sizes go through scratch.
        if (n <= 32)
            d_codelet = find_lane_codelet<GPUFFT_CODELET_RADICES>(n, forward);
        if (!d_codelet) {
            d_scratch[0] = buffer(n * lanes);
            d_scratch[1] = buffer(n * lanes);
        }
    }

    void run(const complex* in, complex* out, std::size_t batch, std::size_t dist) override
    {
        std::size_t b = 0;
        if (d_codelet)
            for (; b + lanes <= batch; b += lanes)
                d_codelet(in + b * dist, out + b * dist, dist, d_weights.data());
        for (; b + lanes <= batch; b += lanes)
            run_group(in + b * dist, out + b * dist, dist);
        if (b < batch)
            d_rest->run(in + b * dist, out + b * dist, batch - b, dist);
    }

    std::size_t batch_granule() const override { return lanes; }

    std::string describe() const override
    {
        std::string s = "lane-batched ";
        for (std::size_t i = 0; i < d_radices.size(); ++i)
            s += (i ? "x" : "") + std::to_string(d_radices[i]);
        if (d_radices.empty())
            s += "1";
        return s + ", " + std::to_string(lanes) + " transforms a vector (rest: " +
               d_rest->describe() + ")";
    }

private:
    // lanes transforms, dist apart: all are read before any is written, so
    // in == out is safe. The input weights are applied as they are interleaved.
    void run_group(const complex* in, complex* out, std::size_t dist)
    {
        complex* interleaved = d_scratch[0].data();
        const complex* weights = d_weights.data();
        std::size_t j = 0;
        for (; j + lanes <= d_n; j += lanes) {
            V tile[lanes];
            load_tile(in, dist, j, weights, tile);
            transpose(tile);
            for (int i = 0; i < lanes; ++i)
                storeu(interleaved + (j + i) * lanes, tile[i]);
        }
        for (; j < d_n; ++j) // n mod lanes points left
            for (int i = 0; i < lanes; ++i)
                interleaved[j * lanes + i] = weights ? in[i * dist + j] * weights[j].real()
                                                     : in[i * dist + j];
        // Each pass reads all of its source before the next overwrites it.
        const complex* result =
            run_passes(d_passes, interleaved, d_scratch[1].data(), interleaved, d_n);
        for (j = 0; j + lanes <= d_n; j += lanes) {
            V tile[lanes];
            for (int i = 0; i < lanes; ++i)
                tile[i] = loadu(result + (j + i) * lanes);
            transpose(tile);
            for (int i = 0; i < lanes; ++i)
                storeu(out + i * dist + j, tile[i]);
        }
        for (; j < d_n; ++j)
            for (int i = 0; i < lanes; ++i)
                out[i * dist + j] = result[j * lanes + i];
    }

    std::size_t d_n;
    std::vector<int> d_radices;
    std::unique_ptr<transform> d_rest;
    std::vector<pass> d_passes;
    lane_codelet_fn d_codelet = nullptr;
    buffer d_weights; // paired input weights, or none
    buffer d_scratch[2];
};
