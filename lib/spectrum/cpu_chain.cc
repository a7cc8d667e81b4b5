// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum engine: the CPU chain, VOLK kernels around a gpufft::plan. */
#include "chain.h"

#include <gpufft/plan.h>
#include <volk/volk.h>
#include <volk/volk_alloc.hh>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace gpufft::detail {

namespace {

// Powers below this (-300 dB) are clamped so that log2 never sees zero.
constexpr float power_floor = 1e-30f;

class cpu_chain final : public chain
{
public:
    explicit cpu_chain(const chain_setup& s)
        : d_s(s),
          d_plan(problem{ s.n, direction::forward, s.batch }, windowed(s)),
          d_raw(((s.batch - 1) * s.hop + s.n) * sample_bytes(s.format)),
          d_frames(s.n * s.batch, complex(0.0f, 0.0f)),
          d_power(s.n),
          d_avg(s.n),
          d_out(s.n),
          d_floor(s.n, power_floor)
    {
        // 8-bit samples convert exactly through a table (cu8's offset is not a scale).
        for (int v = 0; v < 256; ++v)
            d_lut[v] = s.format == sample_format::cu8
                           ? float((double(v) - 127.5) / 127.5)
                           : float(double(std::int8_t(std::uint8_t(v))) / 128.0);
    }

    unsigned char* input() override { return d_raw.data(); }

    std::size_t run(std::size_t frames, std::size_t used, std::size_t held,
                    const spectrum::sink& deliver) override
    {
        const std::size_t n = d_s.n, step = d_s.hop * sample_bytes(d_s.format);
        for (std::size_t f = 0; f < frames; ++f)
            load(d_raw.data() + f * step, d_frames.data() + f * n);
        std::memmove(d_raw.data(), d_raw.data() + used, held - used);
        d_plan.execute(d_frames.data(), d_frames.data());

        std::size_t outputs = 0;
        for (std::size_t f = 0; f < frames; ++f) {
            accumulate(d_frames.data() + f * n);
            if (++d_count == d_s.per_output) {
                finish(d_out.data());
                if (deliver)
                    deliver(d_out.data(), n);
                ++outputs;
                d_count = 0;
            }
        }
        return outputs;
    }

    std::size_t drain(const spectrum::sink&) override { return 0; }

    void reset() override
    {
        d_count = 0;
        d_started = false;
    }

    const std::string& backend() const override { return d_plan.backend(); }

private:
    // The plan applies the window (plan_options::input_weights): in its
    // first pass on the simd backend, not a pass of its own here.
    static plan_options windowed(const chain_setup& s)
    {
        plan_options o = s.plan;
        o.input_weights = s.window;
        return o;
    }

    // Converts one frame to complex float (the plan windows it).
    void load(const unsigned char* src, complex* dst)
    {
        const std::size_t n = d_s.n;
        float* out = reinterpret_cast<float*>(dst);
        switch (d_s.format) {
        case sample_format::cf32:
            std::memcpy(dst, src, n * sizeof(complex));
            return;
        case sample_format::cs16:
            volk_16i_s32f_convert_32f(out, reinterpret_cast<const std::int16_t*>(src), 32768.0f, 2 * n);
            return;
        case sample_format::cs8:
        case sample_format::cu8:
            for (std::size_t i = 0; i < 2 * n; ++i)
                out[i] = d_lut[src[i]];
            return;
        }
    }

    // Folds one transformed frame's |X|^2 into the average.
    void accumulate(const complex* x)
    {
        const std::size_t n = d_s.n;
        // Alpha 1 (the display's one spectrum per frame) keeps only the newest frame: no blending passes.
        const bool first =
            d_s.average == averaging::exponential ? !d_started || d_s.alpha == 1.0f : d_count == 0;
        d_started = true;
        if (first) {
            volk_32fc_magnitude_squared_32f(d_avg.data(), x, n);
            return;
        }
        volk_32fc_magnitude_squared_32f(d_power.data(), x, n);
        float* a = d_avg.data();
        const float* p = d_power.data();
        switch (d_s.average) {
        case averaging::exponential:
            // avg = (1 - alpha) avg + alpha P
            volk_32f_s32f_multiply_32f(a, a, 1.0f - d_s.alpha, n);
            volk_32f_s32f_multiply_32f(d_power.data(), p, d_s.alpha, n);
            volk_32f_x2_add_32f(a, a, p, n);
            break;
        case averaging::linear: // the 1/K is part of d_s.scale
            volk_32f_x2_add_32f(a, a, p, n);
            break;
        case averaging::peak_hold:
            volk_32f_x2_max_32f(a, a, p, n);
            break;
        case averaging::min_hold:
            volk_32f_x2_min_32f(a, a, p, n);
            break;
        }
    }

    // Scales the average into out, fftshifted if asked, in dB if asked.
    void finish(float* out)
    {
        const std::size_t n = d_s.n;
        // With shift, out[0, n/2) takes bins [ceil(n/2), n) and out[n/2, n) bins [0, ceil(n/2)).
        const std::size_t lo = d_s.shift ? n / 2 : 0, hi = n - lo;
        float* p = d_power.data();
        volk_32f_s32f_multiply_32f(out + lo, d_avg.data(), d_s.scale, hi);
        volk_32f_s32f_multiply_32f(out, d_avg.data() + hi, d_s.scale, lo);
        if (!d_s.db)
            return;
        // 10 log10(x) = 10 log10(2) log2(x), x clamped to the floor.
        volk_32f_x2_max_32f(p, out, d_floor.data(), n);
        volk_32f_log2_32f(out, p, n);
        volk_32f_s32f_multiply_32f(out, out, float(10.0 * std::log10(2.0)), n);
    }

    const chain_setup d_s;
    plan d_plan;
    std::vector<unsigned char> d_raw; // one batch of frames' raw samples
    volk::vector<complex> d_frames; // batch frames, transformed in place
    volk::vector<float> d_power;    // one frame's |X|^2
    volk::vector<float> d_avg;      // the running average or hold
    volk::vector<float> d_out;      // one finished output
    volk::vector<float> d_floor;    // power_floor, n times
    std::array<float, 256> d_lut{};
    std::size_t d_count = 0;        // frames in the current output
    bool d_started = false;         // exponential: the average holds a frame
};

} // namespace

std::unique_ptr<chain> make_cpu_chain(const chain_setup& setup)
{
    return std::make_unique<cpu_chain>(setup);
}

} // namespace gpufft::detail
