# SPDX-License-Identifier: GPL-3.0-or-later
"""
numpy.fft- and scipy.fft-style transforms on gpufft plans.

    from gnuradio import gpufft
    y = gpufft.fft(x)                       # as numpy.fft.fft(x)
    z = gpufft.fftn(x, axes=(0, 2), norm="ortho", backend="opencl")

fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2, irfft2, rfftn,
irfftn, hfft and ihfft are numpy.fft's functions, and hfft2, ihfft2, hfftn
and ihfftn scipy.fft's. They take scipy.fft's arguments, which include
numpy.fft's: x, n= / s=, axis= / axes=, norm= ("backward", "ortho" or
"forward"), overwrite_x= (a permission, never needed: the input is never
written), workers= (threads a batch is split across, on the backends that
have threads; negative counts back from os.cpu_count(), as scipy's) and
plan= (only None: scipy.fft refuses a precomputed plan too). backend=
(keyword only, as gpufft.plan's) picks the backend. Shapes, scaling and
errors are numpy's. Multi-axis transforms are batched 1-D transforms along
one axis after another (the axis is moved last and made contiguous).

Precision: everything is computed in single precision (complex64) and
returned as complex64 (float32 for irfft/irfftn/hfft/hfftn), whatever the
input: float32, integer and bool input is converted as numpy would convert
it to complex, and float64/complex128 input is rounded to single precision
first, so expect relative errors of about 1e-7 * log2(n), not numpy's 1e-16;
cast the result up yourself if you need a double dtype. The scipy.fft
backend below leaves double-precision input to scipy.

Plans are cached (an LRU of plan_cache_size plans keyed by length, batch,
direction, threads and backend): repeating a call of the same shape plans
nothing. plan_cache_info() and clear_plan_cache() inspect and empty it.

This module is also a scipy.fft backend:
    import scipy.fft
    with scipy.fft.set_backend(gpufft.numpy_fft):
        scipy.fft.fft(x32)   # complex64 / float32 / float16 input runs here
Input of another dtype returns NotImplemented, so scipy computes it itself;
workers=None takes scipy.fft.set_workers' count, as scipy's own functions do.
"""

import functools
import math
import operator
import os

import numpy as np

from .gpufft_python import plan as _plan

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
    "plan_cache_info",
    "clear_plan_cache",
    "plan_cache_size",
]

# Plans hold scratch memory (a batch's worth on some backends): keep a few.
plan_cache_size = 16

_AxisError = getattr(getattr(np, "exceptions", np), "AxisError")


def _new_caches():
    @functools.lru_cache(maxsize=plan_cache_size)
    def cached_plan(n, batch, forward, threads, backend):
        return _plan(n, forward=forward, batch=batch, backend=backend, threads=threads)

    @functools.lru_cache(maxsize=plan_cache_size)
    def cached_real_plan(n, batch, forward, threads, backend):
        return _plan(shape=(n,), batch=batch, kind="r2c" if forward else "c2r", backend=backend, threads=threads)

    return cached_plan, cached_real_plan


_cached_plan, _cached_real_plan = _new_caches()

# A forked child has none of its parent's threads (a plan's workers) or device
# contexts: it must neither run nor destroy (join) the plans it inherited, so
# it keeps them, unused, and plans afresh.
_inherited_caches = []


def _forget_inherited_plans():
    global _cached_plan, _cached_real_plan
    _inherited_caches.append((_cached_plan, _cached_real_plan))
    _cached_plan, _cached_real_plan = _new_caches()


os.register_at_fork(after_in_child=_forget_inherited_plans)


def plan_cache_info():
    """Hits, misses and size of the complex plans' cache (functools' CacheInfo)."""
    return _cached_plan.cache_info()


def clear_plan_cache():
    """Forget every cached plan, complex and real (and free their memory)."""
    _cached_plan.cache_clear()
    _cached_real_plan.cache_clear()


# The norm a transform in the other direction needs to give the same scaling
# (hfft is an irfft of the conjugate, ihfft the conjugate of an rfft).
_SWAPPED_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def _checked_norm(norm):
    if not isinstance(norm, (str, type(None))) or norm not in _SWAPPED_NORM:
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or "forward".')
    return norm


def _scale(norm, n, forward):
    """The factor numpy.fft applies to a transform of n points for norm."""
    if _checked_norm(norm) is None or norm == "backward":
        return 1.0 if forward else 1.0 / n
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if forward else 1.0


def _integer(value, what):
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"gpufft: {what} must be an integer, got {type(value).__name__}") from None


def _length(n, what="n"):
    """A transform's number of points: numpy's ValueError below 1 (empty input included)."""
    n = _integer(n, what)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _threads(workers, plan):
    """
    The plan threads for scipy's workers= (None: 1; negative: counted back
    from the CPU count, -1 being all), refusing a precomputed plan= as
    scipy.fft does.
    """
    if plan is not None:
        raise NotImplementedError("Passing a precomputed plan is not supported (nor by scipy.fft)")
    if workers is None:
        return 1
    workers = _integer(workers, "workers")
    cpus = os.cpu_count() or 1
    if workers == 0:
        raise ValueError("workers must not be zero")
    if workers < -cpus:
        raise ValueError(f"workers value out of range; got {workers}, must not be less than {-cpus}")
    return workers + 1 + cpus if workers < 0 else workers


def _axis(axis, ndim):
    axis = _integer(axis, "axis")
    if not -ndim <= axis < ndim:
        raise _AxisError(axis, ndim)
    return axis % ndim


def _complex64(a):
    a = np.asarray(a)
    if a.dtype.kind not in "biufc":
        raise TypeError(f"gpufft: input must be numeric, got dtype {a.dtype}")
    return a.astype(np.complex64, copy=False)


def _real32(a, function):
    a = np.asarray(a)
    if a.dtype.kind == "c":
        raise TypeError(f"gpufft.{function}: input must be real (got {a.dtype}); use fft for complex input")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"gpufft.{function}: input must be numeric, got dtype {a.dtype}")
    return a.astype(np.float32, copy=False)


def _resize(a, n, axis):
    """Crops or zero-pads a along axis to n elements (numpy.fft's n=)."""
    have = a.shape[axis]
    if have == n:
        return a
    if have > n:
        index = [slice(None)] * a.ndim
        index[axis] = slice(0, n)
        return a[tuple(index)]
    shape = list(a.shape)
    shape[axis] = n
    out = np.zeros(shape, a.dtype)
    index = [slice(None)] * a.ndim
    index[axis] = slice(0, have)
    out[tuple(index)] = a
    return out


def _along_axis(a, axis, forward, threads, backend):
    """Unnormalized c2c transforms of the complex64 array a along axis."""
    n = a.shape[axis]
    rows = np.ascontiguousarray(np.moveaxis(a, axis, -1))
    if rows.size == 0:
        return np.moveaxis(rows, -1, axis).copy()
    batch = rows.size // n
    flat = rows.reshape(batch, n)
    # In place when rows is our own copy, never into the caller's array.
    out = None if np.may_share_memory(rows, a) else flat
    y = _cached_plan(n, batch, forward, threads, backend).execute(flat, out=out)
    return np.moveaxis(y.reshape(rows.shape), -1, axis)


def _scaled(y, factor):
    if factor != 1.0:
        y *= np.float32(factor)
    return y


def _c2c(a, n, axis, norm, forward, threads, backend):
    a = _complex64(a)
    axis = _axis(axis, a.ndim)
    n = _length(a.shape[axis] if n is None else n)
    factor = _scale(norm, n, forward)
    return _scaled(_along_axis(_resize(a, n, axis), axis, forward, threads, backend), factor)


def _real_transform(a, n, axis, forward, threads, backend):
    """
    The real transforms, unnormalized, on r2c and c2r plans: forward, the
    n//2 + 1 outputs of a real-to-complex transform of the float32 array a
    (n points along axis); inverse, the n real outputs of the complex-to-real
    transform of the n//2 + 1 complex64 values along axis (the imaginary parts
    of the DC term, and of the n/2 term for even n, are ignored, as numpy's
    and FFTW's c2r do).
    """
    rows = np.ascontiguousarray(np.moveaxis(a, axis, -1))
    if not forward and np.may_share_memory(rows, a):
        rows = rows.copy()  # the plan may use its input as scratch: never the caller's array
    lead = rows.shape[:-1]
    outputs = n // 2 + 1 if forward else n
    batch = math.prod(lead)
    if batch == 0:
        return np.moveaxis(np.empty(lead + (outputs,), np.complex64 if forward else np.float32), -1, axis)
    y = _cached_real_plan(n, batch, forward, threads, backend).execute(rows.reshape(batch, rows.shape[-1]))
    return np.moveaxis(y.reshape(lead + (outputs,)), -1, axis)


def _rfft(a, n, axis, norm, threads, backend, function):
    a = _real32(a, function)
    axis = _axis(axis, a.ndim)
    n = _length(a.shape[axis] if n is None else n)
    return _scaled(_real_transform(_resize(a, n, axis), n, axis, True, threads, backend), _scale(norm, n, True))


def _irfft(a, n, axis, norm, threads, backend):
    """a: complex64. n defaults to 2 * (m - 1) for m values along axis."""
    axis = _axis(axis, a.ndim)
    n = _length(2 * (a.shape[axis] - 1) if n is None else n)
    factor = _scale(norm, n, False)
    return _scaled(_real_transform(_resize(a, n // 2 + 1, axis), n, axis, False, threads, backend), factor)


def fft(a, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.fft / scipy.fft.fft on a gpufft plan (single precision, complex64 result)."""
    return _c2c(a, n, axis, norm, True, _threads(workers, plan), backend)


def ifft(a, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.ifft / scipy.fft.ifft on a gpufft plan (single precision, complex64 result)."""
    return _c2c(a, n, axis, norm, False, _threads(workers, plan), backend)


def rfft(a, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.rfft: the n//2 + 1 non-negative frequencies of real input."""
    return _rfft(a, n, axis, norm, _threads(workers, plan), backend, "rfft")


def irfft(a, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.irfft: n real outputs (default 2 * (m - 1)) from m non-negative frequencies."""
    return _irfft(_complex64(a), n, axis, norm, _threads(workers, plan), backend)


def hfft(a, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """
    numpy.fft.hfft: the n real values (default 2 * (m - 1)) of the forward
    transform of a Hermitian-symmetric signal given by its first m values.
    """
    return _irfft(np.conjugate(_complex64(a)), n, axis, _SWAPPED_NORM[_checked_norm(norm)],
                  _threads(workers, plan), backend)


def ihfft(a, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.ihfft: the n//2 + 1 first values of the inverse transform of real input."""
    y = _rfft(a, n, axis, _SWAPPED_NORM[_checked_norm(norm)], _threads(workers, plan), backend, "ihfft")
    return np.conjugate(y, out=y)


def _shape_and_axes(a, s, axes, function):
    """numpy's rules: s alone names the last len(s) axes; neither means all."""
    if s is not None:
        s = [_length(v, "every element of s") for v in s]
    if axes is None:
        if s is not None and len(s) > a.ndim:
            raise ValueError(f"gpufft.{function}: s has {len(s)} elements but the input only {a.ndim} axes")
        axes = range(a.ndim) if s is None else range(a.ndim - len(s), a.ndim)
    axes = [_axis(v, a.ndim) for v in axes]
    if s is None:
        s = [a.shape[v] for v in axes]
    elif len(s) != len(axes):
        raise ValueError(f"gpufft.{function}: s and axes have different lengths ({len(s)} and {len(axes)})")
    return s, axes


def _c2c_nd(a, s, axes, norm, forward, threads, backend, function):
    a = _complex64(a)
    s, axes = _shape_and_axes(a, s, axes, function)
    for n, axis in zip(s, axes):
        n = _length(n)
        a = _scaled(_along_axis(_resize(a, n, axis), axis, forward, threads, backend), _scale(norm, n, forward))
    return a


def _rfftn(a, s, axes, norm, threads, backend, function):
    a = _real32(a, function)
    s, axes = _shape_and_axes(a, s, axes, function)
    if not axes:
        raise ValueError(f"gpufft.{function}: at least one axis is needed")
    a = _rfft(a, s[-1], axes[-1], norm, threads, backend, function)
    return _c2c_nd(a, s[:-1], axes[:-1], norm, True, threads, backend, function)


def _irfftn(a, s, axes, norm, threads, backend, function):
    """a: complex64. The last of s defaults to 2 * (m - 1) for m values along the last axis."""
    s_given = s is not None
    s, axes = _shape_and_axes(a, s, axes, function)
    if not axes:
        raise ValueError(f"gpufft.{function}: at least one axis is needed")
    a = _c2c_nd(a, s[:-1], axes[:-1], norm, False, threads, backend, function)
    return _irfft(a, s[-1] if s_given else None, axes[-1], norm, threads, backend)


def fftn(a, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.fftn: 1-D transforms along each of axes in turn."""
    return _c2c_nd(a, s, axes, norm, True, _threads(workers, plan), backend, "fftn")


def ifftn(a, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.ifftn: 1-D inverse transforms along each of axes in turn."""
    return _c2c_nd(a, s, axes, norm, False, _threads(workers, plan), backend, "ifftn")


def fft2(a, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.fft2: fftn over the last two axes by default."""
    return _c2c_nd(a, s, axes, norm, True, _threads(workers, plan), backend, "fft2")


def ifft2(a, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.ifft2: ifftn over the last two axes by default."""
    return _c2c_nd(a, s, axes, norm, False, _threads(workers, plan), backend, "ifft2")


def rfftn(a, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.rfftn: rfft along the last of axes, then fft along the others."""
    return _rfftn(a, s, axes, norm, _threads(workers, plan), backend, "rfftn")


def irfftn(a, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.irfftn: ifft along all but the last of axes, then irfft along it."""
    return _irfftn(_complex64(a), s, axes, norm, _threads(workers, plan), backend, "irfftn")


def rfft2(a, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.rfft2: rfftn over the last two axes by default."""
    return _rfftn(a, s, axes, norm, _threads(workers, plan), backend, "rfft2")


def irfft2(a, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """numpy.fft.irfft2: irfftn over the last two axes by default."""
    return _irfftn(_complex64(a), s, axes, norm, _threads(workers, plan), backend, "irfft2")


def hfftn(a, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """scipy.fft.hfftn: the real forward transform of a Hermitian-symmetric signal given by its half."""
    return _irfftn(np.conjugate(_complex64(a)), s, axes, _SWAPPED_NORM[_checked_norm(norm)],
                   _threads(workers, plan), backend, "hfftn")


def ihfftn(a, s=None, axes=None, norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """scipy.fft.ihfftn: the non-negative half (last axis) of the inverse transform of real input."""
    y = _rfftn(a, s, axes, _SWAPPED_NORM[_checked_norm(norm)], _threads(workers, plan), backend, "ihfftn")
    return np.conjugate(y, out=y)


def hfft2(a, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """scipy.fft.hfft2: hfftn over the last two axes by default."""
    return _irfftn(np.conjugate(_complex64(a)), s, axes, _SWAPPED_NORM[_checked_norm(norm)],
                   _threads(workers, plan), backend, "hfft2")


def ihfft2(a, s=None, axes=(-2, -1), norm=None, overwrite_x=False, workers=None, *, plan=None, backend="auto"):
    """scipy.fft.ihfft2: ihfftn over the last two axes by default."""
    y = _rfftn(a, s, axes, _SWAPPED_NORM[_checked_norm(norm)], _threads(workers, plan), backend, "ihfft2")
    return np.conjugate(y, out=y)


# scipy.fft backend (uarray protocol; see scipy.fft.set_backend).
__ua_domain__ = "numpy.scipy.fft"

_SCIPY_FUNCTIONS = {f.__name__: f for f in (fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2, irfft2,
                                            rfftn, irfftn, hfft, ihfft, hfft2, ihfft2, hfftn, ihfftn)}
# scipy computes float16 in single precision too; double stays with scipy.
_SCIPY_DTYPES = (np.complex64, np.float32, np.float16)
# Where scipy's signatures put workers= when it is given positionally.
_WORKERS_POSITION = 5


def __ua_function__(method, args, kwargs):
    function = _SCIPY_FUNCTIONS.get(method.__name__)
    if function is None:
        return NotImplemented
    kwargs = dict(kwargs)
    if not args:
        if "x" not in kwargs:
            return NotImplemented
        args = (kwargs.pop("x"),)
    if np.asarray(args[0]).dtype not in _SCIPY_DTYPES:
        return NotImplemented
    if len(args) <= _WORKERS_POSITION and kwargs.get("workers") is None:
        import scipy.fft  # loaded: scipy is what calls this

        kwargs["workers"] = scipy.fft.get_workers()
    return function(*args, **kwargs)
