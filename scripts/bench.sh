#!/usr/bin/env bash
# bench.sh - builds and runs the benchmark suite, then writes build/bench/{results.json,
# report.md, ratios.png, paired.{md,json}, python-launch.{txt,json}}. Arguments go to dpk_bench
# (--workloads=REGEX, --backends=REGEX, any Google Benchmark flag).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DPK_BUILD_DIR:-$root/build}
python=${PYTHON:-python3}
BUILD_TARGETS="dpk_bench _core" "$root/scripts/setup.sh"
"$python" -c "import matplotlib" 2>/dev/null || "$python" -m pip install -q matplotlib
if [ -x "$root/scripts/setup-intel-opencl.sh" ]; then
  eval "$("$root/scripts/setup-intel-opencl.sh" 2>/dev/null)" || true
fi
out="$build/bench"
mkdir -p "$out"
"$build/bin/dpk_bench" --benchmark_out="$out/results.json" --benchmark_out_format=json "$@"
"$python" "$root/bench/report.py" "$out/results.json" "$out"
# The stated targets (host triad and pairwise distance at >= 90% of oneTBB) in paired rounds:
# dpk and the baseline alternate, so a noisy machine cannot favour either side (Paired.h).
"$build/bin/dpk_bench" --paired --workloads='^(triad|vector_add|pairwise_distance)$' \
  --backends='^(dpk:host|tbb$)' --paired-out="$out/paired.json" | tee "$out/paired.md"
# The Python side: warm dpk.call_kernel overhead (0, 1, 4, 8 arrays) and first-call compile time.
PYTHONPATH="$build/python" "$python" "$root/frontends/python/benchmarks/launch_overhead.py" \
  --device host --json "$out/python-launch.json" | tee "$out/python-launch.txt"
