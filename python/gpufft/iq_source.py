# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufft.iq_source: complex samples from a file, the demo signal or a SoapySDR radio;
gpufft.iq_settings: the rate, centre and format such a source plays at."""

import json
import math
import os

from gnuradio import gr

from .gpufft_python import error, iq_replay_source

# The demo signal's own rate and centre (it is made at any rate; its
# frequencies scale with it).
DEMO_SAMP_RATE = 2.4e6
DEMO_CENTER_FREQ = 100e6

# SigMF core:datatype -> (iq_replay_source's format, the value it reads as 1.0).
SIGMF_FORMATS = {
    "cf32_le": ("cf32", 1.0),
    "ci16_le": ("cs16", 32768.0),
    "ci8": ("cs8", 128.0),
    "cu8": ("cu8", 127.5),
}


def sigmf_meta_path(path):
    """The metadata file of a SigMF recording named by either of its files
    (or by its base name), or None for another file."""
    for ext in (".sigmf-meta", ".sigmf-data"):
        if path.endswith(ext):
            return path[: -len(ext)] + ".sigmf-meta"
    return path + ".sigmf-meta" if os.path.isfile(path + ".sigmf-meta") else None


def _number(obj, key, where, positive=False):
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or (positive and v <= 0):
        raise error(f"{where}: {key} {v!r} is not a {'number > 0' if positive else 'number'}")
    return float(v)


def _read_sigmf(meta):
    """(format, scale, samp_rate or None, center_freq or None, data path) of a
    SigMF recording, by the rules gpufft-spectrum reads it by (docs/sigmf.md,
    "What we read"), but for what one band shown in a loop cannot show."""
    try:
        with open(meta, encoding="utf-8-sig") as f:
            doc = json.load(f)
    except OSError as e:
        raise error(f"{meta}: cannot open the SigMF metadata: {e.strerror}") from e
    except ValueError as e:
        raise error(f"{meta}: malformed JSON: {e}") from e
    glob = doc.get("global") if isinstance(doc, dict) else None
    if not isinstance(glob, dict):
        raise error(f"{meta}: no \"global\" object (not SigMF metadata)")
    datatype = glob.get("core:datatype")
    if datatype not in SIGMF_FORMATS:
        raise error(f"{meta}: core:datatype {datatype!r} is not one of {', '.join(SIGMF_FORMATS)}")
    fmt, divisor = SIGMF_FORMATS[datatype]
    rate = _number(glob, "core:sample_rate", meta, positive=True)
    channels = _number(glob, "core:num_channels", meta)
    if channels not in (None, 1):
        raise error(f"{meta}: core:num_channels is {channels:g} (interleaved channels are not supported)")
    # A recording whose full scale is not its datatype's (a 12-bit converter
    # in ci16_le): without it every level reads low.
    full_scale = _number(glob, "gpufft:full_scale", meta, positive=True)
    captures = doc.get("captures") or []
    if not isinstance(captures, list):
        raise error(f"{meta}: \"captures\" is not an array")
    freqs = []
    for i, cap in enumerate(captures):
        where = f"{meta}: captures[{i}]"
        if not isinstance(cap, dict):
            raise error(f"{where} is not an object")
        if "core:sample_start" not in cap:
            raise error(f"{where}: no core:sample_start (SigMF requires it)")
        if (_number(cap, "core:header_bytes", where) or 0) > 0:
            raise error(f"{where}: core:header_bytes (a header inside the data file) is not supported")
        freqs.append(_number(cap, "core:frequency", where))
    given = sorted({f for f in freqs if f is not None})
    if len(given) > 1:
        raise error(f"{meta}: its captures are at {len(given)} frequencies (a sweep's hops); "
                    "one axis cannot label them: replay it with gpufft-spectrum")
    if given and None in freqs:
        raise error(f"{meta}: captures[{freqs.index(None)}] has no core:frequency where another capture has one")
    center = given[0] if given else None
    dataset = glob.get("core:dataset")
    data = (os.path.join(os.path.dirname(meta), dataset) if isinstance(dataset, str) and dataset
            else meta[: -len(".sigmf-meta")] + ".sigmf-data")
    scale = divisor / full_scale if full_scale else 1.0
    return fmt, scale, rate, center, data


class iq_settings:
    """What gpufft.iq_source plays, from its arguments and, for a SigMF
    recording, its metadata; samp_rate and center_freq 0 (or None) are not
    given:

    - a SigMF recording (iq_file names its .sigmf-data, .sigmf-meta or base
      name): core:sample_rate and the first capture's core:frequency; a
      samp_rate or center_freq given must agree with them (they stand in for
      what a recording lacks, never for what it says: gpufft-spectrum's
      rule); captures at several frequencies are refused;
      gpufft:full_scale scales the samples to full scale 1 (dBFS levels);
    - another file (raw samples, format by extension) or a radio: both must
      be given;
    - the demo signal: 2.4 MS/s around 100 MHz unless given.

    Attributes: samp_rate, center_freq (for a radio: asked for; it reads
    back its own), format (iq_replay_source's), scale (multiplies the
    samples), data_path (the file replayed). A setting that cannot be made
    leaves the numbers NaN, format and data_path None and `error` the
    message (else None), so that a flowgraph can report it on its command
    line before building blocks (options=True: the message names the
    arguments as a GRC flowgraph's command-line options, --iq-file,
    --device, --samp-rate, --center-freq); gpufft.iq_source raises it as
    gpufft.error.
    """

    def __init__(self, iq_file="", device="", samp_rate=0, center_freq=0, options=False):
        name = (lambda n: "--" + n.replace("_", "-")) if options else (lambda n: n)
        self.error = None
        try:
            self._resolve(iq_file, device, samp_rate or None, center_freq or None, name,
                          "" if options else "gpufft.iq_source: ")
        except error as e:
            self.error = str(e)
        if self.error:
            self.format = self.data_path = None
            self.samp_rate = self.center_freq = math.nan
            self.scale = 1.0

    def _resolve(self, iq_file, device, rate, center, name, who):
        if iq_file and device:
            raise error(f"{who}{name('iq_file')} and {name('device')} are two sources: give one")
        for arg, v in (("samp_rate", rate), ("center_freq", center)):
            if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v)):
                raise error(f"{who}{name(arg)} must be a number (got {v!r})")
        if rate is not None and not rate > 0:
            raise error(f"{who}{name('samp_rate')} must be > 0 (got {rate!r})")
        meta = sigmf_meta_path(iq_file) if iq_file else None
        self.format, self.data_path, self.scale = "auto", iq_file, 1.0
        if meta:
            self.format, self.scale, rec_rate, rec_center, self.data_path = _read_sigmf(meta)
            for arg, mine, theirs, unit in (("samp_rate", rate, rec_rate, "S/s"),
                                            ("center_freq", center, rec_center, "Hz")):
                if mine is not None and theirs is not None and not math.isclose(mine, theirs, rel_tol=1e-9):
                    raise error(f"{who}{name(arg)} {mine:.10g} {unit} contradicts the recording's "
                                f"{theirs:.10g} {unit} ({meta}): leave it out")
            rate, center = rate or rec_rate, center if center is not None else rec_center
            for arg, v, field in (("samp_rate", rate, "core:sample_rate"), ("center_freq", center, "core:frequency")):
                if v is None:
                    raise error(f"{who}{meta} gives no {field}: give {name(arg)}")
        elif iq_file or device:
            lacks = [f"{name(n)} ({unit})" for n, v, unit in (("samp_rate", rate, "S/s"), ("center_freq", center, "Hz"))
                     if v is None]
            if lacks:
                what = "a raw IQ file (no SigMF metadata)" if iq_file else "a radio"
                raise error(f"{who}{what} needs {' and '.join(lacks)}")
        else:
            rate = rate or DEMO_SAMP_RATE
            center = DEMO_CENTER_FREQ if center is None else center
        self.samp_rate, self.center_freq = float(rate), float(center)


class iq_source(gr.hier_block2):
    """Complex float samples from one of three places:

    - device (SoapySDR device arguments, e.g. "driver=rtlsdr"): that radio,
      through gr-soapy's soapy.source, tuned to center_freq at samp_rate.
      The radio's source tags its first sample (and every retune) with
      rx_rate and rx_freq, the values it read back; the display sinks set
      their axis from them. samp_rate() and center_freq() return them too.
    - iq_file: the recording replayed in a loop at its rate
      (gpufft.iq_replay_source): a SigMF recording in its datatype at its
      core:sample_rate, around its core:frequency; raw samples (format by
      extension) at samp_rate around center_freq.
    - neither: the demo signal (2.4 MS/s around 100 MHz unless given).

    samp_rate and center_freq 0 (or None) are not given; what each source
    needs and takes: gpufft.iq_settings. Raises gpufft.error for both a
    file and a device, a rate or centre missing or contradicting a
    recording's, a rate that is not positive, unreadable SigMF metadata, or
    a device SoapySDR cannot open (naming its arguments).
    """

    def __init__(self, iq_file="", device="", samp_rate=0, center_freq=0):
        gr.hier_block2.__init__(self, "gpufft.iq_source", gr.io_signature(0, 0, 0),
                                gr.io_signature(1, 1, gr.sizeof_gr_complex))
        settings = iq_settings(iq_file, device, samp_rate, center_freq)
        if settings.error:
            raise error(settings.error)
        rate, center = settings.samp_rate, settings.center_freq
        if device:
            from gnuradio import soapy  # only a radio needs gr-soapy

            try:
                self.source = soapy.source(device, "fc32", 1, "", "", [""], [""])
                self.source.set_sample_rate(0, rate)
                self.source.set_frequency(0, center)
            except RuntimeError as e:
                raise error(f"gpufft.iq_source: device \"{device}\": {e}") from e
            self._read_back = lambda: (self.source.get_sample_rate(0), self.source.get_frequency(0))
        else:
            self.source = iq_replay_source(settings.data_path, settings.format, rate, throttle=True, repeat=True)
            self._read_back = lambda: (rate, center)
        if settings.scale != 1.0:
            from gnuradio import blocks

            self.scale = blocks.multiply_const_cc(settings.scale)
            self.connect(self.source, self.scale, self)
        else:
            self.connect(self.source, self)

    def samp_rate(self):
        """Samples per second: the radio's as read back, else the one played at."""
        return self._read_back()[0]

    def center_freq(self):
        """Hz: the radio's tuning as read back, else the recording's or the one given."""
        return self._read_back()[1]
