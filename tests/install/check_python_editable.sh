#!/usr/bin/env bash
# check_python_editable.sh SOURCE_DIR WORK_DIR PYTHON - the developer install of the Python
# package works: `pip install --no-build-isolation -e .` into a fresh virtual environment, then
# dpk imported from outside the source tree runs a kernel. See CMakeLists.txt beside this file.
#
# The CMake build behind the install is scikit-build-core's, in pyproject.toml's build-dir
# (build-wheel/<wheel tag>, shared with `pip install .`): it persists between runs, so a second
# run only reconfigures, finds nothing to compile and reinstalls (about a minute on two cores).
# The first run on a machine compiles the project in Release (ccache helps when it is warm).
set -euo pipefail
source=$1 work=$2 python=$3
rm -rf "$work"
mkdir -p "$work"

# --system-site-packages: the venv reuses the machine's numpy, nanobind and scikit-build-core
# (nothing is downloaded; --no-build-isolation needs them importable).
"$python" -m venv --system-site-packages "$work/venv"
venv_python="$work/venv/bin/python"

launcher=()
command -v ccache >/dev/null && launcher=(-Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache
                                          -Ccmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache)
# CMAKE_BUILD_PARALLEL_LEVEL: the machines this runs on have two cores shared with other work.
if ! CMAKE_BUILD_PARALLEL_LEVEL=${DPK_JOBS:-2} "$venv_python" -m pip install -q \
      --no-build-isolation --no-deps --disable-pip-version-check \
      -e "$source" "${launcher[@]}" > "$work/pip.log" 2>&1; then
  tail -n 40 "$work/pip.log"
  echo "editable install failed (full log: $work/pip.log)"
  exit 1
fi

# From outside the source tree and without PYTHONPATH, so only the installed package can be
# found; the installed extension must load libdpk.so and the plugins from inside the venv.
# The check is a file: dpk compiles kernels from their source, which stdin does not keep.
cd "$work"
cat > check.py <<'PY'
import os
import sys

import numpy as np

import dpk

source, venv = (os.path.realpath(p) for p in sys.argv[1:3])
# Editable: the Python sources are the source tree's, the compiled parts live in the venv.
package_src = os.path.join(source, "frontends", "python", "src", "dpk")
assert os.path.realpath(dpk.__file__).startswith(package_src), dpk.__file__
core = dpk._core_loader.core()
assert os.path.realpath(core.__file__).startswith(venv), core.__file__
assert core.HAVE_RUNTIME


@dpk.kernel
def axpy(item, a, x, y):
    i = item.get_id(0)
    y[i] = a * x[i] + y[i]


x = np.arange(16, dtype=np.float32)
y = np.ones(16, dtype=np.float32)
dpk.call_kernel(axpy, dpk.Range(16), np.float32(2), x, y)
np.testing.assert_array_equal(y, 2 * x + 1)
host = dpk.select_device("host")
assert host.backend == "host"
print("editable install: ok (extension", core.__file__, ")")
PY
env -u PYTHONPATH -u DPK_DEVICE_SELECTOR -u DPK_CONFIG DPK_CACHE_DIR="$work/cache" \
  "$venv_python" check.py "$source" "$work/venv"
