"""One device per process: the node-local rank of an MPI (or Slurm, Flux, PALS) job and the
device a rank should use.

Launchers tell each process its place among the processes of its node through environment
variables; no MPI call is needed (so this works before, and without, ``MPI.Init``), which
matters because asking MPI for the node-local rank (``Split_type(COMM_TYPE_SHARED)``) is a
collective call that every rank would have to make together.
"""

from __future__ import annotations

import os

from .._core_loader import core
from .._runtime.devices import Device, Queue, default_device, get_devices
from .._runtime.devices import select_device as _select_one

# Checked in this order; the first one set wins. DPK_LOCAL_RANK lets a wrapper script (or a
# test) say it explicitly.
LOCAL_RANK_VARIABLES = (
    "DPK_LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK",   # Open MPI (mpiexec/mpirun, prterun)
    "MPI_LOCALRANKID",              # MPICH's Hydra, Intel MPI
    "MV2_COMM_WORLD_LOCAL_RANK",    # MVAPICH2
    "PMI_LOCAL_RANK",               # PMI-based launchers
    "PALS_LOCAL_RANKID",            # HPE/Cray PALS (aprun's successor)
    "FLUX_TASK_LOCAL_ID",           # Flux
    "JSM_NAMESPACE_LOCAL_RANK",     # IBM jsrun
    "SLURM_LOCALID",                # srun (also set when srun launches MPI ranks)
)


def local_rank(comm=None):
    """This process's rank among the processes of its node, or None outside a parallel job.

    Read from the launcher's environment (LOCAL_RANK_VARIABLES, first set wins). With `comm`
    (an mpi4py communicator) and no such variable, it is computed by MPI: that is a collective
    call, so every rank of `comm` must call it together."""
    for name in LOCAL_RANK_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            try:
                rank = int(value)
            except ValueError:
                raise ValueError(f"local rank: {name}={value!r} is not an integer") from None
            if rank < 0:
                raise ValueError(f"local rank: {name}={value!r} is negative")
            return rank
    if comm is None:
        return None
    from mpi4py import MPI  # only when asked to compute it
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        return node.Get_rank()
    finally:
        node.Free()


_job_local_rank = local_rank  # select_device's parameter of the same name hides the function


def _candidates(filter_string):
    """The devices a rank chooses among, best first: those the filter matches (for None or "",
    the devices of the default device's backend and type, so that ranks spread over the GPUs
    the policy prefers rather than over every device)."""
    devices = get_devices()
    if not filter_string:
        first = default_device()
        return [d for d in devices
                if d.backend == first.backend and d.device_type == first.device_type]
    return [devices[i] for i in core().matching_devices(filter_string)]


def select_device(filter_string=None, local_rank=None) -> Device:
    """``dpk.select_device(filter=None, local_rank=None)``: the device a filter string selects
    (a Device or Queue passes through), spread over the processes of a node.

    Outside a parallel job (no `local_rank` given and none in the environment) this is the best
    device the filter matches, as always. In a job, rank r of a node gets the r-th of the
    devices the filter matches, best first, wrapping around when a node runs more ranks than
    there are devices (they then share). So ``dpk.select_device("gpu")`` under
    ``mpiexec -n 2`` on a two-GPU node gives rank 0 the first GPU and rank 1 the second; a
    filter that names one device ("cuda:gpu:1", "host") gives every rank that device. With
    None or "" the ranks spread over the devices of the policy's default device's backend and
    type. A filter nothing matches is NoDeviceError listing the devices present."""
    if isinstance(filter_string, (Device, Queue)):
        return _select_one(filter_string)
    if local_rank is None:
        local_rank = _job_local_rank()
        if local_rank is None:
            return _select_one(filter_string)
    if isinstance(local_rank, bool) or not isinstance(local_rank, int) or local_rank < 0:
        raise ValueError(f"select_device: local_rank must be a non-negative integer, not "
                         f"{local_rank!r}")
    if filter_string is not None and not isinstance(filter_string, str):
        return _select_one(filter_string)  # raises its TypeError
    candidates = _candidates(filter_string)
    if not candidates:
        return _select_one(filter_string)  # raises NoDeviceError listing the devices
    return candidates[local_rank % len(candidates)]
