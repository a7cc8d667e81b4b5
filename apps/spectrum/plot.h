// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: what its PNG views share (the waterfall and the
 * persistence view): an RGB image with a bitmap font, the bin-to-column
 * mapping, the frequency axis, the colour scale bar and libpng. */
#ifndef GPUFFT_APPS_SPECTRUM_PLOT_H
#define GPUFFT_APPS_SPECTRUM_PLOT_H

#include "app.h"

#include <gpufft/display.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace gpufft_app {

/*!
 * [b0, b1): the bins of an n-bin spectrum that column c of `width` covers,
 * gpufft::display's own layout, so that every view puts a frequency in the
 * same column.
 */
inline std::pair<std::size_t, std::size_t> column_bins(std::size_t c, std::size_t n, std::size_t width)
{
    gpufft::display_config whole;
    whole.n = n;
    whole.width = width;
    whole.bin_end = n;
    return gpufft::display_column_bins(whole, c);
}

//! An RGB image, 8 bits per channel, row 0 at the top.
class image
{
public:
    image(int w, int h);
    int width() const { return d_w; }
    int height() const { return d_h; }
    unsigned char* row(int y) { return d_px.data() + std::size_t(y) * d_w * 3; }
    //! Pixels outside the image are ignored.
    void set(int x, int y, const unsigned char rgb[3]);
    void fill(int x0, int y0, int w, int h, const unsigned char rgb[3]);
    //! Text with its top-left corner at (x, y); characters without a glyph are blank.
    void text(int x, int y, const std::string& s, const unsigned char rgb[3]);

private:
    int d_w, d_h;
    std::vector<unsigned char> d_px;
};

//! Glyph height and the width of a text, in pixels.
extern const int text_height;
int text_width(const std::string& s);

//! A 1, 2 or 5 times a power of ten near range / target.
double nice_step(double range, int target);
//! v with as many decimals as step needs.
std::string fixed(double v, double step);

//! Frequency ticks and labels under a plot of `width` columns whose left edge is at x0 and bottom edge at y.
void frequency_axis(image& img, int x0, int y, int width, double f_lo, double f_hi);
//! A vertical colour bar from t = 1 (top) to 0, with `labels` (value, t) beside it.
void colour_bar(image& img, int x, int y0, int height, const std::vector<std::pair<std::string, double>>& labels);
//! dB labels for a bar or an axis over [db_min, db_max]: (text, fraction from db_min).
std::vector<std::pair<std::string, double>> db_labels(double db_min, double db_max, int height);

//! Writes the image as an 8-bit RGB PNG into `f` (every write checked) and commits it.
void write_rgb_png(output_file& f, image& img);

} // namespace gpufft_app

#endif
