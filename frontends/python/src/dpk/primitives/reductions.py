"""reduce and scan with any associative operator: built-in operators go to the array layer's
fused reduction and scan kernels (arrays/reduction.py, arrays/scan.py); a device_func operator
gets kernels of its own.
"""

from __future__ import annotations

import builtins

import numpy as np

from ..arrays.array_object import Array, empty
from ..arrays.creation_functions import full
from ..arrays.manipulation_functions import concat, moveaxis, reshape
from ..arrays.searching_functions import where
from ..arrays.statistical_functions import (cumulative_prod, cumulative_sum, max as _max,
                                            min as _min, prod, sum as _sum)
from ..arrays.utility_functions import all as _all, any as _any
from ..kernels.dispatcher import call_kernel, device_func, kernel
from ..kernels.functions import DeviceFunction
from ..kernels.kapi import Item, Range
from .common import _give, _rows_last, _take_input

RADIX_BITS = 8
BINS = 1 << RADIX_BITS
_I64 = np.dtype(np.int64)


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
