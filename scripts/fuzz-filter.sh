#!/usr/bin/env bash
# fuzz-filter.sh - builds the device-filter fuzzer (libFuzzer, clang-14 + libclang-rt-14-dev) in
# its own build folder and runs it for a bounded time. A crash or a broken invariant leaves a
# reproducer file (crash-*) in the build folder and makes this script fail.
#
#   scripts/fuzz-filter.sh [SECONDS]        default 60; DPK_FUZZ_BUILD_DIR overrides the folder
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DPK_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 "${launcher[@]}" \
  -DDPK_FUZZ=ON -DDPK_BUILD_TESTS=OFF -DDPK_BUILD_BENCH=OFF >/dev/null
ninja -C "$build" dpk_fuzz_filter

# Seeds: the filters the docs use, so mutation starts from valid text.
corpus=$build/fuzz-filter-corpus
mkdir -p "$corpus"
i=0
for seed in "level_zero:gpu:0" "opencl:cpu" "cuda:gpu" "host" "gpu,cpu" "!opencl:*" "*:*:1" \
            "cuda:gpu, level_zero:gpu, !opencl:gpu" "0" "opencl:accelerator:2,host"; do
  printf '%s' "$seed" >"$corpus/seed-$i"
  i=$((i + 1))
done

cd "$build"
"$build/bin/dpk_fuzz_filter" -max_total_time="$seconds" -max_len=256 \
  -dict="$root/tests/policy/fuzz_filter.dict" "$corpus"
