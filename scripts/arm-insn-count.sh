#!/usr/bin/env bash
# Instructions per transform of the simd backend's neon and scalar paths on
# 64-bit ARM and 32-bit ARMv7, counted under qemu-user (no ARM hardware
# needed; instruction counts, not timings). For each target, size and path:
# a driver (scripts/insn-count/execute_loop.cc) plans one forward transform
# (batch 1, one thread) and executes it 10 and 90 times under qemu with a
# counting plugin (scripts/insn-count/count_insns.c); the difference over 80
# is one transform's count, library call included. One-time costs (start-up,
# planning, lazy symbol binding in the first call) cancel; so does parsing
# the call count, as both have two digits.
#
#   ./scripts/arm-insn-count.sh                 both targets; or: aarch64, armhf
#   GPUFFT_INSN_SIZES="256 1024 4096"           the sizes (this is the default)
#
# Needs what scripts/install-arm-deps.sh installs; builds the core library in
# build-<target>/ if it is not there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/arm-target.sh

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(aarch64 armhf)
read -r -a sizes <<<"${GPUFFT_INSN_SIZES:-256 1024 4096}"

plugin_dir=$(mktemp -d)
trap 'rm -rf "$plugin_dir"' EXIT
plugin="$plugin_dir/count_insns.so"
cc -shared -fPIC -O2 -fvisibility=hidden -o "$plugin" scripts/insn-count/count_insns.c

# count QEMU EXE ARGS...: the instructions EXE executes under QEMU.
count() {
  local qemu=$1 log="$plugin_dir/log"
  shift
  "$qemu" -plugin "$plugin" -d plugin -D "$log" "$@" >/dev/null
  awk '/^insns /{print $2}' "$log"
}

printf "%-8s %6s %10s %10s %7s\n" target N scalar neon ratio
for t in "${targets[@]}"; do
  arm_target "$t"
  [ -f "$dir/CMakeCache.txt" ] || arm_configure >/dev/null
  cmake --build "$dir" --target gpufft -j2 >/dev/null
  driver="$plugin_dir/execute_loop-$t"
  "$triplet-g++" -std=c++17 -O2 -Iinclude -o "$driver" scripts/insn-count/execute_loop.cc \
                 -L"$dir/lib" -lgpufft -Wl,-rpath,"$PWD/$dir/lib"
  for n in "${sizes[@]}"; do
    per=()
    for isa in scalar neon; do
      few=$(count "$qemu" "$driver" "simd:$isa" "$n" forward 10)
      many=$(count "$qemu" "$driver" "simd:$isa" "$n" forward 90)
      if [ $(( (many - few) % 80 )) -ne 0 ]; then
        echo "arm-insn-count: $t simd:$isa n=$n: 80 calls took $((many - few))" \
             "instructions, not a multiple of 80 (calls differ?)" >&2
        exit 1
      fi
      per+=($(( (many - few) / 80 )))
    done
    printf "%-8s %6s %10s %10s %7s\n" "$t" "$n" "${per[0]}" "${per[1]}" \
           "$(awk -v s="${per[0]}" -v v="${per[1]}" 'BEGIN { printf "%.2f", s / v }')"
  done
done
