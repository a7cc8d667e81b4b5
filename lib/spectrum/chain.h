// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft spectrum engine: the stages around the FFT (internal).
 *
 * The engine keeps the framing (which raw samples form which frame); a chain
 * does everything else for a batch of frames: convert and window on load,
 * FFT, |X|^2, averaging, scaling to dB, fftshift. The CPU chain runs the
 * element-wise stages with VOLK around a gpufft::plan; a device backend can
 * provide its own chain that keeps the whole pipeline on the device and moves
 * only raw samples in and spectra out. A device chain may also run the
 * display pipeline (gpufft::display's definition) on its spectra, so that
 * only display-sized images leave the device (gpufft::spectrum_display). */
#ifndef GPUFFT_LIB_SPECTRUM_CHAIN_H
#define GPUFFT_LIB_SPECTRUM_CHAIN_H

#include <gpufft/backend.h>
#include <gpufft/display.h>
#include <gpufft/spectrum.h>
#include <cstddef>
#include <memory>
#include <optional>
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
    /*!
     * Set by gpufft::spectrum_display (n = FFT size, validated): a chain that
     * can runs the display stages itself; the engine's settings are then one
     * dB, shifted frame per output.
     */
    std::optional<display_config> display;
};

/*!
 * The display stages run inside a chain, with gpufft::display's definition
 * and its methods (each setter and read-out checks its arguments as
 * gpufft::display's does).
 */
class display_stage
{
public:
    virtual ~display_stage() = default;
    virtual void reset() = 0;
    virtual void reset_max_hold() = 0;
    virtual void set_db_range(double db_min, double db_max) = 0;
    virtual void set_decay(double decay) = 0;
    virtual void set_resample(display_resample mode) = 0;
    virtual void set_average(display_average mode, double alpha) = 0;
    virtual void set_max_hold(bool on) = 0;
    virtual void set_bin_range(std::size_t begin, std::size_t end) = 0;
    virtual void read_histogram(float* out) const = 0;
    virtual void read_histogram_levels(std::uint16_t* out, float scale, std::uint16_t top,
                                       std::uint8_t* lit_rows) const = 0;
    virtual void read_average(float* out) const = 0;
    virtual void read_max_hold(float* out) const = 0;
    virtual void read_waterfall(float* out, std::size_t rows) const = 0;
    virtual void read_waterfall_max(float* out, std::size_t rows) const = 0;
    virtual bool newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) const = 0;
    virtual std::size_t frames() const = 0;
    virtual const display_config& config() const = 0;
};

class chain
{
public:
    virtual ~chain() = default;
    /*!
     * Where the engine assembles the raw samples of the next run: room for
     * (batch - 1) * hop + n samples. A device chain may hand out a
     * different buffer after each run (a ring of pinned staging buffers).
     */
    virtual unsigned char* input() = 0;
    /*!
     * Runs `frames` frames (1 to batch) whose raw samples start hop samples
     * apart in input(), whose first `held` bytes the engine filled, and
     * carries bytes [used, held) over to the start of the next input().
     * Finished outputs (n floats each) go to `deliver` in order, when it is
     * set, as they become ready: a device chain may deliver them during a
     * later run() or drain(). Returns how many it delivered. A chain with a
     * display stage puts every frame into it instead, delivers nothing and
     * returns `frames`.
     */
    virtual std::size_t run(std::size_t frames, std::size_t used, std::size_t held,
                            const spectrum::sink& deliver) = 0;
    //! Delivers every output still in flight; returns how many.
    virtual std::size_t drain(const spectrum::sink& deliver) = 0;
    //! Forgets the average (the engine drains first).
    virtual void reset() = 0;
    virtual const std::string& backend() const = 0;
    //! The display stage, when setup.display asked for one and this chain runs it; else nullptr.
    virtual display_stage* display() { return nullptr; }
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
