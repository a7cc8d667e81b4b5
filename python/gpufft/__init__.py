# SPDX-License-Identifier: GPL-3.0-or-later
"""
gr-gpufft: batched complex FFTs for GNU Radio.

    from gnuradio import gpufft
    import numpy as np

    p = gpufft.plan(1024, forward=True, batch=8)     # backend="auto"
    y = p.execute(np.zeros((8, 1024), np.complex64))  # a new array
    p.execute(y, out=y)                               # in place

gpufft.backends() lists the compiled-in backends and whether they can run
here. Errors in arguments raise gpufft.error, a subclass of ValueError; an
array of another dtype raises TypeError (nothing is converted silently).
gpufft.spectrum(fft_size, sample_rate, ...) turns SDR samples into averaged
dB spectra: s.push(samples) returns a (count, fft_size) array.
gpufft.display(n, width, height, ...) turns dB spectra into what a live
display draws: d.push(frames), then d.histogram(), d.average(),
d.max_hold() and d.waterfall() as arrays; gpufft.spectrum_display(fft_size,
width, height, ..., backend=...) does both from raw I/Q (on the device for
opencl): d.push(samples), then the same read-outs.
The blocks: gpufft.fft_vcc and gpufft.fft_vfc (drop-ins for fft.fft_vcc and
fft.fft_vfc), gpufft.range_doppler_c (a 2-D FFT of M vectors: a
range-Doppler map), gpufft.spectrum_c (dB spectra), gpufft.iq_replay_source
(an IQ file in a loop, or gpufft.demo_signal), gpufft.iq_source (that, a
SigMF recording at its rate and centre (gpufft.iq_settings), or a
SoapySDR radio through gr-soapy), and the live displays
gpufft.display_sink_c (I/Q in) and gpufft.display_sink_f (dB spectra in), Qt
widgets with persistence, spectrum lines and waterfall. Importing this module
sends the library's log lines to
GNU Radio's logger.
gpufft.fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2, irfft2,
rfftn, irfftn, hfft, ihfft, hfft2, ihfft2, hfftn and ihfftn are numpy.fft's
and scipy.fft's functions on gpufft plans (single precision, normalized as
numpy's, with scipy's arguments; see gpufft.numpy_fft, which is also a
scipy.fft backend).
"""

from .gpufft_python import (  # noqa: F401  (compiled pybind11 module)
    backends,
    demo_signal,
    display,
    display_sink_c,
    display_sink_f,
    error,
    fft_vcc,
    fft_vfc,
    iq_replay_source,
    plan,
    range_doppler_c,
    route_log_to_gnuradio,
    spectrum,
    spectrum_c,
    spectrum_display,
    usable_backend_names,
    window,
    window_names,
)
from .iq_source import iq_settings, iq_source  # noqa: F401
from . import numpy_fft  # noqa: F401
from .numpy_fft import (  # noqa: F401
    fft,
    fft2,
    fftn,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)

__all__ = [
    "backends",
    "demo_signal",
    "display",
    "display_sink_c",
    "display_sink_f",
    "error",
    "fft",
    "fft2",
    "fftn",
    "fft_vcc",
    "fft_vfc",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "iq_replay_source",
    "iq_settings",
    "iq_source",
    "irfft",
    "irfft2",
    "irfftn",
    "numpy_fft",
    "plan",
    "range_doppler_c",
    "rfft",
    "rfft2",
    "rfftn",
    "route_log_to_gnuradio",
    "spectrum",
    "spectrum_c",
    "spectrum_display",
    "usable_backend_names",
    "window",
    "window_names",
]
