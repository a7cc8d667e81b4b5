#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.display: the histogram with decay, the traces, the waterfall
and the resampling of bins to columns against a numpy float64 reference
written from the definition in include/gpufft/display.h; a tone and a noise
floor at the pixel and row they map to; runtime changes; bad parameters.
gpufft.spectrum_display from raw I/Q on simd and opencl (on the device)
against the same reference after a numpy spectrum.

Fresh random data every run; replay with GPUFFT_QA_SEED=<seed>.
"""

import os

import numpy as np
from gnuradio import gpufft, gr_unittest

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_display: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")


class Reference:
    """The display's definition in float64, step by step (display.h)."""

    def __init__(self, n, width, height, db_min, db_max, decay, resample, average, alpha, max_hold, rows,
                 bin_begin=0, bin_end=None):
        self.n, self.width, self.height = n, width, height
        self.db_min, self.db_max, self.decay = db_min, db_max, decay
        self.resample, self.average, self.alpha, self.max_hold = resample, average, alpha, max_hold
        self.rows = [np.full(width, np.nan)] * rows
        self.set_bin_range(bin_begin, n if bin_end is None else bin_end)
        self.count = 0

    def set_bin_range(self, begin, end):
        """Step 1's columns over the bins [begin, end); every trace, row and
        cell starts again (display.h, set_bin_range)."""
        self.begin, self.end = begin, end
        c, m = np.arange(self.width), end - begin
        self.b0 = begin + c * m // self.width
        self.b1 = np.maximum(self.b0 + 1, begin + (c + 1) * m // self.width)
        self.hist = np.zeros((self.height, self.width))
        self.avg = np.full(self.width, np.nan)
        self.peak = np.full(self.width, np.nan)
        self.rows = [np.full(self.width, np.nan)] * len(self.rows)
        self.count = 0

    def columns(self, x):
        """Step 1: max or mean over bins [b0, b1) of each column (reduceat
        over b0 of the bins before `end`: a repeated start, W > m, takes the
        single bin)."""
        x = x[:self.end].astype(np.float64)
        if self.resample == "max":
            return np.maximum.reduceat(x, self.b0)
        return np.add.reduceat(x, self.b0) / (self.b1 - self.b0)

    def row_coordinate(self, v):
        return (v - self.db_min) * self.height / (self.db_max - self.db_min)

    def keep_off_boundaries(self, x):
        """Moves values within 1e-3 rows of a row boundary by 0.01 rows (float
        rounding may put them in either row, display.h step 2)."""
        t = self.row_coordinate(self.columns(x))
        row_db = (self.db_max - self.db_min) / self.height
        near = (t > 0.5) & (t < self.height - 0.5) & (np.abs(t - np.round(t)) < 1e-3)
        for col in np.flatnonzero(near):
            lo, hi = self.b0[col], self.b1[col]
            if self.resample == "max":
                x[lo + np.argmax(x[lo:hi])] += np.float32(0.01 * row_db)
            else:
                x[lo] += np.float32(0.01 * row_db * (hi - lo))

    def push(self, x):
        v = self.columns(x)
        r = np.clip(np.floor(self.row_coordinate(v)), 0, self.height - 1).astype(int)
        self.hist *= self.decay
        self.hist[r, np.arange(self.width)] += 1
        self.count += 1
        if self.count == 1:
            self.avg = v.copy()
        elif self.average == "exponential":
            self.avg = self.alpha * v + (1 - self.alpha) * self.avg
        else:
            self.avg = self.avg + (v - self.avg) / self.count
        if self.max_hold:
            self.peak = v.copy() if self.count == 1 else np.maximum(self.peak, v)
        self.rows = self.rows[1:] + [v]


def make(ref):
    return gpufft.display(ref.n, width=ref.width, height=ref.height, db_min=ref.db_min,
                          db_max=ref.db_max, decay=ref.decay, resample=ref.resample,
                          average=ref.average, alpha=ref.alpha, max_hold=ref.max_hold,
                          waterfall_rows=len(ref.rows), bin_begin=ref.begin, bin_end=ref.end)


class qa_display(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(SEED)

    def assert_matches(self, d, ref, what):
        steady = 1 / (1 - ref.decay)
        np.testing.assert_allclose(d.histogram(), ref.hist, rtol=0, atol=1e-5 * steady,
                                   err_msg=what + ": histogram")
        np.testing.assert_allclose(d.average(), ref.avg, rtol=0, atol=1e-3, err_msg=what + ": average")
        np.testing.assert_allclose(d.max_hold(), ref.peak, rtol=0, atol=1e-4, err_msg=what + ": max-hold")
        np.testing.assert_allclose(d.waterfall(), np.array(ref.rows), rtol=0, atol=1e-4,
                                   err_msg=what + ": waterfall")
        for k in range(1, len(ref.rows) + 1):
            newest = np.array(ref.rows[-k:])
            # NaN (no data) only where every row is NaN.
            want = np.where(np.isnan(newest).all(axis=0), np.nan,
                            np.max(np.where(np.isnan(newest), -np.inf, newest), axis=0))
            np.testing.assert_allclose(d.waterfall_max(k), want, rtol=0, atol=1e-4,
                                       err_msg=f"{what}: max of the newest {k} waterfall rows")
        self.assertEqual(d.bin_range, (ref.begin, ref.end))

    def test_against_reference(self):
        """Every read-out after every batch; bin ranges of the whole frame,
        and parts inside it of more bins than columns or fewer."""
        shapes = [(64, 64, 0, 64), (1000, 128, 0, 1000), (4096, 100, 0, 4096), (50, 137, 0, 50), (7, 3, 0, 7),
                  (1, 5, 0, 1), (4096, 100, 1234, 2999), (4096, 256, 2000, 2064), (1000, 128, 999, 1000),
                  (50, 137, 0, 31), (7, 3, 2, 6)]
        for n, width, bin_begin, bin_end in shapes:
            for resample in ("max", "mean"):
                for average in ("exponential", "linear"):
                    for decay in (0.9, 0.5, 1e-3):
                        db_min = -100.0 - self.rng.integers(20)
                        ref = Reference(n, width, int(self.rng.integers(1, 200)), db_min,
                                        db_min + 10 + self.rng.integers(100), decay, resample,
                                        average, float(self.rng.uniform(0.05, 0.95)),
                                        bool(self.rng.integers(4)), int(self.rng.integers(1, 7)),
                                        bin_begin, bin_end)
                        what = (f"n={n} W={width} bins [{bin_begin}, {bin_end}) H={ref.height} "
                                f"[{ref.db_min}, {ref.db_max}] dB "
                                f"decay={decay} {resample} {average} max_hold={ref.max_hold}")
                        d = make(ref)
                        # Before the first frame: histogram 0, traces and rows NaN.
                        self.assert_matches(d, ref, what + " before any frame")
                        np.testing.assert_array_equal(d.column_bins, np.stack([ref.b0, ref.b1], axis=1))
                        for batch in (1, 3, 40, 90):
                            x = self.rng.uniform(ref.db_min - 10, ref.db_max + 10,
                                                 (batch, n)).astype(np.float32)
                            for frame in x:
                                ref.keep_off_boundaries(frame)
                                ref.push(frame)
                            d.push(x if batch > 1 else x[0])
                            self.assert_matches(d, ref, f"{what} after {ref.count} frames")
                        self.assertEqual(d.frames, ref.count)

    def test_tone_and_noise_floor(self):
        """A tone at a known frequency is the top of its column with max
        resampling; the noise fills the row of its mean dB level with mean
        resampling: 10 log10(E|x|^2 / n) - 2.507 dB (logpwrfft's scale puts
        white noise's mean power at E|x|^2 / n; the mean of the dB of an
        exponential variable is 10 gamma / ln 10 = 2.507 dB below)."""
        n, width, frames, fs = 4096, 64, 40, 1e6
        k = int(self.rng.integers(-n // 2, n // 2))  # the tone's bin, signed
        tone_hz = k * fs / n
        w = gpufft.window("blackmanharris", n).astype(np.float64)
        t = np.arange(n)
        noise_power = 0.5
        spectra = []
        for _ in range(frames):
            x = np.sqrt(noise_power / 2) * (self.rng.standard_normal(n) + 1j * self.rng.standard_normal(n))
            x = x + np.exp(2j * np.pi * k * t / n + 1j * self.rng.uniform(0, 2 * np.pi))
            p = np.abs(np.fft.fft(x * w)) ** 2 / (n * np.sum(w**2))
            spectra.append(10 * np.log10(np.fft.fftshift(p)))
        spectra = np.array(spectra, dtype=np.float32)
        # The pixel of a frequency: the display spans [-fs/2, fs/2) over width columns.
        pixel = int(np.floor((tone_hz + fs / 2) / fs * width))

        d = gpufft.display(n, width=width, height=100, db_min=-100, db_max=0, resample="max")
        d.push(spectra)
        h = d.histogram()
        rows, cols = np.nonzero(h > 0.5)
        top = np.argmax(rows)
        self.assertEqual(cols[top], pixel, f"tone at {tone_hz} Hz: top of the histogram in column {cols[top]}")
        self.assertGreaterEqual(rows[top], 90)
        self.assertEqual(np.argmax(d.max_hold()), pixel)

        d = gpufft.display(n, width=width, height=100, db_min=-100, db_max=0, resample="mean")
        d.push(spectra)
        per_row = np.delete(d.histogram(), pixel, axis=1).sum(axis=1)
        floor_db = 10 * np.log10(noise_power / n) - 2.507
        want = int(np.floor(floor_db + 100))
        self.assertLessEqual(abs(int(np.argmax(per_row)) - want), 1,
                             f"noise floor {floor_db:.2f} dB: most hits in row {np.argmax(per_row)}, want {want}")

    def test_runtime_changes(self):
        ref = Reference(300, 70, 50, -90.0, -10.0, 0.8, "max", "exponential", 0.3, True, 3)
        d = make(ref)

        def step(what):
            x = self.rng.uniform(ref.db_min - 10, ref.db_max + 10, (7, ref.n)).astype(np.float32)
            for frame in x:
                ref.keep_off_boundaries(frame)
                ref.push(frame)
            d.push(x)
            self.assert_matches(d, ref, what)

        step("start")
        d.set_decay(0.3)
        ref.decay = 0.3
        step("decay 0.3")
        d.set_db_range(-60, 20)
        ref.db_min, ref.db_max, ref.hist[:] = -60.0, 20.0, 0
        step("dB range")
        d.set_resample("mean")
        ref.resample = "mean"
        step("mean")
        d.set_average("linear", 1.0)
        ref.average, ref.count = "linear", 0  # the average restarts
        d_frames = d.frames
        x = self.rng.uniform(-70, 30, (5, ref.n)).astype(np.float32)
        d.push(x)
        np.testing.assert_allclose(d.average(), np.mean([ref.columns(f) for f in x], axis=0), atol=1e-3)
        self.assertEqual(d.frames, d_frames + 5)
        d.set_max_hold(False)
        self.assertTrue(np.all(np.isnan(d.max_hold())))
        d.set_max_hold(True)
        ref.average = "exponential"
        d.set_average("exponential", ref.alpha)
        for begin, end in ((17, 251), (100, 130), (0, 300)):
            frames = d.frames
            d.set_bin_range(begin, end)
            ref.set_bin_range(begin, end)
            self.assertEqual(d.frames, frames)  # a new range keeps counting frames
            self.assert_matches(d, ref, f"bins [{begin}, {end}) before a frame")
            step(f"bins [{begin}, {end})")
        d.reset()
        self.assertEqual(d.frames, 0)
        self.assertTrue(np.all(d.histogram() == 0))
        self.assertTrue(np.all(np.isnan(d.average())) and np.all(np.isnan(d.waterfall())))

    def assert_levels_of(self, d, cells, scale, top, slack, what):
        """histogram_levels against the levels of `cells` (display.h,
        read_histogram_levels): exact, but for values within `slack` of a
        level boundary, which may land on either side."""
        levels, lit = d.histogram_levels(scale, top)
        x = np.float32(scale) * cells.astype(np.float32) + np.float32(0.5)
        expect = np.floor(np.minimum(x, top))
        near = np.abs(x - np.round(x)) <= slack
        wrong = (levels != expect) & ~(near & (np.abs(levels - expect) <= 1))
        self.assertFalse(wrong.any(), f"{what}: levels differ at (row, column) {np.argwhere(wrong)[:5].tolist()}, "
                                      f"got {levels[wrong][:5]}, expected {expect[wrong][:5]}")
        np.testing.assert_array_equal(lit, levels.any(axis=1), err_msg=what + ": lit rows")

    def assert_levels(self, d, ref, scale, top, what):
        """Levels against the reference's cells, within their float error."""
        self.assert_levels_of(d, ref.hist, scale, top, scale * 1e-5 / (1 - ref.decay) + 1e-3, what)
        # The float read-out skips rows too: a cell that the definition
        # keeps (>= 1e-30) reads non-zero, one it flushes reads 0.
        h = d.histogram()
        self.assertTrue(np.all(h[ref.hist >= 2e-30] > 0), what + ": a kept cell reads 0")
        self.assertTrue(np.all(h[ref.hist < 5e-31] == 0), what + ": a flushed cell reads non-zero")

    def test_histogram_levels(self):
        """Levels of a band of values that jumps between rows, so that most
        rows go unhit long enough to be skipped, through decay changes (a
        faster decay after a slower one) and the histogram's folds (decay
        1e-3 folds every few frames)."""
        ref = Reference(200, 50, 64, -64.0, 0.0, 0.9, "max", "exponential", 0.5, True, 1)
        d = make(ref)
        frames = 0
        for decay in (0.9, 0.5, 0.99, 0.2, 1e-3, 0.95):
            d.set_decay(decay)
            ref.decay = decay
            for jump in range(4):
                centre = self.rng.uniform(-60, -4)
                x = (centre + self.rng.uniform(-2, 2, (int(self.rng.integers(5, 60)), ref.n))).astype(np.float32)
                for i, frame in enumerate(x):
                    ref.keep_off_boundaries(frame)
                    ref.push(frame)
                    d.push(frame)
                    frames += 1
                    # Every frame while the rows left behind fade, then at the end.
                    if i >= 12 and i + 1 < len(x):
                        continue
                    what = f"decay {decay}, {frames} frames, band at {centre:.1f} dB"
                    for scale, top in ((1023 * (1 - decay), 1023), (1e4, 700), (3.0, 65535)):
                        self.assert_levels(d, ref, scale, top, f"{what}, scale {scale}, top {top}")
                levels, lit = d.histogram_levels(0.0)
                self.assertFalse(levels.any() or lit.any(), what + ": scale 0 gives level 0")
        with self.assertRaisesRegex(gpufft.error, "scale"):
            d.histogram_levels(-1.0)
        with self.assertRaisesRegex(gpufft.error, "scale"):
            d.histogram_levels(float("nan"))

    def test_spectrum_display_backends(self):
        """Raw I/Q through gpufft.spectrum_display on simd and opencl (where
        usable: on the device there) against the numpy reference: the dB
        spectrum of each frame (window, FFT, dBFS, fftshift) in
        float64, then the display's definition. The backends' float FFTs put
        a column value within rounding of a row boundary in either row
        (display.h step 2), so a few histogram cells may differ by one hit,
        moved to the adjacent row: every column's total must still match,
        and at most 2 + hits / 500 cells differ. Traces and waterfall match
        within 0.01 dB where within 40 dB of the frame's mean power, within
        1 dB below."""
        backends = ["simd"] + (["opencl"] if "opencl" in gpufft.usable_backend_names() else [])
        for n, width, resample, average in ((1024, 300, "max", "exponential"), (1000, 2000, "mean", "linear"),
                                            (4410, 1024, "mean", "exponential")):
            frames = 12
            t = np.arange(frames * n)
            x = 0.3 * (self.rng.standard_normal(t.size) + 1j * self.rng.standard_normal(t.size))
            x = (x + 0.5 * np.exp(2j * np.pi * 0.1234 * t)).astype(np.complex64)
            w = gpufft.window("blackmanharris", n)  # float32 taps, as the engine applies them
            ref = Reference(n, width, 120, -90.0, -10.0, 0.9, resample, average, 0.3, True, 4)
            for f in range(frames):
                frame = x[f * n:(f + 1) * n] * w  # windowed in float, as both backends
                p = np.abs(np.fft.fft(frame.astype(np.complex128))) ** 2 / np.sum(w.astype(np.float64)) ** 2
                ref.push(10 * np.log10(np.maximum(np.fft.fftshift(p), 1e-30)))
            hits = frames * width
            for backend in backends:
                what = f"{backend} n={n} W={width} {resample} {average}"
                d = gpufft.spectrum_display(n, width=width, height=120, db_min=-90, db_max=-10, decay=0.9,
                                            resample=resample, average=average, alpha=0.3, waterfall_rows=4,
                                            batch=5, backend=backend)
                self.assertTrue(d.backend.startswith(backend), what + ": runs on " + d.backend)
                self.assertEqual(d.push(x[:7 * n + 3]) + d.push(x[7 * n + 3:]) + d.flush(), frames, what)
                h = d.histogram()
                steady = 1 / (1 - ref.decay)
                np.testing.assert_allclose(h.sum(axis=0), ref.hist.sum(axis=0), rtol=0, atol=1e-4 * steady,
                                           err_msg=what + ": histogram column totals")
                differ = np.count_nonzero(np.abs(h - ref.hist) > 1e-4 * steady)
                self.assertLessEqual(differ, 2 + hits // 500, what + ": histogram cells that differ")
                # One definition of the levels on every backend: those of its own cells.
                self.assert_levels_of(d, h, 1023 * (1 - ref.decay), 1023, 1e-3, what + ": levels")
                np.testing.assert_array_equal(d.waterfall_max(3), np.fmax.reduce(d.waterfall(3)),
                                              err_msg=what + ": max of the newest 3 waterfall rows")
                for got, want, name in ((d.average(), ref.avg[None, :], "average"),
                                        (d.max_hold(), ref.peak[None, :], "max-hold"),
                                        (d.waterfall(), np.array(ref.rows), "waterfall")):
                    got = got.reshape(want.shape)
                    mean_db = 10 * np.log10(np.mean(10 ** (want / 10), axis=1, keepdims=True))
                    bound = np.where(want >= mean_db - 40, 0.01, 1.0)
                    worst = np.max(np.abs(got - want) / bound)
                    self.assertLessEqual(worst, 1.0, f"{what}: {name} off by {worst:.3g} of its bound")
                self.assertEqual(d.frames, frames)

    def test_bad_parameters(self):
        bad = [
            (dict(n=0), "n (bins"),
            (dict(n=64, width=0), "width"),
            (dict(n=64, height=0), "height"),
            (dict(n=64, waterfall_rows=0), "waterfall_rows"),
            (dict(n=64, decay=0.0), "decay"),
            (dict(n=64, decay=1.0), "decay"),
            (dict(n=64, decay=1.5), "decay"),
            (dict(n=64, decay=float("nan")), "decay"),
            (dict(n=64, db_min=-10, db_max=-10), "dB range"),
            (dict(n=64, db_min=0, db_max=-100), "dB range"),
            (dict(n=64, db_max=float("inf")), "dB range"),
            (dict(n=64, alpha=0.0), "alpha"),
            (dict(n=64, resample="median"), "median"),
            (dict(n=64, average="peak"), "peak"),
        ]
        for kwargs, word in bad:
            with self.assertRaises(gpufft.error, msg=str(kwargs)) as cm:
                gpufft.display(**kwargs)
            self.assertIn(word, str(cm.exception), str(kwargs))
        d = gpufft.display(64, width=32)
        with self.assertRaises(TypeError):
            d.push(np.zeros((2, 64), np.float64))
        with self.assertRaisesRegex(gpufft.error, "n = 64"):
            d.push(np.zeros((2, 63), np.float32))
        with self.assertRaisesRegex(gpufft.error, "contiguous"):
            d.push(np.zeros((64, 2), np.float32).T)
        with self.assertRaisesRegex(gpufft.error, "rows"):
            d.waterfall(2)
        with self.assertRaisesRegex(gpufft.error, "decay"):
            d.set_decay(2.0)
        with self.assertRaisesRegex(gpufft.error, "dB range"):
            d.set_db_range(0, 0)
        with self.assertRaisesRegex(gpufft.error, "resample"):
            d.set_resample("median")
        with self.assertRaisesRegex(gpufft.error, "bin range"):
            d.set_bin_range(5, 5)
        with self.assertRaisesRegex(gpufft.error, "bin range.*64"):
            d.set_bin_range(0, 65)
        with self.assertRaisesRegex(gpufft.error, "bin range"):
            gpufft.display(64, bin_begin=64)
        self.assertEqual(d.frames, 0)


if __name__ == "__main__":
    gr_unittest.run(qa_display)
