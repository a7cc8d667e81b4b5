#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Cross-builds the core library, its tests and gpufft-bench for 64-bit ARM
# (build-aarch64/) and 32-bit ARMv7 hard float (build-armhf/) with Debian's
# cross compilers, and runs the C++ test suites under qemu-user (ctest uses
# the emulator the toolchain file names), scalar and NEON paths alike.
#
#   ./scripts/test-arm.sh                 both targets
#   ./scripts/test-arm.sh aarch64         one (aarch64 or armhf)
#
# Under emulation the suites run in their reduced-but-complete mode
# (GPUFFT_TEST_EMULATED=1, see lib/tests/qa_common.h). Non-zero on failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/arm-target.sh

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(aarch64 armhf)

# GPUFFT_ARM_NO_INSTALL=1 skips the apt-get step (dependencies already there).
[ "${GPUFFT_ARM_NO_INSTALL:-0}" = 1 ] || ./scripts/install-arm-deps.sh

# The build machine's tools (the codelet generator, the QPU assembler) from
# the native build in build/ where there is one (.ci/run makes it first),
# brought up to date there, rather than built again inside each cross build.
host_tools=()
if [ -f build/CMakeCache.txt ] && cmake --build build -j2 --target gpufft-codeletgen qpu-asm; then
  host_tools=(-DGPUFFT_CODELETGEN="$PWD/build/gen/gpufft-codeletgen"
              -DQPU_ASM_EXECUTABLE="$PWD/build/qpu/asm/qpu-asm")
fi

status=0
for t in "${targets[@]}"; do
  arm_target "$t"
  echo "=== $t: cross build in $dir"
  arm_configure "${host_tools[@]}"
  cmake --build "$dir" -j2

  echo "=== $t: tests under $qemu"
  start=$(date +%s)
  if ! GPUFFT_TEST_EMULATED=1 ctest --test-dir "$dir" --output-on-failure -j2; then
    status=1
  fi
  # The neon variant: GPUFFT_SIMD_ISA=neon forces it (CTest forces scalar) ...
  if ! GPUFFT_SIMD_ISA=neon GPUFFT_TEST_EMULATED=1 "$qemu" "$dir/lib/tests/qa_gpufft" isa_env; then
    status=1
  fi
  # ... it is listed (qemu's default CPU has every feature) ...
  list=$("$qemu" "$dir/apps/gpufft-bench" --list)
  if ! grep -q "neon" <<<"$list"; then
    echo "test-arm: $t: simd:neon is not listed:"$'\n'"$list" >&2
    status=1
  fi
  # ... and on ARMv7 a core without VFPv4 (Cortex-A9) falls back to scalar.
  if [ "$t" = armhf ]; then
    list=$("$qemu" -cpu cortex-a9 "$dir/apps/gpufft-bench" --list)
    if grep -q "neon" <<<"$list"; then
      echo "test-arm: armhf: simd:neon listed on a Cortex-A9 (no VFPv4):"$'\n'"$list" >&2
      status=1
    fi
  fi
  echo "=== $t: tests took $(( $(date +%s) - start )) s"
done
exit $status
