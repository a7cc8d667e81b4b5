#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
Spectrum throughput: gpufft.spectrum against the stock GNU Radio chain doing
the same work, measured side by side in one run.

Both take the same complex64 samples, frame them (no overlap), window them
(Blackman-Harris), FFT, |X|^2, average every frame (single-pole IIR, alpha),
keep one average in K and turn it into dB. GNU Radio's chain:

    vector_source_c -> stream_to_vector -> fft_vcc -> complex_to_mag_squared
      -> single_pole_iir_filter_ff(vlen) -> keep_one_in_n -> nlog10_ff -> null_sink

One thread each (fft_vcc nthreads=1; the engine's threads=1). Prints the
median Msamples/s of each over the repeats and their ratio.

    /usr/bin/python3 apps/spectrum_bench.py [--sizes 1024,4096] [--repeats 5]
        [--samples 8388608] [--frames-per-output 64] [--backend auto] [--json out.json]

Run it with GNU Radio's interpreter, not under ctest (ctest sets VOLK_GENERIC=1).
From a build tree: PYTHONPATH=build/test_modules /usr/bin/python3 apps/spectrum_bench.py
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
from gnuradio import blocks, fft, filter, gr
from gnuradio.fft import window

try:
    from gnuradio import gpufft
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "test_modules"))
    from gnuradio import gpufft


def run_gnuradio(x, total, n, alpha, k):
    tb = gr.top_block()
    src = blocks.vector_source_c(x, repeat=True)
    head = blocks.head(gr.sizeof_gr_complex, total)
    s2v = blocks.stream_to_vector(gr.sizeof_gr_complex, n)
    f = fft.fft_vcc(n, True, window.blackman_harris(n), True, 1)
    mag = blocks.complex_to_mag_squared(n)
    iir = filter.single_pole_iir_filter_ff(alpha, n)
    keep = blocks.keep_one_in_n(gr.sizeof_float * n, k)
    db = blocks.nlog10_ff(10, n, 0.0)
    sink = blocks.null_sink(gr.sizeof_float * n)
    tb.connect(src, head, s2v, f, mag, iir, keep, db, sink)
    t0 = time.perf_counter()
    tb.run()
    return time.perf_counter() - t0


def run_engine(x, total, n, alpha, k, backend):
    s = gpufft.spectrum(n, window="blackmanharris", average="exponential", alpha=alpha,
                        frames_per_output=k, shift=True, backend=backend, threads=1)
    outputs = 0
    t0 = time.perf_counter()
    for start in range(0, total, len(x)):
        outputs += len(s.push(x[: min(len(x), total - start)]))
    outputs += len(s.flush())
    elapsed = time.perf_counter() - t0
    assert outputs == total // n // k, (outputs, total // n // k)
    return elapsed, s.backend


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1024,4096")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--samples", type=int, default=1 << 23, help="samples per timed run")
    ap.add_argument("--frames-per-output", type=int, default=64, help="K: one output per K frames")
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args()
    if os.environ.get("VOLK_GENERIC"):
        print("warning: VOLK_GENERIC is set: VOLK runs its generic kernels", file=sys.stderr)

    rng = np.random.default_rng(1)
    chunk = 1 << 20  # the same samples feed both: 1 Mi samples, repeated
    x = ((rng.standard_normal(chunk) + 1j * rng.standard_normal(chunk)) * 0.1).astype(np.complex64)
    results = []
    for n in (int(v) for v in args.sizes.split(",")):
        k = args.frames_per_output
        total = args.samples // (n * k) * n * k
        gr_t, our_t, backend = [], [], ""
        run_gnuradio(x, n * k * 4, n, args.alpha, k)  # warm-up: plans and caches
        run_engine(x, n * k * 4, n, args.alpha, k, args.backend)
        for _ in range(args.repeats):  # interleaved, so drift hits both
            gr_t.append(run_gnuradio(x, total, n, args.alpha, k))
            t, backend = run_engine(x, total, n, args.alpha, k, args.backend)
            our_t.append(t)
        gr_ms = total / statistics.median(gr_t) / 1e6
        our_ms = total / statistics.median(our_t) / 1e6
        r = {"n": n, "samples": total, "frames_per_output": k, "repeats": args.repeats,
             "gnuradio_msps": round(gr_ms, 1), "gpufft_msps": round(our_ms, 1),
             "ratio": round(our_ms / gr_ms, 2), "backend": backend}
        results.append(r)
        print(f"N={n:5d}  GNU Radio chain {gr_ms:7.1f} Msamples/s   gpufft.spectrum ({backend}) "
              f"{our_ms:7.1f} Msamples/s   ratio {our_ms / gr_ms:5.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "spectrum", "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
