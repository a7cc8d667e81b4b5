#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""QA for gpufft-spectrum's live outputs, the program in subprocesses:
--serve (the page in headless Chromium: pixels, zoom, hover readout and
controls, two pages with their own views, a phone's width; two clients, a
stalled client, a port in use; hostile origins and Host names, client
limits, a descriptor-starved run) and --zmq-pub (GNU Radio's ZMQ SUB Source with pass_tags,
examples/zmq_collector.py merging two receivers, bad endpoints).

    GPUFFT_SPECTRUM=build/apps/gpufft-spectrum /usr/bin/python3 apps/tests/qa_spectrum_live.py

GPUFFT_SHOTS=DIR keeps the screenshots there. The sanitizer job sets GPUFFT_TEST_BROWSER=0 (no Chromium
pages) and GPUFFT_TEST_TIMING=0 (one round of the stalled client, no time comparison)."""

import base64
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import zlib

import numpy as np
from gnuradio import gr, gr_unittest, blocks, zeromq

EXE = os.environ.get("GPUFFT_SPECTRUM", "gpufft-spectrum")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLLECTOR = os.path.join(ROOT, "examples", "zmq_collector.py")
RATE = 1e6
FFT = 1024
BIN = RATE / FFT  # tones on bin centres: no scalloping, a tone reads its power


def tone_iq(samples, tone_hz, seed, amplitude=0.5, noise=0.01, start=0):
    """cf32 bytes: a complex tone at tone_hz (relative to the centre; or a tone at each of a list) plus
    Gaussian noise."""
    rng = np.random.default_rng(seed)
    n = np.arange(start, start + samples)
    x = sum(amplitude * np.exp(2j * np.pi * f / RATE * n) for f in np.atleast_1d(tone_hz))
    x += noise * (rng.standard_normal(samples) + 1j * rng.standard_normal(samples))
    return x.astype(np.complex64).tobytes()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(hostport, path="/", host=None, extra=""):
    """The raw HTTP/1.1 response to GET path (the server closes the connection); `host` replaces the
    Host header's value, `extra` adds header lines."""
    address, port = hostport.rsplit(":", 1)
    with socket.create_connection((address, int(port)), timeout=10) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host or hostport}\r\n{extra}Connection: close\r\n\r\n".encode())
        response = b""
        while chunk := s.recv(65536):
            response += chunk
            head, _, body = response.partition(b"\r\n\r\n")
            length = re.search(rb"(?i)content-length: *(\d+)", head)
            if length and len(body) >= int(length.group(1)):
                break  # DevTools keeps the connection open
    return response.decode("utf-8", "replace")


def start_served(argv):
    """gpufft-spectrum with argv (which serves the web view, --serve); returns the process and the host:port its
    first lines say it listens on."""
    proc = subprocess.Popen([EXE, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        m = re.search(r"web view on http://([^/]+)/", line)
        if m:
            return proc, m.group(1)
    proc.kill()
    raise AssertionError("no 'web view on' line: " + proc.communicate()[1])


class receiver:
    """gpufft-spectrum reading cf32 from a pipe; feed() writes a tone in real time on a thread."""

    def __init__(self, *args, center=100e6, fps=50):
        self.proc = subprocess.Popen(
            [EXE, "--format", "cf32", "--rate", str(RATE), "--center", str(center), "--fft", str(FFT),
             *(["--fps", str(fps)] if fps else []), "--png", "none", "--quiet", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.url = None
        self.stderr = []
        if any(a.startswith("--serve") for a in args):
            for line in self.proc.stderr:  # the first lines say where it listens
                line = line.decode()
                self.stderr.append(line)
                m = re.search(r"web view on http://([^/]+)/", line)
                if m:
                    self.url = m.group(1)
                    break
            if self.url is None:
                raise AssertionError("no 'web view on' line: " + "".join(self.stderr))
        self.stop_feed = threading.Event()
        self.thread = None

    def feed(self, tone_hz, seconds=None, chunk=20000):
        def run():
            t0, sent = time.monotonic(), 0
            try:
                while not self.stop_feed.is_set() and (seconds is None or sent < seconds * RATE):
                    self.proc.stdin.write(tone_iq(chunk, tone_hz, sent, start=sent))
                    self.proc.stdin.flush()
                    sent += chunk
                    ahead = sent / RATE - (time.monotonic() - t0)
                    if ahead > 0:
                        time.sleep(ahead)
            except (BrokenPipeError, ValueError):
                pass
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def finish(self, timeout=30):
        self.stop_feed.set()
        if self.thread:
            self.thread.join()
        out, err = self.proc.communicate(timeout=timeout)  # closes standard input: the end of the stream
        return self.proc.returncode, out.decode(), "".join(self.stderr) + err.decode()


class ws_client:
    """A minimal WebSocket client (RFC 6455) on a plain socket, so that a test can also stop reading."""

    def __init__(self, hostport, rcvbuf=None, path="/ws", host=None, origin=None):
        address, port = hostport.rsplit(":", 1)
        self.sock = socket.socket()
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(10)
        self.sock.connect((address, int(port)))
        key = base64.b64encode(os.urandom(16)).decode()
        origin = f"Origin: {origin}\r\n" if origin else ""  # a browser's; other clients send none
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host or hostport}\r\n{origin}Upgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        self.close_code = None
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode())
                                  .digest()).decode()
        assert head.startswith(b"HTTP/1.1 101") and accept.encode() in head, head

    def _exact(self, n):
        data = b""
        while len(data) < n:
            got = self.sock.recv(n - len(data))
            if not got:
                raise EOFError("connection closed")
            data += got
        return data

    def message(self):
        """(text, payload) of the next data message (unmasked frames: from a server)."""
        opcode, payload = None, b""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            data = self._exact(n)
            if b0 & 0x0F == 8 and len(data) >= 2:  # a close frame: its status code
                self.close_code = struct.unpack(">H", data[:2])[0]
            if b0 & 0x0F in (0, 1, 2):  # a continuation, text or binary frame
                opcode = opcode or b0 & 0x0F
                payload += data
                if b0 & 0x80:  # FIN
                    return opcode == 1, payload

    def binary(self, magic, within=500):
        """The payload of the next binary message that starts with `magic`, among the next `within` messages."""
        for _ in range(within):
            text, payload = self.message()
            if not text and payload[:4] == magic:
                return payload
        raise AssertionError(f"no {magic} message in {within}")

    def send_text(self, text):
        """One text frame, masked as a client's must be."""
        data, mask = text.encode(), os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def pending(self):
        """How many data messages have arrived, whole or in part, that message() has not read yet."""
        timeout = self.sock.gettimeout()
        self.sock.settimeout(0)  # what is there now, without waiting
        try:
            data = self.sock.recv(1 << 24, socket.MSG_PEEK)
        except BlockingIOError:
            data = b""
        finally:
            self.sock.settimeout(timeout)
        count, pos = 0, 0
        while pos + 2 <= len(data):
            b0, b1 = data[pos], data[pos + 1] & 0x7F
            head = 2 + (2 if b1 == 126 else 8 if b1 == 127 else 0)
            if pos + head > len(data):
                break
            n = b1 if b1 < 126 else struct.unpack_from(">H" if b1 == 126 else ">Q", data, pos + 2)[0]
            count += b0 & 0x0F in (1, 2)  # a text or binary message's (first) frame
            pos += head + n
        return count

    def send_binary(self, n):
        """One binary frame of n zero bytes (masked with zeros, so sent as they are)."""
        head = bytes([0x82, 0x80 | 127]) + struct.pack(">Q", n) + bytes(4)
        self.sock.sendall(head + bytes(n))

    def close(self):
        self.sock.close()


class devtools_session:
    """A DevTools protocol session on a WebSocket (the browser's or a page's)."""

    def __init__(self, hostport, path):
        self.socket = ws_client(hostport, path=path)
        self.socket.sock.settimeout(60)
        self.calls = 0

    def call(self, method, **params):
        """A DevTools command's result (events in between are skipped)."""
        self.calls += 1
        self.socket.send_text(json.dumps({"id": self.calls, "method": method, "params": params}))
        while True:
            reply = json.loads(self.socket.message()[1])
            if reply.get("id") == self.calls:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply["result"]

    def close(self):
        self.socket.close()


class chromium_browser:
    """Headless Chromium driven through the DevTools protocol (--screenshot alone does not wait for
    WebSocket frames). The suite's tests share one (a start is seconds on a loaded machine), and each
    test's pages get a browser context of their own, as fresh as a new profile."""

    def __init__(self, chromium, workdir):
        # Port 0: Chromium takes a free port and writes it, with the browser's DevTools path, to
        # DevToolsActivePort in its profile.
        self.process = subprocess.Popen([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                         "--force-device-scale-factor=1", "--remote-debugging-port=0",
                                         f"--user-data-dir={workdir}", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.session = None
        try:
            active, lines = os.path.join(workdir, "DevToolsActivePort"), []
            deadline = time.monotonic() + 60
            while len(lines) < 2:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise AssertionError("chromium wrote no DevTools port")
                time.sleep(0.1)
                if os.path.exists(active):
                    with open(active) as f:
                        lines = f.read().split()
            self.hostport = f"127.0.0.1:{lines[0]}"
            self.session = devtools_session(self.hostport, lines[1])
        except BaseException:
            self.close()
            raise

    def alive(self):
        return self.process.poll() is None

    def close(self):
        if self.session:
            self.session.close()
        self.process.terminate()
        self.process.wait(timeout=30)


class chromium_page:
    """A page of the browser at `url` in a `width` x `height` window of its own, in a browser
    context of its own."""

    def __init__(self, browser, url, width, height):
        self.browser, self.devtools = browser, None
        self.context = browser.session.call("Target.createBrowserContext")["browserContextId"]
        try:
            target = browser.session.call("Target.createTarget", url=url, width=width, height=height,
                                          newWindow=True, browserContextId=self.context)["targetId"]
            self.devtools = devtools_session(browser.hostport, f"/devtools/page/{target}")
            self.wait_for("document.readyState === 'complete' && typeof received === 'number'")  # the page's script ran
        except BaseException:
            self.close()
            raise

    def call(self, method, **params):
        return self.devtools.call(method, **params)

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (a promise's once it settles)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=60):
        """Polls until the expression is true (a generous bound: a page on a loaded machine)."""
        deadline = time.monotonic() + timeout
        while not self.evaluate(expression):
            if time.monotonic() > deadline:
                raise AssertionError(f"not true within {timeout} s: {expression}")
            time.sleep(0.1)

    def navigate(self, url):
        """Loads another page in this one's place."""
        self.call("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete' && "
                      "typeof received === 'number'")

    def frames_drawn(self, count=3):
        """Waits until `count` more rows have been received and a frame drawn after them."""
        self.wait_for(f"received >= {self.evaluate('received') + count}")
        self.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")

    def phone(self, width, height):
        """The viewport of a phone `width` x `height` CSS pixels (a window is never narrower than 500)."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=True)

    def screenshot(self):
        """The viewport as PNG bytes."""
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def mouse(self, kind, x, y, **more):
        """A mouse event at viewport (x, y): mouseMoved, mousePressed, mouseReleased, mouseWheel."""
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, **more)

    def click(self, element_id):
        """A click at the middle of the element, as a user's."""
        r = self.evaluate(f"(() => {{ const r = document.getElementById('{element_id}').getBoundingClientRect();"
                          " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        self.mouse("mousePressed", *r, button="left", clickCount=1)
        self.mouse("mouseReleased", *r, button="left", clickCount=1)

    def key(self, key):
        """A key press (one that types no text: DevTools' keyDown with a key name)."""
        self.call("Input.dispatchKeyEvent", type="rawKeyDown", key=key)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key)

    def close(self):
        """Closes its window (the browser context's every page)."""
        if self.devtools:
            self.devtools.close()
        if self.browser.alive():
            self.browser.session.call("Target.disposeBrowserContext", browserContextId=self.context)


def page_layout(page):
    """The page's layout constants (CSS pixels), read from its source."""
    return {k: int(re.search(k + r" = (\d+)", page).group(1))
            for k in ("PLOT_LEFT", "PLOT_RIGHT", "TOP", "SPECTRUM_H", "AXIS_H", "BOTTOM", "BAR_GAP", "BAR_W")}


def parse_frame(payload):
    """The binary frame: (columns, index, unix time, {trace: float32 row})."""
    magic, columns, traces, index, t = struct.unpack_from("<4sIIId", payload)
    assert magic == b"GFSP", magic
    rows = np.frombuffer(payload, dtype="<f4", offset=24).reshape(traces, columns)
    return columns, index, t, rows


def parse_window_frame(payload):
    """A client's window's frame: (columns, f_lo_hz, f_hi_hz, {trace: float32 row})."""
    magic, columns, traces, index, t, f_lo, f_hi = struct.unpack_from("<4sIIIddd", payload)
    assert magic == b"GFSV", magic
    return columns, f_lo, f_hi, np.frombuffer(payload, dtype="<f4", offset=40).reshape(traces, columns)


def peaks_above(row, level):
    """The runs of consecutive columns above `level` dB: how many peaks a row shows."""
    above = np.asarray(row) > level
    return int(np.count_nonzero(above[1:] & ~above[:-1]) + above[0])


# Two tones 9 bins apart within one of the band's 2048 columns (16 bins of a
# 32768-point FFT each): one peak at the band's columns, two in a window of a
# few hundred bins, one column a bin.
FINE_FFT = 32768
FINE_BIN = RATE / FINE_FFT
FINE_TONES = ((17603 - FINE_FFT // 2) * FINE_BIN, (17612 - FINE_FFT // 2) * FINE_BIN)  # bins 3 and 12 of column 1100
# Bins 17500 to 17699: their edges, and a window a quarter bin inside them (it touches those bins only).
FINE_EDGES = (100e6 + (17500 - FINE_FFT // 2 - 0.5) * FINE_BIN, 100e6 + (17700 - FINE_FFT // 2 - 0.5) * FINE_BIN)
FINE_VIEW = (FINE_EDGES[0] + FINE_BIN / 4, FINE_EDGES[1] - FINE_BIN / 4)


def parse_histogram(payload):
    """The histogram frame: (index, unix time, H x W uint8 cells, row 0 the lowest dB)."""
    magic, columns, rows, index, t = struct.unpack_from("<4sIIId", payload)
    assert magic == b"GFPH", magic
    return index, t, np.frombuffer(payload, dtype=np.uint8, offset=24).reshape(rows, columns)


def parse_window_histogram(payload):
    """A client's window's histogram: (f_lo_hz, f_hi_hz, H x W uint8 cells, row 0 the lowest dB)."""
    magic, columns, rows, index, t, f_lo, f_hi = struct.unpack_from("<4sIIIddd", payload)
    assert magic == b"GFVH", magic
    return f_lo, f_hi, np.frombuffer(payload, dtype=np.uint8, offset=40).reshape(rows, columns)


def decode_png(data):
    """An 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes) as an H x W x 3 array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(h, 1 + w * bpp)
    out = np.zeros((h, w * bpp), dtype=np.int32)
    prev = np.zeros(w * bpp, dtype=np.int32)
    for y in range(h):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        cur = np.zeros_like(line)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 0xFF
        else:  # sub, average and Paeth depend on the left neighbour: byte by byte
            for i in range(len(line)):
                a = cur[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                if kind == 1:
                    pred = a
                elif kind == 3:
                    pred = (a + b) // 2
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (line[i] + pred) & 0xFF
        out[y], prev = cur, cur
    return out.reshape(h, w, bpp)[:, :, :3]


class qa_spectrum_live(gr_unittest.TestCase):
    browser = None  # the Chromium the page tests share, started by the first

    @classmethod
    def tearDownClass(cls):
        if cls.browser:
            cls.browser.close()
            shutil.rmtree(cls.browser_profile, ignore_errors=True)
            cls.browser = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="qa_spectrum_live_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_page_and_two_clients(self):
        tone = 125 * BIN
        rx = receiver("--serve", "127.0.0.1:0", "--name", "mast")
        rx.feed(tone)
        try:
            page = http_get(rx.url)
            self.assertTrue(page.startswith("HTTP/1.1 200"), page[:100])
            self.assertIn("<canvas", page)
            self.assertNotIn("https://", page)  # nothing from the network
            self.assertTrue(http_get(rx.url, "/nothing").startswith("HTTP/1.1 404"))
            self.assertTrue(http_get(rx.url, "/?min=-100&max=0").startswith("HTTP/1.1 200"))  # the page's options
            clients = [ws_client(rx.url), ws_client(rx.url)]
            for c in clients:
                text, payload = c.message()
                self.assertTrue(text)
                meta = json.loads(payload)
                self.assertEqual(meta["name"], "mast")
                self.assertEqual(meta["center_hz"], 100e6)
                self.assertEqual(meta["sample_rate"], RATE)
                self.assertEqual(meta["fft_size"], FFT)
                self.assertEqual(meta["columns"], FFT)
                self.assertEqual(meta["traces"], ["waterfall", "average", "max_hold"])
                indices = []
                for _ in range(5):
                    columns, index, t, rows = parse_frame(c.binary(b"GFSP"))
                    self.assertEqual(columns, meta["columns"])
                    self.assertLess(abs(t - time.time()), 30)
                    column = (100e6 + tone - meta["f_lo_hz"]) / (meta["f_hi_hz"] - meta["f_lo_hz"]) * columns
                    for trace in rows:  # the tone at its column in every trace, 0 dBFS less 6 dB
                        self.assertLessEqual(abs(int(np.argmax(trace)) - int(column)), 1)
                        self.assertAlmostEqual(float(np.max(trace)), -6.02, delta=1.0)
                    indices.append(index)
                self.assertEqual(indices, sorted(indices))
                # The persistence histogram: the tone's column hits the tone's row in every
                # spectrum (the top code), a noise column spreads over rows.
                h = meta["histogram"]
                # After a few hundred spectra: early on (a spectrum or two) every
                # column's one hit row holds the top code.
                index, t, cells = parse_histogram(c.binary(b"GFPH"))
                while index < 300:
                    index, t, cells = parse_histogram(c.binary(b"GFPH"))
                self.assertEqual(cells.shape, (h["rows"], meta["columns"]))
                self.assertLess(abs(t - time.time()), 30)
                row = int((-6.02 - h["db_min"]) * h["rows"] / (h["db_max"] - h["db_min"]))
                column = int((100e6 + tone - meta["f_lo_hz"]) / (meta["f_hi_hz"] - meta["f_lo_hz"]) * meta["columns"])
                self.assertGreaterEqual(int(cells[row - 1:row + 2, column].max()), 250)
                steady = np.flatnonzero(cells.max(axis=0) >= 250)  # the tone and its window's skirt
                self.assertLessEqual(int(np.max(np.abs(steady - column))), 3, steady)
                self.assertLess(int(np.median(cells.max(axis=0))), 230)
            for c in clients:
                c.close()
        finally:
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)

    def test_client_window(self):
        # A client that asks for a window gets its bins, a column each (up to
        # 2048): two tones that share a column of the band are two peaks, in
        # its rows and in its persistence histogram; a client that asked for
        # nothing keeps the band's columns; malformed messages are ignored;
        # {"view": null} is the band again.
        rx = receiver("--serve", "127.0.0.1:0", "--fft", str(FINE_FFT), fps=None)
        rx.feed(FINE_TONES)
        try:
            zoomed, band = ws_client(rx.url), ws_client(rx.url)
            meta = json.loads(zoomed.message()[1])
            json.loads(band.message()[1])
            self.assertEqual((meta["bins"], meta["columns"]), (FINE_FFT, 2048))
            for junk in ("x", "{}", '{"view":[2,1]}', '{"view":[1,"a"]}', '{"view":1e999}'):
                zoomed.send_text(junk)
            zoomed.send_text(json.dumps({"view": FINE_VIEW}))
            for _ in range(3):
                columns, f_lo, f_hi, rows = parse_window_frame(zoomed.binary(b"GFSV"))
                self.assertEqual(columns, 200)  # bins 17500 to 17699
                self.assertAlmostEqual(f_lo, FINE_EDGES[0], delta=1e-3)
                self.assertAlmostEqual(f_hi, FINE_EDGES[1], delta=1e-3)
                for trace in rows:  # newest, average, max-hold: each tone in its bin, a valley between
                    self.assertEqual(peaks_above(trace, -30), 2, trace)
                    self.assertEqual(sorted(np.argsort(trace)[-2:]), [103, 112])
                    self.assertLess(float(trace[107]), -60)
                columns, _, _, rows = parse_frame(band.binary(b"GFSP"))  # the other client: the band's columns
                self.assertEqual(columns, 2048)
                for trace in rows:
                    self.assertEqual(peaks_above(trace, -30), 1)
                    self.assertEqual(int(np.argmax(trace)), 1100)
            # The window's histogram: its bins, each tone's the top code in the tone's row (every
            # spectrum hits it), the bin between them never near it; the band's: one column for both.
            h = meta["histogram"]
            row = int((-6.02 - h["db_min"]) * h["rows"] / (h["db_max"] - h["db_min"]))
            f_lo, f_hi, cells = parse_window_histogram(zoomed.binary(b"GFVH"))
            self.assertEqual(cells.shape, (h["rows"], 200))
            self.assertAlmostEqual(f_lo, FINE_EDGES[0], delta=1e-3)
            self.assertAlmostEqual(f_hi, FINE_EDGES[1], delta=1e-3)
            self.assertEqual(list(np.flatnonzero(cells[row - 1:row + 2].max(axis=0) >= 250)), [103, 112])
            self.assertEqual(int(cells[row // 2:, 107].max()), 0)
            _, _, cells = parse_histogram(band.binary(b"GFPH"))
            self.assertEqual(cells.shape, (h["rows"], 2048))
            self.assertEqual(list(np.flatnonzero(cells[row - 1:row + 2].max(axis=0) >= 250)), [1100])
            # Four windows have histograms of their own (the lowest first); a fifth gets the band's.
            more = [ws_client(rx.url) for _ in range(4)]
            for k, c in enumerate(more):
                c.send_text(json.dumps({"view": [FINE_VIEW[0] + (k + 1) * FINE_BIN, FINE_VIEW[1]]}))
            for k, c in enumerate(more[:3]):
                self.assertEqual(parse_window_histogram(c.binary(b"GFVH"))[2].shape, (h["rows"], 200 - (k + 1)))
            histograms = [m for m in (more[3].message()[1] for _ in range(100)) if m[:4] in (b"GFPH", b"GFVH")]
            self.assertEqual({m[:4] for m in histograms[-2:]}, {b"GFPH"})
            for c in more:
                c.close()
            zoomed.send_text('{"view":null}')
            self.assertEqual(parse_frame(zoomed.binary(b"GFSP"))[0], 2048)
            zoomed.close()
            band.close()
        finally:
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)

    def test_dc_replace_flagged(self):
        # --dc replace: the metadata names the bins it replaced as the JSON lines do.
        jsonl = os.path.join(self.tmp, "out.jsonl")
        rx = receiver("--serve", "127.0.0.1:0", "--dc", "replace", "--jsonl", jsonl)
        rx.feed(125 * BIN)
        try:
            c = ws_client(rx.url)
            meta = json.loads(c.message()[1])
            c.close()
        finally:
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)
        with open(jsonl) as f:
            line = json.loads(f.readline())
        # blackmanharris: the centre bin and 3 each side
        np.testing.assert_allclose(line["dc_replaced_hz"], [100e6 - 3 * BIN, 100e6 + 3 * BIN], rtol=0, atol=1e-3)
        self.assertEqual(len(meta["dc_replaced_hz"]), 1)
        np.testing.assert_allclose(meta["dc_replaced_hz"][0], line["dc_replaced_hz"], rtol=0, atol=1e-3)
        # A sweep: a run for each hop, its centre bin and 3 each side, within the hop's kept bins.
        proc, url = start_served(["--device", "driver=gpufftsim", "--sweep", "88M:108M:10k", "--dc", "replace",
                                  "--crop", "30%", "--serve", "127.0.0.1:0", "--png", "none", "--quiet"])
        try:
            c = ws_client(url)
            meta = json.loads(c.message()[1])
            c.close()
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=30)
        edges = [meta["f_lo_hz"], *meta["hop_edges_hz"], meta["f_hi_hz"]]
        runs = meta["dc_replaced_hz"]
        self.assertEqual(len(runs), len(edges) - 1)
        for h, ((lo, hi), hop_lo, hop_hi) in enumerate(zip(runs, edges, edges[1:])):
            self.assertAlmostEqual(hi - lo, 6 * meta["bin_hz"], delta=1e-3)
            self.assertTrue(hop_lo < lo < hi < hop_hi, (h, lo, hi, hop_lo, hop_hi))
            if h + 1 < len(runs):  # the last hop's kept bins end with the band
                self.assertAlmostEqual((lo + hi) / 2, (hop_lo + hop_hi) / 2, delta=meta["bin_hz"])
        # Without it, no such member.
        rx = receiver("--serve", "127.0.0.1:0")
        rx.feed(125 * BIN)
        try:
            c = ws_client(rx.url)
            self.assertNotIn("dc_replaced_hz", json.loads(c.message()[1]))
            c.close()
        finally:
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)

    def run_fixed_input(self, block, repeat, clients):
        """A fixed input (`block` `repeat` times) with `clients` ("read" or "stall") attached:
        (seconds from the first byte to the program's exit, messages each client got)."""
        rx = receiver("--serve", "127.0.0.1:0", "--fft", "4096", "--frames", "1", "--format", "cu8", fps=None)
        # A stalled client reads nothing; its small receive buffer soon fills the server's send buffer.
        attached = [(kind, ws_client(rx.url, rcvbuf=4096 if kind == "stall" else None)) for kind in clients]
        time.sleep(0.2)  # the server has them all (it sends nothing before the first spectrum)
        stop = threading.Event()
        received = {}

        def drain(i, c):
            count = 0
            try:
                while not stop.is_set():
                    c.message()
                    count += 1
            except (OSError, EOFError):
                pass
            received[i] = count
        readers = [threading.Thread(target=drain, args=(i, c)) for i, (k, c) in enumerate(attached) if k == "read"]
        for r in readers:
            r.start()

        def write():
            try:
                for _ in range(repeat):
                    rx.proc.stdin.write(block)
                rx.proc.stdin.close()
            except (BrokenPipeError, ValueError):
                pass
        writer = threading.Thread(target=write)
        t0 = time.monotonic()
        writer.start()
        try:
            rx.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            rx.proc.kill()
            self.fail(f"with clients {clients}: the run stalled")
        finally:
            writer.join()
        seconds = time.monotonic() - t0
        stop.set()
        for i, (kind, c) in enumerate(attached):
            if kind == "stall":  # what reached it before the end: it fell behind and lost rows
                c.sock.settimeout(2)
                count = 0
                try:
                    while True:
                        c.message()
                        count += 1
                except (OSError, EOFError):
                    pass
                received[i] = count
        for r in readers:
            r.join()
        for _, c in attached:
            c.close()
        self.assertEqual(rx.proc.returncode, 0, rx.proc.stderr.read().decode())
        return seconds, [received[i] for i in range(len(attached))]

    def test_stalled_client_does_not_slow_capture(self):
        # 256 MB of cu8, a spectrum every 2048 samples (65 k spectra, each
        # into the web output's traces; rows at 60 a second, 24 KB each).
        block = np.random.default_rng(1).integers(0, 256, 1 << 22, dtype=np.uint8).tobytes()
        cases = {"none": [], "stall": ["stall"], "read+read": ["read", "read"],
                 "stall+read+read": ["stall", "read", "read"]}
        runs = {name: [] for name in cases}
        names = list(cases)
        # GPUFFT_TEST_TIMING=0 (the sanitizer job): one round, every mix of clients through the
        # server; the time comparison below is the plain build's.
        timed = os.environ.get("GPUFFT_TEST_TIMING") != "0"
        for r in range(3 if timed else 1):  # rounds of every case, each in another order, so that load hits them alike
            for name in names[r:] + names[:r]:
                clients = cases[name]
                seconds, received = self.run_fixed_input(block, 64, clients)
                runs[name].append(seconds)
                if name == "stall+read+read":  # the stalled one lost rows, the others did not wait for it
                    self.assertLess(received[0], min(received[1:]) / 2, received)
                self.assertTrue(all(n > 10 for n in received), (name, received))
        if not timed:
            return
        times = {name: min(r) for name, r in runs.items()}
        print("\nfixed input, best of 3 (s): " + ", ".join(f"{k} {v:.2f}" for k, v in times.items()),
              file=sys.stderr)
        # A stalled client against the same clients reading: a wait on it
        # (a synchronous fan-out) stalls the run above; a share of the time
        # is kept loose, since readers and other jobs load the 2 cores too.
        for stalled, reading in (("stall", "none"), ("stall+read+read", "read+read")):
            self.assertLess(times[stalled], times[reading] * 1.5 + 1.0, f"{stalled} against {reading}: {times}")

    def test_slow_client_gets_recent_rows(self):
        # A client that reads about 13 messages a second of the 55 sent (rows at 50 a
        # second, histograms at 5) and acknowledges each, as the page does: at
        # most 4 messages are ever waiting for it (not its socket buffers'
        # worth), so what it reads is recent; it is told how many rows it
        # lost, and those and the rows it got are the rows made meanwhile (as
        # a client that keeps up gets them). A client that never acknowledges
        # is the other tests'.
        rx = receiver("--serve", "127.0.0.1:0")
        rx.feed(125 * BIN)
        try:
            fast, slow = ws_client(rx.url), ws_client(rx.url)
            made, fast_lost, stop = [], [0], threading.Event()

            def keep_up():
                while not stop.is_set():
                    text, payload = fast.message()
                    if payload[:4] == b"GFSP":
                        made.append(parse_frame(payload)[1])
                    elif payload[:4] == b"GFDR":
                        fast_lost[0] = struct.unpack_from("<I", payload, 4)[0]
            reader = threading.Thread(target=keep_up, daemon=True)
            reader.start()
            handled, waiting, got, lost = 0, [], [], []  # lost: (rows got before it, count)
            while handled < 40:
                text, payload = slow.message()
                handled += 1
                slow.send_text(json.dumps({"ack": handled}))
                if payload[:4] == b"GFSP":
                    got.append(parse_frame(payload)[1])
                elif payload[:4] == b"GFDR":
                    lost.append((len(got), struct.unpack_from("<I", payload, 4)[0]))
                time.sleep(0.075)
                waiting.append(slow.pending())
            stop.set()
            reader.join(timeout=10)
            fast.close()
            slow.close()
        finally:
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)
        self.assertLessEqual(max(waiting), 4, waiting)
        self.assertGreater(len(got), 20)
        self.assertEqual(got, sorted(got))
        self.assertTrue(lost, "no count of rows lost")
        # Rows made between its 10th row and its last, as the client that kept up got them (and
        # those it lost), against what this one got and lost in between; the queue (4 rows) may
        # hold a row older than the first on either side.
        first, last = got[10], got[-1]
        lost_by = lambda rows: max([n for k, n in lost if k <= rows] or [0])
        between = len([i for i in made if first < i <= last]) + fast_lost[0]
        self.assertAlmostEqual(len(got) - 11 + lost_by(len(got)) - lost_by(11), between, delta=8)

    def test_signal_ends_a_run_with_live_outputs(self):
        # A signal while the input pipe is quiet and a client is connected:
        # the run ends at once with complete outputs, whatever thread the
        # server and libzmq started.
        for sig in (signal.SIGINT, signal.SIGTERM):
            csv = os.path.join(self.tmp, f"spectra{sig}.csv")
            rx = receiver("--serve", "127.0.0.1:0", "--zmq-pub", f"tcp://127.0.0.1:{free_port()}", "--csv", csv)
            rx.feed(125 * BIN, seconds=0.5)
            client = ws_client(rx.url)
            client.message()  # the metadata: spectra are flowing
            rx.thread.join()  # the input stays open, with nothing more to read
            time.sleep(0.3)
            t0 = time.monotonic()
            rx.proc.send_signal(sig)
            rx.proc.wait(timeout=10)
            self.assertLess(time.monotonic() - t0, 5)
            client.close()
            rc, out, err = rx.finish()
            self.assertEqual(rc, 128 + sig, err)
            with open(csv) as f:
                rows = f.read().splitlines()
            self.assertGreater(len(rows), 10)
            self.assertTrue(all(len(r.split(",")) == FFT + 3 for r in rows), "a partial CSV row")  # time_s, utc, center_hz, bins

    def test_overflow_count_on_the_page(self):
        # A simulated radio that drops samples: the page's metadata carries the
        # overflows so far (the page shows them in its status line), sent again
        # whenever the count grows.
        proc, url = start_served(["--device", "driver=gpufftsim,overflow_every=200000", "--rate", "2.4e6",
                                  "--center", "100e6", "--gain", "30", "--duration", "2", "--serve", "127.0.0.1:0", "--png", "none",
                                  "--quiet"])
        try:
            client = ws_client(url)
            counts = []
            while not counts or counts[-1] < 2:
                text, payload = client.message()
                if text:
                    meta = json.loads(payload)
                    self.assertEqual(meta["db_scale"], "tone dBFS")
                    self.assertEqual((meta["gain_db"], meta["agc"]), (30, False))  # as the radio read it back
                    counts.append(meta["overflows"])
                    self.assertGreaterEqual(meta["lost_s"], 0)
            client.close()
            self.assertEqual(counts, sorted(counts))
        finally:
            out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, err)
        self.assertRegex(out, r"overflows: \d+ gaps")

    def test_nonfinite_count_on_the_page(self):
        # A simulated radio whose samples turn NaN: the page's metadata carries
        # the input samples taken as 0 so far, sent again whenever the count grows.
        proc, url = start_served(["--device", "driver=gpufftsim,format=CF32,nan_after=1000000", "--rate", "2.4e6",
                                  "--center", "100e6", "--duration", "2", "--serve", "127.0.0.1:0", "--png", "none",
                                  "--quiet"])
        try:
            client = ws_client(url)
            counts = []
            while not counts or counts[-1] == 0:
                text, payload = client.message()
                if text:
                    counts.append(json.loads(payload)["nonfinite_samples"])
            client.close()
            self.assertEqual(counts, sorted(counts))
        finally:
            out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, err)
        self.assertIn("input samples were NaN or infinite", err)

    def test_port_in_use(self):
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen()
            port = busy.getsockname()[1]
            csv = os.path.join(self.tmp, "out.csv")
            p = subprocess.run([EXE, "--demo", "--serve", f"127.0.0.1:{port}", "--csv", csv,
                                "--png", os.path.join(self.tmp, "w.png")],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn(f"--serve 127.0.0.1:{port}", p.stderr)
        self.assertIn("in use", p.stderr)
        self.assertEqual(os.listdir(self.tmp), [])  # no output, no temporary file
        for bad in ("127.0.0.1:99999", "127.0.0.1:x", "no.such.host.invalid:80"):
            p = subprocess.run([EXE, "--demo", "--serve", bad], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("--serve " + bad, p.stderr)

    def test_non_loopback_warns(self):
        p = subprocess.run([EXE, "--demo", "--png", "none", "--serve", "0.0.0.0:0"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("reachable from the network", p.stderr)
        p = subprocess.run([EXE, "--demo", "--png", "none", "--serve", "0"], capture_output=True, text=True,
                           timeout=60)
        self.assertNotIn("reachable", p.stderr)
        self.assertIn("web view on http://127.0.0.1:", p.stderr)

    def test_origin_and_host(self):
        # Another page the user visits may not open the WebSocket (its Origin
        # is not the web view's own), nor may a page reach the server through
        # a name of its own that resolves to 127.0.0.1 (DNS rebinding: the
        # Host names no name of this server). The page itself, through the
        # names it is reached by, an allowed origin, and a client that is no
        # browser (no Origin) are served.
        allowed = "https://view.example:8443"
        rx = receiver("--serve", "127.0.0.1:0", "--serve-origin", allowed)
        rx.feed(125 * BIN)
        port = rx.url.rsplit(":", 1)[1]
        upgrade = ("Upgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")
        try:
            for origin in ("http://evil.example", "null", f"http://127.0.0.1:{int(port) + 1}",
                           "https://view.example", f"http://{rx.url}.evil.example"):
                reply = http_get(rx.url, "/ws", extra=upgrade + f"Origin: {origin}\r\n")
                self.assertTrue(reply.startswith("HTTP/1.1 403"), (origin, reply[:300]))
                self.assertIn("origin", reply)
            for path, extra in (("/", ""), ("/ws", upgrade + f"Origin: http://rebind.example:{port}\r\n"),
                                ("/ws", upgrade)):
                reply = http_get(rx.url, path, host=f"rebind.example:{port}", extra=extra)
                self.assertTrue(reply.startswith("HTTP/1.1 403"), (path, reply[:300]))
                self.assertIn("rebind.example", reply)
            self.assertTrue(http_get(rx.url, "/", host=f"localhost:{port}").startswith("HTTP/1.1 200"))
            for host, origin in ((rx.url, f"http://{rx.url}"), (f"localhost:{port}", f"http://localhost:{port}"),
                                 ("view.example:8443", allowed), (rx.url, None)):
                c = ws_client(rx.url, host=host, origin=origin)
                text, meta = c.message()
                self.assertTrue(text, (host, origin))
                self.assertEqual(json.loads(meta)["sample_rate"], RATE)
                c.close()
        finally:
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)
        for args, word in ((["--serve", "0", "--serve-origin", "view.example"], "--serve-origin view.example"),
                           (["--serve", "0", "--serve-origin", "ftp://view.example"], "--serve-origin ftp://"),
                           (["--serve-origin", allowed], "--serve-origin needs --serve")):
            p = subprocess.run([EXE, "--demo", "--png", "none", *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(word, p.stderr)

    def test_client_limits(self):
        # The page sends nothing: a client's message of more than a few bytes
        # closes it (1009, too big) without the server keeping it; 32
        # WebSockets at once, the next refused with 503 until one goes; the
        # server's memory stays flat under clients sending 8 MB messages.
        rx = receiver("--serve", "127.0.0.1:0")
        rx.feed(125 * BIN)

        def rss_kb():
            with open(f"/proc/{rx.proc.pid}/status") as f:
                return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

        def closed(c):
            """True once the server closed `c` (within the next 1000 messages)."""
            try:
                for _ in range(1000):
                    c.message()
            except (OSError, EOFError):
                return True
            return False
        try:
            c = ws_client(rx.url)
            c.message()
            c.send_text("x" * 100)
            self.assertTrue(closed(c), "a 100-byte message was taken")
            self.assertEqual(c.close_code, 1009)
            c.close()
            before = rss_kb()
            senders = [ws_client(rx.url) for _ in range(20)]
            for c in senders:
                try:
                    c.send_binary(8 << 20)
                except OSError:
                    pass  # closed on the frame's header
            for c in senders:
                self.assertTrue(closed(c), "an 8 MB message was taken")
                c.close()
            grown = rss_kb() - before  # kept, the messages alone would be 160 MB
            self.assertLess(grown, 80000, f"{grown} kB more after 20 clients sent 8 MB each")
            clients = []
            for _ in range(200):  # the closed ones above may take a moment to go
                try:
                    clients.append(ws_client(rx.url))
                except AssertionError:
                    time.sleep(0.1)
                if len(clients) == 32:
                    break
            self.assertEqual(len(clients), 32)
            reply = http_get(rx.url, "/ws", extra="Upgrade: websocket\r\nConnection: Upgrade\r\n"
                             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")
            self.assertTrue(reply.startswith("HTTP/1.1 503"), reply[:300])
            self.assertIn("too many clients", reply)
            clients.pop().close()
            for _ in range(100):  # the server notices the close, then has room for one
                try:
                    clients.append(ws_client(rx.url))
                    break
                except AssertionError:
                    time.sleep(0.1)
            self.assertEqual(len(clients), 32)
            self.assertTrue(clients[-1].message()[0])
            for c in clients:
                c.close()
        finally:
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)

    def test_descriptor_starved(self):
        # 64 descriptors and 100 idle connections (each would hold one for
        # 30 s): the server keeps to what the limit leaves, and the run still
        # writes its PNG and recording at the end.
        import resource
        png, record = os.path.join(self.tmp, "starved.png"), os.path.join(self.tmp, "starved")
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        starved = subprocess.Popen(
            [EXE, "--format", "cf32", "--rate", str(RATE), "--center", "0", "--fft", str(FFT), "--png", png,
             "--record", record, "--quiet", "--serve", "127.0.0.1:0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard)))
        line = starved.stderr.readline().decode()
        url = re.search(r"web view on http://([^/]+)/", line).group(1)
        address, port = url.rsplit(":", 1)
        idle = []
        try:
            starved.stdin.write(tone_iq(100000, 125 * BIN, 1))
            starved.stdin.flush()
            for _ in range(100):
                try:
                    idle.append(socket.create_connection((address, int(port)), timeout=10))
                except OSError:
                    break
            try:
                http_get(url)  # answered or refused: the server has come to it past the idle ones
            except OSError:
                pass
            out, err = starved.communicate(tone_iq(100000, 125 * BIN, 2, start=100000), timeout=60)
        finally:
            for s in idle:
                s.close()
        self.assertEqual(starved.returncode, 0, err.decode())
        with open(png, "rb") as f:
            self.assertEqual(decode_png(f.read()).shape[2], 3)
        with open(record + ".sigmf-meta") as f:
            self.assertEqual(json.load(f)["global"]["core:datatype"], "cf32_le")

    def chromium(self):
        # GPUFFT_TEST_BROWSER=0 (the sanitizer job): the page's drawing is
        # checked in the plain build; the server's code under a client's
        # traffic is the WebSocket tests' here.
        if os.environ.get("GPUFFT_TEST_BROWSER") == "0":
            self.skipTest("GPUFFT_TEST_BROWSER=0")
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            self.skipTest("no chromium")
        cls = type(self)
        if cls.browser and not cls.browser.alive():  # one that died fails its own test, not the next ones
            self.tearDownClass()
        if not cls.browser:
            cls.browser_profile = tempfile.mkdtemp(prefix="qa_spectrum_live_chromium_")
            cls.browser = chromium_browser(chromium, cls.browser_profile)
        return cls.browser

    def shot(self, name, png):
        """Keeps a screenshot where GPUFFT_SHOTS says; returns it decoded."""
        if os.environ.get("GPUFFT_SHOTS"):
            with open(os.path.join(os.environ["GPUFFT_SHOTS"], name), "wb") as f:
                f.write(png)
        return decode_png(png)

    def test_page_in_chromium(self):
        browser = self.chromium()
        tone = 256 * BIN  # at 3/4 of the band
        rx = receiver("--serve", "127.0.0.1:0")
        rx.feed(tone)
        try:
            L = page_layout(http_get(rx.url))
            width, height = 1000, 700
            page = chromium_page(browser, f"http://{rx.url}/", width, height)
            try:
                page.frames_drawn(50)
                png = page.screenshot()
                canvas = page.evaluate("[view.offsetLeft, view.offsetTop, view.clientWidth, view.clientHeight]")
                # The histogram alone (no lines over it).
                page.navigate(f"http://{rx.url}/?traces=none")
                page.frames_drawn(50)
                histogram_png = page.screenshot()
            finally:
                page.close()
        finally:
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)
        img = self.shot("page.png", png)
        left, top, canvas_w, canvas_h = canvas
        self.assertEqual(left, 0)
        self.assertGreater(canvas_h, 400)
        self.assertEqual(top + canvas_h, img.shape[0])  # the canvas fills the viewport below the controls
        plot_w = canvas_w - L["PLOT_LEFT"] - L["PLOT_RIGHT"]
        wf_top = top + L["TOP"] + L["SPECTRUM_H"] + L["AXIS_H"]
        waterfall = img[wf_top:top + canvas_h - L["BOTTOM"], L["PLOT_LEFT"]:L["PLOT_LEFT"] + plot_w]
        drawn = waterfall[waterfall.any(axis=(1, 2))]  # rows with a spectrum: viridis is never black
        self.assertGreater(len(drawn), 50)
        waterfall = drawn
        # Brightness (viridis: yellow is high) per column over the newest rows.
        brightness = waterfall.sum(axis=2).mean(axis=0)
        f_lo = 100e6 - RATE / 2 - RATE / FFT / 2  # the left edge of bin 0 (N even: bin 0 is -fs/2)
        expected = (100e6 + tone - f_lo) / RATE * plot_w
        found = int(np.argmax(brightness))
        self.assertLessEqual(abs(found - expected), 3, (found, expected))
        noise = np.median(brightness)
        self.assertGreater(brightness[found], noise + 150, (brightness[found], noise))
        # Drawn rows, not a blank or poisoned canvas: the noise columns are dark but coloured (viridis' low end).
        self.assertGreater(noise, 50)
        self.assertLess(noise, 400)
        # The colour bar right of the waterfall: viridis from its top (yellow) to its bottom (purple).
        bar_x = L["PLOT_LEFT"] + plot_w + L["BAR_GAP"] + L["BAR_W"] // 2
        bar_h = min(600, canvas_h - (wf_top - top) - L["BOTTOM"])
        self.assertLess(np.abs(img[wf_top + 1, bar_x] - [253, 231, 37]).max(), 12, img[wf_top + 1, bar_x])
        self.assertLess(np.abs(img[wf_top + bar_h - 2, bar_x] - [68, 1, 84]).max(), 12, img[wf_top + bar_h - 2, bar_x])
        # The persistence histogram in the spectrum area: in its upper half (the noise
        # floor is in the lower), the only bright cells, viridis' yellow end (a line
        # would be white, blue or red), are in the tone's column; the noise columns
        # are coloured too.
        img = self.shot("page_histogram.png", histogram_png).astype(int)
        spectrum = img[top + L["TOP"] + 1:top + L["TOP"] + L["SPECTRUM_H"] - 1,
                       L["PLOT_LEFT"]:L["PLOT_LEFT"] + plot_w]
        upper = spectrum[:len(spectrum) // 2]
        yellow = (upper[..., 0] > 200) & (upper[..., 1] > 180) & (upper[..., 2] < 100)
        columns = np.flatnonzero(yellow.any(axis=0))
        self.assertGreater(len(columns), 0, "no bright histogram cell")
        self.assertLessEqual(int(np.max(np.abs(columns - expected))), 3, (columns, expected))
        self.assertGreater(np.median(spectrum.sum(axis=2).max(axis=0)), 150)  # viridis is never near black

    def check_view(self, img, L, canvas, view, tone_hz, tone_db, floor_db):
        """A screenshot of the page on the fixed range 0 to -100 dBFS showing `view` (lo, hi Hz): the
        newest spectrum (white) peaks at the tone's column and level and lies on the noise floor
        elsewhere, and the waterfall is brightest in the tone's column."""
        left, top, canvas_w, canvas_h = canvas
        plot_w = canvas_w - L["PLOT_LEFT"] - L["PLOT_RIGHT"]
        x0, y0 = left + L["PLOT_LEFT"], top + L["TOP"]
        x = x0 + (tone_hz - view[0]) / (view[1] - view[0]) * plot_w
        y_of = lambda db: y0 + L["SPECTRUM_H"] * (0 - db) / 100
        spectrum = img[y0:y0 + L["SPECTRUM_H"], x0:x0 + plot_w].astype(int)
        # The white line's pixels: a 1-pixel line between two pixel rows lights each
        # partly, so a column's brightest line pixel can be a light grey; the other
        # lines and the histogram have a dark channel (red 80, cyan 64, viridis 96 at most).
        white = spectrum.min(axis=2) > 150
        near = white[:, int(x - x0) - 2:int(x - x0) + 3]
        self.assertTrue(near.any(), "no line at the tone's column")
        peak_y = y0 + int(np.flatnonzero(near.any(axis=1))[0])
        self.assertLessEqual(abs(peak_y - y_of(tone_db)), 3, (peak_y, y_of(tone_db), tone_db))
        self.assertTrue(white.any(axis=0)[int(x - x0) - 2:int(x - x0) + 3].any())
        tops = np.flatnonzero(white.any(axis=0)) + x0
        top_rows = [y0 + int(np.flatnonzero(white[:, c - x0])[0]) for c in tops]
        self.assertEqual(min(top_rows), peak_y, "the tone is not the highest point")
        away = [c for c in range(plot_w) if abs(c - (x - x0)) > 30 and white[:, c].any()]
        self.assertGreater(len(away), plot_w // 2, "no line over the noise")
        floor_y = np.median([y0 + np.flatnonzero(white[:, c]).mean() for c in away])
        self.assertLessEqual(abs(floor_y - y_of(floor_db)), 3, (floor_y, y_of(floor_db), floor_db))
        wf_top = y0 + L["SPECTRUM_H"] + L["AXIS_H"]
        brightness = img[wf_top:wf_top + 50, x0:x0 + plot_w].sum(axis=2).mean(axis=0)
        self.assertLessEqual(abs(x0 + int(np.argmax(brightness)) - x), 3, (int(np.argmax(brightness)), x))
        return x

    def test_view_controls_in_chromium(self):
        # Zoom, hover readout, pause, max-hold reset and range on one page,
        # checked at the pixels where the tone and the noise floor must land
        # and against what the JSON feed says.
        browser = self.chromium()
        tone_offset = 128 * BIN  # at 5/8 of the band: at 3/4 of the plot once zoomed in twice about the centre
        tone_hz = 100e6 + tone_offset
        rx = receiver("--serve", "127.0.0.1:0")
        rx.feed(tone_offset)
        try:
            L = page_layout(http_get(rx.url))
            feed = ws_client(rx.url)
            meta = json.loads(feed.message()[1])
            band = (meta["f_lo_hz"], meta["f_hi_hz"])
            column = int((tone_hz - band[0]) / (band[1] - band[0]) * meta["columns"])

            def levels():
                """The JSON feed's newest row: the tone's level and the median (the floor)."""
                _, _, _, rows = parse_frame(feed.binary(b"GFSP"))
                return float(rows[0][column]), float(np.median(rows[0]))
            page = chromium_page(browser, f"http://{rx.url}/?min=-100&max=0", 1000, 700)
            try:
                page.frames_drawn(50)
                canvas = page.evaluate("[view.offsetLeft, view.offsetTop, view.clientWidth, view.clientHeight]")
                tone_db, floor_db = levels()
                self.assertAlmostEqual(tone_db, -6.02, delta=0.5)
                img = self.shot("view_full.png", page.screenshot())
                self.check_view(img, L, canvas, band, tone_hz, tone_db, floor_db)
                # Zoomed in twice about the middle with the button.
                page.click("zoom-in")
                middle, half = (band[0] + band[1]) / 2, (band[1] - band[0]) / 4
                zoomed = (middle - half, middle + half)
                page.wait_for("location.search.includes('f=')")
                np.testing.assert_allclose(page.evaluate("[shown().lo, shown().hi]"), zoomed, rtol=0, atol=1)
                page.frames_drawn()
                img = self.shot("view_zoomed.png", page.screenshot())
                x = self.check_view(img, L, canvas, zoomed, tone_hz, tone_db, floor_db)
                plot_w = canvas[2] - L["PLOT_LEFT"] - L["PLOT_RIGHT"]
                self.assertAlmostEqual(x, canvas[0] + L["PLOT_LEFT"] + 0.75 * plot_w, delta=1)

                def hover(x, y):
                    page.mouse("mouseMoved", x, y)
                    page.frames_drawn(1)
                    text = page.evaluate("document.getElementById('readout').textContent")
                    m = re.match(r"(-?[\d.]+) (k|M|G)?Hz +(-?[\d.]+) dBFS", text)
                    self.assertTrue(m, text)
                    return float(m.group(1)) * {"k": 1e3, "M": 1e6, "G": 1e9, None: 1}[m.group(2)], \
                        float(m.group(3)), text
                # The readout at the tone's x: its frequency within a bin, its level within 0.5 dB of the feed's.
                spectrum_y = canvas[1] + L["TOP"] + L["SPECTRUM_H"] / 2
                f, db, text = hover(x, spectrum_y)
                self.assertLessEqual(abs(f - tone_hz), BIN, text)
                self.assertLess(abs(db - levels()[0]), 0.5, text)
                # On the waterfall: the row's level and UTC time.
                f, db, text = hover(x, canvas[1] + L["TOP"] + L["SPECTRUM_H"] + L["AXIS_H"] + 5.5)
                self.assertLessEqual(abs(f - tone_hz), BIN, text)
                self.assertLess(abs(db - levels()[0]), 0.5, text)
                stamp = re.search(r"(\d\d):(\d\d):(\d\d\.\d{3}) UTC$", text)
                self.assertTrue(stamp, text)
                now = time.gmtime()
                ago = (now.tm_hour * 3600 + now.tm_min * 60 + now.tm_sec) - \
                    (int(stamp.group(1)) * 3600 + int(stamp.group(2)) * 60 + float(stamp.group(3)))
                self.assertLess(abs((ago + 43200) % 86400 - 43200), 30, text)
                # The wheel zooms about the pointer: the tone stays under it, the view halves.
                page.mouse("mouseWheel", x, spectrum_y, deltaX=0, deltaY=-200)
                page.wait_for(f"shown().hi - shown().lo < {(zoomed[1] - zoomed[0]) * 0.51}")
                lo, hi = page.evaluate("[shown().lo, shown().hi]")
                self.assertAlmostEqual(hi - lo, (zoomed[1] - zoomed[0]) / 2, delta=1)
                self.assertLessEqual(abs(hover(x, spectrum_y)[0] - tone_hz), BIN)
                # A drag pans: the band moves with the pointer.
                page.mouse("mousePressed", x, spectrum_y, button="left", clickCount=1)
                page.mouse("mouseMoved", x - 100, spectrum_y, button="left", buttons=1)
                page.mouse("mouseReleased", x - 100, spectrum_y, button="left", clickCount=1)
                self.assertLessEqual(abs(hover(x - 100, spectrum_y)[0] - tone_hz), BIN)
                # Keys: 0 for the whole band.
                page.key("0")
                self.assertEqual(page.evaluate("[shown().lo, shown().hi, location.search.includes('f=')]"),
                                 [band[0], band[1], False])
                # Pause: no row is taken until resumed.
                page.click("pause")
                paused_at = page.evaluate("lastTime")
                time.sleep(0.5)
                self.assertEqual(page.evaluate("lastTime"), paused_at)
                page.click("pause")
                page.wait_for(f"lastTime > {paused_at}")
                # A page that falls behind (its script busy for 1.5 s: 75 spectra) acknowledges
                # nothing meanwhile, so the server skips rows for it; it says how many.
                page.evaluate("(() => { const t = performance.now(); while (performance.now() - t < 1500); })()")
                page.wait_for("skipped > 0")
                page.wait_for("document.getElementById('status').textContent.includes(skipped + ' rows skipped')")
                self.assertGreater(page.evaluate("handled"), 50)
                # Max-hold reset: the page's own from then on.
                page.key("m")
                self.assertTrue(page.evaluate("maxHold !== null"))
                page.wait_for("document.getElementById('status').textContent.includes('max-hold since')")  # drawn
                # Averaging: off takes the average trace away.
                page.evaluate("document.getElementById('avg').value = 'off';"
                              "document.getElementById('avg').dispatchEvent(new Event('change'))")
                self.assertIsNone(page.evaluate("shownTraces().average"))
                # Range: ref -20 dBFS and 60 dB span as typed into the controls; the tone's
                # column reads the new scale (above it: at the top).
                page.evaluate("document.getElementById('ref').value = -20;"
                              "document.getElementById('span').value = 60;"
                              "document.getElementById('span').dispatchEvent(new Event('change'))")
                self.assertEqual(page.evaluate("range()"), [-80, -20])
                self.assertEqual(page.evaluate("document.getElementById('auto').getAttribute('aria-pressed')"),
                                 "false")
            finally:
                page.close()
            feed.close()
        finally:
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)

    def test_band_edges_in_chromium(self):
        # A sweep of the simulated radio: the page marks each edge between
        # hops (the metadata's hop_edges_hz) with a line where it maps.
        browser = self.chromium()
        proc, url = start_served(["--device", "driver=gpufftsim,tones=100.1e6:-30", "--sweep", "88M:108M:10k",
                                  "--serve", "127.0.0.1:0", "--png", "none", "--quiet"])
        try:
            L = page_layout(http_get(url))
            feed = ws_client(url)
            meta = json.loads(feed.message()[1])
            feed.close()
            edges = np.array(meta["hop_edges_hz"])
            self.assertGreater(len(edges), 5)
            page = chromium_page(browser, f"http://{url}/", 1000, 700)
            try:
                page.frames_drawn(2)
                canvas = page.evaluate("[view.offsetLeft, view.offsetTop, view.clientWidth, view.clientHeight]")
                img = self.shot("band_edges.png", page.screenshot()).astype(int)
            finally:
                page.close()
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=30)
        plot_w = canvas[2] - L["PLOT_LEFT"] - L["PLOT_RIGHT"]
        x0, y0 = canvas[0] + L["PLOT_LEFT"], canvas[1] + L["TOP"]
        spectrum = img[y0 + 1:y0 + L["SPECTRUM_H"] - 1, x0:x0 + plot_w]
        orange = (spectrum[..., 0] > 200) & (spectrum[..., 1] > 120) & (spectrum[..., 1] < 200) & \
            (spectrum[..., 2] < 60)
        columns = np.flatnonzero(orange.sum(axis=0) > L["SPECTRUM_H"] // 4)  # dashed: half the rows
        expected = (edges - meta["f_lo_hz"]) / (meta["f_hi_hz"] - meta["f_lo_hz"]) * plot_w
        self.assertEqual(len(columns), len(edges), (columns, expected))
        self.assertLessEqual(float(np.max(np.abs(columns - expected))), 1, (columns, expected))

    def test_two_views_in_chromium(self):
        # Two clients at once, each zoomed its own way, one of them 400 px
        # wide: each draws the tone where its own view puts it; the narrow one
        # has no horizontal scroll; a key on one leaves the other's view.
        browser = self.chromium()
        tone_offset = 128 * BIN
        tone_hz = 100e6 + tone_offset
        rx = receiver("--serve", "127.0.0.1:0")
        rx.feed(tone_offset)
        pages = []
        try:
            L = page_layout(http_get(rx.url))
            feed = ws_client(rx.url)
            meta = json.loads(feed.message()[1])
            column = int((tone_hz - meta["f_lo_hz"]) / (meta["f_hi_hz"] - meta["f_lo_hz"]) * meta["columns"])
            _, _, _, rows = parse_frame(feed.binary(b"GFSP"))
            tone_db, floor_db = float(rows[0][column]), float(np.median(rows[0]))
            feed.close()
            views = ((100e6, 100.25e6), (99.95e6, 100.3e6))
            for i, (view, width) in enumerate(zip(views, (1000, 400))):
                pages.append(chromium_page(browser, f"http://{rx.url}/?min=-100&max=0&f={view[0]:.0f}:{view[1]:.0f}",
                                           max(width, 500), 700))
                if width < 500:
                    pages[-1].phone(width, 700)
            for i, (page, view) in enumerate(zip(pages, views)):
                page.frames_drawn(50)
                canvas = page.evaluate("[view.offsetLeft, view.offsetTop, view.clientWidth, view.clientHeight]")
                img = self.shot(f"view_client{i}.png", page.screenshot())
                self.check_view(img, L, canvas, view, tone_hz, tone_db, floor_db)
            narrow = pages[1]
            self.assertEqual(narrow.evaluate("innerWidth"), 400)
            self.assertTrue(narrow.evaluate("document.querySelector('meta[name=viewport]') !== null"))
            self.assertLessEqual(narrow.evaluate("document.documentElement.scrollWidth"), 400)
            self.assertLessEqual(narrow.evaluate("Math.max(...[...document.querySelectorAll('#bar *')]"
                                                 ".map((e) => e.getBoundingClientRect().right))"), 400)
            pages[0].key("0")
            self.assertEqual(pages[0].evaluate("[shown().lo, shown().hi]"), [meta["f_lo_hz"], meta["f_hi_hz"]])
            self.assertEqual(narrow.evaluate("[shown().lo, shown().hi]"), list(views[1]))
        finally:
            for page in pages:
                page.close()
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)


    def test_zoom_resolves_bins_in_chromium(self):
        # Zoomed to 200 bins (narrower than the band's 2048 columns of 16
        # bins), the page's rows and its persistence histogram are those
        # bins: two tones that are one peak at the whole band are two, and
        # two separate lit histogram columns; the other page, on the whole
        # band, keeps its columns. Then the zoomed page's + key zooms it
        # further: its rows follow, the other's stay.
        chromium = self.chromium()
        rx = receiver("--serve", "127.0.0.1:0", "--fft", str(FINE_FFT), fps=None)
        rx.feed(FINE_TONES)
        pages = []
        data = "[win.lo, win.hi, win.cols, Array.from(traces.waterfall), Array.from(traces.max_hold)]"
        try:
            L = page_layout(http_get(rx.url))
            # The zoomed page draws the histogram alone, on 0 to -100 dBFS.
            for query in (f"?f={FINE_VIEW[0]:.3f}:{FINE_VIEW[1]:.3f}&traces=none&min=-100&max=0", ""):
                pages.append(chromium_page(chromium, f"http://{rx.url}/{query}", 1000, 700))
            zoomed, whole = pages
            zoomed.wait_for("win !== null && win.cols === 200 && histWin !== null && histWin.cols === 200")
            zoomed.frames_drawn(3)
            canvas = zoomed.evaluate("[view.offsetLeft, view.offsetTop, view.clientWidth, view.clientHeight]")
            img = self.shot("zoom_bins.png", zoomed.screenshot()).astype(int)
            # Above -50 dBFS only the tones' bins and their window's skirt (3 bins each side) are
            # hit, every spectrum in the same cell: viridis' yellow end, in two runs of columns
            # about the tones' bins (103 and 112 of the 200), dark at the two bins between.
            plot_w = canvas[2] - L["PLOT_LEFT"] - L["PLOT_RIGHT"]
            x0, y0 = canvas[0] + L["PLOT_LEFT"], canvas[1] + L["TOP"]
            upper = img[y0 + 1:y0 + L["SPECTRUM_H"] // 2, x0:x0 + plot_w]
            lit = ((upper[..., 0] > 200) & (upper[..., 1] > 180) & (upper[..., 2] < 100)).any(axis=0)
            x_of = lambda b: (b + 0.5) / 200 * plot_w
            self.assertEqual(peaks_above(lit, 0.5), 2, np.flatnonzero(lit))
            for b in (103, 112):
                self.assertTrue(lit[int(x_of(b))], (b, np.flatnonzero(lit)))
            self.assertFalse(lit[int(x_of(107)):int(x_of(108)) + 1].any(), np.flatnonzero(lit))
            lo, hi, cols, row, held = zoomed.evaluate(data)
            self.assertAlmostEqual(lo, FINE_EDGES[0], delta=1e-3)
            self.assertAlmostEqual(hi, FINE_EDGES[1], delta=1e-3)
            for trace in (row, held):
                self.assertEqual(peaks_above(trace, -30), 2, trace)
                self.assertEqual(sorted(np.argsort(trace)[-2:]), [103, 112])
            whole.frames_drawn(3)
            meta = whole.evaluate("meta")
            lo, hi, cols, row, held = whole.evaluate(data)
            self.assertEqual([lo, hi, cols], [meta["f_lo_hz"], meta["f_hi_hz"], 2048])
            for trace in (row, held):
                self.assertEqual(peaks_above(trace, -30), 1, trace)
                self.assertEqual(int(np.argmax(trace)), 1100)
            zoomed.key("+")  # 100 bins about the middle
            zoomed.wait_for("win.cols === 100")
            self.assertEqual(whole.evaluate("[win.cols, shown().lo, shown().hi]"), [2048, meta["f_lo_hz"], meta["f_hi_hz"]])
            whole.frames_drawn(3)
            self.assertEqual(whole.evaluate("win.cols"), 2048)
        finally:
            for page in pages:
                page.close()
            rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)


class qa_spectrum_zmq(gr_unittest.TestCase):

    def test_gnuradio_sub_source(self):
        tone, center = -204 * BIN, 433.92e6
        address = f"tcp://127.0.0.1:{free_port()}"
        rx = receiver("--zmq-pub", address, "--name", "north", "--dc", "replace", center=center)
        tb = gr.top_block()
        src = zeromq.sub_source(gr.sizeof_float, FFT, address, 100, True, -1, "")
        head = blocks.head(gr.sizeof_float * FFT, 20)
        sink = blocks.vector_sink_f(FFT)
        tb.connect(src, head, sink)
        tb.start()
        time.sleep(0.3)  # the subscription reaches the publisher before the spectra start
        rx.feed(tone)
        tb.wait()
        rc, out, err = rx.finish()
        self.assertEqual(rc, 0, err)
        data = np.array(sink.data()).reshape(-1, FFT)
        self.assertEqual(len(data), 20)
        bin_hz = RATE / FFT
        for v in data:
            self.assertEqual(int(np.argmax(v)), FFT // 2 + round(tone / bin_hz))
            self.assertAlmostEqual(float(np.max(v)), -6.02, delta=0.05)  # dBFS, as every output reads it
        tags = {}
        for t in sink.tags():
            tags.setdefault(gr.pmt.symbol_to_string(t.key), []).append((t.offset, t.value))
        self.assertEqual(sorted(tags), ["bin_hz", "db_scale", "dc_replaced_hz", "f0_hz", "fft_size", "name", "rx_freq",
                                        "rx_rate", "rx_time"])
        for key, values in tags.items():
            self.assertEqual([o for o, _ in values], list(range(20)), key)  # one of each on every vector
        pmt = gr.pmt
        self.assertEqual(pmt.to_double(tags["rx_freq"][0][1]), center)
        self.assertEqual(pmt.to_double(tags["rx_rate"][0][1]), RATE)
        self.assertEqual(pmt.to_double(tags["bin_hz"][0][1]), bin_hz)
        self.assertEqual(pmt.to_double(tags["f0_hz"][0][1]), center - RATE / 2)
        self.assertEqual(pmt.to_uint64(tags["fft_size"][0][1]), FFT)
        self.assertEqual(pmt.symbol_to_string(tags["name"][0][1]), "north")
        self.assertEqual(pmt.symbol_to_string(tags["db_scale"][0][1]), "tone dBFS")
        # --dc replace: the first and last bin it replaced (blackmanharris: the centre and 3 each side).
        np.testing.assert_allclose(pmt.f64vector_elements(tags["dc_replaced_hz"][0][1]),
                                   [center - 3 * bin_hz, center + 3 * bin_hz], rtol=0, atol=1e-6)
        times = [pmt.to_uint64(pmt.tuple_ref(v, 0)) + pmt.to_double(pmt.tuple_ref(v, 1)) for _, v in tags["rx_time"]]
        self.assertLess(abs(times[0] - time.time()), 30)
        self.assertEqual(times, sorted(times))

    def test_endpoints(self):
        # A port libzmq would take modulo 65536 or pick itself is refused; a
        # socket reachable from the network warns, as --serve's does.
        for bad in ("tcp://127.0.0.1:99999", "tcp://127.0.0.1:0", "tcp://127.0.0.1:*", "tcp://127.0.0.1:",
                    "tcp://127.0.0.1", "tcp://127.0.0.1:+80"):
            p = subprocess.run([EXE, "--demo", "--png", "none", "--zmq-pub", bad], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 2, (bad, p.stderr))
            self.assertIn("--zmq-pub " + bad, p.stderr)
        ipc = "ipc://" + os.path.join(tempfile.mkdtemp(prefix="qa_zmq_"), "rx")
        for endpoint, warns in ((f"tcp://*:{free_port()}", True), (f"tcp://0.0.0.0:{free_port()}", True),
                                (f"tcp://127.0.0.1:{free_port()}", False), (ipc, False)):
            p = subprocess.run([EXE, "--demo", "--png", "none", "--zmq-pub", endpoint], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual("reachable from the network" in p.stderr, warns, (endpoint, p.stderr))

    def test_collector_merges_two_receivers(self):
        addresses = [f"tcp://127.0.0.1:{free_port()}" for _ in range(2)]
        # Two receivers 820 bins (0.8 MHz) apart, so that their 1 MHz bands overlap, a tone each.
        tones = (100e6 - 307 * BIN, 100e6 + (820 + 205) * BIN)
        north = receiver("--zmq-pub", addresses[0], "--name", "north", center=100e6)
        south = receiver("--zmq-pub", addresses[1], "--name", "south", center=100e6 + 820 * BIN)
        out = os.path.join(tempfile.mkdtemp(prefix="qa_collector_"), "merged.jsonl")
        collector = subprocess.Popen([sys.executable, COLLECTOR, *addresses, "--count", "5", "--timeout", "20",
                                      "--jsonl", out], stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        north.feed(-307 * BIN)
        south.feed(205 * BIN)
        try:
            table = collector.communicate(timeout=60)[1]
        finally:
            results = [north.finish(), south.finish()]
        self.assertEqual(collector.returncode, 0, table)
        for rc, _, err in results:
            self.assertEqual(rc, 0, err)
        with open(out) as f:
            lines = [json.loads(l) for l in f]
        self.assertEqual(len(lines), 5)
        bin_hz = RATE / FFT
        for line in lines:
            self.assertEqual([r["name"] for r in line["receivers"]], ["north", "south"])
            self.assertEqual(line["bin_hz"], bin_hz)
            self.assertAlmostEqual(line["f0_hz"], 100e6 - RATE / 2)
            db = np.array([-200 if v is None else v for v in line["db"]])
            self.assertEqual(len(db), 820 + FFT)
            for f in tones:
                k = round((f - line["f0_hz"]) / bin_hz)
                self.assertAlmostEqual(db[k], -6.02, delta=1.0)
            # The two strongest cells are the two tones; elsewhere noise.
            strongest = np.argsort(db)[-2:]
            self.assertEqual(sorted(line["f0_hz"] + strongest * bin_hz), list(tones))
            self.assertLess(np.median(db), -40)
        self.assertRegex(table, r"north +100000000\.0 +1000000\.0 +976\.562 +99700195\.3 +-6\.")
        self.assertRegex(table, r"south +100800781\.2 +1000000\.0 +976\.562 +101000976\.6 +-6\.")


if __name__ == "__main__":
    gr_unittest.run(gr_unittest.TestSuite([
        gr_unittest.TestLoader().loadTestsFromTestCase(c) for c in (qa_spectrum_live, qa_spectrum_zmq)]))
