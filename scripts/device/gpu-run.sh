#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Run on the GPU machine (the run tool, from the repository root, with carry
# [".devdeps"] filled by fetch-debs.sh): records the environment, unpacks the
# Debian packages into a private prefix (never into /), builds the core only
# (-DGPUFFT_CORE_ONLY=ON), runs the OpenCL test suites on the NVIDIA
# platform, gpufft-bench --list and the device-resident and streaming
# benchmarks. Logs and JSON go to $OUT (at most 8 files come back).
#
# Settings (environment):
#   GPU_STAGES   which steps, comma separated (default env,build,test,list,bench)
#   GPU_DEVICE   OpenCL device selector (default NVIDIA)
#   GPU_SIZES    device-resident sizes (default 256,1024,4096,1000,2400,65536)
#   GPU_TESTS    ctest -R regex of the OpenCL suites (default opencl)
#   GPU_TEST_LIMIT  seconds the test step may take (default 240; a cold
#                kernel cache takes longer)
#   GPU_BENCH    more gpufft-bench arguments, e.g. "--repeats 25"
#   GPU_JOBS     build jobs (default 16)
#   GPU_SWEEP    the size list of stage sweep (default: a fresh draw of
#                sweep_sizes.py, 100 smooth sizes and 24 others)
#   GPU_SWEEP_SEED  the seed of that draw (default a fresh one, logged)
#   GPU_SWEEP_SEARCH  1 (default): the sweep's plans search; 0: the planner's
#                rules alone (quicker: no candidates built and timed)
#   GPU_SWEEP_RULES  if set, stage sweep then runs the sizes whose searched
#                shape is not the rules' again with GPUFFT_OPENCL_PLANNER=search=0
#                (sweep-rules.json)
#   GPU_CANDIDATES the sizes of stage candidates (default 8192,16384)
#   GPU_SHAPES   the c2c shapes of stage shapes (default the 2-D and 3-D shapes
#                the device-resident goals name, and three others)
#   GPU_HOST_SIZES the sizes of stage host (default gpufft-bench's: 64..65536 and
#                1000,2400,3000,4410,6000)
#
# Stage sweep (not in the default stages): --device-resident alone over the
# sizes of GPU_SWEEP, each plan searching (GPUFFT_OPENCL_PLANNER=search=1: a
# device_plan does not tune otherwise), then plot_sweep.py's table (sweep.md) and plot (sweep.png).
# Stage shapes (not in the default stages): --device-resident over GPU_SHAPES
# (c2c), then r2c at N 1000, 4096, 65536, 2^20 and 256^3, beside cuFFT and
# VkFFT: shapes-c2c.json, r2c.json.
# Stage candidates (not in the default stages): every plan-time search
# candidate of each GPU_CANDIDATES size forced in turn
# (GPUFFT_OPENCL_PLANNER=candidate=K) until one fails (beyond the list),
# --device-resident --repeats 7, into
# candidates.json: what the search weighs, candidate by candidate.
# Stage host (not in the default stages either): the simd backend
# against FFTW_PATIENT on the host CPU, one thread, 256 KiB calls (--regimes
# l2), every instruction set; one process per physical core but the first
# (the GPU stages' launch thread keeps it), each a share of the sizes, in the
# background while the later stages run; merged into host.json at the end.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/device-out}
stages=${GPU_STAGES:-env,build,test,list,bench}
device=${GPU_DEVICE:-NVIDIA}
sizes=${GPU_SIZES:-256,1024,4096,1000,2400,65536}
tests=${GPU_TESTS:-opencl}
jobs=${GPU_JOBS:-16}
prefix=/tmp/gpufft-deps
libdir=$prefix/usr/lib/x86_64-linux-gnu
build=$root/build-device
mkdir -p "$out"
status=0

want() { [[ ",$stages," == *",$1,"* ]]; }
step() { echo; echo "== $* ($(date -u +%T))"; }
# step_run SECONDS LOG COMMAND...: runs with a time limit, appends to $out/LOG.
step_run() {
  local limit=$1 logfile=$out/$2; shift 2
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$logfile"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || { echo "!! exit $rc: $*" | tee -a "$logfile"; status=1; }
  return "$rc"
}

if want env; then
  step "environment" | tee -a "$out/env.log"
  {
    uname -a; grep PRETTY_NAME /etc/os-release; nproc; free -g | head -2
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
    echo "-- /etc/OpenCL/vendors:"; ls -l /etc/OpenCL/vendors 2>&1; cat /etc/OpenCL/vendors/*.icd 2>&1; echo
    echo "-- ldconfig:"; ldconfig -p | grep -Ei 'opencl|libgomp|libpng|libz\.so|libcufft\.' 
    echo "-- tools:"; command -v nvcc cmake g++ pkg-config ninja
    nvcc --version | tail -2; cmake --version | head -1; g++ --version | head -1
    ls -d /usr/local/cuda* 2>&1
  } 2>&1 | tee -a "$out/env.log"
fi

# The packages: unpacked, their absolute paths moved into the prefix.
if [ ! -d .devdeps ] || ! ls .devdeps/*.deb >/dev/null 2>&1; then
  echo "no .devdeps/*.deb: run scripts/device/fetch-debs.sh here and carry .devdeps" >&2
  exit 2
fi
step "unpacking $(ls .devdeps/*.deb | wc -l) packages into $prefix"
mkdir -p "$prefix"
ldcache=$(ldconfig -p)
for deb in .devdeps/*.deb; do
  case $(basename "$deb") in
    libgomp1_*) grep -q 'libgomp.so.1 ' <<<"$ldcache" && continue ;;
    pkgconf*|libpkgconf*) command -v pkg-config >/dev/null && continue ;;
  esac
  dpkg -x "$deb" "$prefix"
done
sed -i "s|^prefix=/usr|prefix=$prefix/usr|" "$libdir"/pkgconfig/*.pc "$prefix"/usr/share/pkgconfig/*.pc 2>/dev/null
sed -i "s|\"/usr/lib/x86_64-linux-gnu/|\"$libdir/|g" "$libdir"/cmake/clFFT/*.cmake
# A -dev symlink whose library we did not carry (zlib): point it at the system's.
for link in "$libdir"/*.so; do
  [ -e "$link" ] && continue
  soname=$(basename "$link").1
  sys=$(awk -v s="$soname" '$1 == s { print $NF; exit }' <<<"$ldcache")
  [ -n "$sys" ] && ln -sf "$sys" "$link"
done
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PKG_CONFIG_PATH=$libdir/pkgconfig:$prefix/usr/share/pkgconfig
command -v pkg-config >/dev/null || export PATH=$prefix/usr/bin:$PATH
# NVIDIA's ICD: the image has libnvidia-opencl.so.1 but may list only PoCL in
# /etc/OpenCL/vendors; then the loader we carry reads a copy with NVIDIA added.
if ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
  nv=$(awk '$1 == "libnvidia-opencl.so.1" { print $NF; exit }' <<<"$ldcache")
  mkdir -p "$prefix/vendors"
  cp /etc/OpenCL/vendors/*.icd "$prefix/vendors/" 2>/dev/null
  [ -n "$nv" ] && echo "$nv" >"$prefix/vendors/nvidia.icd"
  export OCL_ICD_VENDORS=$prefix/vendors
  echo "OpenCL vendors: $prefix/vendors: ${nv:-no libnvidia-opencl.so.1 found}" | tee -a "$out/env.log"
fi

if want build; then
  step "configure and build (core only)" | tee -a "$out/build.log"
  cuda=()
  [ -d /usr/local/cuda ] && cuda=(-DCUDAToolkit_ROOT=/usr/local/cuda)
  step_run 60 build.log cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DGPUFFT_CORE_ONLY=ON -DCMAKE_PREFIX_PATH="$prefix/usr" "${cuda[@]}" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$libdir" \
    -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$libdir" &&
  step_run 220 build.log cmake --build "$build" -j"$jobs"
fi

bench=$build/apps/gpufft-bench
host_pids=()
if want host; then
  step "gpufft-bench --backends all-isas --patient --regimes l2 on the host CPU" | tee -a "$out/host.log"
  lscpu | grep -E 'Model name|Thread|Core|Socket|Flags' | cut -c1-300 | tee -a "$out/host.log"
  # The first logical CPU of each physical core, core 0's left out.
  mapfile -t cpus < <(lscpu -p=CPU,CORE | grep -v '^#' | sort -t, -k2,2n -k1,1n | awk -F, '!seen[$2]++ { print $1 }' | tail -n +2)
  read -r -a host_sizes <<<"$(tr ',' ' ' <<<"${GPU_HOST_SIZES:-64,128,256,512,1024,2048,4096,8192,16384,32768,65536,1000,2400,3000,4410,6000}")"
  for i in "${!cpus[@]}"; do
    share=()
    for j in "${!host_sizes[@]}"; do
      [ $((j % ${#cpus[@]})) -eq "$i" ] && share+=("${host_sizes[j]}")
    done
    [ ${#share[@]} -gt 0 ] || continue
    sizes_csv=$(IFS=,; echo "${share[*]}")
    timeout --kill-after=10 500 taskset -c "${cpus[i]}" "$bench" --backends all-isas --patient \
      --regimes l2 --sizes "$sizes_csv" --json "/tmp/host-$i.json" >>"$out/host.log" 2>&1 &
    host_pids+=($!)
  done
fi
if want test; then
  step "C++ tests matching '$tests' on OpenCL device '$device'" | tee -a "$out/tests.log"
  GPUFFT_OPENCL_DEVICE=$device step_run "${GPU_TEST_LIMIT:-240}" tests.log \
    ctest --test-dir "$build" -R "$tests" --output-on-failure -j4
fi
if want list; then
  step "gpufft-bench --list" | tee -a "$out/bench.log"
  step_run 30 bench.log "$bench" --list
fi
if want bench; then
  step "gpufft-bench --device-resident --streaming on '$device'" | tee -a "$out/bench.log"
  # shellcheck disable=SC2086 # GPU_BENCH is a list of arguments
  step_run 150 bench.log "$bench" --device-resident --streaming --opencl-device "$device" \
    --sizes "$sizes" --threads "$(nproc)" --stream-batch 0,1024 --json "$out/bench.json" \
    ${GPU_BENCH:-}
fi
if want sweep; then
  sweep_list=${GPU_SWEEP:-$out/sweep-sizes.txt}
  if [ -z "${GPU_SWEEP:-}" ]; then
    python3 "$root/scripts/device/sweep_sizes.py" ${GPU_SWEEP_SEED:+--seed "$GPU_SWEEP_SEED"} >"$sweep_list"
    head -1 "$sweep_list" | tee -a "$out/sweep.log"
  fi
  sweep_sizes=$(grep -v '^#' "$sweep_list" | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
  step "gpufft-bench --device-resident over $(echo "$sweep_sizes" | tr ',' '\n' | wc -l) sizes on '$device'" | tee -a "$out/sweep.log"
  # shellcheck disable=SC2086 # GPU_BENCH is a list of arguments
  GPUFFT_OPENCL_PLANNER=search=${GPU_SWEEP_SEARCH:-1} step_run 540 sweep.log "$bench" --device-resident --opencl-device "$device" \
    --sizes "$sweep_sizes" --threads "$(nproc)" --json "$out/sweep.json" ${GPU_BENCH:-} &&
    python3 "$root/scripts/device/plot_sweep.py" "$out/sweep.json" --md "$out/sweep.md" --png "$out/sweep.png"
  if [ -n "${GPU_SWEEP_RULES:-}" ] && [ -f "$out/sweep.json" ]; then
    # The sizes where the plan-time search kept another shape than the
    # rules' (candidate 0), again with the search off: the same call's A/B.
    searched=$(python3 - "$out/sweep.json" <<'PY'
import json, re, sys
rows = json.load(open(sys.argv[1]))["device_resident"]
print(",".join(str(r["n"]) for r in rows if r["engine"] == "gpufft"
               and re.search(r"searched: candidate [1-9]", r.get("describe", ""))))
PY
)
    step "the same with GPUFFT_OPENCL_PLANNER=search=0 at ${searched:-no size}" | tee -a "$out/sweep.log"
    # shellcheck disable=SC2086 # GPU_BENCH is a list of arguments
    [ -z "$searched" ] || GPUFFT_OPENCL_PLANNER=search=0 step_run 300 sweep.log "$bench" --device-resident \
      --opencl-device "$device" --sizes "$searched" --threads "$(nproc)" --json "$out/sweep-rules.json" ${GPU_BENCH:-}
  fi
fi
if want shapes; then
  shapes=${GPU_SHAPES:-64x64x64,128x128x128,256x256x256,512x512x512,1024x1024,4096x4096,96x96x96,100x100x100,3000x3000}
  step "gpufft-bench --device-resident --shapes $shapes, then r2c, on '$device'" | tee -a "$out/shapes.log"
  # shellcheck disable=SC2086 # GPU_BENCH is a list of arguments
  step_run 240 shapes.log "$bench" --device-resident --opencl-device "$device" --shapes "$shapes" \
    --threads "$(nproc)" --json "$out/shapes-c2c.json" ${GPU_BENCH:-}
  # shellcheck disable=SC2086 # GPU_BENCH is a list of arguments
  step_run 120 shapes.log "$bench" --device-resident --opencl-device "$device" --kind r2c \
    --sizes 1000,4096,65536,1048576 --threads "$(nproc)" --json "$out/r2c.json" ${GPU_BENCH:-}
  # shellcheck disable=SC2086 # GPU_BENCH is a list of arguments
  step_run 60 shapes.log "$bench" --device-resident --opencl-device "$device" --kind r2c \
    --shapes 256x256x256 --threads "$(nproc)" --json "$out/r2c-3d.json" ${GPU_BENCH:-}
fi
if want candidates; then
  step "every search candidate of ${GPU_CANDIDATES:-8192,16384} on '$device'" | tee -a "$out/candidates.log"
  rm -f /tmp/candidate-*.json
  for n in $(tr ',' ' ' <<<"${GPU_CANDIDATES:-8192,16384}"); do
    for k in $(seq 0 15); do
      GPUFFT_OPENCL_PLANNER=candidate=$k timeout --kill-after=10 120 "$bench" --device-resident \
        --opencl-device "$device" --sizes "$n" --repeats 7 --threads "$(nproc)" \
        --json "/tmp/candidate-$n-$k.json" >>"$out/candidates.log" 2>&1 ||
        { rm -f "/tmp/candidate-$n-$k.json"; break; }
    done
  done
  python3 - "$out/candidates.json" /tmp/candidate-*.json <<'PY' || status=1
import json, sys
parts = [json.load(open(f)) for f in sys.argv[2:]]
rows = [r for p in parts for r in p["device_resident"]]
json.dump({"header": parts[0]["header"], "device_resident": rows}, open(sys.argv[1], "w"), indent=1)
for r in rows:
    if r["engine"] == "gpufft":
        print(r["n"], round(r.get("ratio_vs_anchor", 0), 3), r.get("describe", ""))
PY
fi
if [ ${#host_pids[@]} -gt 0 ]; then
  wait "${host_pids[@]}" || status=1
  python3 - "$out/host.json" /tmp/host-*.json <<'PY' || status=1
import json, sys
parts = [json.load(open(f)) for f in sys.argv[2:]]
merged = {"header": parts[0]["header"], "results": [r for p in parts for r in p["results"]]}
json.dump(merged, open(sys.argv[1], "w"), indent=1)
PY
fi
exit $status
