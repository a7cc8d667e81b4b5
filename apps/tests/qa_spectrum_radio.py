#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft-spectrum's sweeps as separate processes, on gpufftsim (the
simulated SoapySDR module CTest puts on SOAPY_SDR_PLUGIN_PATH):

- the rtl_power CSV, field by field against the format rtl_power.c writes,
  then read the way rtl_power's heatmap.py reads it (rows keyed by date and
  time, a column per bin from Hz low, Hz high and Hz step), tone and all;
- SIGINT in the middle of a sweep or a live capture: exit status 130, only
  complete rows, a PNG whose every chunk and row decodes;
- the named outputs written as the sweep goes: rows and a recording readable
  while it runs, and after a SIGKILL every row whole, the SigMF metadata
  valid and describing the samples in the data file;
- memory on a long run stays flat (a run 4 times longer, about the same peak RSS);
- our SigMF metadata (a live and a sweep recording, annotated) valid under
  the rules of the official SigMF schema (sigmf-schema.json, v1.2), restated
  here since Debian packages neither it nor sigmf-python, and read the way a
  reader without our extension reads it;
- the live outputs of a sweep: --zmq-pub read with pyzmq and the example
  collector's parser, and --serve's metadata and rows, each a whole band with
  the tones at their absolute frequencies; and a SigMF recording's spectra
  published at their own capture's centre;
- gpufft-power, rtl_power's command line: the example command lines of
  rtl_power's help (intervals scaled down) on the first device SoapySDR
  finds, rows and hop plan as rtl_power.c makes them, tones at their
  frequencies, the noise floor's spread against the FFTs averaged, SIGINT,
  and bad options.

The programs are $GPUFFT_SPECTRUM_EXE and $GPUFFT_POWER_EXE.
"""

import os
import json
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import jsonschema
import numpy as np
import zmq
from gnuradio import gr_unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples")]
from qa_spectrum_live import free_port, parse_frame, ws_client  # noqa: E402
from zmq_collector import parse_message  # noqa: E402

EXE = os.environ["GPUFFT_SPECTRUM_EXE"]
POWER = os.environ["GPUFFT_POWER_EXE"]
SIM = "driver=gpufftsim"
# Two tones, one near a hop edge (hops of 1.8 MHz from 88 MHz), on 9375 Hz bins.
SWEEP_TONES = ((100.1e6, -30), (91.3e6, -45))

# rtl_power.c (rtl-sdr), main() and csv_dbm(): "%Y-%m-%d, %H:%M:%S, " then
# "Hz low, Hz high, Hz step, samples, " as "%i, %i, %.2f, %i, " and each dB
# as "%.2f" joined by ", ": (Hz high - Hz low) / step + 1 of them, the last
# bin's value written twice.
ROW = re.compile(r"^\d{4}-\d\d-\d\d, \d\d:\d\d:\d\d, -?\d+, -?\d+, \d+\.\d\d, \d+(, -?\d+\.\d\d)+$")


def heatmap_matrix(path):
    """rtl_power rows as heatmap.py arranges them: one row per timestamp, one
    column per bin over the lowest to the highest frequency; NaN where no
    row said anything. Returns (matrix, first column's Hz, step, times)."""
    rows = []
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        cells = [c.strip() for c in line.strip().split(",")]
        low, high, step = int(cells[2]), int(cells[3]), float(cells[4])
        # heatmap.py takes a column per frange(low, high, step): the repeated last value is left out.
        values = [float(c) for c in cells[6:]][:int(round((high - low) / step))]
        rows.append((cells[0] + " " + cells[1], low, high, step, values))
    times = sorted({r[0] for r in rows})
    f_min = min(r[1] for r in rows)
    f_max = max(r[2] for r in rows)
    step = rows[0][3]
    matrix = np.full((len(times), int(round((f_max - f_min) / step))), np.nan)
    for t, low, _, _, values in rows:
        col = int(round((low - f_min) / step))
        matrix[times.index(t), col:col + len(values)] = values
    return matrix, f_min, step, times


def rtl_power_plan(lower, upper, max_size, crop=0.0):
    """rtl_power.c (rtl-sdr 0.6), frequency_range() then csv_dbm(), restated:
    (Hz low, Hz high, Hz step, values) of each hop's row, rtl_power's boxcar
    downsampling (no -F)."""
    tune_count, bw_seen, bw_used = 0, 0, 0
    for i in range(1, 1500):
        bw_seen = (upper - lower) // i
        bw_used = int(bw_seen / (1.0 - crop))
        if bw_used > 2800000:
            continue
        tune_count = i
        break
    downsample = 1
    if bw_used < 1000000:
        tune_count = 1
        downsample = 2800000 // bw_used
        bw_used *= downsample
    for i in range(1, 22):
        bin_e = i
        if bw_used / ((1 << i) * downsample) <= max_size:
            break
    if max_size >= 1000000:
        bw_seen = bw_used = max_size
        tune_count = (upper - lower) // bw_seen
        bin_e = 0
        crop = 0
    length = 1 << bin_e
    rows = []
    for i in range(tune_count):
        freq = lower + i * bw_seen + bw_seen // 2
        bin_count = int(length * (1.0 - crop))
        bw2 = int(bw_used * bin_count / (length * 2 * downsample))
        i1 = int(length * crop * 0.5)
        i2 = length - 1 - int(length * crop * 0.5)
        rows.append((freq - bw2, freq + bw2, bw_used / (length * downsample), i2 - i1 + 2))
    return rows


def rtl_power_rows(text):
    """Rows of rtl_power CSV: (date time, Hz low, Hz high, step, samples, values without the repeated last)."""
    out = []
    for line in text.splitlines():
        cells = line.split(", ")
        values = [float(c) for c in cells[6:]]
        out.append((cells[0] + " " + cells[1], int(cells[2]), int(cells[3]), float(cells[4]), int(cells[5]),
                    values[:-1]))
    return out


def check_png(path):
    """Every chunk's CRC, the IHDR and the image data's size; returns (width, height)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in {kind}"
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
        if kind == b"IEND":
            break
    assert pos == len(data), "bytes after IEND"
    width, height = size
    assert len(zlib.decompress(idat)) == height * (1 + 3 * width), "image data of the wrong size"
    return width, height


# The official SigMF schema's rules for what we write (sigmf-schema.json,
# SigMF v1.2: required members, types, ranges and patterns), as JSON Schema.
UINT = {"type": "integer", "minimum": 0, "maximum": 18446744073709551615}
SIGMF_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["global", "captures", "annotations"],
    "additionalProperties": False,
    "properties": {
        "global": {
            "type": "object",
            "required": ["core:datatype", "core:version"],
            "properties": {
                "core:datatype": {"type": "string", "pattern": "^(c|r)(f32|f64|i32|i16|u32|u16|i8|u8)(_le|_be)?"},
                "core:sample_rate": {"type": "number", "minimum": 1, "maximum": 1e12},
                "core:version": {"type": "string", "pattern": r"^\d+\.\d+\.\d"},
                "core:hw": {"type": "string"},
                "core:recorder": {"type": "string"},
                "core:dataset": {"type": "string"},
                "core:num_channels": {"type": "integer", "minimum": 1, "maximum": 1000},
                "core:extensions": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "version", "optional"],
                        "additionalProperties": False,
                        "properties": {"name": {"type": "string"}, "version": {"type": "string"},
                                       "optional": {"type": "boolean"}},
                    },
                },
            },
        },
        "captures": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["core:sample_start"],
                "properties": {
                    "core:sample_start": UINT,
                    "core:frequency": {"type": "number", "minimum": -1e12, "maximum": 1e12},
                    "core:datetime": {"type": "string",
                                      "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$"},
                },
            },
        },
        "annotations": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["core:sample_start"],
                "properties": {
                    "core:sample_start": UINT,
                    "core:sample_count": UINT,
                    "core:freq_lower_edge": {"type": "number", "minimum": -1e12, "maximum": 1e12},
                    "core:freq_upper_edge": {"type": "number", "minimum": -1e12, "maximum": 1e12},
                    "core:label": {"type": "string"},
                    "core:comment": {"type": "string"},
                    "core:generator": {"type": "string"},
                },
            },
        },
    },
}


class subscriber:
    """A ZeroMQ SUB socket on address taking every message; recv() waits at
    most timeout_ms (then zmq.Again)."""

    def __init__(self, address, timeout_ms):
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.SUB)
        self.socket.setsockopt(zmq.SUBSCRIBE, b"")
        self.socket.setsockopt(zmq.RECONNECT_IVL, 10)
        self.socket.setsockopt(zmq.RCVTIMEO, timeout_ms)
        self.socket.connect(address)

    def recv(self):
        return self.socket.recv()

    def close(self):
        self.socket.close()
        self.context.term()

class qa_spectrum_radio(gr_unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_rtl_power_csv_heatmap(self):
        csv = self.path("sweep.csv")
        tones = "100.1e6:-30;91.3e6:-45"
        out = subprocess.run([EXE, "--device", f"{SIM},paced=0,tones={tones}", "--sweep", "88M:108M:10k", "--once",
                              "--rtl-power", csv, "--png", "none", "--quiet"], capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(csv) as f:
            lines = f.read().split("\n")
        self.assertEqual(lines[-1], "")  # ends with a complete row
        self.assertEqual(len(lines) - 1, 12)  # a row per hop
        for line in lines[:-1]:
            self.assertRegex(line, ROW)
            cells = line.split(", ")
            low, high, step, samples = int(cells[2]), int(cells[3]), float(cells[4]), int(cells[5])
            self.assertAlmostEqual((high - low) / step + 1, len(cells) - 6, delta=0.01)
            self.assertEqual(cells[-1], cells[-2])
            self.assertEqual(step, 9375.0)
            self.assertGreater(samples, 0)
            # radiosonde_auto_rx's parsers spread a row's values evenly from Hz
            # low to Hz high: each tone then lies within half a bin of its peak.
            values = np.array([float(c) for c in cells[6:]])
            freqs = np.linspace(low, high, len(values))
            for hz, _ in SWEEP_TONES:
                if low + 2 * step <= hz <= high - 2 * step:
                    near = np.abs(freqs - hz) < 3 * step
                    peak = freqs[near][np.argmax(values[near])]
                    self.assertLessEqual(abs(peak - hz), step / 2, f"tone {hz} Hz read at {peak} Hz")
        matrix, f0, step, times = heatmap_matrix(csv)
        self.assertEqual(matrix.shape[1], 2134)  # 20 MHz in 9375 Hz bins: adjacent hops, no gaps
        self.assertFalse(np.isnan(matrix).any())
        self.assertEqual(f0, 88000000)
        for hz, db in ((100.1e6, -30), (91.3e6, -45)):
            col = int(np.nanargmax(np.where(np.abs(f0 + np.arange(matrix.shape[1]) * step - hz) < 2 * step,
                                            matrix[0], -np.inf)))
            self.assertLessEqual(abs(f0 + col * step - hz), step)
            self.assertLess(abs(matrix[0, col] - db), 1.0)

    def test_sigint_mid_sweep(self):
        for csv_to_stdout in (False, True):
            csv, png = self.path("int.csv"), self.path("int.png")
            # Paced at 2.4 MS/s: 12 hops of about 60 ms, so 1.0 s after the plan is in the second sweep.
            args = [EXE, "--device", f"{SIM},tones=100.1e6:-30", "--sweep", "88M:108M:10k", "--rtl-power",
                    "-" if csv_to_stdout else csv, "--png", png, "--quiet"]
            with open(csv if csv_to_stdout else os.devnull, "w") as stdout:
                proc = subprocess.Popen(args, stdout=stdout if csv_to_stdout else subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
                report = proc.stderr if csv_to_stdout else proc.stdout
                self.assertIn("gpufftsim", report.readline())  # the device
                self.assertIn("12 hops", report.readline())  # the plan: the sweep has begun
                time.sleep(1.0)
                proc.send_signal(signal.SIGINT)
                proc.communicate(timeout=30)
            self.assertEqual(proc.returncode, 130)
            with open(csv) as f:
                text = f.read()
            self.assertTrue(text.endswith("\n"))
            rows = text.split("\n")[:-1]
            self.assertGreater(len(rows), 0)
            for line in rows:
                self.assertRegex(line, ROW)
            # A waterfall row per sweep begun, the interrupted one included.
            width, height = check_png(png)
            self.assertEqual(width, 64 + 1024 + 84)
            self.assertEqual(height, 12 + -(-len(rows) // 12) + 40)

    def test_sigkill_mid_sweep(self):
        csv, rec = self.path("kill.csv"), self.path("kill")
        # Paced at 2.4 MS/s: 12 hops of about 60 ms a sweep, until killed.
        proc = subprocess.Popen([EXE, "--device", f"{SIM},format=CF32,tones=100.1e6:-30", "--sweep", "88M:108M:10k",
                                 "--rtl-power", csv, "--record", rec, "--png", self.path("kill.png"), "--quiet"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for cleanup in (proc.stderr.close, proc.wait, proc.kill):  # run in reverse: never left running
            self.addCleanup(cleanup)

        def rows():
            with open(csv) as f:
                lines = f.read().split("\n")
            for line in lines[:-1]:  # after the last newline: at most the row in progress
                self.assertRegex(line, ROW)
            return lines[:-1]

        def recording():
            with open(rec + ".sigmf-meta") as f:
                meta = json.load(f)
            self.check_sigmf_meta(meta)
            samples = os.path.getsize(rec + ".sigmf-data") // 8  # cf32
            starts = [c["core:sample_start"] for c in meta["captures"]]
            self.assertLessEqual(starts[-1], samples)  # every capture described has its samples on disk
            return meta

        # The rows of the first hops, while it runs (a generous deadline: the machine may be shared).
        deadline = time.monotonic() + 30
        while not (os.path.exists(csv) and len(rows()) >= 3) and time.monotonic() < deadline:
            self.assertIsNone(proc.poll(), proc.stderr.read() if proc.poll() is not None else "")
            time.sleep(0.05)
        self.assertGreaterEqual(len(rows()), 3)
        self.assertIsNone(proc.poll())  # still sweeping
        recording()
        proc.kill()
        proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, -signal.SIGKILL)
        self.assertGreaterEqual(len(rows()), 3)
        meta = recording()
        self.assertEqual(meta["captures"][0]["core:frequency"], 88.9e6)  # the first hop's centre

    def test_sigint_live(self):
        csv, png = self.path("live.csv"), self.path("live.png")
        proc = subprocess.Popen([EXE, "--device", f"{SIM},tones=100.1e6:-30", "--center", "100e6", "--rtl-power", csv,
                                 "--png", png, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertIn("gpufftsim", proc.stdout.readline())
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("100099609.375 Hz", out)  # the tone's bin among the peaks
        with open(csv) as f:
            rows = f.read().split("\n")
        self.assertEqual(rows[-1], "")
        # A row per second of the clock (the default --interval), the last one cut short by the signal.
        self.assertIn(len(rows) - 1, (1, 2, 3))
        for line in rows[:-1]:
            self.assertRegex(line, ROW)
        self.assertEqual(len({line[:20] for line in rows[:-1]}), len(rows) - 1)  # no two at one time
        self.assertGreater(check_png(png)[1], 12 + 5 + 40)  # a waterfall row per spectrum: 25 a second

    def test_stalled_device_ends(self):
        # A wedged device (every read times out) and one that only overflows,
        # live and in a sweep: each run ends by itself with exit status 1 and
        # a message naming the device (the 60 s are a hang guard, not a timing).
        runs = [
            ["--device", f"{SIM},timeout_after=200000", "--center", "100e6", "--stall-timeout", "0.5"],
            ["--device", f"{SIM},overflow_always_after=200000", "--center", "100e6", "--stall-timeout", "0.5"],
            ["--device", f"{SIM},timeout_after=200000", "--sweep", "88M:108M:10k", "--stall-timeout", "0.5"],
            ["--device", f"{SIM},overflow_always_after=200000", "--sweep", "88M:108M:10k"],
        ]
        for args in runs:
            out = subprocess.run([EXE, *args, "--png", self.path("stall.png"), "--quiet"], capture_output=True,
                                 text=True, timeout=60)
            self.assertEqual(out.returncode, 1, f"{args}: {out.stderr}")
            self.assertTrue("the device gpufftsim (serial=" in out.stderr or "dropped samples" in out.stderr,
                            f"{args}: {out.stderr}")

    def test_memory_flat(self):
        # One hop per sweep, unpaced: thousands of sweeps a second, each a waterfall row.
        def peak_rss_kib(seconds):
            args = [EXE, "--device", f"{SIM},paced=0,tones=100.1e6:-30", "--sweep", "100M:101M:10k", "--settle",
                    "0", "--dwell", "0.001", "--duration", str(seconds), "--rtl-power", os.devnull, "--png",
                    self.path("mem.png"), "--quiet"]
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            _, status, usage = os.wait4(proc.pid, 0)
            out = proc.stdout.read()
            self.assertEqual(os.waitstatus_to_exitcode(status), 0, proc.stderr.read())
            sweeps = int(re.search(r"sweep: (\d+) sweeps", out).group(1))
            return usage.ru_maxrss, sweeps

        short, sweeps_short = peak_rss_kib(1.5)
        long, sweeps_long = peak_rss_kib(6)
        print(f"peak RSS {short} KiB after {sweeps_short} sweeps, {long} KiB after {sweeps_long} sweeps")
        self.assertGreater(sweeps_long, 2 * sweeps_short)  # the machine may be shared
        self.assertLess(long - short, 4096)

    def check_sigmf_meta(self, meta):
        jsonschema.Draft202012Validator(SIGMF_SCHEMA).validate(meta)
        g = meta["global"]
        # Every namespace used is declared in core:extensions ("Extension Namespaces").
        declared = {e["name"] for e in g.get("core:extensions", [])}
        used = {key.split(":")[0] for obj in [g, *meta["captures"], *meta["annotations"]] for key in obj}
        self.assertEqual(used - {"core"}, declared)
        for key in ("captures", "annotations"):  # sorted by core:sample_start
            starts = [c["core:sample_start"] for c in meta[key]]
            self.assertEqual(starts, sorted(starts))
        for a in meta["annotations"]:  # both edges or neither
            self.assertEqual("core:freq_lower_edge" in a, "core:freq_upper_edge" in a)

    def test_sigmf_schema(self):
        live, sweep = self.path("live"), self.path("sweep")
        for args in (["--center", "100M", "--duration", "0.3", "--record", live, "--annotate"],
                     ["--sweep", "99M:102M:10k", "--once", "--record", sweep]):
            out = subprocess.run([EXE, "--device", f"{SIM},paced=0,tones=100.1e6:-10", "--gain", "LNA=3", *args,
                                  "--png", "none", "--quiet"], capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
        for name in (live, sweep):
            with open(name + ".sigmf-meta") as f:
                meta = json.load(f)
            self.check_sigmf_meta(meta)
            g = meta["global"]
            self.assertEqual((g["gpufft:full_scale"], g["gpufft:gain_db"], g["gpufft:gains_db"]),
                             (2048, 3, {"LNA": 3, "VGA": 0}))
            self.assertIn("gain 3 dB", g["core:hw"])
        with open(live + ".sigmf-meta") as f:
            meta = json.load(f)
        self.assertTrue(meta["annotations"])
        # The -7 dBFS tone (3 dB of gain) as a reader without our extension
        # sees it, ci16_le scaled by 32768: 24.08 dB low; with it, right.
        iq = np.fromfile(live + ".sigmf-data", dtype="<i2").astype(float)
        z = (iq[0::2] + 1j * iq[1::2])[-65536:]
        w = np.blackman(len(z))
        peak = np.max(np.abs(np.fft.fft(z * w, 8 * len(z)))) / np.sum(w)  # zero-padded: no scalloping
        self.assertAlmostEqual(20 * np.log10(peak / 32768), -7 - 20 * np.log10(32768 / 2048), delta=0.1)
        self.assertAlmostEqual(20 * np.log10(peak / meta["global"]["gpufft:full_scale"]), -7, delta=0.1)

    def sweep_process(self, *live_args):
        tones = ";".join(f"{hz}:{db}" for hz, db in SWEEP_TONES)
        return subprocess.Popen([EXE, "--device", f"{SIM},paced=0,tones={tones}", "--sweep", "88M:108M:10k",
                                 "--png", "none", "--name", "mast", "--quiet", *live_args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def check_band(self, f0, step, db, gain=0):
        self.assertEqual(len(db), 2134)  # the whole band: 20 MHz in 9375 Hz bins
        self.assertEqual(f0, 88e6)
        self.assertEqual(step, 9375.0)
        for hz, level in SWEEP_TONES:
            k = int(round((hz - f0) / step))
            peak = k - 2 + int(np.argmax(db[k - 2:k + 3]))
            self.assertLessEqual(abs(f0 + peak * step - hz), step)
            self.assertLess(abs(db[peak] - level - gain), 1.0)
            self.assertGreater(db[peak] - np.median(db), 20)

    def test_sweep_zmq_pub(self):
        address = f"tcp://127.0.0.1:{free_port()}"
        proc = self.sweep_process("--zmq-pub", address, "--gain", "6")
        sub = subscriber(address, 20000)
        try:
            for _ in range(3):  # a message per whole sweep
                tags, db = parse_message(sub.recv())
                self.assertEqual(tags["name"], "mast")
                self.assertAlmostEqual(tags["rx_freq"], 88e6 + 2133 * 9375.0 / 2)  # the band's middle
                self.assertEqual(tags["rx_rate"], 2.4e6)  # the hops'
                self.assertEqual(tags["fft_size"], 256)
                self.assertEqual(tags["rx_gain"], 6)  # the gain in force, as read back
                self.assertLess(abs(sum(tags["rx_time"]) - time.time()), 30)
                self.check_band(tags["f0_hz"], tags["bin_hz"], db, gain=6)
        finally:
            sub.close()
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)

    def test_sweep_serve(self):
        proc = self.sweep_process("--serve", "127.0.0.1:0")
        try:
            self.assertTrue(select.select([proc.stderr], [], [], 20)[0], "no web view address")
            url = re.search(r"web view on http://([^/]+)/", proc.stderr.readline()).group(1)
            client = ws_client(url)
            text, payload = client.message()
            self.assertTrue(text)
            meta = json.loads(payload)
            self.assertEqual((meta["f0_hz"], meta["bin_hz"], meta["bins"]), (88e6, 9375.0, 2134))
            self.assertEqual((meta["f_lo_hz"], meta["f_hi_hz"]), (88e6 - 9375 / 2, 88e6 + 2133.5 * 9375))
            # The band edges the page marks: between adjacent hops' kept bins, a hop's width apart.
            edges = np.array(meta["hop_edges_hz"])
            kept = (edges[0] - meta["f_lo_hz"]) / 9375
            self.assertEqual(kept, round(kept))
            np.testing.assert_array_equal(edges, meta["f_lo_hz"] + kept * 9375 * np.arange(1, len(edges) + 1))
            self.assertEqual(len(edges), int(np.ceil(2134 / kept)) - 1)
            columns, _, _, rows = parse_frame(client.binary(b"GFSP"))
            self.assertEqual(columns, meta["columns"])
            newest = rows[0]
            for hz, level in SWEEP_TONES:  # a column is the max of the bins it covers
                column = int((hz - meta["f_lo_hz"]) / (meta["f_hi_hz"] - meta["f_lo_hz"]) * columns)
                self.assertLess(abs(float(np.max(newest[column - 1:column + 2])) - level), 1.0)
            client.close()
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)

    def test_demo_radio(self):
        # The demo radio that cmake --install installs (driver=gpufftdemo, its
        # module alone on the plugin path): its tones at their frequencies and
        # levels, and its noise at -60 dBFS over the band, per bin
        # -60 - 10 log10(N) + 3.02 dB (blackmanharris; docs/levels.md).
        env = dict(os.environ, SOAPY_SDR_PLUGIN_PATH=os.environ["GPUFFT_DEMO_MODULE_DIR"])
        jsonl = self.path("demo.jsonl")
        out = subprocess.run([EXE, "--device", "driver=gpufftdemo", "--center", "100M", "--duration", "1",
                              "--png", "none", "--quiet", "--jsonl", jsonl], capture_output=True, text=True,
                             timeout=60, env=env)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("gpufftdemo", out.stdout)
        peaks = [(float(hz), float(db)) for hz, db in
                 re.findall(r"^ +(\d+\.\d+) Hz +(-?\d+\.\d+) dBFS$", out.stdout, re.M)]
        bin_hz = 2.4e6 / 2048
        for hz, db in ((99.4e6, -40), (100.2e6, -20)):
            near = [p for p in peaks if abs(p[0] - hz) <= bin_hz]
            self.assertTrue(near, (hz, peaks))
            self.assertLess(abs(near[0][1] - db), 1.0, (hz, peaks))
        with open(jsonl) as f:
            last = json.loads(f.read().splitlines()[-1])
        self.assertAlmostEqual(float(np.median(last["db"])), -60 - 10 * np.log10(2048) + 3.02, delta=1.0)

    def test_demo_loop_zmq_pub(self):
        # --demo --realtime --loop: the live outputs without a radio, past the
        # demo's 2 s and at the signal's pace (the spectra's rx_time, when
        # their samples were read, spans at least half the signal's time),
        # the -20 dBFS tone in its place, until SIGINT (exit 130).
        address = f"tcp://127.0.0.1:{free_port()}"
        sub = subscriber(address, 20000)
        proc = subprocess.Popen([EXE, "--demo", "--realtime", "--loop", "--fps", "25", "--png", "none", "--quiet",
                                 "--zmq-pub", address], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        times = []
        try:
            while True:
                tags, db = parse_message(sub.recv())
                times.append(sum(tags["rx_time"]))
                if len(times) >= 25 * 3:  # 3 s of signal, the demo's 2 s and more
                    break
        finally:
            sub.close()
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertEqual(times, sorted(times))
        self.assertGreater(times[-1] - times[0], 0.5 * (len(times) - 1) / 25)
        column = int(round((99.4e6 - tags["f0_hz"]) / tags["bin_hz"]))
        self.assertLess(abs(float(np.max(db[column - 1:column + 2])) + 20), 1.0)

    def test_sigmf_captures_zmq_pub(self):
        # A SigMF recording of two captures at different centres, each spectrum
        # published at its own capture's centre. The subscriber connects first
        # (retrying every 10 ms until the program binds); the captures are long
        # enough (4 Msamples each) that spectra of both reach it.
        base = self.path("two")
        rate, n = 1e6, 4000000
        with open(base + ".sigmf-meta", "w") as f:
            json.dump({"global": {"core:datatype": "cu8", "core:sample_rate": rate, "core:version": "1.0.0"},
                       "captures": [{"core:sample_start": 0, "core:frequency": 100e6},
                                    {"core:sample_start": n, "core:frequency": 433.92e6}],
                       "annotations": []}, f)
        tone = rate * 100 / 1024  # bin 100 above the centre
        x = 0.5 * np.exp(2j * np.pi * tone / rate * np.arange(2 * n))
        iq = np.empty(4 * n, dtype=np.uint8)
        iq[0::2], iq[1::2] = np.round(127.5 + 127 * x.real), np.round(127.5 + 127 * x.imag)
        iq.tofile(base + ".sigmf-data")
        address = f"tcp://127.0.0.1:{free_port()}"
        sub = subscriber(address, 5000)
        proc = subprocess.Popen([EXE, base, "--fft", "1024", "--fps", "100", "--png", "none", "--zmq-pub", address],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seen = []
        try:
            while True:
                tags, db = parse_message(sub.recv())
                peak = tags["f0_hz"] + int(np.argmax(db)) * tags["bin_hz"]
                seen.append((tags["rx_freq"], peak - tags["rx_freq"]))
        except zmq.Again:
            pass
        finally:
            sub.close()
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(sorted({c for c, _ in seen}), [100e6, 433.92e6], seen[:3])
        for _, offset in seen:  # the tone at its place relative to each capture's centre
            self.assertAlmostEqual(offset, tone, delta=1)

class qa_gpufft_power(gr_unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def power(self, *args):
        return subprocess.run([POWER, *args], capture_output=True, text=True, timeout=60, cwd=self.dir.name)

    def check_plan(self, text, band, crop=0.0):
        """Every row of `text` as rtl_power.c plans `band` (lower, upper, bin size): the hops, in order,
        Hz step and values exactly; Hz low and high exactly without cropping, within a bin with it
        (rtl_power rounds them; ours are the kept bins' own)."""
        self.assertTrue(text.endswith("\n"))
        for line in text.splitlines():
            self.assertRegex(line, ROW)
        rows = rtl_power_rows(text)
        plan = rtl_power_plan(*band, crop)
        self.assertEqual(len(rows) % len(plan), 0)
        for n, (_, low, high, step, samples, values) in enumerate(rows):
            p_low, p_high, p_step, p_values = plan[n % len(plan)]
            self.assertEqual(f"{step:.2f}", f"{p_step:.2f}")
            self.assertEqual(len(values) + 1, p_values)
            self.assertGreater(samples, 0)
            self.assertLessEqual(abs(low - p_low), 0 if crop == 0 else step)
            self.assertLessEqual(abs(high - p_high), 0 if crop == 0 else step)
        return rows

    def test_help_examples(self):
        # rtl_power's help: "rtl_power -f 88M:108M:125k fm_stations.csv" (with -i 1 -1 to end
        # after a second), on the first device SoapySDR finds (here gpufftsim, at its pace).
        out = self.power("-f", "88M:108M:125k", "-i", "1", "-1", "fm_stations.csv")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, "")
        with open(self.path("fm_stations.csv")) as f:
            rows = self.check_plan(f.read(), (88000000, 108000000, 125000))
        self.assertEqual(len(rows), 8)  # one interval: a row per hop
        matrix, f0, step, times = heatmap_matrix(self.path("fm_stations.csv"))
        self.assertEqual((matrix.shape, f0, step), ((1, 256), 88000000, 78125.0))  # adjacent hops, no gaps
        self.assertFalse(np.isnan(matrix).any())
        # "rtl_power -f 100M:1G:1M -i 5m -1 survey.csv", 10 MHz for 1 s: bins of 1 MHz, a hop each.
        out = self.power("-f", "100M:110M:1M", "-i", "1", "-1", "survey.csv")
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(self.path("survey.csv")) as f:
            rows = self.check_plan(f.read(), (100000000, 110000000, 1000000))
        self.assertEqual([r[1] for r in rows], list(range(100000000, 110000000, 1000000)))
        # "rtl_power -f ... -e 1h | gzip > log.csv.gz", for 2 s: two intervals of a second.
        out = subprocess.run(f"'{POWER}' -f 88M:92M:125k -i 1 -e 2 | gzip > log.csv.gz", shell=True,
                             capture_output=True, text=True, timeout=60, cwd=self.dir.name)
        self.assertEqual(out.returncode, 0, out.stderr)
        text = subprocess.run(["gzip", "-dc", self.path("log.csv.gz")], capture_output=True, text=True).stdout
        rows = self.check_plan(text, (88000000, 92000000, 125000))
        self.assertEqual(len(rows), 2 * 2)  # 2 intervals of 2 hops

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_hop_plan_as_rtl_power(self):
        # rtl_power (Debian's rtl-sdr) prints its hop plan before it looks for a dongle:
        # gpufft-power's for the same -f and -c, as it starts on gpufftsim, says the same.
        keys = ("Number of frequency hops", "Dongle bandwidth", "Downsampling by", "Cropping by", "Total FFT bins",
                "FFT bin size")

        def plan(text):
            return {k: v for k, v in re.findall(r"^(.+?): (.+)$", text, re.M) if k in keys}

        for args in (["-f", "88M:108M:125k"], ["-f", "88M:108M:125k", "-c", "20%"], ["-f", "100M:1G:1M"],
                     ["-f", "100M:100.5M:1k", "-c", "0.3"], ["-f", "430M:440M:10k", "-c", "50%"],
                     ["-f", "24M:1766M:2.4M"]):
            theirs = subprocess.run(["rtl_power", *args, "-i", "1", "-1", os.devnull], capture_output=True,
                                    text=True, timeout=30)
            expected = plan(theirs.stderr)
            self.assertEqual(len(expected), len(keys), theirs.stderr)
            proc = subprocess.Popen([POWER, "-d", "driver=gpufftsim,paced=0", *args, "-i", "1", os.devnull],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            ours = ""
            while "Reporting every" not in ours:
                line = proc.stderr.readline()
                self.assertTrue(line, ours)
                ours += line
            proc.send_signal(signal.SIGINT)
            _, rest = proc.communicate(timeout=30)
            self.assertEqual(proc.returncode, 0, ours + rest)
            got = plan(ours)
            if args[1].endswith(("1M", "2.4M")):  # one bin per hop: rtl_power prints the size it computed before
                del expected["FFT bin size"]  # switching to them (its rows say the hop's rate, as ours)
                self.assertEqual(got.pop("FFT bin size"), expected["Dongle bandwidth"].replace("Hz", ".00Hz"))
            self.assertEqual(got, expected, args)

    def test_tones(self):
        # Cropped hops that overlap (rtl_power's plan at -c 20%), tones off the hop centres
        # (rtl_power gives the centre bin its neighbour's value): each read within half a bin.
        tones = ((100.5e6, -30), (94.3e6, -45))
        device = "driver=gpufftsim,paced=0,tones=" + ";".join(f"{hz}:{db}" for hz, db in tones)
        out = self.power("-d", device, "-f", "88M:108M:125k", "-c", "20%", "-w", "blackman-harris", "-i", "1",
                         "-1", "-")
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = self.check_plan(out.stdout, (88000000, 108000000, 125000), 0.2)
        self.assertEqual(len(rows), 9)
        for hz, db in tones:
            seen = [(low + i * step, v) for _, low, _, step, _, values in rows for i, v in enumerate(values)
                    if abs(low + i * step - hz) < 3 * step]
            at, level = max(seen, key=lambda s: s[1])
            self.assertLessEqual(abs(at - hz), rows[0][3] / 2, f"tone {hz} Hz read at {at} Hz")
            self.assertLess(abs(level - db), 1.0)  # dBFS, less the window's scalloping
        # -P: each bin's highest power of the interval; the tones as steady, the noise well above its mean.
        out = self.power("-d", device, "-f", "88M:108M:125k", "-c", "20%", "-w", "blackman-harris", "-i", "1",
                         "-1", "-P", "-")
        self.assertEqual(out.returncode, 0, out.stderr)
        peaks = self.check_plan(out.stdout, (88000000, 108000000, 125000), 0.2)
        for hz, db in tones:
            self.assertLess(abs(max(v for _, low, _, step, _, values in peaks for i, v in enumerate(values)
                                    if abs(low + i * step - hz) < 3 * step) - db), 1.0)
        mean_floor = np.median([v for r in rows for v in r[5]])
        self.assertGreater(np.median([v for r in peaks for v in r[5]]), mean_floor + 5)

    def test_integrates_interval(self):
        # -i averages every FFT of the interval (hopping all the time): the spread of
        # the noise floor across a row is that of the mean of K exponential powers,
        # 10 / ln(10) / sqrt(K) dB, for the K the row says (rectangle window: bins
        # independent). gpufftsim's noise, read from a fixed table, has a spectral
        # shape of its own, the same in every hop: the spread is taken of the
        # difference of two hops' rows, over sqrt(2).
        out = self.power("-d", "driver=gpufftsim,paced=0", "-f", "88M:108M:30k", "-i", "1", "-1", "-")
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = rtl_power_rows(out.stdout)
        self.assertEqual(len(rows), 8)  # 8 hops of 128 bins of 19531.25 Hz
        ratios = []
        for a, b in zip(rows[0::2], rows[1::2]):
            self.assertEqual(a[4], b[4])  # the same FFTs for every hop of the interval
            self.assertGreater(a[4], 2 * 64)  # more than one visit of the hop (64 FFTs each)
            spread = np.std(np.array(a[5]) - np.array(b[5]), ddof=1) / np.sqrt(2)
            ratios.append(spread / (10 / np.log(10) / np.sqrt(a[4])))
        self.assertAlmostEqual(np.mean(ratios), 1.0, delta=0.15, msg=str(ratios))

    def test_sigint(self):
        # As rtl_power: rows of whole intervals, the one under way dropped, exit status 0.
        proc = subprocess.Popen([POWER, "-f", "88M:108M:125k", "-i", "1", "-"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        first = [proc.stdout.readline() for _ in range(8)]
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, err)
        self.assertIn("signal 2", err)
        rows = self.check_plan("".join(first) + rest, (88000000, 108000000, 125000))
        self.assertEqual(len(rows) % 8, 0)

    def test_bad_options(self):
        sim = "driver=gpufftsim"
        bare = sim + ",settings=0"  # a module without these settings (most but rtl-sdr's)
        for args, expect in ((["-f", "88M:108M:125k", "-T", "-d", bare], "-T: the device has no \"biastee\" setting"),
                             (["-f", "88M:108M:125k", "-D", "-d", bare], "-D: the device has no \"direct_samp\""),
                             (["-f", "88M:108M:125k", "-O", "-d", bare], "-O: the device has no \"offset_tune\""),
                             (["-f", "88M:108M:125k", "-d", "5"], "-d 5: SoapySDR found 1 device"),
                             (["-f", "88M:108M:125k", "-g", "100"], "--gain 100 dB is outside the device's range"),
                             (["-f", "10G:11G:1M"], "-f: the hop at 10.0005 GHz is outside the device's range"),
                             (["-f", "88M:108M:125k", "-F", "9"], "-F 9: not implemented"),
                             (["-f", "88M:108M:125k", "-c", "1.5"], "-c: 1.5 would crop every bin"),
                             (["-i", "10"], "-f lower:upper:bin_size is required")):
            out = self.power(*args, "out.csv")
            self.assertEqual(out.returncode, 2, args)
            self.assertIn(expect, out.stderr)
            self.assertFalse(os.path.exists(self.path("out.csv")))
        # -1 is single shot, not a file name: the rows go to standard output.
        out = self.power("-f", "88M:92M:125k", "-i", "1", "-1")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.check_plan(out.stdout, (88000000, 92000000, 125000))
        # A device that has them: written and read back without a word.
        out = self.power("-f", "88M:92M:125k", "-i", "1", "-1", "-T", "-D", "-O", "-d", sim)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("warning", out.stderr)
        self.check_plan(out.stdout, (88000000, 92000000, 125000))
        self.assertEqual(os.listdir(self.dir.name), [])


if __name__ == "__main__":
    gr_unittest.run(qa_spectrum_radio)
