// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: the Qt5 widget the display sinks draw with
 * (internal). It knows nothing of GNU Radio: a block gives it a
 * display_feed, which the widget reads on its own (GUI) thread at the
 * frame rate, and whose images are already display-sized. */
#ifndef GPUFFT_GNURADIO_DISPLAY_WIDGET_H
#define GPUFFT_GNURADIO_DISPLAY_WIDGET_H

#include <gpufft/display.h>
#include <QImage>
#include <QPixmap>
#include <QRegion>
#include <QWidget>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSplitter;
class QTimer;

namespace gr::gpufft {

class text_line; // a line of text that repaints alone (display_widget.cc)

//! One read-out of a display, copied under the block's lock.
struct display_snapshot {
    //! Histogram levels: level = count * (levels - 1) * (1 - decay), so the
    //! top level is a column that stays in one row (1 / (1 - decay)).
    static constexpr std::size_t histogram_levels = 1024;

    std::size_t width = 0;  //!< columns W
    std::size_t height = 0; //!< histogram rows H
    std::size_t bins = 0;   //!< FFT size N (bins across the band)
    std::size_t bin_begin = 0, bin_end = 0; //!< the bins [begin, end) the W columns show
    double db_min = -120.0, db_max = 0.0;
    double decay = 0.99;
    double center_freq = 0.0, sample_rate = 1.0; //!< Hz
    bool max_hold = true;
    bool min_hold = false;
    std::string average_mode = "exponential"; //!< display_sink_settings::average
    double average_frames = 10;               //!< display_sink_settings::average_frames
    //! Seconds of signal per frame (0: not known, e.g. spectra from a vector stream).
    double frame_seconds = 0;
    //! The transform's window ("": spectra come in, there is no transform to set).
    std::string window;
    //! The window's equivalent noise bandwidth in bins, N sum(w^2) / (sum w)^2 (0: not known).
    double enbw = 0;
    std::size_t engine = 0;           //!< changes when the block builds a new display
    std::size_t frames = 0;           //!< frames in the display since it was built
    std::vector<std::uint16_t> levels;//!< the histogram's H x W levels, row 0 (db_min) first
    std::vector<std::uint8_t> lit_rows;//!< H: 1 for a row with a non-zero level
    std::vector<float> average;       //!< W
    std::vector<float> max_hold_trace;//!< W
    std::vector<float> min_hold_trace;//!< W (NaN while min-hold is off)
    std::vector<float> waterfall;     //!< W: the max of the new rows, column by column (empty: none)
    std::size_t new_rows = 0;         //!< waterfall rows since the read before
};

/*!
 * What the widget asks of its block; every call comes from the GUI thread
 * and must take the block's lock itself.
 */
class display_feed
{
public:
    virtual ~display_feed() = default;
    /*!
     * Fills \p s; the waterfall gets the max of the rows of the frames
     * after frame number \p frames_seen of the display \p s read last
     * (s.engine), as many as the block's ring still holds; all of them if
     * the display is a new one.
     */
    virtual void read(display_snapshot& s, std::size_t frames_seen) = 0;
    virtual void set_db_range(double db_min, double db_max) = 0;
    virtual void set_max_hold(bool on) = 0;
    //! Restarts the max-hold and the min-hold traces.
    virtual void reset_max_hold() = 0;
    virtual void set_min_hold(bool on) = 0;
    //! Mode and frames as display_sink_settings; throws gpufft::error naming a bad one.
    virtual void set_average(const std::string& mode, double frames) = 0;
    //! The columns show the bins [begin, end) from the next frame (gpufft::display::set_bin_range).
    virtual void set_bin_range(std::size_t begin, std::size_t end) = 0;
    /*!
     * The bin of [begin, end) strongest in the display's newest frame
     * (gpufft::display::newest_peak_bin); false where none is known, or
     * the range lies past the display's bins (a new one since the read).
     */
    virtual bool newest_peak_bin(std::size_t begin, std::size_t end, std::size_t& bin) = 0;
    //! The user clicked at \p hz (absolute frequency).
    virtual void clicked(double hz) = 0;
    //! A new transform of \p n bins, or with \p window (a new display,
    //! which the next read shows); throws gpufft::error naming a bad value,
    //! or where spectra come in (display_snapshot::window empty).
    virtual void set_fft_size(int n) = 0;
    virtual void set_window(const std::string& window) = 0;
};

/*!
 * Spectrum over persistence (colour-mapped histogram, average and
 * max-hold lines) on top, waterfall below, split by a QSplitter; a row of
 * controls above them.
 *
 * Frequency axis: the band is [band_left(), band_left() + fs), the N bins
 * side by side (bin k, fftshifted, is centred on centre + (k - floor(N / 2))
 * fs / N). The W columns show the bins [b, e) the display computes (its bin
 * range), i.e. [band_left() + b fs / N, band_left() + e fs / N), each an
 * equal W-th of that (exactly its bins when W divides e - b, within a bin
 * otherwise); outside it the plots are empty. The plot shows
 * [view_lo(), view_hi()] across its width, linearly.
 * Zoom with detail: a new view moves the axis at once; once the view has
 * stayed 150 ms (bin_range_delay_ms, so that a wheel spin clears the
 * histogram once, not at every notch), the display's bin range becomes the
 * bins under the view (display_feed::set_bin_range), so the W columns
 * resample those bins and not the whole band. A new range clears the
 * histogram, traces and waterfall (their columns meant other bins).
 * dB axis: db_max at the top of the spectrum plot, db_min at the bottom.
 * Waterfall: one row per redraw (the maximum of the frames since the last),
 * newest at the top.
 *
 * Mouse: wheel zooms around the pointer, drag pans (a drag that starts on
 * a marker's mark moves the marker), a click (no drag) calls
 * display_feed::clicked. Hovering shows the readout (readout()): the
 * frequency under the pointer and the level there, on the spectrum the
 * drawn trace's (average, else max-hold, else the pointer's height), on the
 * waterfall the row's with the row's time before the newest frame.
 * Colour bars right of the plots; the waterfall's time axis on its left.
 * Keys (key map "gpufft"): + / - zoom, Left / Right pan, 0 or Home full
 * band, Up / Down reference level +-5 dB, PageUp / PageDown range, F freeze,
 * A average line, P peak hold, M min hold, C next colour map. Key map
 * "fosphor" (gr-fosphor's keys): Space freeze, Up / Down reference level,
 * Left / Right dB per division (the range over 10 divisions, 1-2-5 steps),
 * Z zoom on or off, W / S zoom width narrower / wider (twice), A / D zoom
 * centre left / right (a tenth of the width); the others as "gpufft" but A.
 * ? shows or hides the help listing the keys; Ctrl+S and Ctrl+E save the
 * picture and the lines (save_picture, save_traces) to a file chosen in a
 * dialog, as the Save button's menu does.
 * Controls: the transform's FFT size and window (display_feed::set_fft_size,
 * set_window; the choosers show what the block reads back, hidden where
 * spectra come in), the density mapping (set_density), the colour map, the
 * dB axis, the lines, the average, the key map.
 * Markers (up to four, M1 first): a right click places one, K moves the
 * newest to the highest value of the line (average, else max-hold) in the
 * view, N to the next lower peak, X clears them; the table under the
 * controls lists each one's frequency and level, and the others' offsets from M1.
 * A marker placed (by peak search, click or drag) goes to the bin that gave
 * the column there its value in the newest frame (the display's columns
 * are the max of their bins), and reads that bin's column; its frequency
 * is the bin's centre, printed with the bin width's digits. Where no bin
 * is known (no frame yet) it stays on the column's centre, printed with
 * the column width's digits and "(column of <width>)".
 * The readout's frequency is likewise what the pixel shows: one bin, one
 * display column wider than the pixel, else the pixel.
 */
class display_widget : public QWidget
{
    Q_OBJECT
    // Read-only, for tests and scripts reaching the widget through PyQt5.
    Q_PROPERTY(double view_lo READ view_lo)
    Q_PROPERTY(double view_hi READ view_hi)
    Q_PROPERTY(QRect spectrum_plot READ spectrum_plot_rect)
    Q_PROPERTY(QRect waterfall_plot READ waterfall_plot_rect)
    Q_PROPERTY(bool frozen READ frozen WRITE set_frozen)
    Q_PROPERTY(bool show_average READ show_average WRITE set_show_average)
    Q_PROPERTY(qulonglong frames_drawn READ frames_drawn)
    Q_PROPERTY(qulonglong bin_begin READ bin_begin)
    Q_PROPERTY(qulonglong bin_end READ bin_end)
    Q_PROPERTY(QString level_unit READ level_unit)
    Q_PROPERTY(QString readout READ readout)
    Q_PROPERTY(QString keymap READ keymap_name WRITE set_keymap_name)
    Q_PROPERTY(bool help_shown READ help_shown)
    Q_PROPERTY(QString marker_table READ marker_table)
    Q_PROPERTY(QString annotation READ annotation)
    Q_PROPERTY(qulonglong bins READ bins)
    Q_PROPERTY(QString window READ window_name)
    Q_PROPERTY(QString density READ density_name WRITE set_density_name)

public:
    //! The feed is shared: the widget may outlive its block inside a window.
    //! `level_unit` names the level axis' values, e.g. "dBFS".
    display_widget(std::shared_ptr<display_feed> feed,
                   const std::string& colormap,
                   double frame_rate,
                   const std::string& level_unit,
                   QWidget* parent = nullptr);
    ~display_widget() override;

    //! "fosphor", "viridis", "grey".
    static const std::vector<std::string>& colormap_names();
    //! Throws gpufft::error naming the map if it is unknown.
    static void check_colormap(const std::string& name);
    /*!
     * How the persistence's cell densities become colours: "log" (default)
     * and "linear" relative to the most frequent level of a typical column
     * (the median over the columns of each one's highest cell): it and any
     * denser cell get the map's top colour; log: three decades below it
     * down to the bottom colour. "frames": a log scale of the share of
     * frames that hit a cell (a cell hit by every frame is the top colour).
     */
    static const std::vector<std::string>& density_names();
    //! Throws gpufft::error naming the mapping if it is unknown.
    static void check_density(const std::string& name);

    // GUI thread only (the blocks hand calls over with QMetaObject::invokeMethod).
    void set_colormap(const std::string& name);
    std::string colormap() const;
    void set_density(const std::string& name);
    std::string density() const { return d_density; }
    QString density_name() const { return QString::fromStdString(d_density); }
    void set_density_name(const QString& name) { set_density(name.toStdString()); }
    void set_frame_rate(double redraws_per_second);
    void set_frozen(bool on);
    bool frozen() const;
    void set_show_average(bool on);
    bool show_average() const { return d_show_average; }
    //! Shows [lo, hi] (Hz), clamped to the band.
    void set_view(double lo_hz, double hi_hz);
    double view_lo() const { return d_view_lo; }
    double view_hi() const { return d_view_hi; }
    //! Zooms by \p factor (> 1 narrows the view) keeping \p at_hz where it is.
    void zoom(double factor, double at_hz);
    //! Full band: [band_left(), band_right()].
    double band_left() const;
    double band_right() const;
    //! Reads the feed and schedules a repaint now (what the timer does).
    void refresh();
    //! The bins under the view [view_lo(), view_hi()], at least one.
    std::pair<std::size_t, std::size_t> view_bins() const;
    /*!
     * Sets the display's bin range to view_bins() if it differs, and
     * refreshes (what the debounce timer does bin_range_delay_ms after the
     * view last changed).
     */
    void apply_view_bins();
    //! How long the view must stay before the bin range follows it.
    static constexpr int bin_range_delay_ms = 150;

    //! The plot areas, in this widget's coordinates.
    QRect spectrum_plot_rect() const;
    QRect waterfall_plot_rect() const;
    /*!
     * The colour bars right of the plots, in this widget's coordinates:
     * the persistence's (bottom to top: a cell hit by few of the recent
     * frames to one hit by all, labelled in percent of frames) and the
     * waterfall's (db_min at the bottom to db_max at the top, labelled in
     * level_unit), each row the colour the plot gives that value.
     */
    QRect persistence_bar_rect() const;
    QRect waterfall_bar_rect() const;
    //! The child that draws the spectrum (mouse events go there).
    QWidget* spectrum_pane() const;
    QWidget* waterfall_pane() const;

    //! Redraws with new frames since construction (any thread).
    std::size_t redraws() const { return d_redraws.load(); }
    //! The display's frame count at the last redraw (frames since it was built).
    qulonglong frames_drawn() const { return d_frames_seen; }
    //! The display's bin range at the last read: [bin_begin, bin_end).
    qulonglong bin_begin() const { return d_snap.bin_begin; }
    qulonglong bin_end() const { return d_snap.bin_end; }
    //! What the level axis' values are, e.g. "dBFS".
    QString level_unit() const { return d_level_unit; }
    //! The transform's size N and window at the last read (window "": spectra come in).
    qulonglong bins() const { return d_snap.bins; }
    QString window_name() const { return QString::fromStdString(d_snap.window); }
    /*!
     * The line over the spectrum plot: the view's centre (the centre of
     * the bin at its middle) and span, and the
     * resolution bandwidth (the window's equivalent noise bandwidth times
     * the bin width fs / N, with the window and N), e.g. "Centre 100.000
     * MHz   Span 2.400 MHz   RBW 2.11 kHz (blackmanharris, N 2048)"; where
     * spectra come in, the bin width instead of the RBW.
     */
    QString annotation() const;
    /*!
     * The widget as shown, as a PNG file; the drawn lines (average,
     * max-hold, min-hold) over the view as CSV: a header naming each and
     * the level unit ("frequency_hz,width_hz,average_dBFS,..."), one row
     * per display column whose centre is in the view: the centre and width
     * of the bins whose max it shows (Hz), the values as read (no data: an
     * empty cell). Throw gpufft::error naming
     * the file if it cannot be written.
     */
    void save_picture(const QString& path);
    void save_traces(const QString& path) const;

    //! The hover readout ("" when the pointer is off the plots).
    QString readout() const { return d_readout; }
    //! The waterfall's time axis as last painted, top down (every 60 rows).
    const std::vector<QString>& time_axis() const { return d_time_labels; }
    //! "gpufft" or "fosphor" (see the class comment); throws gpufft::error naming another.
    void set_keymap(const std::string& name);
    std::string keymap() const { return d_keymap; }
    QString keymap_name() const { return QString::fromStdString(d_keymap); }
    void set_keymap_name(const QString& name) { set_keymap(name.toStdString()); }
    bool help_shown() const;

    //! A marker at \p hz (the oldest goes when there are four).
    void place_marker(double hz);
    void clear_markers();
    //! The newest marker (one placed if none) to the line's highest value in
    //! the view, or its next lower peak; false where the line has none.
    bool marker_peak();
    bool marker_next_peak();
    //! The markers' frequencies (Hz), M1 first.
    const std::vector<double>& markers() const { return d_markers; }
    //! Moves marker \p index (0: M1) to \p hz (what dragging its mark does).
    void move_marker(std::size_t index, double hz);
    QString marker_table() const;

protected:
    void keyPressEvent(QKeyEvent* e) override;

private:
    class pane;
    friend class pane;

    // Each pane paints its frame (axes, labels: what lies outside the plot)
    // only when the dirty region reaches outside the plot, and of the plot
    // only the dirty region's rectangles, copied from its picture: new
    // frames change the pictures in refresh(), which repaints what changed.
    void paint_spectrum(QPainter& p, const QRect& plot, bool frame, const QRegion& dirty);
    void paint_waterfall(QPainter& p, const QRect& plot, bool frame, const QRegion& dirty);
    void paint_frequency_axis(QPainter& p, const QRect& plot);
    // A pane's colour bar: right of its plot, as tall.
    static QRect bar_of(const QRect& plot);
    // The waterfall's time axis: the age of rows down the left margin.
    void paint_time_axis(QPainter& p, const QRect& plot);
    // Its labels, every 60 rows from row 60 down, as far as rows are filled.
    std::vector<QString> time_labels(int plot_height) const;
    std::vector<QString> d_time_labels; // as last painted
    // For each of `pixels` plot columns, the display columns [first, last)
    // it shows: the one under its centre where a column is a pixel or
    // wider, every column it overlaps where they are narrower (the pixel
    // shows their max, so a one-column peak never falls between pixels);
    // empty outside the bin range.
    struct column_span {
        std::size_t first, last;
    };
    std::vector<column_span> columns_under(int pixels) const;
    // What the cached pictures depend on besides the data: when it changes
    // they are drawn anew (a default one matches none: a cache to redraw).
    struct layout {
        QSize pane;
        double view_lo, view_hi, db_min, db_max, columns_left, column_hz, resolution;
        std::size_t columns, rows;
        bool operator==(const layout& o) const;
        bool operator!=(const layout& o) const { return !(*this == o); }
    };
    layout layout_of(const QSize& pane) const;
    // The spectrum pane's frame and the plot's grid and border, columns and rows.
    void draw_spectrum_frame(const QRect& plot);
    /*!
     * Brings the spectrum picture up to the snapshot (the whole of it when
     * \p whole, else only the rows that are or were more than the grid);
     * returns the pixels that changed, as rectangles in the pane.
     */
    QRegion draw_spectrum_plot(const QRect& plot, bool whole);
    // The average or max-hold line into the picture, inside the border.
    void draw_trace(const QRect& plot, const std::vector<float>& values, QRgb colour);
    // Plot pixel (x, y) set to `colour` (inside the border), remembered as not grid.
    void put_plot_pixel(int x, int y, QRgb colour);
    // Colour-maps history row `age` (0: newest) into image row `y`.
    // Colour-maps history row `age` (0: newest) into image row `y`.
    void draw_waterfall_row(std::size_t age, int y);
    void add_waterfall_row(const float* row);
    void build_luts();
    // The histogram levels' colours for the density mapping, where the most
    // frequent cell has level `peak` (ignored by "frames").
    void build_count_lut(std::uint16_t peak);
    // The density's reference level: the median over the columns of each
    // column's highest histogram level in the snapshot.
    std::uint16_t peak_level();
    std::vector<std::uint16_t> d_column_peaks; // per column, for peak_level
    // The colour bar's position t (0 bottom, 1 top) of a cell density: a
    // share of the most frequent cell's level, or of the frames ("frames").
    double density_position(double share) const;
    // The display columns whose centres lie in the view: [first, last).
    std::pair<std::size_t, std::size_t> visible_columns() const;
    // The marker whose mark is within a few pixels of pane column x, or -1.
    int marker_near(int x, const QRect& plot) const;
    // A file chosen by the user, then saved; a failure shows where the readout does.
    void save_with_dialog(bool picture);
    // The pointer at `pos` in pane `over` (null: off the plots); the readout follows.
    void hover(const pane* over, QPoint pos);
    void update_readout();
    // The max over the columns [first, last) of the `size` values, NaN where none is a number.
    static float max_over(const float* values, std::size_t size, column_span span);
    void sync_controls();
    // A key of the fosphor map; false if it is not one of them.
    bool fosphor_key(QKeyEvent* e);
    void show_help(bool on);
    // The line markers read: the average if drawn, else the max-hold, else none.
    const std::vector<float>* marker_line() const;
    // The display column under hz, or none (outside the columns).
    bool column_at(double hz, std::size_t& column) const;
    // The snapshot's column layout (n, width, bin range) for gpufft::display_column_bins.
    ::gpufft::display_config snapshot_columns() const;
    double bin_hz() const;
    // Bin k's centre (fftshifted, as the class comment's axis).
    double bin_centre(std::size_t bin) const;
    // Where a marker put at hz goes, and whether on a bin: the centre of the
    // bin that gave the column under hz its value in the newest frame
    // (display_feed::newest_peak_bin), else the column's centre.
    std::pair<double, bool> marker_at(double hz) const;
    void set_marker(std::size_t index, double hz);
    // The display column whose value marker `index` reads (a bin's: the column of its bins).
    bool marker_column(std::size_t index, std::size_t& column) const;
    // What a marker stands for: the bin width, or the column width.
    double marker_resolution(std::size_t index) const;
    // The table's text anew, the plot redrawn with the marks.
    void markers_changed();
    void pan(double fraction);
    // The frequencies the columns span: the bin range's edges.
    double columns_left() const;
    double column_hz() const;
    // The colour of a dB value on the waterfall.
    QRgb waterfall_colour(float db) const;

    std::shared_ptr<display_feed> d_feed;
    display_snapshot d_snap;
    std::size_t d_frames_seen = 0;
    // Waterfall history: a ring of d_wf_capacity rows of W dB values, the
    // newest at d_wf_head, the next older after it.
    std::vector<float> d_wf_rows;
    std::size_t d_wf_capacity = 600; // rows, taller than most screens' waterfall panes
    std::size_t d_wf_head = 0;
    std::size_t d_wf_filled = 0;
    std::size_t d_wf_added = 0;   // rows added since the history was cleared
    std::vector<std::size_t> d_wf_frames; // per history row: the display's frame count when it came

    // The spectrum pane: its frame (all but the plot) and the plot's grid
    // drawn once per layout; the plot's picture (histogram colour-mapped at
    // the plot's size, traces drawn into it, so that painting copies it
    // unscaled) brought up to date once per read, and repainted where it
    // changed.
    layout d_spectrum_layout{};
    QPixmap d_spectrum_frame;
    QImage d_grid_image; // the empty plot: black with the grid, in its border
    QImage d_plot_image; // opaque: empty cells show d_grid_image
    std::vector<column_span> d_spectrum_columns; // per plot column
    std::vector<std::size_t> d_histogram_rows;   // per plot row
    // Per plot row, the pixels [first, last) that may differ from the grid
    // (histogram cells and traces at the last drawing): what the next
    // drawing restores, and repaints.
    struct pixel_run {
        int first = 0, last = 0;
        bool empty() const { return first >= last; }
        void add(int a, int b)
        {
            first = empty() ? a : std::min(first, a);
            last = std::max(last, b);
        }
    };
    std::vector<pixel_run> d_plot_drawn; // at the last drawing
    uchar* d_plot_bits = nullptr;        // d_plot_image's pixels while the lines are drawn
    qsizetype d_plot_stride = 0;
    QSize d_plot_size;                   // its size
    std::vector<pixel_run> d_plot_dirty; // changed by this drawing
    // Per plot column, the four display columns whose max it shows (its
    // first ones, the last repeated where it spans fewer; the sentinel w,
    // always empty, outside the bin range), where no pixel spans more than
    // four (d_spectrum_wide: some do, zoomed out). A plot a little narrower
    // than W has pixels of two and three columns: one branch-free path.
    std::array<std::vector<std::uint32_t>, 4> d_pixel_columns;
    bool d_spectrum_wide = false;
    std::size_t d_spectrum_span = 1; // the most columns a pixel spans
    // The grid's pixels inside the border that are not black: the x of
    // row y's at d_grid_dots[d_grid_row_dots[y], d_grid_row_dots[y + 1]),
    // none listed for a dense row (more than grid_dense_dots), whose
    // pixels are read from d_grid_image.
    static constexpr std::size_t grid_dense_dots = 64;
    std::vector<int> d_grid_dots;
    std::vector<std::size_t> d_grid_row_dots;
    std::vector<bool> d_grid_dense_row;
    std::vector<std::uint16_t> d_cell_index; // one histogram row's levels, and the sentinel
    std::vector<QRgb> d_row_colours;        // that row per plot column: 0 where empty (the grid shows)
    // The waterfall pane: a ring of plot rows, the newest at
    // d_wf_image_head, painted as two pieces; a new history row colour-maps
    // one image row.
    layout d_waterfall_layout{};
    QImage d_waterfall_image;
    std::vector<column_span> d_waterfall_columns;
    int d_wf_image_head = 0;
    std::size_t d_wf_drawn = 0; // d_wf_added at the last drawing
    // Brings the waterfall picture up to the history: new rows into the
    // ring, or the whole ring anew when the layout changed or more rows came
    // than it holds; true if the whole ring was drawn.
    bool draw_waterfall_plot(const QRect& plot);

    std::array<QRgb, 256> d_lut{}; // the colour map
    std::vector<QRgb> d_count_lut; // histogram levels to colours
    std::string d_colormap;
    std::string d_density = "log";
    std::uint16_t d_lut_peak = 0; // the peak level d_count_lut was built for
    QString d_level_unit;
    double d_view_lo = 0.0, d_view_hi = 0.0;
    bool d_view_full = true; // follows the band when the axis changes
    bool d_frozen = false;
    bool d_show_average = true;
    const pane* d_hover_pane = nullptr;
    QPoint d_hover_pos; // in d_hover_pane
    QString d_readout;
    std::string d_keymap = "gpufft";
    bool d_zoomed = false;          // fosphor's Z: the zoom below is the view
    double d_zoom_centre = 0, d_zoom_width = 0; // Hz
    std::atomic<std::size_t> d_redraws{ 0 };

    QTimer* d_timer;
    QTimer* d_bin_range_timer; // single shot: the view stayed, the bin range follows
    QSplitter* d_splitter;
    pane* d_spectrum;
    pane* d_waterfall;
    QComboBox* d_colormap_box;
    QDoubleSpinBox* d_ref_box;
    QDoubleSpinBox* d_range_box;
    QCheckBox* d_freeze_box;
    QCheckBox* d_average_box;
    QCheckBox* d_peak_box;
    QCheckBox* d_min_box;
    QComboBox* d_average_mode_box;
    QDoubleSpinBox* d_average_frames_box;
    text_line* d_readout_label;
    QComboBox* d_keymap_box;
    QComboBox* d_density_box;
    QComboBox* d_fft_box;    // hidden where spectra come in
    QComboBox* d_window_box; // hidden where spectra come in
    QLabel* d_help; // over the panes, shown by ?
    std::vector<double> d_markers; // Hz
    std::vector<bool> d_marker_on_bin; // per marker: at a bin's centre, else a column's
    text_line* d_marker_label;     // the table, hidden without markers
};

} // namespace gr::gpufft

#endif
