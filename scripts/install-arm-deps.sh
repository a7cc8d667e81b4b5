#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what the ARM cross builds and their tests need on Debian 12
# (x86-64), and nothing else: the aarch64 and armhf cross compilers; the
# target libraries of the core-only build (GPUFFT_CORE_ONLY, see
# cmake/toolchains/) as Debian multiarch packages beside the native ones,
# which also bring each target's loader and C library: VOLK (the spectrum
# engine), FFTW (the test suites' reference and gpufft-bench) and CppUnit
# (the test suites); the OpenCL C headers (architecture-independent; the
# OpenCL backend opens its loader at run time); and qemu-user to run the
# target programs. No libpng: without it gpufft-spectrum is simply not built.
# Used by scripts/test-arm.sh; safe to run again.
set -euo pipefail
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake pkg-config
  g++-aarch64-linux-gnu g++-arm-linux-gnueabihf
  qemu-user opencl-c-headers
  libfftw3-dev:arm64 libcppunit-dev:arm64 libvolk2-dev:arm64
  libfftw3-dev:armhf libcppunit-dev:armhf libvolk2-dev:armhf
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
[ "$missing" -eq 1 ] || [ "$added" -eq 1 ] || exit 0

# A mirror caught mid-sync fails an index now and then (the armhf and arm64
# security indexes among them), and a package's arm64/armhf build can lag
# its amd64 one, which multiarch refuses (every architecture must have the
# same version): update and install up to three times, a minute apart.
for attempt in 1 2 3; do
  "${sudo_cmd[@]}" apt-get update -qq ||
    echo "install-arm-deps: apt-get update reported errors (attempt $attempt of 3); going on" >&2
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}" && exit 0
  echo "install-arm-deps: apt-get install failed (attempt $attempt of 3)" >&2
  [ "$attempt" -eq 3 ] || sleep 60
done
# Name the packages that cannot be installed, each with apt's reason.
named=0
for p in "${packages[@]}"; do
  if ! why=$(apt-get install --simulate -q --no-install-recommends "$p" 2>&1); then
    echo "install-arm-deps: cannot install $p:" >&2
    grep -E '^ [^ ].* : |^E:' <<<"$why" | sed 's/^ */    /' >&2
    named=1
  fi
done
[ "$named" -eq 1 ] ||
  echo "install-arm-deps: each package resolves alone; apt-get install's own errors are above" >&2
exit 1
