#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.fft_vfc against gnuradio.fft.fft_vfc on the same random input
(sizes, both directions, shift, windows, every usable backend), and for the
window forms both fft blocks take: taps, or a gnuradio.fft.window.WIN_* value.

Fresh random data every run; replay with GPUFFT_QA_SEED=<seed>.
"""

import os
import shutil
import tempfile

import grc_qa
import numpy as np
from gnuradio import blocks, fft, gr, gr_unittest
from gnuradio import gpufft
from gnuradio.fft import window as grwin

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_fft_vfc: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")

SIZES = (1, 2, 7, 16, 100, 256, 1024, 4096)


def grc_flowgraph(chains, n, fft_parameters=None):
    """Per chain (name, input type, window expression, data): vector source ->
    gpufft_fft_vcc block (with fft_parameters over its own) -> file sink <name>.c64."""
    blocks_, connections = [], []
    for name, kind, window, data in chains:
        blocks_ += [
            (f"src_{name}", "blocks_vector_source_x",
             {"type": kind, "vector": repr(data.tolist()), "vlen": str(n), "repeat": "False", "tags": "[]"}),
            (f"fft_{name}", "gpufft_fft_vcc",
             {"type": kind, "fft_size": str(n), "forward": "True", "window": window, "shift": "False",
              "nthreads": "1", "backend": "auto", "batch": "4", **(fft_parameters or {})}),
            (f"sink_{name}", "blocks_file_sink",
             {"type": "complex", "file": repr(f"{name}.c64"), "vlen": str(n), "unbuffered": "False",
              "append": "False"}),
        ]
        connections += [[f"src_{name}", "0", f"fft_{name}", "0"], [f"fft_{name}", "0", f"sink_{name}", "0"]]
    return grc_qa.flowgraph(blocks_, connections)


def usable_backends():
    return [b["name"] for b in gpufft.backends() if b["usable"]]


def run_block(block, x, n):
    """x through block; complex input if x is complex, else float."""
    tb = gr.top_block()
    if np.iscomplexobj(x):
        src = blocks.vector_source_c(x.tolist(), False, n)
    else:
        src = blocks.vector_source_f(x.tolist(), False, n)
    snk = blocks.vector_sink_c(n)
    tb.connect(src, block, snk)
    tb.run()
    return np.array(snk.data(), dtype=np.complex128).reshape(-1, n)


def relative_l2(got, want):
    return float(np.linalg.norm(got - want) / max(1e-30, np.linalg.norm(want)))


class qa_fft_vfc(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(SEED)

    def real(self, count):
        return self.rng.standard_normal(count).astype(np.float32)

    def complex(self, count):
        return (self.rng.standard_normal(count) + 1j * self.rng.standard_normal(count)).astype(np.complex64)

    def assert_close(self, got, want, n, what):
        self.assertEqual(got.shape, want.shape, what)
        err = relative_l2(got, want)
        bound = 2e-6 * (1 + np.log2(max(n, 2)))
        self.assertLess(err, bound, f"{what}: relative L2 error {err:.3g} > {bound:.3g}")

    def test_same_as_gr_fft_vfc(self):
        for backend in usable_backends():
            for n in SIZES:
                x = self.real(n * int(self.rng.integers(1, 40)))
                for forward in (True, False):
                    for shift in (False, True):
                        # GNU Radio's windows are NaN for n = 1
                        taps = list(grwin.blackmanharris(n)) if n > 1 else [0.5]
                        for win in ([], taps):
                            what = f"{backend} n={n} forward={forward} shift={shift} window={bool(win)}"
                            want = run_block(fft.fft_vfc(n, forward, win, shift, 1), x, n)
                            got = run_block(
                                gpufft.fft_vfc(n, forward, win, shift, 1, backend=backend, batch=8), x, n)
                            if not forward and shift and n % 2 == 1 and n > 1:
                                # gr-fft's fft_vfc loses the last sample here: numpy is the reference.
                                want = self.reference(x, n, win, forward, shift)
                                self.assertGreater(relative_l2(run_block(fft.fft_vfc(n, forward, win, shift, 1),
                                                                         x, n), want), 1e-2)
                            self.assert_close(got, want, n, what)

    @staticmethod
    def reference(x, n, win, forward, shift):
        """What fft_vfc computes, in double: window, ifftshift (inverse), DFT, fftshift (forward)."""
        v = x.reshape(-1, n).astype(np.float64) * (np.asarray(win, np.float64) if len(win) else 1.0)
        if not forward and shift:
            v = np.fft.ifftshift(v, axes=1)
        y = np.fft.fft(v, axis=1) if forward else np.fft.ifft(v, axis=1) * n
        return np.fft.fftshift(y, axes=1) if forward and shift else y

    def test_against_numpy(self):
        n = 300
        x = self.real(n * 50)
        want = np.fft.fftshift(np.fft.fft(x.reshape(-1, n).astype(np.float64) * grwin.hann(n), axis=1), axes=1)
        self.assert_close(run_block(gpufft.fft_vfc(n, True, grwin.hann(n), True), x, n), want, n, "numpy")

    def test_window_types_both_blocks(self):
        """A WIN_* value is gr::fft::window::build(type, fft_size)."""
        n = 256
        for kind in (grwin.WIN_HANN, grwin.WIN_BLACKMAN_hARRIS, grwin.WIN_HAMMING, grwin.WIN_FLATTOP,
                     grwin.WIN_RECTANGULAR):
            taps = grwin.build(kind, n)
            xr, xc = self.real(n * 12), self.complex(n * 12)
            self.assert_close(run_block(gpufft.fft_vfc(n, True, kind, True), xr, n),
                              run_block(fft.fft_vfc(n, True, taps, True, 1), xr, n), n, f"fft_vfc {kind}")
            self.assert_close(run_block(gpufft.fft_vcc(n, False, kind, True), xc, n),
                              run_block(fft.fft_vcc(n, False, taps, True, 1), xc, n), n, f"fft_vcc {kind}")

    def test_grc_window_forms(self):
        """The GRC block takes gr-fft's taps expressions and window.WIN_* values, for both input types."""
        n = 64
        x_real, x_complex = self.real(n * 6), self.complex(n * 6)
        chains = [("taps_float", "float", "window.hann(64)", x_real),
                  ("type_float", "float", "window.WIN_HANN", x_real),
                  ("taps_complex", "complex", "window.blackman(64)", x_complex),
                  ("type_complex", "complex", "window.WIN_BLACKMAN", x_complex)]
        tmp = tempfile.mkdtemp(prefix="gpufft_qa_fft_vfc_")
        try:
            grc_qa.run_flowgraph(self, grc_flowgraph(chains, n), tmp)
            for name, _, window, data in chains:
                got = np.fromfile(os.path.join(tmp, f"{name}.c64"), np.complex64).reshape(-1, n)
                taps = np.asarray(eval(window, {"window": grwin}) if "(" in window
                                  else grwin.build(eval(window, {"window": grwin}), n), np.float64)
                want = np.fft.fft(data.reshape(-1, n).astype(np.complex128) * taps, axis=1)
                self.assert_close(got, want, n, f"GRC {name}: {window}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_grc_tune(self):
        """The GRC block's Tune reaches the plans: tuned, they time their candidates and keep the
        choice in the wisdom file (simd: every machine has it); untuned, the file gets nothing."""
        n = 96
        data = {"complex": self.complex(n * 6), "float": self.real(n * 6)}
        chains = [(f"tune_{kind}", kind, "window.WIN_HANN", x) for kind, x in data.items()]

        def outputs(folder, tune):
            for name, _, _, x in chains:
                got = np.fromfile(os.path.join(folder, f"{name}.c64"), np.complex64).reshape(-1, n)
                want = np.fft.fft(x.reshape(-1, n).astype(np.complex128) * grwin.hann(n), axis=1)
                self.assert_close(got, want, n, f"GRC tune={tune} {name}")

        grc_qa.check_tune(self, lambda tune: grc_flowgraph(chains, n, {"backend": "simd", "tune": tune}),
                          outputs, [n])

    def test_set_window_both_forms(self):
        n = 64
        for block, x, reference in ((gpufft.fft_vfc, self.real(n * 10), fft.fft_vfc),
                                    (gpufft.fft_vcc, self.complex(n * 10), fft.fft_vcc)):
            b = block(n, True, [])
            self.assertFalse(b.set_window([1.0] * 3))
            self.assertTrue(b.set_window(list(grwin.hamming(n))))
            want = run_block(reference(n, True, grwin.hamming(n), False, 1), x, n)
            self.assert_close(run_block(b, x, n), want, n, f"{block.__name__} set_window(taps)")
            b = block(n, True, [])
            self.assertTrue(b.set_window(grwin.WIN_BLACKMAN))
            want = run_block(reference(n, True, grwin.blackman(n), False, 1), x, n)
            self.assert_close(run_block(b, x, n), want, n, f"{block.__name__} set_window(WIN_BLACKMAN)")

    def test_bad_arguments(self):
        cases = [
            (lambda: gpufft.fft_vfc(0, True, []), ValueError, "gpufft.fft_vfc: fft_size"),
            (lambda: gpufft.fft_vfc(0, True, grwin.WIN_HANN), ValueError, "gpufft.fft_vfc: fft_size"),
            (lambda: gpufft.fft_vfc(64, True, [1.0] * 63), ValueError, "gpufft.fft_vfc: window"),
            (lambda: gpufft.fft_vfc(64, True, [], backend="nosuch"), ValueError, "nosuch"),
            (lambda: gpufft.fft_vfc(64, True, [], nthreads=0), ValueError, "nthreads"),
            (lambda: gpufft.fft_vfc(64, True, [], batch=0), ValueError, "batch"),
            (lambda: gpufft.fft_vfc(2**29, True, []), ValueError, "fft_size must be at most"),
            (lambda: gpufft.fft_vfc(64, True, "hann"), TypeError, "gpufft.fft_vfc: window must be"),
            (lambda: gpufft.fft_vfc(64, True, grwin.WIN_KAISER), ValueError, "gpufft.fft_vfc: window type 4"),
            (lambda: gpufft.fft_vcc(64, True, 3), TypeError, "gpufft.fft_vcc: window must be"),
            (lambda: gpufft.fft_vcc(64, True, []).set_window(None), TypeError, "window must be"),
        ]
        for make, error, words in cases:
            with self.assertRaises(error) as ctx:
                make()
            self.assertIn(words, str(ctx.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_fft_vfc)
