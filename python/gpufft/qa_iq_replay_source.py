#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.iq_replay_source: files of every format replayed in a loop (and
once), the format from the extension, the pace when throttled, the demo
signal equal to gpufft.demo_signal's, bad arguments; and gpufft.iq_source
over it, SigMF recordings included (a radio through it: qa_examples).

Fresh random data every run; replay with GPUFFT_QA_SEED=<seed>.
"""

import json
import os
import shutil
import tempfile
import time

import numpy as np
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpufft

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_iq_replay_source: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")

# numpy dtype of one component, and what a component x becomes (in float64).
FORMATS = {
    "cf32": (np.float32, lambda x: x),
    "cs16": (np.int16, lambda x: x / 32768.0),
    "cs8": (np.int8, lambda x: x / 128.0),
    "cu8": (np.uint8, lambda x: (x - 127.5) / 127.5),
}


def collect(src, count):
    """The first `count` samples of src (fewer if it ends first)."""
    tb = gr.top_block()
    head = blocks.head(gr.sizeof_gr_complex, count)
    snk = blocks.vector_sink_c()
    tb.connect(src, head, snk)
    tb.run()
    return np.array(snk.data(), np.complex64)


class qa_iq_replay_source(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(SEED)
        self.tmp = tempfile.mkdtemp(prefix="gpufft_qa_replay_")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, fmt, samples, name=None, extra=b""):
        """A file of `samples` random samples in fmt; returns its path and the
        complex64 values it stands for."""
        dtype, convert = FORMATS[fmt]
        if dtype == np.float32:
            raw = self.rng.uniform(-1, 1, 2 * samples).astype(np.float32)
        else:
            info = np.iinfo(dtype)
            raw = self.rng.integers(info.min, info.max + 1, 2 * samples, dtype=dtype)
        path = os.path.join(self.tmp, name or f"x.{fmt}")
        with open(path, "wb") as f:
            f.write(raw.tobytes() + extra)
        v = convert(raw.astype(np.float64))
        return path, (v[0::2] + 1j * v[1::2]).astype(np.complex64)

    def test_formats_loop(self):
        m = 1000
        for fmt in FORMATS:
            with self.subTest(fmt=fmt):
                # A trailing partial sample is ignored.
                path, want = self.write(fmt, m, name=f"x.bin", extra=b"\x01")
                got = collect(gpufft.iq_replay_source(path, fmt, 1e6, throttle=False), 2 * m + 300)
                self.assertEqual(len(got), 2 * m + 300)
                np.testing.assert_array_equal(got, np.tile(want, 3)[:2 * m + 300])

    def test_format_by_extension(self):
        for fmt in FORMATS:
            with self.subTest(fmt=fmt):
                path, want = self.write(fmt, 500)
                src = gpufft.iq_replay_source(path, throttle=False)
                self.assertEqual(src.format(), fmt)
                np.testing.assert_array_equal(collect(src, 500), want)
        path, _ = self.write("cf32", 10, name="x.cfile")
        self.assertEqual(gpufft.iq_replay_source(path).format(), "cf32")

    def test_once(self):
        path, want = self.write("cs16", 777)
        got = collect(gpufft.iq_replay_source(path, repeat=False, throttle=False), 10000)
        np.testing.assert_array_equal(got, want)

    def test_demo_signal(self):
        n = 200000
        got = collect(gpufft.iq_replay_source("", sample_rate=2.4e6, throttle=False), n)
        want = gpufft.demo_signal(2.4e6).generate(n)
        # Equal but for rounding (the chunks differ, and with them where the
        # rotations are renormalized).
        err = np.linalg.norm(got - want) / np.linalg.norm(want)
        self.assertLess(err, 1e-6)
        # Its strongest tone: -20 dBFS at -600 kHz.
        spectrum = np.abs(np.fft.fft(got[:24000])) ** 2 / 24000**2
        peak = int(np.argmax(spectrum))
        self.assertEqual(peak, 24000 - 6000)
        self.assertAlmostEqual(10 * np.log10(spectrum[peak]), -20, delta=0.5)
        tones = gpufft.demo_signal(1.2e6).tones()
        self.assertEqual([t[0] for t in tones], [-300e3, -125e3, 75e3, 310e3])

    def test_throttle(self):
        rate, count = 1e5, 30000
        src = gpufft.iq_replay_source("", sample_rate=rate)
        self.assertTrue(src.throttle())
        t0 = time.perf_counter()
        self.assertEqual(len(collect(src, count)), count)
        seconds = time.perf_counter() - t0
        self.assertGreater(seconds, 0.8 * count / rate)
        self.assertLess(seconds, count / rate + 2.0)

    def test_bad_arguments(self):
        path, _ = self.write("cf32", 4)
        empty = os.path.join(self.tmp, "empty.cu8")
        open(empty, "wb").close()
        one_byte = os.path.join(self.tmp, "odd.cs16")
        with open(one_byte, "wb") as f:
            f.write(b"\x01\x02\x03")
        for kwargs, word in (
            (dict(filename=path, format="cf64"), "format"),
            (dict(filename=path, sample_rate=0), "sample_rate"),
            (dict(filename=path, sample_rate=-1e6), "sample_rate"),
            (dict(filename=""), None),
            (dict(filename=os.path.join(self.tmp, "missing.cf32")), "filename"),
            (dict(filename=empty), "filename"),
            (dict(filename=one_byte), "filename"),
        ):
            with self.subTest(**kwargs):
                if word is None:
                    gpufft.iq_replay_source(**kwargs)
                    continue
                with self.assertRaises(ValueError) as cm:
                    gpufft.iq_replay_source(**kwargs)
                self.assertIn(word, str(cm.exception))

    def test_iq_source(self):
        """gpufft.iq_source: a file or the demo signal as iq_replay_source
        gives them (its rate and centre the ones given, the demo's 2.4 MS/s
        and 100 MHz by default); both a file and a device, a rate <= 0, raw
        samples or a radio without a rate or centre, or a device SoapySDR
        cannot open raise gpufft.error naming them."""
        path, want = self.write("cs16", 1000)
        src = gpufft.iq_source(path, samp_rate=1e6, center_freq=433.92e6)
        self.assertEqual((src.samp_rate(), src.center_freq()), (1e6, 433.92e6))
        np.testing.assert_array_equal(collect(src, 1000), want)
        np.testing.assert_array_equal(collect(gpufft.iq_source(samp_rate=1e6), 64),
                                      collect(gpufft.iq_replay_source("", sample_rate=1e6), 64))
        # The demo's own rate and centre where none are given.
        self.assertEqual((gpufft.iq_source().samp_rate(), gpufft.iq_source().center_freq()), (2.4e6, 100e6))
        for kwargs, words in (
            (dict(iq_file=path, device="driver=gpufftsim"), ("iq_file", "device")),
            (dict(samp_rate=-1.0), ("samp_rate",)),
            # Raw samples and a radio: no stand-in rate or centre.
            (dict(iq_file=path, center_freq=1e6), ("raw", "samp_rate")),
            (dict(iq_file=path, samp_rate=1e6), ("raw", "center_freq")),
            (dict(device="driver=gpufftsim"), ("radio", "samp_rate", "center_freq")),
            (dict(device="driver=no_such_driver_here", samp_rate=1e6, center_freq=1e8), ("driver=no_such_driver_here",)),
        ):
            with self.subTest(**kwargs):
                with self.assertRaises(gpufft.error) as cm:
                    gpufft.iq_source(**kwargs)
                for word in words:
                    self.assertIn(word, str(cm.exception))

    def write_sigmf(self, name, glob, captures):
        """A SigMF recording: 1000 random ci16_le samples and the metadata
        (global fields over ci16_le, captures as given); returns the data
        file's path and the samples as read in ci16_le's own scale."""
        path, want = self.write("cs16", 1000, name + ".sigmf-data")
        with open(os.path.join(self.tmp, name + ".sigmf-meta"), "w") as f:
            json.dump({"global": dict({"core:datatype": "ci16_le", "core:version": "1.0.0"}, **glob),
                       "captures": captures, "annotations": []}, f)
        return path, want

    def test_iq_source_sigmf(self):
        """A SigMF recording plays in its datatype at its core:sample_rate,
        around its first capture's core:frequency, named by either file or
        its base name; gpufft:full_scale scales the samples to full scale 1
        (a 12-bit radio's ci16_le: 2048); a rate or centre given must agree
        with the recording's, and stands in only where it has none;
        metadata SigMF readers would refuse, a header inside the data file,
        interleaved channels or captures at several frequencies raise
        gpufft.error naming what."""
        cap = [{"core:sample_start": 0, "core:frequency": 433.92e6}]
        path, want = self.write_sigmf("rec", {"core:sample_rate": 2.048e6, "gpufft:full_scale": 2048}, cap)
        base = path[: -len(".sigmf-data")]
        for name in (path, base + ".sigmf-meta", base):
            with self.subTest(iq_file=name):
                src = gpufft.iq_source(name)
                self.assertEqual((src.samp_rate(), src.center_freq()), (2.048e6, 433.92e6))
                np.testing.assert_allclose(collect(src, 1000), want * (32768 / 2048), rtol=1e-6)
        s = gpufft.iq_settings(path, samp_rate=2.048e6, center_freq=433.92e6)
        self.assertEqual((s.samp_rate, s.center_freq, s.format, s.error), (2.048e6, 433.92e6, "cs16", None))
        # Absent fields: the arguments stand in for them; absent and not given: refused.
        path2, want2 = self.write_sigmf("bare", {}, [{"core:sample_start": 0}])
        src = gpufft.iq_source(path2, samp_rate=1e6, center_freq=2.4e9)
        self.assertEqual((src.samp_rate(), src.center_freq()), (1e6, 2.4e9))
        np.testing.assert_array_equal(collect(src, 1000), want2)
        bad = [
            (dict(iq_file=path, samp_rate=2.4e6), ("samp_rate", "2400000", "2048000")),
            (dict(iq_file=path, center_freq=100e6), ("center_freq", "100000000", "433920000")),
            (dict(iq_file=path2, center_freq=1e6), ("core:sample_rate", "samp_rate")),
            (dict(iq_file=path2, samp_rate=1e6), ("core:frequency", "center_freq")),
        ]
        for name, glob, caps, words in (
            ("sweep", {}, [{"core:sample_start": 0, "core:frequency": 1e8},
                           {"core:sample_start": 500, "core:frequency": 1.02e8}], ("2 frequencies",)),
            ("header", {}, [{"core:sample_start": 0, "core:header_bytes": 16}], ("core:header_bytes",)),
            ("channels", {"core:num_channels": 2}, cap, ("core:num_channels",)),
            ("type", {"core:datatype": "ri16_le"}, cap, ("core:datatype", "ri16_le")),
            ("start", {}, [{"core:frequency": 1e8}], ("core:sample_start",)),
            ("scale", {"gpufft:full_scale": -1}, cap, ("gpufft:full_scale",)),
        ):
            self.write_sigmf(name, glob, caps)
            bad.append((dict(iq_file=os.path.join(self.tmp, name + ".sigmf-data"), samp_rate=1e6), words))
        with open(os.path.join(self.tmp, "broken.sigmf-meta"), "w") as f:
            f.write("{\"global\": ")
        bad.append((dict(iq_file=os.path.join(self.tmp, "broken.sigmf-meta")), ("malformed JSON",)))
        for kwargs, words in bad:
            with self.subTest(**kwargs):
                with self.assertRaises(gpufft.error) as cm:
                    gpufft.iq_source(**kwargs)
                for word in words:
                    self.assertIn(word, str(cm.exception))
                self.assertEqual(gpufft.iq_settings(**kwargs).error, str(cm.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_iq_replay_source)
