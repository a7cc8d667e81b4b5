#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks that the C and C++ lines a change touches follow .clang-format
# (git clang-format formats only those lines: the tree as a whole predates
# .clang-format and is not reformatted). Prints the diff clang-format wants
# and exits 1 if there is one.
#
#   ./scripts/check-format.sh            the change against its base (below)
#   ./scripts/check-format.sh REV        the change since REV
#
# The base: the merge base with main (origin/main or main) on a branch of
# its own; on main itself, as in CI's clean clone, the last commit's first
# parent (a merge's is the whole merged branch). Uncommitted edits count.
# With no base to compare with (a shallow clone of one commit) it says so
# and checks nothing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ $# -gt 1 ]; then
  echo "check-format: at most one revision, the base (got $#)" >&2
  exit 2
fi
if [ $# -eq 1 ]; then
  git rev-parse --verify -q "$1^{commit}" >/dev/null ||
    { echo "check-format: $1 is not a commit" >&2; exit 2; }
  base=$1
else
  base=
  for main in origin/main main; do
    if git rev-parse --verify -q "$main^{commit}" >/dev/null; then
      mb=$(git merge-base HEAD "$main")
      [ "$mb" = "$(git rev-parse HEAD)" ] || base=$mb
      break
    fi
  done
  if [ -z "$base" ]; then
    if ! base=$(git rev-parse --verify -q 'HEAD^1'); then
      echo "check-format: HEAD has no parent to compare with (a shallow clone?); nothing checked"
      exit 0
    fi
  fi
fi

echo "check-format: lines changed since $(git log -1 --format='%h %s' "$base")"
# Debian 12's git-clang-format exits 0 whether or not it prints a diff.
out=$(git clang-format --diff --extensions c,cc,cpp,h,hpp "$base")
echo "$out"
if grep -q '^diff --git' <<<"$out"; then
  echo "check-format: these lines differ from .clang-format ('git clang-format $base' formats them)" >&2
  exit 1
fi
