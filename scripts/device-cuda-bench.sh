#!/usr/bin/env bash
# device-cuda-bench.sh - on the GPU machine: the CUDA measurements of issue 6 in one call, with
# several builds of libdpk side by side, alternately, so that "before" and "after" see the same
# GPU, driver and moment. Nothing is built there.
#
# Here:   DPK_BUILD_DIR=build-X scripts/device-pack.sh          (the pack: programs + libraries)
#         scripts/device-variant.sh NAME build-Y                  (per variant: libdpk + CUDA plugin)
# There:  bash scripts/device-cuda-bench.sh [VARIANT...]          (default: every packed variant)
# Each variant runs with LD_LIBRARY_PATH pointing at its own libdpk.so (whose plugin folder holds
# only the CUDA plugin) and its own kernel cache.
#   - dpk_cuda_capi_bench: empty launch + wait through the C API against raw driver calls in the
#     same process, and pairwise distance by GPU time and by host clock;
#   - dpk_bench pairwise_distance and empty_kernel on cuda (host clock, as in docs/benchmarks.md);
#   - dpk_cuda_baselines: nvcc's pairwise kernel by GPU time and by host clock, the raw driver
#     launch, and the pairwise lab (every .ptx of the last variant's lab/ folder, JIT-loaded and
#     launched like the nvcc kernel, blocks of $DPK_LAB_BLOCKS threads);
#   - with DPK_DEVICE_TESTS=1 (default) the last variant's conformance suite on cuda:gpu and the
#     CUDA plugin's own tests.
# Everything lands in $OUT/cuda-bench.tgz (the device tool returns at most 8 files); medians are
# printed in microseconds from the JSON outputs.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
final=${OUT:-/tmp/dpk-out}
out=$(mktemp -d)
mkdir -p "$final"
trap 'tar -C "$out" -czf "$final/cuda-bench.tgz" .' EXIT
eval "$("$here/.devcarry/pack/device-unpack.sh")"
variants_dir="$here/.devcarry/variants"
variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
  for v in "$variants_dir"/*/; do variants+=("$(basename "$v")"); done
fi
last=${variants[${#variants[@]}-1]}
reps=${DPK_BENCH_REPETITIONS:-5}
base_ld=$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
lscpu | grep -E 'Model name|^CPU\(s\)' | tee -a "$out/gpu.txt"

with_variant() { # with_variant NAME command...
  local v=$1; shift
  LD_LIBRARY_PATH="$variants_dir/$v/lib:$base_ld" DPK_CACHE_DIR="/tmp/dpk-cache-$v" "$@"
}
medians() { # medians FILE.json: "name  median-in-us"
  python3 - "$1" <<'EOF'
import json, sys
scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
try:
    data = json.load(open(sys.argv[1]))
except Exception as e:
    print("  (no results: %s)" % e); sys.exit(0)
for b in data.get("benchmarks", []):
    if b.get("aggregate_name") == "median":
        print("  %-72s %10.3f us" % (b["run_name"], b["real_time"] * scale[b["time_unit"]]))
    elif b.get("error_occurred"):
        print("  %-72s ERROR %s" % (b["name"], b.get("error_message", "")))
EOF
}
json_flags() { echo "--benchmark_repetitions=$reps --benchmark_report_aggregates_only=true --benchmark_out_format=json --benchmark_out=$1"; }

for round in 1 2; do
  for v in "${variants[@]}"; do
    echo "== round $round, variant $v: dpk_cuda_capi_bench"
    with_variant "$v" dpk_cuda_capi_bench $(json_flags "$out/capi-$v-$round.json") \
      --benchmark_enable_random_interleaving=true > "$out/capi-$v-$round.txt" 2>&1
    medians "$out/capi-$v-$round.json"
  done
done
for v in "${variants[@]}"; do
  echo "== variant $v: dpk_bench (cuda)"
  with_variant "$v" dpk_bench --workloads='^(pairwise_distance|empty_kernel)$' --backends='^dpk:cuda' \
    --benchmark_filter='n=4096|empty' $(json_flags "$out/bench-$v.json") > "$out/bench-$v.txt" 2>&1
  medians "$out/bench-$v.json"
  # The PTX this variant's compiler produced, from its kernel cache.
  echo "  f32 sqrt in the PTX $v compiled: $(grep -aohrE 'sqrt\.[a-z]+\.f32' "/tmp/dpk-cache-$v" | sort | uniq -c | tr '\n' ' ')"
done
echo "== dpk_cuda_baselines (pairwise lab: $variants_dir/$last/lab)"
DPK_LAB_PTX_DIR="$variants_dir/$last/lab" DPK_LAB_BLOCKS=${DPK_LAB_BLOCKS:-128,256,512,1024} \
  dpk_cuda_baselines --benchmark_filter='pairwise|empty' $(json_flags "$out/baselines.json") \
  --benchmark_enable_random_interleaving=true --benchmark_min_time=0.2 > "$out/baselines.txt" 2>&1
medians "$out/baselines.json"

if [ "${DPK_DEVICE_TESTS:-1}" = 1 ]; then
  echo "== conformance on cuda:gpu with $last"
  DPK_CONFORMANCE_REQUIRE=NVIDIA DPK_DEVICE_SELECTOR='cuda:gpu' with_variant "$last" \
    dpk_conformance_tests > "$out/conformance.txt" 2>&1
  echo "conformance exit $?"
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED  \]' "$out/conformance.txt" | tail -8
  if [ -d "$variants_dir/$last/ptx" ]; then
    echo "== CUDA plugin tests with $last"
    DPK_TEST_PLUGIN="$variants_dir/$last/lib/dpk/plugins/libdpk_backend_cuda.so" \
      DPK_TEST_PTX_DIR="$variants_dir/$last/ptx" /opt/dpk/bin/dpk_cuda_backend_tests \
      > "$out/cuda-backend-tests.txt" 2>&1
    echo "cuda backend tests exit $?"
    grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED  \]' "$out/cuda-backend-tests.txt" | tail -8
  fi
fi
