#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.plan with shape= and kind= (r2c, c2r, multi-dimensional c2c)
against numpy.fft in complex128, on every usable backend that plans them.

Fresh random data each run (seed printed, replay with GPUFFT_QA_SEED=<seed>);
outputs are poisoned with NaN first.
"""

import math
import os

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpufft

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_plan_shapes: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")
RNG = np.random.default_rng(SEED)


def tolerance(points):
    """Relative L2 error bound for one float32 transform of that many points."""
    return 1e-6 * max(1.0, math.log2(points))


def rel_err(got, want):
    return np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)


def reals(shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def complexes(shape):
    return (RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)).astype(np.complex64)


class qa_plan_shapes(gr_unittest.TestCase):

    def check(self, got, want, points, label):
        self.assertTrue(np.all(np.isfinite(got)), f"{label}: not all finite")
        self.assertEqual(got.shape, want.shape, label)
        err = rel_err(got.astype(want.dtype), want)
        self.assertLess(err, tolerance(points), f"{label}: rel L2 error {err}")

    def test_001_r2c_c2r_1d(self):
        for n in (1, 2, 3, 5, 16, 17, 1000, 4410, 65536):
            for batch in (1, 3):
                label = f"n={n} batch={batch}"
                x = reals((batch, n))
                p = gpufft.plan(shape=(n,), batch=batch, kind="r2c", backend="simd")
                self.assertEqual((p.kind, p.shape, p.n), ("r2c", (n,), n))
                out = np.full((batch, n // 2 + 1), np.nan, np.complex64)
                p.execute(x, out=out)
                self.check(out, np.fft.rfft(x.astype(np.float64)), n, "r2c " + label)
                q = gpufft.plan(shape=(n,), batch=batch, kind="c2r", backend="simd")
                self.assertFalse(q.forward)
                y = q.execute(out)
                self.assertEqual(y.dtype, np.float32)
                # Unnormalized: c2r(r2c(x)) = n x.
                self.check(y, n * x.astype(np.float64), n, "c2r " + label)

    def test_002_old_signature_is_1d_c2c(self):
        p = gpufft.plan(64, False, 4)
        self.assertEqual((p.kind, p.shape, p.n, p.batch, p.forward), ("c2c", (64,), 64, 4, False))
        x = complexes((4, 64))
        self.check(p.execute(x), np.fft.ifft(x.astype(np.complex128)) * 64, 64, "old")
        # The n-only form and direction= agree.
        q = gpufft.plan(n=64, batch=4, direction="inverse")
        self.assertFalse(q.forward)

    def test_003_c2c_2d_3d(self):
        for shape in ((5, 7), (16, 16), (64, 100), (2, 3, 5), (8, 8, 8), (3, 1, 9)):
            for direction in ("forward", "inverse"):
                label = f"{shape} {direction}"
                x = complexes((2,) + shape)
                p = gpufft.plan(shape=shape, batch=2, direction=direction, backend="simd")
                want = (np.fft.fftn(x.astype(np.complex128), axes=range(1, x.ndim))
                        if direction == "forward"
                        else np.fft.ifftn(x.astype(np.complex128), axes=range(1, x.ndim))
                        * np.prod(shape))
                self.check(p.execute(x), want, np.prod(shape), label)
                # batch 1: the shape itself; flat arrays of span elements
                q = gpufft.plan(shape=shape, direction=direction, backend="simd")
                self.check(q.execute(x[0]), want[0], np.prod(shape), label + " unbatched")
                self.check(q.execute(x[0].ravel()), want[0].ravel(), np.prod(shape),
                           label + " flat")

    def test_004_rfftn_irfftn(self):
        for shape in ((4, 6), (5, 7), (17, 31), (256, 256), (2, 3, 5), (8, 12, 33)):
            label = str(shape)
            x = reals((3,) + shape)
            p = gpufft.plan(shape=shape, batch=3, kind="r2c", backend="simd")
            spectrum = p.execute(x)
            self.assertEqual(spectrum.shape, (3,) + shape[:-1] + (shape[-1] // 2 + 1,))
            axes = range(1, x.ndim)
            self.check(spectrum, np.fft.rfftn(x.astype(np.float64), axes=axes), np.prod(shape),
                       "rfftn " + label)
            q = gpufft.plan(shape=shape, batch=3, kind="c2r", backend="simd")
            before = spectrum.copy()
            y = q.execute(spectrum)
            np.testing.assert_array_equal(spectrum, before, err_msg="c2r changed its input")
            self.check(y, np.prod(shape) * x.astype(np.float64), np.prod(shape),
                       "irfftn " + label)

    def test_005_distances(self):
        # r2c rows with gaps on both sides, flat buffers
        n, batch = 10, 3
        p = gpufft.plan(shape=(n,), batch=batch, kind="r2c", distance=8, real_distance=12)
        self.assertEqual((p.span, p.real_span, p.distance, p.real_distance), (22, 34, 8, 12))
        x = reals(34)
        out = p.execute(x)
        self.assertEqual(out.shape, (22,))
        for b in range(batch):
            self.check(out[8 * b:8 * b + 6], np.fft.rfft(x[12 * b:12 * b + n].astype(np.float64)),
                       n, f"row {b}")
        self.assertTrue(np.all(out[6:8] == 0), "gaps of a fresh output are zero")

    def test_006_auto_and_every_backend(self):
        """auto plans real and 2-D problems; a backend without them says so."""
        x = reals((32, 32))
        want = np.fft.rfft2(x.astype(np.float64))
        self.check(gpufft.plan(shape=(32, 32), kind="r2c").execute(x), want, 1024, "auto")
        for b in gpufft.backends():
            if not b["usable"]:
                continue
            try:
                p = gpufft.plan(shape=(32, 32), kind="r2c", backend=b["name"])
            except gpufft.error as e:
                self.assertIn("r2c", str(e))
                continue
            self.check(p.execute(x), want, 1024, b["name"])

    def test_010_bad_arguments(self):
        for kwargs in (dict(shape=(4, 0)), dict(shape=()), dict(n=8, shape=(8,)), dict(),
                       dict(shape=(8,), kind="r2r"), dict(shape=(8,), kind="r2c",
                                                          direction="inverse"),
                       dict(shape=(8,), direction="sideways"), dict(shape=(8, -1)),
                       dict(shape=(8,), kind="r2c", batch=2, distance=4),
                       dict(shape=(8,), kind="c2r", batch=2, real_distance=7)):
            with self.assertRaises(ValueError, msg=str(kwargs)) as cm:
                gpufft.plan(**kwargs)
            self.assertIsInstance(cm.exception, gpufft.error)

    def test_011_wrong_arrays(self):
        r2c = gpufft.plan(shape=(4, 10), kind="r2c")
        c2r = gpufft.plan(shape=(4, 10), kind="c2r")
        with self.assertRaises(TypeError) as cm:
            r2c.execute(complexes((4, 10)))
        self.assertIn("float32", str(cm.exception))
        with self.assertRaises(TypeError) as cm:
            r2c.execute(np.zeros((4, 10)))  # float64
        self.assertIn("astype", str(cm.exception))
        with self.assertRaises(TypeError):
            c2r.execute(reals((4, 6)))
        # c2r takes N//2 + 1 along the last axis, not N
        with self.assertRaises(ValueError) as cm:
            c2r.execute(complexes((4, 10)))
        self.assertIn("10 reals <-> 6 complex", str(cm.exception))
        with self.assertRaises(ValueError):
            c2r.execute(complexes((4, 6)), out=np.zeros((4, 6), np.float32))
        with self.assertRaises(ValueError):
            r2c.execute(reals((10, 4)))
        with self.assertRaises(ValueError):
            r2c.execute(reals((4, 10)), out=np.zeros(24, np.complex64))  # flat out, shaped in


if __name__ == "__main__":
    gr_unittest.run(qa_plan_shapes)
