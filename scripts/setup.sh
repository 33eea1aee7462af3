#!/usr/bin/env bash
# setup.sh - installs what dpk needs on a fresh Debian bookworm machine (apt and pip), then
# configures and builds it in build/, and installs the Python package editable into build/venv
# (full builds only). Idempotent: a second run installs nothing and rebuilds only what changed.
# Used by demo.sh and test.sh; BUILD_TARGETS selects what to build.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DPK_BUILD_DIR:-$root/build}

apt_packages=(
  build-essential cmake ninja-build ccache pkg-config git
  llvm-15-dev libllvmspirvlib-15-dev spirv-tools
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libze-dev libtbb-dev libhwloc-dev libyaml-cpp-dev
  libopenblas0-pthread  # the host's vendor GEMM, opened at run time (backends/host/blas.cpp)
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-dev python3-venv
  openmpi-bin libopenmpi-dev
)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
if ! "$python" -c "import numpy, pytest, nanobind, scikit_build_core, dask, distributed, mpi4py" 2>/dev/null \
   || ! "$python" -m pip show -q intel-opencl-rt intel-cmplr-lib-rt >/dev/null 2>&1; then
  echo "setup: installing Python packages"
  "$python" -m pip install -q --disable-pip-version-check numpy pytest nanobind scikit-build-core intel-opencl-rt intel-cmplr-lib-rt dask distributed mpi4py
fi

# --deps-only: the packages above and nothing else (scripts/build-wheel.sh builds on its own).
[ "${1:-}" = --deps-only ] && exit 0

# The venv the Python package is installed into (editable, below); it sees the packages above.
venv=$build/venv
[ -x "$venv/bin/python" ] || "$python" -m venv --system-site-packages "$venv"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDPK_BUILD_PYTHON=ON -DPython_EXECUTABLE="$venv/bin/python" "${launcher[@]}" >/dev/null
fi
# Two jobs: the machines this runs on have two cores, and LLVM-heavy units need the memory.
ninja -C "$build" -j"${DPK_JOBS:-2}" ${BUILD_TARGETS:-}

# Full builds also install the package editable into the venv (what test.sh's pytest imports),
# reusing this build folder as scikit-build-core's build-dir with the same settings, so nothing
# compiles twice: pip reconfigures, finds the build current and installs (seconds).
if [ -z "${BUILD_TARGETS:-}" ]; then
  if ! CMAKE_BUILD_PARALLEL_LEVEL=${DPK_JOBS:-2} "$venv/bin/python" -m pip install -q \
        --no-build-isolation --no-deps --disable-pip-version-check -e "$root" \
        -Cbuild-dir="$build" -Ccmake.build-type=RelWithDebInfo \
        -Ccmake.define.DPK_BUILD_TESTS=ON -Ccmake.define.DPK_BUILD_BENCH=ON \
        > "$build/pip-editable.log" 2>&1; then
    tail -n 30 "$build/pip-editable.log"
    echo "setup: pip install -e failed (log: $build/pip-editable.log)" >&2
    exit 1
  fi
fi
