"""Parallel primitives over dpk (or NumPy) arrays: reduce and scan with any associative
operator, sorting (LSD radix sort), top-k, the standard's set functions, bincount/histogram,
scatter_add and compaction.

Every function takes dpk arrays (computing on their device, returning dpk arrays) or NumPy
arrays (computing on the host device without copies, returning NumPy arrays). The kernels are
``@dpk.kernel`` functions, so they run on every device; built-in operators go to the array
layer's fused reduction and scan kernels (reduction.py, scan.py).

Radix sort (``sort``, ``argsort``, and what builds on them): keys become unsigned integers whose
order is the wanted order (floats: the sign-magnitude flip, with -0.0 made +0.0 and every NaN the
largest key, as NumPy sorts; signed integers: the sign bit flipped; descending: the complement),
then 8 bits per pass: each of B blocks counts its digits, an exclusive scan over the (digit,
block) table gives every block's first slot per digit, and each block moves its elements there
in order. Blocks keep their order and each keeps its own, so every pass — and the sort — is
stable. Rows of an n-D sort are one pass more per 8 bits of the row count: the flat permutation
sorted by key is sorted again, stably, by row.

The passes and bincount come in two shapes (kernel_shape; docs/primitives.md, "What runs where,
and why"): CPU-shaped, one work-item walking each block serially with private histograms (host
and OpenCL CPU devices), and GPU-shaped, work-groups of 256 with local-memory histograms, a
per-digit scan of the count table, and a stable in-tile ranking by bit masks and popcounts
followed by coalesced stores (every other device). DPK_PRIMITIVES_SHAPE=gpu|cpu forces one.
"""

from __future__ import annotations

import builtins
import operator
import os

import numpy as np

from .._errors import DTypeError, ShapeError
from ..arrays import dtypes as D
from ..arrays.array_object import Array, asarray, empty, zeros
from ..arrays.creation_functions import arange, full
from ..arrays.data_type_functions import astype
from ..arrays.elementwise_functions import (bitwise_invert, bitwise_or,
                                            bitwise_xor, equal, floor_divide, greater_equal,
                                            isnan, logical_or, not_equal, remainder)
from ..arrays.indexing_functions import take
from ..arrays.manipulation_functions import concat, moveaxis, reshape, stack
from ..arrays.searching_functions import nonzero, where
from ..arrays.searching_functions import searchsorted as _ss
from ..arrays.statistical_functions import (cumulative_prod, cumulative_sum, max as _max,
                                            min as _min, prod, sum as _sum)
from ..arrays.utility_functions import all as _all, any as _any
from ..kernels.dispatcher import call_kernel, device_func, kernel
from ..kernels.functions import DeviceFunction
from ..kernels.kapi import (AddressSpace, AtomicRef, Item, LocalAccessor, MemoryScope, NdItem,
                           NdRange, PrivateArray, Range, group_barrier)

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
        return tuple(_give(r, True) for r in result)
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


# ---- reduce and scan --------------------------------------------------------------------------

_BUILTIN = {
    "add": "sum", "sum": "sum", "+": "sum", "multiply": "prod", "prod": "prod", "*": "prod",
    "min": "min", "minimum": "min", "max": "max", "maximum": "max",
    "logical_and": "all", "all": "all", "logical_or": "any", "any": "any",
}


def _op_name(op):
    if isinstance(op, str):
        name = _BUILTIN.get(op)
        if name is None:
            raise ValueError(f"unknown operator {op!r}: use one of {sorted(_BUILTIN)} or a "
                             "dpk.device_func")
        return name
    if isinstance(op, DeviceFunction):
        return None
    if callable(op) and getattr(op, "__name__", None) in _BUILTIN:
        return _BUILTIN[op.__name__]  # dpk.add, numpy.add, ...
    raise TypeError(f"op must be a built-in operator name or a dpk.device_func, not {op!r}")


_reduce_kernels = {}


def _reduce_kernel(op):
    found = _reduce_kernels.get(op)
    if found is not None:
        return found

    @kernel
    def reduce_rows(item: Item, x, out, length, chunk, parts):
        # item (m, p) folds part p of row m of x (M x length, contiguous) into out[m, p]
        m = item.get_id(0)
        p = item.get_id(1)
        start = p * chunk
        end = min(start + chunk, length)
        if start < end:
            acc = x[m, start]
            for i in range(start + 1, end):
                acc = op(acc, x[m, i])
            out[m, p] = acc

    _reduce_kernels[op] = reduce_rows
    return reduce_rows


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


def _fold_rows(op, mat):
    """Reduces each row of the (M, L) matrix with the device function op (L >= 1)."""
    M, L = mat.shape
    device = mat.device
    k = _reduce_kernel(op)
    cores = max(device._dev.compute_units, 1)
    while L > 1:
        target = (8 if device.device_type == "cpu" else 256) * cores
        parts = builtins.max(1, builtins.min(-(-target // M), -(-L // 64)))
        chunk = -(-L // parts)
        parts = -(-L // chunk)
        out = empty((M, parts), dtype=mat.dtype, device=device)
        call_kernel(k, Range(M, parts), mat, out, L, chunk, parts)
        mat, L = out, parts
    return reshape(mat, (M,))


def reduce(op, x, /, *, axis=None, initial=None, keepdims=False):
    """Reduces x over `axis` (None: all elements) with `op`: a built-in associative operator
    ("add", "multiply", "min", "max", "logical_and", "logical_or", or dpk.add, ...) or a
    ``dpk.device_func`` of two arguments that is associative (the grouping of the combination
    is the device's choice). ``initial`` is combined with every result (required for an empty
    reduction with a device function)."""
    x, numpy_mode = _take_input(x, "reduce()")
    name = _op_name(op)
    if name is not None:
        fn = {"sum": _sum, "prod": prod, "min": _min, "max": _max, "all": _all,
              "any": _any}[name]
        kwargs = {"axis": axis, "keepdims": keepdims}
        if name in ("sum", "prod") and x.dtype.kind in "iub":
            kwargs["dtype"] = x.dtype if x.dtype.kind != "b" else None
        if initial is not None and x.size == 0 and name in ("min", "max"):
            shape = _reduced_shape(x.shape, axis, keepdims)
            return _give(full(shape, initial, dtype=x.dtype, device=x.device), numpy_mode)
        result = fn(x, **kwargs)
        if initial is not None:
            combine = {"sum": lambda a, b: a + b, "prod": lambda a, b: a * b,
                       "min": _minimum, "max": _maximum,
                       "all": lambda a, b: a & bool(b), "any": lambda a, b: a | bool(b)}[name]
            result = combine(result, initial)
        return _give(result, numpy_mode)
    axes = tuple(range(x.ndim)) if axis is None else \
        ((axis,) if isinstance(axis, int) else tuple(axis))
    axes = tuple(a % builtins.max(x.ndim, 1) for a in axes)
    mat = x
    kept_shape = tuple(s for d, s in enumerate(x.shape) if d not in axes)
    if x.ndim:
        order = [d for d in range(x.ndim) if d not in axes] + list(axes)
        from_dims = tuple(range(x.ndim))
        mat = moveaxis(x, from_dims, tuple(order.index(d) for d in from_dims)) \
            if order != list(from_dims) else x
    M = 1
    for s in kept_shape:
        M *= s
    L = x.size // M if M else 0
    mat = reshape(mat._contiguous() if mat.ndim else mat, (M, L))
    if L == 0:
        if initial is None:
            raise ValueError("reduce() of an empty range with a device function needs initial=")
        result = full((M,), initial, dtype=x.dtype, device=x.device)
    else:
        result = _fold_rows(op, mat)
        if initial is not None:
            init = full((M, 1), initial, dtype=x.dtype, device=x.device)
            result = _fold_rows(op, concat([reshape(result, (M, 1)), init], axis=1))
    shape = tuple(1 if d in axes else s for d, s in enumerate(x.shape)) if keepdims \
        else kept_shape
    return _give(reshape(result, shape), numpy_mode)


def _reduced_shape(shape, axis, keepdims):
    axes = range(len(shape)) if axis is None else ((axis,) if isinstance(axis, int) else axis)
    axes = {a % builtins.max(len(shape), 1) for a in axes}
    if keepdims:
        return tuple(1 if d in axes else s for d, s in enumerate(shape))
    return tuple(s for d, s in enumerate(shape) if d not in axes)


def _minimum(a, b):
    from_dpk = where(a < b, a, b) if isinstance(a, Array) else builtins.min(a, b)
    return from_dpk


def _maximum(a, b):
    return where(a > b, a, b) if isinstance(a, Array) else builtins.max(a, b)


_scan_kernels = {}


def _scan_kernel(op):
    found = _scan_kernels.get(op)
    if found is not None:
        return found

    @kernel
    def scan_parts(item: Item, x, out, carry, length, chunk, use_carry):
        # item (m, p) scans part p of row m in order, starting from carry[m, p - 1]
        m = item.get_id(0)
        p = item.get_id(1)
        start = p * chunk
        end = min(start + chunk, length)
        if start < end:
            acc = x[m, start]
            if use_carry and p > 0:
                acc = op(carry[m, p - 1], acc)
            out[m, start] = acc
            for i in range(start + 1, end):
                acc = op(acc, x[m, i])
                out[m, i] = acc

    _scan_kernels[op] = scan_parts
    return scan_parts


def _scan_rows(op, mat):
    """Inclusive scan of every row of the contiguous (M, L) matrix with device function op."""
    M, L = mat.shape
    device = mat.device
    out = empty((M, L), dtype=mat.dtype, device=device)
    if L == 0 or M == 0:
        return out
    k = _scan_kernel(op)
    cores = max(device._dev.compute_units, 1)
    target = (4 if device.device_type == "cpu" else 256) * cores
    parts = builtins.max(1, builtins.min(-(-target // M), -(-L // 4096)))
    chunk = -(-L // parts)
    parts = -(-L // chunk)
    if parts == 1:
        call_kernel(k, Range(M, 1), mat, out, out, L, chunk, False)
        return out
    # (1) each part's total, (2) inclusive scan of the totals per row, (3) parts from carries
    totals = empty((M, parts), dtype=mat.dtype, device=device)
    call_kernel(_reduce_kernel(op), Range(M, parts), mat, totals, L, chunk, parts)
    carries = _scan_rows(op, totals)
    call_kernel(k, Range(M, parts), mat, out, carries, L, chunk, True)
    return out


def scan(op, x, /, *, axis=None, inclusive=True, initial=None):
    """Cumulative `op` along `axis` (optional for 1-D x). ``inclusive=False`` gives the
    exclusive scan: element i combines the elements before i, starting from `initial` (required
    then, except for the built-in add and multiply, whose identity is used). Built-in add and
    multiply run as the array layer's cumulative_sum/prod (fused with x's producer); other
    operators and device functions as a three-phase scan (part totals, carries, parts)."""
    x, numpy_mode = _take_input(x, "scan()")
    if x.ndim == 0:
        raise ValueError("scan() needs an array of at least one dimension")
    if axis is None:
        if x.ndim != 1:
            raise ValueError("scan(): axis is required for arrays of more than one dimension")
        axis = 0
    axis %= x.ndim
    name = _op_name(op)
    if name in ("sum", "prod") and (initial is None or not inclusive):
        fn = cumulative_sum if name == "sum" else cumulative_prod
        dtype = x.dtype if x.dtype.kind != "b" else None
        if inclusive:
            result = fn(x, axis=axis, dtype=dtype)
        else:
            full_scan = fn(x, axis=axis, dtype=dtype, include_initial=True)
            index = [slice(None)] * x.ndim
            index[axis] = slice(0, x.shape[axis])
            result = full_scan[tuple(index)]
            if initial is not None:
                result = result + initial if name == "sum" else result * initial
        return _give(result, numpy_mode)
    if name is not None:
        op = _BUILTIN_FUNCS[name]
    mat, kept = _rows_last(x, axis, "scan()")
    if initial is not None:
        init = full((mat.shape[0], 1), initial, dtype=x.dtype, device=x.device)
        mat = concat([init, mat], axis=1)
    elif not inclusive:
        raise ValueError("scan(inclusive=False) with this operator needs initial=")
    out = _scan_rows(op, mat)
    L = x.shape[axis]
    if initial is not None:
        out = out[:, :L] if not inclusive else out[:, 1:]
    out = reshape(out._contiguous(), kept + (L,))
    return _give(moveaxis(out, -1, axis) if axis != x.ndim - 1 else out, numpy_mode)


accumulate = scan


# device functions for the built-in operators that have no array-layer scan


@device_func
def _op_min(a, b):
    return b if b < a or b != b else a  # a NaN propagates, as numpy.minimum does


@device_func
def _op_max(a, b):
    return b if b > a or b != b else a


@device_func
def _op_and(a, b):
    return a and b


@device_func
def _op_or(a, b):
    return a or b


@device_func
def _op_add(a, b):
    return a + b


@device_func
def _op_mul(a, b):
    return a * b


_BUILTIN_FUNCS = {"min": _op_min, "max": _op_max, "all": _op_and, "any": _op_or,
                  "sum": _op_add, "prod": _op_mul}


# ---- radix sort -------------------------------------------------------------------------------

@kernel
def _radix_histogram(item: Item, keys, counts, n, nblocks, block, shift):
    # block b counts the digits of its elements into counts[digit * nblocks + b]
    b = item.get_id(0)
    h = PrivateArray(BINS, np.int64, fill_zeros=True)
    start = b * block
    end = min(start + block, n)
    for i in range(start, end):
        h[(keys[i] >> shift) & (BINS - 1)] += 1
    for d in range(BINS):
        counts[d * nblocks + b] = h[d]


@kernel
def _radix_scatter(item: Item, keys, values, keys_out, values_out, offsets, n, nblocks, block,
                   shift):
    # block b moves its elements, in order, to the slots the scan of the counts gave it
    b = item.get_id(0)
    slot = PrivateArray(BINS, np.int64)
    for d in range(BINS):
        slot[d] = offsets[d * nblocks + b]
    start = b * block
    end = min(start + block, n)
    for i in range(start, end):
        k = keys[i]
        d = (k >> shift) & (BINS - 1)
        p = slot[d]
        slot[d] = p + 1
        keys_out[p] = k
        values_out[p] = values[i]


def _blocks(n, device):
    cores = max(device._dev.compute_units, 1)
    target = 4 * cores if device.device_type == "cpu" else 64 * cores
    nblocks = builtins.max(1, builtins.min(target, -(-n // 4096)))
    block = -(-n // nblocks)
    return -(-n // block), block


# GPU shape: a block is a tile of GROUP * rounds keys, one work-group per tile. In round r
# work-item l holds key tile_start + r * GROUP + l (coalesced loads), so (r, l) is the keys'
# order within the tile.

MASK_WORDS = GROUP // 32  # a bit per work-item, per digit


@device_func
def _popcount32(v):
    v = v - ((v >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F
    return int((v * 0x01010101) >> 24)


@kernel
def _radix_histogram_groups(it: NdItem, keys, counts, n, nblocks, rounds, shift, hist):
    # work-group g counts the digits of its tile in local memory (local atomics); work-item d
    # stores digit d's count at counts[d * nblocks + g]
    lid = it.get_local_id(0)
    group = it.get_group()
    g = group.get_group_id(0)
    hist[lid] = 0
    group_barrier(group)
    start = g * rounds * GROUP
    for r in range(rounds):
        i = start + r * GROUP + lid
        if i < n:
            AtomicRef(hist, (keys[i] >> shift) & (BINS - 1), memory_scope=MemoryScope.WORK_GROUP,
                      address_space=AddressSpace.LOCAL).fetch_add(1)
    group_barrier(group)
    counts[lid * nblocks + g] = hist[lid]


@kernel
def _radix_offsets_groups(it: NdItem, counts, offsets, totals, nblocks, chunk, scan):
    # work-group d scans row d of the (digit, tile) count table: offsets[d * nblocks + b] is
    # the number of keys of digit d in tiles before b; totals[d] is the row's sum. Work-item l
    # sums its chunk of the row, a Hillis-Steele scan of the chunk sums gives its carry.
    lid = it.get_local_id(0)
    group = it.get_group()
    row = group.get_group_id(0) * nblocks
    lo = min(lid * chunk, nblocks)
    hi = min(lo + chunk, nblocks)
    own = 0
    for b in range(lo, hi):
        own += counts[row + b]
    scan[lid] = own
    group_barrier(group)
    src = 0
    step = 1
    while step < GROUP:
        v = scan[src + lid]
        if lid >= step:
            v += scan[src + lid - step]
        scan[GROUP - src + lid] = v
        group_barrier(group)
        src = GROUP - src
        step *= 2
    acc = scan[src + lid] - own
    for b in range(lo, hi):
        c = counts[row + b]
        offsets[row + b] = acc
        acc += c
    if lid == GROUP - 1:
        totals[group.get_group_id(0)] = acc


@kernel
def _radix_scatter_groups(it: NdItem, keys, values, keys_out, values_out, counts, offsets,
                          totals, n, nblocks, rounds, shift, masks, tally, base, scan, gbase,
                          perm):
    # Stable within the tile, in three steps.
    # (1) start[d], the tile's first local slot of digit d: a work-group scan (Hillis-Steele,
    #     in `scan`) of the tile's digit counts; with it, of the digits' totals (the keys of
    #     smaller digits); gbase[d] = that + offsets[d, tile] - start[d].
    # (2) Each round, every work-item sets its bit in its digit's mask (local atomic or) and
    #     counts the digit in tally (local atomic add); its rank among the round's keys of that
    #     digit is the number of bits below its own, and its key's tile offset goes to
    #     perm[base[d] + rank], base[d] being the digit's next free local slot (start[d],
    #     advanced by each round's tally). masks, tally and base are double-buffered by round
    #     parity (two barriers a round); a work-item clears the mask word it set the round
    #     before.
    # (3) perm lists the tile's keys sorted by digit, stably: slot q goes to gbase[d] + q, so
    #     consecutive work-items store to consecutive addresses within each digit's run.
    lid = it.get_local_id(0)
    group = it.get_group()
    g = group.get_group_id(0)
    start = g * rounds * GROUP
    c = counts[lid * nblocks + g]
    t = totals[lid]
    scan[lid] = c
    scan[2 * BINS + lid] = t
    for w in range(2 * MASK_WORDS):
        masks[lid * 2 * MASK_WORDS + w] = np.uint32(0)
    tally[lid] = 0
    tally[BINS + lid] = 0
    group_barrier(group)
    src = 0
    step = 1
    while step < BINS:
        v = scan[src + lid]
        u = scan[2 * BINS + src + lid]
        if lid >= step:
            v += scan[src + lid - step]
            u += scan[2 * BINS + src + lid - step]
        scan[BINS - src + lid] = v
        scan[3 * BINS - src + lid] = u
        group_barrier(group)
        src = BINS - src
        step *= 2
    first = scan[src + lid] - c
    base[lid] = first
    gbase[lid] = scan[2 * BINS + src + lid] - t + offsets[lid * nblocks + g] - first
    group_barrier(group)
    half = BINS * MASK_WORDS
    word = lid >> 5
    bit = np.uint32(1) << np.uint32(lid & 31)
    below = bit - np.uint32(1)
    mine = -1  # the mask word this work-item set in the round before
    for r in range(rounds):
        cur_base = (r & 1) * BINS
        nxt_base = BINS - cur_base
        i = start + r * GROUP + lid
        d = (keys[min(i, n - 1)] >> shift) & (BINS - 1)
        row = (r & 1) * half + d * MASK_WORDS
        if i < n:
            AtomicRef(masks, row + word, memory_scope=MemoryScope.WORK_GROUP,
                      address_space=AddressSpace.LOCAL).fetch_or(bit)
            AtomicRef(tally, cur_base + d, memory_scope=MemoryScope.WORK_GROUP,
                      address_space=AddressSpace.LOCAL).fetch_add(1)
        group_barrier(group)
        if mine >= 0:
            masks[mine] = np.uint32(0)
            mine = -1
        if i < n:
            rank = _popcount32(masks[row + word] & below)
            for w in range(word):
                rank += _popcount32(masks[row + w])
            perm[base[cur_base + d] + rank] = np.int32(r * GROUP + lid)
            mine = row + word
        # work-item lid, as digit lid: the next round's slot and tally
        base[nxt_base + lid] = base[cur_base + lid] + tally[cur_base + lid]
        tally[nxt_base + lid] = 0
        group_barrier(group)
    size = min(rounds * GROUP, n - start)
    for r in range(rounds):
        q = r * GROUP + lid
        if q < size:
            j = start + perm[q]
            k = keys[j]
            p = gbase[(k >> shift) & (BINS - 1)] + q
            keys_out[p] = k
            values_out[p] = values[j]


MAX_ROUNDS = 8  # H100, 2^24 keys: 8 rounds 1.07 ms per scatter pass, 16 rounds 1.5, 32 1.75


def _tiles(n, device):
    """(tiles, rounds) of the GPU-shaped passes: about 8 work-groups per compute unit, at most
    MAX_ROUNDS keys per work-item (fewer rounds, more work-groups: the scatter's barriers and
    scattered stores are latency that more groups in flight hide)."""
    cores = max(device._dev.compute_units, 1)
    rounds = builtins.max(1, builtins.min(MAX_ROUNDS, -(-n // (GROUP * 8 * cores))))
    return -(-n // (GROUP * rounds)), rounds


def radix_sort_pairs(keys, values, bits):
    """Sorts the 1-D unsigned `keys` (their low `bits` bits) stably, moving `values` along;
    returns (sorted keys, values). Per pass of 8 bits: the digit counts of every block, an
    exclusive scan of the (digit, block) table, a stable scatter, in a CPU shape or a GPU shape
    (kernel_shape). CPU: cumulative_sum scans the table. GPU: a work-group per digit scans its
    row and the scatter adds the scan of the 256 row totals (cumulative_sum costs about 0.27
    ms a pass on an H100, mostly launches, against 0.09 ms for the histogram)."""
    n = keys.size
    device = keys.device
    gpu = kernel_shape(device) == "gpu"
    if gpu:
        nblocks, rounds = _tiles(n, device)
        launch = NdRange(nblocks * GROUP, GROUP)
    else:
        nblocks, block = _blocks(n, device)
        launch = Range(nblocks)
    counts = empty((BINS * nblocks,), dtype=D.int32 if gpu else D.int64, device=device)
    if gpu:  # the count table's scan, per digit row, and the rows' totals
        offsets = empty((BINS * nblocks,), dtype=D.int64, device=device)
        totals = empty((BINS,), dtype=D.int64, device=device)
    # the passes alternate between two buffers of their own: the inputs are only read
    keys_tmp = [empty((n,), dtype=keys.dtype, device=device) for _ in range(2)]
    values_tmp = [empty((n,), dtype=values.dtype, device=device) for _ in range(2)]
    for step, shift in enumerate(range(0, bits, RADIX_BITS)):
        out = (keys_tmp[step % 2], values_tmp[step % 2])
        if gpu:
            call_kernel(_radix_histogram_groups, launch, keys, counts, n, nblocks, rounds, shift,
                        LocalAccessor(GROUP, np.int32))
            call_kernel(_radix_offsets_groups, NdRange(BINS * GROUP, GROUP), counts, offsets,
                        totals, nblocks, -(-nblocks // GROUP), LocalAccessor(2 * GROUP, np.int64))
            call_kernel(_radix_scatter_groups, launch, keys, values, *out, counts, offsets,
                        totals, n, nblocks, rounds, shift,
                        LocalAccessor(2 * BINS * MASK_WORDS, np.uint32),
                        LocalAccessor(2 * BINS, np.int32), LocalAccessor(2 * BINS, np.int32),
                        LocalAccessor(4 * BINS, np.int64), LocalAccessor(BINS, np.int64),
                        LocalAccessor(MAX_ROUNDS * GROUP, np.int32))
        else:
            call_kernel(_radix_histogram, launch, keys, counts, n, nblocks, block, shift)
            offsets = cumulative_sum(counts, include_initial=True)
            call_kernel(_radix_scatter, launch, keys, values, *out, offsets, n, nblocks, block,
                        shift)
        keys, values = out
    return keys, values


def sort_keys(x, descending=False):
    """(unsigned keys, significant bits) of the 1-D contiguous x whose order is the sort order
    (NumPy's: NaN last, -0.0 equal to +0.0; descending reverses it, NaN first)."""
    dt = x.dtype
    width = 8 * dt.itemsize
    if dt.kind == "f":
        udt = D.uint32 if width == 32 else D.uint64
        bits = _bitcast(x, udt)
        sign = 1 << (width - 1)
        negative = greater_equal(bits, sign)
        key = where(negative, bitwise_invert(bits), bitwise_or(bits, sign))
        key = where(equal(x, 0), full((), sign, dtype=udt, device=x.device), key)
        key = where(isnan(x), full((), (1 << width) - 1, dtype=udt, device=x.device), key)
    elif dt.kind == "i" and width >= 32:
        udt = D.uint32 if width == 32 else D.uint64
        flipped = bitwise_xor(x, -(1 << (width - 1)))
        key = _bitcast(flipped._materialize(), udt)
    elif dt.kind == "i":
        udt = D.uint32
        key = astype(astype(x, D.int32) + (1 << (width - 1)), udt)
    else:  # unsigned and bool
        udt = D.uint32 if width <= 32 else D.uint64
        key = astype(x, udt)
    if descending:
        key = bitwise_xor(key, (1 << width) - 1) if width < 8 * udt.itemsize \
            else bitwise_invert(key)
    key = key._materialize() if key._node is not None else key._contiguous()
    return key, width


def _argsort_flat(x, descending, payload=None):
    """(sorted payload, permutation) of the 1-D contiguous x; payload defaults to the
    permutation itself (int64 indices)."""
    keys, bits = sort_keys(x, descending)
    values = payload if payload is not None else arange(x.size, dtype=D.int64, device=x.device)
    _, values = radix_sort_pairs(keys, values, bits)
    return values


def _sort_impl(x, axis, descending, want):
    if x.ndim == 0:
        raise ValueError(f"{want}() needs an array of at least one dimension")
    if x.dtype not in D.ALL:
        raise DTypeError(f"{want}(): dtype {x.dtype} is not supported")
    mat, kept = _rows_last(x, axis, f"{want}()")
    M, L = mat.shape
    axis = operator.index(axis) % x.ndim
    n = M * L
    flat = reshape(mat, (n,))
    if n <= 1 or L <= 1:
        result = flat if want == "sort" else zeros((n,), dtype=D.int64, device=x.device)
        result = result._contiguous()
    elif M == 1 and want == "sort":
        result = _argsort_flat(flat, descending, payload=flat._contiguous())
    else:
        perm = _argsort_flat(flat, descending)
        if M > 1:  # then stably by row
            rows = astype(floor_divide(perm, L), D.uint64)._materialize()
            _, perm = radix_sort_pairs(rows, perm, builtins.max(1, (M - 1).bit_length()))
        result = take(flat, perm) if want == "sort" else remainder(perm, L)
    result = reshape(result, kept + (L,))
    return moveaxis(result, -1, axis) if axis != x.ndim - 1 else result


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """x sorted along `axis` (the Array API's ``sort``): stable radix sort, NaN last (first
    when descending), -0.0 and +0.0 equal."""
    x, numpy_mode = _take_input(x, "sort()")
    return _give(_sort_impl(x, axis, descending, "sort"), numpy_mode)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """The indices that sort x along `axis` (int64; stable: equal elements keep their order)."""
    x, numpy_mode = _take_input(x, "argsort()")
    return _give(_sort_impl(x, axis, descending, "argsort"), numpy_mode)


# ---- top-k ------------------------------------------------------------------------------------

def topk(x, k, /, *, largest=True):
    """(values, indices) of the k largest (smallest with largest=False) elements of 1-D x, in
    order (NaN counts as the largest, as in NumPy's sort order; ties: the lower index first).

    A threshold from a strided sample selects a few times k candidates (one fused count, one
    compaction), which are sorted; when the sample misleads and fewer than k pass, x is sorted
    whole."""
    x, numpy_mode = _take_input(x, "topk()")
    if x.ndim != 1:
        raise ShapeError("topk() takes a 1-D array")
    k = operator.index(k)
    n = x.size
    if not 0 <= k <= n:
        raise ValueError(f"topk(): k={k} is outside [0, {n}]")
    x = x._contiguous()
    candidates = None
    if n > 65536 and k * 64 < n and x.dtype.kind != "b":
        step = n // 16384
        sample = np.asarray(x[::step].asnumpy(), dtype=np.float64)
        sample = sample[~np.isnan(sample)]
        want = builtins.min(sample.size - 1, 4 * k * sample.size // n + 8)
        if want > 0:
            order = np.sort(sample)
            threshold = order[-want - 1] if largest else order[want]
            threshold = np.asarray(threshold).astype(x.dtype).item()
            mask = (x >= threshold) if largest else (x <= threshold)
            if x.dtype.kind == "f":
                mask = logical_or(mask, isnan(x)) if largest else mask
            (idx,) = nonzero(mask)
            if k <= idx.size <= n // 4:
                candidates = idx
    if candidates is None:
        candidates = arange(n, dtype=D.int64, device=x.device)
    values = take(x, candidates)
    order = _argsort_flat(values._contiguous(), descending=largest)[:k]
    indices = take(candidates, order)
    return _give((take(x, indices), indices), numpy_mode)


# ---- set functions ----------------------------------------------------------------------------

def _unique_parts(x, need_inverse, need_counts, need_indices):
    flat = _flat(x)._contiguous()
    n = flat.size
    device = flat.device
    if n == 0:
        empty_i = empty((0,), dtype=D.int64, device=device)
        return (empty((0,), dtype=x.dtype, device=device), empty_i, empty_i,
                reshape(empty_i, x.shape))
    perm = _argsort_flat(flat, False)
    ordered = take(flat, perm)
    if n > 1:
        # a new value starts where it differs from its left neighbour; each NaN is distinct
        head = full((1,), True, dtype=D.bool, device=device)
        diff = not_equal(ordered[1:], ordered[:-1])
        starts_mask = concat([head, diff._materialize()])
    else:
        starts_mask = full((1,), True, dtype=D.bool, device=device)
    (starts,) = nonzero(starts_mask)
    values = take(ordered, starts)
    counts = indices = inverse = None
    if need_counts:
        ends = concat([starts[1:], full((1,), n, dtype=D.int64, device=device)])
        counts = (ends - starts)._materialize()
    if need_indices:
        indices = take(perm, starts)
    if need_inverse:
        group = cumulative_sum(astype(starts_mask, D.int64)) - 1
        inverse = empty((n,), dtype=D.int64, device=device)
        inverse[perm] = group
        inverse = reshape(inverse, x.shape)
    return values, indices, counts, inverse


def unique_values(x, /):
    """The distinct values of x, sorted (NaNs are distinct from each other, as the standard
    says)."""
    x, numpy_mode = _take_input(x, "unique_values()")
    return _give(_unique_parts(x, False, False, False)[0], numpy_mode)


def unique_counts(x, /):
    """(values, counts)."""
    x, numpy_mode = _take_input(x, "unique_counts()")
    values, _, counts, _ = _unique_parts(x, False, True, False)
    return _give((values, counts), numpy_mode)


def unique_inverse(x, /):
    """(values, inverse_indices): x == values[inverse_indices], inverse shaped like x."""
    x, numpy_mode = _take_input(x, "unique_inverse()")
    values, _, _, inverse = _unique_parts(x, True, False, False)
    return _give((values, inverse), numpy_mode)


def unique_all(x, /):
    """(values, indices of the first occurrences, inverse_indices, counts)."""
    x, numpy_mode = _take_input(x, "unique_all()")
    values, indices, counts, inverse = _unique_parts(x, True, True, True)
    return _give((values, indices, inverse, counts), numpy_mode)


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
def _private_count_kernel(item: Item, x, counts, n, block, length):
    # CPUs: a block counts into its own histogram, then adds it to the result (1024 atomics
    # per block instead of one per element, which two cores contend for)
    b = item.get_id(0)
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
            call_kernel(_private_count_kernel, Range(nblocks), x, out, n, block, length)
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


__all__ = ["accumulate", "argsort", "argwhere", "bincount", "compact", "histogram", "reduce",
           "scan", "scatter_add", "searchsorted", "sort", "topk", "unique_all",
           "unique_counts", "unique_inverse", "unique_values"]
