#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""
Checks the user documents: every relative link and image of README.md and
docs/**/*.md names a file of the tree, every #anchor a heading of its page
(GitHub's heading ids), and README.md stays at most 300 lines.

    /usr/bin/python3 scripts/check-docs.py [SOURCE_DIR]

Prints one line per problem (file:line: what) and exits 1 if there is one.
"""

import os
import re
import sys

README_MAX_LINES = 300
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def prose_lines(path):
    """(line number, text) of the lines outside code fences, code spans removed."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.lstrip()
            marker = re.match(r"(`{3,}|~{3,})", stripped)
            if marker:
                if fence is None:
                    fence = marker.group(1)[0]
                elif stripped.startswith(fence * 3):
                    fence = None
                continue
            if fence is None:
                yield number, CODE_SPAN.sub("", line.rstrip("\n"))


def slug(heading):
    """GitHub's id of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        ids, seen = set(), {}
        fence = None
        with open(path, encoding="utf-8") as f:
            for line in f:
                stripped = line.lstrip()
                marker = re.match(r"(`{3,}|~{3,})", stripped)
                if marker:
                    fence = marker.group(1)[0] if fence is None else (None if stripped.startswith(fence * 3) else fence)
                    continue
                m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line) if fence is None else None
                if m:
                    base = slug(m.group(1))
                    n = seen.get(base, 0)
                    seen[base] = n + 1
                    ids.add(base if n == 0 else f"{base}-{n}")
        cache[path] = ids
    return cache[path]


def documents(root):
    yield os.path.join(root, "README.md")
    for folder, _, names in sorted(os.walk(os.path.join(root, "docs"))):
        for name in sorted(names):
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def check(root):
    problems = []
    root = os.path.realpath(root)
    for doc in documents(root):
        where = os.path.relpath(doc, root)
        for number, line in prose_lines(doc):
            for target in LINK.findall(line):
                if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # http:, mailto: ...
                    continue
                path, _, anchor = target.partition("#")
                file = os.path.realpath(os.path.join(os.path.dirname(doc), path)) if path else doc
                if not file.startswith(root + os.sep):
                    problems.append(f"{where}:{number}: {target}: outside the source tree")
                elif not os.path.exists(file):
                    problems.append(f"{where}:{number}: {target}: no such file")
                elif anchor and file.endswith(".md") and anchor not in anchors(file):
                    problems.append(f"{where}:{number}: {target}: no heading with id '{anchor}'")
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        lines = sum(1 for _ in f)
    if lines > README_MAX_LINES:
        problems.append(f"README.md: {lines} lines, more than {README_MAX_LINES}: move detail to docs/")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    if not os.path.isfile(os.path.join(root, "README.md")):
        print(f"{root}: no README.md here", file=sys.stderr)
        return 2
    problems = check(root)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
