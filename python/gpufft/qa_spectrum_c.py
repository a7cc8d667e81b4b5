#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.spectrum_c: numpy references for every averaging mode and for
windows with a parameter, the same reading as logpwrfft on stationary
signals, the 8/16-bit input formats, setters while the flowgraph runs, tags,
bad arguments.

Fresh random data every run; replay with GPUFFT_QA_SEED=<seed>.
"""

import os
import time

import grc_qa
import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpufft
from gnuradio.fft import logpwrfft
from gnuradio.fft import window as grwin

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_spectrum_c: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")


def numpy_spectra(x, n, hop, w, average, alpha, k, ref_scale=2.0, shift=False, scale="dbfs"):
    """What the block should output, in float64: frames every hop, |FFT|^2,
    combined over groups of k frames, in dBFS (or on logpwrfft's scale)."""
    w = np.asarray(w, dtype=np.float64)
    frames = [x[s:s + n] for s in range(0, len(x) - n + 1, hop)]
    power = np.abs(np.fft.fft(np.array(frames, dtype=np.complex128) * w, axis=1)) ** 2
    full = np.sum(w) ** 2 if scale == "dbfs" else n * np.sum(w**2)
    scale = 4.0 / (full * ref_scale**2)
    spectra, state = [], None
    for i, p in enumerate(power):
        first_of_group = i % k == 0
        if average == "exponential":
            state = p if i == 0 else alpha * p + (1 - alpha) * state
        elif first_of_group:
            state = p.copy()
        elif average == "linear":
            state = state + p
        elif average == "peak":
            state = np.maximum(state, p)
        else:
            state = np.minimum(state, p)
        if i % k == k - 1:
            v = state / k if average == "linear" else state
            v = v * scale
            spectra.append(10 * np.log10(np.fft.fftshift(v) if shift else v))
    return np.array(spectra).reshape(-1, n)


def enbw_db(w):
    """How far logpwrfft's scale reads a bin-centred tone below its power:
    10 log10 of the window's equivalent noise bandwidth in bins."""
    w = np.asarray(w, dtype=np.float64)
    return 10 * np.log10(len(w) * np.sum(w**2) / np.sum(w) ** 2)


def run_spectrum(block, src, n):
    tb = gr.top_block()
    snk = blocks.vector_sink_f(n)
    tb.connect(src, block, snk)
    tb.run()
    return np.array(snk.data()).reshape(-1, n), snk


class qa_spectrum_c(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(SEED)

    def noise(self, count, sigma=0.3):
        return (sigma * (self.rng.standard_normal(count) + 1j * self.rng.standard_normal(count))).astype(np.complex64)

    def test_numpy_reference_every_mode(self):
        for average in ("exponential", "linear", "peak", "min"):
            for n, overlap, k, shift in ((256, 0.0, 3, False), (100, 0.25, 4, True), (1024, 0.5, 1, True)):
                alpha = 0.3 if average == "exponential" else 1.0
                hop = n - int(round(overlap * n))
                x = self.noise(n * 400)
                block = gpufft.spectrum_c(n, 1e6, overlap=overlap, window="hann", average=average,
                                          alpha=alpha, frames_per_output=k, shift=shift)
                self.assertEqual((block.hop(), block.frames_per_output()), (hop, k))
                got, _ = run_spectrum(block, blocks.vector_source_c(x.tolist()), n)
                want = numpy_spectra(x, n, hop, grwin.hann(n), average, alpha, k, shift=shift)
                what = f"{average} n={n} overlap={overlap} k={k}"
                # The frames of the last, unfilled batch are transformed when the stream ends.
                self.assertEqual(len(got), len(want), what)
                np.testing.assert_allclose(got, want, atol=0.02, err_msg=what)

    def test_window_param(self):
        n, k = 200, 3
        x = self.noise(n * 300)
        for window, param, taps in (("kaiser", 8.0, grwin.kaiser(n, 8.0)),
                                    ("kaiser", -1, grwin.kaiser(n, 6.76)),
                                    ("tukey", 0.3, grwin.tukey(n, 0.3))):
            block = gpufft.spectrum_c(n, 1e6, window=window, window_param=param, average="linear",
                                      frames_per_output=k)
            self.assertEqual(block.window_param(), param)
            got, _ = run_spectrum(block, blocks.vector_source_c(x.tolist()), n)
            want = numpy_spectra(x, n, n, taps, "linear", 1.0, k)
            self.assertGreater(len(got), len(want) // 4)
            np.testing.assert_allclose(got, want[:len(got)], atol=0.02, err_msg=f"{window} {param}")

    def test_same_as_logpwrfft_tone(self):
        # A tone on a bin centre: every frame has the same |X|, whichever frames are kept.
        n, fs, frame_rate = 512, 512e3, 250.0  # K = round(1000 / 250) = 4
        t = np.arange(n * 600)
        x = (0.5 * np.exp(2j * np.pi * 37 / n * t)).astype(np.complex64)
        ref = logpwrfft.logpwrfft_c(fs, n, 2.0, frame_rate, 1.0, False, shift=True)
        want, _ = run_spectrum(ref, blocks.vector_source_c(x.tolist()), n)
        ours = gpufft.spectrum_c(n, fs, frame_rate=frame_rate, shift=True, scale="logpwrfft")
        self.assertEqual(ours.frames_per_output(), 4)
        got, _ = run_spectrum(ours, blocks.vector_source_c(x.tolist()), n)
        self.assertGreater(len(got), 10)
        strong = want[0] > want[0].max() - 60
        for row in got:
            np.testing.assert_allclose(row[strong], want[0][strong], atol=0.05)
        # amplitude 0.5 of full scale 1: -6.02 dB, less the window's bandwidth
        self.assertAlmostEqual(float(got[0].max()), -6.02 - enbw_db(grwin.blackmanharris(n)), delta=0.05)
        # By default (dBFS) the same tone reads its power, -6.02 dB, whatever the window.
        dbfs, _ = run_spectrum(gpufft.spectrum_c(n, fs, frame_rate=frame_rate, shift=True),
                               blocks.vector_source_c(x.tolist()), n)
        self.assertAlmostEqual(float(dbfs[0].max()), -6.02, delta=0.05)

    def test_same_as_logpwrfft_noise(self):
        # White noise: the averaged level agrees (logpwrfft averages the frames it keeps).
        n, fs = 256, 256e3
        x = self.noise(n * 4000)
        ref = logpwrfft.logpwrfft_c(fs, n, 2.0, 100.0, 0.05, True)
        want, _ = run_spectrum(ref, blocks.vector_source_c(x.tolist()), n)
        ours = gpufft.spectrum_c(n, fs, frame_rate=100.0, average="linear", scale="logpwrfft")
        got, _ = run_spectrum(ours, blocks.vector_source_c(x.tolist()), n)
        level_want = 10 * np.log10(np.mean(10 ** (want[len(want) // 2:] / 10)))
        level_got = 10 * np.log10(np.mean(10 ** (got / 10)))
        self.assertAlmostEqual(level_got, level_want, delta=0.5)

    def test_integer_formats(self):
        n, k = 128, 2
        count = n * 300
        iq = self.rng.integers(0, 256, 2 * count).astype(np.uint8)
        cases = {
            "cu8": (iq, lambda d: blocks.vector_source_b(d.tolist(), False, 2),
                    (iq.astype(np.float64) - 127.5) / 127.5),
            "cs8": (iq, lambda d: blocks.vector_source_b(d.tolist(), False, 2),
                    iq.view(np.int8).astype(np.float64) / 128),
        }
        s16 = self.rng.integers(-32768, 32768, 2 * count).astype(np.int16)
        cases["cs16"] = (s16, lambda d: blocks.vector_source_s(d.tolist(), False, 2), s16 / 32768.0)
        for fmt, (data, source, floats) in cases.items():
            x = (floats[0::2] + 1j * floats[1::2]).astype(np.complex64)
            block = gpufft.spectrum_c(n, 1e6, window="hann", average="linear", frames_per_output=k, format=fmt)
            got, _ = run_spectrum(block, source(data), n)
            want = numpy_spectra(x, n, n, grwin.hann(n), "linear", 1.0, k)
            self.assertGreater(len(got), 0, fmt)
            np.testing.assert_allclose(got, want[:len(got)], atol=0.02, err_msg=fmt)

    def test_setters_while_running(self):
        n = 256
        t = np.arange(n * 64)
        x = (0.5 * np.exp(2j * np.pi * 10 / n * t)).astype(np.complex64)
        block = gpufft.spectrum_c(n, 1e6, frames_per_output=200, window="rectangular")
        tb = gr.top_block()
        src = blocks.vector_source_c(x.tolist(), True)
        snk = blocks.vector_sink_f(n)
        tb.connect(src, block, snk)
        tb.start()
        try:
            deadline = time.time() + 10
            while len(snk.data()) < 5 * n and time.time() < deadline:
                time.sleep(0.02)
            before = len(snk.data()) // n
            block.set_ref_scale(1.0)  # 20 log10(2) = 6.02 dB up
            self.assertEqual(block.ref_scale(), 1.0)
            block.set_scale("logpwrfft")
            self.assertEqual(block.scale(), "logpwrfft")
            block.set_window("hann")
            block.set_average("peak")
            block.set_alpha(0.5)
            block.set_frame_rate(1000.0)
            block.set_frames_per_output(100)
            block.set_shift(True)
            block.set_overlap(0.5)
            with self.assertRaises(ValueError):
                block.set_window_param(3.0)  # hann takes none
            with self.assertRaises(ValueError):
                block.set_alpha(0.0)
            with self.assertRaises(ValueError):
                block.set_window("nosuchwindow")
            self.assertEqual((block.alpha(), block.window(), block.average()), (0.5, "hann", "peak"))
            # Outputs made after the last setter (a rebuild each: slow under a
            # sanitizer), the deadline only a guard against a hang.
            after = len(snk.data()) // n
            deadline = time.time() + 60
            while len(snk.data()) < (max(after, before + 20) + 3) * n and time.time() < deadline:
                time.sleep(0.02)
        finally:
            tb.stop()
            tb.wait()
        got = np.array(snk.data()).reshape(-1, n)
        self.assertGreater(len(got), before + 10)
        self.assertAlmostEqual(float(got[0][10]), -6.02, delta=0.05)
        # hann: 6.02 dB up, less hann's bandwidth (1.5 bins); shifted: bin 10 is at n/2 + 10
        self.assertEqual(int(np.argmax(got[-1])), n // 2 + 10)
        self.assertAlmostEqual(float(got[-1][n // 2 + 10]), -enbw_db(grwin.hann(n)), delta=0.05)
        self.assertEqual((block.frames_per_output(), block.hop(), block.shift()), (100, n // 2, True))

    def test_set_sample_rate(self):
        # frame_rate 100 of 1000 frames a second: K = 10; at twice the sample rate K = 20.
        n = 64
        block = gpufft.spectrum_c(n, 64000.0, frame_rate=100.0)
        self.assertEqual(block.frames_per_output(), 10)
        block.set_sample_rate(128000.0)
        self.assertEqual((block.sample_rate(), block.frames_per_output()), (128000.0, 20))
        for bad in (0.0, -1.0, float("nan")):
            with self.assertRaisesRegex(ValueError, "sample_rate"):
                block.set_sample_rate(bad)
        self.assertEqual(block.sample_rate(), 128000.0)
        got, _ = run_spectrum(block, blocks.vector_source_c(self.noise(n * 200).tolist(), False), n)
        self.assertEqual(len(got), 10)

    def test_tags(self):
        n, k = 64, 4
        x = self.noise(n * k * 300)
        offsets = (0, 1000, 5000, 20000)
        tags = [gr.tag_utils.python_to_tag((o, pmt.intern("t"), pmt.from_long(o), pmt.PMT_F)) for o in offsets]
        block = gpufft.spectrum_c(n, 1e6, frames_per_output=k)
        got, snk = run_spectrum(block, blocks.vector_source_c(x.tolist(), False, 1, tags), n)
        seen = {pmt.to_long(t.value): t.offset for t in snk.tags()}
        for o in offsets:
            if o // (n * k) < len(got):
                self.assertIn(o, seen)
                self.assertAlmostEqual(seen[o], o // (n * k), delta=1)

    def test_grc_tune(self):
        """The GRC block's Tune reaches the FFT plan: tuned, it times its candidates and keeps the
        choice in the wisdom file (simd: every machine has it); untuned, the file gets nothing. On
        OpenCL, whose FFT carries callbacks and is not searched, tune is refused."""
        n, k = 96, 2
        x = self.noise(n * 40)

        def graph(tune):
            return grc_qa.flowgraph(
                [("src", "blocks_vector_source_x", {"type": "complex", "vector": repr(x.tolist()), "vlen": "1",
                                                    "repeat": "False", "tags": "[]"}),
                 ("spectrum", "gpufft_spectrum_c",
                  {"format": "cf32", "fft_size": str(n), "sample_rate": "1e6", "frame_rate": "30",
                   "frames_per_output": str(k), "overlap": "0", "window": "hann", "window_param": "-1",
                   "average": "linear", "alpha": "1.0", "ref_scale": "2.0", "scale": "dbfs", "shift": "False",
                   "backend": "simd", "tune": tune}),
                 ("sink", "blocks_file_sink", {"type": "float", "file": "'spectra.f32'", "vlen": str(n),
                                               "unbuffered": "False", "append": "False"})],
                [["src", "0", "spectrum", "0"], ["spectrum", "0", "sink", "0"]])

        def outputs(folder, tune):
            got = np.fromfile(os.path.join(folder, "spectra.f32"), np.float32).reshape(-1, n)
            want = numpy_spectra(x, n, n, grwin.hann(n), "linear", 1.0, k)
            self.assertGreater(len(got), len(want) // 4, f"GRC tune={tune}")
            np.testing.assert_allclose(got, want[:len(got)], atol=0.02, err_msg=f"GRC tune={tune}")

        grc_qa.check_tune(self, graph, outputs, [n])
        self.assertEqual((gpufft.spectrum_c(64, 1e6).tune(), gpufft.spectrum_c(64, 1e6, backend="simd", tune=True).tune()),
                         (False, True))
        if any(b["name"] == "opencl" and b["usable"] for b in gpufft.backends()):
            with self.assertRaises(ValueError) as ctx:
                gpufft.spectrum_c(64, 1e6, backend="opencl", tune=True)
            self.assertIn("tune", str(ctx.exception))
            self.assertIn("callbacks", str(ctx.exception))

    def test_bad_arguments(self):
        cases = [
            (dict(fft_size=0, sample_rate=1e6), "fft_size"),
            (dict(fft_size=64, sample_rate=0), "sample_rate"),
            (dict(fft_size=64, sample_rate=1e6, frame_rate=0), "frame_rate"),
            (dict(fft_size=64, sample_rate=1e6, frame_rate=-5), "frame_rate"),
            (dict(fft_size=64, sample_rate=1e6, frame_rate=2e6), "frame_rate"),
            (dict(fft_size=1024, sample_rate=1e6, frame_rate=1e-300), "frame_rate"),
            (dict(fft_size=2**28 + 1, sample_rate=1e6), "fft_size"),
            (dict(fft_size=64, sample_rate=1e6, backend=""), "unknown backend ''"),
            (dict(fft_size=64, sample_rate=1e6, overlap=0.95), "overlap"),
            (dict(fft_size=64, sample_rate=1e6, alpha=0), "alpha"),
            (dict(fft_size=64, sample_rate=1e6, average="median"), "average"),
            (dict(fft_size=64, sample_rate=1e6, window="nosuchwindow"), "window"),
            (dict(fft_size=64, sample_rate=1e6, ref_scale=0), "ref_scale"),
            (dict(fft_size=64, sample_rate=1e6, scale="dB"), "scale"),
            (dict(fft_size=64, sample_rate=1e6, format="cf64"), "format"),
            (dict(fft_size=64, sample_rate=1e6, backend="nosuch"), "nosuch"),
            (dict(fft_size=64, sample_rate=1e6, frames_per_output=-1), "frames_per_output"),
            (dict(fft_size=64, sample_rate=1e6, window="tukey", window_param=2.0), "window_param"),
            (dict(fft_size=64, sample_rate=1e6, window="kaiser", window_param=float("nan")), "window_param"),
            (dict(fft_size=64, sample_rate=1e6, window="kaiser", window_param=-5.0), "beta must be in [0, 700]"),
            (dict(fft_size=64, sample_rate=1e6, window="hann", window_param=3.0), "takes no parameter"),
        ]
        for kwargs, word in cases:
            with self.assertRaises(ValueError, msg=str(kwargs)) as ctx:
                gpufft.spectrum_c(**kwargs)
            self.assertIn(word, str(ctx.exception), str(kwargs))
        # frames_per_output > 0 makes frame_rate irrelevant
        self.assertEqual(gpufft.spectrum_c(64, 1e6, frame_rate=0, frames_per_output=7).frames_per_output(), 7)


if __name__ == "__main__":
    gr_unittest.run(qa_spectrum_c)
