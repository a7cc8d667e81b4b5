#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
Table and plot of a sweep: the device-resident part of a gpufft-bench JSON file
(--device-resident --json, e.g. GPU_STAGES=sweep of gpu-run.sh) as a table
and a PNG plot of speed relative to cuFFT against N.

    /usr/bin/python3 scripts/device/plot_sweep.py BENCH.json [--png ratio.png] [--md table.md]

Ratios are the bench's ratio_vs_anchor (anchor time / engine time, so above 1
is faster than cuFFT). The table says for each N whether its goal holds:
gpufft >= 1.0x cuFFT where N is of the form 2^a 3^b 5^c 7^d (64 and up),
gpufft >= 1.0x VkFFT at every other N. The PNG is written with zlib alone (no matplotlib or gnuplot needed):
log2 N across, ratio up, one colour an engine, Bluestein sizes hollow.
"""

import argparse
import json
import math
import struct
import sys
import zlib

from sweep_sizes import smooth

COLOURS = {"gpufft": (200, 30, 30), "VkFFT": (30, 90, 200), "clFFT": (120, 120, 120)}

# 3x5 glyphs, rows top to bottom, 3 bits a row (4 = left column).
FONT = {
    "0": (7, 5, 5, 5, 7), "1": (2, 6, 2, 2, 7), "2": (7, 1, 7, 4, 7), "3": (7, 1, 7, 1, 7),
    "4": (5, 5, 7, 1, 1), "5": (7, 4, 7, 1, 7), "6": (7, 4, 7, 5, 7), "7": (7, 1, 1, 1, 1),
    "8": (7, 5, 7, 5, 7), "9": (7, 5, 7, 1, 7), ".": (0, 0, 0, 0, 2), "-": (0, 0, 7, 0, 0),
    "^": (2, 5, 0, 0, 0), " ": (0, 0, 0, 0, 0), "/": (1, 1, 2, 4, 4), "X": (5, 5, 2, 5, 5),
    "A": (2, 5, 7, 5, 5), "B": (6, 5, 6, 5, 6), "C": (7, 4, 4, 4, 7), "D": (6, 5, 5, 5, 6),
    "E": (7, 4, 6, 4, 7), "F": (7, 4, 6, 4, 4), "G": (7, 4, 5, 5, 7), "H": (5, 5, 7, 5, 5),
    "I": (7, 2, 2, 2, 7), "K": (5, 5, 6, 5, 5), "L": (4, 4, 4, 4, 7), "M": (5, 7, 7, 5, 5),
    "N": (6, 5, 5, 5, 5), "O": (7, 5, 5, 5, 7), "P": (7, 5, 7, 4, 4), "R": (6, 5, 6, 5, 5),
    "S": (7, 4, 7, 1, 7), "T": (7, 2, 2, 2, 2), "U": (5, 5, 5, 5, 7), "V": (5, 5, 5, 5, 2),
    "W": (5, 5, 7, 7, 5), "Y": (5, 5, 2, 2, 2), "(": (1, 2, 2, 2, 1), ")": (4, 2, 2, 2, 4),
    ">": (4, 2, 1, 2, 4), "=": (0, 7, 0, 7, 0), ",": (0, 0, 0, 2, 4), ":": (0, 2, 0, 2, 0),
}


class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray(b"\xff" * (w * h * 3))

    def set(self, x, y, rgb):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = (y * self.w + x) * 3
            self.px[i:i + 3] = bytes(rgb)

    def line(self, x0, y0, x1, y1, rgb, dash=0):
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for s in range(steps + 1):
            if dash and (s // dash) % 2:
                continue
            self.set(round(x0 + (x1 - x0) * s / steps), round(y0 + (y1 - y0) * s / steps), rgb)

    def marker(self, x, y, rgb, hollow):
        for dy in range(-3, 4):
            for dx in range(-3, 4):
                d = dx * dx + dy * dy
                if d <= 10 and (not hollow or d >= 5):
                    self.set(x + dx, y + dy, rgb)

    def text(self, x, y, s, rgb, scale=2):
        for ch in s.upper():
            for row, bits in enumerate(FONT.get(ch, FONT[" "])):
                for col in range(3):
                    if bits & (4 >> col):
                        for sy in range(scale):
                            for sx in range(scale):
                                self.set(x + col * scale + sx, y + row * scale + sy, rgb)
            x += 4 * scale

    def png(self, path):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3]) for y in range(self.h))

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)) +
                    chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def load(path):
    """{n: {engine: record}} of the status-ok device-resident records."""
    with open(path) as f:
        rows = json.load(f).get("device_resident", [])
    by_n = {}
    for r in rows:
        if r.get("status") == "ok" and r.get("ratio_vs_anchor"):
            by_n.setdefault(r["n"], {})[r["engine"]] = r
    if not by_n:
        sys.exit(f"{path}: no device_resident records with status ok")
    return by_n


def table(by_n):
    lines = ["| N | plan | gpufft / cuFFT | VkFFT / cuFFT | gpufft / VkFFT | goal |",
             "|---:|---|---:|---:|---:|---|"]
    misses = 0
    for n in sorted(by_n):
        e = by_n[n]
        g, v = e.get("gpufft"), e.get("VkFFT")
        if not g:
            continue
        bluestein = "bluestein" in g.get("describe", "")
        rg = g["ratio_vs_anchor"]
        rv = v["ratio_vs_anchor"] if v else None
        if smooth(n) and n >= 64:
            goal, ok = "cuFFT", rg >= 1.0
        else:
            goal, ok = "VkFFT", rv is not None and rg >= rv
        misses += not ok
        plan = "bluestein" if bluestein else g.get("describe", "").split(":")[0]
        lines.append(f"| {n} | {plan} | {rg:.2f} | {'' if rv is None else f'{rv:.2f}'} | "
                     f"{'' if rv is None else f'{rg / rv:.2f}'} | {'ok' if ok else 'MISS'} >= {goal} |")
    lines.append(f"\n{misses} of {len(lines) - 2} sizes miss the goal.")
    return "\n".join(lines)


def plot(by_n, path, title):
    w, h, left, right, top, bottom = 1100, 560, 70, 20, 50, 60
    c = Canvas(w, h)
    ns = sorted(by_n)
    x_lo, x_hi = math.log2(min(ns)) - 0.2, math.log2(max(ns)) + 0.2
    ratios = [r["ratio_vs_anchor"] for e in by_n.values() for name, r in e.items() if name in COLOURS]
    y_lo, y_hi = 0.0, max(1.5, math.ceil(max(ratios + [1.0]) * 4) / 4)

    def px(n, ratio):
        x = left + (math.log2(n) - x_lo) / (x_hi - x_lo) * (w - left - right)
        y = h - bottom - (ratio - y_lo) / (y_hi - y_lo) * (h - top - bottom)
        return round(x), round(y)

    black, grey = (0, 0, 0), (200, 200, 200)
    for k in range(math.ceil(x_lo), math.floor(x_hi) + 1):
        x, _ = px(2 ** k, 0)
        c.line(x, top, x, h - bottom, grey, dash=3)
        c.text(x - 12, h - bottom + 8, f"2^{k}", black)
    q = 0.0
    while q <= y_hi + 1e-9:
        _, y = px(64, q)
        c.line(left, y, w - right, y, (120, 120, 120) if abs(q - 1) < 1e-9 else grey,
               dash=0 if abs(q - 1) < 1e-9 else 3)
        c.text(8, y - 5, f"{q:.2f}", black)
        q += 0.25
    _, y08 = px(64, 0.8)
    c.line(left, y08, w - right, y08, (230, 150, 60), dash=6)
    c.line(left, top, left, h - bottom, black)
    c.line(left, h - bottom, w - right, h - bottom, black)
    for name, rgb in COLOURS.items():
        pts = sorted((n, e[name]) for n, e in by_n.items() if name in e)
        prev = None
        for n, r in pts:
            x, y = px(n, r["ratio_vs_anchor"])
            bluestein = "bluestein" in by_n[n].get("gpufft", {}).get("describe", "")
            c.marker(x, y, rgb, hollow=bluestein)
            if prev and not bluestein:
                c.line(prev[0], prev[1], x, y, tuple(min(255, v + 90) for v in rgb))
            prev = None if bluestein else (x, y)
    c.text(left, 12, title, black)
    lx = w - right - 430
    for i, (name, rgb) in enumerate(COLOURS.items()):
        c.marker(lx + i * 140, 34, rgb, False)
        c.text(lx + i * 140 + 10, 29, f"{name}/CUFFT", rgb)
    c.text(left + 10, h - 22, "N (HOLLOW: BLUESTEIN)   DASHED: 1.0 AND 0.8", black)
    c.png(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json")
    ap.add_argument("--png", help="write the plot here")
    ap.add_argument("--md", help="write the table here (else stdout)")
    a = ap.parse_args()
    by_n = load(a.json)
    text = table(by_n)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    if a.png:
        plot(by_n, a.png, "SPEED VS CUFFT, DEVICE-RESIDENT C2C FORWARD")


if __name__ == "__main__":
    main()
