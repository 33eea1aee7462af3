"""Run by test_mpi.py under ``mpiexec -n 2``: dpk arrays in mpi4py's buffer-based calls.

Each check runs on every rank; a rank prints "rank R ok: N checks" when all of its checks
passed (an assertion error otherwise, which mpiexec reports as a failed rank).

  - host arrays passed as they are (the buffer protocol) to Send/Recv, Sendrecv, Allreduce
    (also in place), Bcast and Allgather, in float64, float32 and int32;
  - the same through DLPack alone (a wrapper that has only ``__dlpack__`` and
    ``__dlpack_device__``), as mpi4py takes device arrays;
  - a read-only array refused as a receive buffer;
  - arrays of the other devices present (OpenCL here; CUDA on the GPU machine) through
    dpk.scaleout.mpi's helpers: staged through the host where MPI cannot address them (a
    direct call is refused with dpk's BufferError for OpenCL memory), passed as they are to a
    CUDA-aware MPI; a strided host view is staged too;
  - the node-local rank from mpiexec's environment and select_device spreading the ranks.
"""

import sys

import numpy as np
from mpi4py import MPI

import dpk
from dpk.scaleout import local_rank
from dpk.scaleout import mpi as dmpi

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
assert size == 2, f"run with mpiexec -n 2, not {size}"
other = 1 - rank
checks = 0


class DLPackOnly:
    """An object mpi4py can reach only through DLPack (no buffer protocol)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def same(got, expected, what):
    global checks
    got = np.asarray(got.asnumpy() if isinstance(got, dpk.Array) else got)
    assert got.dtype == np.asarray(expected).dtype, (what, got.dtype)
    np.testing.assert_array_equal(got, expected, err_msg=f"rank {rank}: {what}")
    checks += 1


def values(r, dtype, n=6):
    return (np.arange(n) * (r + 1) + 10 * r).astype(dtype)


def direct_calls(wrap, device, label):
    """Send/Recv, Sendrecv, Allreduce, Bcast, Allgather with arrays `wrap`ped as given."""
    for dtype in (np.float64, np.float32, np.int32):
        what = f"{label} {np.dtype(dtype).name}"
        mine = dpk.asarray(values(rank, dtype), device=device)
        # Send/Recv: rank 0 sends first, then rank 1 answers.
        box = dpk.zeros(6, dtype=dtype, device=device)
        if rank == 0:
            comm.Send(wrap(mine), dest=1, tag=7)
            comm.Recv(wrap(box), source=1, tag=8)
        else:
            comm.Recv(wrap(box), source=0, tag=7)
            comm.Send(wrap(mine), dest=0, tag=8)
        same(box, values(other, dtype), f"{what} Send/Recv")
        box = dpk.zeros(6, dtype=dtype, device=device)
        comm.Sendrecv(wrap(mine), dest=other, recvbuf=wrap(box), source=other)
        same(box, values(other, dtype), f"{what} Sendrecv")
        # Allreduce into another array, and in place.
        total = dpk.zeros(6, dtype=dtype, device=device)
        comm.Allreduce(wrap(mine), wrap(total), op=MPI.SUM)
        expected = values(0, dtype) + values(1, dtype)
        same(total, expected, f"{what} Allreduce")
        inplace = dpk.asarray(values(rank, dtype), device=device)
        comm.Allreduce(MPI.IN_PLACE, wrap(inplace), op=MPI.MAX)
        same(inplace, np.maximum(values(0, dtype), values(1, dtype)), f"{what} Allreduce MAX")
        # Bcast from rank 1.
        shared = dpk.asarray(values(rank, dtype), device=device)
        comm.Bcast(wrap(shared), root=1)
        same(shared, values(1, dtype), f"{what} Bcast")
        # Allgather: every rank's block, in rank order.
        gathered = dpk.zeros((size, 6), dtype=dtype, device=device)
        comm.Allgather(wrap(mine), wrap(gathered))
        same(gathered, np.stack([values(0, dtype), values(1, dtype)]), f"{what} Allgather")
    # A 2-D array goes as it is too.
    grid = dpk.asarray(np.arange(12.0).reshape(3, 4) + rank, device=device)
    out = dpk.zeros((3, 4), dtype=dpk.float64, device=device)
    comm.Allreduce(wrap(grid), wrap(out))
    same(out, 2 * np.arange(12.0).reshape(3, 4) + 1, f"{label} 2-D Allreduce")


host = dpk.select_device("host")
direct_calls(lambda a: a, host, "host/buffer")
direct_calls(DLPackOnly, host, "host/DLPack")

# A read-only array is no receive buffer (mpi4py asks for a writable buffer).
frozen = np.arange(6.0)
frozen.flags.writeable = False
try:
    comm.Sendrecv(dpk.asarray(values(rank, np.float64)), dest=other,
                  recvbuf=dpk.from_dlpack(frozen), source=other)
except BufferError as exc:
    assert "writ" in str(exc).lower(), exc
    checks += 1
else:
    raise AssertionError("a read-only dpk array was accepted as a receive buffer")

# The helpers on host arrays pass them as they are (no staging) and give the same answers.
mine = dpk.asarray(values(rank, np.float64), device=host)
assert dmpi.addressable(mine)
same(dmpi.allreduce(comm, mine), values(0, np.float64) + values(1, np.float64),
     "helper allreduce (host)")
same(dmpi.allgather(comm, mine), np.stack([values(0, np.float64), values(1, np.float64)]),
     "helper allgather (host)")
# The loaded MPI library is asked whether it is CUDA-aware (Debian's Open MPI is not).
assert isinstance(dmpi.mpi_cuda_aware(), bool)

def staged_calls(dev):
    """dpk.scaleout.mpi's helpers on arrays of `dev`: passed as they are when MPI can address
    them (a CUDA device with a CUDA-aware MPI), staged through the host otherwise."""
    global checks
    mine = dpk.asarray(values(rank, np.float32), device=dev)
    direct = dmpi.addressable(mine)
    assert direct == (dev.backend == "cuda" and dmpi.mpi_cuda_aware()), (dev, direct)
    if direct:  # mpi4py takes the CUDA array through DLPack (kDLCUDA, stream=-1)
        total = dpk.zeros(6, dtype=np.float32, device=dev)
        comm.Allreduce(mine, total)
        same(total, values(0, np.float32) + values(1, np.float32), f"{dev} direct Allreduce")
    elif dev.backend != "cuda":  # a CUDA pointer must never reach a non-CUDA-aware MPI
        try:
            comm.Allreduce(mine, dpk.zeros(6, dtype=np.float32, device=dev))
        except BufferError as exc:
            assert dev.backend in str(exc).lower(), exc
            checks += 1
        else:
            raise AssertionError(f"MPI was handed {dev} memory")
    total = dmpi.allreduce(comm, mine)
    assert total.device is dev
    same(total, values(0, np.float32) + values(1, np.float32), f"{dev} allreduce")
    inplace = dpk.asarray(values(rank, np.float32), device=dev)
    dmpi.allreduce(comm, inplace, op=MPI.MIN, out=inplace)
    same(inplace, np.minimum(values(0, np.float32), values(1, np.float32)),
         f"{dev} allreduce in place")
    shared = dpk.asarray(values(rank, np.float32), device=dev)
    dmpi.bcast(comm, shared, root=0)
    same(shared, values(0, np.float32), f"{dev} bcast")
    same(dmpi.allgather(comm, mine), np.stack([values(0, np.float32), values(1, np.float32)]),
         f"{dev} allgather")
    box = dpk.zeros(6, dtype=np.float32, device=dev)
    if rank == 0:
        dmpi.send(comm, mine, dest=1)
        dmpi.recv(comm, box, source=1)
    else:
        dmpi.recv(comm, box, source=0)
        dmpi.send(comm, mine, dest=0)
    same(box, values(other, np.float32), f"{dev} send/recv")


# Devices MPI may not address: OpenCL (never), CUDA (only with a CUDA-aware MPI).
for name in ("opencl:cpu", "cuda:gpu", "opencl:gpu"):
    if dpk.has_device(name):
        staged_calls(dpk.select_device(name, local_rank=0))

# A strided view of a host array is staged too (mpi4py takes contiguous buffers only).
grid = dpk.asarray(np.arange(12.0).reshape(3, 4) * (rank + 1), device=host)
column = grid[:, 1]
assert not dmpi.addressable(column)
dmpi.allreduce(comm, column, out=column)
same(grid, np.where(np.arange(4) == 1, 3.0, rank + 1.0) * np.arange(12.0).reshape(3, 4),
     "staged allreduce of a strided view, written back in place")

# mpiexec tells each rank its node-local rank; select_device spreads ranks over the matches.
assert local_rank() == comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank(), local_rank()
assert local_rank(comm) == local_rank()
cpus = [d for d in dpk.get_devices() if d.device_type == "cpu"]
assert dpk.select_device("cpu") is cpus[local_rank() % len(cpus)]
assert dpk.select_device("host") is host
checks += 1

print(f"rank {rank} ok: {checks} checks", flush=True)
sys.exit(0)
