"""Merge sort for custom comparisons: ``dpk.sort(x, less=f)`` and ``dpk.argsort(x, less=f)``.

A radix sort needs keys whose bits give the order; a comparison given as a function does not
have them, so these sorts merge. ``f`` is a ``@dpk.device_func`` (or a plain function, compiled
as one) of two elements returning whether the first goes strictly before the second: a strict
weak order, as C++'s ``std::sort`` and Thrust's ``sort(..., comp)`` take. The sort is stable.

Rows of length L (the sort axis moved last) are sorted independently, all rows at once:
  1. runs of RUN elements: each work-item sorts one run of its row by insertion sort, in place;
  2. merge passes, width w = RUN, 2 RUN, ...: every pair of neighbouring sorted runs of width w
     in a row becomes one of width 2w. Each work-item writes CHUNK consecutive outputs of one
     pair: it finds where its first output comes from by a binary search along the pair's merge
     path (the split i + j = k where taking i from the left run and j from the right run gives
     the first k outputs), then merges CHUNK elements serially. The passes alternate between two
     buffers. Ties take the left run's element first, which keeps the sort stable.
Each pass is one launch over rows x ceil(L / CHUNK) work-items: parallel on every device, and
the same kernels everywhere (no local memory, no barriers). ``argsort`` carries the indices
along as the payload.

Kernels are generated per comparison function (closures over it), so each comparison compiles
once per dtype and device, like any kernel.
"""

from __future__ import annotations

import weakref

from ..arrays import dtypes as D
from ..arrays.array_object import Array, empty
from ..arrays.creation_functions import arange
from ..arrays.manipulation_functions import moveaxis, reshape
from ..kernels.dispatcher import call_kernel, device_func, kernel
from ..kernels.functions import DeviceFunction
from ..kernels.kapi import Item, Range
from .common import _rows_last

RUN = 8     # elements each work-item sorts by insertion before the merge passes
CHUNK = 8   # outputs each work-item of a merge pass writes

_kernels = weakref.WeakKeyDictionary()


def _make_kernels(less):
    """The run-sort and merge kernels of one comparison function."""

    @kernel
    def sort_runs(item: Item, keys, values, L, runs_per_row):
        g = item.get_id(0)
        row = g // runs_per_row
        start = (g % runs_per_row) * RUN
        stop = min(start + RUN, L)
        base = row * L
        for i in range(start + 1, stop):
            k = keys[base + i]
            v = values[base + i]
            j = i - 1
            while j >= start and less(k, keys[base + j]):
                keys[base + j + 1] = keys[base + j]
                values[base + j + 1] = values[base + j]
                j -= 1
            keys[base + j + 1] = k
            values[base + j + 1] = v

    @kernel
    def merge_pass(item: Item, keys, values, keys_out, values_out, L, width, chunks_per_row):
        g = item.get_id(0)
        row = g // chunks_per_row
        out_pos = (g % chunks_per_row) * CHUNK  # this work-item's first output in the row
        base = row * L
        pair = out_pos // (2 * width) * (2 * width)
        a0 = pair
        a1 = min(pair + width, L)
        b1 = min(pair + 2 * width, L)
        # The merge path: how many of the first k outputs come from the left run.
        k = out_pos - pair
        lo = max(0, k - (b1 - a1))
        hi = min(k, a1 - a0)
        while lo < hi:
            mid = (lo + hi) // 2
            # Take left[mid] before right[k - mid - 1] unless the right one is strictly less.
            if less(keys[base + a1 + k - mid - 1], keys[base + a0 + mid]):
                hi = mid
            else:
                lo = mid + 1
        i = a0 + lo
        j = a1 + k - lo
        stop = min(out_pos + CHUNK, b1)
        for o in range(out_pos, stop):
            take_right = False
            if j < b1:
                if i >= a1:
                    take_right = True
                elif less(keys[base + j], keys[base + i]):
                    take_right = True
            if take_right:
                keys_out[base + o] = keys[base + j]
                values_out[base + o] = values[base + j]
                j += 1
            else:
                keys_out[base + o] = keys[base + i]
                values_out[base + o] = values[base + i]
                i += 1

    return sort_runs, merge_pass


def _kernels_for(less):
    pair = _kernels.get(less)
    if pair is None:
        pair = _kernels[less] = _make_kernels(less)
    return pair


def as_comparison(less):
    """`less` as a device function (a plain function is compiled as one)."""
    if isinstance(less, DeviceFunction):
        return less
    if callable(less):
        return device_func(less)
    raise TypeError(f"sort(less=...): expected a device function of two elements, got "
                    f"{type(less).__name__}")


def merge_sort_rows(mat, values, less):
    """(keys, values) of the contiguous (M, L) `mat` and `values` with every row sorted by
    `less`, stably; the inputs are not modified."""
    M, L = mat.shape
    sort_runs, merge_pass = _kernels_for(less)
    device = mat.device
    keys = reshape(mat, (M * L,)).copy()  # sorted in place below: never the caller's memory
    vals = reshape(values, (M * L,)).copy()
    if M * L == 0 or L <= 1:
        return reshape(keys, (M, L)), reshape(vals, (M, L))
    runs_per_row = -(-L // RUN)
    call_kernel(sort_runs, Range(M * runs_per_row), keys, vals, L, runs_per_row)
    keys_out = empty(keys.shape, dtype=keys.dtype, device=device)
    vals_out = empty(vals.shape, dtype=vals.dtype, device=device)
    chunks_per_row = -(-L // CHUNK)
    width = RUN
    while width < L:
        call_kernel(merge_pass, Range(M * chunks_per_row), keys, vals, keys_out, vals_out, L,
                    width, chunks_per_row)
        keys, keys_out = keys_out, keys
        vals, vals_out = vals_out, vals
        width *= 2
    return reshape(keys, (M, L)), reshape(vals, (M, L))


_reversed = weakref.WeakKeyDictionary()


def _reverse(less):
    """The comparison b < a of `less` (descending order, still stable)."""
    rev = _reversed.get(less)
    if rev is None:
        def reversed_less(a, b):
            return less(b, a)
        rev = _reversed[less] = device_func(reversed_less)
    return rev


def sort_with(x, axis, less, want, descending=False):
    """``sort``/``argsort`` of the dpk array x along `axis` by the comparison `less`."""
    if x.ndim == 0:
        raise ValueError(f"{want}() needs an array of at least one dimension")
    less = as_comparison(less)
    if descending:
        less = _reverse(less)
    mat, kept = _rows_last(x, axis, f"{want}()")
    M, L = mat.shape
    index = arange(L, dtype=D.int64, device=x.device)
    payload = reshape(index, (1, L)) if M == 1 else (
        reshape(arange(M * L, dtype=D.int64, device=x.device), (M, L)) % L)
    keys, perm = merge_sort_rows(mat, payload, less)
    result = keys if want == "sort" else perm
    result = reshape(result, kept + (L,))
    nd_axis = axis % x.ndim
    return moveaxis(result, -1, nd_axis) if nd_axis != x.ndim - 1 else result


__all__ = ["merge_sort_rows", "sort_with"]
