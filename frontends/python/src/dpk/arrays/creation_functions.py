"""The standard's creation functions: asarray, empty, zeros, ones, full (array_object.py), the
``*_like`` forms, arange, linspace, eye, meshgrid, tril, triu, from_dlpack.

``device=`` takes a Device or a filter string ("opencl:cpu", "cuda:gpu:0"); without it arrays
go to the current ``dpk.device_context`` device, else the policy's default device. Ranges and
triangles are generated on the device: ``arange``/``linspace``/``eye`` from an index leaf of
the expression graph (fusion.iota), ``tril``/``triu`` as a select against it, each one kernel.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .._errors import DTypeError, ShapeError
from . import dtypes as D
from . import fusion
from .array_object import (Array, _check_device_dtype, _target, asarray, empty, from_dlpack,
                           full, ones, zeros)


def _like_args(x, dtype, device):
    if not isinstance(x, Array):
        raise TypeError(f"expected a dpk array, not {type(x).__name__}")
    return (x.dtype if dtype is None else D.normalize(dtype),
            x.device if device is None else device)


def empty_like(x, /, *, dtype=None, device=None):
    dtype, device = _like_args(x, dtype, device)
    return empty(x.shape, dtype, device)


def zeros_like(x, /, *, dtype=None, device=None):
    dtype, device = _like_args(x, dtype, device)
    return zeros(x.shape, dtype, device)


def ones_like(x, /, *, dtype=None, device=None):
    dtype, device = _like_args(x, dtype, device)
    return ones(x.shape, dtype, device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    dtype, device = _like_args(x, dtype, device)
    return full(x.shape, fill_value, dtype, device)


def _number(value, what):
    if isinstance(value, Array):
        return value._scalar(what)
    if isinstance(value, np.generic):
        return value.item()
    return value


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Values from start (inclusive) to stop (exclusive) by step: start + i * step."""
    start, stop, step = (_number(v, "arange") for v in (start, stop, step))
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange(): step must not be zero")
    target = _target(device)
    ints = all(isinstance(v, int) for v in (start, stop, step))
    if dtype is None:
        dtype = D.DEFAULT_INT if ints else D.default_float(target)
    else:
        dtype = D.normalize(dtype)
    if ints:
        n = builtins.max(0, -(-(stop - start) // step))
    else:
        n = builtins.max(0, int(math.ceil((stop - start) / step)))
    if dtype.kind in "iu" and n:
        last = start + (n - 1) * step
        for v in (start, last):
            if isinstance(v, float) and not float(v).is_integer():
                raise DTypeError(f"arange(): dtype {D.name(dtype)} cannot hold {v}")
            D.check_int_range(int(v), dtype)
    _check_device_dtype("arange()", target, dtype)
    arr = Array((n,), dtype, target)
    if n:
        compute = dtype if dtype.kind == "f" else (D.int64 if dtype.kind == "i" else
                                                   D.uint64)
        if dtype.kind == "f" and not ints:
            compute = D.float64 if target.has_fp64 else dtype
        i = fusion.cast(fusion.iota((n,), (1,), target), compute)
        node = fusion.apply("add", [fusion.apply("multiply", [i, fusion.scalar(step, compute,
                                                                                 target)],
                                                 compute, (n,)),
                                    fusion.scalar(start, compute, target)], compute, (n,))
        fusion.run(fusion.cast(node, dtype), arr._base, 0, (n,), (1,), dtype)
    return arr


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """num evenly spaced values from start to stop (stop included with endpoint)."""
    start, stop = _number(start, "linspace"), _number(stop, "linspace")
    is_c = isinstance(start, complex) or isinstance(stop, complex)
    num = operator.index(num)
    if num < 0:
        raise ValueError("linspace(): num must be non-negative")
    target = _target(device)
    if dtype is None:
        dtype = D.default_complex(target) if is_c else D.default_float(target)
    else:
        dtype = D.normalize(dtype)
    if dtype.kind not in "fc":
        raise DTypeError("linspace(): dtype must be a floating-point type")
    if is_c and dtype.kind != "c":
        raise DTypeError("linspace(): complex start or stop needs a complex dtype")
    arr = Array((num,), dtype, target)
    if num:
        div = (num - 1) if endpoint else num
        compute = D.float64 if target.has_fp64 else D.component(dtype)
        if dtype.kind == "c":
            compute = D.complex_of(compute)
            start, stop = complex(start), complex(stop)
        step = (stop - start) / div if div else 0.0
        i = fusion.cast(fusion.iota((num,), (1,), target), compute)
        conv = complex if compute.kind == "c" else float
        values = fusion.apply("add", [fusion.apply("multiply", [i, fusion.scalar(
            conv(step), compute, target)], compute, (num,)),
            fusion.scalar(conv(start), compute, target)], compute, (num,))
        if endpoint and num > 1:
            last = fusion.apply("equal", [fusion.iota((num,), (1,), target),
                                          fusion.scalar(num - 1, D.int64, target)],
                                D.bool, (num,))
            values = fusion.apply("where", [last, fusion.scalar(conv(stop), compute, target),
                                            values], compute, (num,))
        fusion.run(fusion.cast(values, dtype), arr._base, 0, (num,), (1,), dtype)
    return arr


def _row_col(shape, device):
    """Index leaves of the last two dimensions of `shape` (row, column)."""
    nd = len(shape)
    rows = fusion.iota(shape, [1 if d == nd - 2 else 0 for d in range(nd)], device)
    cols = fusion.iota(shape, [1 if d == nd - 1 else 0 for d in range(nd)], device)
    return rows, cols


def _diagonal_mask(shape, k, device, pred):
    """bool node: col - row `pred` k over the last two dims."""
    rows, cols = _row_col(shape, device)
    diff = fusion.apply("subtract", [cols, rows], D.int64, shape)
    return fusion.apply(pred, [diff, fusion.scalar(k, D.int64, device)], D.bool, shape)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    n_rows = operator.index(n_rows)
    n_cols = n_rows if n_cols is None else operator.index(n_cols)
    target = _target(device)
    dtype = D.default_float(target) if dtype is None else D.normalize(dtype)
    arr = Array((n_rows, n_cols), dtype, target)
    if arr.size:
        mask = _diagonal_mask((n_rows, n_cols), operator.index(k), target, "equal")
        fusion.run(fusion.cast(mask, dtype), arr._base, 0, arr.shape, arr._strides, dtype)
    return arr


def _triangle(x, k, pred, what):
    if not isinstance(x, Array):
        raise TypeError(f"{what} takes a dpk array")
    if x.ndim < 2:
        raise ShapeError(f"{what} needs an array of at least 2 dimensions, not {x.ndim}")
    mask = _diagonal_mask(x.shape, operator.index(k), x.device, pred)
    zero = fusion.scalar(False if x.dtype == D.bool else 0, x.dtype, x.device)
    return Array._lazy(fusion.apply("where", [mask, x._as_node(), zero], x.dtype, x.shape))


def tril(x, /, *, k=0):
    """x with the elements above the k-th diagonal zeroed."""
    return _triangle(x, k, "less_equal", "tril()")


def triu(x, /, *, k=0):
    """x with the elements below the k-th diagonal zeroed."""
    return _triangle(x, k, "greater_equal", "triu()")


def meshgrid(*arrays, indexing="xy"):
    """Coordinate matrices from 1-D arrays ("xy": Cartesian, "ij": matrix indexing)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("meshgrid(): indexing must be 'xy' or 'ij'")
    if not arrays:
        return []
    for a in arrays:
        if not isinstance(a, Array) or a.ndim != 1:
            raise ShapeError("meshgrid() takes 1-D dpk arrays")
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        if a.dtype != dtype:
            raise DTypeError("meshgrid(): the arrays must have one data type")
        if a.device is not arrays[0].device:
            raise ValueError("meshgrid(): the arrays must live on one device")
    shape = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, a in enumerate(arrays):
        dim = i
        if indexing == "xy" and len(arrays) > 1 and i < 2:
            dim = 1 - i
        a._materialize()
        strides = [0] * len(shape)
        strides[dim] = a._strides[0]
        view = Array._view(a._base, a._offset, shape, strides, a.dtype, a.device)
        out.append(view.copy())
    return out


__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full",
           "full_like", "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros",
           "zeros_like"]
