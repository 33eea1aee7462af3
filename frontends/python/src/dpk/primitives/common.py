"""What the primitives share: which shape of kernel a device gets (kernel_shape), and how
inputs are taken and results given back.

Every primitive takes dpk arrays (computing on their device, returning dpk arrays) or NumPy
arrays (computing on the host device without copies, returning NumPy arrays).

The radix sort passes and bincount come in two shapes (docs/primitives.md, "What runs where, and
why"): CPU-shaped, one work-item walking each block serially with private histograms (host and
OpenCL CPU devices), and GPU-shaped, work-groups of 256 with local-memory histograms (every other
device). DPK_PRIMITIVES_SHAPE=gpu|cpu forces one.
"""

from __future__ import annotations

import operator
import os

import numpy as np

from .._errors import DTypeError
from ..arrays import dtypes as D
from ..arrays.array_object import Array, asarray
from ..arrays.manipulation_functions import moveaxis, reshape
from ..kernels.kapi import NdRange

RADIX_BITS = 8
BINS = 1 << RADIX_BITS
_I64 = np.dtype(np.int64)


# ---- which shape of kernel ----------------------------------------------------------------------

GROUP = 256  # work-items per work-group of the GPU-shaped kernels; == BINS (item d owns digit d)
SHAPE_ENV = "DPK_PRIMITIVES_SHAPE"


def kernel_shape(device):
    """"cpu" or "gpu": which kernels the sort and bincount run on `device`.

    CPU-shaped kernels give each work-item a block of elements to walk serially (a core's
    share, with private histograms); GPU-shaped ones are NdRange kernels whose work-groups
    share local-memory histograms and rank keys together. CPUs (the host device, OpenCL CPU
    devices) get the first, every other device type the second. The environment variable
    DPK_PRIMITIVES_SHAPE=gpu (or cpu) forces one shape on every device: a testing aid, so
    that the GPU-shaped kernels run on machines without a GPU. It is read at every call."""
    forced = os.environ.get(SHAPE_ENV, "").strip().lower()
    if forced not in ("", "auto", "cpu", "gpu"):
        raise ValueError(f"{SHAPE_ENV}={forced!r}: use gpu, cpu or auto")
    if device.max_work_group_size < GROUP:
        return "cpu"  # the GPU-shaped kernels need work-groups of GROUP work-items
    if forced in ("cpu", "gpu"):
        return forced
    return "cpu" if device.device_type == "cpu" else "gpu"


# ---- inputs and outputs -----------------------------------------------------------------------

def serial_walkers(count):
    """The launch of `count` CPU-shaped work-items that each walk a block of data serially: one
    work-item per work-group, so that every walker is a task of its own on a CPU device (a
    Range lets the host backend group work-items for vectorization, which puts walkers with
    data-dependent loops and private histograms side by side on one core; measured on 16
    cores: the radix sort's 64 walkers ran as one group). Kernels launched so take an NdItem."""
    return NdRange(count, 1)


def _take_input(x, what):
    """(dpk array, whether the caller gave NumPy data)."""
    if isinstance(x, Array):
        return x, False
    arr = np.asarray(x)
    if arr.dtype not in D.ALL:
        raise DTypeError(f"{what}: dtype {arr.dtype} is not supported")
    host = asarray(np.ascontiguousarray(arr) if arr.ndim else arr, device="host",
                   copy=False if arr.ndim and arr.flags.c_contiguous else None)
    return host, True


def _give(result, numpy_mode):
    if not numpy_mode:
        return result
    if isinstance(result, tuple):
        items = [_give(r, True) for r in result]
        return type(result)(*items) if hasattr(result, "_fields") else tuple(items)
    out = np.asarray(result)
    return out[()] if out.ndim == 0 else out


def _flat(x):
    """x as a 1-D C-contiguous dpk array (a view when it already is one)."""
    return reshape(x._contiguous() if hasattr(x, "_contiguous") else x, (x.size,))


def _bitcast(x, dtype):
    """A view of contiguous x's memory as `dtype` (same item size)."""
    x = x._contiguous()
    x._materialize()
    return Array._view(x._base, x._offset, x.shape, x._strides, np.dtype(dtype), x.device)

def _rows_last(x, axis, what):
    """x with `axis` moved last, as a contiguous (M, L) matrix, and the kept shape."""
    if x.ndim == 0:
        return reshape(x, (1, 1)), ()
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"{what}: axis {axis} is out of bounds for {x.ndim} dimension(s)")
    axis %= x.ndim
    moved = moveaxis(x, axis, -1) if axis != x.ndim - 1 else x
    kept = moved.shape[:-1]
    L = moved.shape[-1]
    M = 1
    for s in kept:
        M *= s
    return reshape(moved._contiguous(), (M, L)), kept
