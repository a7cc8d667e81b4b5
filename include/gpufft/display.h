// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft: the display pipeline, from dB spectra to what a live display
 * draws (persistence histogram, average and max-hold traces, waterfall rows). */
#ifndef GPUFFT_DISPLAY_H
#define GPUFFT_DISPLAY_H

#include <gpufft/api.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace gpufft {

//! How the bins that share a display column become one value.
enum class display_resample {
    max, //!< the largest dB value of the column's bins (a narrow peak stays visible)
    mean //!< the mean of the column's dB values
};
//! "max" (or "peak"), "mean" (or "avg"); throws gpufft::error naming the mode otherwise.
GPUFFT_API display_resample parse_display_resample(const std::string& name);

//! The average trace.
enum class display_average {
    exponential, //!< avg = alpha * v + (1 - alpha) * avg on every frame, avg = v on the first
    linear       //!< the mean of every frame since construction or reset()
};
//! "exponential" (or "exp"), "linear" (or "mean"); throws gpufft::error naming the mode otherwise.
GPUFFT_API display_average parse_display_average(const std::string& name);

//! What the display computes; see gpufft::display for the exact definitions.
struct GPUFFT_API display_config {
    std::size_t n = 1024;        //!< bins per input frame, >= 1
    std::size_t width = 1024;    //!< display columns W, >= 1 (more or fewer than n)
    std::size_t height = 256;    //!< histogram power rows H, >= 1
    double db_min = -120.0;      //!< bottom of the dB range (reference level - range)
    double db_max = 0.0;         //!< top of the dB range (the reference level), > db_min
    double decay = 0.99;         //!< histogram decay per frame, in (0, 1)
    display_resample resample = display_resample::max;
    display_average average = display_average::exponential;
    double alpha = 0.1;          //!< exponential weight of the newest frame, (0, 1]
    bool max_hold = true;        //!< keep the max-hold trace
    std::size_t waterfall_rows = 1; //!< waterfall rows kept (a ring), >= 1
    //! The bins the W columns show, [bin_begin, bin_end) with
    //! bin_begin < bin_end <= n; bin_end 0 means n (the whole frame: the default).
    //! gpufft::display::config() reads bin_end resolved.
    std::size_t bin_begin = 0;
    std::size_t bin_end = 0;
    //! The largest W * H and W * waterfall_rows (cells, 1 GiB of floats).
    static constexpr std::size_t max_cells = std::size_t(1) << 28;
};

/*!
 * The column layout of gpufft::display's definition, step 1, for \p c
 * (bin_end resolved, as gpufft::display::config() reads it): [b0, b1),
 * the bins column \p column covers.
 */
GPUFFT_API std::pair<std::size_t, std::size_t> display_column_bins(const display_config& c, std::size_t column);
/*!
 * The last column whose bins (display_column_bins) hold \p bin, for
 * c.bin_begin <= bin < c.bin_end: the column whose value that bin is part of
 * (W > m repeats a bin over several columns, all of the same value).
 */
GPUFFT_API std::size_t display_bin_column(const display_config& c, std::size_t bin);

/*!
 * \brief The display stages on the CPU: per frame of n dB values, the
 * persistence histogram, the average and max-hold traces and a waterfall
 * row, all W columns wide.
 *
 * Input: frames of n power values in dB (10 log10 of |X|^2, any
 * normalization), in display order, i.e. fftshifted as gpufft::spectrum
 * gives them with `shift` (bin 0 is the lowest frequency, column 0 the left
 * edge). -inf (the dB of zero power) is allowed; NaN is not checked and
 * propagates into the traces.
 *
 * The definition, which every backend's implementation matches:
 *
 * 1. Columns. The columns show the bins [begin, end) = [bin_begin, bin_end),
 *    m = end - begin of them (all n by default; a zoomed display sets a
 *    narrower range, so that its W columns hold detail, not stretched
 *    columns). Column c (0 <= c < W) covers bins [b0(c), b1(c)) with
 *    b0(c) = begin + floor(c m / W) and
 *    b1(c) = max(b0(c) + 1, begin + floor((c + 1) m / W)):
 *    W <= m splits the range into W runs of floor or ceil(m / W) bins;
 *    W > m repeats each bin over the columns whose left edge lies in it.
 *    v[c] = max (or mean, per `resample`) of the frame's dB values over
 *    those bins.
 * 2. Rows. The histogram row of a value v is
 *    r(v) = clamp(floor((v - db_min) H / (db_max - db_min)), 0, H - 1):
 *    row 0 is the bottom (db_min and below, -inf and NaN included),
 *    row H - 1 the top (db_max and above). It is computed in float as
 *    (v - float(db_min)) * float(H / (db_max - db_min)), so a value within
 *    float rounding of a row boundary may land in either row.
 * 3. Histogram. h[r][c] (H x W, row r at h + r W, row 0 first), zero at
 *    the start; every frame first decays all cells, then counts the frame:
 *    h <- decay * h, then h[r(v[c])][c] += 1 for every column c.
 *    A column whose value stays in one row reads 1 / (1 - decay) there in
 *    the steady state; each cell is a sum of decay^age over the frames
 *    that hit it. Cells below 1e-30 may read 0 (flushed, so that they
 *    never become subnormal floats).
 * 4. Traces, per column: the average (display_average) of v over frames,
 *    and max-hold = the maximum of v over the frames since construction,
 *    reset() or reset_max_hold().
 * 5. Waterfall: every frame's v is one row of a ring of `waterfall_rows`
 *    rows (dB, not clamped).
 *
 * Before the first frame (and after reset()) the traces and waterfall rows
 * read NaN ("no data") and the histogram reads 0.
 *
 * Plan once, run many: all memory is allocated in the constructor; push()
 * and the read-outs allocate nothing. The histogram is kept scaled by
 * decay^-t, so a frame costs O(n + W), not O(W H); the scale is folded
 * back into the cells every few frames and on read-out.
 *
 * \code
 *   gpufft::display_config c;
 *   c.n = 4096; c.width = 1024; c.height = 256; c.db_min = -100; c.db_max = 0;
 *   gpufft::display d(c);
 *   d.push(spectra, count);                  // count frames of n dB values
 *   std::vector<float> image(c.width * c.height);
 *   d.read_histogram(image.data());          // then colour-map and draw
 * \endcode
 *
 * Not thread safe: one display, one thread at a time.
 */
class GPUFFT_API display
{
public:
    //! Throws gpufft::error naming the bad parameter.
    explicit display(const display_config& config);
    ~display();
    display(display&&) noexcept;
    display& operator=(display&&) noexcept;

    //! `count` frames, frame f at frames + f n (n floats each), oldest first.
    void push(const float* frames, std::size_t count);

    //! Forgets every frame: histogram 0, traces and waterfall NaN.
    void reset();
    //! Restarts the max-hold trace from the next frame.
    void reset_max_hold();

    /*!
     * New dB range; the histogram is cleared (its rows meant other
     * powers), the traces and waterfall are kept. Throws like the constructor.
     */
    void set_db_range(double db_min, double db_max);
    //! New decay for the frames to come (the histogram keeps its values).
    void set_decay(double decay);
    void set_resample(display_resample mode);
    //! New average mode or alpha; the average restarts from the next frame.
    void set_average(display_average mode, double alpha);
    //! Off: the max-hold trace is not kept and reads NaN; on: it starts at the next frame.
    void set_max_hold(bool on);
    /*!
     * Shows the bins [begin, end) from the next frame (definition step 1).
     * Every column then means other frequencies, so the histogram is
     * cleared and the traces and waterfall rows read NaN until the next
     * frame (as after reset(), except that frames() keeps counting).
     * Throws gpufft::error unless begin < end <= n (and changes nothing then).
     */
    void set_bin_range(std::size_t begin, std::size_t end);

    //! The histogram, H x W floats, row 0 (db_min) first.
    void read_histogram(float* out) const;
    /*!
     * The histogram as the levels a display colour-maps, H x W like
     * read_histogram(): out[r W + c] = min(v * scale + 0.5, top) truncated
     * to an integer, in float, where v is read_histogram()'s cell.
     * A row no frame has hit for long enough that all its cells are below
     * level 1 is written as zeros without reading its cells (the display
     * keeps, per row, how far it has decayed since its last hit). \p lit_rows (H bytes, or
     * null) gets 1 for a row with a non-zero level, 0 for an all-zero one.
     * Throws gpufft::error for a null \p out or a scale that is negative
     * or not finite.
     */
    void read_histogram_levels(std::uint16_t* out, float scale, std::uint16_t top, std::uint8_t* lit_rows) const;
    //! The average trace, W floats.
    void read_average(float* out) const;
    //! The max-hold trace, W floats (NaN while max-hold is off).
    void read_max_hold(float* out) const;
    /*!
     * The newest `rows` waterfall rows (1 to waterfall_rows), W floats each,
     * oldest first: the last row is the newest frame's. Rows older than the
     * first frame read NaN.
     */
    void read_waterfall(float* out, std::size_t rows) const;
    /*!
     * The column-wise maximum of the newest `rows` waterfall rows, W
     * floats (a display drawing one row for the frames since its last
     * read-out); NaN only where all of them are NaN. Rows as read_waterfall.
     */
    void read_waterfall_max(float* out, std::size_t rows) const;

    /*!
     * The bin of [begin, end) with the highest value in the newest frame,
     * into \p bin (the first of equals); false where none holds a number:
     * before the first frame, after reset() or set_bin_range(), and for
     * bins outside the bin range shown. A display column's value is the
     * max of its bins' (resample max): this is the bin that gave it.
     * Throws gpufft::error unless begin < end <= n.
     */
    bool newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) const;

    //! Frames pushed since construction or reset().
    std::size_t frames() const;
    //! [b0, b1): the bins column c covers (definition step 1).
    std::pair<std::size_t, std::size_t> column_bins(std::size_t c) const;
    const display_config& config() const;

private:
    struct impl;
    std::unique_ptr<impl> d_impl;
};

} // namespace gpufft

#endif
