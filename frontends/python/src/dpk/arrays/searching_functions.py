"""The standard's searching functions: argmax, argmin, where, nonzero, searchsorted,
count_nonzero.

argmax/argmin are reductions (reduction.py; first occurrence, NaN counts as the extreme);
``where`` is an elementwise select and fuses; ``nonzero`` scans (scan.py); ``searchsorted`` runs
one binary search per element of x2 as a kernel.
"""

from __future__ import annotations

import numpy as np

from .._errors import DTypeError, ShapeError
from .._ir import builder as B
from .._ir import scalar_ops
from . import dtypes as D
from . import fusion, scan
from . import generated as G
from .array_object import Array
from .elementwise_ops import WHERE_ROW, elementwise, common_device
from .memory import Buffer
from .statistical_functions import normalize_axes, run_reduction

_I64 = np.dtype(np.int64)


def _check(x, what):
    if not isinstance(x, Array):
        raise TypeError(f"{what} takes a dpk array, not {type(x).__name__}")


def _arg(name):
    def fn(x, /, *, axis=None, keepdims=False):
        _check(x, f"{name}()")
        if x.dtype == D.bool:
            raise DTypeError(f"{name}() needs a real numeric data type, not bool")
        axes = normalize_axes(x, axis, f"{name}()")
        if axis is not None and not isinstance(axis, int):
            raise TypeError(f"{name}(): axis must be an int or None")
        return run_reduction(x, name, axes, keepdims, x.dtype, what=f"{name}()")
    fn.__name__ = name
    fn.__doc__ = (f"Index of the {'largest' if name == 'argmax' else 'smallest'} element (the "
                  "first one; a NaN counts as the extreme), flat for axis=None.")
    return fn


argmax = _arg("argmax")
argmin = _arg("argmin")


def where(condition, x1, x2, /):
    """x1 where condition is true, else x2 (x1/x2 may be Python scalars)."""
    if not isinstance(condition, Array):
        raise TypeError("where(): condition must be a dpk array")
    if condition._dtype is not D.bool and condition.dtype != D.bool:
        raise DTypeError(f"where(): condition must be a bool array, not "
                         f"{D.name(condition.dtype)}")
    if not isinstance(x1, Array) and not isinstance(x2, Array):
        raise TypeError("where(): x1 or x2 must be an array")
    result = elementwise(WHERE_ROW, condition, x1, x2, what="where()")
    if result is NotImplemented:
        raise TypeError("where() takes dpk arrays and Python scalars")
    return result


def nonzero(x, /):
    """The coordinates of the non-zero elements, one int64 array per dimension, in C order."""
    _check(x, "nonzero()")
    if x.ndim == 0:
        raise ValueError("nonzero() is not defined for 0-D arrays")
    return scan.nonzero(x, Array)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    _check(x, "count_nonzero()")
    axes = normalize_axes(x, axis, "count_nonzero()")
    zero = fusion.scalar(False if x.dtype == D.bool else 0, x.dtype, x.device)
    flags = fusion.apply("not_equal", [x._as_node(), zero], D.bool, x.shape)
    return run_reduction(x, "sum", axes, keepdims, D.int64, node=flags)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Insertion indices of x2's elements into the sorted 1-D x1 (NaN sorts last)."""
    _check(x1, "searchsorted()")
    if side not in ("left", "right"):
        raise ValueError("searchsorted(): side must be 'left' or 'right'")
    if x1.ndim != 1:
        raise ShapeError("searchsorted(): x1 must be 1-D")
    if not isinstance(x2, Array):
        x2 = _scalar_array(x2, x1)
    common_device("searchsorted()", [x1, x2] + ([sorter] if sorter is not None else []))
    dtype = D.promote(x1.dtype, x2.dtype)
    if dtype.kind == "c":
        raise DTypeError("searchsorted() needs real-valued data types: complex numbers are not "
                         "ordered")
    x1c = x1._contiguous()
    x2c = x2._contiguous()
    n = x1.shape[0]
    out = Buffer(x2.device, x2.size * 8)
    result = Array._view(out, 0, x2.shape, _c(x2.shape), _I64, x2.device)
    if x2.size == 0:
        return result
    if sorter is not None:
        _check(sorter, "searchsorted()")
        if sorter.dtype.kind not in "iu" or sorter.shape != x1.shape:
            raise ShapeError("searchsorted(): sorter must be integer indices shaped like x1")
        sorter = sorter._contiguous()
    steps = max(1, n.bit_length() + 1)
    space = fusion.LaunchShape([x2.size], x2.device)
    key = ("search", x1.dtype.char, x2.dtype.char, dtype.char, side,
           sorter.dtype.char if sorter is not None else None, space.key)
    kernel = G.cached(key, lambda: _build_search(x1.dtype, x2.dtype, dtype, side,
                                                 sorter.dtype if sorter is not None else None,
                                                 space))
    dev = x2.device
    args = [G.ViewArg(out.ptr, dev), G.ViewArg(_addr(x1c), dev), G.ViewArg(_addr(x2c), dev)]
    if sorter is not None:
        args.append(G.ViewArg(_addr(sorter), dev))
    args += [n, steps] + space.args()
    kernel.launch(space.index_range(), args)
    return result


def _scalar_array(value, x1):
    from_dtype = D.scalar_result(x1.dtype, value, x1.device)
    return Array._lazy(fusion.apply("positive", [fusion.scalar(value, from_dtype, x1.device)],
                                    from_dtype, ()))._materialize()


def _c(shape):
    strides, step = [], 1
    for e in reversed(shape):
        strides.append(step)
        step *= max(e, 1)
    return tuple(reversed(strides))


def _addr(a):
    return a._base.ptr + a._offset * a.dtype.itemsize


def _build_search(d1, d2, dtype, side, sdt, space):
    kb = G.KernelBuilder(fusion.kernel_name("searchsorted", [side]))
    out_v = kb.view(_I64, "out")
    x1_v = kb.view(d1, "x1")
    x2_v = kb.view(d2, "x2")
    s_v = kb.view(sdt, "sorter") if sdt is not None else None
    p_n = kb.scalar(_I64, "n")
    p_steps = kb.scalar(_I64, "steps")
    space.declare(kb)
    b = kb.begin()
    (i,) = space.indices(kb)
    key = B.convert(b, kb.load(kb.ptr(x2_v), i), d2, dtype)
    zero = kb.i64(0)
    lo = kb.alloca(_I64)
    hi = kb.alloca(_I64)
    kb.store(lo, zero, zero)
    kb.store(hi, zero, kb.param(p_n))

    def less(a, c):
        """a < c with NaN after every number."""
        if dtype.kind != "f":
            return kb.cmp("Lt", a, c)
        from_nan = kb.op("And", scalar_ops.isnan(b, dtype, c),
                         b.unary(kb.core.OpKind.Not, scalar_ops.isnan(b, dtype, a)))
        return kb.op("Or", kb.cmp("Lt", a, c), from_nan)

    body, _ = G.for_loop(kb, zero, kb.param(p_steps), kb.i64(1), "it")
    with G.Block(kb, body):
        l_, h_ = kb.load(lo, zero), kb.load(hi, zero)
        cond = b.create_if(kb.cmp("Lt", l_, h_))
        with G.Block(kb, G.then_block(cond)):
            mid = kb.op("Div", kb.op("Add", l_, h_), kb.i64(2))
            pos = mid
            if s_v is not None:
                pos = B.convert(b, kb.load(kb.ptr(s_v), mid), sdt, _I64)
            v = B.convert(b, kb.load(kb.ptr(x1_v), pos), d1, dtype)
            go_right = less(v, key) if side == "left" else b.unary(kb.core.OpKind.Not,
                                                                   less(key, v))
            kb.store(lo, zero, b.select(go_right, kb.op("Add", mid, kb.i64(1)), l_))
            kb.store(hi, zero, b.select(go_right, h_, mid))
    kb.store(kb.ptr(out_v), i, kb.load(lo, zero))
    return kb.finish()


__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]
