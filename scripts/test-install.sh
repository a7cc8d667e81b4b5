#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs a build into a temporary private prefix and runs what was
# installed with no LD_LIBRARY_PATH: the programs and the Python module must
# find libgpufft through their install RPATH (cmake/Modules/GpufftInstallRpath.cmake).
#
#   scripts/test-install.sh BUILD_DIR LIBRARY_DIR [PYTHON_DIR]
#
# LIBRARY_DIR and PYTHON_DIR are relative to the prefix (GR_LIBRARY_DIR and
# GR_PYTHON_DIR; no PYTHON_DIR: no Python module). CTest runs it as
# install_private_prefix, except where the build's prefix is a system
# directory (/usr), which gets no RPATH.
set -euo pipefail
build=$1 libdir=$2 pydir=${3:-}
prefix=$(readlink -f "$(mktemp -d "${TMPDIR:-/tmp}/gpufft-prefix.XXXXXX")")
trap 'rm -rf "$prefix"' EXIT
unset LD_LIBRARY_PATH

fail() { echo "test-install: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
bench=$prefix/bin/gpufft-bench
[ -x "$bench" ] || fail "gpufft-bench was not installed in $prefix/bin"

# Each installed binary resolves libgpufft inside the prefix, not elsewhere.
check_resolves() {
  local lib
  lib=$(ldd "$1" | awk '/libgpufft\.so/ && $3 != "not" { print $3 }')
  [ -n "$lib" ] && lib=$(readlink -f "$lib")
  case "$lib" in
    "$prefix/$libdir/"*) ;;
    *) fail "$1: libgpufft resolves to '${lib:-nothing}', not to $prefix/$libdir"$'\n'"$(ldd "$1")" ;;
  esac
}

check_resolves "$bench"
"$bench" --list >/dev/null || fail "gpufft-bench --list failed"

spectrum=$prefix/bin/gpufft-spectrum
if [ -x "$spectrum" ]; then # only where libpng was found
  check_resolves "$spectrum"
  (cd "$prefix" && "$spectrum" --demo --fft 1024 --png none --quiet >/dev/null) \
    || fail "gpufft-spectrum --demo failed"
  # The demo radio (docs/receiver.md): in SoapySDR's module folder under the
  # prefix, found there by SoapySDRUtil, and streaming into the receiver.
  module=$(find "$prefix" -path '*/SoapySDR/modules*/libgpufftdemo.so' | head -1)
  [ -n "$module" ] || fail "libgpufftdemo.so was not installed in a SoapySDR/modules folder under $prefix"
  export SOAPY_SDR_PLUGIN_PATH=${module%/*}
  # Outputs captured before grep: grep -q leaves at its first match, and the
  # writer's SIGPIPE would fail the pipeline under pipefail.
  if command -v SoapySDRUtil >/dev/null; then
    found=$(SoapySDRUtil --find=driver=gpufftdemo)
    grep -q "driver = gpufftdemo" <<<"$found" \
      || fail "SoapySDRUtil --find does not find driver=gpufftdemo in $SOAPY_SDR_PLUGIN_PATH"
  else
    echo "test-install: no SoapySDRUtil (Debian package soapysdr-tools): its check of the demo radio skipped"
  fi
  report=$(cd "$prefix" && "$spectrum" --device driver=gpufftdemo --center 100M --duration 0.2 --png none --quiet)
  grep -Eq " 100(199|200)[0-9]{3}\.[0-9]+ Hz" <<<"$report" || fail "gpufft-spectrum on the installed demo radio did not find its 100.2 MHz tone"
  unset SOAPY_SDR_PLUGIN_PATH
fi

if [ -n "$pydir" ]; then
  for so in "$prefix/$libdir"/libgnuradio-gpufft.so "$prefix/$pydir"/gnuradio/gpufft/gpufft_python*.so; do
    [ -e "$so" ] || fail "$so was not installed"
    check_resolves "$so"
  done
  # GNU Radio's Python; its gnuradio package extends its path over PYTHONPATH.
  PYTHONPATH=$prefix/$pydir /usr/bin/python3 -c \
    "from gnuradio import gpufft; import numpy; gpufft.plan(16)" \
    || fail "from gnuradio import gpufft failed with PYTHONPATH=$prefix/$pydir"
fi
echo "test-install: the install in $prefix runs without LD_LIBRARY_PATH"
