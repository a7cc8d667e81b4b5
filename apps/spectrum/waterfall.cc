/* gpufft-spectrum: the waterfall PNG (viridis colours, a 3x5 bitmap font for
 * the axis labels, libpng to write it). */
#include "app.h"

#include <png.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>

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
    { '0', { 7, 5, 5, 5, 7 } }, { '1', { 2, 6, 2, 2, 7 } }, { '2', { 7, 1, 7, 4, 7 } },
    { '3', { 7, 1, 7, 1, 7 } }, { '4', { 5, 5, 7, 1, 1 } }, { '5', { 7, 4, 7, 1, 7 } },
    { '6', { 7, 4, 7, 5, 7 } }, { '7', { 7, 1, 2, 2, 2 } }, { '8', { 7, 5, 7, 5, 7 } },
    { '9', { 7, 5, 7, 1, 7 } }, { '-', { 0, 0, 7, 0, 0 } }, { '+', { 0, 2, 7, 2, 0 } },
    { '.', { 0, 0, 0, 0, 2 } }, { 'k', { 4, 5, 6, 5, 5 } }, { 'M', { 5, 7, 7, 5, 5 } },
    { 'G', { 7, 4, 5, 5, 7 } }, { 'H', { 5, 5, 7, 5, 5 } }, { 'z', { 0, 7, 1, 2, 7 } },
    { 'd', { 1, 1, 7, 5, 7 } }, { 'B', { 6, 5, 6, 5, 6 } }, { 's', { 0, 3, 6, 1, 6 } },
};
constexpr int font_scale = 2, char_w = 4 * font_scale, char_h = 5 * font_scale;

class image
{
public:
    image(int w, int h) : d_w(w), d_h(h), d_px(std::size_t(w) * h * 3, 0) {}
    int width() const { return d_w; }
    int height() const { return d_h; }
    unsigned char* row(int y) { return d_px.data() + std::size_t(y) * d_w * 3; }

    void set(int x, int y, const unsigned char rgb[3])
    {
        if (x >= 0 && y >= 0 && x < d_w && y < d_h)
            std::memcpy(row(y) + 3 * x, rgb, 3);
    }

    void fill(int x0, int y0, int w, int h, const unsigned char rgb[3])
    {
        for (int y = y0; y < y0 + h; ++y)
            for (int x = x0; x < x0 + w; ++x)
                set(x, y, rgb);
    }

    //! Text with its top-left corner at (x, y); characters without a glyph are blank.
    void text(int x, int y, const std::string& s, const unsigned char rgb[3])
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

private:
    int d_w, d_h;
    std::vector<unsigned char> d_px;
};

// libpng reports through these instead of printing (its manual, "Error handling").
void on_png_error(png_structp png, png_const_charp message)
{
    *static_cast<std::string*>(png_get_error_ptr(png)) = message;
    png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

int text_width(const std::string& s) { return int(s.size()) * char_w - font_scale; }

// A 1, 2 or 5 times a power of ten near range / target.
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

} // namespace

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

waterfall::waterfall(std::size_t w, std::size_t max) : width(w), max_rows(std::max<std::size_t>(2, max & ~std::size_t(1)))
{
    rows.reserve(width * max_rows);
}

void waterfall::add(const float* s, std::size_t n)
{
    if (spectra % span == 0) { // a new row
        if (count() == max_rows) {
            for (std::size_t r = 0; r < max_rows / 2; ++r)
                for (std::size_t c = 0; c < width; ++c)
                    rows[r * width + c] = std::max(rows[2 * r * width + c], rows[(2 * r + 1) * width + c]);
            rows.resize(width * (max_rows / 2));
            span *= 2;
        }
        rows.resize(rows.size() + width, -INFINITY);
    }
    float* row = rows.data() + rows.size() - width;
    for (std::size_t c = 0; c < width; ++c) {
        const std::size_t b0 = c * n / width, b1 = std::max(b0 + 1, (c + 1) * n / width);
        row[c] = std::max(row[c], *std::max_element(s + b0, s + b1));
    }
    ++spectra;
}

void write_png(const std::string& path, const waterfall& w, const axes& a, std::size_t height)
{
    const std::size_t count = w.count();
    if (count == 0 || w.width == 0)
        throw app_error(path + ": no spectra to draw");
    const int pw = int(w.width), ph = int(height ? height : count);
    image img(margin_left + pw + margin_right, margin_top + ph + margin_bottom);
    const unsigned char white[3] = { 255, 255, 255 };
    const double span = a.db_max - a.db_min;

    // The plot: pixel row y takes the max of the spectra it covers.
    for (int y = 0; y < ph; ++y) {
        const std::size_t r0 = std::size_t(y) * count / ph;
        const std::size_t r1 = std::max(r0 + 1, std::size_t(y + 1) * count / ph);
        for (int x = 0; x < pw; ++x) {
            float v = -INFINITY;
            for (std::size_t r = r0; r < r1; ++r)
                v = std::max(v, w.rows[r * w.width + x]);
            unsigned char rgb[3];
            colormap((v - a.db_min) / span, rgb);
            img.set(margin_left + x, margin_top + y, rgb);
        }
    }

    // Frequency axis, in the unit that suits the largest frequency.
    const double fmax = std::max(std::abs(a.f_lo), std::abs(a.f_hi));
    const double unit = fmax >= 1e9 ? 1e9 : fmax >= 1e6 ? 1e6 : fmax >= 1e3 ? 1e3 : 1;
    const char* unit_name = unit == 1e9 ? "GHz" : unit == 1e6 ? "MHz" : unit == 1e3 ? "kHz" : "Hz";
    const double fstep = nice_step(a.f_hi - a.f_lo, std::max(2, pw / 90));
    const int axis_y = margin_top + ph;
    for (double f : ticks(a.f_lo, a.f_hi, fstep)) {
        const int x = margin_left + int(std::lround((f - a.f_lo) / (a.f_hi - a.f_lo) * (pw - 1)));
        img.fill(x, axis_y, 1, 5, white);
        const std::string label = fixed(f / unit, fstep / unit);
        img.text(x - text_width(label) / 2, axis_y + 8, label, white);
    }
    img.text(margin_left + pw - text_width(unit_name), axis_y + 8 + char_h + 4, unit_name, white);

    // Time axis: seconds from the first spectrum, downwards.
    const double seconds = a.seconds;
    const double tstep = nice_step(seconds, std::max(2, ph / 60));
    for (double t : ticks(0, seconds, tstep)) {
        const int y = margin_top + int(std::lround(t / seconds * (ph - 1)));
        img.fill(margin_left - 5, y, 5, 1, white);
        const std::string label = fixed(t, tstep) + "s";
        img.text(margin_left - 8 - text_width(label), y - char_h / 2, label, white);
    }

    // dB scale bar.
    const int bar_x = margin_left + pw + 10, bar_w = 14;
    for (int y = 0; y < ph; ++y) {
        unsigned char rgb[3];
        colormap(1.0 - double(y) / std::max(1, ph - 1), rgb);
        img.fill(bar_x, margin_top + y, bar_w, 1, rgb);
    }
    const double dstep = nice_step(span, std::max(2, ph / 50));
    for (double d : ticks(a.db_min, a.db_max, dstep)) {
        const int y = margin_top + int(std::lround((a.db_max - d) / span * (ph - 1)));
        img.fill(bar_x + bar_w, y, 4, 1, white);
        img.text(bar_x + bar_w + 6, y - char_h / 2, fixed(d, dstep), white);
    }
    img.text(bar_x, axis_y + 8, "dB", white);

    output_file f(path);
    std::string why; // libpng's message, if it fails
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &why, on_png_error, on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        f.check(); // names the write error, if that is what failed
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
