// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: the pieces its PNG views share (viridis colours, a 3x5
 * bitmap font for the axis labels, the frequency axis, libpng to write). */
#include "plot.h"

#include <png.h>
#include <cmath>
#include <csignal>
#include <cstring>

namespace gpufft_app {

namespace {

// Viridis (matplotlib's perceptual map) sampled at 10 evenly spaced points.
const unsigned char viridis[10][3] = { { 68, 1, 84 },    { 72, 40, 120 },  { 62, 74, 137 },
                                       { 49, 104, 142 }, { 38, 130, 142 }, { 31, 158, 137 },
                                       { 53, 183, 121 }, { 109, 205, 89 }, { 180, 222, 44 },
                                       { 253, 231, 37 } };

// 3x5 glyphs, one row per octal digit (4 = left pixel, 1 = right), top row first.
struct glyph {
    char c;
    unsigned char rows[5];
};
const glyph font[] = {
    { '0', { 7, 5, 5, 5, 7 } },
    { '1', { 2, 6, 2, 2, 7 } },
    { '2', { 7, 1, 7, 4, 7 } },
    { '3', { 7, 1, 7, 1, 7 } },
    { '4', { 5, 5, 7, 1, 1 } },
    { '5', { 7, 4, 7, 1, 7 } },
    { '6', { 7, 4, 7, 5, 7 } },
    { '7', { 7, 1, 2, 2, 2 } },
    { '8', { 7, 5, 7, 5, 7 } },
    { '9', { 7, 5, 7, 1, 7 } },
    { '-', { 0, 0, 7, 0, 0 } },
    { '+', { 0, 2, 7, 2, 0 } },
    { '.', { 0, 0, 0, 0, 2 } },
    { 'k', { 4, 5, 6, 5, 5 } },
    { 'M', { 5, 7, 7, 5, 5 } },
    { 'G', { 7, 4, 5, 5, 7 } },
    { 'H', { 5, 5, 7, 5, 5 } },
    { 'z', { 0, 7, 1, 2, 7 } },
    { 'd', { 1, 1, 7, 5, 7 } },
    { 'B', { 6, 5, 6, 5, 6 } },
    { 's', { 0, 3, 6, 1, 6 } },
    { '%', { 5, 1, 2, 4, 5 } },
    { 'F', { 7, 4, 6, 4, 4 } },
    { 'S', { 3, 4, 2, 1, 6 } },
};
constexpr int font_scale = 2, char_w = 4 * font_scale;
const unsigned char white[3] = { 255, 255, 255 };

// libpng reports through these instead of printing (its manual, "Error handling").
void on_png_error(png_structp png, png_const_charp message)
{
    *static_cast<std::string*>(png_get_error_ptr(png)) = message;
    png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

} // namespace

const int text_height = 5 * font_scale;

image::image(int w, int h) : d_w(w), d_h(h), d_px(std::size_t(w) * h * 3, 0) {}

void image::set(int x, int y, const unsigned char rgb[3])
{
    if (x >= 0 && y >= 0 && x < d_w && y < d_h)
        std::memcpy(row(y) + 3 * x, rgb, 3);
}

void image::fill(int x0, int y0, int w, int h, const unsigned char rgb[3])
{
    for (int y = y0; y < y0 + h; ++y)
        for (int x = x0; x < x0 + w; ++x)
            set(x, y, rgb);
}

void image::text(int x, int y, const std::string& s, const unsigned char rgb[3])
{
    for (char c : s) {
        for (const auto& g : font)
            if (g.c == c)
                for (int r = 0; r < 5; ++r)
                    for (int b = 0; b < 3; ++b)
                        if (g.rows[r] & (4 >> b))
                            fill(x + b * font_scale, y + r * font_scale, font_scale, font_scale, rgb);
        x += char_w;
    }
}

int text_width(const std::string& s) { return int(s.size()) * char_w - font_scale; }

double nice_step(double range, int target)
{
    const double raw = range / target, mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : { 1.0, 2.0, 5.0 })
        if (raw <= m * mag)
            return m * mag;
    return 10 * mag;
}

std::string fixed(double v, double step)
{
    const int decimals = std::max(0, int(std::ceil(-std::log10(step) - 1e-9)));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, std::abs(v) < step / 2 ? 0.0 : v);
    return buf;
}

void colormap(double t, unsigned char rgb[3])
{
    t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * 9;
    const int i = std::min(8, int(t));
    const double f = t - i;
    for (int k = 0; k < 3; ++k)
        rgb[k] = (unsigned char)std::lround(viridis[i][k] * (1 - f) + viridis[i + 1][k] * f);
}

std::vector<double> ticks(double lo, double hi, double step)
{
    // Counted with an integer: adding step to a value much larger than it (a
    // centre of 1e22 Hz) would not move it, nor would adding 1 to lo / step.
    std::vector<double> t;
    const double first = std::ceil(lo / step), last = std::floor(hi / step + 1e-9);
    if (!std::isfinite(first) || !std::isfinite(last) || !(last - first <= 1000))
        return t;
    for (long i = 0; i <= long(last - first); ++i)
        t.push_back((first + double(i)) * step);
    return t;
}

void frequency_axis(image& img, int x0, int y, int width, double f_lo, double f_hi)
{
    // In the unit that suits the largest frequency.
    const double fmax = std::max(std::abs(f_lo), std::abs(f_hi));
    const double unit = fmax >= 1e9 ? 1e9 : fmax >= 1e6 ? 1e6 : fmax >= 1e3 ? 1e3 : 1;
    const char* unit_name = unit == 1e9 ? "GHz" : unit == 1e6 ? "MHz" : unit == 1e3 ? "kHz" : "Hz";
    const double step = nice_step(f_hi - f_lo, std::max(2, width / 90));
    for (double f : ticks(f_lo, f_hi, step)) {
        const int x = x0 + int(std::lround((f - f_lo) / (f_hi - f_lo) * (width - 1)));
        img.fill(x, y, 1, 5, white);
        const std::string label = fixed(f / unit, step / unit);
        img.text(x - text_width(label) / 2, y + 8, label, white);
    }
    img.text(x0 + width - text_width(unit_name), y + 8 + text_height + 4, unit_name, white);
}

std::vector<std::pair<std::string, double>> db_labels(double db_min, double db_max, int height)
{
    const double span = db_max - db_min, step = nice_step(span, std::max(2, height / 50));
    std::vector<std::pair<std::string, double>> out;
    for (double d : ticks(db_min, db_max, step))
        out.emplace_back(fixed(d, step), (d - db_min) / span);
    return out;
}

void colour_bar(image& img, int x, int y0, int height, const std::vector<std::pair<std::string, double>>& labels)
{
    constexpr int bar_w = 14;
    for (int y = 0; y < height; ++y) {
        unsigned char rgb[3];
        colormap(1.0 - double(y) / std::max(1, height - 1), rgb);
        img.fill(x, y0 + y, bar_w, 1, rgb);
    }
    for (const auto& [label, t] : labels) {
        const int y = y0 + int(std::lround((1 - t) * (height - 1)));
        img.fill(x + bar_w, y, 4, 1, white);
        img.text(x + bar_w + 6, y - text_height / 2, label, white);
    }
}

void write_rgb_png(output_file& f, image& img)
{
    const std::string& path = f.path();
    std::string why; // libpng's message, if it fails
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &why, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        f.check(); // names the write error, if that is what failed
        if (f.get() == stdout && stop_signal() == SIGPIPE) // the reader went away: f.check() stopped the run, quietly
            return;
        throw app_error(path + ": libpng failed to write the image" + (why.empty() ? "" : ": " + why));
    }
    png_init_io(png, f.get());
    png_set_IHDR(png, info, png_uint_32(img.width()), png_uint_32(img.height()), 8,
                 PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < img.height(); ++y)
        png_write_row(png, img.row(y));
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    f.commit();
}

} // namespace gpufft_app
