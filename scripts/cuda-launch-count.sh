#!/usr/bin/env bash
# cuda-launch-count.sh - instructions per C API launch on the CUDA plugin, counted with callgrind
# against the fake CUDA driver (tests/backends/cuda/fake_driver; no GPU needed). docs/benchmarks.md,
# "CUDA plugin launch path, counted against a fake driver", has the method and the figures.
#
# Usage: scripts/cuda-launch-count.sh [build-dir] [launches]   (defaults: build, 2000)
#
# The loop (dpk_cuda_launch_count) launches an empty IR kernel with four pointer arguments
# through dpk_enqueue_launch without an event, on an in-order queue, after one warm-up launch
# that compiles it and makes its launch plan. Each count is taken twice, over N and 5N
# launches, with collection toggled on only inside the functions named; the difference / 4N is
# the steady-state cost of one launch (start-up, the warm-up and the end cancel out):
#   total   dpk_enqueue_launch (+ dpk_queue_wait): the C API, the core and everything below;
#   plugin  the CUDA plugin's enqueueLaunch (+ queueFinish), driver calls included;
#   driver  the fake driver's entry points (cu*): what the plugin spends in the driver.
# plugin own = plugin - driver; core and C API = total - plugin.
set -euo pipefail
set -f # the function patterns below (dpk::cuda::enqueueLaunch*, cu*) are callgrind's, not globs
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
n=${2:-2000}
command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install -y valgrind" >&2; exit 1; }
ninja -C "$build" dpk_cuda_launch_count >/dev/null
tool=$build/bin/dpk_cuda_launch_count
export DPK_CUDA_LIBRARY=$build/lib/dpk/testdrivers/libdpk_fake_cuda.so
export DPK_FORCE_PLUGINS=$build/lib/dpk/plugins/libdpk_backend_cuda.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export DPK_CACHE_DIR=$work/cache
"$tool" 1 >/dev/null # fills the kernel cache, so the counted runs do not compile

# collected <launches> <mode> <toggle>...: instructions collected inside the toggled functions.
collected() {
  local launches=$1 mode=$2
  shift 2
  local toggles=()
  for fn in "$@"; do toggles+=("--toggle-collect=$fn"); done
  valgrind --tool=callgrind --collect-atstart=no "${toggles[@]}" \
    --callgrind-out-file="$work/out" "$tool" "$launches" "$mode" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# per_launch <mode> <toggle>...: (count over 5N - count over N) / 4N.
per_launch() {
  local mode=$1
  shift
  local small large
  small=$(collected "$n" "$mode" "$@")
  large=$(collected $((5 * n)) "$mode" "$@")
  echo $(( (large - small + 2 * n) / (4 * n) ))
}

report() { # mode label api-functions plugin-functions
  local mode=$1 label=$2 api=$3 plugin=$4
  local total pluginIr driver
  # shellcheck disable=SC2086
  total=$(per_launch "$mode" $api)
  # shellcheck disable=SC2086
  pluginIr=$(per_launch "$mode" $plugin)
  driver=$(per_launch "$mode" 'cu*')
  printf '%-16s total %5d  core+C API %5d  plugin own %5d  driver (fake) %4d\n' \
    "$label" "$total" $((total - pluginIr)) $((pluginIr - driver)) "$driver"
}

echo "instructions per launch (callgrind, N=$n and 5N, fake CUDA driver, build $build)"
report enqueue "enqueue only" 'dpk_enqueue_launch' 'dpk::cuda::enqueueLaunch*'
report wait "launch + wait" 'dpk_enqueue_launch dpk_queue_wait' \
  'dpk::cuda::enqueueLaunch* dpk::cuda::queueFinish*'
