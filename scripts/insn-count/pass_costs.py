#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Instructions per vector of each radix's Stockham pass on the simd backend's
neon path, as the first pass (no twiddles) and as a twiddled one: the pass
costs that isa/neon.h gives the planner (lib/backends/simd/planner.cc,
pass_style::modelled). Counted under qemu-user (instruction counts of
emulated execution, not timings) with scripts/insn-count/count_insns.c in
its per-block mode: the driver (execute_loop.cc) runs a column plan of
16 x R points (R x 16 and 16 x R, forced with GPUFFT_SIMD_RADICES) 10 and
90 times; the blocks inside the pass function's symbol, their executions'
difference over 80 calls times their length, divided by the 16 R vectors
of the columns, are one pass's cost per vector.

    scripts/insn-count/pass_costs.py aarch64|armhf [RADIX...]

Needs what scripts/install-arm-deps.sh installs and the core library built
in build-<target>/ (scripts/arm-insn-count.sh builds it). Prints one line a
radix: R, first, twiddled."""
import os
import re
import subprocess
import sys
import tempfile

TARGETS = {"aarch64": ("aarch64-linux-gnu", "qemu-aarch64"),
           "armhf": ("arm-linux-gnueabihf", "qemu-arm")}
CODELETS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 25, 32]


def function_ranges(library, triplet):
    """(start, end, name) of each function in library, offsets from its base."""
    out = subprocess.run([triplet + "-nm", "-C", "-S", "--defined-only", library],
                         capture_output=True, text=True, check=True).stdout
    ranges = []
    for line in out.splitlines():
        parts = line.split(" ", 3)
        if len(parts) == 4 and parts[2] in "tTwW":
            start = int(parts[0], 16)
            ranges.append((start, start + int(parts[1], 16), parts[3]))
    return ranges


def blocks(qemu, plugin, driver, radices, n, calls, work):
    """Executed instructions per block address, and libgpufft's base."""
    log = os.path.join(work, "log")
    env = dict(os.environ, GPUFFT_SIMD_RADICES=radices, GPUFFT_INSN_BASE="1")
    run = subprocess.run([qemu, "-plugin", plugin + ",blocks=on", "-d", "plugin", "-D", log,
                          driver, "simd:neon", str(n), "forward", str(calls)],
                         env=env, capture_output=True, text=True, check=True)
    if "mixed-radix " + radices + " " not in run.stdout:
        sys.exit("pass_costs: the plan for %d points is not %s: %s" % (n, radices, run.stdout))
    base = int(re.search(r"libgpufft base (0x[0-9a-f]+)", run.stderr).group(1), 16)
    counts = {}
    with open(log) as f:
        for line in f:
            if line.startswith("block "):
                _, vaddr, length, times = line.split()
                key = int(vaddr, 16) - base
                counts[key] = counts.get(key, 0) + int(length) * int(times)
    return counts


def pass_cost(ranges, qemu, plugin, driver, radices, radix, twiddled, work):
    columns = 16 * radix
    few = blocks(qemu, plugin, driver, radices, 2 * columns, 10, work)
    many = blocks(qemu, plugin, driver, radices, 2 * columns, 90, work)
    name = ("generic_pass<true>" if radix not in CODELETS else
            "stockham_pass<%d, true, %s>" % (radix, "true" if twiddled else "false"))
    spans = [(a, b) for a, b, f in ranges if "::simd::neon::(anonymous namespace)::" + name + "(" in f]
    if len(spans) != 1:
        sys.exit("pass_costs: %d functions named %s" % (len(spans), name))
    a, b = spans[0]
    inside = sum(many[k] - few.get(k, 0) for k in many if a <= k < b)
    return inside / 80 / columns


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        sys.exit(__doc__)
    target = sys.argv[1]
    radix_list = [int(r) for r in sys.argv[2:]] or CODELETS
    triplet, qemu = TARGETS[target]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    library = os.path.join(root, "build-" + target, "lib", "libgpufft.so")
    ranges = function_ranges(library, triplet)
    with tempfile.TemporaryDirectory() as work:
        plugin = os.path.join(work, "count_insns.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-o", plugin,
                        os.path.join(root, "scripts/insn-count/count_insns.c")], check=True)
        driver = os.path.join(work, "execute_loop")
        subprocess.run([triplet + "-g++", "-std=c++17", "-O2", "-I" + os.path.join(root, "include"),
                        "-o", driver, os.path.join(root, "scripts/insn-count/execute_loop.cc"),
                        "-L" + os.path.dirname(library), "-lgpufft", "-lfftw3f",
                        "-Wl,-rpath," + os.path.dirname(library)], check=True)
        print("radix first twiddled  (instructions per vector, %s, under %s)" % (target, qemu))
        for radix in radix_list:
            first = pass_cost(ranges, qemu, plugin, driver, "%dx16" % radix, radix, False, work)
            twiddled = pass_cost(ranges, qemu, plugin, driver, "16x%d" % radix, radix, True, work)
            print("%5d %5.1f %8.1f" % (radix, first, twiddled), flush=True)


main()
