#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
Every source file carries the project's licence as an SPDX line
(https://spdx.dev/learn/handling-license-info/), after a shebang or a coding
line if it has one.

    /usr/bin/python3 scripts/spdx.py [SOURCE_DIR]          check: list files without it, exit 1
    /usr/bin/python3 scripts/spdx.py --add [SOURCE_DIR]    add it where missing

Source files: C, C++ and OpenCL (// comments); Python, shell, CMake, GRC
YAML and QPU assembly (# comments). Build trees, .git and test data are
skipped.
"""

import os
import re
import sys

LICENCE = "GPL-3.0-or-later"
TAG = "SPDX-License-Identifier: "
# Test fixtures (qpu/tests/data) are read for their exact lines, not licensed code.
SKIPPED_DIRS = {".git", ".devdeps", "__pycache__", "data"}


def comment_of(name):
    """The line comment of a source file's language, or None for other files."""
    if name == "CMakeLists.txt" or name == "run":
        return "#"
    for suffixes, comment in (((".cc", ".h", ".c", ".cl", ".cc.in"), "//"),
                              ((".py", ".sh", ".cmake", ".cmake.in", ".yml", ".qasm", ".qinc"), "#")):
        if name.endswith(suffixes):
            return comment
    return None


def source_files(top):
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(("build", "_build")))
        rel = os.path.relpath(folder, top)
        for name in sorted(files):
            if name == "run" and rel != ".ci":
                continue
            comment = comment_of(name)
            # grcc writes a flowgraph's .py from its .grc with GRC's own
            # licence line; qa_examples checks it is left as grcc wrote it.
            if name.endswith(".py") and os.path.exists(os.path.join(folder, name[:-3] + ".grc")):
                continue
            if comment:
                yield os.path.join(folder, name), comment


def main(argv):
    add = "--add" in argv
    args = [a for a in argv if a != "--add"]
    top = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    missing = []
    for path, comment in source_files(top):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if TAG + LICENCE in text:
            continue
        if not add:
            missing.append(os.path.relpath(path, top))
            continue
        lines = text.split("\n")
        at = 0
        while at < min(2, len(lines)) and (lines[at].startswith("#!") or re.match(r"#.*coding[:=]", lines[at])):
            at += 1
        if any(TAG in line for line in lines[:at + 6]):  # another licence named: a person decides
            missing.append(os.path.relpath(path, top))
            continue
        lines.insert(at, f"{comment} {TAG}{LICENCE}")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    for path in missing:
        print(f"{path}: no '{TAG}{LICENCE}' line")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
