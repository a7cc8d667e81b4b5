#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
Sweep and live-capture figures of gpufft-spectrum on gpufftsim, the simulated
SoapySDR radio its tests build (apps/tests/gpufftsim.cc), printed as JSON:

- sweep: one sweep over --band (default 1 GHz) at each --rates, unpaced (the
  simulator makes samples as fast as they are read: the receiver's own
  speed) and paced (samples at the sample rate, as a radio gives them): hops
  per second and the share of wall time waiting on the device and in the FFT
  path (the program's own timers: readStream vs the spectrum engine);
- live: --live-seconds of paced capture at 2.4 MS/s: the process's CPU time
  over wall time (the simulator's synthesis of tones and noise included, as
  a radio's driver would be) and the FFT path's share of wall time;
- memory: peak RSS of unpaced live captures of 1 and 10 minutes of signal at
  2.4 MS/s (a proxy for 1 and 10 minutes live: the same samples, spectra and
  waterfall rows, without the wait), waterfall PNG written.

    /usr/bin/python3 apps/sweep_bench.py [--build build] [--rates 2.4e6,20e6]
        [--band 100M:1100M:10k] [--live-seconds 20] [--no-paced] [--memory-minutes 1 10]
        [--json out.json]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

SWEEP = re.compile(r"sweep: (\d+) sweeps.*?, (\d+) hops in ([\d.]+) s \(([\d.]+) hops/s\); device ([\d.]+)%, "
                   r"FFT path ([\d.]+)%")
LIVE = re.compile(r"device: ([\d.]+) s, waiting on the device ([\d.]+)%, FFT path ([\d.]+)%")


def run_measured(exe, args, env):
    """Runs the program; returns (stdout, wall s, CPU s, peak RSS KiB), the last two from wait4()."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([exe] + args + ["--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out, err = proc.stdout.read(), proc.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{exe} {' '.join(args)}: exit {os.waitstatus_to_exitcode(status)}: {err}")
    return out, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))
    p.add_argument("--rates", default="2.4e6,20e6")
    p.add_argument("--band", default="100M:1100M:10k")
    p.add_argument("--live-seconds", type=float, default=20)
    p.add_argument("--no-paced", action="store_true", help="skip the paced (real-time) sweeps")
    p.add_argument("--memory-minutes", type=float, nargs=2, default=[1, 10], help="minutes of signal to compare")
    p.add_argument("--json", help="also write the figures here")
    a = p.parse_args()
    exe = os.path.join(a.build, "apps", "gpufft-spectrum")
    env = dict(os.environ, SOAPY_SDR_PLUGIN_PATH=os.path.join(a.build, "apps", "tests", "soapy_modules"))
    tones = "tones=100.1e6:-30;433.92e6:-50;868.3e6:-40"
    tmp = tempfile.mkdtemp()
    figures = {"band": a.band, "sweeps": [], "machine": os.uname().nodename, "cpus": os.cpu_count(),
               "load_average": os.getloadavg()}

    for rate in [float(r) for r in a.rates.split(",")]:
        for paced in ([0] if a.no_paced else [0, 1]):
            out, wall, cpu, rss = run_measured(exe, ["--device", f"driver=gpufftsim,paced={paced},{tones}", "--rate",
                                                     str(rate), "--sweep", a.band, "--once", "--png",
                                                     os.path.join(tmp, "sweep.png")], env)
            plan = out.splitlines()[1]
            m = SWEEP.search(out)
            figures["sweeps"].append({
                "rate": rate, "paced": bool(paced), "plan": plan, "hops": int(m.group(2)),
                "seconds": float(m.group(3)), "hops_per_s": float(m.group(4)),
                "device_share": float(m.group(5)) / 100, "fft_share": float(m.group(6)) / 100,
                "fft_path_hops_per_s": int(m.group(2)) / (float(m.group(3)) * float(m.group(6)) / 100),
                "cpu_share": cpu / wall, "peak_rss_kib": rss})
            print(json.dumps(figures["sweeps"][-1]), flush=True)

    out, wall, cpu, rss = run_measured(exe, ["--device", f"driver=gpufftsim,paced=1,{tones}", "--rate", "2.4e6",
                                             "--center", "100e6", "--duration", str(a.live_seconds), "--png",
                                             os.path.join(tmp, "live.png")], env)
    m = LIVE.search(out)
    figures["live_2.4MSps"] = {"seconds": wall, "cpu_share": cpu / wall, "device_share": float(m.group(2)) / 100,
                               "fft_share": float(m.group(3)) / 100, "peak_rss_kib": rss}
    print(json.dumps(figures["live_2.4MSps"]), flush=True)

    memory = {}
    for minutes in a.memory_minutes:
        out, wall, cpu, rss = run_measured(exe, ["--device", f"driver=gpufftsim,paced=0,{tones}", "--rate", "2.4e6",
                                                 "--center", "100e6", "--duration", str(60 * minutes), "--png",
                                                 os.path.join(tmp, "mem.png")], env)
        memory[f"{minutes}_min"] = {"peak_rss_kib": rss, "run_seconds": wall}
    figures["memory_unpaced_2.4MSps"] = memory
    print(json.dumps(memory), flush=True)

    if a.json:
        with open(a.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
