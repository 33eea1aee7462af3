"""The standard's elementwise functions (``dpk.add``, ``dpk.sin``, ...), one per row of the
elementwise table, plus ``clip``.

Each function records its operation in the expression graph (fusion.py) and returns a lazy
array; the kernel runs when the value is needed. Binary functions take Python scalars for one
operand (2024.12).
"""

from __future__ import annotations

from .array_object import Array
from .elementwise_ops import elementwise, elementwise_node
from .elementwise_table import TABLE
from . import dtypes as D
from . import fusion
from .._errors import DTypeError


def _unary(row):
    def fn(x, /):
        if not isinstance(x, Array):
            raise TypeError(f"{row.name}() takes a dpk array, not {type(x).__name__}")
        return elementwise(row, x)
    return fn


def _binary(row):
    def fn(x1, x2, /):
        result = elementwise(row, x1, x2)
        if result is NotImplemented:
            raise TypeError(f"{row.name}() takes dpk arrays and Python scalars, not "
                            f"{type(x1).__name__} and {type(x2).__name__}")
        return result
    return fn


def _make(row):
    fn = _unary(row) if row.arity == 1 else _binary(row)
    fn.__name__ = fn.__qualname__ = row.name
    fn.__doc__ = (f"The Array API standard's ``{row.name}`` (inputs: {row.category} data "
                  f"types; result: {row.result}).")
    return fn


FUNCTIONS = {name: _make(row) for name, row in TABLE.items()}
globals().update(FUNCTIONS)


def clip(x, /, min=None, max=None):
    """x limited to [min, max] elementwise (bounds: arrays, Python scalars or None); NaN in
    x or in a bound gives NaN. The result has x's dtype."""
    if not isinstance(x, Array):
        raise TypeError(f"clip() takes a dpk array, not {type(x).__name__}")
    if x.dtype == D.bool:
        raise DTypeError("clip() needs a real numeric data type, not bool")
    result = x
    for bound, op in ((min, "maximum"), (max, "minimum")):
        if bound is None:
            continue
        if isinstance(bound, Array):
            if bound.dtype.kind != x.dtype.kind and not (
                    bound.dtype.kind in "iu" and x.dtype.kind in "iu"):
                raise DTypeError(f"clip(): bound of dtype {D.name(bound.dtype)} for an array "
                                 f"of {D.name(x.dtype)}")
        elif isinstance(bound, (int, float)) and not isinstance(bound, bool):
            if x.dtype.kind in "iu":
                if isinstance(bound, float):
                    raise DTypeError("clip(): a float bound for an integer array")
                info = D.iinfo_object(x.dtype)
                bound = info.min if bound < info.min else info.max if bound > info.max \
                    else bound
        node = elementwise_node(TABLE[op], (result, bound), "clip()")
        result = Array._lazy(_cast_to(node, x.dtype))
    if result is x:
        return Array._lazy(_identity(x))
    return result


def _cast_to(node, dtype):
    return fusion.cast(node, dtype)


def _identity(x):
    return fusion.apply("positive", [x._as_node()], x.dtype, x.shape)


__all__ = sorted(FUNCTIONS) + ["clip"]
