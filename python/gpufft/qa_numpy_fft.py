#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft's numpy.fft-style functions against numpy.fft in double.

Every run draws fresh random data; the seed is printed and can be replayed
with GPUFFT_QA_SEED=<seed>.
"""

import inspect
import math
import os

import numpy as np
from gnuradio import gr_unittest
from gnuradio import gpufft

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_numpy_fft: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")

NORMS = [None, "backward", "ortho", "forward"]
C2C = {  # ours: numpy's, both with the same arguments
    "fft": np.fft.fft,
    "ifft": np.fft.ifft,
}
C2C_ND = {
    "fft2": np.fft.fft2,
    "ifft2": np.fft.ifft2,
    "fftn": np.fft.fftn,
    "ifftn": np.fft.ifftn,
}

SWAPPED_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}
# numpy's functions, and scipy's Hermitian n-dimensional ones by their
# definition on numpy's (numpy has no hfftn): all in double.
NEW_1D = {
    "hfft": np.fft.hfft,
    "ihfft": np.fft.ihfft,
}
NEW_ND = {
    "rfft2": np.fft.rfft2,
    "irfft2": np.fft.irfft2,
    "hfft2": lambda x, s=None, axes=(-2, -1), norm=None: np.fft.irfftn(np.conj(x), s, axes, SWAPPED_NORM[norm]),
    "ihfft2": lambda x, s=None, axes=(-2, -1), norm=None: np.conj(np.fft.rfftn(x, s, axes, SWAPPED_NORM[norm])),
    "hfftn": lambda x, s=None, axes=None, norm=None: np.fft.irfftn(np.conj(x), s, axes, SWAPPED_NORM[norm]),
    "ihfftn": lambda x, s=None, axes=None, norm=None: np.conj(np.fft.rfftn(x, s, axes, SWAPPED_NORM[norm])),
}
ALL_FUNCTIONS = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
                 "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn"]
REAL_INPUT = ("rfft", "ihfft")  # name prefixes of the functions of real input


def relative_error(got, want):
    want = np.asarray(want, np.complex128)
    scale = np.linalg.norm(want.ravel())
    return np.linalg.norm((np.asarray(got, np.complex128) - want).ravel()) / (scale if scale else 1.0)


def tolerance(points):
    """Relative L2 bound for float32 transforms with `points` points in all."""
    return 2e-6 * max(1.0, math.log2(points))


class qa_numpy_fft(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(SEED)

    def complex_data(self, shape):
        return (self.rng.standard_normal(shape) + 1j * self.rng.standard_normal(shape)).astype(np.complex64)

    def real_data(self, shape):
        return self.rng.standard_normal(shape).astype(np.float32)

    def check(self, got, want, what, points=None):
        self.assertEqual(got.shape, np.shape(want), what)
        err = relative_error(got, want)
        bound = tolerance(points or max(2, np.size(want)))
        self.assertLess(err, bound, f"{what}: relative L2 error {err:.3g} > {bound:.3g}")

    def test_1d_every_norm_size_and_axis(self):
        for name, ref in C2C.items():
            ours = getattr(gpufft, name)
            for norm in NORMS:
                for shape, axis in [((1,), -1), ((7,), 0), ((64,), -1), ((3, 97), -1),
                                    ((97, 3), 0), ((4, 5, 12), 1), ((2, 6, 1000), -1)]:
                    x = self.complex_data(shape)
                    kept = x.copy()
                    got = ours(x, axis=axis, norm=norm)
                    self.assertEqual(got.dtype, np.complex64)
                    self.check(got, ref(x.astype(np.complex128), axis=axis, norm=norm),
                               f"{name} {shape} axis {axis} norm {norm}", shape[axis])
                    np.testing.assert_array_equal(x, kept, f"{name} changed its input")

    def test_strided_and_fortran_input(self):
        x = self.complex_data((6, 40))
        for view in (x[:, ::2], x[::2, 1::3], np.asfortranarray(x), x.T):
            for axis in (0, 1):
                self.check(gpufft.fft(view, axis=axis), np.fft.fft(view.astype(np.complex128), axis=axis),
                           f"fft of a {view.strides} view, axis {axis}", view.shape[axis])

    def test_1d_n_crops_and_pads(self):
        x = self.complex_data((3, 50))
        for name, ref in C2C.items():
            for n in [1, 17, 50, 51, 64, 131]:
                for norm in NORMS:
                    self.check(getattr(gpufft, name)(x, n=n, norm=norm),
                               ref(x.astype(np.complex128), n=n, norm=norm), f"{name} n={n} {norm}", n)
            self.check(getattr(gpufft, name)(x, n=5, axis=0), ref(x.astype(np.complex128), n=5, axis=0),
                       f"{name} n=5 axis 0", 5)

    def test_nd_every_norm_axes_and_s(self):
        any_rank = [  # shape, s, axes
            ((3, 17, 5), None, None),
            ((3, 17, 5), None, (0, 2)),
            ((3, 17, 5), (4, 9), None),
            ((2, 3, 4, 5), None, (-1, -3, 0)),
            ((8, 9), (8,), None),
        ]
        two_axes = [
            ((6, 10), None, None),
            ((15, 7), None, None),
            ((3, 17, 5), None, (2, 0)),
            ((3, 17, 5), (2, 20), (1, 0)),
            ((4, 11, 13), (16, 6), None),
        ]
        for name, ref in C2C_ND.items():
            for norm in NORMS:
                for shape, s, axes in two_axes + ([] if name.endswith("2") else any_rank):
                    x = self.complex_data(shape)
                    kwargs = {"norm": norm}
                    if s is not None:
                        kwargs["s"] = s
                    if axes is not None:
                        kwargs["axes"] = axes
                    self.check(getattr(gpufft, name)(x, **kwargs), ref(x.astype(np.complex128), **kwargs),
                               f"{name} {shape} {kwargs}")

    def test_real_every_norm_odd_and_even(self):
        for norm in NORMS:
            for shape, axis in [((1,), -1), ((2,), -1), ((9,), -1), ((128,), -1), ((4, 101), -1),
                                ((101, 4), 0), ((3, 10, 6), 1)]:
                x = self.real_data(shape)
                got = gpufft.rfft(x, axis=axis, norm=norm)
                self.assertEqual(got.dtype, np.complex64)
                self.check(got, np.fft.rfft(x.astype(np.float64), axis=axis, norm=norm),
                           f"rfft {shape} axis {axis} {norm}", shape[axis])
            for m, n in [(1, 1), (2, None), (5, None), (5, 9), (65, None), (65, 129), (9, 4), (3, 20)]:
                spectrum = self.complex_data((3, m))
                got = gpufft.irfft(spectrum, n=n, norm=norm)
                self.assertEqual(got.dtype, np.float32)
                want = np.fft.irfft(spectrum.astype(np.complex128), n=n, norm=norm)
                self.check(got, want, f"irfft m={m} n={n} {norm}", want.shape[-1])
            x = self.real_data((7, 10))
            self.check(gpufft.rfft(x, n=13, norm=norm), np.fft.rfft(x, n=13, norm=norm), "rfft n=13 pad")
            self.check(gpufft.rfft(x, n=4, norm=norm), np.fft.rfft(x, n=4, norm=norm), "rfft n=4 crop")

    def test_real_nd(self):
        for norm in NORMS:
            for shape, s, axes in [((6, 10), None, None), ((5, 7, 9), None, None), ((5, 7, 9), None, (0, 2)),
                                   ((5, 7, 9), (4, 11), None), ((4, 6), (3, 5), (1, 0))]:
                x = self.real_data(shape)
                self.check(gpufft.rfftn(x, s=s, axes=axes, norm=norm),
                           np.fft.rfftn(x.astype(np.float64), s=s, axes=axes, norm=norm),
                           f"rfftn {shape} s={s} axes={axes} {norm}")
                spectrum = self.complex_data(np.fft.rfftn(x, s=s, axes=axes).shape)
                want = np.fft.irfftn(spectrum.astype(np.complex128), s=s, axes=axes, norm=norm)
                self.check(gpufft.irfftn(spectrum, s=s, axes=axes, norm=norm), want,
                           f"irfftn {spectrum.shape} s={s} axes={axes} {norm}")

    def test_round_trips(self):
        x = self.complex_data((5, 33))
        np.testing.assert_allclose(gpufft.ifftn(gpufft.fftn(x)), x, atol=1e-5)
        r = self.real_data((4, 31))
        np.testing.assert_allclose(gpufft.irfft(gpufft.rfft(r), n=31), r, atol=1e-5)

    def test_input_dtypes(self):
        """float32/int/bool are converted as numpy converts them; double is rounded to single."""
        for dtype in [np.float32, np.float64, np.complex128, np.int16, np.bool_]:
            x = (self.rng.standard_normal((3, 40)) * 10).astype(dtype)
            got = gpufft.fft(x)
            self.assertEqual(got.dtype, np.complex64, str(dtype))
            self.check(got, np.fft.fft(x), f"fft of {np.dtype(dtype).name}", 40)
        self.check(gpufft.fft([1, 2, 3, 4]), np.fft.fft([1, 2, 3, 4]), "fft of a list")
        self.check(gpufft.rfft(np.arange(12)), np.fft.rfft(np.arange(12)), "rfft of int64")

    def test_plan_cache(self):
        gpufft.numpy_fft.clear_plan_cache()
        x = self.complex_data((4, 48))
        gpufft.fft(x)
        gpufft.fft(self.complex_data((4, 48)))
        info = gpufft.numpy_fft.plan_cache_info()
        self.assertEqual((info.misses, info.hits), (1, 1))
        gpufft.ifft(x)
        gpufft.fft(x, axis=0)  # a plan of another length and batch
        self.assertEqual(gpufft.numpy_fft.plan_cache_info().misses, 3)
        self.assertEqual(gpufft.numpy_fft.plan_cache_info().maxsize, gpufft.numpy_fft.plan_cache_size)

    def test_backend_argument(self):
        x = self.complex_data((2, 24, 5))
        self.check(gpufft.fftn(x, backend="simd:scalar"), np.fft.fftn(x), "fftn on simd:scalar")
        for backend in [b["name"] for b in gpufft.backends() if b["usable"]]:
            r = self.real_data((6, 15))
            self.check(gpufft.fft2(x, backend=backend), np.fft.fft2(x), f"fft2 on {backend}")
            self.check(gpufft.irfftn(gpufft.rfftn(r, backend=backend), s=r.shape, backend=backend), r,
                       f"irfftn(rfftn) on {backend}")
        with self.assertRaisesRegex(ValueError, "nosuch"):
            gpufft.fft(x, backend="nosuch")

    def test_bad_arguments(self):
        x = self.complex_data((4, 8))
        for function in [gpufft.fft, gpufft.ifft, gpufft.rfft, gpufft.irfft]:
            arg = x.real if function is gpufft.rfft else x
            with self.assertRaisesRegex(ValueError, r"Invalid number of .*\(0\)"):
                function(arg, n=0)
            with self.assertRaisesRegex(ValueError, r"\(-3\)"):
                function(arg, n=-3)
            with self.assertRaisesRegex(TypeError, "n must be an integer"):
                function(arg, n=4.5)
            with self.assertRaises(np.AxisError):
                function(arg, axis=2)
            with self.assertRaisesRegex(ValueError, "Invalid norm value 'unitary'"):
                function(arg, norm="unitary")
        with self.assertRaisesRegex(TypeError, "must be real"):
            gpufft.rfft(x)
        with self.assertRaisesRegex(TypeError, "must be real"):
            gpufft.rfftn(x)
        with self.assertRaisesRegex(TypeError, "must be numeric"):
            gpufft.fft(np.array(["a", "b"]))
        with self.assertRaisesRegex(ValueError, "s and axes have different lengths"):
            gpufft.fftn(x, s=(4, 8), axes=(0,))
        with self.assertRaisesRegex(ValueError, "s has 3 elements"):
            gpufft.fftn(x, s=(2, 4, 8))
        with self.assertRaises(np.AxisError):
            gpufft.fft2(x, axes=(0, 5))
        with self.assertRaisesRegex(ValueError, r"Invalid number of FFT data points \(0\)"):
            gpufft.fft2(x, s=(0, 4))
        with self.assertRaisesRegex(ValueError, r"Invalid number of FFT data points \(0\)"):
            gpufft.irfft(np.ones(1, np.complex64))

    def structured_inputs(self, shape, real):
        """Random, an impulse, a constant and a full-scale tone (along the last axis)."""
        impulse = np.zeros(shape)
        impulse[(0,) * len(shape)] = 1
        j = np.arange(shape[-1])
        tone = np.cos(2 * np.pi * 3 * j / shape[-1]) if real else np.exp(2j * np.pi * 3 * j / shape[-1])
        inputs = {
            "random": self.real_data(shape) if real else self.complex_data(shape),
            "impulse": impulse,
            "DC": np.ones(shape),
            "tone": np.broadcast_to(tone, shape),
        }
        dtype = np.float32 if real else np.complex64
        return {k: v.astype(dtype) for k, v in inputs.items()}

    def test_hermitian_and_real_2d_against_numpy(self):
        for name, ref in NEW_1D.items():
            for norm in NORMS:
                for shape, n, axis in [((3, 17), None, -1), ((16,), None, -1), ((16,), 30, -1), ((9, 4), None, 0),
                                       ((2, 5), 7, 1), ((8,), 5, 0)]:
                    for kind, x in self.structured_inputs(shape, name.startswith(REAL_INPUT)).items():
                        got = getattr(gpufft, name)(x, n=n, axis=axis, norm=norm)
                        want = ref(x.astype(np.float64 if x.dtype.kind == "f" else np.complex128),
                                   n=n, axis=axis, norm=norm)
                        self.assertEqual(got.dtype, np.complex64 if want.dtype.kind == "c" else np.float32)
                        self.check(got, want, f"{name} {kind} {shape} n={n} axis={axis} {norm}", want.shape[axis])
        for name, ref in NEW_ND.items():
            for norm in NORMS:
                cases = [((6, 10), None, None), ((5, 7, 9), None, (0, 2)), ((4, 6, 8), (4, 11), None),
                         ((4, 6), (3, 5), (1, 0))]
                if name.endswith("n"):
                    cases += [((5, 7, 9), None, None), ((3, 4, 5), (6,), (1,))]
                for shape, s, axes in cases:
                    kwargs = {"norm": norm}
                    if s is not None:
                        kwargs["s"] = s
                    if axes is not None:
                        kwargs["axes"] = axes
                    for kind, x in self.structured_inputs(shape, name.startswith(REAL_INPUT)).items():
                        got = getattr(gpufft, name)(x, **kwargs)
                        want = ref(x.astype(np.float64 if x.dtype.kind == "f" else np.complex128), **kwargs)
                        self.assertEqual(got.dtype, np.complex64 if want.dtype.kind == "c" else np.float32)
                        self.check(got, want, f"{name} {kind} {shape} {kwargs}")

    def test_hermitian_round_trips(self):
        r = self.real_data((4, 30))
        for norm in NORMS:
            np.testing.assert_allclose(gpufft.hfft(gpufft.ihfft(r, norm=norm), n=30, norm=norm), r, atol=2e-5)
            np.testing.assert_allclose(gpufft.hfftn(gpufft.ihfftn(r, norm=norm), s=r.shape, norm=norm), r,
                                       atol=2e-5)
            np.testing.assert_allclose(gpufft.irfft2(gpufft.rfft2(r, norm=norm), s=r.shape, norm=norm), r,
                                       atol=2e-5)

    def test_zero_length_is_numpys_error(self):
        empty = {"[]": np.zeros(0), "(0, 4) along axis 0": np.zeros((0, 4))}
        for name in ALL_FUNCTIONS:
            function = getattr(gpufft, name)
            for what, x in empty.items():
                for norm in NORMS:
                    with self.assertRaisesRegex(ValueError, r"Invalid number of FFT data points \((0|-2)\) specified",
                                                msg=f"{name} of {what}, norm {norm}"):
                        if name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
                            function(x, axis=0, norm=norm)
                        else:
                            function(x, axes=(0,) if x.ndim == 1 else (1, 0), norm=norm)
        with self.assertRaisesRegex(ValueError, r"\(0\)"):
            gpufft.hfft([1])  # 2 * (1 - 1) output points
        # An empty batch with a valid length, or a length given by n=, is no error (as numpy's).
        self.assertEqual(gpufft.fft(np.zeros((0, 4)), axis=1).shape, (0, 4))
        self.assertEqual(gpufft.rfft(np.zeros((0, 4))).shape, (0, 3))
        np.testing.assert_array_equal(gpufft.fft(np.zeros((3, 0)), n=4), np.zeros((3, 4)))
        np.testing.assert_array_equal(gpufft.fft2(np.zeros((0, 4)), s=(2, 4)), np.zeros((2, 4)))

    def test_scipy_signatures(self):
        """scipy.fft's parameters, in scipy's order (after numpy's), and backend= keyword only."""
        for name in ALL_FUNCTIONS:
            params = list(inspect.signature(getattr(gpufft, name)).parameters.values())
            self.assertEqual([(p.name, p.kind) for p in params[1:]][-3:],
                             [("workers", inspect.Parameter.POSITIONAL_OR_KEYWORD),
                              ("plan", inspect.Parameter.KEYWORD_ONLY),
                              ("backend", inspect.Parameter.KEYWORD_ONLY)], name)
            self.assertEqual([p.name for p in params[2:5]],
                             ["axes" if name[-1] in "2n" else "axis", "norm", "overwrite_x"], name)
        try:
            import scipy.fft
        except ImportError:
            return
        for name in ALL_FUNCTIONS:
            ours = list(inspect.signature(getattr(gpufft, name)).parameters.values())[1:-1]
            theirs = list(inspect.signature(getattr(scipy.fft, name)).parameters.values())[1:]
            self.assertEqual([(p.name, p.kind, p.default) for p in ours],
                             [(p.name, p.kind, p.default) for p in theirs], name)

    def test_overwrite_x_workers_and_plan(self):
        x = self.complex_data((8, 30))
        r = self.real_data((8, 30))
        cpus = os.cpu_count()
        for name in ALL_FUNCTIONS:
            function = getattr(gpufft, name)
            a = r if name.startswith(REAL_INPUT) else x
            kept = a.copy()
            one = function(a, None, None if name[-1] in "2n" else -1, "ortho", True, 1)  # scipy's positions
            np.testing.assert_array_equal(a, kept, f"{name} wrote its input with overwrite_x=True")
            for workers in (2, -1, -cpus):
                np.testing.assert_allclose(function(a, workers=workers, norm="ortho"), one, rtol=0, atol=1e-5,
                                           err_msg=f"{name} workers={workers}")
            with self.assertRaisesRegex(ValueError, "workers must not be zero"):
                function(a, workers=0)
            with self.assertRaisesRegex(ValueError, "workers value out of range"):
                function(a, workers=-cpus - 1)
            with self.assertRaisesRegex(TypeError, "workers must be an integer"):
                function(a, workers=1.5)
            with self.assertRaises(NotImplementedError):
                function(a, plan=object())
            function(a, plan=None, overwrite_x=False)

    def test_plans_after_fork(self):
        """A forked child plans afresh: its parent's plans have no worker threads there."""
        x = self.complex_data((16, 64))
        want = gpufft.fft(x, workers=2)
        pid = os.fork()
        if pid == 0:
            ok = np.array_equal(gpufft.fft(x, workers=2), want) and gpufft.numpy_fft.plan_cache_info().misses == 1
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        np.testing.assert_array_equal(gpufft.fft(x, workers=2), want)

    def test_scipy_backend(self):
        try:
            import scipy.fft
        except ImportError:
            self.skipTest("scipy is not installed")
        x32 = self.complex_data((3, 30))
        r32 = self.real_data((6, 20))
        x64 = x32.astype(np.complex128)
        gpufft.numpy_fft.clear_plan_cache()
        with scipy.fft.set_backend(gpufft.numpy_fft):
            for name in ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "irfft", "irfftn"]:
                self.check(getattr(scipy.fft, name)(x32, norm="ortho", workers=2),
                           getattr(np.fft, name)(x64, norm="ortho"), f"scipy.fft.{name}")
            self.check(scipy.fft.rfft(r32, 25, 1, "forward", False), np.fft.rfft(r32, 25, 1, "forward"),
                       "scipy.fft.rfft, positional arguments")
            self.check(scipy.fft.rfftn(r32), np.fft.rfftn(r32), "scipy.fft.rfftn")
            ours = gpufft.numpy_fft.plan_cache_info().misses
            self.assertGreater(ours, 0)
            # Double precision and functions we lack stay with scipy.
            got = scipy.fft.fft(x64)
            self.assertEqual(got.dtype, np.complex128)
            np.testing.assert_allclose(got, np.fft.fft(x64), rtol=1e-12, atol=1e-12)
            scipy.fft.dct(r32)
            self.assertEqual(gpufft.numpy_fft.plan_cache_info().misses, ours)

    def test_scipy_backend_every_function(self):
        """Every transform of scipy.fft's runs here for single-precision input, with scipy's workers."""
        try:
            import scipy.fft
        except ImportError:
            self.skipTest("scipy is not installed")
        for name in ALL_FUNCTIONS:
            real_input = name.startswith(("rfft", "ihfft"))
            x = self.real_data((6, 10)) if real_input else self.complex_data((6, 10))
            want = getattr(scipy.fft, name)(x.astype(np.float64 if real_input else np.complex128), norm="ortho")
            gpufft.numpy_fft.clear_plan_cache()
            with scipy.fft.set_backend(gpufft.numpy_fft, only=True):
                got = getattr(scipy.fft, name)(x=x, norm="ortho")
                self.assertEqual(got.dtype, np.complex64 if want.dtype.kind == "c" else np.float32, name)
                self.check(got, want, f"scipy.fft.{name} under set_backend")
                planned = self.plans_made()
                with scipy.fft.set_workers(3):  # other plans: threads are part of a plan
                    self.check(getattr(scipy.fft, name)(x, norm="ortho"), want, f"scipy.fft.{name}, 3 workers")
                self.assertEqual(self.plans_made(), 2 * planned, f"{name} planned again for 3 workers")
                with self.assertRaises(NotImplementedError):
                    getattr(scipy.fft, name)(x, plan=object())

    @staticmethod
    def plans_made():
        return gpufft.numpy_fft.plan_cache_info().misses + gpufft.numpy_fft._cached_real_plan.cache_info().misses


if __name__ == "__main__":
    gr_unittest.run(qa_numpy_fft)
