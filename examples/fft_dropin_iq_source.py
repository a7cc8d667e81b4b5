"""
IQ source for the gr-gpufft examples, so that they run without a radio.

With iq_file set, the file is read into memory and replayed in a loop; its
format follows the extension: .cu8 (rtl_sdr: interleaved uint8), .cs8
(int8), .cs16 (int16), anything else complex64 (.cf32, .cfile, .raw). With
iq_file empty, a synthetic signal is looped instead: tones at -0.3, 0.1 and
0.25 times the sample rate at -6, -20 and -34 dBFS over a noise floor.
"""

import numpy as np
from gnuradio import gr


class blk(gr.sync_block):
    """IQ file replay in a loop, or a synthetic test signal when iq_file is empty"""

    def __init__(self, iq_file='', samp_rate=2.4e6):
        gr.sync_block.__init__(self, name='IQ replay', in_sig=None, out_sig=[np.complex64])
        self.iq_file = iq_file
        self.samp_rate = samp_rate
        self.table = self.load(iq_file) if iq_file else self.synthesize()
        self.pos = 0

    @staticmethod
    def load(path):
        ext = path.rsplit('.', 1)[-1].lower()
        if ext == 'cu8':
            raw = (np.fromfile(path, np.uint8).astype(np.float32) - 127.5) / 127.5
        elif ext == 'cs8':
            raw = np.fromfile(path, np.int8).astype(np.float32) / 128
        elif ext == 'cs16':
            raw = np.fromfile(path, np.int16).astype(np.float32) / 32768
        else:
            return np.fromfile(path, np.complex64)
        raw = raw[:len(raw) // 2 * 2]
        return (raw[0::2] + 1j * raw[1::2]).astype(np.complex64)

    @staticmethod
    def synthesize(length=1 << 17):
        # Whole cycles per table, so that the loop has no seam.
        t = np.arange(length)
        x = np.zeros(length, np.complex128)
        for fraction, amplitude in ((-0.3, 0.5), (0.1, 0.1), (0.25, 0.02)):
            cycles = round(fraction * length)
            x += amplitude * np.exp(2j * np.pi * cycles * t / length)
        rng = np.random.default_rng(0)
        x += 0.003 * (rng.standard_normal(length) + 1j * rng.standard_normal(length))
        return x.astype(np.complex64)

    def work(self, input_items, output_items):
        out = output_items[0]
        done = 0
        while done < len(out):
            k = min(len(out) - done, len(self.table) - self.pos)
            out[done:done + k] = self.table[self.pos:self.pos + k]
            done += k
            self.pos = (self.pos + k) % len(self.table)
        return len(out)
