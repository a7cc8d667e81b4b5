#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs everything gr-gpufft needs to build, test and benchmark on Debian 12.
# Safe to run again: apt-get skips what is already there.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  gnuradio-dev libvolk2-dev libboost-dev libfftw3-dev
  libcppunit-dev pybind11-dev python3-numpy python3-dev
  python3-scipy  # the numpy.fft/scipy.fft tests compare with scipy.fft and run as its backend
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libclfft-dev libvkfft-dev libpng-dev libcli11-dev nlohmann-json3-dev
  gnuradio python3-pyqt5 python3-zmq
  ccache  # .ci/run and scripts/test-sanitizers.sh compile through it
  clang-format cppcheck  # scripts/check-format.sh, scripts/check-cppcheck.sh
  qtbase5-dev xvfb xauth fonts-dejavu-core  # the display widget and its screenshot tests
  libqwt-qt5-dev  # C++ QT GUI flowgraphs from GRC link gnuradio-qtgui, whose CMake target needs qwt::qwt
  gr-fosphor  # benchmarked beside the display sink
  libsoapysdr-dev soapysdr-tools  # live radios in gpufft-spectrum, the simulated device in its tests
  rtl-sdr  # rtl_power, whose hop plan gpufft-power's tests compare with theirs
  libzmq3-dev cppzmq-dev  # gpufft-spectrum --zmq-pub
  chromium  # the web view's page test
  python3-jsonschema  # our SigMF metadata checked against the SigMF schema's rules
  systemd  # systemd-analyze verify on the service unit (CTest systemd_unit)
)
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
# A mirror caught mid-sync fails one index now and then: retry, and if it
# keeps failing go on with the lists there are; the install below still
# fails if a package cannot be had.
for attempt in 1 2 3; do
  "${sudo_cmd[@]}" apt-get update -qq && break
  echo "install-deps: apt-get update failed (attempt $attempt of 3)" >&2
  sleep 10
done
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}"
