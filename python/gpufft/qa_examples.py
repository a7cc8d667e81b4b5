#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for examples/: every Python .grc compiles with grcc (against our grc/
block definitions) into the .py committed next to it, and each generated
flowgraph runs headless (Qt offscreen) for a few seconds without an error; the
recorder's file gets spectra, also when it replays an rtl_sdr-style .cu8 file.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
EXAMPLES = os.path.join(ROOT, "examples")
GRC_DIR = os.path.join(ROOT, "grc")
RUN_SECONDS = 4.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_text(path):
    with open(path) as f:
        return f.read()

class qa_examples(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gpufft_qa_examples_")
        cls.env = dict(os.environ, GRC_BLOCKS_PATH=GRC_DIR, QT_QPA_PLATFORM="offscreen",
                       XDG_RUNTIME_DIR=cls.tmp)
        # The C++ ones (output_language: cpp) are qa_examples_cpp's.
        cls.grcs = sorted(f for f in os.listdir(EXAMPLES)
                          if f.endswith(".grc") and "output_language: python" in read_text(os.path.join(EXAMPLES, f)))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def compile(self, grc):
        r = subprocess.run([shutil.which("grcc") or "grcc", "-o", self.tmp, os.path.join(EXAMPLES, grc)],
                           env=self.env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, f"grcc {grc}:\n{r.stdout}\n{r.stderr}")
        py = os.path.join(self.tmp, grc[:-4] + ".py")
        self.assertTrue(os.path.exists(py), py)
        return py

    def run_for_a_while(self, py, args=()):
        """Runs the flowgraph RUN_SECONDS; it must still run then (or have exited cleanly)."""
        p = subprocess.Popen([sys.executable, "-u", py, *args], env=self.env, cwd=self.tmp,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            p.wait(timeout=RUN_SECONDS)
        except subprocess.TimeoutExpired:
            p.terminate()
            try:
                out = p.communicate(timeout=10)[0]
            except subprocess.TimeoutExpired:
                p.kill()
                out = p.communicate()[0]
            self.assertNotIn("Traceback", out, f"{py}:\n{out}")
            return out
        out = p.communicate()[0]
        self.fail(f"{py} exited early with status {p.returncode}:\n{out}")

    def test_examples_exist(self):
        for name in ("spectrum_live", "waterfall", "headless_recorder", "fft_dropin", "display", "display_spectra",
                     "radar_range_doppler"):
            self.assertIn(name + ".grc", self.grcs)
            self.assertTrue(os.path.exists(os.path.join(EXAMPLES, name + ".py")), name + ".py")

    def test_waterfall_frequency_axis(self):
        # The time raster sink's own x axis is time: ncols / its rate (0..33
        # at 1024 bins and 30 frames a second). The example sets it to the
        # band the IQ covers, in MHz, around the centre frequency.
        with open(os.path.join(EXAMPLES, "waterfall.grc")) as f:
            flowgraph = yaml.safe_load(f)
        blocks = {b["name"]: b for b in flowgraph["blocks"]}
        raster = blocks["qtgui_time_raster_sink_x_0"]["parameters"]
        self.assertEqual(raster["x_label"], '"Frequency (MHz)"')
        self.assertIn("center_freq", blocks)
        names = dict(iq_rate=2.4e6, iq_centre=100e6)
        names["band_mhz"] = eval(blocks["band_mhz"]["parameters"]["value"], {}, names)
        self.assertAlmostEqual(eval(raster["x_start_value"], {}, names), 98.8)
        self.assertAlmostEqual(eval(raster["x_end_value"], {}, names), 101.2)

    def test_compile_and_run(self):
        for grc in self.grcs:
            with self.subTest(grc=grc):
                py = self.compile(grc)
                # The committed .py must be what grcc makes of the committed .grc.
                for name in os.listdir(self.tmp):
                    if name.startswith(grc[:-4]) and name.endswith(".py"):
                        with open(os.path.join(self.tmp, name)) as a, open(os.path.join(EXAMPLES, name)) as b:
                            self.assertEqual(a.read(), b.read(),
                                             f"examples/{name} is stale: regenerate it with "
                                             f"GRC_BLOCKS_PATH=grc grcc -o examples examples/{grc}")
                args = []
                if grc == "radar_range_doppler.grc":
                    args = ["--out-file", os.path.join(self.tmp, "maps.f32")]
                if grc == "headless_recorder.grc":
                    out_file = os.path.join(self.tmp, "spectra.f32")
                    args = ["--out-file", out_file, "--zmq-address", f"tcp://127.0.0.1:{free_port()}"]
                self.run_for_a_while(py, args)
                if grc == "headless_recorder.grc":
                    self.assertGreater(os.path.getsize(out_file), 0, "no spectra recorded")

    def run_probe(self, code, env=None):
        """Runs code in a Python with the examples importable and a
        QApplication `app`; returns its output lines but GNU Radio's log."""
        r = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); from PyQt5 import Qt; "
                            "app = Qt.QApplication([]); " % EXAMPLES + code], env=env or self.env, cwd=self.tmp,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [l for l in r.stdout.splitlines() if not l.startswith("log :")]

    def test_display_examples_open_readable(self):
        """The display examples and fft_dropin open, the first time (no
        saved geometry), at a size with a usable spectrum plot; a file needs
        its own rate and centre (exit 2 naming both); the ZeroMQ collector
        is executable."""
        home = tempfile.mkdtemp(dir=self.tmp)  # QSettings: no geometry saved yet
        env = dict(self.env, XDG_CONFIG_HOME=home, HOME=home)
        probe = ("import {0}; tb = {0}.{0}(); tb.show(); app.processEvents(); print(tb.width(), tb.height()); "
                 "w = tb.display_sink.pyqwidget() if hasattr(tb, 'display_sink') else None; "
                 "w and print(w.property('spectrum_plot').height(), w.property('annotation'))")
        for name in ("display", "display_spectra", "spectrum_live", "waterfall", "fft_dropin"):
            with self.subTest(example=name):
                lines = self.run_probe(probe.format(name), env)
                width, height = lines[0].split()
                self.assertGreaterEqual(int(width), 1000, lines)
                self.assertGreaterEqual(int(height), 700, lines)
                if name.startswith("display"):
                    plot, annotation = lines[1].split(" ", 1)
                    self.assertGreaterEqual(int(plot), 250, lines)
                    self.assertIn("Centre 100.000 MHz   Span 2.400 MHz", annotation)
                iq = os.path.join(self.tmp, "capture.cf32")
                np.zeros(4096, np.complex64).tofile(iq)
                # Raw samples carry no rate or centre: none stands in for them.
                for given, missing in ((["--samp-rate", "2.048e6"], "--center-freq"),
                                       (["--center-freq", "1e9"], "--samp-rate")):
                    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name + ".py"), "--iq-file", iq, *given],
                                       env=env, capture_output=True, text=True, timeout=60)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    self.assertIn(missing, r.stderr)
        # GRC's C++ QT GUI flowgraphs keep no window geometry: the display
        # sink's C++ template opens its window at that size (qa_examples_cpp
        # builds and runs it).
        r = subprocess.run([shutil.which("grcc") or "grcc", "-o", self.tmp, os.path.join(EXAMPLES, "display_cpp.grc")],
                           env=self.env, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        constructor = read_text(os.path.join(self.tmp, "display_cpp", "display_cpp.cpp"))
        self.assertIn("this->resize(std::max(this->width(), 1100), std::max(this->height(), 860));", constructor)
        for name in ("display", "display_spectra", "spectrum_live", "waterfall"):
            r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name + ".py"), "--iq-file", iq,
                                "--samp-rate", "2.048e6", "--center-freq", "1e9", "--device", "driver=gpufftsim"],
                               env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("--iq-file and --device", r.stderr)
        # The vector sink's axis: absolute frequency in MHz, levels in dBFS.
        with open(os.path.join(EXAMPLES, "spectrum_live.grc")) as f:
            blocks = {b["name"]: b for b in yaml.safe_load(f)["blocks"]}
        vector = blocks["qtgui_vector_sink_f_0"]["parameters"]
        names = dict(iq_rate=2.4e6, iq_centre=100e6, fft_size=4096)
        self.assertAlmostEqual(eval(vector["x_start"], {}, names), 98.8)
        self.assertEqual((vector["x_units"], vector["y_units"]), ('"MHz"', '"dBFS"'))
        self.assertTrue(os.access(os.path.join(EXAMPLES, "zmq_collector.py"), os.X_OK))

    def test_examples_read_sigmf(self):
        """Given a SigMF recording, the display examples, spectrum_live,
        waterfall, fft_dropin and headless_recorder play it at its
        core:sample_rate and label their axes with it and its first
        capture's core:frequency (the display sinks' rate and centre, the
        vector sinks' and the raster's axis variables, the grid the recorder
        says its spectra are on); --samp-rate or --center-freq contradicting
        it exits with status 2 naming the option and the recording's value;
        one agreeing is taken. Raw samples without them exit with status 2
        naming the missing option."""
        data = os.path.join(self.tmp, "rec.sigmf-data")
        (np.ones(8192, np.int16) * 100).tofile(data)
        with open(os.path.join(self.tmp, "rec.sigmf-meta"), "w") as f:
            json.dump({"global": {"core:datatype": "ci16_le", "core:sample_rate": 2.048e6, "core:version": "1.0.0"},
                       "captures": [{"core:sample_start": 0, "core:frequency": 433.92e6}], "annotations": []}, f)
        # One Python builds every example's flowgraph (each import costs seconds).
        names = ("display", "display_spectra", "spectrum_live", "waterfall", "fft_dropin", "headless_recorder")
        # The recorder's file and sockets (one a flowgraph): this test's own.
        recorder = lambda: ", out_file=%r, zmq_address='tcp://127.0.0.1:%d'" % (
            os.path.join(self.tmp, "sigmf.f32"), free_port())
        probe = "".join(
            "import {0}; tb = {0}.{0}(iq_file=%r{1}{2}); "
            "print('{0}', tb.iq_source.samp_rate(), tb.iq_source.center_freq(), tb.get_iq_rate(), tb.get_iq_centre(), "
            "*((tb.display_sink.samp_rate(), tb.display_sink.center_freq()) if hasattr(tb, 'display_sink') else ()), "
            "*((tb.gpufft_spectrum_c_0.sample_rate(),) if hasattr(tb, 'gpufft_spectrum_c_0') else ()), "
            "*getattr(tb, 'band_mhz', ())); {3}".format(
                name, given, recorder() if name == "headless_recorder" else "",
                "{0}.snippets_main_after_init(tb); ".format(name) if name == "headless_recorder" else "") % data
            for name in names for given in ("", ", samp_rate=2.048e6, center_freq=433.92e6"))
        lines = [l.split() for l in self.run_probe(probe)]
        self.assertEqual([l[0] for l in lines if l[0] in names], [n for n in names for _ in range(2)], lines)
        for line in (l for l in lines if l[0] in names):
            want = [2.048e6, 433.92e6] * (3 if line[0].startswith("display") else 2)
            if line[0] not in ("display", "fft_dropin"):
                want += [2.048e6]  # spectrum_c's rate
            if line[0] == "waterfall":
                want += [432.896, 434.944]
            self.assertEqual([float(v) for v in line[1:]], want, line)
        # The recorder's spectra: 4096 bins from the band's lower edge, 500 Hz apart.
        grid = [l for l in lines if l[0] == "headless_recorder.py:"]
        self.assertEqual(len(grid), 2, lines)
        for line in grid:
            self.assertIn("432896000 Hz", " ".join(line))
            self.assertIn("500 Hz", " ".join(line))
        raw = os.path.join(self.tmp, "raw.cs16")
        (np.ones(8192, np.int16) * 100).tofile(raw)
        for name, args, words in (
                ("display", ["--iq-file", data, "--samp-rate", "2.4e6"], ("--samp-rate 2400000", "2048000")),
                ("display_spectra", ["--iq-file", data, "--center-freq", "100e6"],
                 ("--center-freq 100000000", "433920000")),
                ("spectrum_live", ["--iq-file", data, "--samp-rate", "2.4e6"], ("--samp-rate 2400000", "2048000")),
                ("waterfall", ["--iq-file", data, "--center-freq", "100e6"], ("--center-freq 100000000", "433920000")),
                ("fft_dropin", ["--iq-file", data, "--samp-rate", "2.4e6"], ("--samp-rate 2400000", "2048000")),
                ("headless_recorder", ["--iq-file", raw, "--center-freq", "100e6"], ("raw IQ file", "--samp-rate"))):
            r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name + ".py"), *args],
                               env=self.env, cwd=self.tmp, capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, r.stderr)
            for word in words:
                self.assertIn(word, r.stderr)

    def test_display_average_from_grc(self):
        """The display sink's average line as a GRC parameter and callback:
        display's slider variable sets the sink's time constant."""
        lines = self.run_probe("import display; tb = display.display(); s = tb.display_sink; "
                               "print(s.average(), s.average_frames()); tb.set_average_frames(4); "
                               "print(s.average(), s.average_frames())")
        self.assertEqual(lines[-2:], ["exponential 10.0", "exponential 4.0"], lines)

    def test_display_live_source(self):
        """--device: the display examples, spectrum_live and waterfall show a
        SoapySDR radio (the simulated one), their axes at the rate and centre
        it read back (it tunes in 300 kHz steps: 100.1 MHz asked, 100.2 MHz
        tuned), not the options'."""
        plugins = os.environ.get("SOAPY_SDR_PLUGIN_PATH", "")
        if not any(os.path.exists(os.path.join(d, "libgpufftsim.so")) for d in plugins.split(":") if d):
            self.skipTest("the simulated radio (libgpufftsim.so) is not on SOAPY_SDR_PLUGIN_PATH")
        probe = ("import time, {0}; tb = {0}.{0}(samp_rate=2.5e6, center_freq=100.1e6, "
                 "device='driver=gpufftsim,tune_step=300e3,tones=100.5e6:-30'); tb.start(); s = tb.display_sink; "
                 "end = time.time() + 20\n"
                 "while s.center_freq() != 100.2e6 and time.time() < end: time.sleep(0.05)\n"
                 "print(s.samp_rate(), s.center_freq(), tb.iq_source.samp_rate(), tb.iq_source.center_freq()); "
                 "tb.stop(); tb.wait()")
        for name in ("display", "display_spectra"):
            with self.subTest(example=name):
                lines = self.run_probe(probe.format(name))
                self.assertEqual([float(v) for v in lines[-1].split()], [2.5e6, 100.2e6, 2.5e6, 100.2e6], lines)
        # spectrum_live's QT GUI sink follows no tag: its program sets the
        # flowgraph's rate and centre (the sink's axis) to the radio's.
        lines = self.run_probe("import spectrum_live as s; tb = s.spectrum_live(samp_rate=2.5e6, center_freq=100.1e6, "
                               "device='driver=gpufftsim,tune_step=300e3'); s.snippets_main_after_init(tb); "
                               "print(tb.get_samp_rate(), tb.get_center_freq())")
        self.assertEqual([float(v) for v in lines[-1].split()], [2.5e6, 100.2e6], lines)
        # waterfall's raster sink neither: its program sets its band (the x
        # axis) and spectrum_c's rate to the radio's, and the rows come.
        lines = self.run_probe("import time, waterfall as w; tb = w.waterfall(samp_rate=2.5e6, center_freq=100.1e6, "
                               "device='driver=gpufftsim,tune_step=300e3'); w.snippets_main_after_init(tb); "
                               "print(*tb.band_mhz, tb.gpufft_spectrum_c_0.sample_rate()); tb.start(); "
                               "end = time.time() + 20\n"
                               "while tb.gpufft_spectrum_c_0.nitems_written(0) < 3 and time.time() < end: time.sleep(0.05)\n"
                               "print(tb.gpufft_spectrum_c_0.nitems_written(0) >= 3); tb.stop(); tb.wait()")
        self.assertEqual([float(v) for v in lines[-2].split()], [100.2 - 1.25, 100.2 + 1.25, 2.5e6], lines)
        self.assertEqual(lines[-1], "True", lines)

    def test_radar_targets_in_their_cells(self):
        """Each simulated target is a peak of the range-Doppler map in the cell its range and velocity give."""
        with open(os.path.join(EXAMPLES, "radar_range_doppler.grc")) as f:
            variables = {b["name"]: b["parameters"]["value"] for b in yaml.safe_load(f)["blocks"]
                         if b["id"] == "variable"}
        names = {}
        for name, value in variables.items():  # defined in order, each from the ones before
            names[name] = eval(value, {}, names)
        n, m = names["fft_size"], names["num_chirps"]
        want = {(round(r / names["range_res"]), m // 2 + round(v / names["velocity_res"]))
                for r, v, _ in names["targets"]}
        out_file = os.path.join(self.tmp, "radar_maps.f32")
        self.run_for_a_while(self.compile("radar_range_doppler.grc"), ["--out-file", out_file])
        maps = np.fromfile(out_file, np.float32)
        self.assertGreaterEqual(len(maps), n * m, "no map recorded")
        last = maps[len(maps) // (n * m) * n * m - n * m:][: n * m].reshape(n, m)
        found, rest = set(), last.copy()
        for _ in names["targets"]:
            cell = np.unravel_index(int(np.argmax(rest)), rest.shape)
            found.add((int(cell[0]), int(cell[1])))
            rest[max(0, cell[0] - 3): cell[0] + 4, :] = -np.inf  # its window's sidelobes too
        self.assertEqual(found, want)
        # Every target stands clear of the noise and of what is left.
        weakest = min(last[c] for c in want)
        self.assertGreater(weakest - float(np.median(last)), 20.0)
        self.assertGreater(weakest - float(np.max(rest)), 10.0)

    def test_recorder_replays_cu8(self):
        py = self.compile("headless_recorder.grc")
        n = 1 << 16
        t = np.arange(n)
        x = 0.5 * np.exp(2j * np.pi * 0.125 * t)
        iq = np.empty(2 * n, np.uint8)
        iq[0::2] = np.clip(np.round(x.real * 127.5 + 127.5), 0, 255)
        iq[1::2] = np.clip(np.round(x.imag * 127.5 + 127.5), 0, 255)
        iq_file = os.path.join(self.tmp, "tone.cu8")
        iq.tofile(iq_file)
        out_file = os.path.join(self.tmp, "tone_spectra.f32")
        self.run_for_a_while(py, ["--iq-file", iq_file, "--samp-rate", "2.4e6", "--center-freq", "100e6",
                                  "--out-file", out_file, "--zmq-address", f"tcp://127.0.0.1:{free_port()}"])
        spectra = np.fromfile(out_file, np.float32)
        fft_size = 4096
        self.assertGreaterEqual(len(spectra), fft_size)
        last = spectra[len(spectra) // fft_size * fft_size - fft_size:][:fft_size]
        # shift=True: 0.125 * fs is bin fft_size / 2 + fft_size / 8
        self.assertEqual(int(np.argmax(last)), fft_size // 2 + fft_size // 8)


if __name__ == "__main__":
    unittest.main()
