// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft display pipeline on the CPU (include/gpufft/display.h): column
 * resampling, persistence histogram, traces and waterfall ring. */
#include "display_checks.h"
#include <gpufft/display.h>
#include <gpufft/error.h>

#include <volk/volk.h>
#include <volk/volk_alloc.hh>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <tuple>
#include <vector>

namespace gpufft {

using detail::check_average;
using detail::check_db_range;
using detail::check_decay;
using detail::check_resample;

namespace {

constexpr float nan_value = std::numeric_limits<float>::quiet_NaN();
// Histogram cells below this read 0 (header, step 3): they stay normal floats.
constexpr float cell_floor = 1e-30f;
// The histogram scale decay^-t is folded into the cells before it passes
// this: cells then stay below 2^60 / (1 - decay), finite for any decay < 1
// a double can hold.
constexpr double gain_limit = 1152921504606846976.0; // 2^60
// Runs shorter than this are reduced inline; VOLK's call costs more there.
constexpr std::size_t volk_run = 16;

template <class T>
std::string str(const T& v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

} // namespace

namespace detail {

void display_require(bool ok, const std::string& msg)
{
    if (!ok)
        throw error("gpufft: display: " + msg);
}

void check_db_range(double db_min, double db_max, std::size_t height)
{
    display_require(std::isfinite(db_min) && std::isfinite(db_max) && db_max > db_min,
                    "dB range (db_min " + str(db_min) + ", db_max " + str(db_max) +
                        ") must be finite with db_max > db_min");
    const float scale = float(double(height) / (db_max - db_min));
    display_require(std::isfinite(scale) && scale > 0 && std::isfinite(float(db_min)),
                    "dB range (db_min " + str(db_min) + ", db_max " + str(db_max) +
                        ") is too narrow or too far out for float");
}

void check_decay(double decay)
{
    display_require(decay > 0 && decay < 1, "decay " + str(decay) + " must be in (0, 1)");
}

void check_average(display_average mode, double alpha)
{
    display_require(mode == display_average::exponential || mode == display_average::linear,
                    "unknown average mode " + str(int(mode)));
    display_require(alpha > 0 && alpha <= 1, "alpha " + str(alpha) + " must be in (0, 1]");
}

void check_resample(display_resample mode)
{
    display_require(mode == display_resample::max || mode == display_resample::mean,
                    "unknown resample mode " + str(int(mode)));
}

void check_bin_range(std::size_t begin, std::size_t end, std::size_t n)
{
    display_require(begin < end && end <= n, "bin range [" + str(begin) + ", " + str(end) +
                                                 ") must be non-empty and within the frame's n = " + str(n) +
                                                 " bins");
}

display_config checked_display_config(display_config c)
{
    display_require(c.n >= 1, "n (bins per frame) must be at least 1");
    display_require(std::uint64_t(c.n) <= std::uint64_t(1) << 32, "n " + str(c.n) + " is too large (at most 2^32)");
    display_require(c.width >= 1, "width must be at least 1");
    display_require(c.height >= 1, "height must be at least 1");
    display_require(c.waterfall_rows >= 1, "waterfall_rows must be at least 1");
    display_require(c.width <= display_config::max_cells / c.height,
                    "width x height (" + str(c.width) + " x " + str(c.height) + ") exceeds " +
                        str(display_config::max_cells) + " cells");
    display_require(c.width <= display_config::max_cells / c.waterfall_rows,
                    "width x waterfall_rows (" + str(c.width) + " x " + str(c.waterfall_rows) + ") exceeds " +
                        str(display_config::max_cells) + " cells");
    check_db_range(c.db_min, c.db_max, c.height);
    check_decay(c.decay);
    check_resample(c.resample);
    check_average(c.average, c.alpha);
    if (c.bin_end == 0)
        c.bin_end = c.n;
    check_bin_range(c.bin_begin, c.bin_end, c.n);
    return c;
}

void check_waterfall_read(const float* out, std::size_t rows, std::size_t total)
{
    display_require(rows >= 1 && rows <= total,
                    "read_waterfall: rows " + str(rows) + " must be in [1, waterfall_rows = " + str(total) + "]");
    display_require(out != nullptr, "read_waterfall: null output");
}

bool histogram_levels(const float* cells, std::size_t count, float factor, float scale, std::uint16_t top,
                      std::uint16_t* out)
{
    const float highest = float(top);
    std::uint32_t any = 0;
    for (std::size_t i = 0; i < count; ++i) {
        // One pass from the stored cells: read_histogram()'s value, then its level.
        const float scaled = cells[i] * factor;
        const float v = scaled < cell_floor ? 0.0f : scaled;
        // Through int32: a conversion the compiler vectorizes.
        const auto level = std::uint32_t(std::int32_t(std::min(v * scale + 0.5f, highest)));
        out[i] = std::uint16_t(level);
        any |= level;
    }
    return any != 0;
}

void max_into(float* __restrict acc, const float* __restrict row, std::size_t width)
{
    for (std::size_t c = 0; c < width; ++c) {
        // A select the compiler vectorizes.
        const float v = row[c], m = acc[c];
        acc[c] = v > m || m != m ? v : m;
    }
}

void check_levels_read(const std::uint16_t* out, float scale)
{
    display_require(out != nullptr, "read_histogram_levels: null output");
    display_require(std::isfinite(scale) && scale >= 0,
                    "read_histogram_levels: scale " + str(scale) + " must be finite and >= 0");
}

bool newest_peak_bin_of(const float* values, std::size_t begin, std::size_t end, std::size_t& bin)
{
    std::size_t best = end;
    for (std::size_t k = begin; k < end; ++k)
        if (!std::isnan(values[k - begin]) && (best == end || values[k - begin] > values[best - begin]))
            best = k;
    if (best == end)
        return false;
    bin = best;
    return true;
}

} // namespace detail

std::pair<std::size_t, std::size_t> display_column_bins(const display_config& c, std::size_t column)
{
    // 64-bit products: n <= 2^32 and W < 2^28.
    const std::uint64_t m = c.bin_end - c.bin_begin;
    const auto edge = [&](std::size_t k) { return c.bin_begin + std::size_t(std::uint64_t(k) * m / c.width); };
    return { edge(column), std::max(edge(column) + 1, edge(column + 1)) };
}

std::size_t display_bin_column(const display_config& c, std::size_t bin)
{
    detail::display_require(bin >= c.bin_begin && bin < c.bin_end,
                            "bin " + str(bin) + " is outside the bin range [" + str(c.bin_begin) + ", " +
                                str(c.bin_end) + ")");
    // The largest column whose first bin, begin + floor(col m / W), is at most `bin`.
    const std::uint64_t m = c.bin_end - c.bin_begin, j = bin - c.bin_begin;
    return std::min(c.width - 1, std::size_t(((j + 1) * c.width - 1) / m));
}

display_resample parse_display_resample(const std::string& name)
{
    if (name == "max" || name == "peak")
        return display_resample::max;
    if (name == "mean" || name == "avg")
        return display_resample::mean;
    throw error("gpufft: display: unknown resample mode \"" + name + "\" (known: max, mean)");
}

display_average parse_display_average(const std::string& name)
{
    if (name == "exponential" || name == "exp")
        return display_average::exponential;
    if (name == "linear" || name == "mean")
        return display_average::linear;
    throw error("gpufft: display: unknown average mode \"" + name + "\" (known: exponential, linear)");
}

struct display::impl {
    explicit impl(const display_config& config) : c(detail::checked_display_config(config))
    {
        const std::size_t w = c.width;
        first.resize(w);
        last.resize(w);
        lay_out_columns();
        hist.assign(w * c.height, 0.0f);
        row_gain.assign(c.height, 0.0);
        column.resize(w);
        column_row.resize(w);
        scratch.resize(w);
        avg.resize(w);
        peak.resize(w);
        ring.resize(w * c.waterfall_rows);
        newest.resize(c.n);
        set_range(c.db_min, c.db_max);
        clear();
    }

    void lay_out_columns()
    {
        for (std::size_t col = 0; col < c.width; ++col)
            std::tie(first[col], last[col]) = display_column_bins(c, col);
    }

    void set_range(double db_min, double db_max)
    {
        c.db_min = db_min;
        c.db_max = db_max;
        low = float(db_min);
        rows_per_db = float(double(c.height) / (db_max - db_min));
        clear_histogram();
    }

    void clear_histogram()
    {
        std::fill(hist.begin(), hist.end(), 0.0f);
        std::fill(row_gain.begin(), row_gain.end(), 0.0);
        gain = 1.0;
        ceiling = 1.0 / (1.0 - c.decay);
    }

    void clear()
    {
        clear_histogram();
        std::fill(avg.begin(), avg.end(), nan_value);
        std::fill(peak.begin(), peak.end(), nan_value);
        std::fill(ring.begin(), ring.end(), nan_value);
        std::fill(newest.begin(), newest.end(), nan_value);
        ring_next = 0;
        count = 0;
        avg_count = 0;
        peak_started = false;
    }

    // The max of len >= 8 values in 8 independent lanes, which compilers
    // turn into SIMD max instructions (VOLK has only an index-of-max, 2.6x slower over 64 bins).
    static float run_max(const float* x, std::size_t len)
    {
        float lane[8];
        std::copy(x, x + 8, lane);
        std::size_t i = 8;
        for (; i + 8 <= len; i += 8)
            for (int k = 0; k < 8; ++k)
                lane[k] = lane[k] > x[i + k] ? lane[k] : x[i + k];
        float m = *std::max_element(lane, lane + 8);
        for (; i < len; ++i)
            m = std::max(m, x[i]);
        return m;
    }

    // Step 1: the frame's value per column.
    void resample(const float* x)
    {
        const std::size_t w = c.width;
        if (c.bin_end - c.bin_begin == w) { // a bin per column: max and mean are the bin
            std::copy(x + c.bin_begin, x + c.bin_end, column.begin());
            return;
        }
        const bool use_max = c.resample == display_resample::max;
        for (std::size_t col = 0; col < w; ++col) {
            const float* run = x + first[col];
            const std::size_t len = last[col] - first[col];
            float v = run[0];
            if (len >= volk_run) {
                if (use_max) {
                    v = run_max(run, len);
                } else {
                    volk_32f_accumulator_s32f(&v, run, unsigned(len));
                    v /= float(len);
                }
            } else if (use_max) {
                for (std::size_t i = 1; i < len; ++i)
                    v = std::max(v, run[i]);
            } else {
                for (std::size_t i = 1; i < len; ++i)
                    v += run[i];
                v /= float(len);
            }
            column[col] = v;
        }
    }

    // Step 3: the cells hold h / decay^t for the t frames since the last
    // fold, so decaying is a change of `gain` and a hit adds `gain`.
    void count_hits()
    {
        const double next = gain / c.decay;
        if (next > gain_limit) {
            fold(float(c.decay / gain));
            gain = 1.0;
        } else {
            gain = next;
        }
        const float add = float(gain);
        const std::size_t w = c.width;
        const auto top = std::int32_t(c.height - 1);
        const float rows = float(c.height);
        // The rows first, without branches (a loop the compiler vectorizes);
        // then the increments, whose addresses are then ready, so that the
        // CPU overlaps their cache misses.
        std::int32_t* __restrict row = column_row.data();
        const float* __restrict v = column.data();
        for (std::size_t col = 0; col < w; ++col) {
            const float t = (v[col] - low) * rows_per_db;
            // t >= 1 is false for NaN: NaN lands in row 0.
            const float below_top = std::min(t >= 1.0f ? t : 0.0f, rows);
            row[col] = std::min(std::int32_t(below_top), top);
        }
        float* __restrict cells = hist.data();
        for (std::size_t col = 0; col < w; ++col)
            cells[std::size_t(row[col]) * w + col] += add;
        for (std::size_t col = 0; col < w; ++col)
            row_gain[std::size_t(row[col])] = gain;
    }

    /*!
     * Whether a cell of row r may read `threshold` or more. A cell is at
     * most `ceiling` when its row is hit (the steady state of a column hit
     * every frame, for every decay since the histogram was cleared), and
     * has decayed by gain at that hit / gain since: the bound, doubled for
     * the float rounding of the cells' sums.
     */
    bool row_may_reach(std::size_t r, double threshold) const
    {
        return 2.0 * ceiling * row_gain[r] / gain >= threshold;
    }

    // Multiplies every cell by `factor`, flushing those below cell_floor.
    static void scale_cells(const float* in, float* out, std::size_t count, float factor)
    {
        for (std::size_t i = 0; i < count; ++i) {
            const float y = in[i] * factor;
            out[i] = y < cell_floor ? 0.0f : y;
        }
    }

    void fold(float factor)
    {
        scale_cells(hist.data(), hist.data(), hist.size(), factor);
        for (double& g : row_gain) // not flushed: the bound must stay above the cells
            g *= double(factor);
    }

    // Step 4.
    void update_traces()
    {
        const std::size_t w = c.width;
        float* a = avg.data();
        const float* v = column.data();
        ++avg_count;
        if (avg_count == 1) {
            std::copy(v, v + w, a);
        } else if (c.average == display_average::exponential) {
            // avg = (1 - alpha) avg + alpha v
            volk_32f_s32f_multiply_32f(a, a, float(1.0 - c.alpha), w);
            volk_32f_s32f_multiply_32f(scratch.data(), v, float(c.alpha), w);
            volk_32f_x2_add_32f(a, a, scratch.data(), w);
        } else {
            // avg += (v - avg) / k: the running mean without a growing sum.
            volk_32f_x2_subtract_32f(scratch.data(), v, a, w);
            volk_32f_s32f_multiply_32f(scratch.data(), scratch.data(), float(1.0 / double(avg_count)), w);
            volk_32f_x2_add_32f(a, a, scratch.data(), w);
        }
        if (!c.max_hold)
            return;
        if (peak_started) {
            volk_32f_x2_max_32f(peak.data(), peak.data(), v, w);
        } else {
            std::copy(v, v + w, peak.begin());
            peak_started = true;
        }
    }

    void push_frame(const float* x)
    {
        resample(x);
        count_hits();
        update_traces();
        std::copy(column.begin(), column.end(), ring.begin() + std::ptrdiff_t(ring_next * c.width));
        ring_next = (ring_next + 1) % c.waterfall_rows;
        ++count;
    }

    display_config c;
    std::vector<std::size_t> first, last; // the bins [first, last) of each column
    volk::vector<float> hist;             // H x W, scaled by `gain`
    double gain = 1.0;                    // decay^-t, t frames since the last fold
    std::vector<double> row_gain;         // per row, `gain` at its last hit (0: none), folded with the cells
    double ceiling = 1.0;                 // the largest 1 / (1 - decay) since the histogram was cleared
    float low = 0, rows_per_db = 0;       // float(db_min), float(H / (db_max - db_min))
    volk::vector<float> column;           // this frame's value per column
    volk::vector<std::int32_t> column_row; // its histogram row
    volk::vector<float> scratch;
    volk::vector<float> avg;
    volk::vector<float> peak;
    volk::vector<float> ring;             // waterfall_rows x W
    std::vector<float> newest;            // n: the newest frame's bins in the bin range, NaN elsewhere
    std::size_t ring_next = 0;            // the ring row the next frame writes
    std::size_t count = 0;                // frames since reset
    std::size_t avg_count = 0;            // frames in the average
    bool peak_started = false;
};

display::display(const display_config& config) : d_impl(std::make_unique<impl>(config)) {}
display::~display() = default;
display::display(display&&) noexcept = default;
display& display::operator=(display&&) noexcept = default;

void display::push(const float* frames, std::size_t count)
{
    detail::display_require(frames != nullptr || count == 0, "push: null frames");
    for (std::size_t f = 0; f < count; ++f)
        d_impl->push_frame(frames + f * d_impl->c.n);
    if (count > 0) { // the bins behind the newest frame's columns, for newest_peak_bin
        const display_config& c = d_impl->c;
        const float* last = frames + (count - 1) * c.n;
        std::copy(last + c.bin_begin, last + c.bin_end, d_impl->newest.begin() + std::ptrdiff_t(c.bin_begin));
    }
}

void display::reset() { d_impl->clear(); }

void display::reset_max_hold()
{
    std::fill(d_impl->peak.begin(), d_impl->peak.end(), nan_value);
    d_impl->peak_started = false;
}

void display::set_db_range(double db_min, double db_max)
{
    check_db_range(db_min, db_max, d_impl->c.height);
    d_impl->set_range(db_min, db_max);
}

void display::set_decay(double decay)
{
    check_decay(decay);
    d_impl->fold(float(1.0 / d_impl->gain)); // the old decay's scale leaves the cells
    d_impl->gain = 1.0;
    d_impl->c.decay = decay;
    d_impl->ceiling = std::max(d_impl->ceiling, 1.0 / (1.0 - decay));
}

void display::set_resample(display_resample mode)
{
    check_resample(mode);
    d_impl->c.resample = mode;
}

void display::set_average(display_average mode, double alpha)
{
    check_average(mode, alpha);
    d_impl->c.average = mode;
    d_impl->c.alpha = alpha;
    d_impl->avg_count = 0;
}

void display::set_max_hold(bool on)
{
    d_impl->c.max_hold = on;
    reset_max_hold();
}

void display::set_bin_range(std::size_t begin, std::size_t end)
{
    detail::check_bin_range(begin, end, d_impl->c.n);
    d_impl->c.bin_begin = begin;
    d_impl->c.bin_end = end;
    d_impl->lay_out_columns();
    const std::size_t frames = d_impl->count;
    d_impl->clear();
    d_impl->count = frames;
}

void display::read_histogram(float* out) const
{
    detail::display_require(out != nullptr, "read_histogram: null output");
    const auto& d = *d_impl;
    const std::size_t w = d.c.width;
    for (std::size_t r = 0; r < d.c.height; ++r) {
        if (d.row_may_reach(r, cell_floor))
            impl::scale_cells(&d.hist[r * w], out + r * w, w, float(1.0 / d.gain));
        else // every cell below the floor: 0 without reading them
            std::fill(out + r * w, out + (r + 1) * w, 0.0f);
    }
}

void display::read_histogram_levels(std::uint16_t* out, float scale, std::uint16_t top, std::uint8_t* lit_rows) const
{
    detail::check_levels_read(out, scale);
    const auto& d = *d_impl;
    const std::size_t w = d.c.width;
    // Level 1 needs v * scale + 0.5 >= 1.
    const double level_one = 0.5 / double(scale);
    for (std::size_t r = 0; r < d.c.height; ++r) {
        bool lit = false;
        if (scale > 0 && d.row_may_reach(r, level_one)) {
            lit = detail::histogram_levels(&d.hist[r * w], w, float(1.0 / d.gain), scale, top, out + r * w);
        } else {
            std::fill(out + r * w, out + (r + 1) * w, std::uint16_t(0));
        }
        if (lit_rows)
            lit_rows[r] = lit ? 1 : 0;
    }
}

void display::read_average(float* out) const
{
    detail::display_require(out != nullptr, "read_average: null output");
    std::copy(d_impl->avg.begin(), d_impl->avg.end(), out);
}

void display::read_max_hold(float* out) const
{
    detail::display_require(out != nullptr, "read_max_hold: null output");
    std::copy(d_impl->peak.begin(), d_impl->peak.end(), out);
}

void display::read_waterfall(float* out, std::size_t rows) const
{
    const std::size_t total = d_impl->c.waterfall_rows, w = d_impl->c.width;
    detail::check_waterfall_read(out, rows, total);
    for (std::size_t j = 0; j < rows; ++j) {
        const std::size_t r = (d_impl->ring_next + total - rows + j) % total;
        const auto src = d_impl->ring.begin() + std::ptrdiff_t(r * w);
        std::copy(src, src + std::ptrdiff_t(w), out + j * w);
    }
}

void display::read_waterfall_max(float* out, std::size_t rows) const
{
    const std::size_t total = d_impl->c.waterfall_rows, w = d_impl->c.width;
    detail::check_waterfall_read(out, rows, total);
    const float* ring = d_impl->ring.data();
    const std::size_t oldest = (d_impl->ring_next + total - rows) % total;
    std::copy(ring + oldest * w, ring + (oldest + 1) * w, out);
    for (std::size_t j = 1; j < rows; ++j)
        detail::max_into(out, ring + (oldest + j) % total * w, w);
}

bool display::newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) const
{
    detail::check_bin_range(begin, end, d_impl->c.n);
    return detail::newest_peak_bin_of(d_impl->newest.data() + begin, begin, end, bin);
}

std::size_t display::frames() const { return d_impl->count; }

std::pair<std::size_t, std::size_t> display::column_bins(std::size_t c) const
{
    detail::display_require(c < d_impl->c.width, "column " + str(c) + " is outside the width " + str(d_impl->c.width));
    return { d_impl->first[c], d_impl->last[c] };
}

const display_config& display::config() const { return d_impl->c; }

} // namespace gpufft
