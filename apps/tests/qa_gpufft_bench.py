#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for gpufft-bench's CPU comparison as a program: the working-set regimes
(--regimes, and --points or --batch as one regime), their rows in the text
table and in --json, --window's engines, and bad options giving exit status 2 with a message
naming them; --device-resident's --shapes and --kind on whatever OpenCL
device is here (PoCL in CI; skipped without one). Tiny runs: the figures
are not checked, only their shape.

    GPUFFT_BENCH=build/apps/gpufft-bench /usr/bin/python3 apps/tests/qa_gpufft_bench.py"""

import json
import math
import os
import subprocess
import sys
import tempfile

from gnuradio import gr_unittest

EXE = os.environ.get("GPUFFT_BENCH", "gpufft-bench")
SWEEP_SIZES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "device",
                           "sweep_sizes.py")
sys.path.insert(0, os.path.dirname(SWEEP_SIZES))
from sweep_sizes import smooth  # noqa: E402


def bench(*args):
    return subprocess.run([EXE, "--backends", "simd", "--repeats", "1", *args],
                          capture_output=True, text=True, timeout=120)


class qa_gpufft_bench(gr_unittest.TestCase):
    def run_json(self, *args):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bench.json")
            r = bench("--json", path, *args)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                return r.stdout, json.load(f)

    def test_each_size_in_each_regime(self):
        out, doc = self.run_json("--sizes", "64,1000", "--regimes", "l2,64K")
        self.assertEqual(doc["header"]["regimes"],
                         [{"name": "l2", "input_bytes": 256 << 10}, {"name": "64K", "input_bytes": 64 << 10}])
        got = {(r["n"], r["regime"], r["backend"].split(":")[0]): r for r in doc["results"]}
        self.assertEqual(len(got), len(doc["results"]))
        for n in (64, 1000):
            for regime, size in (("l2", 256 << 10), ("64K", 64 << 10)):
                for engine in ("fftwf", "simd"):
                    r = got[(n, regime, engine)]
                    self.assertEqual(r["batch"], round(size / (8 * n)))
                    self.assertEqual(r["input_bytes"], r["batch"] * n * 8)
                    self.assertEqual(r["repeats"], 1)
                    self.assertGreater(r["ns_per_transform"], 0)
                    self.assertGreater(r["cpu_ns_per_transform"], 0)
                    self.assertGreater(r["ratio_vs_fftw_cpu"], 0)
                    self.assertLess(r["max_rel_err"], 1e-5)
        # The text table: a regime column, and the side-by-side summary.
        self.assertRegex(out, r"\n +64 64K +64 KiB +128 +simd")
        self.assertRegex(out, r"\n +1000 64K +64000 B +8 +simd")
        ratios = r" +\d+\.\d\d +\d+\.\d\d"
        self.assertRegex(out, r"by regime: wall time \| CPU time\n +N +backend +l2 +64K \| +l2 +64K\n"
                              rf" +64 +simd\S*{ratios} \|{ratios}\n")

    def test_largest_calls_fewer_repeats(self):
        _, doc = self.run_json("--sizes", "64", "--regimes", "64M", "--repeats", "9")
        self.assertEqual({r["repeats"] for r in doc["results"]}, {3})
        self.assertEqual({r["regime"] for r in doc["results"]}, {"64M"})

    def test_points_and_batch_are_one_regime(self):
        _, doc = self.run_json("--sizes", "128", "--points", "4096")
        self.assertEqual({(r["regime"], r["batch"]) for r in doc["results"]}, {("points", 32)})
        _, doc = self.run_json("--sizes", "128", "--batch", "5")
        self.assertEqual({(r["regime"], r["batch"]) for r in doc["results"]}, {("batch", 5)})

    def test_window(self):
        # Each gpufft backend twice (weights in its plan, and a multiply pass
        # of its own), every engine checked on the windowed input: an engine
        # that skipped the window would be off by the window's whole effect.
        _, doc = self.run_json("--sizes", "64,1000", "--batch", "3", "--window")
        self.assertTrue(doc["header"]["window"])
        for n in (64, 1000):
            rows = {r["backend"]: r for r in doc["results"] if r["n"] == n}
            simd = [b for b in rows if b.startswith("simd:") and not b.endswith("+multiply")]
            self.assertEqual(len(simd), 1, rows.keys())
            self.assertIn(simd[0] + "+multiply", rows)
            for backend, r in rows.items():
                self.assertLess(r["max_rel_err"], 1e-5, f"n={n} {backend}")
        r = bench("--sizes", "64", "--kind", "r2c", "--window")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--window is for 1-D c2c transforms", r.stderr)

    def run_device(self, *args, env=None):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bench.json")
            r = subprocess.run([EXE, "--device-resident", "--repeats", "1", "--json", path, *args],
                               capture_output=True, text=True, timeout=240, env=env)
            if r.returncode != 0 and "OpenCL" in r.stderr and "no " in r.stderr.lower():
                self.skipTest(r.stderr.strip())
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(path) as f:
                return r.stdout, json.load(f)

    def test_device_resident_shapes_and_kinds(self):
        # gpufft's device_plan at each kind, multi-dimensional and odd
        # shapes among them, checked against FFTW double by the bench itself;
        # the other engines only where they plan the same transform.
        for kind, shapes in (("c2c", ["8x6x10"]), ("r2c", ["12x9"]), ("c2r", ["6x10", "15"])):
            out, doc = self.run_device("--shapes", ",".join(shapes), "--kind", kind,
                                       "--points", "2048")
            self.assertEqual(doc["header"]["kind"], kind)
            self.assertEqual(doc["header"]["direction"], "inverse" if kind == "c2r" else "forward")
            rows = doc["device_resident"]
            ours = {r["shape"]: r for r in rows if r["engine"] == "gpufft"}
            self.assertEqual(sorted(ours), sorted(shapes), kind)
            for shape, r in ours.items():
                dims = [int(d) for d in shape.split("x")]
                points = 1
                for d in dims:
                    points *= d
                complex_points = points // dims[-1] * (dims[-1] // 2 + 1)
                io = 16 * points if kind == "c2c" else 8 * complex_points + 4 * points
                self.assertEqual(r["status"], "ok", f"{kind} {shape}: {r}")
                self.assertEqual(r["kind"], kind)
                self.assertEqual(r["n"], points)
                self.assertEqual(r["batch"], round(2048 / points))
                self.assertEqual(r["bytes_per_transform"], io)
                self.assertLess(r["max_rel_err"], 1e-5, f"{kind} {shape}")
                self.assertRegex(out, rf"\n {kind} +{shape} +{r['batch']} +gpufft ")
            for r in rows:
                self.assertEqual(r["kind"], kind)
                # clFFT's engine plans 1-D c2c only.
                self.assertNotEqual(r["engine"], "clFFT", f"{kind} {r['shape']}")

    def test_device_resident_sizes(self):
        # 1-D c2c through --sizes: the device plan's 1-D problem comes from
        # dims alone (n = 0), which once sent the planner into an endless loop.
        env = dict(os.environ)
        if "ASAN_OPTIONS" in env:
            # The clFFT engine times 1-D c2c too, and Debian's clFFT 2.12
            # deletes its plan's action through a base pointer whose type has
            # no virtual destructor (clfftDestroyPlan): its defect, not ours.
            env["ASAN_OPTIONS"] += ":new_delete_type_mismatch=0"
        out, doc = self.run_device("--sizes", "24,64", "--points", "2048", env=env)
        ours = {r["n"]: r for r in doc["device_resident"] if r["engine"] == "gpufft"}
        self.assertEqual(sorted(ours), [24, 64], out)
        for n, r in ours.items():
            self.assertEqual(r["status"], "ok", f"{n}: {r}")
            self.assertLess(r["max_rel_err"], 1e-5, n)

    def test_bad_device_options(self):
        for args, message in (
                (["--kind", "c2r"], "--kind c2r is for --device-resident"),
                (["--kind", "c2q"], "--kind must be c2c, r2c or c2r"),
                (["--device-resident", "--inverse"], "--inverse with --device-resident"),
                (["--streaming", "--shapes", "8x8"], "--shapes is for the CPU comparison"),
                (["--streaming", "--kind", "r2c"], "--kind is for the CPU comparison"),
                (["--device-resident", "--shapes", "8x0"], "--shapes"),
                (["--device-resident", "--sizes", "64", "--shapes", "8x8"], "--sizes and --shapes"),
                (["--sizes", "0"], "--sizes must be at least 1"),
                (["--sizes", "64,0"], "--sizes must be at least 1")):
            r = subprocess.run([EXE, *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertEqual(r.stdout, "", args)

    def test_bad_regimes(self):
        for args, message in (
                (["--regimes", "l4"], 'unknown regime "l4"'),
                (["--regimes", "12X"], 'unknown regime "12X"'),
                (["--regimes", "K"], 'unknown regime "K"'),
                (["--regimes", "0K"], "--regimes must be at least 1"),
                (["--regimes", ","], "--regimes: no regime given"),
                (["--regimes", "l2", "--points", "1024"], "--regimes with --points or --batch"),
                (["--regimes", "l2", "--display"], "--regimes is for the CPU comparison")):
            r = bench("--sizes", "64", *args)
            self.assertEqual(r.returncode, 2, f"{args}: {r.stderr}")
            self.assertIn(message, r.stderr, args)
            self.assertEqual(r.stdout, "", args)

    def test_sweep_sizes_drawn(self):
        # The GPU sweep's sizes (scripts/device/sweep_sizes.py): one 7-smooth
        # N per log2 step of [64, 2^20], the others with a prime factor above
        # 7; the same seed draws the same list, another seed another.
        def draw(*args):
            r = subprocess.run(["/usr/bin/python3", SWEEP_SIZES, *args], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = r.stdout.splitlines()
            self.assertEqual(lines[1::2], ["# smooth", "# other"], r.stdout)
            return lines[0], [int(n) for n in lines[2].split()], [int(n) for n in lines[4].split()]

        head, smooth_sizes, other = draw("--seed", "7")
        self.assertIn("--seed 7 ", head)
        self.assertEqual(len(smooth_sizes), 100)
        self.assertTrue(all(smooth(n) and 64 <= n <= 1 << 20 for n in smooth_sizes), smooth_sizes)
        # One a step: the k-th size lies in the k-th hundredth of the log range.
        for k, n in enumerate(smooth_sizes):
            self.assertLessEqual(abs(math.log2(n) - (6 + 14 * (k + 0.5) / 100)), 14 / 200 + 1e-9, (k, n))
        self.assertEqual(len(other), 24)
        self.assertTrue(all(not smooth(n) and n <= 1 << 20 for n in other), other)
        self.assertEqual(draw("--seed", "7")[1:], (smooth_sizes, other))
        _, smooth_8, other_8 = draw("--seed", "8")
        self.assertNotEqual(smooth_8, smooth_sizes)
        self.assertNotEqual(other_8, other)
        r = subprocess.run(["/usr/bin/python3", SWEEP_SIZES, "--low", "100", "--high", "50"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--low < --high", r.stderr)


if __name__ == "__main__":
    gr_unittest.run(qa_gpufft_bench)
