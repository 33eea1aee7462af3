#!/usr/bin/env bash
# sanitize.sh - the C++ test suite under AddressSanitizer + UndefinedBehaviorSanitizer (the
# stress and fault tests of tests/stress included), then the scheduler (queue/event/runtime),
# host-backend and threaded stress tests (StressThreads: many threads on every device, shared
# queues, programs born and released concurrently), the launch plans (threads sharing and
# replacing a kernel's plans) and the CUDA plugin's launches from several threads (over the fake
# driver) under ThreadSanitizer. Separate build folders (build-asan/, build-tsan/) so the normal
# build stays untouched. Run before resolving changes to the runtime, the loader or a backend;
# too slow for every CI run on two cores.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" >/dev/null
launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
export DPK_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$DPK_CACHE_DIR"' EXIT

run_suite() { # name sanitizer test-regex
  local dir="$root/build-$1"
  [ -f "$dir/build.ninja" ] || cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
      -DDPK_SANITIZE="$2" -DDPK_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
  ninja -C "$dir" -j"${DPK_JOBS:-2}"
  ctest --test-dir "$dir" --output-on-failure -j"${DPK_JOBS:-2}" -R "$3"
}

# LLVM's JIT and the OpenCL drivers are not built with sanitizers; leaks inside them are theirs.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_suite asan address '.*'
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan.supp
run_suite tsan thread 'HostBackend|Runtime|Queue|Event|Loader|CApi|StressThreads|LaunchPlan|FakeCuda'
