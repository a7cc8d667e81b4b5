#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the dependencies, builds gr-gpufft in build/ and runs the main job:
# gpufft-spectrum's demo on the best backend found here (backend "auto"). It
# synthesizes tones, an FM carrier and noise, writes waterfall.png and prints
# the peaks it found next to the tones it synthesized.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/install-deps.sh
cmake -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
build/apps/gpufft-spectrum --demo --backend auto --png waterfall.png
