"""Sorting (LSD radix sort), top-k and the standard's set functions.

Radix sort (``sort``, ``argsort``, and what builds on them): keys become unsigned integers whose
order is the wanted order (floats: the sign-magnitude flip, with -0.0 made +0.0 and every NaN the
largest key, as NumPy sorts; signed integers: the sign bit flipped; descending: the complement),
then 8 bits per pass: each of B blocks counts its digits, an exclusive scan over the (digit,
block) table gives every block's first slot per digit, and each block moves its elements there
in order. Blocks keep their order and each keeps its own, so every pass — and the sort — is
stable. Rows of an n-D sort are one pass more per 8 bits of the row count: the flat permutation
sorted by key is sorted again, stably, by row.

The passes come in two shapes (common.kernel_shape): CPU-shaped, one work-item walking each block
serially, and GPU-shaped, work-groups of 256 with local-memory histograms, a per-digit scan of
the count table, and a stable in-tile ranking by bit masks and popcounts followed by coalesced
stores.
"""

from __future__ import annotations

import builtins
import collections
import operator

import numpy as np

from .._errors import DTypeError, ShapeError
from ..arrays import dtypes as D
from ..arrays import numpy_protocol
from ..arrays.array_object import empty, zeros
from ..arrays.creation_functions import arange, full
from ..arrays.data_type_functions import astype
from ..arrays.elementwise_functions import (bitwise_invert, bitwise_or,
                                            bitwise_xor, equal, floor_divide, greater_equal,
                                            imag, isnan, logical_or, not_equal, real,
                                            remainder)
from ..arrays.indexing_functions import take
from ..arrays.manipulation_functions import concat, moveaxis, reshape
from ..arrays.searching_functions import nonzero, where
from ..arrays.statistical_functions import cumulative_sum
from ..kernels.dispatcher import call_kernel, kernel
from ..kernels.kapi import (AddressSpace, AtomicRef, Item, LocalAccessor, MemoryScope, NdItem,
                           NdRange, PrivateArray, Range, group_barrier, popcount)
from .common import (GROUP, _bitcast, _flat, _give, _rows_last, _take_input, kernel_shape,
                     serial_walkers)
from .merge_sort import sort_with

RADIX_BITS = 8
BINS = 1 << RADIX_BITS
_I64 = np.dtype(np.int64)


# ---- which shape of kernel ----------------------------------------------------------------------

# ---- radix sort -------------------------------------------------------------------------------

@kernel
def _radix_histogram(item: NdItem, keys, counts, n, nblocks, block, shift):
    # block b counts the digits of its elements into counts[digit * nblocks + b]
    b = item.get_global_id(0)
    h = PrivateArray(BINS, np.int64, fill_zeros=True)
    start = b * block
    end = min(start + block, n)
    for i in range(start, end):
        h[(keys[i] >> shift) & (BINS - 1)] += 1
    for d in range(BINS):
        counts[d * nblocks + b] = h[d]


@kernel
def _radix_scatter(item: NdItem, keys, values, keys_out, values_out, offsets, n, nblocks, block,
                   shift):
    # block b moves its elements, in order, to the slots the scan of the counts gave it
    b = item.get_global_id(0)
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
            rank = int(popcount(masks[row + word] & below))
            for w in range(word):
                rank += int(popcount(masks[row + w]))
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
        launch = serial_walkers(nblocks)
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


def _argsort_complex(x):
    """The stable permutation that orders the 1-D contiguous complex x as NumPy sorts complex
    numbers: by real part, then by imaginary part, NaN components last in each ([R + Rj,
    R + nanj, nan + Rj, nan + nanj]). Two radix sorts, least significant key first: by the
    imaginary parts, then (stably) by the real parts in that order."""
    perm = _argsort_flat(imag(x)._contiguous(), False)
    keys, bits = sort_keys(take(real(x), perm)._contiguous())
    _, perm = radix_sort_pairs(keys, perm, bits)
    return perm


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


def sort(x, /, *, axis=-1, descending=False, stable=True, less=None):
    """x sorted along `axis` (the Array API's ``sort``): stable radix sort, NaN last (first
    when descending), -0.0 and +0.0 equal. ``less=f`` (a dpk extension) sorts by the
    comparison f(a, b), "a goes strictly before b", with a stable merge sort (merge_sort.py)."""
    x, numpy_mode = _take_input(x, "sort()")
    if less is not None:
        return _give(sort_with(x, axis, less, "sort", descending), numpy_mode)
    return _give(_sort_impl(x, axis, descending, "sort"), numpy_mode)


def argsort(x, /, *, axis=-1, descending=False, stable=True, less=None):
    """The indices that sort x along `axis` (int64; stable: equal elements keep their order);
    ``less=f`` as for ``sort``."""
    x, numpy_mode = _take_input(x, "argsort()")
    if less is not None:
        return _give(sort_with(x, axis, less, "argsort", descending), numpy_mode)
    return _give(_sort_impl(x, axis, descending, "argsort"), numpy_mode)


numpy_protocol.register(np.sort, numpy_protocol.sort_adapter(sort))
numpy_protocol.register(np.argsort, numpy_protocol.sort_adapter(argsort))


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

# The standard's result types: named tuples, whose fields consumers read by name.
UniqueAllResult = collections.namedtuple("UniqueAllResult",
                                         ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple("UniqueInverseResult",
                                             ["values", "inverse_indices"])

def _unique_parts(x, need_inverse, need_counts, need_indices):
    flat = _flat(x)._contiguous()
    n = flat.size
    device = flat.device
    if n == 0:
        empty_i = empty((0,), dtype=D.int64, device=device)
        return (empty((0,), dtype=x.dtype, device=device), empty_i, empty_i,
                reshape(empty_i, x.shape))
    # (sort and argsort take real values only, as the standard says; the set functions take
    # complex values too, ordered as NumPy orders them)
    perm = _argsort_complex(flat) if flat.dtype.kind == "c" else _argsort_flat(flat, False)
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
    """(values, counts), a named tuple (``UniqueCountsResult``)."""
    x, numpy_mode = _take_input(x, "unique_counts()")
    values, _, counts, _ = _unique_parts(x, False, True, False)
    return _give(UniqueCountsResult(values, counts), numpy_mode)


def unique_inverse(x, /):
    """(values, inverse_indices), a named tuple (``UniqueInverseResult``): x ==
    values[inverse_indices], inverse shaped like x."""
    x, numpy_mode = _take_input(x, "unique_inverse()")
    values, _, _, inverse = _unique_parts(x, True, False, False)
    return _give(UniqueInverseResult(values, inverse), numpy_mode)


def unique_all(x, /):
    """(values, indices of the first occurrences, inverse_indices, counts), a named tuple
    (``UniqueAllResult``)."""
    x, numpy_mode = _take_input(x, "unique_all()")
    values, indices, counts, inverse = _unique_parts(x, True, True, True)
    return _give(UniqueAllResult(values, indices, inverse, counts), numpy_mode)
