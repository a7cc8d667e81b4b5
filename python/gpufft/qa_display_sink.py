#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.display_sink_c and gpufft.display_sink_f in flowgraphs, drawn
headless (Qt offscreen) and grabbed: a tone's column and the noise floor's row
lie at the pixels the frequency and dB axes put them (computed here from the
centre frequency, the sample rate and N), also after a zoom and pan by key
(the display then computes the view's bins); a click sends ("freq" . Hz) on
the message port; every frame reaches the display;
runtime setters; bad parameters raise gpufft.error naming them, and the GRC
definitions' asserts refuse them too.
"""

import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import pmt
import yaml
from PyQt5 import Qt, QtCore, QtTest
from gnuradio import blocks, gr, gr_unittest

from gnuradio import gpufft

HERE = os.path.dirname(os.path.abspath(__file__))
GRC_DIR = os.path.join(HERE, "..", "..", "grc")

app = Qt.QApplication.instance() or Qt.QApplication(sys.argv)


def wait_for(condition, timeout=10.0):
    """Runs the Qt event loop until condition() or the timeout; returns condition()."""
    end = time.time() + timeout
    while not condition() and time.time() < end:
        app.processEvents()
        time.sleep(0.01)
    return condition()


def grab(widget, name, rgb=False):
    """The widget as an (h, w) array of its red channel (the grey map's
    level), or (h, w, 3) of red, green, blue."""
    app.processEvents()
    img = widget.grab().toImage().convertToFormat(Qt.QImage.Format_RGB32)
    img.save(f"qa_display_sink_{name}.png")
    ptr = img.constBits()
    ptr.setsize(img.byteCount())
    rows = np.frombuffer(ptr, np.uint8).reshape(img.height(), img.bytesPerLine())
    bgra = rows[:, : img.width() * 4].reshape(img.height(), img.width(), 4).astype(int)
    return bgra[:, :, 2::-1] if rgb else bgra[:, :, 2]


def band(center, rate, n):
    """The full band [lo, hi]: n bins side by side, bin k centred on center + (k - n // 2) rate / n."""
    lo = center - (n // 2 + 0.5) * rate / n
    return lo, lo + rate


def pixel_of(hz, plot, lo, hi):
    return plot.left() + int(np.floor((hz - lo) / (hi - lo) * plot.width()))


def row_of(db, plot, ref_level, db_range):
    return plot.top() + (ref_level - db) / db_range * plot.height()


def shown(sink):
    """The sink's widget at 1000 x 700, shown."""
    w = sink.pyqwidget()
    w.resize(1000, 700)
    w.show()
    return w


class qa_display_sink(gr_unittest.TestCase):
    fs = 1.024e6
    n = 1024
    fc = 50e6
    tone_offset = 256e3  # bin n/2 + 256
    # E|x|^2 = 1e-4 spread over the bins, each as wide as blackmanharris' noise bandwidth, in dBFS.
    _w = gpufft.window("blackmanharris", n).astype(np.float64)
    noise_db = -40.0 + 10 * np.log10(np.sum(_w**2) / np.sum(_w) ** 2)

    def tone(self, frames, seed=1):
        rng = np.random.default_rng(seed)
        t = np.arange(frames * self.n)
        noise = 0.01 * (rng.standard_normal(t.size) + 1j * rng.standard_normal(t.size)) / np.sqrt(2)
        return (0.5 * np.exp(2j * np.pi * self.tone_offset / self.fs * t) + noise).astype(np.complex64)

    def sink_c(self, **kw):
        args = dict(colormap="grey", width=self.n, height=240, decay=0.98)
        args.update(kw)
        return gpufft.display_sink_c(self.n, self.fs, self.fc, "simd", **args)

    def lines_off(self, w):
        # Average line off (property), peak hold off (key P): the histogram's own pixels are measured.
        w.setProperty("show_average", False)
        QtTest.QTest.keyClick(w, QtCore.Qt.Key_P)

    def check_tone_and_floor(self, w, name, lo, hi):
        img = grab(w, name)
        sp, wf = w.property("spectrum_plot"), w.property("waterfall_plot")
        expected_x = pixel_of(self.fc + self.tone_offset, sp, lo, hi)
        newest = img[wf.top(), wf.left() : wf.right() + 1]
        bright = wf.left() + np.flatnonzero(newest == newest.max())
        self.assertTrue(len(bright) <= 3 and np.any(abs(bright - expected_x) <= 1),
                        f"{name}: waterfall brightest at {bright}, tone at {expected_x}")
        # The floor: the row where the histogram is brightest, over the columns away from the tone.
        plot = img[sp.top() : sp.bottom() + 1, sp.left() : sp.right() + 1]
        away = np.abs(np.arange(sp.width()) + sp.left() - expected_x) > 20
        floor_y = sp.top() + int(np.argmax(plot[:, away].mean(axis=1)))
        expected_y = row_of(self.noise_db, sp, 0.0, 120.0)
        self.assertLessEqual(abs(floor_y - expected_y), 1.5 / 120 * sp.height() + 1,
                             f"{name}: floor at row {floor_y}, {self.noise_db:.1f} dB at {expected_y:.1f}")

    def test_tone_and_floor_at_their_pixels(self):
        frames = 307  # not a whole number of batches (20 frames here): the last ones go in at stop()
        tb = gr.top_block()
        sink = self.sink_c()
        tb.connect(blocks.vector_source_c(self.tone(frames).tolist()), sink)
        w = shown(sink)
        tb.run()
        self.assertEqual(sink.frames_displayed(), frames)  # every frame, none dropped
        self.assertTrue(wait_for(lambda: w.property("frames_drawn") == sink.frames_displayed()))
        self.lines_off(w)
        lo, hi = band(self.fc, self.fs, self.n)
        self.assertAlmostEqual(w.property("view_lo"), lo, delta=1e-3)
        self.assertAlmostEqual(w.property("view_hi"), hi, delta=1e-3)
        self.check_tone_and_floor(w, "full", lo, hi)

    def test_tone_level_on_the_dbfs_axis(self):
        """A full-scale tone and one at -20 dBFS on a bin: the max-hold line's
        highest pixel, read on the axis (1 dB from top to bottom here, labelled
        dBFS), is the tone's level within 0.05 dB, as every output reads it."""
        for dbfs in (0.0, -20.0):
            top = dbfs + 0.5
            sink = self.sink_c(ref_level=top, db_range=1.0)
            t = np.arange(20 * self.n)
            x = (10 ** (dbfs / 20) * np.exp(2j * np.pi * self.tone_offset / self.fs * t + 0.3j)).astype(np.complex64)
            tb = gr.top_block()
            tb.connect(blocks.vector_source_c(x.tolist()), sink)
            w = shown(sink)
            tb.run()
            self.assertTrue(wait_for(lambda: w.property("frames_drawn") == sink.frames_displayed()))
            self.assertEqual(w.property("level_unit"), "dBFS")
            w.setProperty("show_average", False)
            img = grab(w, f"level_{-dbfs:g}", rgb=True)
            sp = w.property("spectrum_plot")
            plot = img[sp.top() : sp.bottom() + 1, sp.left() : sp.right() + 1]
            red = np.all(plot == (255, 64, 64), axis=2)  # the max-hold line's colour
            rows = np.flatnonzero(red.any(axis=1))
            self.assertGreater(len(rows), 0, f"{dbfs} dBFS: no max-hold line in the plot")
            # The line's point at the tone's column is its highest pixel: row r holds (top - r / h, top - (r + 1) / h].
            level = top - (rows[0] + 0.5) / sp.height()
            self.assertAlmostEqual(level, dbfs, delta=0.05, msg=f"{dbfs} dBFS tone drawn at {level:.3f} dBFS")

    def test_zoom_computes_the_view(self):
        """Zoom 2x (key +) about the view's centre and pan right a tenth (key
        Right), so that the tone is inside: the axis moves at once, the
        display's bin range follows once the view stays (the bins under the
        view, each now two columns); frames drawn after that put the tone and
        the floor at their pixels of the zoomed axis."""
        frames = 100
        tb = gr.top_block()
        sink = self.sink_c()
        tb.connect(blocks.vector_source_c(self.tone(frames).tolist()), sink)
        w = shown(sink)
        self.lines_off(w)
        band_lo, band_hi = band(self.fc, self.fs, self.n)
        QtTest.QTest.keyClick(w, QtCore.Qt.Key_Plus)
        QtTest.QTest.keyClick(w, QtCore.Qt.Key_Right)
        span = (band_hi - band_lo) / 2
        lo = band_lo + span / 2 + span / 10
        hi = lo + span
        self.assertAlmostEqual(w.property("view_lo"), lo, delta=1e-3)
        bin_hz = self.fs / self.n
        want = (int(np.floor((lo - band_lo) / bin_hz)), int(np.ceil((hi - band_lo) / bin_hz)))
        self.assertTrue(wait_for(lambda: w.property("bin_begin") != 0, 2), "the bin range did not follow the view")
        self.assertEqual((w.property("bin_begin"), w.property("bin_end")), want)
        tb.run()
        self.assertTrue(wait_for(lambda: w.property("frames_drawn") == sink.frames_displayed()))
        self.check_tone_and_floor(w, "zoom", lo, hi)

    def test_8bit_input(self):
        frames = 100
        x = self.tone(frames)
        iq = np.empty(2 * x.size, np.uint8)
        iq[0::2] = np.clip(np.round(x.real * 127.5 + 127.5), 0, 255)
        iq[1::2] = np.clip(np.round(x.imag * 127.5 + 127.5), 0, 255)
        tb = gr.top_block()
        sink = self.sink_c(format="cu8")
        self.assertEqual(sink.format(), "cu8")
        tb.connect(blocks.vector_source_b(iq.tolist(), False, 2), sink)
        w = shown(sink)
        tb.run()
        self.assertEqual(sink.frames_displayed(), frames)
        self.assertTrue(wait_for(lambda: w.property("frames_drawn") == sink.frames_displayed()))
        img = grab(w, "cu8")
        wf = w.property("waterfall_plot")
        lo, hi = band(self.fc, self.fs, self.n)
        newest = img[wf.top(), wf.left() : wf.right() + 1]
        self.assertLessEqual(abs(wf.left() + int(np.argmax(newest)) - pixel_of(self.fc + self.tone_offset, wf, lo, hi)), 1)

    def test_click_sends_freq(self):
        tb = gr.top_block()
        sink = self.sink_c()
        debug = blocks.message_debug()
        tb.connect(blocks.vector_source_c(self.tone(16).tolist(), repeat=True), blocks.throttle(gr.sizeof_gr_complex, 1e6), sink)
        tb.msg_connect((sink, "freq"), (debug, "store"))
        w = shown(sink)
        tb.start()
        try:
            self.assertTrue(wait_for(lambda: w.property("frames_drawn") > 0))
            sp = w.property("spectrum_plot")
            lo, hi = band(self.fc, self.fs, self.n)
            x = pixel_of(self.fc + self.tone_offset, sp, lo, hi)
            at = QtCore.QPoint(x, sp.center().y())
            pane = w.childAt(at)
            QtTest.QTest.mouseClick(pane, QtCore.Qt.LeftButton, QtCore.Qt.NoModifier, pane.mapFrom(w, at))
            self.assertTrue(wait_for(lambda: debug.num_messages() >= 1, 5))
        finally:
            tb.stop()
            tb.wait()
        msg = debug.get_message(0)
        # The QT GUI sinks' shape: ("freq" . hz).
        self.assertTrue(pmt.is_pair(msg))
        self.assertTrue(pmt.eq(pmt.car(msg), pmt.intern("freq")))
        hz = pmt.to_double(pmt.cdr(msg))
        pixel_hz = (hi - lo) / sp.width()
        self.assertAlmostEqual(hz, lo + (x + 0.5 - sp.left()) * pixel_hz, delta=1e-3)
        self.assertAlmostEqual(hz, self.fc + self.tone_offset, delta=pixel_hz)

    def test_display_sink_f(self):
        vlen, frames, tone_bin = 512, 40, 512 // 2 - 100
        rate, centre = 2e6, 1.2e9
        spectra = np.full((frames, vlen), -90.0, np.float32)
        spectra[:, tone_bin] = -30.0
        tb = gr.top_block()
        sink = gpufft.display_sink_f(vlen, rate, centre, colormap="grey", width=vlen, height=200)
        self.assertEqual(sink.vlen(), vlen)
        tb.connect(blocks.vector_source_f(spectra.ravel().tolist(), False, vlen), sink)
        w = shown(sink)
        tb.run()
        self.assertEqual(sink.frames_displayed(), frames)
        self.assertTrue(wait_for(lambda: w.property("frames_drawn") == sink.frames_displayed()))
        self.lines_off(w)
        img = grab(w, "f")
        sp, wf = w.property("spectrum_plot"), w.property("waterfall_plot")
        lo, hi = band(centre, rate, vlen)
        expected_x = pixel_of(centre + (tone_bin - vlen // 2) * rate / vlen, sp, lo, hi)
        newest = img[wf.top(), wf.left() : wf.right() + 1]
        bright = wf.left() + np.flatnonzero(newest == newest.max())
        self.assertTrue(len(bright) <= 3 and np.any(abs(bright - expected_x) <= 1),
                        f"brightest at {bright}, tone at {expected_x}")
        tone_y = sp.top() + int(np.argmax(img[sp.top() : sp.bottom() + 1, expected_x]))
        self.assertLessEqual(abs(tone_y - row_of(-30.0, sp, 0.0, 120.0)), sp.height() / 200 + 1)

    def test_radio_tags_set_the_axis(self):
        """rx_freq and rx_rate stream tags (what a radio source read back, as
        gr-soapy's tags its first sample and each retune) set the axis, as
        the QT GUI sinks follow rx_freq; a tag that is no number is ignored
        and the flowgraph runs to its end."""
        for make in (lambda: self.sink_c(), lambda: gpufft.display_sink_f(self.n, self.fs, self.fc)):
            with self.subTest(sink=make().name()):
                sink = make()
                vlen = 1 if sink.name() == "display_sink_c" else self.n
                items = 8 * self.n // vlen
                tags = [gr.tag_utils.python_to_tag((0, pmt.intern("rx_rate"), pmt.from_double(2.5e6))),
                        gr.tag_utils.python_to_tag((0, pmt.intern("rx_freq"), pmt.from_double(100.2e6))),
                        gr.tag_utils.python_to_tag((items // 2, pmt.intern("rx_freq"), pmt.intern("tuned"))),
                        gr.tag_utils.python_to_tag((items // 2, pmt.intern("rx_rate"), pmt.from_double(-1.0)))]
                if vlen == 1:
                    src = blocks.vector_source_c(self.tone(8).tolist(), False, 1, tags)
                else:
                    src = blocks.vector_source_f([-90.0] * (items * vlen), False, vlen, tags)
                tb = gr.top_block()
                tb.connect(src, sink)
                tb.run()
                self.assertEqual((sink.samp_rate(), sink.center_freq()), (2.5e6, 100.2e6))
                w = shown(sink)
                self.assertTrue(wait_for(lambda: abs(w.property("view_lo") - band(100.2e6, 2.5e6, self.n)[0]) < 1e-3, 2))

    def test_runtime_setters(self):
        sink = self.sink_c()
        w = sink.pyqwidget()
        sink.set_fft_size(2048)
        sink.set_window("hann")
        sink.set_backend("simd")
        sink.set_center_freq(10e6)
        sink.set_samp_rate(2e6)
        sink.set_ref_level(-10)
        sink.set_db_range(90)
        sink.set_decay(0.5)
        sink.set_frame_rate(10)
        sink.set_colormap("viridis")
        app.processEvents()
        self.assertEqual((sink.fft_size(), sink.window(), sink.colormap()), (2048, "hann", "viridis"))
        self.assertTrue(sink.backend().startswith("simd"))
        self.assertEqual((sink.center_freq(), sink.samp_rate(), sink.ref_level(), sink.db_range()),
                         (10e6, 2e6, -10, 90))
        self.assertEqual((sink.decay(), sink.frame_rate()), (0.5, 10))
        self.assertTrue(wait_for(lambda: abs(w.property("view_lo") - band(10e6, 2e6, 2048)[0]) < 1e-3, 2))
        # The widget's controls follow the block's reference (dBFS) and range (dB).
        spins = [s for s in w.findChildren(Qt.QDoubleSpinBox) if s.suffix() in (" dBFS", " dB")]
        self.assertEqual(sorted(s.value() for s in spins), [-10.0, 90.0])
        # And the average's.
        sink.set_average("linear", 16)
        frames = [s for s in w.findChildren(Qt.QDoubleSpinBox) if s.suffix() == " frames"]
        modes = [c for c in w.findChildren(Qt.QComboBox) if c.findText("linear") >= 0]
        self.assertTrue(wait_for(lambda: frames[0].value() == 16 and modes[0].currentText() == "linear", 2))

    def test_bad_parameters(self):
        good = dict(fft_size=1024, samp_rate=1e6, center_freq=0.0, backend="simd")
        for bad, word in [
            (dict(fft_size=0), "fft_size"),
            (dict(samp_rate=0.0), "samp_rate"),
            (dict(decay=0.0), "decay"),
            (dict(decay=1.0), "decay"),
            (dict(decay=-0.5), "decay"),
            (dict(width=0), "width"),
            (dict(height=0), "height"),
            (dict(colormap="jet"), "colormap"),
            (dict(backend="nope"), "nope"),
            (dict(format="cf64"), "format"),
            (dict(db_range=0.0), "db_range"),
            (dict(frame_rate=0.0), "frame_rate"),
            (dict(window="nope"), "window"),
            (dict(average="median"), "average"),
            (dict(average_frames=0.5), "average_frames"),
            (dict(average="linear", average_frames=513), "average_frames"),
            (dict(average="linear", average_frames=2.5), "average_frames"),
        ]:
            with self.subTest(bad=bad):
                with self.assertRaisesRegex(gpufft.error, word):
                    gpufft.display_sink_c(**dict(good, **bad))
        for bad, word in [(dict(vlen=0), "vlen"), (dict(decay=1.0), "decay"), (dict(width=0), "width"),
                          (dict(colormap="rainbow"), "colormap")]:
            with self.subTest(bad=bad):
                with self.assertRaisesRegex(gpufft.error, word):
                    gpufft.display_sink_f(**dict(dict(vlen=512, samp_rate=1e6), **bad))
        sink = gpufft.display_sink_c(**good)
        with self.assertRaisesRegex(gpufft.error, "decay"):
            sink.set_decay(1.5)
        self.assertEqual(sink.decay(), 0.98)
        self.assertEqual((sink.average(), sink.average_frames(), sink.min_hold()), ("exponential", 10.0, False))
        sink.set_average("linear", 16)
        sink.set_min_hold(True)
        self.assertEqual((sink.average(), sink.average_frames(), sink.min_hold()), ("linear", 16.0, True))
        with self.assertRaisesRegex(gpufft.error, "average_frames"):
            sink.set_average("linear", 1000)
        self.assertEqual(sink.average_frames(), 16.0)
        sink_f = gpufft.display_sink_f(512, 1e6, average="off", min_hold=True)
        self.assertEqual((sink_f.average(), sink_f.min_hold()), ("off", True))

    def test_grc_asserts(self):
        """The GRC definitions' asserts refuse what the constructors refuse."""
        for name, good in [("gpufft_display_sink_c", dict(fft_size=1024)), ("gpufft_display_sink_f", dict(vlen=1024))]:
            with open(os.path.join(GRC_DIR, name + ".block.yml")) as f:
                block = yaml.safe_load(f)
            good = dict(good, samp_rate=1e6, db_range=120, decay=0.98, frame_rate=30, width=1024, height=256,
                        average="exponential", average_frames=10)
            asserts = [a.strip()[2:-1] for a in block["asserts"]]

            def passes(values):
                return all(eval(a, {}, values) for a in asserts)

            self.assertTrue(passes(good), name)
            size = "fft_size" if "fft_size" in good else "vlen"
            for key, value in [(size, 0), ("decay", 0.0), ("decay", 1.0), ("width", 0), ("height", 0),
                               ("samp_rate", 0), ("db_range", 0), ("frame_rate", 0), ("average_frames", 0.5)]:
                with self.subTest(block=name, key=key, value=value):
                    self.assertFalse(passes(dict(good, **{key: value})))
            self.assertFalse(passes(dict(good, average="linear", average_frames=513)))
            self.assertFalse(passes(dict(good, average="linear", average_frames=2.5)))
            self.assertTrue(passes(dict(good, average="exponential", average_frames=2.5)))
            colormap = next(p for p in block["parameters"] if p["id"] == "colormap")
            self.assertGreaterEqual(len(colormap["options"]), 3)
            self.assertTrue(any(o["id"] == "freq" for o in block["outputs"]))
            self.assertIn("gui_hint() % win", block["templates"]["make"])


if __name__ == "__main__":
    gr_unittest.run(qa_display_sink)
