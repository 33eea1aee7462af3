#!/usr/bin/env bash
# device-run.sh - what the GPU machine runs in one call: unpack, list devices, run the demo, the
# conformance suite on every device there, the Python tests and launch benchmarks (with a cp312
# build of the extension in .devcarry/pack/py312/python), the GPU benchmarks next to the CUDA C++
# baselines, the C API launch overhead against raw driver calls, and the host CPU's paired
# host-vs-oneTBB benchmark. Output files go to $OUT/device-run.tgz (the device tool brings back a
# handful of files). See docs/gpu-machine.md.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
final=${OUT:-/tmp/dpk-out}
out=$(mktemp -d)
mkdir -p "$final"
trap 'tar -C "$out" -czf "$final/device-run.tgz" .' EXIT
eval "$("$here/.devcarry/pack/device-unpack.sh")"
export NCCL_NVLS_ENABLE=0
[ -d /opt/dpk/ptx ] && export DPK_TEST_PTX_DIR=/opt/dpk/ptx  # the CUDA backend tests' kernels
# PoCL 5.0 there is linked with LLVM 16 and crashes inside LLVM 16's pass manager when loaded
# into a process that already holds dpk's LLVM 15 (docs/gpu-machine.md has the backtrace), so
# the programs that load both leave PoCL out there. dpk-ls still lists it.
export DPK_CONFORMANCE_REQUIRE=NVIDIA
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
lscpu | grep -E 'Model name|^CPU\(s\)' | tee -a "$out/gpu.txt"
dpk-ls > "$out/dpk-ls.txt" 2>&1; cat "$out/dpk-ls.txt"
DPK_DIAGNOSTICS=2 dpk-ls --explain 'level_zero:gpu' > "$out/explain-level-zero.txt" 2>&1
DPK_DEVICE_SELECTOR="!opencl:cpu" dpk-demo > "$out/demo.txt" 2>&1; echo "demo exit $?"; tail -20 "$out/demo.txt"
DPK_DEVICE_SELECTOR="!opencl:cpu" dpk_conformance_tests > "$out/conformance.txt" 2>&1; echo "conformance exit $?"
grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests ran|FAILED  \]' "$out/conformance.txt" | tail -15
if [ "${DPK_DEVICE_UNIT:-1}" = 1 ]; then
  # The backend and plugin-ABI unit tests name plugins and dpkc by their build-tree paths
  # (DPK_BUILD_TREE: where the pack was built): those paths lead to the pack here.
  if [ -n "${DPK_BUILD_TREE:-}" ] && [ ! -e "$DPK_BUILD_TREE/lib" ]; then
    mkdir -p "$DPK_BUILD_TREE" && ln -s /opt/dpk/lib "$DPK_BUILD_TREE/lib" && ln -s /opt/dpk/bin "$DPK_BUILD_TREE/bin"
  fi
  for unit in dpk_cuda_backend_tests dpk_plugin_abi_tests; do
    command -v $unit > /dev/null || continue
    # By full path: gtest's death tests re-execute argv[0], which must name the program.
    "$(command -v $unit)" > "$out/$unit.txt" 2>&1; echo "$unit exit $?"
    grep -E '^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]' "$out/$unit.txt" | tail -8
  done
fi
if [ "${DPK_DEVICE_PYTHON:-1}" = 1 ] && [ -d "$here/.devcarry/pack/py312/python" ]; then # a cp312 build of the extension
  cp -a "$here/.devcarry/pack/py312/python" /opt/dpk/
  # The package's Python sources are this tree's (the extension's build folder is elsewhere).
  export DPK_PYTHON_SRC="$here/frontends/python/src/dpk"
  for d in host cuda; do
    PYTHONPATH=/opt/dpk/python python3 "$here/frontends/python/benchmarks/launch_overhead.py" --device $d \
      --calls 5000 --json "$out/py-launch-$d.json" 2>&1 | tee "$out/py-launch-$d.txt"
  done
  python3 "$here/frontends/python/benchmarks/foreign_launch_overhead.py" 2>&1 | tee "$out/py-foreign.txt"
  # The Python suite there, CUDA tests included (PoCL left out, as above).
  (cd /tmp && DPK_DEVICE_SELECTOR="!opencl:cpu" PYTHONPATH=/opt/dpk/python \
    python3 -m pytest -q -rs "$here/frontends/python/tests" > "$out/pytest.txt" 2>&1)
  echo "pytest exit $?"; tail -25 "$out/pytest.txt"
fi
if [ "${DPK_DEVICE_CAPI:-1}" = 1 ]; then
  # The C API launch against raw driver calls, and pairwise distance against nvcc's kernel by the
  # same clock, all in one process (bench/cuda/capi_bench.cpp).
  dpk_cuda_capi_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_enable_random_interleaving=true --benchmark_out="$out/capi.json" \
    --benchmark_out_format=json > "$out/capi.txt" 2>&1
  grep -E 'median' "$out/capi.txt" | cut -c1-150
fi
if [ "${DPK_DEVICE_HOST_PAIRED:-1}" = 1 ]; then
  # This machine's CPU (16 cores, not shared with builds): dpk's host code against oneTBB, paired.
  for huge in 1 0; do
    echo "== host paired, DPK_HOST_HUGE_PAGES=$huge"
    DPK_HOST_HUGE_PAGES=$huge dpk_bench --paired --all-sizes \
      --workloads='^(triad|vector_add|pairwise_distance|black_scholes)$' --backends='^(dpk:host|tbb$)' \
      --paired-out="$out/host-paired-huge$huge.json" 2>&1 | tee "$out/host-paired-huge$huge.md" | tail -14
  done
fi
if [ "${DPK_DEVICE_BENCH:-1}" = 1 ]; then
  dpk_bench --workloads='^(triad|vector_add|pairwise_distance|tiled_matmul|black_scholes|nbody|empty_kernel)$' \
    --backends='cuda|opencl:gpu|NVIDIA' --benchmark_filter='n=32M|n=4096|n=1024|n=4M|n=16K|empty' \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/gpu-dpk.json" --benchmark_out_format=json > "$out/gpu-dpk.txt" 2>&1
  dpk_cuda_baselines --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_out="$out/gpu-cuda.json" --benchmark_out_format=json > "$out/gpu-cuda.txt" 2>&1
  grep -E 'median' "$out/gpu-dpk.txt" "$out/gpu-cuda.txt" | sed 's/^.*\.txt://' | cut -c1-150
fi
