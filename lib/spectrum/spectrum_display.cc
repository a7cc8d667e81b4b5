// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: raw I/Q to display images (include/gpufft/spectrum_display.h).
 * The engine's chain gives one dB spectrum per frame; a chain with a display
 * stage (the opencl device chain) keeps them on its device and runs the
 * display there, any other chain hands them to gpufft::display on the CPU. */
#include "display_checks.h"
#include "engine.h"
#include <gpufft/spectrum_display.h>

namespace gpufft {

namespace {

spectrum_config per_frame_spectra(spectrum_config c)
{
    c.average = averaging::exponential;
    c.alpha = 1.0;
    c.frames_per_output = 1;
    c.output_rate = 0.0;
    c.db = true;
    c.shift = true;
    return c;
}

display_config sized_for(display_config c, std::size_t fft_size)
{
    c.n = fft_size;
    return detail::checked_display_config(c);
}

//! gpufft::display behind the chain's display_stage interface.
class cpu_display_stage final : public detail::display_stage
{
public:
    explicit cpu_display_stage(const display_config& c) : d(c) {}
    void push(const float* db) { d.push(db, 1); }

    void reset() override { d.reset(); }
    void reset_max_hold() override { d.reset_max_hold(); }
    void set_db_range(double db_min, double db_max) override { d.set_db_range(db_min, db_max); }
    void set_decay(double decay) override { d.set_decay(decay); }
    void set_resample(display_resample mode) override { d.set_resample(mode); }
    void set_average(display_average mode, double alpha) override { d.set_average(mode, alpha); }
    void set_max_hold(bool on) override { d.set_max_hold(on); }
    void set_bin_range(std::size_t begin, std::size_t end) override { d.set_bin_range(begin, end); }
    void read_histogram(float* out) const override { d.read_histogram(out); }
    void read_histogram_levels(std::uint16_t* out, float scale, std::uint16_t top,
                               std::uint8_t* lit_rows) const override
    {
        d.read_histogram_levels(out, scale, top, lit_rows);
    }
    void read_average(float* out) const override { d.read_average(out); }
    void read_max_hold(float* out) const override { d.read_max_hold(out); }
    void read_waterfall(float* out, std::size_t rows) const override { d.read_waterfall(out, rows); }
    void read_waterfall_max(float* out, std::size_t rows) const override { d.read_waterfall_max(out, rows); }
    bool newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) const override
    {
        return d.newest_peak_bin(begin, end, bin);
    }
    std::size_t frames() const override { return d.frames(); }
    const display_config& config() const override { return d.config(); }

private:
    display d;
};

} // namespace

struct spectrum_display::impl {
    const display_config wanted;
    detail::engine engine;
    std::unique_ptr<cpu_display_stage> on_cpu; // when the chain has no display stage
    detail::display_stage& stage;
    spectrum::sink to_display; // empty when the chain displays on its device

    impl(const spectrum_config& s, const display_config& d)
        : wanted(sized_for(d, s.fft_size)),
          engine(per_frame_spectra(s), &wanted),
          on_cpu(engine.stages().display() ? nullptr : std::make_unique<cpu_display_stage>(wanted)),
          stage(on_cpu ? *on_cpu : *engine.stages().display())
    {
        if (on_cpu)
            to_display = [this](const float* db, std::size_t) { on_cpu->push(db); };
    }
};

spectrum_display::spectrum_display(const spectrum_config& spectrum, const display_config& display)
    : d_impl(std::make_unique<impl>(spectrum, display))
{
}
spectrum_display::~spectrum_display() = default;
spectrum_display::spectrum_display(spectrum_display&&) noexcept = default;
spectrum_display& spectrum_display::operator=(spectrum_display&&) noexcept = default;

std::size_t spectrum_display::push_bytes(const void* data, std::size_t bytes)
{
    return d_impl->engine.push_bytes(data, bytes, d_impl->to_display);
}
input_span spectrum_display::acquire(std::size_t max_bytes)
{
    return d_impl->engine.acquire(max_bytes);
}
std::size_t spectrum_display::commit(std::size_t bytes)
{
    return d_impl->engine.commit(bytes, d_impl->to_display);
}
std::size_t spectrum_display::push(const complex* samples, std::size_t count)
{
    return d_impl->engine.push(samples, count, d_impl->to_display);
}
std::size_t spectrum_display::flush() { return d_impl->engine.flush(d_impl->to_display); }
void spectrum_display::reset()
{
    d_impl->engine.reset();
    d_impl->stage.reset();
}

void spectrum_display::reset_max_hold() { d_impl->stage.reset_max_hold(); }
void spectrum_display::set_db_range(double db_min, double db_max) { d_impl->stage.set_db_range(db_min, db_max); }
void spectrum_display::set_decay(double decay) { d_impl->stage.set_decay(decay); }
void spectrum_display::set_resample(display_resample mode) { d_impl->stage.set_resample(mode); }
void spectrum_display::set_average(display_average mode, double alpha) { d_impl->stage.set_average(mode, alpha); }
void spectrum_display::set_max_hold(bool on) { d_impl->stage.set_max_hold(on); }
void spectrum_display::set_bin_range(std::size_t begin, std::size_t end) { d_impl->stage.set_bin_range(begin, end); }
void spectrum_display::read_histogram(float* out) const { d_impl->stage.read_histogram(out); }
void spectrum_display::read_histogram_levels(std::uint16_t* out, float scale, std::uint16_t top,
                                             std::uint8_t* lit_rows) const
{
    d_impl->stage.read_histogram_levels(out, scale, top, lit_rows);
}
void spectrum_display::read_average(float* out) const { d_impl->stage.read_average(out); }
void spectrum_display::read_max_hold(float* out) const { d_impl->stage.read_max_hold(out); }
void spectrum_display::read_waterfall(float* out, std::size_t rows) const { d_impl->stage.read_waterfall(out, rows); }
void spectrum_display::read_waterfall_max(float* out, std::size_t rows) const
{
    d_impl->stage.read_waterfall_max(out, rows);
}
bool spectrum_display::newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) const
{
    return d_impl->stage.newest_peak_bin(begin, end, bin);
}
std::size_t spectrum_display::frames() const { return d_impl->stage.frames(); }

const display_config& spectrum_display::display_settings() const { return d_impl->stage.config(); }
const spectrum_config& spectrum_display::spectrum_settings() const { return d_impl->engine.config(); }
double spectrum_display::bin_hz(std::size_t i) const { return d_impl->engine.bin_hz(i); }
const std::string& spectrum_display::backend() const { return d_impl->engine.stages().backend(); }

} // namespace gpufft
