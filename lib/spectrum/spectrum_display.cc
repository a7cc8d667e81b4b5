/* gr-gpufft: raw I/Q to display images (include/gpufft/spectrum_display.h).
 * The spectrum engine gives one dB spectrum per frame, the display pipeline
 * takes each as it comes. */
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
    return c;
}

} // namespace

struct spectrum_display::impl {
    spectrum engine;
    display pipeline;
    spectrum::sink to_display;

    impl(const spectrum_config& s, const display_config& d)
        : engine(per_frame_spectra(s)), pipeline(sized_for(d, s.fft_size)),
          to_display([this](const float* db, std::size_t) { pipeline.push(db, 1); })
    {
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
std::size_t spectrum_display::push(const complex* samples, std::size_t count)
{
    return d_impl->engine.push(samples, count, d_impl->to_display);
}
std::size_t spectrum_display::flush() { return d_impl->engine.flush(d_impl->to_display); }
void spectrum_display::reset()
{
    d_impl->engine.reset();
    d_impl->pipeline.reset();
}

void spectrum_display::reset_max_hold() { d_impl->pipeline.reset_max_hold(); }
void spectrum_display::set_db_range(double db_min, double db_max) { d_impl->pipeline.set_db_range(db_min, db_max); }
void spectrum_display::set_decay(double decay) { d_impl->pipeline.set_decay(decay); }
void spectrum_display::set_resample(display_resample mode) { d_impl->pipeline.set_resample(mode); }
void spectrum_display::set_average(display_average mode, double alpha) { d_impl->pipeline.set_average(mode, alpha); }
void spectrum_display::set_max_hold(bool on) { d_impl->pipeline.set_max_hold(on); }
void spectrum_display::read_histogram(float* out) const { d_impl->pipeline.read_histogram(out); }
void spectrum_display::read_average(float* out) const { d_impl->pipeline.read_average(out); }
void spectrum_display::read_max_hold(float* out) const { d_impl->pipeline.read_max_hold(out); }
void spectrum_display::read_waterfall(float* out, std::size_t rows) const { d_impl->pipeline.read_waterfall(out, rows); }
std::size_t spectrum_display::frames() const { return d_impl->pipeline.frames(); }

const display_config& spectrum_display::display_settings() const { return d_impl->pipeline.config(); }
const spectrum_config& spectrum_display::spectrum_settings() const { return d_impl->engine.config(); }
double spectrum_display::bin_hz(std::size_t i) const { return d_impl->engine.bin_hz(i); }
const std::string& spectrum_display::backend() const { return d_impl->engine.backend(); }

} // namespace gpufft
