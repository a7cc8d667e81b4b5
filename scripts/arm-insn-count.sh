#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Instructions per transform of the simd backend's neon and scalar paths and
# of Debian's FFTW (single precision, the target's libfftw3f, which has NEON
# codelets) on 64-bit ARM and 32-bit ARMv7, counted under qemu-user (no ARM
# hardware needed; counts of emulated execution, not timings). For each
# target, size and path: a driver (scripts/insn-count/execute_loop.cc) plans
# one forward transform (batch 1, one thread, out of place, buffers from
# fftwf_malloc) and executes it 10 and 90 times under qemu with a counting
# plugin (scripts/insn-count/count_insns.c); the difference over 80 is one
# transform's count, library call included. One-time costs (start-up,
# planning, lazy symbol binding in the first call) cancel; so does parsing
# the call count, as both have two digits.
#
# FFTW's paths are an FFTW_ESTIMATE plan and an FFTW_MEASURE plan. MEASURE
# times its candidates as qemu runs them, so it picks what is fastest in
# emulation, not on an ARM core; it plans once, in a run not counted, and
# the two counted runs take that plan from its wisdom file.
#
#   ./scripts/arm-insn-count.sh [--json FILE] [--csv FILE] [TARGET...]
#                                            targets: aarch64, armhf (both by default)
#   GPUFFT_INSN_SIZES="256 1024 4096"        the sizes (default: 64 to 65536 in powers
#                                            of two, then 1000 2400 3000 4410 6000)
#
# Prints a table (ratios: FFTW's count over neon's); --json and --csv also
# write one record per target, size and path with the plan that ran.
# Needs what scripts/install-arm-deps.sh installs; builds the core library in
# build-<target>/ if it is not there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/arm-target.sh

json="" csv=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json=$(realpath -m "$2"); shift 2 ;;
    --csv) csv=$(realpath -m "$2"); shift 2 ;;
    -*) echo "arm-insn-count: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(aarch64 armhf)
read -r -a sizes <<<"${GPUFFT_INSN_SIZES:-64 128 256 512 1024 2048 4096 8192 16384 32768 65536 1000 2400 3000 4410 6000}"
paths=(simd:scalar simd:neon fftw:estimate fftw:measure)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plugin="$work/count_insns.so"
cc -shared -fPIC -O2 -fvisibility=hidden -o "$plugin" scripts/insn-count/count_insns.c

# count QEMU EXE ARGS...: the instructions EXE executes under QEMU; EXE's
# output (the plan it ran) in $work/said.
count() {
  local qemu=$1 log="$work/log"
  shift
  "$qemu" -plugin "$plugin" -d plugin -D "$log" "$@" >"$work/said"
  awk '/^insns /{print $2}' "$log"
}

# per_transform QEMU DRIVER PATH N: one transform's count (see above); its
# plan in $work/plan.
per_transform() {
  local qemu=$1 driver=$2 path=$3 n=$4 few many wisdom=()
  if [ "$path" = fftw:measure ]; then
    wisdom=("$work/wisdom-$n")
    rm -f "${wisdom[0]}"
    "$qemu" "$driver" "$path" "$n" forward 1 "${wisdom[@]}" >/dev/null
  fi
  few=$(count "$qemu" "$driver" "$path" "$n" forward 10 "${wisdom[@]}")
  cp "$work/said" "$work/plan"
  many=$(count "$qemu" "$driver" "$path" "$n" forward 90 "${wisdom[@]}")
  if ! cmp -s "$work/said" "$work/plan"; then
    echo "arm-insn-count: $t $path n=$n: the 10- and 90-call runs planned differently:" \
         "$(cat "$work/plan") / $(cat "$work/said")" >&2
    exit 1
  fi
  if [ $(( (many - few) % 80 )) -ne 0 ]; then
    echo "arm-insn-count: $t $path n=$n: 80 calls took $((many - few))" \
         "instructions, not a multiple of 80 (calls differ?)" >&2
    exit 1
  fi
  echo $(( (many - few) / 80 ))
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# The plan as the driver printed it, without "PATH n=N: ".
plan_text() { sed -e 's/^[^:]*:[^:]*: //' "$work/plan"; }

[ -z "$json" ] || echo "[" >"$json"
[ -z "$csv" ] || echo "target,n,path,insns_per_transform,plan" >"$csv"
first_record=1
record() { # TARGET N PATH COUNT: one record in the JSON and CSV files
  local plan
  plan=$(plan_text)
  if [ -n "$json" ]; then
    [ $first_record -eq 1 ] || echo "," >>"$json"
    printf '  {"target": "%s", "n": %s, "path": "%s", "insns_per_transform": %s, "plan": "%s"}' \
           "$1" "$2" "$3" "$4" "$(sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' <<<"$plan")" >>"$json"
  fi
  [ -z "$csv" ] || printf '%s,%s,%s,%s,"%s"\n' "$1" "$2" "$3" "$4" "${plan//\"/\"\"}" >>"$csv"
  first_record=0
}

printf "%-8s %6s %10s %10s %10s %10s %7s %7s\n" \
       target N scalar neon fftw-est fftw-meas est/neon meas/neon
for t in "${targets[@]}"; do
  arm_target "$t"
  [ -f "$dir/CMakeCache.txt" ] || arm_configure >/dev/null
  cmake --build "$dir" --target gpufft -j2 >/dev/null
  driver="$work/execute_loop-$t"
  "$triplet-g++" -std=c++17 -O2 -Iinclude -o "$driver" scripts/insn-count/execute_loop.cc \
                 -L"$dir/lib" -lgpufft -lfftw3f -Wl,-rpath,"$PWD/$dir/lib"
  for n in "${sizes[@]}"; do
    per=()
    for path in "${paths[@]}"; do
      per+=("$(per_transform "$qemu" "$driver" "$path" "$n")")
      record "$t" "$n" "$path" "${per[-1]}"
    done
    printf "%-8s %6s %10s %10s %10s %10s %7s %7s\n" "$t" "$n" "${per[@]}" \
           "$(ratio "${per[2]}" "${per[1]}")" "$(ratio "${per[3]}" "${per[1]}")"
  done
done
[ -z "$json" ] || printf '\n]\n' >>"$json"
