"""The standard's utility functions: all, any (reductions to bool) and diff."""

from __future__ import annotations

import operator

from .._errors import ShapeError
from . import dtypes as D
from . import fusion
from .array_object import Array
from .manipulation_functions import broadcast_to, concat
from .statistical_functions import normalize_axes, run_reduction


def _logical(name):
    def fn(x, /, *, axis=None, keepdims=False):
        if not isinstance(x, Array):
            raise TypeError(f"{name}() takes a dpk array, not {type(x).__name__}")
        axes = normalize_axes(x, axis, f"{name}()")
        return run_reduction(x, name, axes, keepdims, D.bool)
    fn.__name__ = name
    fn.__doc__ = f"Whether {'every' if name == 'all' else 'some'} element is true (non-zero)."
    return fn


all = _logical("all")  # noqa: A001
any = _logical("any")  # noqa: A001


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The n-th forward difference along axis (x[i+1] - x[i], n times)."""
    if not isinstance(x, Array):
        raise TypeError(f"diff() takes a dpk array, not {type(x).__name__}")
    if x.ndim == 0:
        raise ShapeError("diff() needs at least one dimension")
    n = operator.index(n)
    if n < 0:
        raise ValueError("diff(): n must be non-negative")
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"diff(): axis {axis} is out of bounds for {x.ndim} dimension(s)")
    axis %= x.ndim
    parts = []
    for extra in (prepend, x, append):
        if extra is None:
            continue
        if extra is not x:
            shape = list(x.shape)
            shape[axis] = 1
            if not isinstance(extra, Array):
                extra = broadcast_to(Array._lazy(_scalar_node(extra, x))._materialize(),
                                     tuple(shape))
            elif extra.ndim == 0:
                extra = broadcast_to(extra, tuple(shape))
        parts.append(extra)
    y = concat(parts, axis=axis) if len(parts) > 1 else x
    for _ in range(n):
        length = y.shape[axis]
        hi = [slice(None)] * y.ndim
        lo = [slice(None)] * y.ndim
        hi[axis] = slice(1, None)
        lo[axis] = slice(None, max(length - 1, 0))
        if y.dtype == D.bool:
            y = y[tuple(hi)] ^ y[tuple(lo)]
        else:
            y = y[tuple(hi)] - y[tuple(lo)]
    return y


def _scalar_node(value, x):
    dtype = D.scalar_result(x.dtype, value, x.device)
    return fusion.apply("positive", [fusion.scalar(value, dtype, x.device)], dtype, ())


__all__ = ["all", "any", "diff"]
