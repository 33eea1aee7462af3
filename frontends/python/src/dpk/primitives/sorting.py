"""Sorting (LSD radix sort), top-k and the standard's set functions.

Radix sort (``sort``, ``argsort``, and what builds on them): keys become unsigned integers whose
order is the wanted order (floats: the sign-magnitude flip, with -0.0 made +0.0 and every NaN the
largest key, as NumPy sorts; signed integers: the sign bit flipped; descending: the complement),
which radix_sort.py sorts stably, 8 bits per pass. Rows of an n-D sort are one pass more per 8
bits of the row count: the flat permutation sorted by key is sorted again, stably, by row.
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
from ..arrays.elementwise_functions import (bitwise_invert, bitwise_xor, floor_divide, imag,
                                            isnan, logical_or, not_equal, real, remainder)
from ..arrays.generated import read_scalar
from ..arrays.indexing_functions import take
from ..arrays.manipulation_functions import concat, moveaxis, reshape
from ..arrays.searching_functions import nonzero
from ..arrays.statistical_functions import cumulative_sum
from ..kernels.dispatcher import launch_in_order
from ..kernels.kapi import Range
from .common import _bitcast, _flat, _give, _rows_last, _take_input
from .merge_sort import sort_with
from .float_keys import float_keys_kernel, key_constants
from .radix_sort import keys_only_sorts, radix_sort_pairs, sort_float_bits


def _float_sort_keys(x, c):
    """(keys, bits, specials): the keys of the 1-D contiguous float x with the constants `c`
    (float_keys.key_constants), and a device counter of the values whose keys do not give them
    back."""
    bits = _bitcast(x, c["udt"])
    key = empty(x.shape, dtype=c["udt"], device=x.device)
    specials = zeros((1,), dtype=D.int32, device=x.device)
    launch_in_order(float_keys_kernel, Range(x.size), bits, key, c["sign"], c["infinity"],
                    c["largest"], c["flip"], c["canonical"], specials)
    return key, c["width"], specials


def _sort_floats_by_keys(x, descending):
    """The 1-D contiguous float x sorted by its keys alone (no values carried through the
    passes: half the memory traffic; the passes make the keys and turn them back themselves),
    or None when x holds -0.0 or a NaN other than the canonical one, whose keys do not give
    them back (the caller then carries the values)."""
    c = key_constants(x.dtype, descending)
    out, specials = sort_float_bits(_bitcast(x, c["udt"]), c)
    # Read last, when every pass is queued: reading it first would leave the device idle while
    # the passes are launched (H100: about a tenth of the sort). Inputs with such values sort
    # twice.
    if read_scalar(x.device, specials._base.ptr + (specials._offset + specials.size - 1) * 8,
                   np.dtype(np.int64)):
        return None
    return _bitcast(out, x.dtype)


def _sort_ints_by_keys(x, descending):
    """The 1-D contiguous integer or bool x sorted by its keys alone: sort_keys is one-to-one
    on them, so the keys turn back into the values."""
    dt = x.dtype
    keys, width = sort_keys(x, descending)
    keys, _ = radix_sort_pairs(keys, None, width)
    if descending:
        keys = bitwise_xor(keys, (1 << width) - 1) if width < 8 * keys.dtype.itemsize \
            else bitwise_invert(keys)
    if dt.kind == "i" and width >= 32:
        return _bitcast(bitwise_xor(keys, 1 << (width - 1))._materialize(), dt)
    if dt.kind == "i":
        return astype(astype(keys, D.int32) - (1 << (width - 1)), dt)
    return astype(keys, dt)


def sort_keys(x, descending=False):
    """(unsigned keys, significant bits) of the 1-D contiguous x whose order is the sort order
    (NumPy's: NaN last, -0.0 equal to +0.0; descending reverses it, NaN first)."""
    dt = x.dtype
    width = 8 * dt.itemsize
    if dt.kind == "f":  # float32, float64: one kernel, one pass over the data
        key, width, _ = _float_sort_keys(x, key_constants(dt, descending))
        return key, width
    if dt.kind == "i" and width >= 32:
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


def _sort_row(x, descending):
    """The 1-D contiguous x sorted: by its keys alone where the sub-group passes sort
    (keys_only_sorts), else, or when its floats' keys do not give them back, with the values
    carried through the passes."""
    kind = x.dtype.kind
    result = None
    if kind in "fiub" and keys_only_sorts(x.device):
        result = _sort_floats_by_keys(x, descending) if kind == "f" \
            else _sort_ints_by_keys(x, descending)
    if result is None:
        result = _argsort_flat(x, descending, payload=x)
    return result


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
        result = _sort_row(flat._contiguous(), descending)
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
    if (x.ndim == 1 and x.size > 1 and x.dtype in D.ALL and x._node is None
            and x._strides == (1,)):
        # a contiguous 1-D array without _sort_impl's reshaping (on a GPU its Python precedes
        # the first kernel: the device waits for it)
        return _give(_sort_row(x, descending), numpy_mode)
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
