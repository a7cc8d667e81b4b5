#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Run here, on Debian 12 with network: downloads into .devdeps/ the Debian
# packages that a core-only build (-DGPUFFT_CORE_ONLY=ON) and gpufft-bench's
# OpenCL modes need on the GPU machine, which has no network. gpu-run.sh
# unpacks them there (the run tool carries .devdeps; see README.md).
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dest=$root/.devdeps
packages=(
  libfftw3-dev libfftw3-single3 libfftw3-double3 libgomp1 # bench and test reference
  libcppunit-dev libcppunit-1.15-0                        # C++ tests
  libvolk2-dev libvolk2.5 liborc-0.4-0                     # lib/spectrum
  opencl-c-headers ocl-icd-libopencl1 ocl-icd-opencl-dev   # OpenCL headers and ICD loader
  libclfft-dev libclfft2 libvkfft-dev                      # the bench's OpenCL anchors
  libpng-dev libpng16-16 zlib1g-dev                        # apps/ (gpufft-spectrum)
  pkgconf pkgconf-bin libpkgconf3                          # in case the machine has no pkg-config
)
mkdir -p "$dest"
rm -f "$dest"/*.deb
# apt-get download writes to the current directory; as root it warns that
# the _apt user cannot write there, and downloads anyway.
(cd "$dest" && apt-get download "${packages[@]}")
# Never committed, never sent by accident: ignored in this clone too.
exclude=$(git -C "$root" rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qx '/.devdeps/' "$exclude" 2>/dev/null || echo '/.devdeps/' >>"$exclude"
du -sh "$dest"
