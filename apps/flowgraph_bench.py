#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
Flowgraph throughput of gr-gpufft's blocks against GNU Radio's own.

1. FFT: null_source(N-vectors) -> FFT -> null_sink, with fft.fft_vcc and with
   gpufft.fft_vcc (same window, shift and threads); then the same from a
   sample stream: null_source -> stream_to_vector(N) -> FFT -> null_sink,
   where the two blocks before the FFT pass every sample through 64 KiB
   buffers, at a cost both flowgraphs share. Both FFT blocks get GNU Radio's
   default buffers (a 64 KiB output buffer, at least 4 vectors): the larger
   output buffer and the history gpufft.fft_vcc asks for are undone, unless
   --block-buffers.
2. Spectrum: null_source -> the stock chain that averages every frame
   (stream_to_vector -> fft.fft_vcc -> complex_to_mag_squared ->
   single_pole_iir_filter_ff -> keep_one_in_n -> nlog10_ff) -> null_sink,
   against null_source -> gpufft.spectrum_c -> null_sink (same N, window,
   alpha and frames per output).
3. Bound (--cases bound): null_source -> blocks.copy -> null_sink against
   the stock FFT flowgraph of case 1, at default buffers: a block that only
   copies its vectors is as fast as any FFT block could be there, so its
   speedup caps what gpufft.fft_vcc can reach in case 1.

4. Soak (--soak SAMPLES, instead of 1 to 3): gpufft.spectrum_c and then
   gpufft.fft_vcc stream SAMPLES input samples each (--sizes' and
   --spectrum-sizes' first N) while the process's resident memory (VmRSS) is
   sampled every --soak-interval seconds; the JSON (--json, else stdout)
   holds every sample and the growth from the first to the last. A leak shows
   as growth that keeps rising with the samples; allocator and page-cache
   noise is a few MiB at most.

Each run lets a flowgraph stream for --seconds and counts what reached the
sink (no head block: a head is one more thread copying every item, through
buffers of its own, the same in both flowgraphs). Each case runs the two
flowgraphs alternately (stock then ours, ours then stock, ...) and reports the
median throughput of the repeats in Msamples/s of input, by wall time and by
CPU time (all threads of the process: less sensitive to other work on a
shared machine). The speedup is the median over neighbouring pairs of runs of
their throughput ratio, and "wins" counts the pairs ours was faster in. Run
it on an idle machine, not under ctest (the test wrapper sets VOLK_GENERIC=1):

    PYTHONPATH=build/test_modules /usr/bin/python3 apps/flowgraph_bench.py
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

from gnuradio import blocks, fft, filter as grfilter, gr
from gnuradio import gpufft
from gnuradio.fft import window


def timed(graph, seconds):
    """Input samples per second through graph = (top_block, sink, input
    samples per sink item), by wall time and by the CPU time of all the
    process's threads, over `seconds` of streaming."""
    tb, sink, per_item = graph
    c0, t0 = time.process_time(), time.perf_counter()
    tb.start()
    time.sleep(seconds)
    samples = sink.nitems_read(0) * per_item
    t1, c1 = time.perf_counter(), time.process_time()
    tb.stop()
    tb.wait()
    return samples / (t1 - t0), samples / (c1 - c0)


def fft_graph(n, ours, backend, batch, from_stream, block_buffers, copy=False):
    tb = gr.top_block()
    win = window.blackmanharris(n)
    if ours and copy:
        # The bound of any block that writes its vectors: a memcpy of each.
        f = blocks.copy(gr.sizeof_gr_complex * n)
    elif ours:
        f = gpufft.fft_vcc(n, True, win, True, 1, backend=backend, batch=batch)
        if not block_buffers:
            # GNU Radio's default buffers, as the stock block gets: undo the
            # larger output buffer and the history (which sizes the upstream
            # buffer) that gpufft.fft_vcc asks for.
            f.set_min_output_buffer(0, 0)
            f.set_history(1)
    else:
        f = fft.fft_vcc(n, True, win, True, 1)
    vector = gr.sizeof_gr_complex * n
    if from_stream:
        src = [blocks.null_source(gr.sizeof_gr_complex), blocks.stream_to_vector(gr.sizeof_gr_complex, n)]
    else:
        src = [blocks.null_source(vector)]
    sink = blocks.null_sink(vector)
    tb.connect(*src, f, sink)
    return tb, sink, n


def spectrum_graph(n, ours, backend, k, alpha):
    tb = gr.top_block()
    src = blocks.null_source(gr.sizeof_gr_complex)
    sink = blocks.null_sink(gr.sizeof_float * n)
    if ours:
        s = gpufft.spectrum_c(n, 2.4e6, frames_per_output=k, window="blackmanharris",
                              average="exponential", alpha=alpha, shift=True, backend=backend)
        tb.connect(src, s, sink)
    else:
        win = window.blackmanharris(n)
        tb.connect(src, blocks.stream_to_vector(gr.sizeof_gr_complex, n),
                   fft.fft_vcc(n, True, win, True, 1),
                   blocks.complex_to_mag_squared(n),
                   grfilter.single_pole_iir_filter_ff(alpha, n),
                   blocks.keep_one_in_n(gr.sizeof_float * n, k),
                   blocks.nlog10_ff(10, n, -20 * math.log10(n)),
                   sink)
    return tb, sink, n * k


def rss_kib():
    """The process's resident memory in KiB (VmRSS)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def soak(case, n, graph, total, interval, max_seconds):
    """Streams `total` input samples (or for max_seconds, if > 0) through
    graph, sampling the RSS every `interval` seconds."""
    tb, sink, per_item = graph
    trace = [dict(samples=0, seconds=0.0, rss_kib=rss_kib())]
    t0 = time.perf_counter()
    tb.start()
    while True:
        time.sleep(interval)
        samples, seconds = sink.nitems_read(0) * per_item, time.perf_counter() - t0
        trace.append(dict(samples=samples, seconds=round(seconds, 3), rss_kib=rss_kib()))
        if samples >= total or 0 < max_seconds <= seconds:
            break
    tb.stop()
    tb.wait()
    # Start: the first sample while streaming (plans and buffers allocated).
    start, end = trace[1], trace[-1]
    middle = min(trace[1:], key=lambda t: abs(t["samples"] - end["samples"] / 2))
    r = dict(case=case, n=n, target_samples=total, samples=end["samples"], seconds=end["seconds"],
             msps=end["samples"] / end["seconds"] / 1e6, rss_kib_before=trace[0]["rss_kib"],
             rss_kib_start=start["rss_kib"], rss_kib_middle=middle["rss_kib"], rss_kib_end=end["rss_kib"],
             rss_growth_kib=end["rss_kib"] - start["rss_kib"],
             rss_growth_second_half_kib=end["rss_kib"] - middle["rss_kib"], trace=trace)
    print(f"soak {case:<12}{n:>7}: {r['samples']:.4g} samples in {r['seconds']:.0f} s ({r['msps']:.0f} Ms/s); "
          f"RSS KiB start {r['rss_kib_start']}, middle {r['rss_kib_middle']}, end {r['rss_kib_end']} "
          f"(growth {r['rss_growth_kib']:+d}, second half {r['rss_growth_second_half_kib']:+d})", flush=True)
    return r


def run_soak(a):
    total = int(float(a.soak))
    n_fft = int(a.sizes.split(",")[0])
    n_spectrum = int(a.spectrum_sizes.split(",")[0])
    results = [
        soak("spectrum_c", n_spectrum, spectrum_graph(n_spectrum, True, a.backend, a.frames_per_output, a.alpha),
             total, a.soak_interval, a.soak_max_seconds),
        soak("fft_vcc", n_fft, fft_graph(n_fft, True, a.backend, a.batch, False, a.block_buffers),
             total, a.soak_interval, a.soak_max_seconds),
    ]
    doc = dict(mode="soak", backend=a.backend, load_average=os.getloadavg()[0], results=results)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
    else:
        json.dump(doc, sys.stdout)
        print()
    return 0


def compare(make, seconds, repeats):
    """Median Msamples/s of stock and ours, by wall time and by CPU time, and
    the speedup as the median over the pairs of neighbouring runs (stock, ours)
    of their throughput ratio: on a shared machine a pair sees about the same
    load, so this is steadier than the ratio of the medians."""
    runs = {False: [], True: []}
    timed(make(False), seconds / 2)  # warm up: plans, wisdom, page faults
    timed(make(True), seconds / 2)
    for i in range(repeats):
        # Alternate which one goes first, so that neither always follows the other.
        for ours in ((False, True) if i % 2 == 0 else (True, False)):
            runs[ours].append(timed(make(ours), seconds))

    def rate(ours, i):
        return statistics.median(r[i] for r in runs[ours]) / 1e6

    def pair_speedup(i):
        return statistics.median(o[i] / s[i] for s, o in zip(runs[False], runs[True]))

    return dict(stock_msps=rate(False, 0), gpufft_msps=rate(True, 0),
                stock_msps_cpu=rate(False, 1), gpufft_msps_cpu=rate(True, 1),
                speedup=pair_speedup(0), speedup_cpu=pair_speedup(1),
                wins=sum(o[0] > s[0] for s, o in zip(runs[False], runs[True])), repeats=repeats)


def report(results, case, n, r):
    r = dict(case=case, n=n, **r)
    results.append(r)
    print(f"{case:<28}{n:>7}{r['stock_msps']:>12.1f}{r['gpufft_msps']:>13.1f}{r['speedup']:>8.2f}x"
          f"{r['wins']:>5}/{r['repeats']:<3}"
          f"{r['stock_msps_cpu']:>11.1f}{r['gpufft_msps_cpu']:>13.1f}{r['speedup_cpu']:>8.2f}x", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="256,1024,4096,65536", help="FFT sizes (default %(default)s)")
    ap.add_argument("--spectrum-sizes", default="1024,4096", help="spectrum sizes (default %(default)s)")
    ap.add_argument("--seconds", type=float, default=0.5, help="streaming time of one run (default %(default)s)")
    ap.add_argument("--repeats", type=int, default=11, help="runs of each flowgraph (default %(default)s)")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--batch", type=int, default=64, help="gpufft.fft_vcc batch (default %(default)s)")
    ap.add_argument("--block-buffers", action="store_true",
                    help="let gpufft.fft_vcc have the larger output buffer and history it asks for "
                         "(default: GNU Radio's default buffers for both FFT blocks)")
    ap.add_argument("--cases", default="fft,stream,spectrum",
                    help="which of fft, stream, spectrum, bound to run (default %(default)s)")
    ap.add_argument("--frames-per-output", type=int, default=64, help="K for the spectrum case")
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--soak", help="soak mode: input samples per flowgraph, e.g. 1e10")
    ap.add_argument("--soak-interval", type=float, default=5.0, help="seconds between RSS samples")
    ap.add_argument("--soak-max-seconds", type=float, default=0.0,
                    help="end each soak flowgraph after this long even if short of --soak samples")
    a = ap.parse_args()
    cases = set(a.cases.split(","))
    known = {"fft", "stream", "spectrum", "bound"}
    if not cases <= known:
        ap.error(f"--cases: unknown case(s) {', '.join(sorted(cases - known))}")
    if a.soak:
        return run_soak(a)

    results = []
    print(f"{'':<35}{'-------------- wall time --------------':>42}{'---------- CPU time -----------':>33}")
    print(f"{'case':<28}{'N':>7}{'stock Ms/s':>12}{'gpufft Ms/s':>13}{'speedup':>9}{'wins':>9}"
          f"{'stock Ms/s':>11}{'gpufft Ms/s':>13}{'speedup':>9}")
    for from_stream, case in ((False, "fft"), (True, "stream")):
        if case not in cases:
            continue
        for n in (int(s) for s in a.sizes.split(",") if s):
            report(results, "stream_to_vector + fft_vcc" if from_stream else "fft_vcc", n,
                   compare(lambda ours: fft_graph(n, ours, a.backend, a.batch, from_stream, a.block_buffers),
                           a.seconds, a.repeats))
    for n in (int(s) for s in a.sizes.split(",") if s and "bound" in cases):
        report(results, "copy in fft_vcc's place", n,
               compare(lambda copy: fft_graph(n, copy, a.backend, a.batch, False, False, copy=copy),
                       a.seconds, a.repeats))
    for n in (int(s) for s in a.spectrum_sizes.split(",") if s and "spectrum" in cases):
        report(results, "spectrum_c vs stock chain", n,
               compare(lambda ours: spectrum_graph(n, ours, a.backend, a.frames_per_output, a.alpha),
                       a.seconds, a.repeats))
    backend = gpufft.fft_vcc(1024, True, [], backend=a.backend).backend()
    print(f"gpufft backend: {backend}; {'its own' if a.block_buffers else 'default'} buffers for gpufft.fft_vcc; "
          f"{a.seconds} s per run, median of {a.repeats}; "
          f"load average {os.getloadavg()[0]:.1f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(backend=backend, buffers="block" if a.block_buffers else "default", seconds=a.seconds,
                           repeats=a.repeats, statistic="median", load_average=os.getloadavg()[0],
                           results=results), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
