// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: the persistence PNG (gpufft::display's histogram and
 * traces, drawn with the pieces in plot.h). */
#include "persistence.h"
#include "plot.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpufft_app {

std::pair<double, double> db_range_from(const float* db, std::size_t n)
{
    std::vector<float> v;
    for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(db[i]))
            v.push_back(db[i]);
    if (v.empty())
        return { -120, 0 };
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 50), v.end());
    const double low = 10 * std::floor((v[v.size() / 50] - 10) / 10);
    const double high = std::max(0.0, 10 * std::ceil(double(*std::max_element(v.begin(), v.end())) / 10));
    return { low, high };
}

persistence::persistence(std::size_t width, std::size_t height, double db_min, double db_max)
    : d_width(width), d_height(height), d_db_min(db_min), d_db_max(db_max)
{
}

void persistence::add(const float* db, std::size_t n)
{
    if (!d_display) {
        const auto [low, high] = db_range_from(db, n);
        if (std::isnan(d_db_min))
            d_db_min = std::isnan(d_db_max) ? low : std::min(low, d_db_max - 10);
        if (std::isnan(d_db_max))
            d_db_max = std::max(high, d_db_min + 10);
        gpufft::display_config c;
        c.n = n;
        c.width = d_width;
        c.height = d_height;
        c.db_min = d_db_min;
        c.db_max = d_db_max;
        c.decay = decay;
        c.average = gpufft::display_average::linear;
        d_display.emplace(c);
    }
    d_display->push(db, 1);
}

int persistence::plot_row(double db) const
{
    const double r = std::floor((db - d_db_min) * double(d_height) / (d_db_max - d_db_min));
    const double row = std::isnan(r) ? 0 : std::clamp(r, 0.0, double(d_height - 1));
    return int(d_height - 1) - int(row);
}

void persistence::write_png(output_file& f, const axes& a) const
{
    if (!spectra())
        throw app_error(f.path() + ": no spectra to draw");
    const int pw = int(d_width), ph = int(d_height);
    std::vector<float> hist(d_width * d_height), average(d_width), max_hold(d_width);
    d_display->read_histogram(hist.data());
    d_display->read_average(average.data());
    d_display->read_max_hold(max_hold.data());

    image img(margin_left + pw + margin_right, margin_top + ph + margin_bottom);
    const unsigned char white[3] = { 255, 255, 255 }, red[3] = { 255, 64, 64 };
    for (int x = 0; x < pw; ++x) {
        double total = 0; // the column's decayed count of spectra
        for (int r = 0; r < ph; ++r)
            total += hist[std::size_t(r) * d_width + x];
        for (int r = 0; r < ph; ++r) {
            const float h = hist[std::size_t(r) * d_width + x];
            if (h <= 0)
                continue;
            unsigned char rgb[3];
            colormap(1 + std::log10(h / total) / share_decades, rgb);
            img.set(margin_left + x, margin_top + ph - 1 - r, rgb);
        }
    }
    // The traces, joined column to column by vertical runs.
    for (const auto& [trace, colour] : { std::pair{ &average, white }, { &max_hold, red } }) {
        int last = -1;
        for (int x = 0; x < pw; ++x) {
            const float v = (*trace)[x];
            if (std::isnan(v)) {
                last = -1;
                continue;
            }
            const int y = plot_row(v);
            const int y0 = last < 0 ? y : std::min(y, last), y1 = last < 0 ? y : std::max(y, last);
            img.fill(margin_left + x, margin_top + y0, 1, y1 - y0 + 1, colour);
            last = y;
        }
    }

    frequency_axis(img, margin_left, margin_top + ph, pw, a.f_lo, a.f_hi);
    // dB axis, left.
    for (const auto& [label, t] : db_labels(d_db_min, d_db_max, ph)) {
        const int y = margin_top + int(std::lround((1 - t) * (ph - 1)));
        img.fill(margin_left - 5, y, 5, 1, white);
        img.text(margin_left - 8 - text_width(label), y - text_height / 2, label, white);
    }
    img.text(margin_left - 8 - text_width("dBFS"), margin_top + ph + 8, "dBFS", white); // docs/levels.md
    // Share of spectra, right.
    colour_bar(img, margin_left + pw + 10, margin_top, ph,
               { { "100%", 1.0 }, { "10%", 1 - 1 / share_decades }, { "1%", 1 - 2 / share_decades },
                 { "0.1%", 0.0 } });
    write_rgb_png(f, img);
}

} // namespace gpufft_app
