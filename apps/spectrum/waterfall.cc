// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: the waterfall PNG (rows of spectra over time; drawn with
 * the pieces in plot.h). */
#include "plot.h"

#include <algorithm>
#include <cmath>

namespace gpufft_app {

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
        const auto [b0, b1] = column_bins(c, n, width);
        row[c] = std::max(row[c], *std::max_element(s + b0, s + b1));
    }
    ++spectra;
}

void write_png(output_file& f, const waterfall& w, const axes& a, std::size_t height)
{
    const std::size_t count = w.count();
    if (count == 0 || w.width == 0)
        throw app_error(f.path() + ": no spectra to draw");
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
    const int axis_y = margin_top + ph;
    frequency_axis(img, margin_left, axis_y, pw, a.f_lo, a.f_hi);

    // Time axis: seconds from the first spectrum, downwards.
    const double seconds = a.seconds;
    const double tstep = nice_step(seconds, std::max(2, ph / 60));
    for (double t : ticks(0, seconds, tstep)) {
        const int y = margin_top + int(std::lround(t / seconds * (ph - 1)));
        img.fill(margin_left - 5, y, 5, 1, white);
        const std::string label = fixed(t, tstep) + "s";
        img.text(margin_left - 8 - text_width(label), y - text_height / 2, label, white);
    }

    const int bar_x = margin_left + pw + 10;
    colour_bar(img, bar_x, margin_top, ph, db_labels(a.db_min, a.db_max, ph));
    img.text(bar_x, axis_y + 8, "dBFS", white); // every level drawn is dBFS (docs/levels.md)
    write_rgb_png(f, img);
}

} // namespace gpufft_app
