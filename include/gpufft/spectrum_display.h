// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: a live display from raw I/Q, the spectrum engine and the
 * display pipeline in one object (what a display block runs). */
#ifndef GPUFFT_SPECTRUM_DISPLAY_H
#define GPUFFT_SPECTRUM_DISPLAY_H

#include <gpufft/api.h>
#include <gpufft/display.h>
#include <gpufft/spectrum.h>
#include <cstddef>
#include <memory>
#include <string>

namespace gpufft {

/*!
 * \brief Raw I/Q in, display images out: every frame's dB spectrum goes
 * into the display pipeline (gpufft::display's definition).
 *
 * The spectrum part is configured as gpufft::spectrum, except that every
 * frame is one output (frames_per_output = 1, output_rate = 0, no
 * averaging across frames: the display does that), in dB (its scale, dBFS
 * by default), fftshifted.
 * The display part is configured as gpufft::display with n = fft_size.
 * On a backend with a device display chain the whole pipeline stays on the
 * device and only the read-outs (display-sized images) leave it; elsewhere
 * the FFT runs on the backend and the display stages on the CPU.
 *
 * Plan once, run many: everything is allocated in the constructor.
 * Not thread safe: one object, one thread at a time.
 */
class GPUFFT_API spectrum_display
{
public:
    //! `spectrum.average`, `alpha`, `frames_per_output`, `output_rate`, `db`
    //! and `shift` are ignored (see above); `display.n` is set to fft_size.
    //! Throws gpufft::error naming the bad parameter.
    spectrum_display(const spectrum_config& spectrum, const display_config& display);
    ~spectrum_display();
    spectrum_display(spectrum_display&&) noexcept;
    spectrum_display& operator=(spectrum_display&&) noexcept;

    //! Raw bytes in the configured format, any length. Returns frames displayed.
    std::size_t push_bytes(const void* data, std::size_t bytes);
    //! Zero-copy input, as gpufft::spectrum::acquire() and commit(); commit returns frames displayed.
    input_span acquire(std::size_t max_bytes);
    std::size_t commit(std::size_t bytes);
    //! Complex float samples; the format must be cf32. Returns frames displayed.
    std::size_t push(const complex* samples, std::size_t count);
    //! Displays the complete frames still waiting for a full batch.
    std::size_t flush();
    //! Forgets pending samples and every frame (gpufft::display::reset).
    void reset();

    // As gpufft::display.
    void reset_max_hold();
    void set_db_range(double db_min, double db_max);
    void set_decay(double decay);
    void set_resample(display_resample mode);
    void set_average(display_average mode, double alpha);
    void set_max_hold(bool on);
    //! The bins [begin, end) of the fft_size the columns show (gpufft::display::set_bin_range).
    void set_bin_range(std::size_t begin, std::size_t end);
    void read_histogram(float* out) const;
    void read_histogram_levels(std::uint16_t* out, float scale, std::uint16_t top, std::uint8_t* lit_rows) const;
    void read_average(float* out) const;
    void read_max_hold(float* out) const;
    void read_waterfall(float* out, std::size_t rows) const;
    void read_waterfall_max(float* out, std::size_t rows) const;
    bool newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) const;
    //! Frames displayed since construction or reset().
    std::size_t frames() const;

    const display_config& display_settings() const;
    const spectrum_config& spectrum_settings() const;
    //! Frequency of bin i relative to the centre, in Hz (fftshifted).
    double bin_hz(std::size_t i) const;
    //! The FFT's backend and variant, e.g. "simd:avx2".
    const std::string& backend() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace gpufft

#endif
