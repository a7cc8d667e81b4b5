#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.spectrum and gpufft.window: windows equal to gnuradio.fft.window,
spectra equal to numpy references, and logpwrfft's reading of a full-scale tone.

Fresh random data every run; replay with GPUFFT_QA_SEED=<seed>.
"""

import os

import numpy as np
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpufft
from gnuradio.fft import logpwrfft
from gnuradio.fft import window as grwin

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_spectrum: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")

# Our window name -> GNU Radio's, with the parameter our default stands for.
GR_WINDOWS = {
    "rectangular": lambda n, p: grwin.rectangular(n),
    "hann": lambda n, p: grwin.hann(n),
    "hamming": lambda n, p: grwin.hamming(n),
    "blackman": lambda n, p: grwin.blackman(n),
    "blackmanharris": lambda n, p: grwin.blackman_harris(n),
    "flattop": lambda n, p: grwin.flattop(n),
    "kaiser": lambda n, p: grwin.kaiser(n, 6.76 if p < 0 else p),
    "bartlett": lambda n, p: grwin.bartlett(n),
    "nuttall": lambda n, p: grwin.nuttall(n),
    "nuttall_cfd": lambda n, p: grwin.nuttall_cfd(n),
    "welch": lambda n, p: grwin.welch(n),
    "parzen": lambda n, p: grwin.parzen(n),
    "riemann": lambda n, p: grwin.riemann(n),
    "gaussian": lambda n, p: grwin.gaussian(n, n / 6 if p < 0 else p),
    "tukey": lambda n, p: grwin.tukey(n, 0.5 if p < 0 else p),
    "exponential": lambda n, p: grwin.exponential(n, 6.0 if p < 0 else p),
}


def random_complex(rng, count):
    return (rng.uniform(-1, 1, count) + 1j * rng.uniform(-1, 1, count)).astype(np.complex64)


def reference(x, n, hop, w, average, alpha, k, ref_scale=2.0, shift=False, db=True, scale="dbfs"):
    """The engine's outputs in float64 with numpy."""
    starts = range(0, len(x) - n + 1, hop)
    p = np.array([np.abs(np.fft.fft(x[s:s + n].astype(np.complex128) * w)) ** 2 for s in starts])
    out, avg, count = [], None, 0
    for i, frame in enumerate(p):
        if average == "exponential":
            avg = frame.copy() if i == 0 else (1 - alpha) * avg + alpha * frame
        elif count == 0:
            avg = frame.copy()
        elif average == "linear":
            avg = avg + frame
        elif average == "peak":
            avg = np.maximum(avg, frame)
        else:
            avg = np.minimum(avg, frame)
        count += 1
        if count == k:
            count = 0
            v = avg / (k if average == "linear" else 1)
            w64 = w.astype(np.float64)
            full = np.sum(w64) ** 2 if scale == "dbfs" else n * np.sum(w64**2)
            v = v * 4 / (full * ref_scale**2)
            v = np.fft.fftshift(v) if shift else v
            out.append(10 * np.log10(v) if db else v)
    return np.array(out).reshape(-1, n)


class qa_spectrum(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(SEED)

    def test_windows_match_gnuradio(self):
        for name in gpufft.window_names():
            for n in (2, 3, 8, 9, 64, 101, 1000):
                params = [-1.0]
                if name in ("kaiser", "gaussian", "tukey", "exponential"):
                    params.append(float(self.rng.uniform(0.2, 1.0) * (10 if name != "tukey" else 1)))
                for p in params:
                    ours = gpufft.window(name, n, p)
                    theirs = np.array(GR_WINDOWS[name](n, p), dtype=np.float64)
                    self.assertEqual(ours.dtype, np.float32)
                    np.testing.assert_allclose(ours, theirs, rtol=0, atol=2e-6,
                                               err_msg=f"{name} n={n} param={p}")
        np.testing.assert_array_equal(gpufft.window("blackman-harris", 16),
                                      gpufft.window("blackmanharris", 16))

    def test_window_param_ranges(self):
        # -1 (GNU Radio's INVALID_WIN_PARAM) is the default; any other value
        # must be in the window's range, and a window without one takes none.
        for name, param, word in (("tukey", -0.5, "alpha"), ("tukey", 2.0, "alpha"), ("gaussian", -1e-3, "sigma"),
                                  ("gaussian", 0.0, "sigma"), ("kaiser", -1e6, "beta"), ("kaiser", np.inf, "beta"), ("kaiser", 701.0, "beta"),
                                  ("exponential", 0.0, "decay"), ("hann", 5.0, "takes no parameter"),
                                  ("flattop", 0.0, "takes no parameter")):
            with self.assertRaises(gpufft.error, msg=f"{name} {param}") as ctx:
                gpufft.window(name, 16, param)
            self.assertIn(word, str(ctx.exception))
            self.assertIn(name, str(ctx.exception))
        np.testing.assert_array_equal(gpufft.window("kaiser", 16, -1), gpufft.window("kaiser", 16, 6.76))
        np.testing.assert_array_equal(gpufft.window("tukey", 16, 0.0), gpufft.window("rectangular", 16))

    def test_full_scale_tone_matches_logpwrfft(self):
        # logpwrfft keeps one vector in round(fs / n / frame_rate); with frame_rate
        # fs / n it keeps them all, so both see the same frames.
        for n, bin_ in ((1024, 100.0), (1000, 37.3), (4096, -517.5)):
            fs = 1e6
            t = np.arange(8 * n)
            phase = float(self.rng.uniform(0, 2 * np.pi))
            x = np.exp(1j * (2 * np.pi * bin_ * t / n + phase)).astype(np.complex64)  # amplitude 1
            tb = gr.top_block()
            src = blocks.vector_source_c(x.tolist())
            lp = logpwrfft.logpwrfft_c(sample_rate=fs, fft_size=n, ref_scale=2, frame_rate=fs / n,
                                       avg_alpha=1.0, average=False, shift=True)
            sink = blocks.vector_sink_f(n)
            tb.connect(src, lp, sink)
            tb.run()
            gr_db = np.array(sink.data()).reshape(-1, n)
            s = gpufft.spectrum(n, sample_rate=fs, shift=True, window="blackmanharris", scale="logpwrfft")
            ours = np.concatenate([s.push(x), s.flush()])
            self.assertEqual(ours.shape, (8, n))
            self.assertGreaterEqual(len(gr_db), 4)
            for g in gr_db:
                self.assertAlmostEqual(float(g.max()), float(ours[0].max()), delta=0.1,
                                       msg=f"n={n} bin={bin_}")
                # A tone half-way between bins ties two of them: either may win.
                self.assertLessEqual(abs(int(g.argmax()) - int(ours[0].argmax())), 0 if bin_ % 1 == 0 else 1)
            # Where the tone is (within 60 dB of it) every bin agrees too.
            near = gr_db[0] > gr_db[0].max() - 60
            np.testing.assert_allclose(ours[0][near], gr_db[0][near], atol=0.1)

    def test_full_scale_tone_reads_0_dbfs(self):
        # dBFS (the default): a complex tone of full-scale amplitude on a bin
        # reads 0 dB and one 20 dB down -20 dB, whatever the window and N, as
        # gpufft-spectrum and the display sink read it; logpwrfft's scale
        # reads them lower by 10 log10(N sum(w^2) / (sum w)^2).
        for window in ("rectangular", "hann", "blackmanharris", "flattop"):
            for n in (64, 1000, 4096):
                for dbfs in (0.0, -20.0):
                    b = n // 5
                    t = np.arange(2 * n)
                    x = (10 ** (dbfs / 20) * np.exp(2j * np.pi * b * t / n + 0.4j)).astype(np.complex64)
                    got, lp = (np.concatenate([s.push(x), s.flush()]) for s in
                               (gpufft.spectrum(n, window=window), gpufft.spectrum(n, window=window, scale="logpwrfft")))
                    w = gpufft.window(window, n).astype(np.float64)
                    loss = 10 * np.log10(n * np.sum(w**2) / np.sum(w) ** 2)
                    what = f"{window} n={n} {dbfs} dBFS"
                    self.assertEqual(int(np.argmax(got[0])), b, what)
                    self.assertAlmostEqual(float(got[0][b]), dbfs, delta=0.05, msg=what)
                    self.assertAlmostEqual(float(lp[0][b]), dbfs - loss, delta=0.05, msg=what)
        with self.assertRaisesRegex(gpufft.error, "dbfs, logpwrfft"):
            gpufft.spectrum(64, scale="dB")

    def test_averaging_against_numpy(self):
        for average in ("exponential", "linear", "peak", "min"):
            for n, overlap, shift in ((64, 0.5, False), (45, 0.25, True), (100, 0.9, True)):
                k = int(self.rng.integers(1, 6))
                x = random_complex(self.rng, int(self.rng.integers(30, 60)) * n + int(self.rng.integers(0, n)))
                s = gpufft.spectrum(n, overlap=overlap, window="hann", average=average, alpha=0.25,
                                    frames_per_output=k, shift=shift, batch=int(self.rng.integers(1, 8)))
                ours = [s.push(c) for c in np.array_split(x, int(self.rng.integers(1, 20)))]
                ours = np.concatenate(ours + [s.flush()])
                want = reference(x, n, s.hop, s.window.astype(np.float64), average, 0.25, k, shift=shift)
                self.assertEqual(ours.shape, want.shape, f"{average} n={n}")
                np.testing.assert_allclose(ours, want, atol=0.01, err_msg=f"{average} n={n} k={k}")
                self.assertEqual(s.frames, (len(x) - n) // s.hop + 1)

    def test_linear_power_and_ref_scale(self):
        n = 32
        x = random_complex(self.rng, 10 * n)
        s = gpufft.spectrum(n, db=False, ref_scale=0.5, window="rectangular", batch=10)
        ours = s.push(x)
        want = reference(x, n, n, np.ones(n), "exponential", 1.0, 1, ref_scale=0.5, db=False)
        np.testing.assert_allclose(ours, want, rtol=1e-5, atol=1e-7 * want.max())

    def test_formats_decode_exactly(self):
        n = 16
        raw = self.rng.permutation(np.tile(np.arange(256, dtype=np.uint8), 8 * 4))
        decoded = {
            "cs16": (raw.view(np.int16).astype(np.float64) / 32768.0, raw.view(np.int16)),
            "cs8": (raw.view(np.int8).astype(np.float64) / 128.0, raw.view(np.int8)),
            "cu8": ((raw.astype(np.float64) - 127.5) / 127.5, raw),
        }
        for fmt, (values, samples) in decoded.items():
            iq = values.astype(np.float32)
            x = (iq[0::2] + 1j * iq[1::2]).astype(np.complex64)
            a = gpufft.spectrum(n, window="rectangular", db=False, batch=3)
            b = gpufft.spectrum(n, format=fmt, window="rectangular", db=False, batch=3)
            want = np.concatenate([a.push(x), a.flush()])
            got = np.concatenate([b.push(samples), b.flush()])
            np.testing.assert_array_equal(got, want, err_msg=fmt)

    def test_bad_input(self):
        for kwargs in ({"fft_size": 0}, {"fft_size": 64, "overlap": 0.95}, {"fft_size": 64, "alpha": 0},
                       {"fft_size": 64, "window": [1.0] * 63}, {"fft_size": 64, "window": "nope"},
                       {"fft_size": 64, "format": "ci12"}, {"fft_size": 64, "frames_per_output": 0},
                       {"fft_size": 64, "sample_rate": 1000, "output_rate": 1000},
                       {"fft_size": 64, "average": "median"}, {"fft_size": 64, "backend": "nope"},
                       {"fft_size": 64, "output_rate": 1e-300}, {"fft_size": 64, "frames_per_output": 2**31}):
            with self.assertRaises(gpufft.error, msg=str(kwargs)):
                gpufft.spectrum(**kwargs)
        s = gpufft.spectrum(64, format="cu8")
        with self.assertRaises(TypeError):
            s.push(np.zeros(128, np.int8))
        with self.assertRaises(ValueError):
            s.push(np.zeros((128, 2), np.uint8)[:, 0])
        self.assertEqual(s.push(np.zeros(0, np.uint8)).shape, (0, 64))
        np.testing.assert_allclose(gpufft.spectrum(4, sample_rate=8, shift=True).frequencies, [-4, -2, 0, 2])


if __name__ == "__main__":
    gr_unittest.run(qa_spectrum)
