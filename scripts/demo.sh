#!/usr/bin/env bash
# demo.sh - dpk's main job in one command: install, build, and run kernels on every device the
# machine offers (host CPU first, then OpenCL/CUDA/Level Zero devices that are present).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DPK_BUILD_DIR:-$root/build}
BUILD_TARGETS="dpk-demo dpk-ls" "$root/scripts/setup.sh"
if [ -x "$root/scripts/setup-intel-opencl.sh" ]; then
  eval "$("$root/scripts/setup-intel-opencl.sh" 2>/dev/null)" || true
fi
exec "$build/bin/dpk-demo" "$@"
