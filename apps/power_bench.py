#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
CPU a hop of gpufft-power against soapy_power (Python, numpy) on gpufftsim,
the simulated SoapySDR radio the tests build, side by side in one run: the
same band, bins, rate and FFTs per visit of a hop (-f 88M:108M:125k: 8 hops
at 2.5 MS/s of 32 bins of 78125 Hz, 256 FFTs per visit, rectangle window).

Each program runs for two durations; CPU a hop is the difference of the
process's user + system time (wait4) over the difference of the hop visits,
so that start-up (Python's imports, device enumeration) is left out. Visits:
gpufft-power's rows say the FFTs each hop averaged (256 a visit);
soapy_power writes a row per visit. Both include the simulator's synthesis of
the samples they read, as a radio's driver would be.

    SOAPY_SDR_PLUGIN_PATH=build/apps/tests/soapy_modules /usr/bin/python3 apps/power_bench.py \\
        [--build build] [--soapy-power soapy_power] [--seconds 2 6] [--unpaced]
"""

import argparse
import os
import subprocess
import sys
import tempfile


def run(args):
    """(CPU seconds, wall seconds) of a process, from wait4(); exits on failure."""
    import time
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(args)}: exit {os.waitstatus_to_exitcode(status)}: {err}")
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - t0


def visits_gpufft_power(path):
    with open(path) as f:
        return sum(int(line.split(", ")[5]) for line in f) / 256


def visits_soapy_power(path):
    with open(path) as f:
        return sum(1 for _ in f)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))
    p.add_argument("--soapy-power", default="soapy_power")
    p.add_argument("--seconds", type=int, nargs=2, default=[2, 6])
    p.add_argument("--unpaced", action="store_true", help="the simulator as fast as read, not at 2.5 MS/s")
    a = p.parse_args()
    device = "driver=gpufftsim" + (",paced=0" if a.unpaced else "")
    power = os.path.join(a.build, "apps", "gpufft-power")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.csv")
        programs = {
            "gpufft-power": (lambda s: [power, "-d", device, "-f", "88M:108M:125k", "-i", str(s), "-1", out],
                             visits_gpufft_power),
            "soapy_power": (lambda s: [a.soapy_power, "-d", device, "-f", "88M:108M", "-r", "2.5M", "-b", "32",
                                       "-n", "256", "-g", "0", "--fft-window", "boxcar", "-e", str(s), "-q",
                                       "-O", out], visits_soapy_power),
        }
        print(f"radio: {device}; durations {a.seconds[0]} s and {a.seconds[1]} s")
        print("| program | visits | CPU (s) | wall (s) | CPU a hop visit (ms) |")
        print("|---|---|---|---|---|")
        per_hop = {}
        for name, (command, visits) in programs.items():
            measured = []
            for s in a.seconds:
                cpu, wall = run(command(s))
                measured.append((visits(out), cpu, wall))
            (v0, c0, _), (v1, c1, w1) = measured
            per_hop[name] = (c1 - c0) / (v1 - v0) * 1e3
            print(f"| {name} | {v0:.0f}, {v1:.0f} | {c0:.2f}, {c1:.2f} | {w1:.1f} | {per_hop[name]:.3f} |")
        print(f"soapy_power / gpufft-power, CPU a hop: {per_hop['soapy_power'] / per_hop['gpufft-power']:.1f}x")


if __name__ == "__main__":
    main()
