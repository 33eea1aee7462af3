"""dpk arrays in mpi4py's buffer-based calls, on any device.

mpi4py (4.x) takes a buffer argument through, in this order, the buffer protocol, DLPack
(``__dlpack_device__`` then ``__dlpack__(stream=-1, max_version=(1, 0), copy=False)`` for
non-CPU devices) and ``__cuda_array_interface__``. A dpk array therefore goes to
``comm.Send``/``Recv``/``Allreduce``/``Bcast``/``Allgather`` as it is when MPI can address its
memory:

  - host arrays: the buffer protocol, zero-copy (receive buffers must be writable);
  - CUDA arrays: DLPack as kDLCUDA over the array's own memory, zero-copy, which only a
    CUDA-aware MPI library can use (``stream=-1``: dpk has already waited for its queue, so
    MPI may read the memory at once);
  - OpenCL and Level Zero arrays: their USM device memory is addressable by no MPI library
    through DLPack (dpk reports kDLOpenCL/kDLOneAPI and refuses a zero-copy export), so they
    must be staged through host memory.

The functions here (``send``, ``recv``, ``allreduce``, ``bcast``, ``allgather``) do that
choice: arrays whose memory the loaded MPI library can address (``addressable``) are passed
directly, the others through a host copy that is written back afterwards. ``staged(array)`` is
the same staging as a ``with`` block, for any other mpi4py call.

Whether the MPI library is CUDA-aware is asked from the library mpi4py loaded
(``MPIX_Query_cuda_support``, which Open MPI and MPICH export); ``DPK_MPI_CUDA_AWARE=1`` or
``=0`` overrides the answer. A library that cannot say is taken as not CUDA-aware (staging is
slower but never wrong).
"""

from __future__ import annotations

import contextlib
import ctypes
import os

import numpy as np

from ..arrays.array_object import Array
from ..arrays.creation_functions import empty

_cuda_aware = None  # the MPI library's answer, asked once


def _mpi():
    from mpi4py import MPI  # optional dependency: imported when an MPI helper is used
    return MPI


def _loaded_libmpi():
    """The path of the libmpi this process loaded (mpi4py dlopens it privately, so its symbols
    are not in the global namespace), or None."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.rstrip("\n").split(maxsplit=5)[-1]
                if os.path.basename(path).startswith("libmpi.so"):
                    return path
    except OSError:
        pass
    return None


def mpi_cuda_aware() -> bool:
    """Whether the MPI library mpi4py loaded accepts CUDA device pointers in its calls
    (``DPK_MPI_CUDA_AWARE=0|1`` overrides)."""
    global _cuda_aware
    forced = os.environ.get("DPK_MPI_CUDA_AWARE", "").strip().lower()
    if forced in ("1", "true", "yes", "on"):
        return True
    if forced in ("0", "false", "no", "off"):
        return False
    if _cuda_aware is None:
        _mpi()  # loads libmpi
        answer = False
        path = _loaded_libmpi()
        if path is not None:
            try:
                query = getattr(ctypes.CDLL(path), "MPIX_Query_cuda_support", None)
            except OSError:
                query = None
            if query is not None:
                query.restype, query.argtypes = ctypes.c_int, []
                answer = bool(query())
        _cuda_aware = answer
    return _cuda_aware


def addressable(array) -> bool:
    """Whether the loaded MPI library can read and write `array`'s memory directly (so mpi4py
    can be given the array itself): host arrays always, CUDA arrays when MPI is CUDA-aware,
    others never. Only C-contiguous arrays qualify: mpi4py takes contiguous buffers."""
    if not isinstance(array, Array):
        return True  # NumPy arrays and other buffers: mpi4py's business
    device = array.device
    if device.is_host:
        where = True
    elif device.backend == "cuda":
        where = mpi_cuda_aware()
    else:
        where = False
    return where and _c_contiguous(array)


def _c_contiguous(array):
    step = array.dtype.itemsize
    for extent, stride in zip(reversed(array.shape), reversed(array.strides)):
        if extent > 1 and stride != step:
            return False
        step *= extent
    return True


@contextlib.contextmanager
def staged(array, *, read=True, write=True):
    """``with staged(a) as buf: comm.Xxx(..., buf, ...)``: `buf` is `a` itself when MPI can
    address it (``addressable``), else a C-contiguous NumPy copy of it (filled from `a` when
    `read`, written back into `a` at the end of the block when `write` and no exception left
    it). Send buffers want ``write=False``, receive buffers ``read=False``."""
    if addressable(array):
        if isinstance(array, Array):
            array.device.synchronize()  # work queued asynchronously on it is done first
        yield array
        return
    host = array.asnumpy() if read else np.empty(array.shape, dtype=array.dtype)
    yield host
    if write:
        array[...] = host


def _count_check(what, array, expected_shape):
    if tuple(array.shape) != tuple(expected_shape):
        raise ValueError(f"{what}: the output has shape {tuple(array.shape)}, expected "
                         f"{tuple(expected_shape)}")


def send(comm, array, dest, tag=0):
    """``comm.Send`` of a dpk array of any device (staged through the host when MPI cannot
    address its memory)."""
    with staged(array, write=False) as buf:
        comm.Send(buf, dest=dest, tag=tag)


def recv(comm, array, source=None, tag=None, status=None):
    """``comm.Recv`` into a dpk array of any device (in place); returns the array."""
    MPI = _mpi()
    source = MPI.ANY_SOURCE if source is None else source
    tag = MPI.ANY_TAG if tag is None else tag
    with staged(array, read=False) as buf:
        comm.Recv(buf, source=source, tag=tag, status=status)
    return array


def bcast(comm, array, root=0):
    """``comm.Bcast`` of a dpk array of any device (in place on every rank); returns it."""
    with staged(array, read=comm.Get_rank() == root, write=comm.Get_rank() != root) as buf:
        comm.Bcast(buf, root=root)
    return array


def allreduce(comm, array, op=None, out=None):
    """``comm.Allreduce`` of a dpk array of any device (``op`` defaults to MPI.SUM): the
    reduction over every rank's `array` into `out` (a new array on `array`'s device when None;
    `out` may be `array` itself for an in-place reduction). Returns `out`."""
    MPI = _mpi()
    op = MPI.SUM if op is None else op
    if out is None:
        out = empty(tuple(array.shape), dtype=array.dtype, device=array.device)
    _count_check("allreduce", out, array.shape)
    if out is array:
        with staged(array) as buf:
            comm.Allreduce(MPI.IN_PLACE, buf, op=op)
        return out
    with staged(array, write=False) as src, staged(out, read=False) as dst:
        comm.Allreduce(src, dst, op=op)
    return out


def allgather(comm, array, out=None):
    """``comm.Allgather`` of a dpk array of any device: every rank's `array` stacked along a
    new first axis, shape ``(comm.size,) + array.shape``, in `out` (a new array on `array`'s
    device when None). Returns `out`."""
    shape = (comm.Get_size(),) + tuple(array.shape)
    if out is None:
        out = empty(shape, dtype=array.dtype, device=array.device)
    _count_check("allgather", out, shape)
    with staged(array, write=False) as src, staged(out, read=False) as dst:
        comm.Allgather(src, dst)
    return out
