"""The standard's indexing functions: take and take_along_axis (gather kernels, indexing.py)."""

from __future__ import annotations

import operator

from .._errors import DTypeError, ShapeError
from . import dtypes as D
from . import fusion
from .array_object import Array


def take(x, indices, /, *, axis=None):
    """Elements of x at `indices` (1-D integer array) along axis (optional for 1-D x)."""
    if not isinstance(x, Array) or not isinstance(indices, Array):
        raise TypeError("take() takes dpk arrays")
    if indices.dtype.kind not in "iu":
        raise DTypeError("take(): indices must be integers")
    if indices.ndim != 1:
        raise ShapeError("take(): indices must be 1-D")
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take(): axis is required for arrays of more than one dimension")
        axis = 0
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"take(): axis {axis} is out of bounds for {x.ndim} dimension(s)")
    key = [slice(None)] * x.ndim
    key[axis % x.ndim] = indices
    return x[tuple(key)]


def take_along_axis(x, indices, /, *, axis=-1):
    """x[..., indices[..., j, ...], ...] along axis: indices has x's rank and broadcasts with
    x in the other dimensions."""
    if not isinstance(x, Array) or not isinstance(indices, Array):
        raise TypeError("take_along_axis() takes dpk arrays")
    if indices.dtype.kind not in "iu":
        raise DTypeError("take_along_axis(): indices must be integers")
    if indices.ndim != x.ndim:
        raise ShapeError("take_along_axis(): indices must have x's number of dimensions")
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"take_along_axis(): axis {axis} is out of bounds")
    axis %= x.ndim
    key = []
    for d in range(x.ndim):
        if d == axis:
            key.append(indices)
            continue
        shape = [1] * x.ndim
        shape[d] = x.shape[d]
        strides = [0] * x.ndim
        strides[d] = 1
        key.append(Array._lazy(fusion.apply("positive", [fusion.iota(shape, strides,
                                                                     x.device)],
                                            D.int64, tuple(shape)))._materialize())
    return x[tuple(key)]


__all__ = ["take", "take_along_axis"]
