"""The standard's statistical functions: sum, prod, min, max, mean, std, var,
cumulative_sum, cumulative_prod.

Reductions consume the elementwise graph of their input (reduction.py): ``dpk.sum((a - b)**2)``
is one kernel reading a and b. Accumulators: integers sum in the default integer (int64, uint64
for unsigned), floats in their own type (a work-group tree, which keeps float32 sums accurate),
bool as int64. ``var``/``std`` take two passes (the mean, then the fused sum of squared
deviations). Scans are in scan.py.
"""

from __future__ import annotations

import builtins
import operator

from .._errors import DTypeError
from .._runtime import diagnostics
from . import dtypes as D
from . import fusion, reduction, scan
from .array_object import Array, full
from .manipulation_functions import concat, permute_dims, reshape
from .memory import c_strides


def normalize_axes(x, axis, what):
    """A sorted tuple of non-negative axes (all for None); AxisError-like ValueErrors."""
    nd = len(x._shape)
    if axis is None:
        return _ALL_AXES[nd] if nd < len(_ALL_AXES) else tuple(range(nd))
    axes = (axis,) if not isinstance(axis, tuple) else axis
    out = []
    for a in axes:
        a = operator.index(a)
        if not -builtins.max(nd, 1) <= a < builtins.max(nd, 1) or (nd == 0 and a not in (0, -1)):
            raise IndexError(f"{what}: axis {a} is out of bounds for an array of {nd} "
                             "dimension(s)")
        a = a + nd if a < 0 else a
        if nd == 0:
            continue
        if a in out:
            raise ValueError(f"{what}: axis {a} is given twice")
        out.append(a)
    return tuple(sorted(out))


_ALL_AXES = tuple(tuple(range(nd)) for nd in range(33))


def _result_shape(x, axes, keepdims):
    shape = x._shape
    if len(axes) == len(shape) and not keepdims:
        return ()  # every axis (axes are distinct)
    if keepdims:
        return tuple([1 if d in axes else n for d, n in enumerate(shape)])
    return tuple([n for d, n in enumerate(shape) if d not in axes])


class Operand:
    """The shape and device of a reduction's input given as a graph node only."""

    def __init__(self, shape, device):
        self.shape = self._shape = tuple(shape)
        self.device = self._device = device


def run_reduction(x, op_name, axes, keepdims, acc_dtype, node=None, what=None):
    """Reduces x (or `node` of x's shape) over axes with reduction op `op_name`; an Array of
    the op's result dtype."""
    node = node if node is not None else x._as_node()
    complex_input = node.dtype.kind == "c"
    if complex_input and op_name in ("any", "all"):
        node = fusion.cast(node, D.bool)
        complex_input = False
    if complex_input or acc_dtype.kind == "c":
        return _complex_reduction(x, node, op_name, axes, keepdims, acc_dtype, what)
    op = reduction.make_op(op_name, acc_dtype)
    in_shape = x._shape
    shape = _result_shape(x, axes, keepdims)
    length = 1
    for a in axes:
        length *= in_shape[a]
    res_dtype = op.acc_dtypes[op.result]
    device = x._device
    if length == 0:
        if op_name in ("min", "max", "argmin", "argmax"):
            raise ValueError(f"{what or op_name + '()'}: zero-size reduction has no identity "
                             f"(array shape {in_shape})")
        return full(shape, op.identity[0], res_dtype, device)
    buf = reduction.reduce(op, node, axes, device)
    return Array._view(buf, 0, shape, c_strides(shape), res_dtype, device)


def _complex_reduction(x, node, op_name, axes, keepdims, acc_dtype, what):
    """sum and prod of complex numbers. sum: one reduction with two real accumulators (real and
    imaginary part), consuming the producer graph like a real sum. prod: a tree of complex
    multiplications over halves of the reduced axes (log2(n) elementwise passes)."""
    what = what or f"{op_name}()"
    if op_name not in ("sum", "prod"):
        raise DTypeError(f"{what} needs a real-valued data type, not {D.name(node.dtype)}")
    if acc_dtype.kind != "c":
        raise DTypeError(f"{what}: a complex array cannot be reduced into "
                         f"{D.name(acc_dtype)}; take real() or abs() first")
    node = fusion.cast(node, acc_dtype)
    shape = _result_shape(x, axes, keepdims)
    if op_name == "sum":
        length = 1
        for a in axes:
            length *= x.shape[a]
        if length == 0:
            return full(shape, 0, acc_dtype, x.device)
        buf = reduction.reduce(reduction.make_op("sum", acc_dtype), node, axes, x.device)
        return Array._view(buf, 0, shape, c_strides(shape), acc_dtype, x.device)
    # prod: move the reduced axes last, flatten them, multiply halves until one is left
    xs = Array._lazy(fusion.apply("positive", [node], acc_dtype, node.shape)) \
        if node.op != "leaf" else Array._view(node.buffer, node.offset, node.shape,
                                              node.strides, acc_dtype, node.device)
    kept = [d for d in range(len(node.shape)) if d not in axes]
    length = 1
    for a in axes:
        length *= node.shape[a]
    outer = 1
    for d in kept:
        outer *= node.shape[d]
    if length == 0:
        return full(shape, 1, acc_dtype, x.device)
    cur = reshape(permute_dims(xs, tuple(kept) + tuple(axes)), (outer, length))
    while cur.shape[1] > 1:
        n = cur.shape[1]
        h = n // 2
        prod = cur[:, :h] * cur[:, h:2 * h]
        cur = concat([prod, cur[:, 2 * h:]], axis=1) if n % 2 else prod
    return reshape(cur, shape)


def _check(x, what):
    if not isinstance(x, Array):
        raise TypeError(f"{what} takes a dpk array, not {type(x).__name__}")


def _sum_dtype(x, dtype):
    if dtype is not None:
        return D.normalize(dtype)
    kind = x._dtype.kind
    if kind == "b" or kind == "i":
        return D.int64
    if kind == "u":
        return D.uint64
    return x._dtype


def _whole(x, name, acc):
    """`name` over every axis of x into a 0-D array, taken straight from x's leaf when x is a
    materialized array whose leaf ran this reduction before (reduction.memoized_full), or None.
    The general path's checks passed then for this geometry and dtype, and neither changes for
    an array's life; what is left is the launch (a per-call ``float(dpk.sum(a))`` on a GPU pays
    the general path's Python before its launch). Diagnostics at level 2 report each reduction,
    so they take the general path."""
    leaf = x._leaf
    if leaf is None or leaf.memo is None or x._node is not None or diagnostics.enabled(2):
        return None
    op = reduction.make_op(name, acc)
    found = reduction.memoized_full(op, leaf)
    if found is None:
        return None
    device = x._device
    buf = reduction.run_recipe(found[0], found[1], device, op)
    return Array._view(buf, 0, (), (), op.pair or op.acc_dtypes[op.result], device)


def _reduce(x, name, axis, keepdims, acc, shortcut):
    """`name` of x over `axis` into `acc`: a whole materialized array straight from its leaf
    (_whole) when `shortcut` allows it (no dtype asked for, a dtype make_op takes), else the
    general path."""
    if shortcut and axis is None and not keepdims:
        whole = _whole(x, name, acc)
        if whole is not None:
            return whole
    what = f"{name}()"
    return run_reduction(x, name, normalize_axes(x, axis, what), keepdims, acc, what=what)


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001
    _check(x, "sum()")
    return _reduce(x, "sum", axis, keepdims, _sum_dtype(x, dtype), dtype is None)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    _check(x, "prod()")
    return _reduce(x, "prod", axis, keepdims, _sum_dtype(x, dtype), dtype is None)


def _minmax(name):
    def fn(x, /, *, axis=None, keepdims=False):
        _check(x, f"{name}()")
        return _reduce(x, name, axis, keepdims, x._dtype, x._dtype.kind != "c")
    fn.__name__ = name
    fn.__doc__ = f"The {'smallest' if name == 'min' else 'largest'} element (NaN propagates)."
    return fn


min = _minmax("min")  # noqa: A001
max = _minmax("max")  # noqa: A001


def _float_input(x, what):
    if x.dtype.kind in "fc":
        return x.dtype
    if x.dtype.kind == "b":
        raise DTypeError(f"{what} needs a floating-point data type, not bool")
    return D.default_float(x.device)


def mean(x, /, *, axis=None, keepdims=False):
    _check(x, "mean()")
    dtype = _float_input(x, "mean()")
    axes = normalize_axes(x, axis, "mean()")
    count = _count(x, axes)
    total = run_reduction(x, "sum", axes, keepdims, dtype)
    return _divide(total, count, dtype)


def _count(x, axes):
    n = 1
    for a in axes:
        n *= x.shape[a]
    return n


def _divide(total, count, dtype):
    node = fusion.apply("divide", [total._as_node(), fusion.scalar(float(count), dtype,
                                                                   total.device)],
                        dtype, total.shape)
    return Array._lazy(node)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    _check(x, "var()")
    return _var(x, axis, correction, keepdims, "var()")


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    _check(x, "std()")
    v = _var(x, axis, correction, keepdims, "std()")
    return Array._lazy(fusion.apply("sqrt", [v._as_node()], v.dtype, v.shape))


def _var(x, axis, correction, keepdims, what):
    dtype = _float_input(x, what)
    axes = normalize_axes(x, axis, what)
    count = _count(x, axes)
    xnode = fusion.cast(x._as_node(), dtype)
    mu = mean(x, axis=axes, keepdims=True) if count else None
    if dtype.kind == "c":  # NumPy's definition: the mean of |x - mean|^2 (a real result)
        dtype = D.component(dtype)
    if mu is not None:
        mu._materialize()
        dev = fusion.apply("subtract", [xnode, mu._as_node()], xnode.dtype, x.shape)
        if xnode.dtype.kind == "c":
            dev = fusion.apply("abs", [dev], dtype, x.shape)
        sq = fusion.apply("square", [dev], dtype, x.shape)
    else:
        sq = fusion.cast(xnode, dtype) if xnode.dtype.kind != "c" else \
            fusion.apply("abs", [xnode], dtype, x.shape)
    total = run_reduction(x, "sum", axes, keepdims, dtype, node=sq)
    denominator = builtins.max(count - correction, 0.0)
    if count == 0:
        denominator = 0.0
    return _divide(total, denominator, dtype)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    _check(x, "cumulative_sum()")
    return scan.cumulative(x, "sum", axis, _sum_dtype(x, dtype), include_initial,
                           "cumulative_sum()", Array)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    _check(x, "cumulative_prod()")
    return scan.cumulative(x, "prod", axis, _sum_dtype(x, dtype), include_initial,
                           "cumulative_prod()", Array)


__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum",
           "var"]
