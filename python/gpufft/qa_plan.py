#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.plan against numpy.fft computed in complex128.

Every run draws fresh random data; the seed is printed and can be replayed
with GPUFFT_QA_SEED=<seed>. Outputs are poisoned with NaN before each run so
that an element the library forgets to write cannot pass.
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import zlib

# Tuning writes a wisdom file: keep it out of the user's home.
_WISDOM_DIR = tempfile.TemporaryDirectory(prefix="gpufft-qa-")
os.environ["GPUFFT_WISDOM"] = os.path.join(_WISDOM_DIR.name, "wisdom")

import numpy as np  # noqa: E402
from gnuradio import gr_unittest  # noqa: E402
from gnuradio import gpufft  # noqa: E402

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_plan: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")

SMALL = list(range(1, 65))
PRIMES = [67, 97, 101, 127, 131, 251, 257, 509, 521, 1009, 2053, 4093]
LARGE = [1000, 2400, 4096]
SIZES = SMALL + PRIMES + LARGE


def tolerance(n):
    """Relative L2 error bound for one float32 transform of size n."""
    return 1e-6 * max(1.0, math.log2(n))


def random_complex(rng, count):
    return (rng.standard_normal(count) + 1j * rng.standard_normal(count)).astype(np.complex64)


def reference(x, n, forward, batch, distance):
    """Unnormalized DFTs in complex128 of the transforms in 1-D or 2-D x."""
    flat = np.asarray(x, dtype=np.complex128).reshape(-1)
    starts = np.arange(batch) * distance
    segments = flat[starts[:, None] + np.arange(n)[None, :]]
    if forward:
        return np.fft.fft(segments, axis=1)
    return np.fft.ifft(segments, axis=1) * n


def transforms(y, n, batch, distance):
    flat = np.asarray(y).reshape(-1)
    starts = np.arange(batch) * distance
    return flat[starts[:, None] + np.arange(n)[None, :]]


def poisoned_like(x):
    return np.full_like(x, np.nan + 1j * np.nan)


def simd_variants():
    for b in gpufft.backends():
        if b["name"] == "simd" and b["usable"]:
            return list(b["variants"])
    return []


class qa_plan(gr_unittest.TestCase):

    def setUp(self):
        self.rng = np.random.default_rng([SEED, zlib.crc32(self.id().encode())])

    # ------------------------------------------------------------------
    # helpers
    # ------------------------------------------------------------------
    def check(self, p, x, y, label=""):
        """y (any shape) holds p's transforms of x, within tolerance."""
        n, batch, distance = p.n, p.batch, p.distance
        got = transforms(y, n, batch, distance)
        self.assertTrue(np.all(np.isfinite(got)),
                        f"{label} {p!r}: non-finite output (unwritten element?) seed {SEED}")
        want = reference(x, n, p.forward, batch, distance)
        err = np.linalg.norm(got - want, axis=1) / np.maximum(np.linalg.norm(want, axis=1),
                                                               1e-30)
        worst = float(err.max())
        self.assertLessEqual(worst, tolerance(n),
                             f"{label} {p!r} ({p.describe()}): relative L2 error {worst:.3g} "
                             f"> {tolerance(n):.3g}, seed {SEED}")

    def run_poisoned(self, p, x, label=""):
        """Executes into a NaN-filled out= array, checks and returns it."""
        x_copy = x.copy()
        out = poisoned_like(x)
        ret = p.execute(x, out=out)
        self.assertIs(ret, out)
        np.testing.assert_array_equal(x, x_copy, err_msg=f"{label}: input was modified")
        self.check(p, x, out, label)
        return out

    def sweep(self, backend, sizes, batch=1, two_d=False):
        for n in sizes:
            for forward in (True, False):
                p = gpufft.plan(n, forward=forward, batch=batch, backend=backend)
                self.assertEqual((p.n, p.batch, p.distance, p.forward),
                                 (n, batch, n, forward))
                shape = (batch, n) if two_d else (batch * n,)
                x = random_complex(self.rng, batch * n).reshape(shape)
                self.run_poisoned(p, x, f"backend={backend} n={n}")

    # ------------------------------------------------------------------
    # discovery
    # ------------------------------------------------------------------
    def test_001_backends(self):
        infos = gpufft.backends()
        self.assertIsInstance(infos, list)
        self.assertGreater(len(infos), 0)
        for b in infos:
            self.assertEqual(set(b), {"name", "description", "usable", "reason", "variants", "variant_notes"})
            self.assertIsInstance(b["name"], str)
            self.assertIsInstance(b["description"], str)
            self.assertIsInstance(b["usable"], bool)
            self.assertIsInstance(b["reason"], str)
            self.assertIsInstance(b["variants"], list)
            # Empty, or a line on each variant (an OpenCL device's name and driver).
            self.assertIn(len(b["variant_notes"]), (0, len(b["variants"])))
            if b["name"] == "opencl" and b["usable"]:
                self.assertTrue(all(", driver " in note for note in b["variant_notes"]), b["variant_notes"])
            if b["usable"]:
                self.assertEqual(b["reason"], "")
            else:
                self.assertNotEqual(b["reason"], "", f"{b['name']} unusable with no reason")
        names = [b["name"] for b in infos]
        self.assertIn("simd", names)
        self.assertGreater(len(simd_variants()), 0, "simd backend unusable or has no variants")
        usable = [b["name"] for b in infos if b["usable"]]
        self.assertEqual(gpufft.usable_backend_names(), ", ".join(usable))

    def test_002_properties(self):
        p = gpufft.plan(16, forward=False, batch=3, distance=20)
        self.assertEqual(p.n, 16)
        self.assertEqual(p.batch, 3)
        self.assertEqual(p.distance, 20)
        self.assertEqual(p.span, 2 * 20 + 16)
        self.assertFalse(p.forward)
        self.assertIsInstance(p.backend, str)
        usable = [b["name"] for b in gpufft.backends() if b["usable"]]
        self.assertIn(p.backend.split(":")[0], usable)
        self.assertIsInstance(p.describe(), str)
        self.assertNotEqual(p.describe(), "")
        self.assertIn("gpufft.plan", repr(p))
        self.assertEqual(gpufft.plan(8).distance, 8)

    # ------------------------------------------------------------------
    # accuracy
    # ------------------------------------------------------------------
    def test_010_auto_all_sizes(self):
        self.sweep("auto", SIZES)

    def test_011_new_array(self):
        for n in (1, 7, 64, 1000):
            p = gpufft.plan(n)
            x = random_complex(self.rng, n)
            x_copy = x.copy()
            y = p.execute(x)
            self.assertIsNot(y, x)
            self.assertEqual(y.dtype, np.complex64)
            self.assertEqual(y.shape, x.shape)
            self.assertFalse(np.shares_memory(x, y))
            np.testing.assert_array_equal(x, x_copy)
            self.check(p, x, y, "new array")

    def test_012_batch_2d(self):
        for n in (1, 5, 16, 60, 509, 1000, 4096):
            for forward in (True, False):
                batch = 7
                p = gpufft.plan(n, forward=forward, batch=batch)
                x = random_complex(self.rng, batch * n).reshape(batch, n)
                y = p.execute(x)
                self.assertEqual(y.shape, (batch, n))
                self.check(p, x, y, "2-D new array")
                self.run_poisoned(p, x, "2-D out=")

    def test_013_distance(self):
        for n, batch, distance in ((1, 4, 3), (8, 5, 11), (64, 3, 100), (127, 4, 128),
                                   (1000, 3, 1024), (2400, 2, 4096)):
            for forward in (True, False):
                p = gpufft.plan(n, forward=forward, batch=batch, distance=distance)
                span = (batch - 1) * distance + n
                self.assertEqual(p.span, span)
                x = random_complex(self.rng, span)
                out = self.run_poisoned(p, x, f"distance={distance}")
                gaps = np.ones(span, bool)
                for b in range(batch):
                    gaps[b * distance:b * distance + n] = False
                self.assertTrue(np.all(np.isnan(out[gaps])),
                                f"n={n} distance={distance}: elements between transforms "
                                f"were written")
                y = p.execute(x)
                self.check(p, x, y, "distance, new array")
                self.assertTrue(np.all(y[gaps] == 0), "new array gaps are not zero")

    def test_014_in_place(self):
        for n, batch in ((1, 1), (2, 3), (17, 2), (64, 8), (1000, 2), (4093, 1), (4096, 3)):
            for forward in (True, False):
                for two_d in (False, True):
                    p = gpufft.plan(n, forward=forward, batch=batch)
                    shape = (batch, n) if two_d else (batch * n,)
                    x = random_complex(self.rng, batch * n).reshape(shape)
                    a = x.copy()
                    ret = p.execute(a, out=a)
                    self.assertIs(ret, a)
                    self.check(p, x, a, f"in place n={n}")
        # in place with gaps: the gaps keep their input values
        p = gpufft.plan(12, batch=3, distance=16)
        x = random_complex(self.rng, p.span)
        a = x.copy()
        p.execute(a, out=a)
        self.check(p, x, a, "in place, distance")
        for b in range(2):
            np.testing.assert_array_equal(a[b * 16 + 12:(b + 1) * 16],
                                          x[b * 16 + 12:(b + 1) * 16])

    def test_015_round_trip(self):
        for n in (1, 3, 64, 97, 2400):
            f = gpufft.plan(n, forward=True, batch=2)
            i = gpufft.plan(n, forward=False, batch=2)
            x = random_complex(self.rng, 2 * n)
            back = i.execute(f.execute(x)) / n
            err = np.linalg.norm(back - x) / np.linalg.norm(x)
            self.assertLessEqual(err, 2 * tolerance(n), f"round trip n={n}: {err:.3g}")

    def test_016_every_simd_variant(self):
        variants = simd_variants()
        self.assertGreater(len(variants), 0)
        for v in variants:
            name = f"simd:{v}"
            p = gpufft.plan(8, backend=name)
            self.assertEqual(p.backend, name)
            self.sweep(name, SIZES, batch=3, two_d=True)
            self.sweep(name, (1, 16, 1000), batch=1)
        # the bare name picks the best variant, or the one GPUFFT_SIMD_ISA forces
        best = os.environ.get("GPUFFT_SIMD_ISA") or variants[0]
        self.assertEqual(gpufft.plan(64, backend="simd").backend, f"simd:{best}")

    def test_016_wisdom_keeps_the_forced_variant(self):
        # A wisdom entry naming another instruction set than the one asked
        # for must not change what simd:<isa> means. Wisdom is read once per
        # process: a fresh interpreter reads a file made for this test.
        variants = simd_variants()
        narrowest = variants[-1]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "wisdom")
            with open(path, "w") as f:
                for v in variants:
                    other = narrowest if v != narrowest else variants[0]
                    f.write(f"simd {v} 64 forward\t{other} largest\n")
            names = ["simd"] + [f"simd:{v}" for v in variants]
            code = ("import json; from gnuradio import gpufft; "
                    f"print(json.dumps({{b: gpufft.plan(64, backend=b).backend for b in {names!r}}}))")
            env = dict(os.environ, GPUFFT_WISDOM=path)
            env.pop("GPUFFT_SIMD_ISA", None)
            run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        got = json.loads(run.stdout.splitlines()[-1])
        for v in variants:
            self.assertEqual(got[f"simd:{v}"], f"simd:{v}", "wisdom changed a forced variant")
        # The bare name follows the wisdom: the file was read.
        self.assertEqual(got["simd"], f"simd:{narrowest}" if len(variants) > 1 else f"simd:{variants[0]}")

    def test_017_threads_and_tune(self):
        for threads in (1, 2, 3):
            p = gpufft.plan(256, batch=17, threads=threads)
            x = random_complex(self.rng, 17 * 256).reshape(17, 256)
            self.run_poisoned(p, x, f"threads={threads}")
        p = gpufft.plan(1024, batch=4, tune=True)
        x = random_complex(self.rng, 4 * 1024)
        self.run_poisoned(p, x, "tune")
        # On OpenCL tune decides whether the plan-time search runs; its
        # choice goes to the wisdom, which a later plan takes.
        if "opencl" in gpufft.usable_backend_names():
            self.assertNotIn("candidate", gpufft.plan(1296, backend="opencl").describe())
            tuned = gpufft.plan(1296, backend="opencl", tune=True)
            self.assertIn("(searched: candidate", tuned.describe())
            self.run_poisoned(tuned, random_complex(self.rng, 1296), "opencl tune")
            self.assertIn("(wisdom: candidate", gpufft.plan(1296, backend="opencl").describe())

    def test_018_python_threads(self):
        # The GIL is released during execute; plans of their own and one
        # shared plan (which serializes its callers) both stay correct.
        shared = gpufft.plan(512, batch=8)
        x = random_complex(self.rng, 8 * 512)
        want = reference(x, 512, True, 8, 512)
        failures = []

        def worker(own):
            p = gpufft.plan(512, batch=8) if own else shared
            for _ in range(20):
                y = transforms(p.execute(x), 512, 8, 512)
                if np.linalg.norm(y - want) / np.linalg.norm(want) > tolerance(512):
                    failures.append(own)

        threads = [threading.Thread(target=worker, args=(own,))
                   for own in (True, True, False, False)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])

    def test_019_input_weights(self):
        # A window with an fftshift's (-1)^j folded in, as fft_vcc hands it
        # over, on every usable backend: the transforms of x times the
        # weights, whatever the backend does with them (the simd backend in
        # its first pass, the others through a weighted copy).
        usable = [b["name"] for b in gpufft.backends() if b["usable"]]
        for backend in usable:
            for n in (64, 1000, 4096):
                w = np.hanning(n) * (-1.0) ** np.arange(n)
                for forward in (True, False):
                    p = gpufft.plan(n, forward=forward, batch=3, backend=backend,
                                    input_weights=w)
                    x = random_complex(self.rng, 3 * n)
                    out = poisoned_like(x)
                    p.execute(x, out=out)
                    weighted = (x.reshape(3, n) * w).reshape(-1)
                    self.check(p, weighted, out, f"input_weights backend={backend} n={n}")
        # A list of numbers, and integers, are weights too.
        p = gpufft.plan(4, input_weights=[1, 0, 2, 0])
        y = p.execute(np.ones(4, dtype=np.complex64))
        np.testing.assert_allclose(y, [3, -1, 3, -1], atol=1e-6)

    def test_019_bad_input_weights(self):
        for kwargs, want in ((dict(n=8, input_weights=np.ones(7)), "7 weights"),
                             (dict(n=8, input_weights=np.full(8, np.nan)), "NaN"),
                             (dict(n=8, input_weights=np.ones((2, 4))), "1-D"),
                             (dict(n=8, kind="c2r", input_weights=np.ones(8)), "not c2r")):
            with self.assertRaises(gpufft.error, msg=str(kwargs)) as cm:
                gpufft.plan(**kwargs)
            self.assertIn("input_weights", str(cm.exception))
            self.assertIn(want, str(cm.exception))
        for bad in (np.ones(8, dtype=np.complex64), "window", object()):
            with self.assertRaises(TypeError, msg=repr(bad)) as cm:
                gpufft.plan(8, input_weights=bad)
            self.assertIn("input_weights", str(cm.exception))

    # ------------------------------------------------------------------
    # bad input
    # ------------------------------------------------------------------
    def test_020_error_is_value_error(self):
        self.assertTrue(issubclass(gpufft.error, ValueError))

    def test_021_bad_plans(self):
        for kwargs in (dict(n=0), dict(n=8, batch=0), dict(n=8, distance=3),
                       dict(n=16, batch=2, distance=15), dict(n=-1), dict(n=8, batch=-2),
                       dict(n=8, distance=-1), dict(n=8, threads=0), dict(n=8, threads=-1)):
            with self.assertRaises(ValueError, msg=str(kwargs)) as cm:
                gpufft.plan(**kwargs)
            self.assertIsInstance(cm.exception, gpufft.error)
            self.assertNotEqual(str(cm.exception), "")

    def test_021_integers_only(self):
        # operator.index's rule: a TypeError naming the parameter, not pybind11's RuntimeError.
        for kwargs, name in ((dict(n=1.5), "n"), (dict(n="8"), "n"), (dict(n=8, batch=2.0), "batch"),
                             (dict(n=8, distance=8.0), "distance"), (dict(n=8, threads=1.5), "threads"),
                             (dict(shape=(8, 2.5)), "shape"), (dict(shape=(8,), kind="r2c", real_distance=9.5),
                                                                "real_distance"),
                             (dict(n=8, direction=1), "direction")):
            with self.assertRaises(TypeError, msg=str(kwargs)) as cm:
                gpufft.plan(**kwargs)
            self.assertIn(name, str(cm.exception))
        for kwargs, name in ((dict(n=2**64), "n"), (dict(n=-2**70), "n"), (dict(n=8, batch=2**64), "batch"),
                             (dict(shape=(2**63, 2)), "shape")):
            with self.assertRaises(OverflowError, msg=str(kwargs)) as cm:
                gpufft.plan(**kwargs)
            self.assertIn(name, str(cm.exception))
        # numpy integers and bools are integers.
        self.assertEqual(gpufft.plan(np.int64(8), batch=np.uint8(2)).batch, 2)

    def test_022_unknown_backend(self):
        usable = [b["name"] for b in gpufft.backends() if b["usable"]]
        with self.assertRaises(gpufft.error) as cm:
            gpufft.plan(64, backend="no-such-backend")
        msg = str(cm.exception)
        self.assertIn("no-such-backend", msg)
        for name in usable:
            self.assertIn(name, msg)
        with self.assertRaises(ValueError):
            gpufft.plan(64, backend="simd:no-such-isa")

    def test_022_empty_backend_is_unknown(self):
        # "" is not a spelling of "auto": a misconfigured name must fail.
        with self.assertRaises(gpufft.error) as cm:
            gpufft.plan(64, backend="")
        self.assertIn("unknown backend ''", str(cm.exception))

    def test_023_wrong_dtype(self):
        p = gpufft.plan(8)
        for dtype in (np.float32, np.float64, np.int16, np.complex128, np.clongdouble):
            with self.assertRaises(TypeError, msg=str(dtype)) as cm:
                p.execute(np.zeros(8, dtype))
            self.assertIn("complex64", str(cm.exception))
        with self.assertRaises(TypeError) as cm:
            p.execute(np.zeros(8, np.complex128))
        self.assertIn("astype", str(cm.exception))
        with self.assertRaises(TypeError):
            p.execute([0j] * 8)
        for scalar in (np.complex64(1), 1j):
            with self.assertRaisesRegex(TypeError, "an object of type " + ("numpy.complex64" if
                                        isinstance(scalar, np.generic) else "complex")):
                p.execute(scalar)
        with self.assertRaises(TypeError):
            p.execute(np.zeros(8, np.dtype(np.complex64).newbyteorder()))
        with self.assertRaises(TypeError):
            p.execute(np.zeros(8, np.complex64), out=np.zeros(8, np.complex128))

    def test_024_wrong_length_or_shape(self):
        p = gpufft.plan(8, batch=3)
        for bad in (np.zeros(23, np.complex64), np.zeros(25, np.complex64),
                    np.zeros(0, np.complex64), np.zeros((3, 9), np.complex64),
                    np.zeros((2, 8), np.complex64), np.zeros((8, 3), np.complex64),
                    np.zeros((3, 8, 1), np.complex64), np.complex64(1)):
            with self.assertRaises(ValueError, msg=str(getattr(bad, "shape", bad))):
                p.execute(np.asarray(bad))
        x = np.zeros(24, np.complex64)
        for out in (np.zeros(23, np.complex64), np.zeros((3, 8), np.complex64)):
            with self.assertRaises(ValueError):
                p.execute(x, out=out)
        # 2-D only when transforms are contiguous
        q = gpufft.plan(8, batch=3, distance=10)
        with self.assertRaises(ValueError):
            q.execute(np.zeros((3, 8), np.complex64))
        with self.assertRaises(ValueError):
            q.execute(np.zeros((3, 10), np.complex64))
        q.execute(np.zeros(28, np.complex64))

    def test_025_bad_layout(self):
        p = gpufft.plan(8)
        with self.assertRaises(ValueError):
            p.execute(np.zeros(16, np.complex64)[::2])
        with self.assertRaises(ValueError):
            p.execute(np.zeros((8, 3), np.complex64).T)  # (3, 8) Fortran order
        ro = np.zeros(8, np.complex64)
        ro.flags.writeable = False
        p.execute(ro)  # a read-only input is fine
        with self.assertRaises(ValueError):
            p.execute(np.zeros(8, np.complex64), out=ro)
        # partly overlapping input and output
        buf = np.zeros(12, np.complex64)
        with self.assertRaises(ValueError):
            p.execute(buf[:8], out=buf[2:10])
        # misaligned complex64 view of a byte buffer
        raw = np.zeros(8 * 8 + 1, np.uint8)
        mis = raw[1:].view(np.complex64)
        if not mis.flags.aligned:
            with self.assertRaises(ValueError):
                p.execute(mis)


if __name__ == "__main__":
    gr_unittest.run(qa_plan)
