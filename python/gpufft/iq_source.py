# SPDX-License-Identifier: GPL-3.0-or-later
"""gpufft.iq_source: complex samples from a file, the demo signal or a SoapySDR radio."""

from gnuradio import gr

from .gpufft_python import error, iq_replay_source


class iq_source(gr.hier_block2):
    """Complex float samples from one of three places:

    - device (SoapySDR device arguments, e.g. "driver=rtlsdr"): that radio,
      through gr-soapy's soapy.source, tuned to center_freq at samp_rate.
      The radio's source tags its first sample (and every retune) with
      rx_rate and rx_freq, the values it read back; the display sinks set
      their axis from them. samp_rate() and center_freq() return them too.
    - iq_file: the recording replayed in a loop at samp_rate
      (gpufft.iq_replay_source; the format by extension).
    - neither: the demo signal at samp_rate.

    Raises gpufft.error for both a file and a device, a rate that is not
    positive, or a device SoapySDR cannot open (naming its arguments).
    """

    def __init__(self, iq_file="", device="", samp_rate=2.4e6, center_freq=100e6):
        gr.hier_block2.__init__(self, "gpufft.iq_source", gr.io_signature(0, 0, 0),
                                gr.io_signature(1, 1, gr.sizeof_gr_complex))
        if iq_file and device:
            raise error("gpufft.iq_source: iq_file and device are two sources: give one")
        if not samp_rate > 0:
            raise error(f"gpufft.iq_source: samp_rate must be > 0 (got {samp_rate!r})")
        if device:
            from gnuradio import soapy  # only a radio needs gr-soapy

            try:
                self.source = soapy.source(device, "fc32", 1, "", "", [""], [""])
                self.source.set_sample_rate(0, samp_rate)
                self.source.set_frequency(0, center_freq)
            except RuntimeError as e:
                raise error(f"gpufft.iq_source: device \"{device}\": {e}") from e
            self._read_back = lambda: (self.source.get_sample_rate(0), self.source.get_frequency(0))
        else:
            self.source = iq_replay_source(iq_file, "auto", samp_rate, throttle=True, repeat=True)
            self._read_back = lambda: (samp_rate, center_freq)
        self.connect(self.source, self)

    def samp_rate(self):
        """Samples per second: the radio's as read back, else the one given."""
        return self._read_back()[0]

    def center_freq(self):
        """Hz: the radio's tuning as read back, else the one given."""
        return self._read_back()[1]
