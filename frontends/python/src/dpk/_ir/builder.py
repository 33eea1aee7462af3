"""Builder helpers that every programming model emits IR with: constants, conversions between
scalar types, Python's floor division and modulo, integer powers and linear work-item ids.

Each takes the C++ IR builder (``dpk._core.Builder``) and NumPy dtypes and returns an IR value;
which dtype an operation computes in is decided by types.py, and what is an error by the caller,
which knows the user's source.
"""

from __future__ import annotations

import numpy as np

from .. import _core_loader
from . import types as T


def const(b, dtype, value):
    """The IR constant `value` of `dtype` (unsigned values wrap into the int64 attribute)."""
    dtype = np.dtype(dtype)
    kind = T.scalar_kind(dtype)
    if dtype.kind == "b":
        return b.const_bool(bool(value))
    if dtype.kind == "f":
        return b.const_float(kind, float(value))
    value = int(value)
    if dtype.kind == "u" and value < 0:
        value += 1 << (8 * dtype.itemsize)
    if value >= 1 << 63:
        value -= 1 << 64  # intAttr is an int64: unsigned values above 2**63 wrap
    return b.const_int(kind, value)


def convert(b, value, src, dtype):
    """IR `value` of dtype `src` as `dtype`: itself, a cast, or ``value != 0`` for bool."""
    src, dtype = np.dtype(src), np.dtype(dtype)
    if src == dtype:
        return value
    if dtype.kind == "b":
        zero = const(b, src, 0)
        return b.cmp(_core_loader.core().CmpPredicate.Ne, value, zero)
    return b.cast(value, T.ir_scalar(dtype))


def floordiv(b, dtype, x, y):
    """Python's ``x // y`` in `dtype`: rounds toward minus infinity, also for negative ints."""
    core = _core_loader.core()
    OpKind, P = core.OpKind, core.CmpPredicate
    if dtype.kind == "f":
        q = b.binary(OpKind.Div, x, y)
        return b.math(core.MathFn.Floor, [q])
    q = b.binary(OpKind.Div, x, y)
    if dtype.kind == "u":
        return q
    # Python rounds toward -inf: subtract one when the remainder is non-zero and the
    # operands have opposite signs.
    r = b.binary(OpKind.Rem, x, y)
    zero = const(b, dtype, 0)
    nonzero = b.cmp(P.Ne, r, zero)
    signs_differ = b.cmp(P.Lt, b.binary(OpKind.Xor, r, y), zero)
    adjust = b.binary(OpKind.And, nonzero, signs_differ)
    return b.select(adjust, b.binary(OpKind.Sub, q, const(b, dtype, 1)), q)


def floormod(b, dtype, x, y):
    """Python's ``x % y`` in `dtype`: the result has the sign of `y`."""
    core = _core_loader.core()
    OpKind, P = core.OpKind, core.CmpPredicate
    r = b.binary(OpKind.Rem, x, y)
    if dtype.kind == "u":
        return r
    zero = const(b, dtype, 0)
    nonzero = b.cmp(P.Ne, r, zero)
    if dtype.kind == "f":
        signs_differ = b.binary(OpKind.Xor, b.cmp(P.Lt, r, zero), b.cmp(P.Lt, y, zero))
    else:
        signs_differ = b.cmp(P.Lt, b.binary(OpKind.Xor, r, y), zero)
    adjust = b.binary(OpKind.And, nonzero, signs_differ)
    return b.select(adjust, b.binary(OpKind.Add, r, y), r)


def int_power(b, dtype, x, exponent):
    """``x ** exponent`` for a constant integer exponent >= 0, by squaring, unrolled."""
    result, base, e = None, x, exponent
    mul = _core_loader.core().OpKind.Mul
    while e:
        if e & 1:
            result = base if result is None else b.binary(mul, result, base)
        e >>= 1
        if e:
            base = b.binary(mul, base, base)
    return result if result is not None else const(b, dtype, 1)


def linear_work_item(b, id_kind, size_kind, ndim):
    """The row-major linear id over `ndim` dimensions: id_kind (e.g. OpKind.GlobalId) in a
    range of size_kind (OpKind.GlobalSize); dimension 0 varies slowest. An IR i64."""
    OpKind = _core_loader.core().OpKind
    result = None
    for d in range(ndim):
        i = b.work_item(id_kind, d)
        if result is None:
            result = i
        else:
            n = b.work_item(size_kind, d)
            result = b.binary(OpKind.Add, b.binary(OpKind.Mul, result, n), i)
    return result


def linear_work_range(b, size_kind, ndim):
    """The product of size_kind (e.g. OpKind.GlobalSize) over `ndim` dimensions. An IR i64."""
    mul = _core_loader.core().OpKind.Mul
    result = None
    for d in range(ndim):
        n = b.work_item(size_kind, d)
        result = n if result is None else b.binary(mul, result, n)
    return result
