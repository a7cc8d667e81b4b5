#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
Checks the layer rules of docs/architecture.md:

  - no file under lib/core/ or lib/backends/ (the FFT library) includes a
    header of the spectrum library (lib/spectrum/, or one of its public
    headers in include/gpufft/);
  - no file under lib/core/, lib/backends/ or lib/spectrum/ includes a
    header of the GNU Radio blocks (lib/gnuradio/, include/gpufft/gnuradio/);
  - no file under lib/spectrum/ includes an internal header of libgpufft
    (lib/core/, lib/backends/): the spectrum library builds on libgpufft's
    installed headers (include/gpufft/, e.g. opencl.h for a device pipeline);
  - include/gpufft/gpufft.h, followed through its includes, pulls in no
    spectrum header;
  - no test (lib/tests/, apps/tests/, qpu/tests/) includes a file under
    lib/backends/ through a "../" path;
  - the built libgpufft, when given, loads no VOLK (ldd(1)).

    /usr/bin/python3 scripts/check-layers.py SOURCE_DIR SPECTRUM_HEADERS [LIBGPUFFT]

SPECTRUM_HEADERS: the spectrum library's public headers (names in
include/gpufft/), comma separated. Prints one line per problem
(file:line: what) and exits 1 if there is one.
"""

import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = (".h", ".hh", ".cc", ".cpp", ".c", ".in")


def sources(root):
    """Every C/C++ source file under root, sorted."""
    found = []
    for folder, _, names in os.walk(root):
        found.extend(os.path.join(folder, n) for n in names if n.endswith(SOURCE_SUFFIXES))
    return sorted(found)


def includes(path):
    """(line number, '<' or '"', name) of each #include in path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1), m.group(2)


def inside(path, folder):
    return os.path.commonpath([os.path.realpath(path), os.path.realpath(folder)]) == os.path.realpath(folder)


def layer_of_include(src, path, kind, name, spectrum_public):
    """'spectrum', 'gnuradio', 'core', 'backends' or None: the layer a header included by path belongs to."""
    if kind == "<":
        if name.startswith("gpufft/gnuradio/"):
            return "gnuradio"
        if name.startswith("gpufft/") and name[len("gpufft/"):] in spectrum_public:
            return "spectrum"
        return None
    lib = os.path.join(src, "lib")
    layers = ("spectrum", "gnuradio", "core", "backends")
    target = os.path.normpath(os.path.join(os.path.dirname(path), name))
    if not os.path.exists(target):
        # Found through an include directory: a layer's folder, or a
        # backend's (lib/backends/<name>/, where its internals live).
        backends = os.path.join(lib, "backends")
        folders = [os.path.join(lib, layer) for layer in ("spectrum", "gnuradio", "core")]
        if os.path.isdir(backends):
            folders += [os.path.join(backends, b) for b in sorted(os.listdir(backends))]
        found = [os.path.join(f, name) for f in folders if os.path.exists(os.path.join(f, name))]
        if found:
            target = found[0]
    for layer in layers:
        if inside(target, os.path.join(lib, layer)):
            return layer
    return None


def check(src, spectrum_public, libgpufft):
    problems = []

    def report(path, line, what):
        problems.append(f"{os.path.relpath(path, src)}:{line}: {what}")

    lib = os.path.join(src, "lib")
    rules = {
        "core": ("spectrum", "gnuradio"),
        "backends": ("spectrum", "gnuradio"),
        "spectrum": ("gnuradio", "core", "backends"),
    }
    for folder, banned in rules.items():
        for path in sources(os.path.join(lib, folder)):
            for line, kind, name in includes(path):
                layer = layer_of_include(src, path, kind, name, spectrum_public)
                if layer in ("core", "backends") and layer in banned:
                    report(path, line, f"lib/{folder} includes {name}, an internal header of libgpufft (lib/{layer}/, not installed)")
                elif layer in banned:
                    report(path, line, f"lib/{folder} includes {name}, a header of the {layer} layer above it")

    # gpufft.h and every FFT header it reaches.
    public = os.path.join(src, "include")
    todo, seen = ["gpufft/gpufft.h"], set()
    while todo:
        header = todo.pop()
        if header in seen:
            continue
        seen.add(header)
        path = os.path.join(public, header)
        if not os.path.exists(path):
            continue
        for line, kind, name in includes(path):
            if kind != "<" or not name.startswith("gpufft/"):
                continue
            if name[len("gpufft/"):] in spectrum_public:
                report(path, line, f"gpufft/gpufft.h pulls in {name}, a spectrum library header")
            else:
                todo.append(name)

    for tests in ("lib/tests", "apps/tests", "qpu/tests"):
        for path in sources(os.path.join(src, tests)):
            for line, kind, name in includes(path):
                if kind == '"' and name.startswith("../"):
                    # Resolved beside the file or through lib/tests (qa_common's folder).
                    resolved = [os.path.normpath(os.path.join(d, name)) for d in (os.path.dirname(path), os.path.join(lib, "tests"))]
                    if any(inside(t, os.path.join(lib, "backends")) for t in resolved):
                        report(path, line, f"a test reaches into a backend with {name}")

    if libgpufft:
        out = subprocess.run(["ldd", libgpufft], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            problems.append(f"{libgpufft}: ldd failed: {out.stderr.strip()}")
        for line in out.stdout.splitlines():
            if re.search(r"\blibvolk\b", line):
                problems.append(f"{libgpufft}: the FFT library loads VOLK: {line.strip()}")
    return problems


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src = sys.argv[1]
    spectrum_public = {h for h in sys.argv[2].split(",") if h}
    if not spectrum_public:
        print("check-layers.py: SPECTRUM_HEADERS is empty", file=sys.stderr)
        return 2
    problems = check(src, spectrum_public, sys.argv[3] if len(sys.argv) == 4 else None)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
