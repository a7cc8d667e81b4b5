#!/usr/bin/env bash
# Installs what the ARM cross builds and their tests need on Debian 12 (x86-64):
# the aarch64 and armhf cross compilers; FFTW, CppUnit, VOLK and libpng for
# both targets (Debian multiarch: arm64 and armhf packages beside the native
# ones, which also bring each target's loader and C library); and qemu-user
# to run the target programs. Used by scripts/test-arm.sh; safe to run again.
set -euo pipefail
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake pkg-config
  g++-aarch64-linux-gnu g++-arm-linux-gnueabihf
  qemu-user
  libfftw3-dev:arm64 libcppunit-dev:arm64 libvolk2-dev:arm64 libpng-dev:arm64
  libfftw3-dev:armhf libcppunit-dev:armhf libvolk2-dev:armhf libpng-dev:armhf
)
added=0
for arch in arm64 armhf; do
  if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    "${sudo_cmd[@]}" dpkg --add-architecture "$arch"
    added=1
  fi
done
missing=0
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing=1
done
if [ "$missing" -eq 1 ] || [ "$added" -eq 1 ]; then
  # A mirror caught mid-sync fails an index now and then: try again, then go
  # on with the indexes there are (the install says if something is missing).
  for try in 1 2 3; do
    "${sudo_cmd[@]}" apt-get update -qq && break
    if [ "$try" -eq 3 ]; then
      echo "install-arm-deps: apt-get update reported errors; installing anyway" >&2
    else
      sleep 15
    fi
  done
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi
