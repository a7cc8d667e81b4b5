// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the demo signal (tones, FM, noise). */
#include <gpufft/demo_signal.h>
#include <gpufft/error.h>
#include <cmath>

namespace gpufft {

namespace {
constexpr double reference_rate = 2.4e6; // the rate the frequencies are given at
constexpr double two_pi = 6.283185307179586;
constexpr double fm_dbfs = -30, noise_dbfs = -45;
} // namespace

demo_signal::demo_signal(double sample_rate, std::size_t fft_size, std::uint64_t seed)
    : d_rate(sample_rate), d_rng(std::uint32_t(seed))
{
    if (!(sample_rate > 0) || !std::isfinite(sample_rate))
        throw error("gpufft: demo_signal: sample_rate must be > 0");
    const double scale = sample_rate / reference_rate;
    const double bin = fft_size ? sample_rate / double(fft_size) : 0.0;
    for (tone t : { tone{ -600e3, -20 }, tone{ -250e3, -40 }, tone{ 150e3, -30 }, tone{ 620e3, -55 } }) {
        const double hz = bin > 0 ? std::round(t.hz * scale / bin) * bin : t.hz * scale;
        d_tones.push_back({ hz, t.dbfs });
        d_phasor.push_back(std::pow(10.0, t.dbfs / 20));
        d_step.push_back(std::polar(1.0, two_pi * hz / sample_rate));
    }
    d_fm_hz = 380e3 * scale;
    d_fm_dev_hz = 60e3 * scale;
    d_carrier_step = std::polar(1.0, two_pi * d_fm_hz / sample_rate);
    d_swing_step = std::polar(1.0, two_pi / sample_rate);
}

void demo_signal::generate(complex* x, std::size_t count)
{
    const double fm_amp = std::pow(10.0, fm_dbfs / 20);
    const double noise_amp = std::pow(10.0, noise_dbfs / 20) / std::sqrt(2.0);
    for (std::size_t i = 0; i < count; ++i) {
        std::complex<double> v = 0;
        for (std::size_t k = 0; k < d_phasor.size(); ++k) {
            v += d_phasor[k];
            d_phasor[k] *= d_step[k];
        }
        // FM: the phase is the integral of fm_hz + dev sin(2 pi t), t in seconds.
        v += d_carrier * std::polar(fm_amp, d_fm_dev_hz * (1 - d_swing.real()));
        d_carrier *= d_carrier_step;
        d_swing *= d_swing_step;
        v += std::complex<double>(d_noise(d_rng), d_noise(d_rng)) * noise_amp;
        x[i] = complex(v);
    }
    // Rounding in the rotations would drift the tones' amplitudes over hours; renormalize.
    for (std::size_t k = 0; k < d_phasor.size(); ++k)
        d_phasor[k] *= std::pow(10.0, d_tones[k].dbfs / 20) / std::abs(d_phasor[k]);
    d_carrier /= std::abs(d_carrier);
    d_swing /= std::abs(d_swing);
}

} // namespace gpufft
