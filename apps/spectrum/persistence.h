// SPDX-License-Identifier: GPL-3.0-or-later
/* gpufft-spectrum: the persistence view over the whole run (--persistence). */
#ifndef GPUFFT_APPS_SPECTRUM_PERSISTENCE_H
#define GPUFFT_APPS_SPECTRUM_PERSISTENCE_H

#include "app.h"

#include <gpufft/display.h>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace gpufft_app {

/*!
 * A histogram's dB range from a first spectrum: the 2nd percentile less 10
 * dB and the maximum, in steps of 10 dB; the top at least 0 dBFS (a
 * full-scale tone).
 */
std::pair<double, double> db_range_from(const float* db, std::size_t n);

/*!
 * How often each power level was seen at each frequency, with the average
 * and max-hold traces: every spectrum of the run goes into a
 * gpufft::display (its definition: columns, rows, counts), `width` columns
 * by `height` dB rows, so memory stays the same however long the run.
 *
 * The counts decay by 1 - 2^-20 per spectrum (gpufft::display needs a decay
 * below 1, and a float cell counts exactly only up to 2^24): runs up to
 * about a million spectra are counted in full. The average is the mean of
 * the dB values since the start.
 */
class persistence
{
public:
    //! A NaN end of the dB range is chosen from the first spectrum (see README.md).
    persistence(std::size_t width, std::size_t height, double db_min, double db_max);
    //! One spectrum of n dB values (tone dBFS), lowest frequency first.
    void add(const float* db, std::size_t n);
    std::size_t spectra() const { return d_display ? d_display->frames() : 0; }
    //! The dB range in use (valid after the first spectrum).
    double db_min() const { return d_db_min; }
    double db_max() const { return d_db_max; }
    /*!
     * The PNG: the histogram in viridis by the share of spectra that hit
     * each cell (0.1% to 100%, log scale; never hit: black), the average
     * trace in white and max-hold in red over it, frequency axis below
     * (a.f_lo, a.f_hi), dB axis left, share scale bar right. The file
     * is opened at the start, so that an unwritable path fails before the run.
     */
    void write_png(output_file& f, const axes& a) const;
    //! The pixel row (from the top of the plot) of a dB value: gpufft::display's row, row 0 at the bottom.
    int plot_row(double db) const;

    static constexpr double decay = 1.0 - 1.0 / 1048576;
    //! The share of spectra that the colour scale spans: 10^-3 (0.1%) to 1.
    static constexpr double share_decades = 3;

private:
    std::size_t d_width, d_height;
    double d_db_min, d_db_max;
    std::optional<gpufft::display> d_display;
};

} // namespace gpufft_app

#endif
