"""Device memory of dpk arrays, and the stride arithmetic of views over it.

A ``Buffer`` is one allocation on one device (or foreign memory it wraps: a CUDA array, a NumPy
array on the host device, kept alive through ``owner``). Arrays are views of buffers: an
element offset, a shape and strides in elements (negative and zero strides allowed).

Freed allocations go to a pool (per device, sizes rounded up to 1/16 of their power of two) and
serve later allocations of the same bucket, as CuPy's memory pool does: array code allocates a
result per operation, and a fresh allocation costs a driver call on a GPU and page faults on
first touch on the host (a 64 MiB result: about 16 000 of them). The pool holds at most
``POOL_LIMIT`` bytes per device (``DPK_ARRAY_POOL_MB``, 0 turns it off). Array kernels are
waited for before their operands can be freed, so a pooled block is never in use.
"""

from __future__ import annotations

import functools
import os
import threading

from .._core_loader import core
from .._errors import OutOfMemoryError

_MEM_DEVICE = 1

POOL_LIMIT = int(os.environ.get("DPK_ARRAY_POOL_MB", "1024")) << 20
_pool = {}          # (device, bucket size) -> [addresses] (a Device is unique per device)
_pool_bytes = {}    # device -> bytes held
_pool_lock = threading.Lock()


def _bucket(nbytes):
    if nbytes <= 512:
        return 512
    step = 1 << max(nbytes.bit_length() - 4, 0)
    return -(-nbytes // step) * step


def _free(ptr):
    try:
        core().mem_free(ptr)
    except Exception:  # interpreter shutdown: the process frees everything anyway
        pass


def _release(device, size, ptr):
    """Returns a block to the pool, or frees it when the pool is full (after the device's
    queue has run everything that may still use it)."""
    with _pool_lock:
        held = _pool_bytes.get(device, 0)
        if held + size <= POOL_LIMIT:
            blocks = _pool.get((device, size))
            if blocks is None:
                blocks = _pool[(device, size)] = []
            blocks.append(ptr)
            _pool_bytes[device] = held + size
            return
    device.synchronize()
    _free(ptr)


def _allocate(device, nbytes):
    """(address, bucket size) of a block of at least nbytes on device (pooled if possible)."""
    if nbytes >= 1 << 62:
        raise OutOfMemoryError(f"an array of {nbytes} bytes exceeds the address space of "
                               f"{device.filter_string}")
    size = _bucket(max(1, nbytes))
    with _pool_lock:
        blocks = _pool.get((device, size))
        if blocks:
            _pool_bytes[device] -= size
            return blocks.pop(), size
    try:
        return core().mem_alloc(device._dev, _MEM_DEVICE, size), size
    except MemoryError:
        release_pool(device)
        return core().mem_alloc(device._dev, _MEM_DEVICE, size), size


def release_pool(device=None):
    """Frees the pooled blocks (of one device, or of all)."""
    with _pool_lock:
        keys = [k for k in _pool if device is None or k[0] is device]
        blocks = [p for k in keys for p in _pool.pop(k)]
        for k in keys:
            _pool_bytes[k[0]] = 0
    if device is not None:
        device.synchronize()
    for p in blocks:
        _free(p)


class Buffer:
    """Device memory: ``ptr`` (an address), ``nbytes``, ``device``; freed with its last
    reference unless it wraps foreign memory (``owner``). ``read_only``: foreign memory its
    producer lent read-only (a read-only NumPy array or DLPack tensor); kernels refuse to write
    it and exports carry the flag (interchange.py)."""

    __slots__ = ("ptr", "nbytes", "device", "owner", "read_only", "_block", "__weakref__")

    def __init__(self, device, nbytes, ptr=None, owner=None, read_only=False):
        self._block = None
        self.device = device
        self.nbytes = nbytes
        self.owner = owner
        self.read_only = read_only
        if ptr is None:
            ptr, size = _allocate(device, nbytes)
            self._block = (device, size)
        else:
            self._block = None
        self.ptr = ptr

    def __del__(self):
        # (__del__ rather than weakref.finalize: a finalizer costs more than the launch of a
        # one-element kernel)
        block = self._block
        if block is not None:
            try:
                _release(block[0], block[1], self.ptr)
            except Exception:  # interpreter shutdown
                pass


def c_strides(shape):
    """C-contiguous strides in elements."""
    return _c_strides(shape if type(shape) is tuple else tuple(shape))


@functools.lru_cache(maxsize=1024)
def _c_strides(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def broadcast_shape(shapes):
    """The shape `shapes` broadcast to (the standard's rule), or None when they do not
    broadcast; callers raise the error their operation calls for."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, extent in enumerate(s):
            j = ndim - len(s) + i
            if extent == out[j] or extent == 1:
                continue
            if out[j] != 1:
                return None
            out[j] = extent
    return tuple(out)


def size_of(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def is_c_contiguous(shape, strides):
    step = 1
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != step:
            return False
        step *= extent
    return True


def element_range(offset, shape, strides):
    """(first, last) element indices a view touches (None for an empty view)."""
    if size_of(shape) == 0:
        return None
    lo = hi = offset
    for extent, stride in zip(shape, strides):
        span = (extent - 1) * stride
        if span < 0:
            lo += span
        else:
            hi += span
    return lo, hi


def overlaps(buf_a, off_a, shape_a, strides_a, isz_a, buf_b, off_b, shape_b, strides_b, isz_b):
    """Whether two views may share bytes (conservative: by byte ranges)."""
    if buf_a is not buf_b:
        return False
    ra = element_range(off_a, shape_a, strides_a)
    rb = element_range(off_b, shape_b, strides_b)
    if ra is None or rb is None:
        return False
    a0, a1 = ra[0] * isz_a, ra[1] * isz_a + isz_a
    b0, b1 = rb[0] * isz_b, rb[1] * isz_b + isz_b
    return a0 < b1 and b0 < a1


def broadcast_strides(shape, strides, target):
    """Strides of a view of `shape` broadcast to `target` (right-aligned, 0 where broadcast)."""
    lead = len(target) - len(shape)
    out = [0] * lead
    for extent, stride, t in zip(shape, strides, target[lead:]):
        out.append(0 if extent == 1 and t != 1 else stride)
    return out


def collapse(shape, stride_lists):
    """Merges adjacent dimensions that every operand steps through as one, drops extent-1
    dimensions; returns (shape, [strides per operand]) with at least one dimension."""
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if not dims:
        return [1], [[0] for _ in stride_lists]
    out_shape = [shape[dims[-1]]]
    out_strides = [[s[dims[-1]]] for s in stride_lists]
    for d in reversed(dims[:-1]):
        inner_extent = out_shape[0]
        if all(s[d] == merged[0] * inner_extent for s, merged in zip(stride_lists, out_strides)):
            out_shape[0] *= shape[d]
            continue
        out_shape.insert(0, shape[d])
        for s, merged in zip(stride_lists, out_strides):
            merged.insert(0, s[d])
    return out_shape, out_strides
