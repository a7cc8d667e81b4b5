#!/usr/bin/env bash
# Installs the dependencies, builds gr-gpufft in build/ and runs the main job.
# Until the spectrum application exists, the main job is a short benchmark of
# the simd backend against FFTW.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/install-deps.sh
cmake -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
build/apps/gpufft-bench --sizes 64,256,1024,4096 --backends simd --repeats 5
