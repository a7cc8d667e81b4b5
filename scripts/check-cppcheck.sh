#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cppcheck over lib/ with the compile commands of a built tree (its defines,
# include paths and generated headers), so each file is checked as it is
# compiled. Exits 1 on a finding. A false positive is suppressed where it
# is, with the reason:  // cppcheck-suppress <id> ; <why>
#
#   ./scripts/check-cppcheck.sh [BUILD_DIR]      default build/
#
# Severities warning, performance and portability (errors always): cppcheck's
# style class flags conditions that are constant in one template
# instantiation (the scalar ISA's lanes == 1) and suggests algorithms, which
# this code chooses on purpose.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${1:-build}
if [ ! -f "$build/compile_commands.json" ]; then
  echo "check-cppcheck: no $build/compile_commands.json (configure and build $build first)" >&2
  exit 2
fi

# The entries of lib/ only: cppcheck loads every file a database names.
work=$build/cppcheck
mkdir -p "$work"
/usr/bin/python3 - "$build/compile_commands.json" "$PWD/lib/" "$work/compile_commands.json" <<'EOF'
import json, sys
database, folder, out = sys.argv[1:]
entries = [e for e in json.load(open(database)) if e["file"].startswith(folder)]
json.dump(entries, open(out, "w"))
print(f"check-cppcheck: {len(entries)} files of {folder}")
EOF

cppcheck --project="$work/compile_commands.json" \
  --enable=warning,performance,portability --library=qt --inline-suppr --error-exitcode=1 -q -j2 \
  --template='{file}:{line}: {severity}: {message} [{id}]'
