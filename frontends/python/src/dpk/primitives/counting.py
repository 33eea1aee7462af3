"""Counting and moving elements: bincount/histogram (private or work-group histograms, by
kernel shape), scatter_add (atomics), compaction (compact, argwhere) and searchsorted.
"""

from __future__ import annotations

import builtins

import numpy as np

from .._errors import DTypeError, ShapeError
from ..arrays import dtypes as D
from ..arrays.array_object import asarray, zeros
from ..arrays.creation_functions import full
from ..arrays.data_type_functions import astype
from ..arrays.elementwise_functions import floor_divide, not_equal
from ..arrays.indexing_functions import take
from ..arrays.manipulation_functions import stack
from ..arrays.searching_functions import nonzero, where
from ..arrays.searching_functions import searchsorted as _ss
from ..arrays.statistical_functions import max as _max, min as _min
from ..kernels.dispatcher import call_kernel, kernel
from ..kernels.kapi import (AddressSpace, AtomicRef, Item, LocalAccessor, MemoryScope, NdItem,
                           NdRange, PrivateArray, Range, group_barrier)
from .common import GROUP, _flat, _give, _take_input, kernel_shape, serial_walkers

RADIX_BITS = 8
BINS = 1 << RADIX_BITS
_I64 = np.dtype(np.int64)


# ---- histograms and scatter -------------------------------------------------------------------

@kernel
def _count_kernel(item: Item, x, counts, n, block):
    b = item.get_id(0)
    start = b * block
    end = min(start + block, n)
    for i in range(start, end):
        AtomicRef(counts, x[i]).fetch_add(1)


PRIVATE_BINS = 1024


@kernel
def _private_count_kernel(item: NdItem, x, counts, n, block, length):
    # CPUs: a block counts into its own histogram, then adds it to the result (1024 atomics
    # per block instead of one per element, which two cores contend for); one work-item per
    # work-group, so that each block is a task of its own (serial_walkers)
    b = item.get_global_id(0)
    h = PrivateArray(PRIVATE_BINS, np.int64, fill_zeros=True)
    start = b * block
    end = min(start + block, n)
    for i in range(start, end):
        h[x[i]] += 1
    for d in range(length):
        if h[d] != 0:
            AtomicRef(counts, d).fetch_add(h[d])


@kernel
def _group_count_kernel(it: NdItem, x, counts, n, length, hist):
    # GPUs: each work-group counts a grid-strided share of x into a histogram in local memory
    # (local atomics), then adds each non-zero bin to the result with one global atomic
    lid = it.get_local_id(0)
    group = it.get_group()
    stride = group.get_group_range(0) * GROUP
    for d in range(lid, PRIVATE_BINS, GROUP):
        hist[d] = 0
    group_barrier(group)
    for i in range(group.get_group_id(0) * GROUP + lid, n, stride):
        AtomicRef(hist, x[i], memory_scope=MemoryScope.WORK_GROUP,
                  address_space=AddressSpace.LOCAL).fetch_add(1)
    group_barrier(group)
    for d in range(lid, length, GROUP):
        c = hist[d]
        if c != 0:
            AtomicRef(counts, d).fetch_add(int(c))


@kernel
def _weighted_count_kernel(item: Item, x, weights, counts, n, block):
    b = item.get_id(0)
    start = b * block
    end = min(start + block, n)
    for i in range(start, end):
        AtomicRef(counts, x[i]).fetch_add(weights[i])


def _atomic_blocks(n, device):
    cores = max(device._dev.compute_units, 1)
    target = 8 * cores if device.device_type == "cpu" else 1024 * cores
    nblocks = builtins.max(1, builtins.min(target, n))
    block = -(-n // nblocks)
    return -(-n // block), block


def bincount(x, /, weights=None, minlength=0):
    """Counts of each value of the 1-D non-negative integer x (NumPy's bincount; atomics, first
    into private (CPU shape) or local-memory (GPU shape) histograms for up to 1024 bins)."""
    x, numpy_mode = _take_input(x, "bincount()")
    if x.ndim != 1 or x.dtype.kind not in "iub":
        raise DTypeError("bincount() takes a 1-D array of non-negative integers")
    n = x.size
    x = x._contiguous()
    length = minlength
    if n:
        low, high = int(_min(x)), int(_max(x))
        if low < 0:
            raise ValueError("bincount(): the values must be non-negative")
        length = builtins.max(minlength, high + 1)
    if weights is None:
        out = zeros((length,), dtype=D.int64, device=x.device)
        gpu = kernel_shape(x.device) == "gpu"
        if n and length <= PRIVATE_BINS and gpu:
            cores = max(x.device._dev.compute_units, 1)
            groups = builtins.max(1, builtins.min(8 * cores, -(-n // (4 * GROUP))))
            call_kernel(_group_count_kernel, NdRange(groups * GROUP, GROUP), x, out, n, length,
                        LocalAccessor(PRIVATE_BINS, np.int32))
        elif n and length <= PRIVATE_BINS:
            nblocks, block = _atomic_blocks(n, x.device)
            call_kernel(_private_count_kernel, serial_walkers(nblocks), x, out, n, block, length)
        elif n:
            nblocks, block = _atomic_blocks(n, x.device)
            call_kernel(_count_kernel, Range(nblocks), x, out, n, block)
    else:
        w, _ = _take_input(weights, "bincount()")
        if w.shape != x.shape:
            raise ShapeError("bincount(): weights must be shaped like x")
        wdt = D.float64 if x.device.has_fp64 else D.float32
        out = zeros((length,), dtype=wdt, device=x.device)
        if n:
            nblocks, block = _atomic_blocks(n, x.device)
            call_kernel(_weighted_count_kernel, Range(nblocks), x, astype(w, wdt)._contiguous(),
                        out, n, block)
    return _give(out, numpy_mode)


@kernel
def _scatter_add_kernel(item: Item, target, indices, values, n, block):
    b = item.get_id(0)
    start = b * block
    end = min(start + block, n)
    for i in range(start, end):
        AtomicRef(target, indices[i]).fetch_add(values[i])


def scatter_add(target, indices, values, /):
    """target[indices[i]] += values[i] for every i, duplicates accumulating (atomics), in place
    on the 1-D target; returns target. Negative indices count from the end; out of range is
    IndexError."""
    t, numpy_mode = _take_input(target, "scatter_add()")
    if t.ndim != 1:
        raise ShapeError("scatter_add(): target must be 1-D")
    idx, _ = _take_input(indices, "scatter_add()")
    if idx.dtype.kind not in "iu":
        raise DTypeError("scatter_add(): indices must be integers")
    if numpy_mode:
        idx = asarray(np.asarray(indices), device=t.device)
    idx = _flat(idx)._contiguous()
    n = idx.size
    if isinstance(values, (int, float, bool)):
        vals = full((n,), values, dtype=t.dtype, device=t.device)
    else:
        vals, _ = _take_input(values, "scatter_add()")
        if numpy_mode or vals.device is not t.device:
            vals = asarray(np.asarray(vals), device=t.device)
        vals = _flat(astype(vals, t.dtype))
        if vals.size != n:
            raise ShapeError("scatter_add(): values must have one element per index")
    if n:
        size = t.shape[0]
        low, high = int(_min(idx)), int(_max(idx))
        if low < -size or high >= size:
            raise IndexError(f"scatter_add(): index out of range for a target of {size}")
        if low < 0:
            idx = where(idx < 0, idx + size, idx)._materialize()
        nblocks, block = _atomic_blocks(n, t.device)
        call_kernel(_scatter_add_kernel, Range(nblocks), t, idx, vals._contiguous(), n, block)
    return target if numpy_mode else t


def histogram(x, /, bins=10, range=None, weights=None):
    """(counts, edges) of x in `bins` equal bins over `range` (default: x's min and max), as
    NumPy's histogram (the last bin includes its right edge; values outside are left out)."""
    x, numpy_mode = _take_input(x, "histogram()")
    flat = _flat(x)
    if range is None:
        lo, hi = (float(_min(flat)), float(_max(flat))) if flat.size else (0.0, 1.0)
    else:
        lo, hi = float(range[0]), float(range[1])
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, bins + 1)
    ftype = D.float64 if flat.device.has_fp64 else D.float32
    xf = astype(flat, ftype)
    inside = (xf >= lo) & (xf <= hi)
    index = astype(floor_divide((xf - lo) * (bins / (hi - lo)), 1), D.int64)
    index = where(index >= bins, bins - 1, where(index < 0, 0, index))
    # NumPy's correction at the edges: a value below its bin's left edge goes one down, one at
    # or above the next edge one up
    edges_dev = asarray(edges.astype(ftype), device=flat.device)
    index = where(xf < take(edges_dev, index), index - 1, index)
    index = where((xf >= take(edges_dev, index + 1)) & (index != bins - 1), index + 1, index)
    (kept,) = nonzero(inside)
    index = take(index._materialize(), kept)
    w = None
    if weights is not None:
        w = take(_flat(_take_input(weights, "histogram()")[0]), kept)
    counts = bincount(index, weights=w, minlength=bins)
    counts = counts[:bins]
    return _give((counts, asarray(edges, device=flat.device)), numpy_mode)


def compact(x, condition, /):
    """The elements of x where condition is true, in order (a scan of the flags, then a
    scatter: x[condition] of the array layer)."""
    x, numpy_mode = _take_input(x, "compact()")
    c, _ = _take_input(condition, "compact()")
    if numpy_mode:
        c = asarray(np.asarray(condition), device=x.device)
    if c.dtype != D.bool:
        c = not_equal(c, 0)
    return _give(x[c], numpy_mode)


def argwhere(x, /):
    """The coordinates of x's non-zero elements, (count, ndim) int64 (via nonzero's scan)."""
    x, numpy_mode = _take_input(x, "argwhere()")
    coords = nonzero(x)
    return _give(stack(coords, axis=1) if coords else coords, numpy_mode)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """The array layer's searchsorted, also for NumPy arrays."""
    a, numpy_mode = _take_input(x1, "searchsorted()")
    if numpy_mode:
        b = asarray(np.asarray(x2), device=a.device) if not D.is_python_scalar(x2) else x2
        s = asarray(np.asarray(sorter), device=a.device) if sorter is not None else None
        return _give(_ss(a, b, side=side, sorter=s), True)
    return _ss(a, x2, side=side, sorter=sorter)
