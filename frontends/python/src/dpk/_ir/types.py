"""Scalar typing for every programming model: how Python values are typed, and promotion.

Scalar types are NumPy dtypes mapped onto IR scalar kinds. Values also carry a *weak* flag:
Python literals and module-level Python numbers are weak, so they adopt the type of the other
operand (``x * 2`` keeps ``x`` float32, as NumPy 2's NEP 50 does). Two strong types promote
as NumPy does (``numpy.promote_types``), except that mixing signed and unsigned 64-bit integers
gives int64 (NumPy would give float64). True division of integers gives float64.
"""

from __future__ import annotations

import numpy as np

from .. import _core_loader

# dtype char -> (IR scalar kind name, numpy dtype)
_DTYPES = {
    "?": "Bool", "b": "I8", "h": "I16", "i": "I32", "l": "I64", "q": "I64",
    "B": "U8", "H": "U16", "I": "U32", "L": "U64", "Q": "U64",
    "e": "F16", "f": "F32", "d": "F64",
}

BOOL = np.dtype(np.bool_)
I32 = np.dtype(np.int32)
I64 = np.dtype(np.int64)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def supported_dtype(dtype) -> bool:
    dtype = np.dtype(dtype)
    return dtype.char in _DTYPES and dtype.isnative


def scalar_kind(dtype):
    """The IR ScalarKind of a dtype."""
    core = _core_loader.core()
    return getattr(core.ScalarKind, _DTYPES[np.dtype(dtype).char])


def ir_scalar(dtype):
    core = _core_loader.core()
    return core.Type.scalar(scalar_kind(dtype))


def is_int(dtype) -> bool:
    return np.dtype(dtype).kind in "iu"


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def is_bool(dtype) -> bool:
    return np.dtype(dtype).kind == "b"


def arith_dtype(dtype):
    """The type arithmetic happens in: f16 computes in f32, bool in int64."""
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        return F32
    if dtype.kind == "b":
        return I64
    return dtype


def promote(a, a_weak, b, b_weak):
    """Result dtype and weakness of a binary arithmetic operation."""
    a, b = arith_dtype(a), arith_dtype(b)
    if a_weak and b_weak:
        if a.kind == "f" or b.kind == "f":
            return F64, True
        return I64, True
    if a_weak or b_weak:
        strong, weak = (b, a) if a_weak else (a, b)
        if weak.kind == "f" and strong.kind != "f":
            return F64, False
        return strong, False
    if a == b:
        return a, False
    if a.kind in "iu" and b.kind in "iu" and a.kind != b.kind and max(a.itemsize, b.itemsize) == 8:
        return I64, False
    return np.promote_types(a, b), False


def unify_variable(old, old_weak, new, new_weak):
    """The type a variable keeps after being assigned a value of type `new`.

    A weakly typed variable (initialised from a literal) adopts a strong type of the same or a
    wider category; otherwise the two types promote. Returns (dtype, weak).
    """
    old, new = np.dtype(old), np.dtype(new)
    if old == new:
        return old, old_weak and new_weak
    if old.kind == "b" or new.kind == "b":
        if old.kind == new.kind:
            return old, False
        other = new if old.kind == "b" else old
        return arith_dtype(other), False
    return promote(old, old_weak, new, new_weak)
