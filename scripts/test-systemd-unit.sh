#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The systemd unit of gpufft-spectrum (apps/systemd) as cmake --install writes
# it into a private prefix: systemd-analyze verify finds nothing wrong with
# it, and its ExecStart with the installed options, run here by the shell on
# the demo radio, writes a run's directory whose outputs are complete after
# the SIGTERM that ends a run (as RuntimeMaxSec does each day).
#
#   scripts/test-systemd-unit.sh UNIT_SOURCE_DIR GPUFFT_SPECTRUM BINDIR DEMO_MODULE_DIR
#
# Exit 77 (CTest's skip) where systemd-analyze is absent.
set -euo pipefail
src=$1 exe=$2 bindir=$3 demo=$4
fail() { echo "test-systemd-unit: $*" >&2; exit 1; }
if ! command -v systemd-analyze >/dev/null; then
  echo "test-systemd-unit: skipped: no systemd-analyze here (Debian package systemd)"
  exit 77
fi
prefix=$(readlink -f "$(mktemp -d "${TMPDIR:-/tmp}/gpufft-unit.XXXXXX")")
trap 'rm -rf "$prefix"' EXIT
mkdir -p "$prefix/$bindir" "$prefix/build"
ln -s "$(readlink -f "$exe")" "$prefix/$bindir/gpufft-spectrum"
cmake -DCMAKE_INSTALL_PREFIX="$prefix" -DGPUFFT_BINDIR="$bindir" -DGPUFFT_UNIT_BUILD_DIR="$prefix/build" \
  -P "$src/install-unit.cmake" >/dev/null
unit=$prefix/lib/systemd/system/gpufft-spectrum.service
options=$prefix/etc/default/gpufft-spectrum
[ -f "$unit" ] && [ -f "$options" ] || fail "the unit or its options file was not installed under $prefix"
grep -qx "EnvironmentFile=$options" "$unit" || fail "EnvironmentFile is not $options"
grep -q "exec $prefix/$bindir/gpufft-spectrum " "$unit" || fail "ExecStart does not run $prefix/$bindir/gpufft-spectrum"

out=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify failed:"$'\n'"$out"
# It also reports what it merely dislikes, without failing: none of that either.
[ -z "$out" ] || fail "systemd-analyze verify: "$'\n'"$out"

# ExecStart's shell command, as systemd hands it to /bin/sh ($$ and %% unescaped).
command=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" "$unit" | sed 's/\$\$/$/g; s/%%/%/g')
[ -n "$command" ] || fail "ExecStart is not /bin/sh -c '...'"
state=$prefix/state
mkdir "$state"
(
  cd "$state"
  set -a
  . "$options"
  set +a
  export SOAPY_SDR_PLUGIN_PATH=$demo
  exec /bin/sh -c "$command"
) >"$prefix/journal" 2>&1 &
pid=$!
for _ in $(seq 300); do # until a sweep's rows are written (30 s at most)
  csv=
  for f in "$state"/*/power.csv; do [ -s "$f" ] && csv=$f; done
  [ -n "$csv" ] && break
  sleep 0.1
done
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[ "$status" -eq 143 ] || fail "the run ended with $status, not 143 (SIGTERM, complete outputs):"$'\n'"$(cat "$prefix/journal")"
runs=("$state"/*/)
[ "${#runs[@]}" -eq 1 ] || fail "expected one run directory, got: ${runs[*]}"
case "$(basename "${runs[0]}")" in
  [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z) ;;
  *) fail "the run's directory is not named by its UTC start: ${runs[0]}" ;;
esac
[ -s "${runs[0]}/power.csv" ] && [ -s "${runs[0]}/waterfall.png" ] ||
  fail "the run's outputs are missing: $(ls -l "${runs[0]}")"$'\n'"$(cat "$prefix/journal")"
tail -c 1 "${runs[0]}/power.csv" | od -c | grep -q '\\n' || fail "power.csv ends in a partial row"
echo "test-systemd-unit: the unit verifies, and a run's outputs are complete after SIGTERM"
