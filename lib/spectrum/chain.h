/* gr-gpufft spectrum engine: the stages around the FFT (internal).
 *
 * The engine keeps the framing (which raw samples form which frame); a chain
 * does everything else for a batch of frames: convert and window on load,
 * FFT, |X|^2, averaging, scaling to dB, fftshift. The CPU chain runs the
 * element-wise stages with VOLK around a gpufft::plan; a device backend can
 * provide its own chain that keeps the whole pipeline on the device and moves
 * only raw samples in and spectra out. */
#ifndef GPUFFT_LIB_SPECTRUM_CHAIN_H
#define GPUFFT_LIB_SPECTRUM_CHAIN_H

#include <gpufft/backend.h>
#include <gpufft/spectrum.h>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gpufft::detail {

//! Everything a chain needs, validated by the engine.
struct chain_setup {
    std::size_t n = 0;          //!< FFT size
    std::size_t batch = 1;      //!< frames per FFT call
    std::size_t hop = 0;        //!< samples between frame starts
    sample_format format = sample_format::cf32;
    std::vector<float> window;  //!< n taps
    averaging average = averaging::exponential;
    float alpha = 1.0f;
    std::size_t per_output = 1; //!< frames per output (K)
    float scale = 1.0f;         //!< turns the averaged |X|^2 into power relative to full scale
    bool db = true;
    bool shift = false;
    plan_options plan;
};

class chain
{
public:
    virtual ~chain() = default;
    /*!
     * Runs `frames` frames (1 to batch) whose raw samples start hop samples
     * apart at `raw`. Each finished output (n floats) goes to out + k * n;
     * returns how many (at most `frames`).
     */
    virtual std::size_t run(const unsigned char* raw, std::size_t frames, float* out) = 0;
    //! Forgets the average.
    virtual void reset() = 0;
    virtual const std::string& backend() const = 0;
};

/*!
 * The chain for the setup's backend: a backend with a device chain
 * (make_chain.cc's table) gets it when named, or when "auto" picks it for
 * the FFT (falling back to the CPU chain with a logged line if the device
 * chain fails); any other backend gets the CPU chain.
 */
std::unique_ptr<chain> make_chain(const chain_setup& setup);

//! The element-wise stages on the CPU (VOLK) around a gpufft::plan of any backend.
std::unique_ptr<chain> make_cpu_chain(const chain_setup& setup);

} // namespace gpufft::detail

#endif
