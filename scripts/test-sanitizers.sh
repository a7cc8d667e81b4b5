#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The sanitizer job of .ci/run: builds gr-gpufft with sanitizers, each in a
# build directory of its own, and runs the tests there.
#
#   asan  build-asan/: AddressSanitizer (LeakSanitizer included) and
#         UndefinedBehaviorSanitizer on the whole project; the C++ suites
#         (the app's bad-input tests included), then the Python suites with
#         the ASan runtime preloaded into GNU Radio's /usr/bin/python3
#         (ASAN_NATIVE_ONLY below are left to the plain build).
#   tsan  build-tsan/: ThreadSanitizer on the core (GPUFFT_CORE_ONLY): the
#         worker pool and threaded plans (TSAN_TESTS below).
#
#   ./scripts/test-sanitizers.sh              both
#   ./scripts/test-sanitizers.sh asan         one (asan or tsan)
#
# -O1 keeps the build and the tests fast enough for CI and the reports
# readable; -g1 gives the reports' stacks their files and lines (all they
# read) and compiles a quarter faster than -g (display.cc 5.7 CPU s against
# 7.7, qa_sizes.cc 6.1 against 8.1, with ASan+UBSan);
# -fno-sanitize-recover=all makes a UBSan finding end the test with
# an error, like every ASan and TSan finding. ccache is used where present.
# Prints a summary; non-zero if any step fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(asan tsan)

# The threaded code under TSan: the threads suite (plans with worker threads
# against one thread) and any suite of the worker pool, on the simd backend's
# own choice of ISA (TSAN_BACKENDS): the pool splits a plan's batch the same
# way for every ISA, and each ISA's codelets run under ASan and natively
# (the threads suite, 4 ISAs: 147 s wall here against 35 s for one).
TSAN_TESTS='^qa_gpufft_(threads|.*pool.*)$'
TSAN_BACKENDS=simd

# Suites that run in the plain build only (.ci/run runs that build's every
# test), each a repeat of host code another suite runs here:
# - install_private_prefix checks the install layout, not memory;
# - qa_examples_cpp compiles grcc's C++ flowgraphs, without ASan, against
#   an install (about a minute of g++) and runs them a few seconds: the
#   blocks they call run here in qa_blocks_*, qa_display_widget_* and the
#   Python flowgraph suites;
# - the QPU shaders on the emulator at more sizes: qpu_shader_interleave
#   runs here (emulator, hazard checker and harness, both submission paths),
#   the qa_qpu_host suites and qa_qpu_check run the backend and driver over
#   the fake Pi; sizes, signals, interleave_batches and large run the same
#   emulator code for minutes more (large alone over 10 under ASan);
# - qa_opencl_shapes and qa_opencl_candidates, which build one plan of each
#   kind that the planner makes for every device preset and every search
#   candidate at every size of the size suite: minutes of PoCL compiling
#   kernels, the same host code (fft_chain) that qa_opencl_sizes, _layout
#   and _search run here; the planner itself runs here for every preset in
#   qa_opencl_planner;
# - the OpenCL suites again under an H100's and a Mali's limits (_h100,
#   _mali) or with the search on (_search): other plans through the same
#   host code as the plain suites.
ASAN_NATIVE_ONLY='^(install_private_prefix|qa_examples_cpp|qa_qpu_shaders_qpu_shader_(sizes|signals|interleave_batches|large)|qa_opencl_(shapes|candidates)|qa_opencl_(sizes|layout|device|search)_(h100|mali)|qa_opencl_(layout|device)_search)$'

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# configure DIR FLAGS [cmake options...]: a RelWithDebInfo build at -O1 with
# FLAGS on every compile and link. No LTO (pybind11 turns it on otherwise):
# it only slows the build down.
configure() {
  local dir=$1 flags="-O1 -g1 -DNDEBUG -fno-omit-frame-pointer $2"
  shift 2
  cmake -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
    -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF "${launcher[@]}" "$@"
}

# test_names DIR python|cxx: the names of the build's CTest tests, Python QA
# (GR_ADD_TEST's *_test.sh wrappers) or the others, as one regex.
test_names() {
  ctest --test-dir "$1" --show-only=json-v1 | /usr/bin/python3 -c '
import json, sys
python = sys.argv[1] == "python"
names = [t["name"] for t in json.load(sys.stdin)["tests"]
         if t.get("command", [""])[-1].endswith("_test.sh") == python]
print("^(" + "|".join(names) + ")$" if names else "^$")' "$2"
}

results=()
status=0
# step NAME COMMAND...: runs a step, times it and records the outcome;
# non-zero if it failed.
step() {
  local name=$1 start=$SECONDS
  shift
  echo "=== sanitizers: $name"
  if "$@"; then
    results+=("ok      $(printf '%5d' $((SECONDS - start))) s  $name")
  else
    results+=("FAILED  $(printf '%5d' $((SECONDS - start))) s  $name")
    status=1
    return 1
  fi
}

run_asan() {
  local dir=build-asan
  local flags="-fsanitize=address,undefined -fno-sanitize-recover=all"
  # The codelets' translation units without use-after-scope checks
  # (GPUFFT_CODELET_CXX_FLAGS in CMakeLists.txt says why): every other check
  # stays on there.
  step "asan: configure" configure "$dir" "$flags" \
    -DGPUFFT_CODELET_CXX_FLAGS=-fno-sanitize-address-use-after-scope || return 0
  step "asan: build" cmake --build "$dir" -j2 || return 0
  # intercept_tls_get_addr=0: GCC 12's ASan takes a dynamic TLS block that
  # starts 16 bytes past a page boundary for one with the old glibc 2.19
  # header, and LeakSanitizer's tracer then scans a garbage range and
  # crashes; the OpenCL loader's TLS, dlopen()ed by the opencl backend's
  # probe, lands there
  # (https://github.com/google/sanitizers/issues/1322).
  export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:intercept_tls_get_addr=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # Qt's platform screens, left at exit by a QApplication that lives until
  # then, and PoCL's kernel cache check (scripts/lsan-qt.supp says which and
  # why).
  export LSAN_OPTIONS=suppressions=$PWD/scripts/lsan-qt.supp:print_suppressions=0
  local cxx python
  cxx=$(test_names "$dir" cxx)
  python=$(test_names "$dir" python)
  # The web view's Chromium pages (qa_spectrum_live) draw in the browser:
  # they run in the plain build only (GPUFFT_TEST_BROWSER=0 skips them here);
  # so does its stalled client's time comparison (GPUFFT_TEST_TIMING=0: one
  # round of the clients here, not three).
  # The C++ suites in their reduced-but-complete mode (GPUFFT_TEST_EMULATED,
  # lib/tests/qa_common.h: every code path, fewer of the largest sizes and
  # repeats; the plain build checks them all).
  GPUFFT_TEST_BROWSER=0 GPUFFT_TEST_TIMING=0 GPUFFT_TEST_EMULATED=1 \
    step "asan: C++ suites" ctest --test-dir "$dir" --output-on-failure -j2 -R "$cxx" -E "$ASAN_NATIVE_ONLY" || true
  # GNU Radio's interpreter is not built with ASan: its runtime must be
  # loaded first. CPython's own allocations are never freed, so no leak checks.
  LD_PRELOAD="libasan.so.8 libstdc++.so.6" ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
    step "asan: Python suites" ctest --test-dir "$dir" --output-on-failure -j2 -R "$python" \
    -E "$ASAN_NATIVE_ONLY" || true
}

run_tsan() {
  local dir=build-tsan
  step "tsan: configure" configure "$dir" "-fsanitize=thread" -DGPUFFT_CORE_ONLY=ON || return 0
  step "tsan: build" cmake --build "$dir" -j2 --target qa_gpufft || return 0
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 GPUFFT_TEST_BACKENDS=$TSAN_BACKENDS \
    step "tsan: threaded suites" ctest --test-dir "$dir" --output-on-failure -j2 -R "$TSAN_TESTS" || true
}

for s in "${sanitizers[@]}"; do
  case "$s" in
    asan) run_asan ;;
    tsan) run_tsan ;;
    *) echo "test-sanitizers: unknown sanitizer $s (asan or tsan)" >&2; exit 2 ;;
  esac
done

echo "=== sanitizers: summary"
printf '  %s\n' "${results[@]}"
exit $status
