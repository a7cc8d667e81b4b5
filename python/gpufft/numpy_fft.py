"""
numpy.fft-style transforms on gpufft plans.

    from gnuradio import gpufft
    y = gpufft.fft(x)                       # as numpy.fft.fft(x)
    z = gpufft.fftn(x, axes=(0, 2), norm="ortho", backend="opencl")

fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfftn and irfftn take
numpy.fft's arguments (n= / s=, axis= / axes=, norm= "backward", "ortho" or
"forward") plus backend= (as gpufft.plan's), and give numpy's layout and
scaling. Multi-axis transforms are batched 1-D transforms along one axis
after another (the axis is moved last and made contiguous).

Precision: everything is computed in single precision (complex64) and
returned as complex64 (float32 for irfft/irfftn), whatever the input:
float32, integer and bool input is converted as numpy would convert it to
complex, and float64/complex128 input is rounded to single precision first,
so expect relative errors of about 1e-7 * log2(n), not numpy's 1e-16; cast
the result up yourself if you need a double dtype. The scipy.fft backend
below leaves double-precision input to scipy.

Plans are cached (an LRU of plan_cache_size plans keyed by length, batch,
direction and backend): repeating a call of the same shape plans nothing.
plan_cache_info() and clear_plan_cache() inspect and empty it.

This module is also a scipy.fft backend:
    import scipy.fft
    with scipy.fft.set_backend(gpufft.numpy_fft):
        scipy.fft.fft(x32)   # complex64 / float32 input runs here
Input of another dtype and calls with scipy-only arguments (plan=) return
NotImplemented, so scipy computes them itself.
"""

import functools
import math
import operator

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
    "rfftn",
    "irfftn",
    "plan_cache_info",
    "clear_plan_cache",
    "plan_cache_size",
]

# Plans hold scratch memory (a batch's worth on some backends): keep a few.
plan_cache_size = 16

_AxisError = getattr(getattr(np, "exceptions", np), "AxisError")


@functools.lru_cache(maxsize=plan_cache_size)
def _cached_plan(n, batch, forward, backend):
    return _plan(n, forward=forward, batch=batch, backend=backend)


@functools.lru_cache(maxsize=plan_cache_size)
def _cached_real_plan(n, batch, forward, backend):
    return _plan(shape=(n,), batch=batch, kind="r2c" if forward else "c2r", backend=backend)


def plan_cache_info():
    """Hits, misses and size of the complex plans' cache (functools' CacheInfo)."""
    return _cached_plan.cache_info()


def clear_plan_cache():
    """Forget every cached plan, complex and real (and free their memory)."""
    _cached_plan.cache_clear()
    _cached_real_plan.cache_clear()


def _scale(norm, n, forward):
    """The factor numpy.fft applies to a transform of n points for norm."""
    if norm is None or norm == "backward":
        return 1.0 if forward else 1.0 / n
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if norm == "forward":
        return 1.0 / n if forward else 1.0
    raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or "forward".')


def _length(n, what="n"):
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"gpufft: {what} must be an integer, got {type(n).__name__}") from None
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _axis(axis, ndim):
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"gpufft: axis must be an integer, got {type(axis).__name__}") from None
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


def _along_axis(a, axis, forward, backend):
    """Unnormalized c2c transforms of the complex64 array a along axis."""
    n = a.shape[axis]
    rows = np.ascontiguousarray(np.moveaxis(a, axis, -1))
    if rows.size == 0:
        return np.moveaxis(rows, -1, axis).copy()
    batch = rows.size // n
    flat = rows.reshape(batch, n)
    # In place when rows is our own copy, never into the caller's array.
    out = None if np.may_share_memory(rows, a) else flat
    y = _cached_plan(n, batch, forward, backend).execute(flat, out=out)
    return np.moveaxis(y.reshape(rows.shape), -1, axis)


def _scaled(y, factor):
    if factor != 1.0:
        y *= np.float32(factor)
    return y


def _c2c(a, n, axis, norm, forward, backend):
    a = _complex64(a)
    axis = _axis(axis, a.ndim)
    n = a.shape[axis] if n is None else _length(n)
    factor = _scale(norm, n, forward)
    return _scaled(_along_axis(_resize(a, n, axis), axis, forward, backend), factor)


def _real_transform(a, n, axis, forward, backend):
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
    y = _cached_real_plan(n, batch, forward, backend).execute(rows.reshape(batch, rows.shape[-1]))
    return np.moveaxis(y.reshape(lead + (outputs,)), -1, axis)


def fft(a, n=None, axis=-1, norm=None, backend="auto"):
    """numpy.fft.fft on a gpufft plan (single precision, complex64 result)."""
    return _c2c(a, n, axis, norm, True, backend)


def ifft(a, n=None, axis=-1, norm=None, backend="auto"):
    """numpy.fft.ifft on a gpufft plan (single precision, complex64 result)."""
    return _c2c(a, n, axis, norm, False, backend)


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


def _c2c_nd(a, s, axes, norm, forward, backend, function):
    a = _complex64(a)
    s, axes = _shape_and_axes(a, s, axes, function)
    for n, axis in zip(s, axes):
        a = _scaled(_along_axis(_resize(a, n, axis), axis, forward, backend), _scale(norm, n, forward))
    return a


def fftn(a, s=None, axes=None, norm=None, backend="auto"):
    """numpy.fft.fftn: 1-D transforms along each of axes in turn."""
    return _c2c_nd(a, s, axes, norm, True, backend, "fftn")


def ifftn(a, s=None, axes=None, norm=None, backend="auto"):
    """numpy.fft.ifftn: 1-D inverse transforms along each of axes in turn."""
    return _c2c_nd(a, s, axes, norm, False, backend, "ifftn")


def fft2(a, s=None, axes=(-2, -1), norm=None, backend="auto"):
    """numpy.fft.fft2: fftn over the last two axes by default."""
    return _c2c_nd(a, s, axes, norm, True, backend, "fft2")


def ifft2(a, s=None, axes=(-2, -1), norm=None, backend="auto"):
    """numpy.fft.ifft2: ifftn over the last two axes by default."""
    return _c2c_nd(a, s, axes, norm, False, backend, "ifft2")


def rfft(a, n=None, axis=-1, norm=None, backend="auto"):
    """numpy.fft.rfft: the n//2 + 1 non-negative frequencies of real input."""
    a = _real32(a, "rfft")
    axis = _axis(axis, a.ndim)
    n = a.shape[axis] if n is None else _length(n)
    return _scaled(_real_transform(_resize(a, n, axis), n, axis, True, backend), _scale(norm, n, True))


def irfft(a, n=None, axis=-1, norm=None, backend="auto"):
    """numpy.fft.irfft: n real outputs (default 2 * (m - 1)) from m non-negative frequencies."""
    a = _complex64(a)
    axis = _axis(axis, a.ndim)
    n = 2 * (a.shape[axis] - 1) if n is None else _length(n)
    if n < 1:
        raise ValueError(f"Invalid number of data points ({n}) specified")
    half = _resize(a, n // 2 + 1, axis)
    return _scaled(_real_transform(half, n, axis, False, backend), _scale(norm, n, False))


def rfftn(a, s=None, axes=None, norm=None, backend="auto"):
    """numpy.fft.rfftn: rfft along the last of axes, then fft along the others."""
    a = _real32(a, "rfftn")
    s, axes = _shape_and_axes(a, s, axes, "rfftn")
    if not axes:
        raise ValueError("gpufft.rfftn: at least one axis is needed")
    last, n = axes[-1], s[-1]
    a = _scaled(_real_transform(_resize(a, n, last), n, last, True, backend), _scale(norm, n, True))
    return _c2c_nd(a, s[:-1], axes[:-1], norm, True, backend, "rfftn")


def irfftn(a, s=None, axes=None, norm=None, backend="auto"):
    """numpy.fft.irfftn: ifft along all but the last of axes, then irfft along it."""
    a = _complex64(a)
    s_given = s is not None
    s, axes = _shape_and_axes(a, s, axes, "irfftn")
    if not axes:
        raise ValueError("gpufft.irfftn: at least one axis is needed")
    if not s_given:
        s[-1] = 2 * (a.shape[axes[-1]] - 1)
    a = _c2c_nd(a, s[:-1], axes[:-1], norm, False, backend, "irfftn")
    return irfft(a, s[-1], axes[-1], norm, backend)


# scipy.fft backend (uarray protocol; see scipy.fft.set_backend).
__ua_domain__ = "numpy.scipy.fft"

_SCIPY_FUNCTIONS = {
    "fft": fft,
    "ifft": ifft,
    "fft2": fft2,
    "ifft2": ifft2,
    "fftn": fftn,
    "ifftn": ifftn,
    "rfft": rfft,
    "irfft": irfft,
    "rfftn": rfftn,
    "irfftn": irfftn,
}


def __ua_function__(method, args, kwargs):
    function = _SCIPY_FUNCTIONS.get(method.__name__)
    if function is None or not args or kwargs.get("plan") is not None:
        return NotImplemented
    # Double precision stays with scipy (we compute in single precision).
    if np.asarray(args[0]).dtype not in (np.complex64, np.float32):
        return NotImplemented
    # scipy's x, n/s, axis/axes, norm come first; overwrite_x and workers
    # (positional or not) only permit what we do anyway.
    kwargs = {k: v for k, v in kwargs.items() if k not in ("overwrite_x", "workers", "plan")}
    return function(*args[:4], **kwargs)
