#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
Live displays side by side, headless: how fast each takes complex input with
every frame going into the display while it draws 30 frames per second, and
its CPU share at 2.4 MS/s (an RTL-SDR's rate).

Cases (--cases, default all):

  source        the source below into a null sink, throttled run only: the
                CPU share every case's figure at 2.4 MS/s includes. With it,
                "net" = a case's share less this one's: the display's own.
  stock         qtgui.freq_sink_c + qtgui.waterfall_sink_c on one stream,
                same FFT size, update period 1/30 s, each in a 1024 x 400 window.
  fosphor-glfw  gr-fosphor's glfw_sink_c (OpenCL FFT and histogram, OpenGL
  fosphor-qt    drawing; qt_sink_c: the same in a QGLWidget). N = 1024 only
                (fosphor's FFT size is fixed).
  ours-sink     gpufft.display_sink_c(fft_size, samp_rate, center_freq), its
                Qt widget shown (backend simd, 30 redraws/s), 1024 x 800
                pixels: the area of the stock sinks' two 1024 x 400 windows.
  ours-python   no widget: gpufft.spectrum_c (shift, one output per frame) ->
                a Python block pushing every frame into gpufft.display; a
                thread reads the display out 30 times a second (histogram,
                traces, waterfall row) and colour-maps it into an RGB array,
                as a widget would before drawing it. Nothing reaches the
                screen: it measures the pipeline and the read-outs, not
                drawing.
  floor-whole   no flowgraph, no data, no FFT: a 1024 x 800 Qt widget that
  floor-band    repaints from a ready image in the window's format (RGB32)
                30 times a second, its whole area (floor-whole) or what
                ours-sink repaints at a redraw (floor-band: a 950 x 221 band
                of the spectrum plot, 210 000 pixels, and the waterfall plot
                scrolled one row in the window with its new row painted).
                What drawing alone costs a Qt raster widget on this X
                server: a floor under any such display's CPU share (its
                "net" is its whole share: it has no source to take away).
                Throttled run only.

Two runs per case, each in a fresh process under an X server (an Xvfb the
bench starts, unless --display), with the process's CPU time (all its
threads) and the X server's counted:

  saturated     an unthrottled source (a looped noise + tone vector): the
                input rate the display takes, the frames it transforms and
                the frames it draws per second.
  rtl           the same source throttled to 2.4 MS/s: CPU share (one core =
                100%, the machine has os.cpu_count() of them), frames
                transformed and drawn per second.

What is counted, and how:

  input rate            items the display block consumed / s.
  frames transformed/s  stock: FFTW executions / s (the preloaded counter
                        library apps/bench/display_counters.c), per sink;
                        the stock sinks transform one frame per update
                        period and skip the rest. fosphor: input rate / 1024
                        (it transforms every 1024-sample block of its FIFO,
                        no overlap). ours-python: frames pushed into the
                        display (display.frames()). ours-sink: the frames in
                        its display (frames_displayed()).
  pixels repainted/s    ours-sink, floor-*: the area of the paint events'
                        regions (ours-sink: its two plot panes); in the JSON.
  CPU per thread        the process's threads by name (/proc/self/task;
                        GNU Radio names a block's thread after the block, the
                        GUI thread is the main one); in the JSON.
  frames drawn/s        stock: update events (a new frame handed to a sink's
                        plot), per sink; ours-sink: redraws() (reads of the
                        display that found new frames, each repainted);
                        fosphor: buffer swaps
                        (glfwSwapBuffers / QGLWidget::swapBuffers, counted by
                        the preloaded library); ours-python: read-outs.
  every frame at 30 fps the highest input rate at which every frame goes
                        into the display (frames transformed/s * N >= 98% of
                        the input) while it draws >= 27 frames/s. A case that
                        draws that fast when saturated: min(input rate,
                        frames transformed/s * N) (for the stock sinks, the
                        frames they transform: about 30 N samples/s). One
                        that does not (gr-fosphor draws once its FIFO is
                        empty): bisection over throttled rates (--search
                        steps, log scale) between a rate that keeps up and
                        the saturated one.

Each figure is the median of --repeats runs; ratios are against the stock
sinks at the same N.

--instrument-ab: ours-sink alone, with its instrument (two markers and their
table, the pointer resting on the spectrum so that the readout is redone at
every redraw; --instrument) off and on, alternated in one run: --repeats
pairs, the order swapped every pair, throttled to 2.4 MS/s and saturated.
It prints each side's medians (CPU seconds per second of signal: the CPU
share over the share of 2.4 MS/s taken; frames used and drawn) and the
on / off ratio, of the medians and pair by pair; saturated, also the rate
at which every frame is used at 30 redraws a second (the input taken by a
run that kept up), its medians and the on / off ratio of each pair in which
both sides kept up; and the load average at the runs' starts. The machine
is shared with other work: CPU time is the steadier figure. Run from the
source tree with the build's Python module:

    PYTHONPATH=build/test_modules /usr/bin/python3 apps/display_bench.py --quick
    PYTHONPATH=build/test_modules /usr/bin/python3 apps/display_bench.py --json
"""

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

RTL_RATE = 2.4e6
DRAW_RATE = 30.0
CASES = ["source", "stock", "fosphor-glfw", "fosphor-qt", "ours-sink", "ours-python", "floor-whole", "floor-band"]
HERE = os.path.dirname(os.path.abspath(__file__))


def throttled_only(case):
    """Cases run only at the throttled rate: the source alone, and the
    drawing floors, which take no input."""
    return case == "source" or case.startswith("floor")


# ---------------------------------------------------------------- the child


def stat_cpu(path):
    """(name, CPU seconds so far: utime + stime) of a process or thread from
    its stat file (proc(5)); None where it cannot be read."""
    try:
        with open(path) as f:
            text = f.read()
        fields = text.rsplit(")", 1)[1].split()
        return text[text.index("(") + 1:text.rindex(")")], (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def x_server_cpu(pid):
    """CPU seconds of the X server so far, or 0."""
    stat = stat_cpu("/proc/%d/stat" % pid) if pid else None
    return stat[1] if stat else 0.0


def thread_cpu():
    """(name, CPU seconds so far) of each of this process's threads, by
    thread id (/proc/self/task); GNU Radio names a block's thread after the
    block."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        stat = stat_cpu("/proc/self/task/%s/stat" % tid)
        if stat:
            out[tid] = stat
    return out


def process_cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class counters:
    """The preloaded library's counts (None where it is not loaded)."""

    def __init__(self):
        path = os.environ.get("DISPLAY_BENCH_COUNTERS")
        self.lib = ctypes.CDLL(path) if path else None

    def get(self, name):
        if not self.lib:
            return None
        return ctypes.c_longlong.in_dll(self.lib, name).value


def update_counter(widgets):
    """Counts the application-defined events through which the QT GUI sinks
    hand each new frame to their widget, in every widget under `widgets`;
    returns a function giving, per top-level widget, the count of its
    busiest descendant."""
    from PyQt5 import QtCore

    counts = {}

    class filt(QtCore.QObject):
        def eventFilter(self, obj, ev):
            if ev.type() >= QtCore.QEvent.User:
                counts[id(obj)] = counts.get(id(obj), 0) + 1
            return False

    f = filt()
    trees = []
    from PyQt5.QtWidgets import QWidget

    for w in widgets:
        members = [w] + w.findChildren(QWidget)
        for m in members:
            m.installEventFilter(f)
        trees.append([id(m) for m in members])

    def busiest():
        return [max(counts.get(i, 0) for i in tree) for tree in trees]

    busiest.keep = f  # the filter lives as long as the counter
    return busiest


def paint_counter(widgets):
    """Counts the pixels that paint events ask `widgets` to repaint (the
    area of each event's region); returns a function giving the total so
    far."""
    from PyQt5 import QtCore

    total = [0]

    class filt(QtCore.QObject):
        def eventFilter(self, obj, ev):
            if ev.type() == QtCore.QEvent.Paint:
                total[0] += sum(r.width() * r.height() for r in ev.region().rects())
            return False

    f = filt()
    for w in widgets:
        w.installEventFilter(f)

    def painted():
        return total[0]

    painted.keep = f
    return painted


# Where ours-sink repaints in its 1024 x 800 window at N = 1024 with this
# source (its paint events' rectangles): bands of the spectrum plot about
# 950 pixels wide over its lit rows and lines, 210 000 pixels a redraw; the
# waterfall plot (952 x 302) scrolled one row, its new row painted.
FLOOR_SPECTRUM_BAND = (61, 230, 950, 221)
FLOOR_WATERFALL = (60, 496, 952, 302)


def floor_widget(band):
    """A 1024 x 800 widget that repaints from a ready image in the window's
    format (RGB32) 30 times a second, with nothing behind it: what drawing
    alone costs. Whole (band False): its whole area at each tick. Band: what
    ours-sink repaints at a redraw with this source (its paint events,
    counted by paint_counter): a band of the spectrum plot where the
    histogram's lit rows and the lines change, and the waterfall plot
    scrolled one row in the window (QWidget::scroll) with its new row
    painted."""
    from PyQt5 import QtCore, QtGui
    from PyQt5.QtWidgets import QWidget

    class floor(QWidget):
        def __init__(self):
            super().__init__()
            self.setAttribute(QtCore.Qt.WA_OpaquePaintEvent)
            self.setAttribute(QtCore.Qt.WA_NoSystemBackground)
            self.image = QtGui.QImage(1024, 800, QtGui.QImage.Format_RGB32)
            p = QtGui.QPainter(self.image)
            gradient = QtGui.QLinearGradient(0, 0, 1024, 800)
            gradient.setColorAt(0, QtGui.QColor(0, 0, 150))
            gradient.setColorAt(1, QtGui.QColor(255, 230, 0))
            p.fillRect(self.image.rect(), gradient)
            p.end()
            self.repaints = 0
            self.timer = QtCore.QTimer(self)
            self.timer.setTimerType(QtCore.Qt.PreciseTimer)
            self.timer.timeout.connect(self.tick)
            self.timer.start(int(round(1000 / DRAW_RATE)))

        def tick(self):
            self.repaints += 1
            if not band:
                self.update()
                return
            self.update(QtCore.QRect(*FLOOR_SPECTRUM_BAND))
            self.scroll(0, 1, QtCore.QRect(*FLOOR_WATERFALL))

        def paintEvent(self, ev):
            p = QtGui.QPainter(self)
            for r in ev.region().rects():
                p.drawImage(r.topLeft(), self.image, r)

    return floor()


def source_data(n_samples=1 << 18):
    import numpy as np

    rng = np.random.default_rng(1)
    t = np.arange(n_samples)
    x = 0.01 * (rng.standard_normal(n_samples) + 1j * rng.standard_normal(n_samples))
    x += 0.3 * np.exp(2j * np.pi * t / 8)
    return x.astype(np.complex64)


def run_child(spec):
    """One run of one case; returns its figures as a dict."""
    from gnuradio import blocks, gr

    n, case, rate = spec["fft"], spec["case"], spec["rate"]
    fs, fc = RTL_RATE, 100e6
    cnt = counters()
    out = {"case": case, "fft": n, "mode": spec["mode"], "status": "ok"}
    tb = gr.top_block()
    src = blocks.vector_source_c(source_data().tolist(), True)
    head = src
    if rate:
        head = blocks.throttle(gr.sizeof_gr_complex, rate)
        tb.connect(src, head)

    app = None
    drawn = None  # () -> frames drawn so far (per display, averaged)
    transformed = None  # () -> frames transformed so far
    consumer = None  # the block whose nitems_read(0) is the input taken
    readouts = None
    painted = None  # () -> pixels asked to repaint so far
    at_end = []  # called when the measured window closes

    def qt_app():
        from PyQt5 import Qt

        return Qt.QApplication.instance() or Qt.QApplication(["display_bench"])

    def show(widget, title, height=400):
        """Shows a sink's widget (a QWidget, or its address) in a window
        1024 pixels wide."""
        from PyQt5 import Qt
        import sip

        w = widget if isinstance(widget, Qt.QWidget) else sip.wrapinstance(widget, Qt.QWidget)
        w.setWindowTitle(title)
        w.resize(1024, height)
        w.show()
        return w

    if case == "stock":
        from gnuradio import qtgui
        from gnuradio.fft import window

        app = qt_app()
        freq = qtgui.freq_sink_c(n, window.WIN_BLACKMAN_hARRIS, fc, fs, "stock freq", 1, None)
        fall = qtgui.waterfall_sink_c(n, window.WIN_BLACKMAN_hARRIS, fc, fs, "stock waterfall", 1, None)
        for s in (freq, fall):
            s.set_update_time(1.0 / DRAW_RATE)
            tb.connect(head, s)
        widgets = [show(freq.qwidget(), "freq"), show(fall.qwidget(), "waterfall")]
        # A new frame reaches each sink's widget as one update event, and is
        # drawn once (a replot); its plot may repaint more often than that.
        updates = update_counter(widgets)
        drawn = lambda: statistics.mean(updates())
        ffts = cnt.get("display_bench_ffts")
        transformed = (lambda: cnt.get("display_bench_ffts") / 2.0) if ffts is not None else None
        consumer = freq
    elif case.startswith("fosphor"):
        if n != 1024:
            return dict(out, status="skipped", note="gr-fosphor's FFT size is fixed at 1024")
        from gnuradio import fosphor
        from gnuradio import qtgui  # noqa: F401 (binds the QWidget type that qt_sink_c's argument has)

        if case == "fosphor-glfw":
            sink = fosphor.glfw_sink_c()
        else:
            app = qt_app()
            sink = fosphor.qt_sink_c()
            show(sink.pyqwidget(), "fosphor")
        tb.connect(head, sink)
        swaps = cnt.get("display_bench_swaps")
        drawn = (lambda: cnt.get("display_bench_swaps")) if swaps is not None else None
        transformed = lambda: sink.nitems_read(0) / 1024.0
        consumer = sink
    elif case == "ours-sink":
        try:
            from gnuradio import gpufft

            make = gpufft.display_sink_c
        except (ImportError, AttributeError) as e:
            return dict(out, status="not available", note="gpufft.display_sink_c: %s" % e)
        app = qt_app()
        sink = make(n, fs, fc, backend="simd")
        tb.connect(head, sink)
        # Spectrum and waterfall in one window: the stock sinks' two windows' area.
        window = show(sink.pyqwidget(), "gpufft display", 800)
        from PyQt5.QtWidgets import QSplitter

        # The two plot panes, the splitter's (spectrum on top): the only widgets that repaint a
        # picture at a redraw.
        splitter = window.findChild(QSplitter)
        panes = [splitter.widget(0), splitter.widget(1)]
        painted = paint_counter(panes)
        if spec.get("instrument"):
            # Once frames have come: a marker at the peak (K), a second by a
            # right click, the pointer resting on the spectrum (the readout
            # then follows every redraw), as a user measuring would leave it.
            from PyQt5 import QtCore, QtGui

            widget = window  # the name is the measured window's length further down

            def instrument():
                pane = panes[0]
                QtCore.QCoreApplication.sendEvent(widget, QtGui.QKeyEvent(QtCore.QEvent.KeyPress, QtCore.Qt.Key_K,
                                                                         QtCore.Qt.NoModifier, "k"))
                at = QtCore.QPointF(pane.width() * 0.3, pane.height() * 0.5)
                QtCore.QCoreApplication.sendEvent(pane, QtGui.QMouseEvent(
                    QtCore.QEvent.MouseButtonPress, at, QtCore.Qt.RightButton, QtCore.Qt.RightButton,
                    QtCore.Qt.NoModifier))
                QtCore.QCoreApplication.sendEvent(pane, QtGui.QMouseEvent(
                    QtCore.QEvent.MouseMove, QtCore.QPointF(pane.width() * 0.5, pane.height() * 0.5),
                    QtCore.Qt.NoButton, QtCore.Qt.NoButton, QtCore.Qt.NoModifier))
                out["instrumented"] = {"markers": widget.property("marker_table"), "readout": widget.property("readout")}

            QtCore.QTimer.singleShot(1000, instrument)
            # Still on when the window closes: the readout and the table redone at every redraw.
            at_end.append(lambda: out.update(instrumented_end={"markers": widget.property("marker_table"),
                                                               "readout": widget.property("readout")}))
        # Redraws: the widget's reads that found new frames, each drawn once.
        drawn = lambda: float(sink.redraws())
        transformed = lambda: float(sink.frames_displayed())
        consumer = sink
    elif case == "ours-python":
        import numpy as np
        from gnuradio import gpufft

        disp = gpufft.display(n, width=1024, height=256, db_min=-120.0, db_max=0.0)
        spec_c = gpufft.spectrum_c(n, fs, frames_per_output=1, shift=True, average="exponential", alpha=1.0)

        class feed(gr.sync_block):
            def __init__(self):
                gr.sync_block.__init__(self, "display_feed", [(np.float32, n)], [])

            def work(self, input_items, output_items):
                disp.push(np.ascontiguousarray(input_items[0]))
                return len(input_items[0])

        sink = feed()
        tb.connect(head, spec_c, sink)
        lut = np.array([[int(255 * t), int(255 * t * t), int(255 * (1 - t))] for t in np.linspace(0, 1, 256)], np.uint8)
        readouts = {"count": 0, "stop": False}

        def draw_loop():
            period, nxt = 1.0 / DRAW_RATE, time.perf_counter()
            while not readouts["stop"]:
                h = disp.histogram()
                avg, mx, wf = disp.average(), disp.max_hold(), disp.waterfall(1)
                level = np.log1p(h) / max(1e-9, float(np.log1p(h.max())))
                rgb = lut[(level * 255).astype(np.uint8)]
                rgb[0, :, :] = lut[np.clip((np.nan_to_num(avg) + 120) * 2, 0, 255).astype(np.uint8)]
                rgb[1, :, :] = lut[np.clip((np.nan_to_num(mx) + 120) * 2, 0, 255).astype(np.uint8)]
                rgb[2, :, :] = lut[np.clip((np.nan_to_num(wf[-1]) + 120) * 2, 0, 255).astype(np.uint8)]
                readouts["count"] += 1
                nxt += period
                time.sleep(max(0.0, nxt - time.perf_counter()))

        drawer = threading.Thread(target=draw_loop, daemon=True)
        drawn = lambda: float(readouts["count"])
        transformed = lambda: float(disp.frames)
        consumer = spec_c
        out["note"] = "read-outs colour-mapped at 30/s, not drawn on screen"
    elif case == "source":
        consumer = blocks.null_sink(gr.sizeof_gr_complex)
        tb.connect(head, consumer)
    elif case.startswith("floor"):
        app = qt_app()
        widget = floor_widget(case == "floor-band")
        show(widget, "floor", 800)
        painted = paint_counter([widget])
        drawn = lambda: float(widget.repaints)
        tb = None  # no flowgraph: drawing only
        out["note"] = "no data, no FFT: a ready image repainted 30 times a second"
    else:
        raise SystemExit("unknown case " + case)

    xpid = int(os.environ.get("DISPLAY_BENCH_XPID", "0"))
    marks = {}

    def mark(name):
        marks[name] = {
            "t": time.perf_counter(),
            "cpu": process_cpu(),
            "threads": thread_cpu(),
            "xcpu": x_server_cpu(xpid),
            "items": consumer.nitems_read(0) if consumer else 0,
            "drawn": drawn() if drawn else None,
            "painted": painted() if painted else None,
            "transformed": transformed() if transformed else None,
        }

    if tb:
        tb.start()
    if readouts is not None:
        drawer.start()
    warmup, window = spec["warmup"], spec["seconds"]
    if app is not None:
        from PyQt5 import QtCore

        QtCore.QTimer.singleShot(int(warmup * 1000), lambda: mark("start"))
        QtCore.QTimer.singleShot(int((warmup + window) * 1000),
                                 lambda: (mark("end"), [f() for f in at_end], app.quit()))
        app.exec_()
    else:
        time.sleep(warmup)
        mark("start")
        time.sleep(window)
        mark("end")
    if readouts is not None:
        readouts["stop"] = True
    a, b = marks["start"], marks["end"]
    dt = b["t"] - a["t"]
    out["seconds"] = dt
    out["input_msps"] = (b["items"] - a["items"]) / dt / 1e6 if consumer else None
    out["cpu_process_pct"] = 100 * (b["cpu"] - a["cpu"]) / dt
    out["cpu_x_pct"] = 100 * (b["xcpu"] - a["xcpu"]) / dt if xpid else None
    out["cpu_pct"] = out["cpu_process_pct"] + (out["cpu_x_pct"] or 0)
    # Per thread name (threads of one name summed; the main thread is the GUI thread where there is one).
    threads = {}
    for tid, (name, t1) in b["threads"].items():
        t0 = a["threads"].get(tid, (name, 0.0))[1]
        threads[name] = threads.get(name, 0.0) + 100 * (t1 - t0) / dt
    out["cpu_threads_pct"] = {k: round(v, 3) for k, v in sorted(threads.items(), key=lambda kv: -kv[1]) if v > 0}
    out["painted_px_per_s"] = (b["painted"] - a["painted"]) / dt if painted else None
    out["drawn_per_s"] = (b["drawn"] - a["drawn"]) / dt if drawn else None
    out["transformed_per_s"] = (b["transformed"] - a["transformed"]) / dt if transformed else None
    if case.startswith("fosphor") and (out["drawn_per_s"] == 0 or out["input_msps"] == 0):
        out["status"] = "cannot start"
    # Stopping can hang on a sink whose drawing thread never started; the
    # figures are taken, so the process ends here.
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    os._exit(0)


# ---------------------------------------------------------------- the parent


def build_counters(tmp):
    """Compiles the counter library; returns its path, or None and why not."""
    so = os.path.join(tmp, "display_counters.so")
    src = os.path.join(HERE, "bench", "display_counters.c")
    r = subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", so, src, "-ldl"], capture_output=True, text=True)
    if r.returncode:
        return None, "cc failed: " + r.stderr.strip()[-300:]
    return so, None


def start_xvfb():
    """An Xvfb on a free display; returns (process, display name)."""
    rd, wr = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(wr), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=[wr], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(wr)
    with os.fdopen(rd) as f:
        number = f.readline().strip()
    if not number:
        raise SystemExit("display_bench: Xvfb did not start")
    return proc, ":" + number


FOSPHOR_LOG = ("[+]", "[!]", "[w]", "CL Error", "GLFW", "glfw", "OpenCL", "GL")


def run_once(args, env, case, n, mode, rate=None, instrument=None):
    if rate is None:
        rate = RTL_RATE if mode == "rtl" else 0
    spec = {"case": case, "fft": n, "mode": mode, "rate": rate, "warmup": args.warmup, "seconds": args.seconds,
            "instrument": args.instrument if instrument is None else instrument}
    limit = 60 + 3 * (args.warmup + args.seconds)
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)],
                           env=env, capture_output=True, text=True, timeout=limit)
        lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
        err = r.stderr
        res = json.loads(lines[-1]) if lines else None
        if res is None:
            res = {"case": case, "fft": n, "mode": mode, "status": "failed",
                   "note": "exit status %d: %s" % (r.returncode, err.strip()[-400:])}
    except subprocess.TimeoutExpired as e:
        err = (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        res = {"case": case, "fft": n, "mode": mode, "status": "failed",
               "note": "no result in %d s (hung)" % limit}
    if case.startswith("fosphor"):
        res["fosphor_log"] = [l.strip() for l in err.splitlines() if any(k in l for k in FOSPHOR_LOG)][:12]
        if res.get("status") != "ok" and res["fosphor_log"]:
            res["note"] = (res.get("note", "") + " | fosphor says: " + " / ".join(res["fosphor_log"])).strip(" |")
    return res


FIELDS = ["input_msps", "transformed_per_s", "drawn_per_s", "cpu_pct", "cpu_process_pct", "cpu_x_pct",
          "painted_px_per_s"]


def median_of(runs):
    ok = [r for r in runs if r.get("status") == "ok"]
    if not ok:
        return dict(runs[-1], repeats=len(runs))
    m = dict(ok[0], repeats=len(ok))
    for f in FIELDS:
        vals = [r[f] for r in ok if r.get(f) is not None]
        m[f] = statistics.median(vals) if vals else None
    names = {k for r in ok for k in r.get("cpu_threads_pct", {})}
    m["cpu_threads_pct"] = {k: statistics.median(r.get("cpu_threads_pct", {}).get(k, 0.0) for r in ok)
                            for k in sorted(names)}
    return m


def keeps_up(r, n):
    """Every frame into the display, drawn at (90% of) 30 per second."""
    return (r.get("status") == "ok" and r.get("drawn_per_s") is not None and r["drawn_per_s"] >= 0.9 * DRAW_RATE
            and r.get("transformed_per_s") is not None and r["transformed_per_s"] * n >= 0.98 * r["input_msps"] * 1e6)


def search_30fps(args, env, case, n, sat, rtl):
    """The highest throttled input rate (MS/s) at which the case still keeps
    up (keeps_up), by bisection on a log scale between a rate known to keep
    up (2.4 MS/s if it did, else 1/16 of the saturated rate) and the
    saturated rate; returns (rate or None, the runs tried)."""
    hi = sat["input_msps"]
    lo = rtl["input_msps"] if keeps_up(rtl, n) else hi / 16
    found = lo if keeps_up(rtl, n) else None
    tried = []
    for _ in range(args.search):
        mid = (lo * hi) ** 0.5
        r = median_of([run_once(args, env, case, n, "search", mid * 1e6) for _ in range(args.repeats)])
        ok = keeps_up(r, n)
        tried.append({"rate_msps": mid, "keeps_up": ok, "drawn_per_s": r.get("drawn_per_s"),
                      "transformed_per_s": r.get("transformed_per_s"), "input_msps": r.get("input_msps")})
        if ok:
            lo, found = mid, mid
        else:
            hi = mid
    return found, tried


def summarize(n, sat, rtl):
    """One case at one N: the headline figures (sat None: throttled only)."""
    s = {"status": (sat or rtl).get("status"), "note": (sat or {}).get("note") or rtl.get("note")}
    if sat and sat.get("status") == "ok":
        s["input_msps"] = sat["input_msps"]
        s["transformed_per_s"] = sat["transformed_per_s"]
        s["drawn_per_s"] = sat["drawn_per_s"]
        if sat["transformed_per_s"] is not None:
            s["every_frame_msps"] = min(sat["input_msps"], sat["transformed_per_s"] * n / 1e6)
        s["draws_30fps"] = sat["drawn_per_s"] is not None and sat["drawn_per_s"] >= 0.9 * DRAW_RATE
        # The stock sinks keep drawing at saturation but skip frames: their
        # every-frame rate at 30 fps is what they transform.
        if s["draws_30fps"] and s.get("every_frame_msps") is not None:
            s["every_frame_30fps_msps"] = s["every_frame_msps"]
    if rtl.get("status") == "ok":
        s["rtl_cpu_pct"] = rtl["cpu_pct"]
        s["rtl_cpu_process_pct"] = rtl["cpu_process_pct"]
        s["rtl_cpu_x_pct"] = rtl["cpu_x_pct"]
        s["rtl_input_msps"] = rtl["input_msps"]
        s["rtl_transformed_per_s"] = rtl["transformed_per_s"]
        s["rtl_drawn_per_s"] = rtl["drawn_per_s"]
        s["rtl_painted_px_per_s"] = rtl.get("painted_px_per_s")
        s["rtl_cpu_threads_pct"] = rtl.get("cpu_threads_pct")
        # A display that falls behind takes less than 2.4 MS/s: its CPU share is for what it took.
        if rtl["input_msps"] is not None:  # None: no flowgraph (floor-*)
            s["rtl_keeps_rate"] = rtl["input_msps"] >= 0.98 * RTL_RATE / 1e6
        if rtl["transformed_per_s"] is not None:
            s["rtl_every_frame"] = rtl["transformed_per_s"] * n >= 0.98 * rtl["input_msps"] * 1e6
    return s


def cpu_per_signal_s(r):
    """CPU seconds (process and X server) per second of signal taken: the
    CPU share over the share of 2.4 MS/s the display took."""
    if r.get("status") != "ok" or not r.get("input_msps"):
        return None
    return r["cpu_pct"] / 100.0 * RTL_RATE / (r["input_msps"] * 1e6)


def gui_x_pct(r):
    """CPU share of the GUI thread (the main one; Python names it after the
    interpreter) and the X server: where the instrument's work is done."""
    if r.get("status") != "ok":
        return None
    return r.get("cpu_threads_pct", {}).get("python3", 0.0) + (r.get("cpu_x_pct") or 0.0)


def instrument_ab(args, env, n, log):
    """ours-sink with the instrument (two markers, their table, the pointer's
    readout) off and on, alternated in one run: --repeats pairs, the order
    swapped every pair, each run a fresh process of the same build;
    throttled to 2.4 MS/s (CPU) and saturated (every frame at 30 fps)."""
    out = {}
    for mode in args.ab_modes.split(","):
        pairs = []
        for i in range(args.repeats):
            pair = {}
            for on in ((False, True) if i % 2 == 0 else (True, False)):
                load = os.getloadavg()[0]
                pair["on" if on else "off"] = run_once(args, env, "ours-sink", n, mode, instrument=on)
                pair["on" if on else "off"]["load_avg_at_start"] = load
            pairs.append(pair)
            print("  N=%d %s pair %d: off %s, on %s" % (n, mode, i + 1, brief(pair["off"], n), brief(pair["on"], n)),
                  file=log, flush=True)
        side = {}
        for key in ("off", "on"):
            runs = [p[key] for p in pairs]
            ok = [r for r in runs if r.get("status") == "ok"]
            med = lambda f: statistics.median(v for v in map(f, ok) if v is not None) if ok else None
            side[key] = {
                "runs_ok": len(ok), "runs": len(runs),
                "cpu_pct": med(lambda r: r["cpu_pct"]),
                "cpu_s_per_signal_s": med(cpu_per_signal_s),
                "gui_x_pct": med(gui_x_pct),
                "input_msps": med(lambda r: r["input_msps"]),
                "drawn_per_s": med(lambda r: r["drawn_per_s"]),
                "keeps_up": sum(keeps_up(r, n) for r in ok),
                "every_frame_30fps_msps": med(every_frame_30fps),
                # Each on-run's instrument at the window's end: markers in the table and a readout shown.
                "instrument_on_at_end": sum(bool((r.get("instrumented_end") or {}).get("markers")) and
                                            bool((r.get("instrumented_end") or {}).get("readout")) for r in ok),
            }
        ratios = [cpu_per_signal_s(p["on"]) / cpu_per_signal_s(p["off"]) for p in pairs
                  if cpu_per_signal_s(p["on"]) and cpu_per_signal_s(p["off"])]
        gui = [gui_x_pct(p["on"]) / gui_x_pct(p["off"]) for p in pairs if gui_x_pct(p["on"]) and gui_x_pct(p["off"])]
        # Saturated: the pairs in which both sides kept up, each side's input rate then being the rate at which
        # every frame is used at 30 redraws a second.
        rate = [every_frame_30fps(p["on"]) / every_frame_30fps(p["off"]) for p in pairs
                if every_frame_30fps(p["on"]) and every_frame_30fps(p["off"])]
        loads = [p[k]["load_avg_at_start"] for p in pairs for k in ("off", "on")]
        out[mode] = {"off": side["off"], "on": side["on"], "pairs": pairs, "pair_ratios_gui_x": gui,
                     "pair_ratios_every_frame_30fps": rate, "load_avg_range": [min(loads), max(loads)],
                     "pair_ratios_cpu_per_signal_s": ratios,
                     "ratio_of_medians_cpu_per_signal_s": (side["on"]["cpu_s_per_signal_s"] /
                                                           side["off"]["cpu_s_per_signal_s"]
                                                           if side["off"]["cpu_s_per_signal_s"] and
                                                           side["on"]["cpu_s_per_signal_s"] else None)}
    return out


def every_frame_30fps(r):
    """A saturated run's input rate (MS/s) where every frame went into the
    display at >= 27 redraws a second (keeps_up), else None: the rate at
    which the display still uses every frame at 30 redraws a second, short of
    a search (search_30fps) where it does not keep up."""
    if r.get("mode") != "saturated" or not keeps_up(r, r["fft"]):
        return None
    return min(r["input_msps"], r["transformed_per_s"] * r["fft"] / 1e6)


def brief(r, n):
    if r.get("status") != "ok":
        return r.get("status", "?")
    return "CPU %.1f%% (%.4f s/s of signal; GUI thread + X %.1f%%), in %.3g MS/s, drawn %.1f/s%s" % (
        r["cpu_pct"], cpu_per_signal_s(r) or 0, gui_x_pct(r) or 0, r["input_msps"], r["drawn_per_s"] or 0,
        "" if keeps_up(r, n) else " (a frame missed or < 27 drawn/s)")


def fmt(v, spec="%.3g"):
    return "-" if v is None else (spec % v if isinstance(v, (int, float)) else str(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fft", default="1024,65536", help="FFT sizes (default %(default)s)")
    ap.add_argument("--cases", help="default: all of " + ",".join(CASES))
    ap.add_argument("--repeats", type=int, default=3, help="runs per figure, median (default %(default)s)")
    ap.add_argument("--seconds", type=float, default=5.0, help="measured window of a run (default %(default)s)")
    ap.add_argument("--warmup", type=float, default=4.0,
                    help="streaming before the window, e.g. PoCL compiling fosphor's kernels (default %(default)s)")
    ap.add_argument("--search", type=int, default=4,
                    help="bisection steps for the rate at 30 fps of a case that draws less when saturated "
                         "(default %(default)s; 0: none)")
    ap.add_argument("--quick", action="store_true", help="1 repeat, 2 s warmup, 3 s window, no search: under 2 minutes")
    ap.add_argument("--display", help="use this X display instead of starting an Xvfb")
    ap.add_argument("--instrument", action="store_true",
                    help="ours-sink: two markers placed and the pointer on the spectrum (its readout) "
                         "1 s into the run")
    ap.add_argument("--instrument-ab", action="store_true",
                    help="ours-sink only: --instrument off and on alternated in one run (--repeats pairs, the order "
                         "swapped every pair), throttled and saturated; medians of CPU seconds per second of signal "
                         "and their ratio, frames used and drawn")
    ap.add_argument("--ab-modes", default="rtl,saturated",
                    help="--instrument-ab's runs: rtl (throttled to 2.4 MS/s), saturated, or both (default %(default)s)")
    ap.add_argument("--json", nargs="?", const="-", help="JSON results to this file ('-' or none: standard output)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_child(json.loads(args.child))))  # a case that did not run
        return
    if args.quick:
        args.repeats, args.warmup, args.seconds, args.search = 1, 2.0, 3.0, 0
    sizes = [int(x) for x in args.fft.split(",")]
    if args.instrument_ab:
        if args.instrument:
            ap.error("--instrument-ab runs ours-sink with and without the instrument: drop --instrument")
        if args.cases not in (None, "ours-sink"):
            ap.error("--instrument-ab measures ours-sink only: drop --cases")
        args.cases = "ours-sink"
        if not args.ab_modes or any(m not in ("rtl", "saturated") for m in args.ab_modes.split(",")):
            ap.error("--ab-modes: rtl, saturated or both, comma-separated (got %r)" % args.ab_modes)
    elif args.ab_modes != ap.get_default("ab_modes"):
        ap.error("--ab-modes applies to --instrument-ab only")
    cases = (args.cases or ",".join(CASES)).split(",")
    for c in cases:
        if c not in CASES:
            ap.error("--cases: unknown case %r (known: %s)" % (c, ", ".join(CASES)))
    if any(n < 1 for n in sizes):
        ap.error("--fft: sizes must be >= 1")

    log = sys.stderr if args.json == "-" else sys.stdout
    tmp = tempfile.mkdtemp(prefix="display_bench_")
    env = dict(os.environ)
    so, why = build_counters(tmp)
    if so:
        env["LD_PRELOAD"] = so
        env["DISPLAY_BENCH_COUNTERS"] = so
    else:
        print("display_bench: no counters (%s): stock frames transformed and fosphor frames drawn unknown" % why,
              file=log)
    xvfb = None
    if args.display:
        env["DISPLAY"] = args.display
    else:
        xvfb, env["DISPLAY"] = start_xvfb()
        env["DISPLAY_BENCH_XPID"] = str(xvfb.pid)
    env.pop("QT_QPA_PLATFORM", None)  # xcb on the X server: every case draws through it
    results = {"machine": {"cpus": os.cpu_count(), "load_avg_at_start": os.getloadavg()[0]},
               "settings": {"repeats": args.repeats, "warmup_s": args.warmup, "seconds": args.seconds,
                            "rtl_rate": RTL_RATE, "draw_rate": DRAW_RATE, "display": env["DISPLAY"],
                            "x_server": "Xvfb (started by the bench)" if xvfb else args.display},
               "sizes": {}}
    t0 = time.time()
    if args.instrument_ab:
        try:
            results["instrument_ab"] = {}
            for n in sizes:
                ab = results["instrument_ab"][str(n)] = instrument_ab(args, env, n, log)
                for mode, m in ab.items():
                    what = "throttled to 2.4 MS/s" if mode == "rtl" else mode
                    print("N=%d ours-sink, %s, instrument off / on (%d pairs alternated):" % (n, what, args.repeats),
                          file=log)
                    for key in ("off", "on"):
                        x = m[key]
                        print("  %-3s CPU %s%% = %s CPU s per s of signal (GUI thread + X %s%%), in %s MS/s, drawn "
                              "%s/s; every frame at >= 27 drawn/s in %d of %d runs%s" % (
                                  key, fmt(x["cpu_pct"]), fmt(x["cpu_s_per_signal_s"], "%.4f"), fmt(x["gui_x_pct"]),
                                  fmt(x["input_msps"]),
                                  fmt(x["drawn_per_s"]), x["keeps_up"], x["runs"],
                                  "" if key == "off" else "; markers and readout on at the end in %d" %
                                  x["instrument_on_at_end"]), file=log)
                    r = m["pair_ratios_cpu_per_signal_s"]
                    print("  on / off, CPU s per s of signal: %s (medians); pairs %s (median %s)" % (
                        fmt(m["ratio_of_medians_cpu_per_signal_s"], "%.3f"), " ".join("%.3f" % v for v in r),
                        fmt(statistics.median(r) if r else None, "%.3f")), file=log)
                    g = m["pair_ratios_gui_x"]
                    print("  on / off, GUI thread + X: pairs %s (median %s)" % (
                        " ".join("%.3f" % v for v in g), fmt(statistics.median(g) if g else None, "%.3f")),
                          file=log, flush=True)
                    if mode == "saturated":
                        e = m["pair_ratios_every_frame_30fps"]
                        print("  every frame at 30 fps up to (MS/s, median): off %s, on %s; on / off: pairs %s "
                              "(median %s, of %d pairs in which both kept up)" % (
                                  fmt(m["off"]["every_frame_30fps_msps"]), fmt(m["on"]["every_frame_30fps_msps"]),
                                  " ".join("%.3f" % v for v in e), fmt(statistics.median(e) if e else None, "%.3f"),
                                  len(e)), file=log, flush=True)
                    print("  load average (1 min) at the runs' starts: %.1f to %.1f" % tuple(m["load_avg_range"]),
                          file=log, flush=True)
        finally:
            if xvfb:
                xvfb.terminate()
                xvfb.wait()
        results["wall_s"] = time.time() - t0
        print("(%.0f s; CPU: one core = 100%%, process + X server; %d CPUs; load average %.1f at the start)" % (
            results["wall_s"], os.cpu_count(), results["machine"]["load_avg_at_start"]), file=log)
        write_json(args, results)
        return
    try:
        for n in sizes:
            per_n = {}
            for case in cases:
                runs = {}
                for mode in ("rtl",) if throttled_only(case) else ("saturated", "rtl"):
                    runs[mode] = median_of([run_once(args, env, case, n, mode) for _ in range(args.repeats)])
                    if runs[mode].get("status") in ("skipped", "not available", "cannot start"):
                        runs.setdefault("rtl", runs[mode])
                        break
                per_n[case] = {"summary": summarize(n, runs.get("saturated"), runs["rtl"]), "runs": runs}
                s = per_n[case]["summary"]
                if s["status"] == "ok" and "saturated" in runs and "every_frame_30fps_msps" not in s:
                    if args.search:
                        s["every_frame_30fps_msps"], per_n[case]["search"] = search_30fps(
                            args, env, case, n, runs["saturated"], runs["rtl"])
                    else:
                        s["note"] = ((s.get("note") or "") + "; below 30 fps when saturated, rate at 30 fps not "
                                     "searched (--search)").strip("; ")
                print("N=%-6d %-13s %s" % (n, case, s["status"] if s["status"] != "ok" else
                      "in %s MS/s, every frame at 30 fps up to %s MS/s, transformed %s/s, drawn %s/s; "
                      "at 2.4 MS/s: CPU %s%%, drawn %s/s" % (
                          fmt(s.get("input_msps")), fmt(s.get("every_frame_30fps_msps")), fmt(s.get("transformed_per_s")),
                          fmt(s.get("drawn_per_s")), fmt(s.get("rtl_cpu_pct")), fmt(s.get("rtl_drawn_per_s")))) +
                      ("" if not s.get("note") else "  [" + s["note"] + "]"), file=log, flush=True)
            stock = per_n.get("stock", {}).get("summary", {})
            source_share = per_n.get("source", {}).get("summary", {}).get("rtl_cpu_pct")
            for case, r in per_n.items():
                s = r["summary"]
                if case.startswith("floor") and s.get("rtl_cpu_pct") is not None:
                    s["rtl_cpu_net_pct"] = s["rtl_cpu_pct"]  # no source to take away
                elif source_share is not None and s.get("rtl_cpu_pct") is not None and case != "source":
                    s["rtl_cpu_net_pct"] = s["rtl_cpu_pct"] - source_share
            for case, r in per_n.items():
                s = r["summary"]
                if stock.get("rtl_cpu_net_pct", 0) > 0 and s.get("rtl_cpu_net_pct") is not None:
                    s["rtl_cpu_net_vs_stock"] = s["rtl_cpu_net_pct"] / stock["rtl_cpu_net_pct"]
                if stock.get("every_frame_30fps_msps") and s.get("every_frame_30fps_msps") is not None:
                    s["every_frame_30fps_vs_stock"] = s["every_frame_30fps_msps"] / stock["every_frame_30fps_msps"]
                if stock.get("rtl_cpu_pct") and s.get("rtl_cpu_pct") is not None:
                    s["rtl_cpu_vs_stock"] = s["rtl_cpu_pct"] / stock["rtl_cpu_pct"]
            results["sizes"][str(n)] = per_n
    finally:
        if xvfb:
            xvfb.terminate()
            xvfb.wait()
    results["wall_s"] = time.time() - t0

    print("\nsaturated: in = input taken, transf./drawn = frames per second; every@30 = highest input with every"
          "\nframe used at >= 27 drawn/s; throttled to 2.4 MS/s: in@2.4 = input taken (below 2.4: it falls"
          "\nbehind), CPU@2.4 = process + X server, one core = 100%; net = less the source case's", file=log)
    print("%-8s %-13s %9s %9s %10s %8s %9s %8s %8s %9s %8s %6s %8s %8s" % (
        "N", "case", "in MS/s", "transf./s", "drawn/s", "30fps", "every@30", "x stock", "in@2.4", "CPU@2.4", "x stock",
        "net", "x stock", "drawn@2.4"), file=log)
    for n, per_n in results["sizes"].items():
        for case, r in per_n.items():
            s = r["summary"]
            if s["status"] != "ok":
                print("%-8s %-13s %s%s" % (n, case, s["status"], "" if not s.get("note") else ": " + s["note"]), file=log)
                continue
            print("%-8s %-13s %9s %9s %10s %8s %9s %8s %8s %9s %8s %6s %8s %8s" % (
                n, case, fmt(s.get("input_msps")), fmt(s.get("transformed_per_s")), fmt(s.get("drawn_per_s")),
                "yes" if s.get("draws_30fps") else ("-" if throttled_only(case) else "no"),
                fmt(s.get("every_frame_30fps_msps")),
                fmt(s.get("every_frame_30fps_vs_stock")), fmt(s.get("rtl_input_msps")), fmt(s.get("rtl_cpu_pct")),
                fmt(s.get("rtl_cpu_vs_stock")), fmt(s.get("rtl_cpu_net_pct"), "%.2g"), fmt(s.get("rtl_cpu_net_vs_stock")),
                fmt(s.get("rtl_drawn_per_s"))), file=log)
    print("(%.0f s; CPU: one core = 100%%, process + X server; %d CPUs)" % (results["wall_s"], os.cpu_count()), file=log)
    write_json(args, results)


def write_json(args, results):
    if args.json:
        text = json.dumps(results, indent=1)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")


if __name__ == "__main__":
    main()
