#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
The screenshots of docs/display.md: gpufft.display_sink_c beside gr-fosphor's
qt_sink_c and the QT GUI frequency and waterfall sinks, all fed the same
signal (the demo signal of gpufft.iq_replay_source: 2.4 MS/s around
100 MHz, N = 1024, gr-fosphor's fixed size, unless said), each in its own
window on one Xvfb screen (gr-fosphor draws with OpenGL: Mesa's llvmpipe
there, its OpenCL on PoCL), grabbed from the X server after a few seconds.

    PYTHONPATH=build/test_modules /usr/bin/python3 scripts/display-screenshots.py docs

writes display_three_way.png (ours and the QT GUI sinks at N = 2048, ours
with a peak marker, the two QT GUI sinks one above the other, gr-fosphor
at its 1024), display_vs_fosphor.png and display_vs_stock.png (each
window's picture side by side, labelled), display_density.png (ours with the
density log, linear and frames), display_demo.png (ours alone: the
README's picture) and display_zoom.png (ours in the viridis map, zoomed 4x
and panned by keys to 100.0 - 100.6 MHz). A window that cannot be shown (gr-fosphor
without OpenGL or OpenCL) is left out and its error printed.
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "apps"))
from display_bench import start_xvfb  # noqa: E402

FS, FC, N = 2.4e6, 100e6, 1024
SIZE = (1024, 700)
ZOOMED = "ours (viridis, zoomed)"
# The three side by side at the size the instrument's comparison is made at
# (docs/display.md); gr-fosphor's FFT size is fixed at 1024.
N_THREE = 2048
OURS_THREE = "ours (N 2048, peak marker)"
STOCK_THREE = ("QT GUI frequency sink (N 2048)", "QT GUI waterfall sink (N 2048)")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: display-screenshots.py OUT_DIR")
    out_dir = sys.argv[1]
    if not os.path.isdir(out_dir):
        print("display-screenshots.py: %s is not a directory" % out_dir, file=sys.stderr)
        sys.exit(2)
    xvfb, display = start_xvfb()
    os.environ["DISPLAY"] = display
    os.environ.pop("QT_QPA_PLATFORM", None)
    try:
        shots, _keep = run()  # the application and its widgets kept until the exit below
        compose(shots, [OURS_THREE, STOCK_THREE, "gr-fosphor"], os.path.join(out_dir, "display_three_way.png"))
        compose(shots, ["ours (log density)", "gr-fosphor"], os.path.join(out_dir, "display_vs_fosphor.png"))
        compose(shots, ["ours (log density)", "QT GUI frequency sink", "QT GUI waterfall sink"],
                os.path.join(out_dir, "display_vs_stock.png"))
        compose(shots, ["ours (log density)", "ours (linear density)", "ours (frames density)"],
                os.path.join(out_dir, "display_density.png"))
        shots["ours (log density)"].save(os.path.join(out_dir, "display_demo.png"))
        shots[ZOOMED].save(os.path.join(out_dir, "display_zoom.png"))
    finally:
        xvfb.terminate()
    # Without tearing the widgets down: deleting them after the flowgraph here crashed.
    sys.stdout.flush()
    os._exit(0)


def run():
    from PyQt5 import Qt, QtCore, QtTest
    from gnuradio import gpufft, gr, qtgui
    from gnuradio.fft import window
    import sip

    app = Qt.QApplication(sys.argv[:1])
    tb = gr.top_block()
    src = gpufft.iq_replay_source("", "auto", FS, throttle=True, repeat=True)
    windows = {}

    def show(widget, title, at, size=SIZE):
        w = widget if isinstance(widget, Qt.QWidget) else sip.wrapinstance(widget, Qt.QWidget)
        w.setWindowTitle(title)
        w.resize(*size)
        w.move(*at)
        w.show()
        windows[title] = w

    # The Xvfb screen (no window manager) is 1280 x 1024: one window shown
    # at a time, drawn whole when shown, then grabbed.
    for k, density in enumerate(("log", "linear", "frames")):
        sink = gpufft.display_sink_c(N, FS, FC, "simd", db_range=100.0, density=density)
        tb.connect(src, sink)
        show(sink.pyqwidget(), "ours (%s density)" % density, (0, 0))
    sink = gpufft.display_sink_c(N, FS, FC, "simd", db_range=100.0, colormap="viridis")
    tb.connect(src, sink)
    show(sink.pyqwidget(), ZOOMED, (0, 0))
    # + zooms 2x around the view's centre, Right pans a tenth of the view.
    for key in [QtCore.Qt.Key_Plus] * 2 + [QtCore.Qt.Key_Right] * 5:
        QtTest.QTest.keyClick(windows[ZOOMED], key)
    def stock_sinks(n):
        freq = qtgui.freq_sink_c(n, window.WIN_BLACKMAN_hARRIS, FC, FS, "", 1, None)
        fall = qtgui.waterfall_sink_c(n, window.WIN_BLACKMAN_hARRIS, FC, FS, "", 1, None)
        for s in (freq, fall):
            s.set_update_time(1.0 / 30)
            tb.connect(src, s)
        freq.set_y_axis(-100, 0)
        return freq, fall

    freq, fall = stock_sinks(N)
    show(freq.qwidget(), "QT GUI frequency sink", (0, 0))
    show(fall.qwidget(), "QT GUI waterfall sink", (0, 0))
    sink = gpufft.display_sink_c(N_THREE, FS, FC, "simd", db_range=100.0)
    tb.connect(src, sink)
    show(sink.pyqwidget(), OURS_THREE, (0, 0))
    # The two QT GUI sinks stacked take the place of one display.
    for title, s in zip(STOCK_THREE, stock_sinks(N_THREE)):
        show(s.qwidget(), title, (0, 0), (SIZE[0], SIZE[1] // 2))
    try:
        from gnuradio import fosphor

        fos = fosphor.qt_sink_c()
        fos.set_frequency_range(FC, FS)
        tb.connect(src, fos)
        show(fos.pyqwidget(), "gr-fosphor", (0, 0))
    except Exception as e:  # no OpenGL or OpenCL: said, and left out
        print("display-screenshots.py: gr-fosphor not shown: %s" % e, file=sys.stderr)
    # gr-fosphor (shown last, on top) stays shown until it is grabbed, first:
    # shown again after a hide, it drew nothing here.
    for title, w in windows.items():
        if title != "gr-fosphor":
            w.hide()
    tb.start()
    shots = {}
    screen = app.primaryScreen()
    for title, w in sorted(windows.items(), key=lambda tw: tw[0] != "gr-fosphor"):
        w.show()
        settle = time.time() + 8.0  # the persistences and waterfalls fill
        while time.time() < settle:
            app.processEvents(QtCore.QEventLoop.AllEvents, 50)
            if title == OURS_THREE and settle - time.time() < 1.0 and not w.property("marker_table"):
                QtTest.QTest.keyClick(w, QtCore.Qt.Key_K)  # a marker on the strongest tone, its level in the table
        # From the X server: what the window shows, OpenGL included.
        g = w.geometry()
        shots[title] = screen.grabWindow(0, g.x(), g.y(), g.width(), g.height()).toImage()
        w.hide()
    tb.stop()
    tb.wait()
    return shots, (app, tb, windows)


def compose(shots, columns, path):
    """The pictures side by side, labelled; a column given as a tuple of
    titles stacks its pictures, each labelled."""
    from PyQt5 import Qt

    label = 24
    columns = [[(t, shots[t]) for t in (c if isinstance(c, tuple) else (c,)) if t in shots] for c in columns]
    columns = [c for c in columns if c]
    if not columns:
        return
    width = sum(max(i.width() for _, i in c) for c in columns) + 8 * (len(columns) - 1)
    height = max(sum(i.height() + label for _, i in c) for c in columns)
    out = Qt.QImage(width, height, Qt.QImage.Format_RGB32)
    out.fill(Qt.QColor(255, 255, 255))
    p = Qt.QPainter(out)
    x = 0
    for column in columns:
        y = 0
        for title, img in column:
            p.drawText(Qt.QRect(x, y, img.width(), label), Qt.Qt.AlignCenter, title)
            p.drawImage(x, y + label, img)
            y += img.height() + label
        x += max(i.width() for _, i in column) + 8
    p.end()
    out.save(path)
    print(path)


if __name__ == "__main__":
    main()
