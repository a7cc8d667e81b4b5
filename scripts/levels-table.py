#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The -20 dBFS tone of gpufft-spectrum --demo through every output that draws or
writes levels; prints the table of docs/levels.md.

  PYTHONPATH=build/test_modules SOAPY_SDR_PLUGIN_PATH=build/apps/tests/soapy_modules \
      python3 scripts/levels-table.py build/apps/gpufft-spectrum
"""
import os, sys, json, subprocess, tempfile, time, socket
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
import numpy as np
from PyQt5 import Qt
from gnuradio import blocks, gr, zeromq
from gnuradio.fft import logpwrfft
from gnuradio import gpufft

app = Qt.QApplication.instance() or Qt.QApplication(sys.argv)
FS, N, FC = 2.4e6, 2048, 100e6
EXE = sys.argv[1]
demo = gpufft.demo_signal(FS, N)
hz, dbfs = [t for t in demo.tones() if abs(t[1] + 20) < 1e-9][0]
x = demo.generate(64 * N)
b = N // 2 + int(round(hz / (FS / N)))  # shifted bin
rows = []
def mean_db(a):  # the mean of the spectra's powers at the tone's bin
    return 10 * np.log10(np.mean(10 ** (np.asarray(a)[:, b] / 10)))
for scale in ("dbfs", "logpwrfft"):
    s = gpufft.spectrum(N, sample_rate=FS, shift=True, scale=scale)
    rows.append((f"Python gpufft.spectrum(scale={scale!r})", mean_db(np.concatenate([s.push(x), s.flush()]))))
def run_block(blk):
    tb = gr.top_block(); snk = blocks.vector_sink_f(N)
    tb.connect(blocks.vector_source_c(x.tolist()), blk, snk); tb.run()
    return np.array(snk.data()).reshape(-1, N)
for scale in ("dbfs", "logpwrfft"):
    rows.append((f"gpufft.spectrum_c(scale={scale!r})", mean_db(run_block(gpufft.spectrum_c(N, FS, frames_per_output=1, shift=True, scale=scale)))))
rows.append(("GNU Radio logpwrfft_c (blackmanharris)", mean_db(run_block(logpwrfft.logpwrfft_c(FS, N, 2.0, FS / N, 1.0, False, shift=True)))))
# The display sink: the max-hold line's highest pixel on an axis from -19.5 to -20.5 dBFS.
sink = gpufft.display_sink_c(N, FS, FC, "simd", colormap="grey", width=N, height=240, ref_level=-19.5, db_range=1.0)
w = sink.pyqwidget(); w.resize(1000, 700); w.show()
tb = gr.top_block(); tb.connect(blocks.vector_source_c(x.tolist()), sink); tb.run()
end = time.time() + 10
while w.property("frames_drawn") != sink.frames_displayed() and time.time() < end:
    app.processEvents(); time.sleep(0.01)
w.setProperty("show_average", False); app.processEvents()
img = w.grab().toImage().convertToFormat(Qt.QImage.Format_RGB32)
sp = w.property("spectrum_plot")
red = [y for y in range(sp.top(), sp.bottom() + 1) if any(img.pixel(xx, y) & 0xFFFFFF == 0xFF4040 for xx in range(sp.left(), sp.right() + 1))]
rows.append((f"display_sink_c max-hold line (axis '{w.property('level_unit')}')", -19.5 - (red[0] - sp.top() + 0.5) / sp.height()))
# Gone before the QApplication: left to the interpreter's exit, the widget would outlive
# it and crash (exit status 139), as GNU Radio's QT GUI sinks do in a script that keeps them.
del w, sink
# gpufft-spectrum --demo: peaks, CSV, JSON lines; and its ZeroMQ feed.
d = tempfile.mkdtemp()
with socket.socket() as so:
    so.bind(("127.0.0.1", 0)); port = so.getsockname()[1]
addr = f"tcp://127.0.0.1:{port}"
tb = gr.top_block(); src = zeromq.sub_source(gr.sizeof_float, N, addr, 100, True, -1, ""); head = blocks.head(gr.sizeof_float * N, 20); zs = blocks.vector_sink_f(N)
tb.connect(src, head, zs); tb.start(); time.sleep(0.3)
out = subprocess.run([EXE, "--demo", "--png", "none", "--csv", f"{d}/a.csv", "--jsonl", f"{d}/a.jsonl", "--zmq-pub", addr, "--fps", "100"], capture_output=True, text=True).stdout
tb.wait()
peak = [l for l in out.splitlines() if "99400000.000 Hz" in l][0]
rows.append(("gpufft-spectrum --demo peak list", float(peak.split("Hz")[1].split("dBFS")[0])))
csv = [l.split(",") for l in open(f"{d}/a.csv").read().splitlines()]
col = [i for i, v in enumerate(csv[0]) if v == "99400000.000"][0]
rows.append((f"gpufft-spectrum --csv (header '{csv[0][0]}')", 10 * np.log10(np.mean([10 ** (float(r[col]) / 10) for r in csv[1:]]))))
js = [json.loads(l) for l in open(f"{d}/a.jsonl")]
i = int(round((99.4e6 - js[0]["f0_hz"]) / js[0]["df_hz"]))
rows.append((f"gpufft-spectrum --jsonl (db_scale '{js[0]['db_scale']}')", 10 * np.log10(np.mean([10 ** (j["db"][i] / 10) for j in js]))))
z = np.array(zs.data()).reshape(-1, N)
rows.append(("gpufft-spectrum --zmq-pub (db_scale tag)", mean_db(z)))
# --rtl-power from the simulated radio (SOAPY_SDR_PLUGIN_PATH=build/apps/tests/soapy_modules), the same tone.
if os.environ.get("SOAPY_SDR_PLUGIN_PATH"):
    subprocess.run([EXE, "--device", f"driver=gpufftsim,paced=0,format=CF32,noise=-100,tones={FC + hz}:-20",
                    "--rate", str(FS), "--center", str(FC), "--fft", str(N), "--duration", "1", "--rtl-power",
                    f"{d}/a.rtl", "--png", "none", "--quiet"], check=True, capture_output=True)
    cells = [l.split(", ") for l in open(f"{d}/a.rtl").read().splitlines()]
    k = int(round((FC + hz - int(cells[0][2])) / float(cells[0][4])))
    rows.append(("gpufft-spectrum --rtl-power (gpufftsim, CF32)",
                 10 * np.log10(np.mean([10 ** (float(c[6 + k]) / 10) for c in cells]))))
for name, v in rows:
    print(f"| {name} | {v:.2f} |")
