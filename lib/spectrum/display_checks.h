// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft display pipeline: the checks and column layout every
 * implementation of gpufft::display's definition shares (internal). */
#ifndef GPUFFT_LIB_SPECTRUM_DISPLAY_CHECKS_H
#define GPUFFT_LIB_SPECTRUM_DISPLAY_CHECKS_H

#include <gpufft/display.h>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace gpufft::detail {

//! Throws gpufft::error "gpufft: display: <msg>" unless ok.
void display_require(bool ok, const std::string& msg);

/*!
 * The constructor's checks: throws gpufft::error naming the bad parameter.
 * Returns c with bin_end resolved (0 means n).
 */
display_config checked_display_config(display_config c);
//! begin < end <= n, else throws gpufft::error naming the range.
void check_bin_range(std::size_t begin, std::size_t end, std::size_t n);
void check_db_range(double db_min, double db_max, std::size_t height);
void check_decay(double decay);
void check_average(display_average mode, double alpha);
void check_resample(display_resample mode);
//! read_waterfall's rows in [1, total] and a non-null output.
void check_waterfall_read(const float* out, std::size_t rows, std::size_t total);

/*!
 * The histogram levels of `count` cells stored times 1 / `factor`
 * (gpufft::display::read_histogram_levels): each cell times `factor`,
 * 0 below the histogram's floor, to its level; true if any is non-zero.
 */
bool histogram_levels(const float* cells, std::size_t count, float factor, float scale, std::uint16_t top,
                      std::uint16_t* out);
//! acc = the max of acc and row, column by column, a number winning over NaN (read_waterfall_max).
void max_into(float* acc, const float* row, std::size_t width);
//! read_histogram_levels' checks: a non-null output, a finite scale >= 0.
void check_levels_read(const std::uint16_t* out, float scale);

/*!
 * newest_peak_bin's answer from the newest frame's values of the bins
 * [begin, end) at \p values (NaN: no number), after its checks against
 * the frame's n bins.
 */
bool newest_peak_bin_of(const float* values, std::size_t begin, std::size_t end, std::size_t& bin);

} // namespace gpufft::detail

#endif
