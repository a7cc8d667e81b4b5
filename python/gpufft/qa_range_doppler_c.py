#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
QA for gpufft.range_doppler_c against numpy.fft.fft2 in double: sizes (odd,
prime, mixed radix), windows, shift, dB output, several maps per run, tags,
bad arguments.

Fresh random data every run; replay with GPUFFT_QA_SEED=<seed>.
"""

import os

import grc_qa
import numpy as np
import pmt
from gnuradio import blocks, gr, gr_unittest
from gnuradio import gpufft
from gnuradio.fft import window as grwin

SEED = int(os.environ.get("GPUFFT_QA_SEED", int.from_bytes(os.urandom(4), "little")))
print(f"qa_range_doppler_c: random seed {SEED} (replay with GPUFFT_QA_SEED={SEED})")


def reference(x, n, m, range_window=(), doppler_window=(), shift=True):
    """The N x M maps of x (maps x M x N) in double, as the block lays them out."""
    pulses = x.reshape(-1, m, n).astype(np.complex128)
    if len(range_window):
        pulses = pulses * np.asarray(range_window)[None, None, :]
    if len(doppler_window):
        pulses = pulses * np.asarray(doppler_window)[None, :, None]
    maps = np.fft.fft2(pulses, axes=(1, 2))  # (maps, M Doppler, N range)
    if shift:
        maps = np.fft.fftshift(maps, axes=1)
    return maps.transpose(0, 2, 1)  # (maps, N range, M Doppler)


def run(block, x, n, m, db=False, tags=()):
    tb = gr.top_block()
    src = blocks.vector_source_c(x.tolist(), False, n, list(tags))
    snk = (blocks.vector_sink_f if db else blocks.vector_sink_c)(n * m)
    tb.connect(src, block, snk)
    tb.run()
    return np.array(snk.data()).reshape(-1, n, m), snk


class qa_range_doppler_c(gr_unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(SEED)

    def random(self, count):
        return (self.rng.standard_normal(count) + 1j * self.rng.standard_normal(count)).astype(np.complex64)

    def assert_close(self, got, want, what):
        self.assertEqual(got.shape, want.shape, what)
        err = float(np.linalg.norm(got - want) / np.linalg.norm(want))
        bound = 2e-6 * (1 + np.log2(want.shape[1] * want.shape[2]))
        self.assertLess(err, bound, f"{what}: relative L2 error {err:.3g} > {bound:.3g}")

    def test_same_as_numpy_fft2(self):
        for n, m in [(1, 1), (8, 1), (1, 8), (64, 16), (100, 31), (127, 12), (256, 64), (60, 49)]:
            maps = 3
            x = self.random(n * m * maps)
            for shift in (False, True):
                got, _ = run(gpufft.range_doppler_c(n, m, shift=shift), x, n, m)
                self.assert_close(got, reference(x, n, m, shift=shift), f"{n}x{m} shift={shift}")
        # No window, no shift: numpy.fft.fft2 of the M x N pulses, transposed.
        x = self.random(32 * 8)
        got, _ = run(gpufft.range_doppler_c(32, 8, shift=False), x, 32, 8)
        self.assert_close(got, np.fft.fft2(x.reshape(8, 32).astype(np.complex128)).T[None], "fft2(x).T")

    def test_windows_and_db(self):
        n, m = 128, 32
        x = self.random(n * m * 2)
        rw, dw = grwin.hann(n), grwin.blackmanharris(m)
        want = reference(x, n, m, rw, dw, True)
        got, _ = run(gpufft.range_doppler_c(n, m, rw, dw, True, False), x, n, m)
        self.assert_close(got, want, "windows")
        got_db, _ = run(gpufft.range_doppler_c(n, m, rw, dw, True, True), x, n, m, db=True)
        np.testing.assert_allclose(got_db, 10 * np.log10(np.abs(want) ** 2), atol=2e-3)
        zero, _ = run(gpufft.range_doppler_c(4, 2, db=True), np.zeros(8, np.complex64), 4, 2, db=True)
        np.testing.assert_array_equal(zero, np.full((1, 4, 2), -200.0))

    def test_backends(self):
        n, m = 48, 20
        x = self.random(n * m)
        for b in gpufft.backends():
            if b["usable"]:
                block = gpufft.range_doppler_c(n, m, backend=b["name"], nthreads=2)
                self.assertTrue(block.backend().startswith(b["name"]))
                self.assertEqual((block.fft_size(), block.num_pulses()), (n, m))
                got, _ = run(block, x, n, m)
                self.assert_close(got, reference(x, n, m), b["name"])

    def test_tags_and_partial_map(self):
        n, m = 16, 4
        x = self.random(n * (m * 5 + 3))  # 5 maps, then 3 pulses of a map that never fills
        tag = gr.tag_utils.python_to_tag((9, pmt.intern("burst"), pmt.from_long(9), pmt.PMT_F))
        got, snk = run(gpufft.range_doppler_c(n, m), x, n, m, tags=[tag])
        self.assertEqual(len(got), 5)
        self.assertEqual([(t.offset, pmt.to_long(t.value)) for t in snk.tags()], [(9 // m, 9)])

    def test_grc_tune(self):
        """The GRC block's Tune reaches both plans: tuned, each times its candidates and keeps the
        choice in the wisdom file (simd: every machine has it); untuned, the file gets nothing."""
        n, m = 48, 20
        x = self.random(n * m * 2)

        def graph(tune):
            return grc_qa.flowgraph(
                [("src", "blocks_vector_source_x", {"type": "complex", "vector": repr(x.tolist()), "vlen": str(n),
                                                    "repeat": "False", "tags": "[]"}),
                 ("rd", "gpufft_range_doppler_c", {"fft_size": str(n), "num_pulses": str(m), "range_window": "[]",
                                                   "doppler_window": "[]", "shift": "True", "db": "False",
                                                   "backend": "simd", "nthreads": "1", "tune": tune}),
                 ("sink", "blocks_file_sink", {"type": "complex", "file": "'maps.c64'", "vlen": str(n * m),
                                               "unbuffered": "False", "append": "False"})],
                [["src", "0", "rd", "0"], ["rd", "0", "sink", "0"]])

        def outputs(folder, tune):
            got = np.fromfile(os.path.join(folder, "maps.c64"), np.complex64).reshape(-1, n, m)
            self.assert_close(got, reference(x, n, m), f"GRC tune={tune}")

        grc_qa.check_tune(self, graph, outputs, [n, m])
        self.assertEqual((gpufft.range_doppler_c(4, 2).tune(), gpufft.range_doppler_c(4, 2, tune=True).tune()),
                         (False, True))

    def test_bad_arguments(self):
        cases = [
            (lambda: gpufft.range_doppler_c(0, 4), "fft_size must be >= 1"),
            (lambda: gpufft.range_doppler_c(4, 0), "num_pulses must be >= 1"),
            (lambda: gpufft.range_doppler_c(4, 2, [1.0] * 3), "range_window must be empty or have fft_size = 4"),
            (lambda: gpufft.range_doppler_c(4, 2, [], [1.0] * 3), "doppler_window must be empty or have num_pulses"),
            (lambda: gpufft.range_doppler_c(4, 2, nthreads=0), "nthreads must be >= 1"),
            (lambda: gpufft.range_doppler_c(4, 2, backend="nosuch"), "nosuch"),
            (lambda: gpufft.range_doppler_c(65536, 65536), "more than one GNU Radio item"),
        ]
        for make, words in cases:
            with self.assertRaises(ValueError) as ctx:
                make()
            self.assertIn(words, str(ctx.exception))
            self.assertIn("gpufft.range_doppler_c", str(ctx.exception))


if __name__ == "__main__":
    gr_unittest.run(qa_range_doppler_c)
