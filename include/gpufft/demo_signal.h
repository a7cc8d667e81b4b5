// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: a known test signal, so that spectra can be shown and checked without a radio. */
#ifndef GPUFFT_DEMO_SIGNAL_H
#define GPUFFT_DEMO_SIGNAL_H

#include <gpufft/api.h>
#include <gpufft/problem.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gpufft {

/*!
 * \brief The signal of `gpufft-spectrum --demo` and of gpufft.iq_replay_source
 * without a file: four tones of known frequency and power, an FM carrier and
 * complex Gaussian noise.
 *
 * At 2.4 MHz: tones at -600, -250, +150 and +620 kHz at -20, -40, -30 and
 * -55 dBFS; an FM carrier at +380 kHz, -30 dBFS, swinging +-60 kHz once a
 * second; noise at -45 dBFS in total. At other sample rates every frequency
 * scales with the rate (the swing stays once a second). With fft_size > 0 the
 * tones sit on the centres of that FFT's bins, so that their power reads
 * exactly. The noise is the same for the same seed.
 */
class GPUFFT_API demo_signal
{
public:
    struct tone {
        double hz;   //!< relative to the centre
        double dbfs; //!< power of the sinusoid, dB relative to amplitude 1
    };

    //! Throws gpufft::error for a sample_rate that is not > 0.
    explicit demo_signal(double sample_rate, std::size_t fft_size = 0, std::uint64_t seed = 12345);

    //! The next `count` samples (the signal continues across calls).
    void generate(complex* x, std::size_t count);

    const std::vector<tone>& tones() const { return d_tones; }
    double fm_hz() const { return d_fm_hz; }
    double fm_deviation_hz() const { return d_fm_dev_hz; }
    double sample_rate() const { return d_rate; }

private:
    double d_rate;
    std::vector<tone> d_tones;
    std::vector<std::complex<double>> d_phasor; // each tone's value now
    std::vector<std::complex<double>> d_step;   // its rotation per sample
    double d_fm_hz, d_fm_dev_hz;
    std::complex<double> d_carrier = 1, d_carrier_step; // the FM carrier without its swing
    std::complex<double> d_swing = 1, d_swing_step;     // exp(2 pi i t): the swing's cosine
    std::mt19937 d_rng;
    std::normal_distribution<double> d_noise;
};

} // namespace gpufft

#endif
