#!/usr/bin/env bash
# test.sh - the whole test suite from a fresh machine: installs and builds (setup.sh), then runs
# every C++ test (CTest, including the benchmark smoke run), the SPIR-V corpus on Intel's
# OpenCL CPU runtime, and the Python tests. Exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DPK_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"

# OpenCL platforms for the tests: PoCL (Debian) and Intel's CPU runtime (PyPI, takes SPIR-V).
opencl_env=$("$root/scripts/setup-intel-opencl.sh") # fails the run if Intel's platform is missing
eval "$opencl_env"
# The conformance suite must see both CPU OpenCL platforms: an ICD loader that silently drops
# one (a missing library, a too-old oneTBB) fails the run instead of shrinking it.
export DPK_CONFORMANCE_REQUIRE="Intel,pthread"

# Tests get a private kernel cache so that they neither read nor pollute the user's.
export DPK_CACHE_DIR="$build/test-cache"
rm -rf "$DPK_CACHE_DIR"

echo "== C++ tests (ctest)"
ctest --test-dir "$build" --output-on-failure -j"${DPK_JOBS:-2}" --timeout 600

if [ -d "$root/frontends/python/tests" ]; then
  echo "== Python tests (pytest, on the editable install in $build/venv)"
  # From the build folder, without PYTHONPATH: only the installed package can be imported.
  (cd "$build" && env -u PYTHONPATH ./venv/bin/python -m pytest -q "$root/frontends/python/tests")
fi
