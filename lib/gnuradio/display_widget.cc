// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft, GNU Radio side: the display sinks' Qt5 widget (display_widget.h). */
#include "display_widget.h"
#include <gpufft/error.h>
#include <gpufft/spectrum.h>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QMenu>
#include <QSaveFile>
#include <QHBoxLayout>
#include <QFont>
#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <tuple>
#include <utility>

namespace gr::gpufft {

namespace {

struct colour_stop {
    double at;
    int r, g, b;
};

// Colour maps as linear ramps between stops. "fosphor" follows gr-fosphor's
// palette as it draws beside this widget (docs/display.md): dark blue
// through blue, cyan, green, yellow and orange to red, the densest cells
// red; "viridis" samples matplotlib's viridis at five points.
const std::vector<std::pair<std::string, std::vector<colour_stop>>>& colour_maps()
{
    static const std::vector<std::pair<std::string, std::vector<colour_stop>>> maps = {
        { "fosphor",
          { { 0.0, 0, 0, 40 },
            { 0.2, 0, 0, 170 },
            { 0.38, 0, 120, 255 },
            { 0.52, 0, 210, 200 },
            { 0.66, 60, 220, 60 },
            { 0.8, 250, 230, 0 },
            { 0.9, 255, 140, 0 },
            { 1.0, 255, 40, 0 } } },
        { "viridis",
          { { 0.0, 68, 1, 84 },
            { 0.25, 59, 82, 139 },
            { 0.5, 33, 145, 140 },
            { 0.75, 94, 201, 98 },
            { 1.0, 253, 231, 37 } } },
        { "grey", { { 0.0, 0, 0, 0 }, { 1.0, 255, 255, 255 } } },
    };
    return maps;
}

QRgb ramp(const std::vector<colour_stop>& stops, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    std::size_t i = 1;
    while (i + 1 < stops.size() && stops[i].at < t)
        ++i;
    const auto& a = stops[i - 1];
    const auto& b = stops[i];
    const double u = (t - a.at) / (b.at - a.at);
    auto mix = [u](int x, int y) { return int(std::lround(x + (y - x) * std::clamp(u, 0.0, 1.0))); };
    return qRgb(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}

// Steps of 1, 2 or 5 times a power of ten, about `ticks` of them over `span`.
double nice_step(double span, int ticks)
{
    const double raw = span / ticks;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : { 1.0, 2.0, 5.0 })
        if (m * p >= raw)
            return m * p;
    return 10.0 * p;
}

// "100.25 MHz": the unit from the largest magnitude on the axis, decimals from the step.
QString frequency_label(double hz, double step, double largest)
{
    static const struct {
        double scale;
        const char* unit;
    } units[] = { { 1e9, "GHz" }, { 1e6, "MHz" }, { 1e3, "kHz" }, { 1.0, "Hz" } };
    auto u = units[3];
    for (const auto& c : units)
        if (std::abs(largest) >= c.scale) {
            u = c;
            break;
        }
    const int decimals = std::max(0, int(std::ceil(-std::log10(step / u.scale) - 1e-9)));
    return QString::number(hz / u.scale, 'f', decimals) + " " + u.unit;
}

constexpr std::size_t count_lut_size = display_snapshot::histogram_levels;
// The "log" density's span: a cell a thousandth as dense as the reference (peak_level) gets the map's bottom colour.
constexpr double density_decades = 3;
const QColor background(12, 12, 16);
const QColor grid(70, 70, 80);
const QColor average_colour(255, 215, 0);
const QColor max_hold_colour(255, 64, 64);
const QColor min_hold_colour(64, 200, 255);

} // namespace

/*!
 * One line of text, cut where it does not fit, for what changes at every
 * redraw (the readout, the marker table): a new text repaints this widget
 * alone, at most 10 times a second (the newest text then), as fast as
 * anyone reads numbers. A QLabel asks its layout to recompute at every
 * setText and repaints at once: a readout and two markers so cost the GUI
 * thread about a third more than the display without them (docs/display.md,
 * "What the instrument costs").
 */
class text_line : public QWidget
{
public:
    text_line(QWidget* parent, Qt::Alignment align) : QWidget(parent), d_align(align | Qt::AlignVCenter)
    {
        setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        d_pending.setSingleShot(true);
        connect(&d_pending, &QTimer::timeout, this, [this] { repaint_now(); });
        d_since.start();
    }
    const QString& text() const { return d_text; }
    void set_text(const QString& text)
    {
        if (text == d_text)
            return;
        d_text = text;
        const qint64 wait = min_interval_ms - d_since.elapsed();
        if (wait <= 0)
            repaint_now();
        else if (!d_pending.isActive())
            d_pending.start(int(wait));
    }
    QSize sizeHint() const override
    {
        const QMargins m = contentsMargins();
        return { 0, fontMetrics().height() + m.top() + m.bottom() };
    }
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this); // the widget's font and text colour, as a QLabel's
        p.drawText(contentsRect(), int(d_align) | Qt::TextSingleLine, d_text);
    }

private:
    static constexpr qint64 min_interval_ms = 100;
    void repaint_now()
    {
        d_since.restart();
        update();
    }
    Qt::Alignment d_align;
    QString d_text;
    QTimer d_pending;      // the newest text, once min_interval_ms has passed
    QElapsedTimer d_since; // since the last repaint asked for
};

//! One of the two plots: draws through the widget and turns the mouse into zoom, pan and clicks.
class display_widget::pane : public QWidget
{
public:
    enum kind { spectrum, waterfall };

    pane(display_widget& owner, kind k, QWidget* parent) : QWidget(parent), d_owner(owner), d_kind(k)
    {
        setMinimumHeight(60);
        setMouseTracking(true); // the readout follows the pointer
        setFocusPolicy(Qt::ClickFocus);
        // Every pixel is painted: Qt need not clear the background first,
        // and may scroll the waterfall in the window (QWidget::scroll).
        setAttribute(Qt::WA_OpaquePaintEvent);
        setAttribute(Qt::WA_NoSystemBackground);
    }

    QRect plot_rect() const
    {
        constexpr int left = 60, right = 70; // right: the colour bar, its labels and unit
        // Spectrum: the annotation line above the plot, the frequency axis below.
        if (d_kind == spectrum)
            return QRect(left, 22, std::max(1, width() - left - right), std::max(1, height() - 22 - 26));
        return QRect(left, 2, std::max(1, width() - left - right), std::max(1, height() - 4));
    }

    double hz_at(int x) const
    {
        const QRect plot = plot_rect();
        // The centre of pixel x.
        return d_owner.d_view_lo +
               (x + 0.5 - plot.left()) / plot.width() * (d_owner.d_view_hi - d_owner.d_view_lo);
    }

protected:
    void paintEvent(QPaintEvent* e) override
    {
        QPainter p(this);
        const QRect plot = plot_rect();
        const bool frame = !plot.contains(e->rect());
        if (d_kind == spectrum)
            d_owner.paint_spectrum(p, plot, frame, e->region());
        else
            d_owner.paint_waterfall(p, plot, frame, e->region());
    }

    void wheelEvent(QWheelEvent* e) override
    {
        const double steps = e->angleDelta().y() / 120.0;
        if (steps != 0)
            d_owner.zoom(std::pow(1.25, steps), hz_at(int(e->position().x())));
        e->accept();
    }

    void mousePressEvent(QMouseEvent* e) override
    {
        if (e->button() == Qt::RightButton && plot_rect().contains(e->pos()))
            d_owner.place_marker(hz_at(e->pos().x()));
        if (e->button() != Qt::LeftButton)
            return;
        // On a marker's mark: the drag moves the marker, not the view.
        d_drag_marker = d_kind == spectrum && plot_rect().contains(e->pos()) ? d_owner.marker_near(e->pos().x(), plot_rect()) : -1;
        d_press_x = e->pos().x();
        d_press_lo = d_owner.d_view_lo;
        d_press_hi = d_owner.d_view_hi;
        d_dragging = false;
    }

    void mouseMoveEvent(QMouseEvent* e) override
    {
        d_owner.hover(this, e->pos());
        if (!(e->buttons() & Qt::LeftButton))
            return;
        const int dx = e->pos().x() - d_press_x;
        if (d_drag_marker >= 0) {
            const QRect plot = plot_rect();
            d_dragging = d_dragging || dx != 0;
            d_owner.move_marker(std::size_t(d_drag_marker), hz_at(std::clamp(e->pos().x(), plot.left(), plot.right())));
            return;
        }
        if (std::abs(dx) > 3)
            d_dragging = true;
        if (d_dragging) {
            const double shift = -double(dx) / plot_rect().width() * (d_press_hi - d_press_lo);
            d_owner.set_view(d_press_lo + shift, d_press_hi + shift);
        }
    }

    void mouseReleaseEvent(QMouseEvent* e) override
    {
        if (e->button() == Qt::LeftButton && !d_dragging && plot_rect().contains(e->pos()))
            d_owner.d_feed->clicked(hz_at(e->pos().x()));
        d_dragging = false;
        d_drag_marker = -1;
    }

    void leaveEvent(QEvent*) override { d_owner.hover(nullptr, {}); }

private:
    display_widget& d_owner;
    kind d_kind;
    int d_press_x = 0;
    double d_press_lo = 0, d_press_hi = 0;
    bool d_dragging = false;
    int d_drag_marker = -1; // the marker a left press landed on
};

const std::vector<std::string>& display_widget::colormap_names()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& m : colour_maps())
            n.push_back(m.first);
        return n;
    }();
    return names;
}

void display_widget::check_colormap(const std::string& name)
{
    const auto& names = colormap_names();
    if (std::find(names.begin(), names.end(), name) != names.end())
        return;
    std::string known;
    for (const auto& n : names)
        known += (known.empty() ? "" : ", ") + n;
    throw ::gpufft::error("colormap: unknown colour map \"" + name + "\" (known: " + known + ")");
}

const std::vector<std::string>& display_widget::density_names()
{
    static const std::vector<std::string> names = { "log", "linear", "frames" };
    return names;
}

void display_widget::check_density(const std::string& name)
{
    const auto& names = density_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
        throw ::gpufft::error("density: unknown density mapping \"" + name + "\" (known: log, linear, frames)");
}

display_widget::display_widget(std::shared_ptr<display_feed> feed,
                               const std::string& colormap,
                               double frame_rate,
                               const std::string& level_unit,
                               QWidget* parent)
    : QWidget(parent), d_feed(std::move(feed)), d_level_unit(QString::fromStdString(level_unit))
{
    check_colormap(colormap);
    setFocusPolicy(Qt::StrongFocus);

    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(4, 2, 4, 2);
    d_colormap_box = new QComboBox(this);
    for (const auto& n : colormap_names())
        d_colormap_box->addItem(QString::fromStdString(n));
    d_ref_box = new QDoubleSpinBox(this);
    d_ref_box->setRange(-300, 300);
    d_ref_box->setSingleStep(5);
    d_ref_box->setDecimals(1);
    d_ref_box->setKeyboardTracking(false); // a new range clears the histogram: once, on Enter
    d_ref_box->setPrefix("ref ");
    d_ref_box->setSuffix(" " + d_level_unit);
    d_ref_box->setToolTip("Reference level: the top of the dB axis (keys Up, Down)");
    d_range_box = new QDoubleSpinBox(this);
    d_range_box->setRange(1, 400);
    d_range_box->setSingleStep(10);
    d_range_box->setDecimals(1);
    d_range_box->setKeyboardTracking(false);
    d_range_box->setPrefix("range ");
    d_range_box->setSuffix(" dB");
    d_range_box->setToolTip("The dB axis' span (keys Page Up, Page Down)");
    d_freeze_box = new QCheckBox("Freeze", this);
    d_average_box = new QCheckBox("Average", this);
    d_average_box->setChecked(true);
    d_peak_box = new QCheckBox("Peak", this);
    d_min_box = new QCheckBox("Min", this);
    d_average_mode_box = new QComboBox(this);
    for (const char* m : { "off", "exponential", "linear" })
        d_average_mode_box->addItem(m);
    d_average_frames_box = new QDoubleSpinBox(this);
    d_average_frames_box->setRange(1, 1e6);
    d_average_frames_box->setDecimals(0);
    d_average_frames_box->setKeyboardTracking(false);
    d_average_frames_box->setSuffix(" frames");
    d_density_box = new QComboBox(this);
    for (const auto& name : density_names())
        d_density_box->addItem(QString::fromStdString(name));
    d_density_box->setToolTip("Persistence colours: log or linear relative to a typical column's densest cell (the top colour), "
                              "or frames: the share of frames that hit a cell");
    d_fft_box = new QComboBox(this);
    d_fft_box->setObjectName("fft_size");
    for (int k = 6; k <= 20; ++k)
        d_fft_box->addItem(QString::number(1 << k));
    d_fft_box->setToolTip("FFT size N: a new transform (the display restarts)");
    d_window_box = new QComboBox(this);
    d_window_box->setObjectName("window");
    for (const auto& name : ::gpufft::window_names())
        d_window_box->addItem(QString::fromStdString(name));
    d_window_box->setToolTip("The transform's window: sets the RBW (the display restarts)");
    auto* save = new QPushButton("Save", this);
    auto* save_menu = new QMenu(save);
    save_menu->addAction("Picture (PNG)... Ctrl+S", this, [this] { save_with_dialog(true); });
    save_menu->addAction("Traces (CSV)... Ctrl+E", this, [this] { save_with_dialog(false); });
    save->setMenu(save_menu);
    save->setToolTip("Save the picture as PNG (Ctrl+S) or the drawn lines over the view as CSV (Ctrl+E)");
    // Takes the row's free width and no more: a long readout is cut, the widget does not grow.
    d_readout_label = new text_line(this, Qt::AlignRight);
    auto* clear = new QPushButton("Clear", this);
    auto* full = new QPushButton("Full", this);
    d_colormap_box->setToolTip("Colour map (key C)");
    d_freeze_box->setToolTip("Freeze the picture; frames still go into the display (key F)");
    d_average_box->setToolTip("The average line (key A)");
    d_peak_box->setToolTip("Peak hold: the max-hold line (key P)");
    d_min_box->setToolTip("Min hold: the minimum of every frame per column (key M)");
    d_average_mode_box->setToolTip("The average line: off, exponential (time constant in frames), linear (mean of the last frames)");
    d_average_frames_box->setToolTip("Exponential: the time constant; linear: the frames averaged (at most 512)");
    d_readout_label->setToolTip("Under the pointer: frequency, level (the trace drawn there), on the waterfall the row's age");
    clear->setToolTip("Restart the peak and min hold");
    full->setToolTip("Show the whole band (key 0; the wheel zooms, dragging pans)");
    controls->addWidget(d_colormap_box);
    controls->addWidget(d_ref_box);
    controls->addWidget(d_range_box);
    controls->addWidget(d_freeze_box);
    controls->addWidget(d_average_box);
    controls->addWidget(d_peak_box);
    controls->addWidget(d_min_box);
    controls->addWidget(clear);
    controls->addWidget(full);
    controls->addWidget(save);
    controls->addStretch(1);
    // A second row: the average's settings and the readout.
    auto* controls_2 = new QHBoxLayout;
    controls_2->setContentsMargins(4, 0, 4, 2);
    controls_2->addWidget(d_fft_box);
    controls_2->addWidget(d_window_box);
    controls_2->addWidget(new QLabel("Average line", this));
    controls_2->addWidget(d_average_mode_box);
    controls_2->addWidget(d_average_frames_box);
    d_keymap_box = new QComboBox(this);
    d_keymap_box->addItems({ "gpufft", "fosphor" });
    d_keymap_box->setToolTip("Key map: this widget's or gr-fosphor's (key ? lists the keys)");
    controls_2->addWidget(new QLabel("Density", this));
    controls_2->addWidget(d_density_box);
    controls_2->addWidget(new QLabel("Keys", this));
    controls_2->addWidget(d_keymap_box);
    controls_2->addWidget(d_readout_label, 1);
    d_marker_label = new text_line(this, Qt::AlignLeft);
    d_marker_label->setContentsMargins(4, 0, 4, 2);
    d_marker_label->setToolTip("Markers: right click places, K peak, N next peak, X clears");
    d_marker_label->hide();
    d_help = new QLabel(this);
    d_help->setStyleSheet("QLabel { background: rgba(0, 0, 0, 210); color: white; padding: 10px; }");
    d_help->setTextFormat(Qt::RichText);
    d_help->hide();

    d_splitter = new QSplitter(Qt::Vertical, this);
    d_spectrum = new pane(*this, pane::spectrum, d_splitter);
    d_waterfall = new pane(*this, pane::waterfall, d_splitter);
    d_splitter->addWidget(d_spectrum);
    d_splitter->addWidget(d_waterfall);
    d_splitter->setStretchFactor(0, 3);
    d_splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(controls);
    layout->addLayout(controls_2);
    layout->addWidget(d_marker_label);
    layout->addWidget(d_splitter, 1);

    connect(d_colormap_box, &QComboBox::currentTextChanged, this,
            [this](const QString& s) { set_colormap(s.toStdString()); });
    auto db_range_changed = [this] {
        d_feed->set_db_range(d_ref_box->value() - d_range_box->value(), d_ref_box->value());
        refresh();
    };
    connect(d_ref_box, qOverload<double>(&QDoubleSpinBox::valueChanged), this, db_range_changed);
    connect(d_range_box, qOverload<double>(&QDoubleSpinBox::valueChanged), this, db_range_changed);
    connect(d_freeze_box, &QCheckBox::toggled, this, [this](bool on) { set_frozen(on); });
    connect(d_average_box, &QCheckBox::toggled, this, [this](bool on) { set_show_average(on); });
    connect(d_peak_box, &QCheckBox::toggled, this, [this](bool on) {
        d_feed->set_max_hold(on);
        refresh();
    });
    connect(d_min_box, &QCheckBox::toggled, this, [this](bool on) {
        d_feed->set_min_hold(on);
        refresh();
    });
    auto average_changed = [this] {
        try {
            d_feed->set_average(d_average_mode_box->currentText().toStdString(), d_average_frames_box->value());
        } catch (const ::gpufft::error& e) {
            // Not thrown through Qt's event loop: the controls go back to
            // the display's values, the message shows where the readout does.
            d_readout_label->set_text(e.what());
        }
        refresh();
        sync_controls();
    };
    connect(d_average_mode_box, &QComboBox::currentTextChanged, this, average_changed);
    connect(d_average_frames_box, qOverload<double>(&QDoubleSpinBox::valueChanged), this, average_changed);
    connect(d_keymap_box, &QComboBox::currentTextChanged, this, [this](const QString& s) { set_keymap(s.toStdString()); });
    connect(d_density_box, &QComboBox::currentTextChanged, this, [this](const QString& s) { set_density(s.toStdString()); });
    // A new transform: not thrown through Qt's event loop (as the average's settings).
    auto transform_changed = [this](const std::function<void()>& change) {
        try {
            change();
        } catch (const ::gpufft::error& e) {
            d_readout_label->set_text(e.what());
        }
        refresh();
        sync_controls();
    };
    // The transform in use chosen again: nothing to rebuild (a rebuild would empty the display).
    connect(d_fft_box, &QComboBox::textActivated, this, [this, transform_changed](const QString& s) {
        if (s.toULongLong() != d_snap.bins)
            transform_changed([&] { d_feed->set_fft_size(s.toInt()); });
    });
    connect(d_window_box, &QComboBox::textActivated, this, [this, transform_changed](const QString& s) {
        if (s.toStdString() != d_snap.window)
            transform_changed([&] { d_feed->set_window(s.toStdString()); });
    });
    connect(clear, &QPushButton::clicked, this, [this] { d_feed->reset_max_hold(); });
    connect(full, &QPushButton::clicked, this, [this] { set_view(band_left(), band_right()); });

    d_timer = new QTimer(this);
    // Precise: a coarse timer may fire 5% early (QTimer, "Timer Types"), 31 redraws a second for 30.
    d_timer->setTimerType(Qt::PreciseTimer);
    connect(d_timer, &QTimer::timeout, this, &display_widget::refresh);
    d_bin_range_timer = new QTimer(this);
    d_bin_range_timer->setSingleShot(true);
    d_bin_range_timer->setInterval(bin_range_delay_ms);
    connect(d_bin_range_timer, &QTimer::timeout, this, &display_widget::apply_view_bins);
    set_colormap(colormap);
    set_frame_rate(frame_rate);
    resize(900, 700);
    refresh();
    d_timer->start();
}

display_widget::~display_widget() = default;

void display_widget::set_colormap(const std::string& name)
{
    check_colormap(name);
    d_colormap = name;
    {
        const QSignalBlocker block(d_colormap_box);
        d_colormap_box->setCurrentText(QString::fromStdString(name));
    }
    build_luts();
    update();
    d_spectrum->update();
    d_waterfall->update();
}

std::string display_widget::colormap() const { return d_colormap; }

void display_widget::set_density(const std::string& name)
{
    check_density(name);
    d_density = name;
    {
        const QSignalBlocker block(d_density_box);
        d_density_box->setCurrentText(QString::fromStdString(name));
    }
    build_luts();
    d_spectrum->update();
}

void display_widget::set_frame_rate(double redraws_per_second)
{
    d_timer->setInterval(std::max(1, int(std::lround(1000.0 / redraws_per_second))));
}

void display_widget::set_frozen(bool on)
{
    d_frozen = on;
    const QSignalBlocker block(d_freeze_box);
    d_freeze_box->setChecked(on);
}
bool display_widget::frozen() const { return d_frozen; }

void display_widget::set_show_average(bool on)
{
    d_show_average = on;
    const QSignalBlocker block(d_average_box);
    d_average_box->setChecked(on);
    d_spectrum_layout = {}; // the line is in the picture: drawn anew
    d_spectrum->update();
}

double display_widget::band_left() const
{
    const double n = double(std::max<std::size_t>(d_snap.bins, 1));
    return d_snap.center_freq + (-std::floor(n / 2) - 0.5) * d_snap.sample_rate / n;
}
double display_widget::band_right() const { return band_left() + d_snap.sample_rate; }

void display_widget::set_view(double lo_hz, double hi_hz)
{
    const double left = band_left(), right = band_right();
    const double min_span = d_snap.sample_rate / double(std::max<std::size_t>(d_snap.bins, 1)) * 4;
    double span = std::clamp(hi_hz - lo_hz, std::min(min_span, right - left), right - left);
    double lo = std::clamp(lo_hz, left, right - span);
    d_view_lo = lo;
    d_view_hi = lo + span;
    d_view_full = span >= right - left && lo <= left;
    // The bin range follows once the view stays (restarted at every change).
    if (view_bins() != std::make_pair(d_snap.bin_begin, d_snap.bin_end))
        d_bin_range_timer->start();
    else
        d_bin_range_timer->stop();
    d_spectrum->update();
    d_waterfall->update();
}

std::pair<std::size_t, std::size_t> display_widget::view_bins() const
{
    const double n = double(d_snap.bins), bin_hz = d_snap.sample_rate / std::max(n, 1.0);
    // A hair inside the edges, so that rounding does not add a bin.
    const double lo = std::floor((d_view_lo - band_left()) / bin_hz + 1e-6);
    const double hi = std::ceil((d_view_hi - band_left()) / bin_hz - 1e-6);
    const auto begin = std::size_t(std::clamp(lo, 0.0, std::max(n - 1, 0.0)));
    const auto end = std::size_t(std::clamp(hi, double(begin + 1), std::max(n, 1.0)));
    return { begin, end };
}

void display_widget::apply_view_bins()
{
    d_bin_range_timer->stop();
    const auto bins = view_bins();
    if (d_snap.bins == 0 || bins == std::make_pair(d_snap.bin_begin, d_snap.bin_end))
        return;
    d_feed->set_bin_range(bins.first, bins.second);
    refresh();
}

void display_widget::zoom(double factor, double at_hz)
{
    const double lo = at_hz - (at_hz - d_view_lo) / factor;
    const double hi = at_hz + (d_view_hi - at_hz) / factor;
    set_view(lo, hi);
}

void display_widget::pan(double fraction)
{
    const double shift = fraction * (d_view_hi - d_view_lo);
    set_view(d_view_lo + shift, d_view_hi + shift);
}

QRect display_widget::spectrum_plot_rect() const
{
    return d_spectrum->plot_rect().translated(d_spectrum->mapTo(this, QPoint(0, 0)));
}
QRect display_widget::waterfall_plot_rect() const
{
    return d_waterfall->plot_rect().translated(d_waterfall->mapTo(this, QPoint(0, 0)));
}
QWidget* display_widget::spectrum_pane() const { return d_spectrum; }
QRect display_widget::bar_of(const QRect& plot) { return QRect(plot.right() + 6, plot.top(), 8, plot.height()); }

namespace {

// A colour bar's tick and label at y (kept inside the pane at the font's
// height), and its unit written upwards along the pane's right edge, as wide
// as the font makes it.
void bar_label(QPainter& p, const QRect& bar, int y, const QString& text, int pane_height)
{
    p.drawLine(bar.right() + 1, y, bar.right() + 3, y);
    const int half = (p.fontMetrics().height() + 1) / 2;
    const int centre = std::clamp(y, half, pane_height - half);
    p.drawText(QRect(bar.right() + 5, centre - half, 40, 2 * half), Qt::AlignLeft | Qt::AlignVCenter, text);
}
void bar_unit(QPainter& p, const QRect& bar, int pane_width, const QString& unit)
{
    const int width = p.fontMetrics().horizontalAdvance(unit) + 4, half = (p.fontMetrics().height() + 1) / 2;
    p.save();
    p.translate(pane_width - half, bar.center().y());
    p.rotate(-90);
    p.drawText(QRect(-width / 2, -half, width, 2 * half), Qt::AlignCenter, unit);
    p.restore();
}

} // namespace
QRect display_widget::persistence_bar_rect() const
{
    return bar_of(d_spectrum->plot_rect()).translated(d_spectrum->mapTo(this, QPoint(0, 0)));
}
QRect display_widget::waterfall_bar_rect() const
{
    return bar_of(d_waterfall->plot_rect()).translated(d_waterfall->mapTo(this, QPoint(0, 0)));
}
QWidget* display_widget::waterfall_pane() const { return d_waterfall; }

void display_widget::refresh()
{
    if (d_frozen)
        return;
    // What the read may change besides the images.
    const auto geometry = [this] { return std::make_pair(d_snap.width, d_snap.height); };
    const auto band = [this] { return std::make_tuple(d_snap.bins, d_snap.center_freq, d_snap.sample_rate); };
    const auto bins = [this] { return std::make_pair(d_snap.bin_begin, d_snap.bin_end); };
    const auto range = [this] { return std::make_pair(d_snap.db_min, d_snap.db_max); };
    const auto geometry_before = geometry();
    const auto band_before = band();
    const auto range_before = range();
    const auto bins_before = bins();
    const double decay_before = d_snap.decay;
    const std::size_t engine_before = d_snap.engine;
    d_feed->read(d_snap, d_frames_seen);
    const bool new_geometry = geometry() != geometry_before;
    const bool new_band = new_geometry || band() != band_before;
    const bool new_range = range() != range_before;
    const bool new_engine = d_snap.engine != engine_before;
    const bool new_bins = bins() != bins_before;
    const bool new_frames = new_engine || d_snap.frames != d_frames_seen;
    if (new_geometry || new_engine || new_bins) {
        // A rebuilt display or a new bin range: the waterfall history meant
        // other columns or frames.
        const std::size_t w = std::max<std::size_t>(d_snap.width, 1);
        d_wf_rows.assign(d_wf_capacity * w, std::numeric_limits<float>::quiet_NaN());
        d_wf_frames.assign(d_wf_capacity, 0);
        d_wf_head = 0;
        d_wf_filled = 0;
        d_wf_added = 0;
        d_waterfall_layout = {};
    }
    d_frames_seen = d_snap.frames;
    if (d_snap.decay != decay_before)
        build_luts();
    else if (d_density != "frames") {
        const std::uint16_t peak = peak_level();
        if (peak != d_lut_peak)
            build_count_lut(peak); // the lit rows are coloured anew below
    }
    if (new_band) {
        if (d_view_full || d_view_hi <= d_view_lo)
            set_view(band_left(), band_right());
        else
            set_view(d_view_lo, d_view_hi);
    }
    // One waterfall row per redraw: the largest value of each column over
    // the frames since the last one (read so), so a short burst still shows.
    if (d_snap.new_rows > 0)
        add_waterfall_row(d_snap.waterfall.data());
    // A rebuilt display shows the whole band: the zoomed view's bins follow.
    if (!d_bin_range_timer->isActive() && view_bins() != bins())
        d_bin_range_timer->start();
    sync_controls();
    if (d_hover_pane)
        update_readout();
    if (!d_markers.empty()) {
        d_marker_label->set_text(marker_table());
    }
    if (!(new_frames || new_band || new_range || new_geometry || new_bins))
        return;
    if (new_frames)
        ++d_redraws;
    // New frames alone change the plots, not the axes around them: each
    // picture is brought up to date here and repainted where it changed
    // (the waterfall scrolled in the window, its new rows painted).
    // Otherwise, or when a pane's layout changed, the pane is painted whole.
    if (new_band || new_range || new_geometry || new_bins || d_snap.width == 0) {
        d_spectrum->update();
        d_waterfall->update();
        return;
    }
    const QRect spectrum_plot = d_spectrum->plot_rect();
    if (layout_of(d_spectrum->size()) == d_spectrum_layout)
        d_spectrum->update(draw_spectrum_plot(spectrum_plot, false));
    else
        d_spectrum->update();
    const QRect waterfall_plot = d_waterfall->plot_rect();
    const std::size_t fresh = d_wf_added - d_wf_drawn;
    if (fresh == 0)
        return;
    if (!draw_waterfall_plot(waterfall_plot))
        d_waterfall->scroll(0, int(fresh), waterfall_plot);
    else
        d_waterfall->update(waterfall_plot);
    // The time axis, where its labels changed.
    if (time_labels(waterfall_plot.height()) != d_time_labels)
        d_waterfall->update(QRect(0, waterfall_plot.top() + 40, waterfall_plot.left(), waterfall_plot.height() - 40));
}

void display_widget::sync_controls()
{
    const QSignalBlocker a(d_ref_box), b(d_range_box), c(d_peak_box), d(d_min_box), e(d_average_mode_box),
        f(d_average_frames_box), g(d_fft_box), h(d_window_box);
    // The transform as the block read it back; none to set where spectra come in.
    const bool transform = !d_snap.window.empty();
    if (d_fft_box->isVisibleTo(this) != transform) {
        d_fft_box->setVisible(transform);
        d_window_box->setVisible(transform);
    }
    const QString n = QString::number(d_snap.bins), window = QString::fromStdString(d_snap.window);
    if (transform && d_fft_box->currentText() != n) {
        if (d_fft_box->findText(n) < 0) // not a power of two: listed in order
            for (int i = 0; i <= d_fft_box->count(); ++i)
                if (i == d_fft_box->count() || d_fft_box->itemText(i).toULongLong() > d_snap.bins) {
                    d_fft_box->insertItem(i, n);
                    break;
                }
        d_fft_box->setCurrentText(n);
    }
    if (transform && d_window_box->currentText() != window) {
        if (d_window_box->findText(window) < 0)
            d_window_box->addItem(window);
        d_window_box->setCurrentText(window);
    }
    // Not under the user's cursor: a value being typed stays. Set only when
    // it changed: a spin box repaints at every setValue.
    if (!d_ref_box->hasFocus() && d_ref_box->value() != d_snap.db_max)
        d_ref_box->setValue(d_snap.db_max);
    if (!d_range_box->hasFocus() && d_range_box->value() != d_snap.db_max - d_snap.db_min)
        d_range_box->setValue(d_snap.db_max - d_snap.db_min);
    if (d_peak_box->isChecked() != d_snap.max_hold)
        d_peak_box->setChecked(d_snap.max_hold);
    if (d_min_box->isChecked() != d_snap.min_hold)
        d_min_box->setChecked(d_snap.min_hold);
    const QString mode = QString::fromStdString(d_snap.average_mode);
    if (d_average_mode_box->currentText() != mode)
        d_average_mode_box->setCurrentText(mode);
    if (!d_average_frames_box->hasFocus() && d_average_frames_box->value() != d_snap.average_frames)
        d_average_frames_box->setValue(d_snap.average_frames);
}

float display_widget::max_over(const float* values, std::size_t size, column_span span)
{
    float v = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t c = span.first; c < std::min(span.last, size); ++c)
        v = values[c] > v || std::isnan(v) ? values[c] : v;
    return v;
}

void display_widget::hover(const pane* over, QPoint pos)
{
    d_hover_pane = over;
    d_hover_pos = pos;
    update_readout();
}

void display_widget::update_readout()
{
    QString text;
    const pane* over = d_hover_pane;
    const QRect plot = over ? over->plot_rect() : QRect();
    if (over && d_snap.width > 0 && plot.contains(d_hover_pos)) {
        const int x = d_hover_pos.x() - plot.left(), y = d_hover_pos.y() - plot.top();
        // The display columns drawn at this pixel.
        const column_span span = columns_under(plot.width())[std::size_t(x)];
        // The frequency of what the pixel shows, with the digits its width
        // supports: one bin (a zoom past the bins), one column wider than
        // the pixel, else the pixel (the max of the columns it spans).
        double hz = over->hz_at(d_hover_pos.x()), resolution = (d_view_hi - d_view_lo) / plot.width();
        if (span.last > span.first) {
            const ::gpufft::display_config columns = snapshot_columns();
            const std::size_t b0 = ::gpufft::display_column_bins(columns, span.first).first,
                              b1 = ::gpufft::display_column_bins(columns, span.last - 1).second;
            if (b1 - b0 == 1) {
                hz = bin_centre(b0);
                resolution = bin_hz();
            } else if (span.last - span.first == 1) {
                hz = columns_left() + (double(span.first) + 0.5) * column_hz();
                resolution = column_hz();
            }
        }
        text = frequency_label(hz, resolution, hz);
        auto level = [this](double db) { return QString::number(db, 'f', 1) + " " + level_unit(); };
        if (over == d_spectrum) {
            const float none = std::numeric_limits<float>::quiet_NaN();
            const float avg = d_show_average ? max_over(d_snap.average.data(), d_snap.average.size(), span) : none;
            const float max =
                d_snap.max_hold ? max_over(d_snap.max_hold_trace.data(), d_snap.max_hold_trace.size(), span) : none;
            if (!std::isnan(avg))
                text += "  " + level(avg) + " avg";
            else if (!std::isnan(max))
                text += "  " + level(max) + " max";
            else
                text += "  " + level(d_snap.db_max - (y + 0.5) / plot.height() * (d_snap.db_max - d_snap.db_min));
        } else if (std::size_t(y) < d_wf_filled) {
            // Screen row y shows history row y (the newest at the top).
            const std::size_t ring = (d_wf_head + std::size_t(y)) % d_wf_capacity;
            const float v = max_over(&d_wf_rows[ring * d_snap.width], d_snap.width, span);
            text += "  " + (std::isnan(v) ? QString("no data") : level(v));
            // The row's newest frame, before the newest frame shown.
            const double frames = double(d_frames_seen - d_wf_frames[ring]);
            const QString sign = frames > 0 ? "-" : "";
            text += d_snap.frame_seconds > 0 ? "  " + sign + QString::number(frames * d_snap.frame_seconds, 'f', 3) + " s"
                                             : "  " + sign + QString::number(frames, 'f', 0) + " frames";
        }
    }
    d_readout = text;
    d_readout_label->set_text(text);
}

void display_widget::build_luts()
{
    const auto& stops = std::find_if(colour_maps().begin(), colour_maps().end(),
                                     [this](const auto& m) { return m.first == d_colormap; })
                            ->second;
    for (std::size_t i = 0; i < d_lut.size(); ++i)
        d_lut[i] = ramp(stops, double(i) / double(d_lut.size() - 1));
    d_spectrum_layout = {};
    d_waterfall_layout = {};
    build_count_lut(peak_level());
}

double display_widget::density_position(double share) const
{
    if (!(share > 0))
        return 0;
    if (d_density == "linear")
        return std::min(share, 1.0);
    if (d_density == "log")
        return std::clamp(1 + std::log10(share) / density_decades, 0.0, 1.0);
    // "frames": a log scale of the count up to a column that stays in one
    // row (1 / (1 - decay)), so rarely seen levels stay visible.
    const double full = 1.0 / (1.0 - d_snap.decay);
    return std::log1p(share * full) / std::log1p(full);
}

std::uint16_t display_widget::peak_level()
{
    // Each column's highest level over the lit rows, then their median: the
    // most frequent level of a typical column. A few strong steady tones
    // (every frame in one row) would otherwise set a reference that leaves
    // the noise band, spread over many rows, dim.
    const std::size_t w = d_snap.width;
    if (w == 0 || d_snap.levels.size() < w * d_snap.height || d_snap.lit_rows.size() < d_snap.height)
        return 0;
    d_column_peaks.assign(w, 0);
    std::uint16_t* __restrict peaks = d_column_peaks.data();
    for (std::size_t row = 0; row < d_snap.height; ++row)
        if (d_snap.lit_rows[row]) {
            const std::uint16_t* __restrict v = &d_snap.levels[row * w];
            for (std::size_t c = 0; c < w; ++c) // a max the compiler vectorizes
                peaks[c] = std::max(peaks[c], v[c]);
        }
    const auto middle = d_column_peaks.begin() + std::ptrdiff_t(w / 2);
    std::nth_element(d_column_peaks.begin(), middle, d_column_peaks.end());
    return *middle;
}

void display_widget::build_count_lut(std::uint16_t peak)
{
    // Histogram cells: a level of 0 is transparent (the grid shows
    // through); above, the colour of the cell's density: its level as a
    // share of the reference level `peak` (a share above 1: the top
    // colour), or (frames) of the top level, a cell hit by every frame.
    d_lut_peak = peak;
    d_count_lut.assign(count_lut_size, 0);
    const double top = d_density == "frames" ? double(count_lut_size - 1) : double(std::max<std::uint16_t>(peak, 1));
    for (std::size_t i = 1; i < count_lut_size; ++i) {
        const double t = density_position(double(i) / top);
        d_count_lut[i] = d_lut[std::size_t(std::lround(t * double(d_lut.size() - 1)))]; // opaque: premultiplied = plain
    }
}

void display_widget::add_waterfall_row(const float* row)
{
    const std::size_t w = d_snap.width;
    d_wf_head = (d_wf_head + d_wf_capacity - 1) % d_wf_capacity;
    std::memcpy(&d_wf_rows[d_wf_head * w], row, w * sizeof(float));
    d_wf_frames[d_wf_head] = d_snap.frames;
    d_wf_filled = std::min(d_wf_filled + 1, d_wf_capacity);
    ++d_wf_added;
}

QRgb display_widget::waterfall_colour(float db) const
{
    if (std::isnan(db))
        return background.rgb();
    const double t = (db - d_snap.db_min) / (d_snap.db_max - d_snap.db_min);
    return d_lut[std::size_t(std::clamp(t * 255.0 + 0.5, 0.0, 255.0))];
}

double display_widget::columns_left() const
{
    return band_left() + double(d_snap.bin_begin) * d_snap.sample_rate / double(std::max<std::size_t>(d_snap.bins, 1));
}

double display_widget::column_hz() const
{
    const double bins = double(d_snap.bin_end - d_snap.bin_begin);
    return bins * d_snap.sample_rate / double(std::max<std::size_t>(d_snap.bins, 1)) /
           double(std::max<std::size_t>(d_snap.width, 1));
}

std::vector<display_widget::column_span> display_widget::columns_under(int pixels) const
{
    // Column c is drawn over [columns_left + c column_hz, columns_left + (c + 1) column_hz).
    const double w = double(d_snap.width);
    const double c0 = (d_view_lo - columns_left()) / column_hz();
    const double per_pixel = (d_view_hi - d_view_lo) / column_hz() / pixels;
    std::vector<column_span> columns(std::size_t(std::max(pixels, 0)));
    for (int x = 0; x < pixels; ++x) {
        double a = std::floor(c0 + (x + 0.5) * per_pixel), b = a + 1;
        if (per_pixel > 1) {
            a = std::floor(c0 + x * per_pixel);
            b = std::ceil(c0 + (x + 1) * per_pixel);
        }
        a = std::clamp(a, 0.0, w);
        b = std::clamp(b, a, w);
        columns[std::size_t(x)] = { std::size_t(a), std::size_t(b) };
    }
    return columns;
}

void display_widget::paint_frequency_axis(QPainter& p, const QRect& plot)
{
    const double span = d_view_hi - d_view_lo;
    if (!(span > 0))
        return;
    const double step = nice_step(span, std::max(2, plot.width() / 110));
    const double largest = std::max(std::abs(d_view_lo), std::abs(d_view_hi));
    p.setPen(Qt::lightGray);
    for (double f = std::ceil(d_view_lo / step) * step; f <= d_view_hi; f += step) {
        const int x = plot.left() + int(std::floor((f - d_view_lo) / span * plot.width()));
        p.drawLine(x, plot.bottom() + 1, x, plot.bottom() + 5);
        const QString label = frequency_label(std::abs(f) < step / 2 ? 0.0 : f, step, largest);
        const int tw = p.fontMetrics().horizontalAdvance(label);
        p.drawText(std::clamp(x - tw / 2, 0, width() - tw), plot.bottom() + 6 + p.fontMetrics().ascent(), label);
    }
}

bool display_widget::layout::operator==(const layout& o) const
{
    return std::tie(pane, view_lo, view_hi, db_min, db_max, columns_left, column_hz, resolution, columns, rows) ==
           std::tie(o.pane, o.view_lo, o.view_hi, o.db_min, o.db_max, o.columns_left, o.column_hz, o.resolution,
                    o.columns, o.rows);
}

display_widget::layout display_widget::layout_of(const QSize& pane) const
{
    // The annotation's RBW (or bin width) changes with the window and N.
    const double bin_hz = d_snap.sample_rate / double(std::max<std::size_t>(d_snap.bins, 1));
    return { pane,          d_view_lo,      d_view_hi,   d_snap.db_min,
             d_snap.db_max, columns_left(), column_hz(), (d_snap.enbw > 0 ? d_snap.enbw : 1.0) * bin_hz,
             d_snap.width,  d_snap.height };
}

QString display_widget::annotation() const
{
    if (d_snap.bins == 0)
        return {};
    const double bin_hz = d_snap.sample_rate / double(d_snap.bins);
    const double span = d_view_hi - d_view_lo;
    // The centre: the centre of the bin at the view's middle (the full band's
    // is the tuned frequency, N / 2's); centre and span to a bin, the RBW to three digits.
    const double bin = std::floor(((d_view_lo + d_view_hi) / 2 - band_left()) / bin_hz + 1e-9);
    const double centre = band_left() + (bin + 0.5) * bin_hz;
    QString text = "Centre " + frequency_label(centre, bin_hz, centre) + "   Span " + frequency_label(span, bin_hz, span);
    if (d_snap.enbw > 0) {
        const double rbw = d_snap.enbw * bin_hz;
        text += "   RBW " + frequency_label(rbw, rbw / 100, rbw) +
                QString(" (%1, N %2)").arg(QString::fromStdString(d_snap.window)).arg(d_snap.bins);
    } else {
        text += "   Bin " + frequency_label(bin_hz, bin_hz / 1000, bin_hz) + QString(" (N %1)").arg(d_snap.bins);
    }
    return text;
}

void display_widget::draw_spectrum_frame(const QRect& plot)
{
    const double range = d_snap.db_max - d_snap.db_min;
    const double span = d_view_hi - d_view_lo;
    auto y_of = [&](double db) { return plot.top() + (d_snap.db_max - db) / range * plot.height(); };
    auto x_of = [&](double hz) { return plot.left() + (hz - d_view_lo) / span * plot.width(); };
    const double db_step = nice_step(range, std::max(2, plot.height() / 40));

    // The empty plot, black with the grid (drawn in the pane's coordinates).
    d_grid_image = QImage(plot.size(), QImage::Format_RGB32);
    d_grid_image.fill(Qt::black);
    {
        QPainter p(&d_grid_image);
        p.translate(-plot.topLeft());
        p.setPen(QPen(grid, 1, Qt::DotLine));
        for (double db = std::ceil(d_snap.db_min / db_step) * db_step; db <= d_snap.db_max; db += db_step)
            p.drawLine(QPointF(plot.left(), y_of(db)), QPointF(plot.right(), y_of(db)));
        const double f_step = nice_step(span, std::max(2, plot.width() / 110));
        for (double f = std::ceil(d_view_lo / f_step) * f_step; f <= d_view_hi; f += f_step)
            p.drawLine(QPointF(x_of(f), plot.top()), QPointF(x_of(f), plot.bottom()));
        // The border, over the plot's outermost pixels: the picture's cells
        // and lines stay inside it.
        p.setPen(grid);
        p.drawRect(plot.adjusted(0, 0, -1, -1));
    }
    // Per row, the pixels inside the border that are not black; a row with
    // many (a horizontal grid line) is dense.
    d_grid_dots.clear();
    d_grid_row_dots.assign(1, 0);
    d_grid_dense_row.assign(std::size_t(plot.height()), false);
    for (int y = 0; y < plot.height(); ++y) {
        const QRgb* line = reinterpret_cast<const QRgb*>(d_grid_image.constScanLine(y));
        const std::size_t row_start = d_grid_dots.size();
        for (int x = 1; x + 1 < plot.width(); ++x)
            if (line[x] != qRgb(0, 0, 0))
                d_grid_dots.push_back(x);
        if (d_grid_dots.size() - row_start > grid_dense_dots) {
            d_grid_dots.resize(row_start);
            d_grid_dense_row[std::size_t(y)] = true;
        }
        d_grid_row_dots.push_back(d_grid_dots.size());
    }

    // Around it: the dB labels and the frequency axis.
    const qreal dpr = d_spectrum->devicePixelRatioF();
    d_spectrum_frame = QPixmap(d_spectrum->size() * dpr);
    d_spectrum_frame.setDevicePixelRatio(dpr);
    d_spectrum_frame.fill(background);
    QPainter p(&d_spectrum_frame);
    p.setFont(d_spectrum->font());
    p.setPen(Qt::lightGray);
    for (double db = std::ceil(d_snap.db_min / db_step) * db_step; db <= d_snap.db_max; db += db_step) {
        const QString label = QString::number(db, 'f', db_step < 1 ? 1 : 0);
        const int y = int(std::lround(y_of(db)));
        p.drawText(QRect(0, y - 8, plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter, label);
    }
    {
        // The persistence's colour bar: row y shows the colour position
        // t = 1 - (y + 0.5) / height, the colour of the cells of density
        // share f (of the peak cell's, or of every frame) where
        // t = density_position(f), labelled at shares 100 %, 10 %, 1 %, ...
        // (linear: every 25 %).
        const QRect bar = bar_of(plot);
        const auto& stops = std::find_if(colour_maps().begin(), colour_maps().end(),
                                         [this](const auto& m) { return m.first == d_colormap; })
                                ->second;
        for (int y = 0; y < bar.height(); ++y)
            p.fillRect(bar.left(), bar.top() + y, bar.width(), 1,
                       QColor(ramp(stops, 1.0 - (y + 0.5) / bar.height())));
        const bool linear = d_density == "linear";
        const double full = 1.0 / (1.0 - d_snap.decay);
        for (double share = 1.0; share > 1e-6; share = linear ? share - 0.25 : share / 10) {
            const double t = density_position(share);
            const int y = bar.top() + int(std::lround((1.0 - t) * bar.height()));
            // Frames: down to a cell hit about once in the decay's memory.
            if (t <= 0 || (d_density == "frames" && share * full < 1.0 / 8) || (y > bar.bottom() - 4 && share < 1))
                break;
            bar_label(p, bar, y, QString::number(share * 100, 'g', 3), d_spectrum->height());
        }
        bar_unit(p, bar, d_spectrum->width(), d_density == "frames" ? "% of frames" : "% of column peak");
    }
    p.save();
    p.translate(12, plot.center().y());
    p.rotate(-90);
    p.drawText(QRect(-40, -10, 80, 20), Qt::AlignCenter, d_level_unit);
    p.restore();
    p.drawText(QRect(plot.left(), 0, plot.width(), plot.top()), Qt::AlignLeft | Qt::AlignVCenter, annotation());
    paint_frequency_axis(p, plot);

    // Each plot pixel shows the histogram cell under its centre (the max of
    // the columns it spans).
    d_spectrum_columns = columns_under(plot.width());
    const auto sentinel = std::uint32_t(d_snap.width);
    for (auto& k : d_pixel_columns)
        k.resize(d_spectrum_columns.size());
    d_spectrum_wide = false;
    d_spectrum_span = 1;
    for (std::size_t x = 0; x < d_spectrum_columns.size(); ++x) {
        const auto [first, last] = d_spectrum_columns[x];
        // The first columns, the last one repeated where it spans fewer.
        for (std::size_t k = 0; k < d_pixel_columns.size(); ++k)
            d_pixel_columns[k][x] = first < last ? std::uint32_t(std::min(first + k, last - 1)) : sentinel;
        d_spectrum_wide |= last > first + d_pixel_columns.size();
        d_spectrum_span = std::max(d_spectrum_span, last - first);
    }
    d_histogram_rows.resize(std::size_t(plot.height()));
    const double h = double(d_snap.height);
    for (int y = 0; y < plot.height(); ++y)
        d_histogram_rows[std::size_t(y)] = std::size_t(
            std::clamp(std::floor((plot.height() - y - 0.5) / plot.height() * h), 0.0, h - 1));
}

void display_widget::put_plot_pixel(int x, int y, QRgb colour)
{
    if (x < 1 || y < 1 || x >= d_plot_size.width() - 1 || y >= d_plot_size.height() - 1)
        return;
    // bits(): d_plot_image is never shared, so no copy; scanLine() would check that at each pixel.
    reinterpret_cast<QRgb*>(d_plot_bits + std::ptrdiff_t(y) * d_plot_stride)[x] = colour;
    d_plot_drawn[std::size_t(y)].add(x, x + 1);
    d_plot_dirty[std::size_t(y)].add(x, x + 1);
}

void display_widget::draw_trace(const QRect& plot, const std::vector<float>& values, QRgb colour)
{
    // One point per column, at the centre of its frequency span, joined by
    // one-pixel lines (Bresenham); only the visible columns and one beyond
    // each edge, NaN (no data) breaking the line.
    // Locals: the pixel stores may alias members, which would be reloaded at each.
    const double db_min = d_snap.db_min, db_max = d_snap.db_max, view_lo = d_view_lo;
    const double range = db_max - db_min;
    const double span = d_view_hi - view_lo;
    const double col_hz = column_hz(), left = columns_left();
    const int w = plot.width(), h = plot.height();
    const std::size_t columns = std::min(d_snap.width, values.size());
    const auto first = std::size_t(std::clamp(std::floor((view_lo - left) / col_hz) - 1, 0.0, double(columns)));
    const auto last = std::size_t(std::clamp(std::ceil((d_view_hi - left) / col_hz) + 1, 0.0, double(columns)));
    const float* v = values.data();
    bool have_previous = false;
    double px = 0, py = 0;
    for (std::size_t c = first; c < last; ++c) {
        if (std::isnan(v[c])) {
            have_previous = false;
            continue;
        }
        const double x = (left + (double(c) + 0.5) * col_hz - view_lo) / span * w;
        const double y = (db_max - std::clamp(double(v[c]), db_min - range, db_max + range)) / range * h;
        double x0 = have_previous ? px : x, y0 = have_previous ? py : y, x1 = x, y1 = y;
        px = x;
        py = y;
        have_previous = true;
        // Clipped to the plot's columns (a point beyond an edge may lie far out when zoomed in).
        if (x1 < 0 || x0 > w)
            continue;
        if (x0 < 0) {
            y0 += (y1 - y0) * (0 - x0) / (x1 - x0);
            x0 = 0;
        }
        if (x1 > w) {
            y1 = y0 + (y1 - y0) * (w - x0) / (x1 - x0);
            x1 = w;
        }
        int ax = int(std::floor(x0)), ay = int(std::floor(y0));
        const int bx = int(std::floor(x1)), by = int(std::floor(y1));
        const int dx = std::abs(bx - ax), dy = -std::abs(by - ay);
        const int sx = ax < bx ? 1 : -1, sy = ay < by ? 1 : -1;
        for (int err = dx + dy;;) {
            put_plot_pixel(ax, ay, colour);
            if (ax == bx && ay == by)
                break;
            const int e2 = 2 * err;
            if (e2 >= dy) {
                err += dy;
                ax += sx;
            }
            if (e2 <= dx) {
                err += dx;
                ay += sy;
            }
        }
    }
}

QRegion display_widget::draw_spectrum_plot(const QRect& plot, bool whole)
{
    const int h = plot.height(), pixels = plot.width();
    const std::size_t w = d_snap.width;
    if (whole || d_plot_image.size() != plot.size()) {
        d_plot_image = d_grid_image.copy();
        d_plot_drawn.assign(std::size_t(h), pixel_run{});
    }
    d_plot_dirty.assign(std::size_t(h), pixel_run{});
    const bool have_histogram = d_snap.levels.size() >= w * d_snap.height && d_snap.lit_rows.size() >= d_snap.height;
    d_cell_index.resize(w + 1);
    d_cell_index[w] = 0; // the sentinel column: empty
    d_row_colours.resize(std::size_t(pixels));
    // Locals: the compiler cannot keep members in registers across the stores.
    std::uint16_t* index = d_cell_index.data();
    const column_span* spans = d_spectrum_columns.data();
    const std::uint32_t* column_0 = d_pixel_columns[0].data();
    const std::uint32_t* column_1 = d_pixel_columns[1].data();
    const std::uint32_t* column_2 = d_pixel_columns[2].data();
    const std::uint32_t* column_3 = d_pixel_columns[3].data();
    const QRgb* lut = d_count_lut.data(); // lut[0] = 0: empty
    QRgb* colours = d_row_colours.data();
    pixel_run seen; // the row's non-empty pixels, first to last
    std::size_t coloured_row = std::numeric_limits<std::size_t>::max();
    // Inside the border only (it covers the outermost pixels).
    for (int y = 1; have_histogram && y + 1 < h; ++y) {
        // Plot rows over the same histogram row share its colours.
        const std::size_t row = d_histogram_rows[std::size_t(y)];
        if (row != coloured_row) {
            // Each pixel's colour from the max level over its columns,
            // without branches where a pixel spans up to four.
            // Most rows of a persistence histogram are empty (not lit): their pixels are skipped.
            seen = {};
            if (d_snap.lit_rows[row]) {
                std::memcpy(index, &d_snap.levels[row * w], w * sizeof(std::uint16_t));
                if (d_spectrum_span <= 3) // W up to twice the plot's width: the first three suffice
                    for (int x = 1; x + 1 < pixels; ++x)
                        colours[x] = lut[std::max(std::max(index[column_0[x]], index[column_1[x]]),
                                                  index[column_2[x]])];
                else if (!d_spectrum_wide)
                    for (int x = 1; x + 1 < pixels; ++x)
                        colours[x] = lut[std::max(std::max(index[column_0[x]], index[column_1[x]]),
                                                  std::max(index[column_2[x]], index[column_3[x]]))];
                else
                    for (int x = 1; x + 1 < pixels; ++x) {
                        std::uint16_t i = 0;
                        for (std::size_t c = spans[x].first; c < spans[x].last; ++c)
                            i = std::max(i, index[c]);
                        colours[x] = lut[i];
                    }
                int a = 1, b = pixels - 1;
                while (a < b && colours[a] == 0)
                    ++a;
                while (b > a && colours[b - 1] == 0)
                    --b;
                seen.add(a, b);
            }
            coloured_row = row;
        }
        // Most cells are empty and show the grid: the row is rewritten
        // where it was or is more than the grid, each pixel its cell's
        // colour or the grid's (a select the compiler vectorizes); a row
        // that was and is only grid is not touched.
        auto& drawn = d_plot_drawn[std::size_t(y)];
        if (seen.empty() && drawn.empty())
            continue;
        pixel_run rewrite = drawn;
        if (!seen.empty())
            rewrite.add(seen.first, seen.last);
        QRgb* __restrict line = reinterpret_cast<QRgb*>(d_plot_image.scanLine(y));
        const QRgb* __restrict grid_line = reinterpret_cast<const QRgb*>(d_grid_image.constScanLine(y));
        const QRgb* __restrict cell_colours = colours;
        const auto dots = d_grid_dots.begin() + std::ptrdiff_t(d_grid_row_dots[std::size_t(y)]);
        const auto dots_end = d_grid_dots.begin() + std::ptrdiff_t(d_grid_row_dots[std::size_t(y) + 1]);
        if (seen.empty()) {
            std::memcpy(line + rewrite.first, grid_line + rewrite.first,
                        std::size_t(rewrite.last - rewrite.first) * sizeof(QRgb));
        } else if (d_grid_dense_row[std::size_t(y)]) {
            for (int x = rewrite.first; x < rewrite.last; ++x) {
                // Both loaded: a select, not a branch.
                const QRgb cell = cell_colours[x], under = grid_line[x];
                line[x] = cell != 0 ? cell : under;
            }
        } else {
            // A row black but for a few grid dots: the cells over black
            // (no read of the grid's row), then the dots under empty cells.
            const QRgb black = qRgb(0, 0, 0);
            for (int x = rewrite.first; x < rewrite.last; ++x) {
                const QRgb cell = cell_colours[x];
                line[x] = cell != 0 ? cell : black;
            }
            for (auto dot = dots; dot != dots_end; ++dot)
                if (*dot >= rewrite.first && *dot < rewrite.last && cell_colours[*dot] == 0)
                    line[*dot] = grid_line[*dot];
        }
        d_plot_dirty[std::size_t(y)] = rewrite;
        drawn = seen;
    }
    if (!have_histogram) // no cells: every row back to the grid
        for (int y = 0; y < h; ++y) {
            auto& drawn = d_plot_drawn[std::size_t(y)];
            if (drawn.empty())
                continue;
            std::memcpy(d_plot_image.scanLine(y) + drawn.first * int(sizeof(QRgb)),
                        d_grid_image.constScanLine(y) + drawn.first * int(sizeof(QRgb)),
                        std::size_t(drawn.last - drawn.first) * sizeof(QRgb));
            d_plot_dirty[std::size_t(y)] = drawn;
            drawn = {};
        }
    d_plot_bits = d_plot_image.bits();
    d_plot_stride = d_plot_image.bytesPerLine();
    d_plot_size = d_plot_image.size();
    if (d_snap.max_hold)
        draw_trace(plot, d_snap.max_hold_trace, max_hold_colour.rgb());
    if (d_snap.min_hold)
        draw_trace(plot, d_snap.min_hold_trace, min_hold_colour.rgb());
    if (d_show_average)
        draw_trace(plot, d_snap.average, average_colour.rgb());
    // Each marker: an X of 7 pixels on the line at its frequency.
    const std::vector<float>* line = marker_line();
    for (std::size_t m = 0; m < d_markers.size(); ++m) {
        const double hz = d_markers[m];
        std::size_t c = 0;
        if (!line || !marker_column(m, c) || std::isnan((*line)[c]))
            continue;
        const int x = int(std::floor((hz - d_view_lo) / (d_view_hi - d_view_lo) * plot.width()));
        const int y = int(std::floor((d_snap.db_max - (*line)[c]) / (d_snap.db_max - d_snap.db_min) * plot.height()));
        for (int k = -3; k <= 3; ++k) {
            put_plot_pixel(x + k, y + k, qRgb(255, 255, 255));
            put_plot_pixel(x + k, y - k, qRgb(255, 255, 255));
        }
    }

    // The changed pixels as a few rectangles: bands of rows, each as wide as
    // its rows' changes (a region of one rectangle per row costs more to
    // repaint and flush than the unchanged pixels it leaves out).
    constexpr int band = 16;
    QRegion changed;
    for (int y0 = 0; y0 < h; y0 += band) {
        pixel_run across;
        int top = -1, bottom = -1;
        for (int y = y0; y < std::min(h, y0 + band); ++y) {
            const auto& d = d_plot_dirty[std::size_t(y)];
            if (d.empty())
                continue;
            across.add(d.first, d.last);
            top = top < 0 ? y : top;
            bottom = y;
        }
        if (!across.empty())
            changed += QRect(plot.left() + across.first, plot.top() + top, across.last - across.first, bottom - top + 1);
    }
    return changed;
}

void display_widget::paint_spectrum(QPainter& p, const QRect& plot, bool frame, const QRegion& dirty)
{
    if (d_snap.width == 0) {
        p.fillRect(d_spectrum->rect(), background);
        p.fillRect(plot, Qt::black);
        return;
    }
    const layout l = layout_of(d_spectrum->size());
    if (l != d_spectrum_layout) {
        draw_spectrum_frame(plot);
        d_spectrum_layout = l;
        draw_spectrum_plot(plot, true);
    }
    if (frame)
        p.drawPixmap(0, 0, d_spectrum_frame);
    // Only the dirty rectangles: copies of the picture, already in the
    // window's pixel format (RGB32), so that no conversion happens.
    for (const QRect& r : dirty & plot)
        p.drawImage(r.topLeft(), d_plot_image, r.translated(-plot.topLeft()));
}

void display_widget::draw_waterfall_row(std::size_t age, int y)
{
    auto* line = reinterpret_cast<QRgb*>(d_waterfall_image.scanLine(y));
    const auto pixels = d_waterfall_columns.size();
    if (age >= d_wf_filled) {
        std::fill(line, line + pixels, qRgb(0, 0, 0));
        return;
    }
    const float* row = &d_wf_rows[((d_wf_head + age) % d_wf_capacity) * d_snap.width];
    for (std::size_t x = 0; x < pixels; ++x) {
        const auto span = d_waterfall_columns[x];
        // The max that is a number (NaN: no data yet).
        float v = std::numeric_limits<float>::quiet_NaN();
        for (std::size_t c = span.first; c < span.last; ++c)
            v = row[c] > v || std::isnan(v) ? row[c] : v;
        line[x] = waterfall_colour(v);
    }
}

bool display_widget::draw_waterfall_plot(const QRect& plot)
{
    // One history row per screen row, newest at the top: the image is a
    // ring of them, so that a new row colour-maps one line, not the plot.
    const int h = plot.height();
    const layout l = layout_of(d_waterfall->size());
    const std::size_t fresh = d_wf_added - d_wf_drawn;
    const bool whole = l != d_waterfall_layout || fresh >= std::size_t(h);
    if (whole) {
        if (d_waterfall_image.size() != plot.size())
            d_waterfall_image = QImage(plot.size(), QImage::Format_RGB32);
        d_waterfall_columns = columns_under(plot.width());
        d_waterfall_layout = l;
        d_wf_image_head = 0;
        for (int y = 0; y < h; ++y)
            draw_waterfall_row(std::size_t(y), y);
    } else {
        for (std::size_t age = fresh; age-- > 0;) {
            d_wf_image_head = (d_wf_image_head + h - 1) % h;
            draw_waterfall_row(age, d_wf_image_head);
        }
    }
    d_wf_drawn = d_wf_added;
    return whole;
}

void display_widget::paint_waterfall(QPainter& p, const QRect& plot, bool frame, const QRegion& dirty)
{
    if (frame) {
        p.fillRect(d_waterfall->rect(), background);
        p.setPen(Qt::lightGray);
        p.drawText(QRect(0, plot.top(), plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter, "now");
        paint_time_axis(p, plot);
        const QRect bar = bar_of(plot);
        if (dirty.intersects(bar.adjusted(0, 0, d_waterfall->width(), 0)) && d_snap.db_max > d_snap.db_min) {
            // Row y: the colour of the level at its centre.
            const double range = d_snap.db_max - d_snap.db_min;
            for (int y = 0; y < bar.height(); ++y)
                p.fillRect(bar.left(), bar.top() + y, bar.width(), 1,
                           QColor(waterfall_colour(float(d_snap.db_max - (y + 0.5) / bar.height() * range))));
            const double step = nice_step(range, std::max(2, bar.height() / 30));
            for (double db = std::ceil(d_snap.db_min / step) * step; db <= d_snap.db_max; db += step) {
                const int y = bar.top() + int(std::lround((d_snap.db_max - db) / range * bar.height()));
                bar_label(p, bar, y, QString::number(db, 'f', step < 1 ? 1 : 0), d_waterfall->height());
            }
            bar_unit(p, bar, d_waterfall->width(), level_unit());
        }
    }
    if (d_snap.width == 0 || d_wf_filled == 0) {
        p.fillRect(plot, Qt::black);
        return;
    }
    if (layout_of(d_waterfall->size()) != d_waterfall_layout || d_wf_added != d_wf_drawn)
        draw_waterfall_plot(plot);
    // Screen row y shows ring row (head + y) mod h: the dirty rectangles,
    // each in at most two pieces.
    const int h = plot.height();
    for (const QRect& r : dirty & plot) {
        const QRect local = r.translated(-plot.topLeft());
        for (int y = local.top(); y <= local.bottom();) {
            const int ring_row = (d_wf_image_head + y) % h;
            const int rows = std::min(local.bottom() + 1 - y, h - ring_row);
            p.drawImage(QPoint(r.left(), plot.top() + y), d_waterfall_image,
                        QRect(local.left(), ring_row, local.width(), rows));
            y += rows;
        }
    }
}

std::vector<QString> display_widget::time_labels(int plot_height) const
{
    // Every 60 pixels, the row's newest frame before the newest frame shown:
    // in seconds of signal where a frame's length is known, else in frames.
    // Two significant digits at the first label: as rows scroll, the age at
    // a given height stays, so the labels (and the margin) seldom change.
    std::vector<QString> labels;
    int decimals = 0;
    for (int y = 60; y + 8 < plot_height && std::size_t(y) < d_wf_filled; y += 60) {
        const std::size_t ring = (d_wf_head + std::size_t(y)) % d_wf_capacity;
        const double frames = double(d_frames_seen - d_wf_frames[ring]);
        if (d_snap.frame_seconds <= 0) {
            labels.push_back(QString::number(-frames, 'f', 0) + " fr");
            continue;
        }
        const double seconds = frames * d_snap.frame_seconds;
        if (labels.empty() && seconds > 0)
            decimals = std::clamp(1 - int(std::floor(std::log10(seconds))), 0, 4);
        labels.push_back(QString::number(-seconds, 'f', decimals) + " s");
    }
    return labels;
}

void display_widget::paint_time_axis(QPainter& p, const QRect& plot)
{
    d_time_labels = time_labels(plot.height());
    p.save();
    QFont small = p.font(); // "-12345 fr" fits the margin
    small.setPointSizeF(small.pointSizeF() * 0.8);
    p.setFont(small);
    for (std::size_t k = 0; k < d_time_labels.size(); ++k) {
        const int y = plot.top() + 60 * int(k + 1);
        p.drawLine(plot.left() - 4, y, plot.left() - 1, y);
        p.drawText(QRect(0, y - 8, plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter, d_time_labels[k]);
    }
    p.restore();
}

void display_widget::set_keymap(const std::string& name)
{
    if (name != "gpufft" && name != "fosphor")
        throw ::gpufft::error("keymap: unknown key map \"" + name + "\" (known: gpufft, fosphor)");
    d_keymap = name;
    const QSignalBlocker block(d_keymap_box);
    d_keymap_box->setCurrentText(QString::fromStdString(name));
    if (help_shown())
        show_help(true); // the new map's keys
}

bool display_widget::help_shown() const { return d_help->isVisible(); }

const std::vector<float>* display_widget::marker_line() const
{
    if (d_show_average && d_snap.average.size() == d_snap.width)
        return &d_snap.average;
    if (d_snap.max_hold && d_snap.max_hold_trace.size() == d_snap.width)
        return &d_snap.max_hold_trace;
    return nullptr;
}

::gpufft::display_config display_widget::snapshot_columns() const
{
    ::gpufft::display_config c;
    c.n = std::max<std::size_t>(d_snap.bins, 1);
    c.width = std::max<std::size_t>(d_snap.width, 1);
    c.bin_begin = d_snap.bin_begin;
    c.bin_end = std::max(d_snap.bin_end, d_snap.bin_begin + 1);
    return c;
}

double display_widget::bin_hz() const { return d_snap.sample_rate / double(std::max<std::size_t>(d_snap.bins, 1)); }

double display_widget::bin_centre(std::size_t bin) const { return band_left() + (double(bin) + 0.5) * bin_hz(); }

std::pair<double, bool> display_widget::marker_at(double hz) const
{
    std::size_t c = 0;
    if (d_snap.width == 0 || !column_at(hz, c))
        return { hz, false };
    const auto [b0, b1] = ::gpufft::display_column_bins(snapshot_columns(), c);
    std::size_t bin = 0;
    if (d_feed->newest_peak_bin(b0, b1, bin))
        return { bin_centre(bin), true };
    return { columns_left() + (double(c) + 0.5) * column_hz(), false };
}

void display_widget::set_marker(std::size_t index, double hz)
{
    const auto [at, on_bin] = marker_at(hz);
    d_markers[index] = at;
    d_marker_on_bin[index] = on_bin;
}

bool display_widget::marker_column(std::size_t index, std::size_t& column) const
{
    if (!d_marker_on_bin[index])
        return column_at(d_markers[index], column);
    // The column whose value the marker's bin is part of.
    const double bin = std::floor((d_markers[index] - band_left()) / bin_hz());
    if (d_snap.width == 0 || !(bin >= double(d_snap.bin_begin) && bin < double(d_snap.bin_end)))
        return false;
    column = ::gpufft::display_bin_column(snapshot_columns(), std::size_t(bin));
    return true;
}

double display_widget::marker_resolution(std::size_t index) const
{
    return d_marker_on_bin[index] ? bin_hz() : column_hz();
}

bool display_widget::column_at(double hz, std::size_t& column) const
{
    const double c = std::floor((hz - columns_left()) / column_hz());
    if (!(c >= 0 && c < double(d_snap.width)))
        return false;
    column = std::size_t(c);
    return true;
}

std::pair<std::size_t, std::size_t> display_widget::visible_columns() const
{
    const double col_hz = column_hz(), left = columns_left();
    const auto first = std::size_t(std::clamp(std::ceil((d_view_lo - left) / col_hz - 0.5), 0.0, double(d_snap.width)));
    const auto last = std::size_t(std::clamp(std::floor((d_view_hi - left) / col_hz - 0.5) + 1, 0.0, double(d_snap.width)));
    return { first, std::max(first, last) };
}

int display_widget::marker_near(int x, const QRect& plot) const
{
    // The nearest mark within its X's half width (3 pixels) and one more.
    int best = -1, best_dx = 5;
    for (std::size_t m = 0; m < d_markers.size(); ++m) {
        const int mx = plot.left() + int(std::floor((d_markers[m] - d_view_lo) / (d_view_hi - d_view_lo) * plot.width()));
        if (std::abs(mx - x) < best_dx) {
            best_dx = std::abs(mx - x);
            best = int(m);
        }
    }
    return best;
}

void display_widget::move_marker(std::size_t index, double hz)
{
    if (index >= d_markers.size())
        return;
    set_marker(index, hz);
    markers_changed();
}

void display_widget::save_picture(const QString& path)
{
    if (!grab().save(path, "PNG"))
        throw ::gpufft::error("cannot write the picture to " + path.toStdString());
}

void display_widget::save_traces(const QString& path) const
{
    struct trace {
        const char* name;
        const std::vector<float>* values;
    };
    std::vector<trace> traces;
    if (d_show_average && d_snap.average_mode != "off")
        traces.push_back({ "average", &d_snap.average });
    if (d_snap.max_hold)
        traces.push_back({ "max_hold", &d_snap.max_hold_trace });
    if (d_snap.min_hold)
        traces.push_back({ "min_hold", &d_snap.min_hold_trace });
    std::ostringstream out;
    out.imbue(std::locale::classic());
    // Each row a display column: the centre of its bins and their width (the bins whose max it shows).
    out << "frequency_hz,width_hz";
    for (const auto& t : traces)
        out << ',' << t.name << '_' << d_level_unit.toStdString();
    out << '\n';
    const auto [first, last] = visible_columns();
    const ::gpufft::display_config columns = snapshot_columns();
    for (std::size_t c = first; c < last; ++c) {
        const auto [b0, b1] = ::gpufft::display_column_bins(columns, c);
        // 17 and 9 significant digits: a double and a float read back exactly.
        out.precision(17);
        out << band_left() + double(b0 + b1) / 2 * bin_hz() << ',' << double(b1 - b0) * bin_hz();
        out.precision(9);
        for (const auto& t : traces) {
            out << ',';
            if (c < t.values->size() && !std::isnan((*t.values)[c]))
                out << (*t.values)[c];
        }
        out << '\n';
    }
    QSaveFile file(path);
    const std::string text = out.str();
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), qint64(text.size())) != qint64(text.size()) ||
        !file.commit())
        throw ::gpufft::error("cannot write the traces to " + path.toStdString() + ": " + file.errorString().toStdString());
}

void display_widget::save_with_dialog(bool picture)
{
    const QString path = QFileDialog::getSaveFileName(this, picture ? "Save the picture" : "Save the traces", QString(),
                                                      picture ? "PNG (*.png)" : "CSV (*.csv)");
    if (path.isEmpty())
        return;
    try {
        if (picture)
            save_picture(path);
        else
            save_traces(path);
    } catch (const ::gpufft::error& e) {
        d_readout_label->set_text(e.what());
    }
}

void display_widget::place_marker(double hz)
{
    if (d_markers.size() == 4) {
        d_markers.erase(d_markers.begin());
        d_marker_on_bin.erase(d_marker_on_bin.begin());
    }
    d_markers.push_back(hz);
    d_marker_on_bin.push_back(false);
    set_marker(d_markers.size() - 1, hz);
    markers_changed();
}

void display_widget::clear_markers()
{
    d_markers.clear();
    d_marker_on_bin.clear();
    markers_changed();
}

bool display_widget::marker_peak()
{
    const std::vector<float>* line = marker_line();
    if (!line)
        return false;
    const double col_hz = column_hz(), left = columns_left();
    const auto [first, last] = visible_columns();
    std::size_t best = last;
    for (std::size_t c = first; c < last; ++c)
        if (!std::isnan((*line)[c]) && (best == last || (*line)[c] > (*line)[best]))
            best = c;
    if (best == last)
        return false;
    if (d_markers.empty()) {
        d_markers.push_back(0);
        d_marker_on_bin.push_back(false);
    }
    // The column's centre: marker_at finds the column again, then its bin.
    set_marker(d_markers.size() - 1, left + (double(best) + 0.5) * col_hz);
    markers_changed();
    return true;
}

bool display_widget::marker_next_peak()
{
    const std::vector<float>* line = marker_line();
    std::size_t at = 0;
    if (!line || d_markers.empty() || !marker_column(d_markers.size() - 1, at) || std::isnan((*line)[at]))
        return false;
    // The highest local maximum of the line in the view below the marker's level.
    const std::vector<float>& v = *line;
    const float level = v[at];
    const double col_hz = column_hz(), left = columns_left();
    const auto [first, last] = visible_columns();
    std::size_t best = last;
    for (std::size_t c = first; c < last; ++c) {
        const bool peak = !std::isnan(v[c]) && v[c] < level && (c == first || !(v[c - 1] > v[c])) &&
                          (c + 1 == last || !(v[c + 1] > v[c]));
        if (peak && (best == last || v[c] > v[best]))
            best = c;
    }
    if (best == last)
        return false;
    set_marker(d_markers.size() - 1, left + (double(best) + 0.5) * col_hz);
    markers_changed();
    return true;
}

QString display_widget::marker_table() const
{
    // "M1 100.4005 MHz -20.0 dBFS   M2 100.2000 MHz -30.0 dBFS (M2-M1 -200.5 kHz, -10.0 dB)": a marker on
    // a bin with the bin width's digits; one on a display column (no bin known) with the column's and its width.
    const std::vector<float>* line = marker_line();
    auto level_at = [&](std::size_t m) {
        std::size_t c = 0;
        return line && marker_column(m, c) ? double((*line)[c]) : std::nan("");
    };
    QString table;
    for (std::size_t m = 0; m < d_markers.size(); ++m) {
        const double hz = d_markers[m], db = level_at(m), resolution = marker_resolution(m);
        table += QString("%1M%2 %3 %4").arg(m ? "   " : "").arg(m + 1).arg(frequency_label(hz, resolution, hz),
                                              std::isnan(db) ? QString("no data")
                                                             : QString::number(db, 'f', 1) + " " + level_unit());
        if (!d_marker_on_bin[m])
            table += " (column of " + frequency_label(resolution, resolution / 100, resolution) + ")";
        if (m > 0) {
            const double dhz = hz - d_markers[0], ddb = db - level_at(0);
            const double both = std::max(resolution, marker_resolution(0));
            table += QString(" (M%1-M1 %2, %3 dB)")
                         .arg(m + 1)
                         .arg(frequency_label(dhz, both, std::max(std::abs(dhz), both)),
                              std::isnan(ddb) ? QString("no data") : QString::number(ddb, 'f', 1));
        }
    }
    return table;
}

void display_widget::markers_changed()
{
    d_marker_label->set_text(marker_table());
    d_marker_label->setVisible(!d_markers.empty());
    d_spectrum_layout = {}; // the marks are in the picture: drawn anew
    d_spectrum->update();
}

void display_widget::show_help(bool on)
{
    if (!on) {
        d_help->hide();
        return;
    }
    const bool fosphor = d_keymap == "fosphor";
    const std::vector<std::pair<const char*, const char*>> keys_gpufft = {
        { "+ / -", "zoom in / out" },
        { "Left / Right", "pan" },
        { "0, Home", "whole band" },
        { "Up / Down", "reference level +5 / -5 dB" },
        { "Page Up / Down", "range +10 / -10 dB" },
        { "F", "freeze" },
        { "A", "average line" },
        { "P", "peak (max) hold" },
        { "M", "min hold" },
        { "C", "next colour map" },
        { "K / N / X", "marker to peak / next peak / clear" },
        { "Ctrl+S / Ctrl+E", "save the picture (PNG) / the lines (CSV)" },
        { "?", "this help" },
    };
    const std::vector<std::pair<const char*, const char*>> keys_fosphor = {
        { "Space", "freeze" },
        { "Up / Down", "reference level +5 / -5 dB" },
        { "Left / Right", "dB per division down / up (1-2-5)" },
        { "Z", "zoom on / off" },
        { "W / S", "zoom width half / double" },
        { "A / D", "zoom centre left / right" },
        { "+ / -, 0, Home", "zoom, whole band" },
        { "Page Up / Down", "range +10 / -10 dB" },
        { "P, M, C", "peak hold, min hold, colour map" },
        { "K / N / X", "marker to peak / next peak / clear" },
        { "Ctrl+S / Ctrl+E", "save the picture (PNG) / the lines (CSV)" },
        { "?", "this help" },
    };
    QString html = QString("<b>Keys (%1)</b><table>").arg(QString::fromStdString(d_keymap));
    for (const auto& [k, what] : fosphor ? keys_fosphor : keys_gpufft)
        html += QString("<tr><td><b>%1</b>&nbsp;&nbsp;</td><td>%2</td></tr>").arg(k, what);
    html += "</table>Wheel: zoom; drag: pan (on a marker: move it); click: send the frequency; right click: marker; "
            "hover: readout.";
    d_help->setText(html);
    d_help->adjustSize();
    d_help->move(spectrum_plot_rect().topLeft() + QPoint(20, 20));
    d_help->raise();
    d_help->show();
}

bool display_widget::fosphor_key(QKeyEvent* e)
{
    // The zoom of Z, W, S, A, D: centre and width, shown while on.
    auto apply_zoom = [this] {
        if (d_zoom_width <= 0) {
            d_zoom_width = (band_right() - band_left()) / 4;
            d_zoom_centre = (d_view_lo + d_view_hi) / 2;
        }
        if (!d_zoomed)
            return;
        set_view(d_zoom_centre - d_zoom_width / 2, d_zoom_centre + d_zoom_width / 2);
        // As the view was clamped to the band.
        d_zoom_centre = (d_view_lo + d_view_hi) / 2;
        d_zoom_width = d_view_hi - d_view_lo;
    };
    switch (e->key()) {
    case Qt::Key_Space:
        set_frozen(!d_frozen);
        return true;
    case Qt::Key_Left:
    case Qt::Key_Right: {
        // Ten divisions; the next 1-2-5 step below or above.
        const double per = d_range_box->value() / 10;
        const bool up = e->key() == Qt::Key_Right;
        double next = per;
        const double decade = std::floor(std::log10(per));
        for (double d = decade - 1; d <= decade + 1; ++d)
            for (double m : { 1.0, 2.0, 5.0 }) {
                const double v = m * std::pow(10.0, d);
                if (up ? v > per * 1.0001 && (next == per || v < next) : v < per * 0.9999 && (next == per || v > next))
                    next = v;
            }
        d_range_box->setValue(10 * next);
        return true;
    }
    case Qt::Key_Z:
        d_zoomed = !d_zoomed;
        if (d_zoomed)
            apply_zoom();
        else
            set_view(band_left(), band_right());
        return true;
    case Qt::Key_W:
    case Qt::Key_S:
        apply_zoom();
        d_zoom_width *= e->key() == Qt::Key_W ? 0.5 : 2.0;
        apply_zoom();
        return true;
    case Qt::Key_A:
    case Qt::Key_D:
        apply_zoom();
        d_zoom_centre += (e->key() == Qt::Key_A ? -0.1 : 0.1) * d_zoom_width;
        apply_zoom();
        return true;
    default:
        return false;
    }
}

void display_widget::keyPressEvent(QKeyEvent* e)
{
    if (e->modifiers() & Qt::ControlModifier && (e->key() == Qt::Key_S || e->key() == Qt::Key_E)) {
        save_with_dialog(e->key() == Qt::Key_S);
        e->accept();
        return;
    }
    if (e->text() == "?") {
        show_help(!help_shown());
        e->accept();
        return;
    }
    if (d_keymap == "fosphor" && fosphor_key(e)) {
        e->accept();
        return;
    }
    const double centre = (d_view_lo + d_view_hi) / 2;
    switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoom(2.0, centre);
        break;
    case Qt::Key_Minus:
        zoom(0.5, centre);
        break;
    case Qt::Key_Left:
        pan(-0.1);
        break;
    case Qt::Key_Right:
        pan(0.1);
        break;
    case Qt::Key_0:
    case Qt::Key_Home:
        set_view(band_left(), band_right());
        break;
    case Qt::Key_Up:
    case Qt::Key_Down:
        d_ref_box->setValue(d_ref_box->value() + (e->key() == Qt::Key_Up ? 5 : -5));
        break;
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
        d_range_box->setValue(d_range_box->value() + (e->key() == Qt::Key_PageUp ? 10 : -10));
        break;
    case Qt::Key_F:
        set_frozen(!d_frozen);
        break;
    case Qt::Key_A:
        set_show_average(!d_show_average);
        break;
    case Qt::Key_P:
        d_peak_box->toggle();
        break;
    case Qt::Key_M:
        d_min_box->toggle();
        break;
    case Qt::Key_K:
        marker_peak();
        break;
    case Qt::Key_N:
        marker_next_peak();
        break;
    case Qt::Key_X:
        clear_markers();
        break;
    case Qt::Key_C: {
        const auto& names = colormap_names();
        const auto at = std::find(names.begin(), names.end(), d_colormap) - names.begin();
        set_colormap(names[std::size_t(at + 1) % names.size()]);
        break;
    }
    default:
        QWidget::keyPressEvent(e);
        return;
    }
    e->accept();
}

} // namespace gr::gpufft
