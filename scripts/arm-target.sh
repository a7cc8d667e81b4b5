# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by scripts/test-arm.sh and scripts/arm-insn-count.sh (from the
# repository root): the ARM targets' names, compilers and emulators.

# arm_target TARGET: sets triplet, qemu and dir (the build directory) for
# aarch64 or armhf; exits with status 2 for another name.
arm_target() {
  case "$1" in
    aarch64) triplet=aarch64-linux-gnu; qemu=qemu-aarch64 ;;
    armhf)   triplet=arm-linux-gnueabihf; qemu=qemu-arm ;;
    *) echo "$(basename "$0"): unknown target $1 (aarch64 or armhf)" >&2; exit 2 ;;
  esac
  dir="build-$1"
}

# arm_configure [cmake options...]: configures $dir for the target arm_target chose.
arm_configure() {
  cmake -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="cmake/toolchains/$triplet.cmake" "$@"
}
