#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.fft_vcc: the same outputs as gnuradio.fft.fft_vcc on the same
random input (sizes, both directions, shift, window, every usable backend and
variant), tags passing through, batches with a remainder, bad arguments.

Fresh random data every run; replay with GPUFFT_QA_SEED=<seed>.
"""

import os
import subprocess
import sys

import numpy as np
import pmt
from gnuradio import blocks, fft, gr, gr_unittest
from gnuradio import gpufft
from gnuradio.fft import window as grwin

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_fft_vcc: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")

SIZES = (1, 2, 7, 16, 100, 256, 1024, 4096)


def usable_backends():
    """Every usable backend and each of its variants: 'simd', 'simd:avx2', ..."""
    names = []
    for b in gpufft.backends():
        if b["usable"]:
            names.append(b["name"])
            names += [f"{b['name']}:{v}" for v in b["variants"]]
    return names


def run_block(block, x, n):
    tb = gr.top_block()
    src = blocks.vector_source_c(x.tolist(), False, n)
    snk = blocks.vector_sink_c(n)
    tb.connect(src, block, snk)
    tb.run()
    return np.array(snk.data(), dtype=np.complex64).reshape(-1, n)


class qa_fft_vcc(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(SEED)

    def random(self, count):
        return (self.rng.standard_normal(count) + 1j * self.rng.standard_normal(count)).astype(np.complex64)

    def assert_close(self, got, want, n, what):
        self.assertEqual(got.shape, want.shape, what)
        # float32 FFT error grows like log2(N) * eps * |x| * sqrt(N)
        scale = max(1e-30, float(np.max(np.abs(want))))
        err = float(np.max(np.abs(got - want))) / scale
        self.assertLess(err, 2e-6 * (1 + np.log2(max(n, 2))), f"{what}: relative error {err:.3g}")

    def test_same_as_gr_fft(self):
        backends = usable_backends()
        self.assertTrue(backends)
        for backend in backends:
            for n in SIZES:
                vectors = int(self.rng.integers(1, 40))
                x = self.random(n * vectors)
                for forward in (True, False):
                    for shift in (False, True):
                        # GNU Radio's windows are NaN for n = 1
                        taps = list(grwin.blackmanharris(n)) if n > 1 else [0.5]
                        for win in ([], taps):
                            what = f"{backend} n={n} forward={forward} shift={shift} window={bool(win)}"
                            want = run_block(fft.fft_vcc(n, forward, win, shift, 1), x, n)
                            got = run_block(
                                gpufft.fft_vcc(n, forward, win, shift, 1, backend=backend, batch=8), x, n)
                            self.assert_close(got, want, n, what)

    def test_positional_drop_in_and_threads(self):
        n = 512
        x = self.random(n * 100)
        want = run_block(fft.fft_vcc(n, True, grwin.hann(n), True, 2), x, n)
        got = run_block(gpufft.fft_vcc(n, True, grwin.hann(n), True, 2), x, n)
        self.assert_close(got, want, n, "positional, 2 threads")
        b = gpufft.fft_vcc(fft_size=n, forward=False, window=[], shift=False, nthreads=1, backend="auto", batch=3)
        self.assertEqual((b.fft_size(), b.nthreads(), b.batch(), b.tune()), (n, 1, 3, False))
        self.assertTrue(gpufft.fft_vcc(n, True, [], False, 1, "simd", 3, True).tune())
        self.assertTrue(b.backend())
        b.set_nthreads(2)
        self.assertEqual(b.nthreads(), 2)
        with self.assertRaises(ValueError):
            b.set_nthreads(0)
        x = self.random(n * 20)
        self.assert_close(run_block(b, x, n), np.fft.ifft(x.reshape(-1, n).astype(np.complex128), axis=1) * n,
                          n, "after set_nthreads")

    def test_set_window(self):
        n = 64
        b = gpufft.fft_vcc(n, True, [])
        self.assertFalse(b.set_window([1.0] * 3))
        self.assertTrue(b.set_window(list(grwin.hamming(n))))
        x = self.random(n * 10)
        want = run_block(fft.fft_vcc(n, True, grwin.hamming(n), False, 1), x, n)
        self.assert_close(run_block(b, x, n), want, n, "after set_window")

    def test_tags_pass_through(self):
        # (1024, 64) also runs the enlarged-buffer path (a history of whole batches).
        for n, batch in ((128, 16), (1024, 64)):
            x = self.random(n * 300)
            offsets = (0, 3, 17, 49, 150, 299)
            tags = [gr.tag_utils.python_to_tag((off, pmt.intern("k"), pmt.from_long(off), pmt.PMT_F))
                    for off in offsets]
            tb = gr.top_block()
            src = blocks.vector_source_c(x.tolist(), False, n, tags)
            snk = blocks.vector_sink_c(n)
            tb.connect(src, gpufft.fft_vcc(n, True, [], False, 1, batch=batch), snk)
            tb.run()
            got = sorted((t.offset, pmt.to_long(t.value)) for t in snk.tags())
            self.assertEqual(got, [(o, o) for o in offsets], f"n={n} batch={batch}")
            want = np.fft.fft(x.reshape(-1, n).astype(np.complex128), axis=1)
            self.assert_close(np.array(snk.data()).reshape(-1, n), want, n, f"n={n} batch={batch}")

    def test_default_buffers(self):
        # As apps/flowgraph_bench.py runs it: GNU Radio's default buffers (the
        # output buffer and history the block asks for undone), work() calls
        # of at most 3 vectors, and an odd count that leaves a remainder.
        for n, window, shift in ((1024, grwin.blackmanharris(1024), True), (4096, [], False)):
            x = self.random(n * 37)
            want = run_block(fft.fft_vcc(n, True, window, shift, 1), x, n)
            b = gpufft.fft_vcc(n, True, window, shift, 1, batch=64)
            b.set_min_output_buffer(0, 0)
            b.set_history(1)
            b.set_max_noutput_items(3)
            self.assert_close(run_block(b, x, n), want, n, f"n={n} default buffers")

    def test_bad_arguments(self):
        cases = [
            (lambda: gpufft.fft_vcc(0, True, []), "fft_size"),
            (lambda: gpufft.fft_vcc(-4, True, []), "fft_size"),
            (lambda: gpufft.fft_vcc(64, True, [1.0] * 63), "window"),
            (lambda: gpufft.fft_vcc(64, True, [], backend="nosuch"), "nosuch"),
            (lambda: gpufft.fft_vcc(64, True, [], nthreads=0), "nthreads"),
            (lambda: gpufft.fft_vcc(64, True, [], batch=0), "batch"),
            (lambda: gpufft.fft_vcc(64, True, [], backend=""), "unknown backend ''"),
            # A vector of 2^28 complex floats is more bytes than GNU Radio's int item size.
            (lambda: gpufft.fft_vcc(2**28, True, []), "fft_size must be at most"),
            (lambda: gpufft.fft_vcc(2**31 - 1, True, []), "fft_size must be at most"),
        ]
        for make, word in cases:
            with self.assertRaises(ValueError) as ctx:
                make()
            self.assertIn(word, str(ctx.exception))
        unusable = [b["name"] for b in gpufft.backends() if not b["usable"]]
        for name in unusable + ["simd:nosuchisa"]:
            with self.assertRaises(ValueError):
                gpufft.fft_vcc(64, True, [], backend=name)

    def test_quiet_by_default(self):
        # A default run logs no info lines: neither GNU Radio's
        # "set_min_output_buffer on block N" (fft_vcc enlarges its output
        # buffer at this size) nor why a backend is unusable here.
        code = ("from gnuradio import blocks, gr, gpufft\n"
                "gpufft.plan(64)\n"
                "tb = gr.top_block()\n"
                "src = blocks.vector_source_c([0j] * (4096 * 64), False, 4096)\n"
                "tb.connect(src, gpufft.fft_vcc(4096, True, [], False, 1, batch=16),\n"
                "           blocks.null_sink(8 * 4096))\n"
                "tb.run()\n"
                "print('ran')\n")
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("ran", run.stdout)
        # GNU Radio's console log goes to stdout or stderr depending on its config.
        for line in ("set_min_output_buffer", "not used"):
            self.assertNotIn(line, run.stdout + run.stderr)


if __name__ == "__main__":
    gr_unittest.run(qa_fft_vcc)
