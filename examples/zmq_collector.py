#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Collects the spectra of several `gpufft-spectrum --zmq-pub` receivers and
merges them: one wide spectrum over every receiver's band (where bands
overlap, the larger dB value) and a per-receiver table.

    gpufft-spectrum ... --center 100M --name north --zmq-pub tcp://0.0.0.0:5555
    gpufft-spectrum ... --center 433M --name south --zmq-pub tcp://0.0.0.0:5555
    examples/zmq_collector.py tcp://north:5555 tcp://south:5555 --jsonl merged.jsonl

Each message is gr-zeromq's tagged format (docs/receiver.md, "ZeroMQ feed"): the
header and PMT tags are parsed here with the standard library, so that
neither GNU Radio nor pmt is needed; numpy and pyzmq are.

Output: a JSON line per merged spectrum (--jsonl, '-' for standard output)
with the grid (f0_hz, bin_hz), the dB values (null where no receiver
listens) and the receivers merged; the table goes to standard error.
"""

import argparse
import json
import math
import struct
import sys
import time

import numpy as np
import zmq

GR_HEADER_MAGIC = 0x5FF0
GR_HEADER_VERSION = 0x01


def parse_pmt(buf, pos):
    """One serialized PMT (GNU Radio's pmt_serialize.cc) at buf[pos:]; returns (value, next pos)."""
    kind = buf[pos]
    pos += 1
    if kind in (0x00, 0x01):  # true, false
        return kind == 0x00, pos
    if kind == 0x02:  # symbol
        (n,) = struct.unpack_from(">H", buf, pos)
        return buf[pos + 2:pos + 2 + n].decode("utf-8", "replace"), pos + 2 + n
    if kind == 0x03:  # int32
        return struct.unpack_from(">i", buf, pos)[0], pos + 4
    if kind == 0x04:  # double
        return struct.unpack_from(">d", buf, pos)[0], pos + 8
    if kind == 0x06:  # null
        return None, pos
    if kind == 0x0C:  # tuple
        (n,) = struct.unpack_from(">I", buf, pos)
        pos += 4
        items = []
        for _ in range(n):
            item, pos = parse_pmt(buf, pos)
            items.append(item)
        return tuple(items), pos
    if kind == 0x0B:  # uint64
        return struct.unpack_from(">Q", buf, pos)[0], pos + 8
    if kind == 0x0D:  # int64
        return struct.unpack_from(">q", buf, pos)[0], pos + 8
    raise ValueError(f"unsupported PMT type 0x{kind:02x}")


def parse_message(buf):
    """A gr-zeromq message with tags: returns ({key: value} of its tags, float32 bins)."""
    magic, version, _offset, ntags = struct.unpack_from("<HBQQ", buf, 0)
    if magic != GR_HEADER_MAGIC or version != GR_HEADER_VERSION:
        raise ValueError("not a gr-zeromq tagged message (bad magic or version)")
    pos = struct.calcsize("<HBQQ")
    tags = {}
    for _ in range(ntags):
        pos += 8  # the tag's item offset: every tag is on the message's one vector
        key, pos = parse_pmt(buf, pos)
        value, pos = parse_pmt(buf, pos)
        _source, pos = parse_pmt(buf, pos)
        tags[key] = value
    return tags, np.frombuffer(buf, dtype="<f4", offset=pos)


class Receiver:
    """The newest spectrum of one receiver."""

    def __init__(self, tags, db):
        self.name = tags.get("name", "?")
        self.center_hz = tags["rx_freq"]
        self.rate = tags["rx_rate"]
        self.bin_hz = tags["bin_hz"]
        self.f0_hz = tags["f0_hz"]
        seconds, fraction = tags["rx_time"]
        self.time = seconds + fraction
        self.db = db

    def f_hi(self):
        return self.f0_hz + (len(self.db) - 1) * self.bin_hz

    def peak(self):
        k = int(np.argmax(self.db))
        return self.f0_hz + k * self.bin_hz, float(self.db[k])


def merge(receivers, max_bins):
    """One grid over every band: the finest bin width (coarser if it would exceed max_bins); max of dB per cell."""
    f_lo = min(r.f0_hz for r in receivers)
    f_hi = max(r.f_hi() for r in receivers)
    step = max(min(r.bin_hz for r in receivers), (f_hi - f_lo) / max(1, max_bins - 1))
    count = int(math.floor((f_hi - f_lo) / step + 0.5)) + 1
    merged = np.full(count, -np.inf, dtype=np.float32)
    for r in receivers:
        cells = np.rint((r.f0_hz + np.arange(len(r.db)) * r.bin_hz - f_lo) / step).astype(np.int64)
        np.maximum.at(merged, np.clip(cells, 0, count - 1), r.db)
    return f_lo, step, merged


def print_table(receivers, out):
    now = time.time()
    print(f"{'receiver':<16} {'centre Hz':>16} {'rate S/s':>12} {'bin Hz':>10} "
          f"{'peak Hz':>16} {'peak dB':>8} {'age s':>6}", file=out)
    for r in sorted(receivers, key=lambda r: r.center_hz):
        f, db = r.peak()
        print(f"{r.name:<16} {r.center_hz:16.1f} {r.rate:12.1f} {r.bin_hz:10.3f} "
              f"{f:16.1f} {db:8.2f} {now - r.time:6.1f}", file=out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("endpoints", nargs="+", metavar="ENDPOINT", help="a receiver's --zmq-pub, e.g. tcp://host:5555")
    p.add_argument("--receivers", type=int, default=0,
                   help="merge once this many receivers were heard (default: as many as endpoints)")
    p.add_argument("--count", type=int, default=0, help="stop after this many merged spectra (default: never)")
    p.add_argument("--timeout", type=float, default=0,
                   help="stop with status 1 after this many seconds without a message (default: never)")
    p.add_argument("--jsonl", default="-", help="merged spectra as JSON lines ('-': standard output)")
    p.add_argument("--max-bins", type=int, default=1 << 20, help="most cells in a merged spectrum")
    a = p.parse_args(argv)
    wanted = a.receivers or len(a.endpoints)

    context = zmq.Context()
    socket = context.socket(zmq.SUB)
    socket.setsockopt(zmq.SUBSCRIBE, b"")
    for e in a.endpoints:
        socket.connect(e)
    out = sys.stdout if a.jsonl == "-" else open(a.jsonl, "w")
    latest, fresh, merged_count, last_table = {}, set(), 0, 0.0
    try:
        while not a.count or merged_count < a.count:
            if not socket.poll(int(a.timeout * 1000) if a.timeout else None):
                print(f"zmq_collector: nothing for {a.timeout} s (heard: {sorted(latest) or 'none'})",
                      file=sys.stderr)
                return 1
            tags, db = parse_message(socket.recv())
            r = Receiver(tags, db)
            latest[r.name] = r
            fresh.add(r.name)
            # A merged spectrum once every receiver has sent a new one since the last.
            if len(latest) < wanted or fresh != set(latest):
                continue
            fresh.clear()
            f0, step, merged = merge(list(latest.values()), a.max_bins)
            line = {
                "time": max(r.time for r in latest.values()),
                "f0_hz": f0,
                "bin_hz": step,
                "receivers": [{"name": r.name, "center_hz": r.center_hz, "sample_rate": r.rate,
                               "f0_hz": r.f0_hz, "bin_hz": r.bin_hz, "bins": len(r.db), "time": r.time}
                              for r in sorted(latest.values(), key=lambda r: r.center_hz)],
                "db": [round(float(v), 2) if np.isfinite(v) else None for v in merged],
            }
            out.write(json.dumps(line) + "\n")
            out.flush()
            merged_count += 1
            if time.monotonic() - last_table > 2:
                print_table(latest.values(), sys.stderr)
                last_table = time.monotonic()
    except KeyboardInterrupt:
        pass
    finally:
        if out is not sys.stdout:
            out.close()
        socket.close(linger=0)
        context.term()
    return 0


if __name__ == "__main__":
    sys.exit(main())
