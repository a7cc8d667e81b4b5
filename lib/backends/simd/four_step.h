// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft simd backend: the four-step scheme for sizes beyond the cache.
 * Included by isa_kernels.cc inside each instruction set's namespace, after
 * stockham.h.
 *
 * n = a * b, input index j = col + b * row, output index k = ka + a * kb:
 *   1. for each column (lanes columns at a time, gathered into cache): an
 *      a-point FFT down the column, times w_n^(col * ka), written to row ka
 *      of a work matrix;
 *   2. a b-point FFT along each row of the work matrix, in place, in cache;
 *   3. a blocked transpose of the a x b work matrix into the output.
 * Three sweeps through memory, against one per radix pass for plain Stockham.
 */

class four_step final : public transform
{
public:
    four_step(std::size_t n, bool forward, std::size_t a, const std::vector<int>& column_radices,
              std::unique_ptr<transform> rows, const std::vector<float>& weights)
        : d_n(n),
          d_a(a),
          d_b(n / a),
          d_column_radices(column_radices),
          d_rows(std::move(rows)),
          d_weights(paired_weights(weights))
    {
        // w_n^j = fine[j mod s] * coarse[j / s]: two tables of about sqrt(n).
        d_split = std::size_t(std::ceil(std::sqrt(double(n))));
        const double sign = forward ? -2.0 * M_PI : 2.0 * M_PI;
        for (std::size_t j = 0; j < d_split; ++j)
            d_fine.push_back(std::polar(1.0, sign * double(j) / double(n)));
        for (std::size_t j = 0; j * d_split < n; ++j)
            d_coarse.push_back(std::polar(1.0, sign * double(j * d_split) / double(n)));
        const unit_roots wa(a, forward);
        std::size_t ns = 1;
        for (int r : d_column_radices) {
            d_passes.push_back(make_pass(wa, a, ns, r, forward));
            ns *= r;
        }
        // w_n^(col ka) with col = lanes g + i: the lane part w_n^(i ka) as
        // vectors, the block part w_n^(lanes g ka) from the two short tables.
        d_lane_twiddles = buffer(a * lanes);
        for (std::size_t ka = 0; ka < a; ++ka)
            for (int i = 0; i < lanes; ++i) {
                const auto v = root(i * ka);
                d_lane_twiddles.data()[ka * lanes + i] = complex(float(v.real()), float(v.imag()));
            }
        d_block_twiddles.resize(a);
        d_columns[0] = buffer(a * lanes);
        d_columns[1] = buffer(a * lanes);
        d_work = buffer(n);
    }

    void run(const complex* in, complex* out, std::size_t batch, std::size_t dist) override
    {
        for (std::size_t t = 0; t < batch; ++t) {
            columns(in + t * dist);
            d_rows->run(d_work.data(), d_work.data(), d_a, d_b);
            if (use_streaming(out + t * dist, 1, d_n, d_a)) {
                transpose_out<true>(out + t * dist);
                stream_fence();
            } else {
                transpose_out<false>(out + t * dist);
            }
        }
    }

    std::string describe() const override
    {
        std::string s = "four-step " + std::to_string(d_a) + " (";
        for (std::size_t i = 0; i < d_column_radices.size(); ++i)
            s += (i ? "x" : "") + std::to_string(d_column_radices[i]);
        return s + ") x " + std::to_string(d_b) + " (" + d_rows->describe() + ")";
    }

private:
    std::complex<double> root(std::size_t j) const
    {
        j %= d_n;
        return d_fine[j % d_split] * d_coarse[j / d_split];
    }

    void columns(const complex* in)
    {
        if (d_forward)
            columns_dir<true>(in);
        else
            columns_dir<false>(in);
    }

    template <bool Forward>
    void columns_dir(const complex* in)
    {
        const complex* weights = d_weights.data();
        for (std::size_t g = 0; g < d_b / lanes; ++g) {
            complex* col = d_columns[0].data();
            // The gather reads the input: it applies the weights.
            for (std::size_t row = 0; row < d_a; ++row) {
                const std::size_t at = row * d_b + g * lanes;
                storeu(col + row * lanes, weights ? vmul_floats(loadu(in + at), loadu(weights + at))
                                                  : loadu(in + at));
            }
            // Each pass has read all of its source before the next overwrites it.
            const complex* src = run_passes(d_passes, col, d_columns[1].data(), col, d_a);
            for (std::size_t ka = 0; ka < d_a; ++ka)
                d_block_twiddles[ka] = root(lanes * g * ka);
            for (std::size_t ka = 0; ka < d_a; ++ka) {
                const auto& w = d_block_twiddles[ka];
                V v = vcmul_lanes(loadu(src + ka * lanes), loadu(d_lane_twiddles.data() + ka * lanes));
                v = vcmul(v, float(w.real()), float(w.imag()));
                storeu(d_work.data() + ka * d_b + g * lanes, v);
            }
        }
    }

    template <bool Stream>
    void transpose_out(complex* out)
    {
        for (std::size_t ka = 0; ka < d_a; ka += lanes)
            for (std::size_t kb = 0; kb < d_b; kb += lanes) {
                V tile[lanes];
                for (int i = 0; i < lanes; ++i)
                    tile[i] = loadu(d_work.data() + (ka + i) * d_b + kb);
                transpose(tile);
                for (int i = 0; i < lanes; ++i)
                    if (Stream)
                        stream(out + (kb + i) * d_a + ka, tile[i]);
                    else
                        storeu(out + (kb + i) * d_a + ka, tile[i]);
            }
    }

    std::size_t d_n, d_a, d_b, d_split = 1;
    bool d_forward = true;
    std::vector<int> d_column_radices;
    std::unique_ptr<transform> d_rows;
    std::vector<std::complex<double>> d_fine, d_coarse;
    std::vector<pass> d_passes;
    buffer d_weights; // paired input weights, or none
    buffer d_lane_twiddles, d_columns[2], d_work;
    std::vector<std::complex<double>> d_block_twiddles;
};
