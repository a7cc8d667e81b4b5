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

--repeats N runs the programs N times in turn (so that a change in the
machine's load falls on all of them) and gives each one's median.
--before BUILD adds an earlier build's gpufft-power, on that build's
simulator, with soapy_power on that simulator too: a before/after in one run.

    /usr/bin/python3 apps/power_bench.py [--build build] [--before OLD_BUILD] \\
        [--soapy-power soapy_power] [--seconds 2 6] [--repeats 3] [--unpaced]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(args, env):
    """(CPU seconds, wall seconds) of a process, from wait4(); exits on failure."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
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
    p.add_argument("--before", metavar="BUILD", help="an earlier build to run alongside")
    p.add_argument("--soapy-power", default="soapy_power")
    p.add_argument("--seconds", type=int, nargs=2, default=[2, 6])
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--unpaced", action="store_true", help="the simulator as fast as read, not at 2.5 MS/s")
    a = p.parse_args()
    if a.repeats < 1 or not a.seconds[1] > a.seconds[0] > 0:
        p.error("--repeats must be at least 1 and --seconds two durations, the second longer")
    device = "driver=gpufftsim" + (",paced=0" if a.unpaced else "")
    builds = {"": a.build}
    if a.before:
        builds[" (before)"] = a.before
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.csv")
        programs = {}
        for label, build in builds.items():
            env = dict(os.environ, SOAPY_SDR_PLUGIN_PATH=os.path.join(build, "apps", "tests", "soapy_modules"))
            power = os.path.join(build, "apps", "gpufft-power")
            programs["gpufft-power" + label] = (
                lambda s, power=power: [power, "-d", device, "-f", "88M:108M:125k", "-i", str(s), "-1", out],
                visits_gpufft_power, env)
            programs["soapy_power" + label] = (
                lambda s: [a.soapy_power, "-d", device, "-f", "88M:108M", "-r", "2.5M", "-b", "32", "-n", "256",
                           "-g", "0", "--fft-window", "boxcar", "-e", str(s), "-q", "-O", out],
                visits_soapy_power, env)
        print(f"radio: {device}; durations {a.seconds[0]} s and {a.seconds[1]} s; {a.repeats} repeats in turn")
        per_hop = {name: [] for name in programs}
        for _ in range(a.repeats):
            for name, (command, visits, env) in programs.items():
                measured = []
                for s in a.seconds:
                    cpu, wall = run(command(s), env)
                    measured.append((visits(out), cpu, wall))
                (v0, c0, _), (v1, c1, w1) = measured
                # A longer run with no more visits has no figure (its rows lagged its reads).
                per_hop[name].append((c1 - c0) / (v1 - v0) * 1e3 if v1 > v0 else None)
                figure = f"{per_hop[name][-1]:.3f} ms a hop visit" if v1 > v0 else "no more visits in the longer run"
                print(f"  {name}: visits {v0:.0f}, {v1:.0f}; CPU {c0:.2f}, {c1:.2f} s; wall {w1:.1f} s; {figure}",
                      flush=True)
        def median(name):
            values = [v for v in per_hop[name] if v is not None]
            return statistics.median(values) if values else float("nan")

        print("| program | CPU a hop visit, median (ms) | each repeat (ms) |")
        print("|---|---|---|")
        for name, values in per_hop.items():
            each = ", ".join("-" if v is None else f"{v:.3f}" for v in values)
            print(f"| {name} | {median(name):.3f} | {each} |")
        for label in builds:
            ratios = ["-" if s is None or g is None else f"{s / g:.1f}x"
                      for s, g in zip(per_hop["soapy_power" + label], per_hop["gpufft-power" + label])]
            print(f"soapy_power / gpufft-power{label}, CPU a hop: "
                  f"{median('soapy_power' + label) / median('gpufft-power' + label):.1f}x"
                  f" (medians; each repeat {', '.join(ratios)})")


if __name__ == "__main__":
    main()
