"""The standard's data type functions: astype, can_cast, finfo, iinfo, isdtype, result_type.

Conversions run as a cast node of the expression graph (fused with what produces or consumes
it). Promotion follows dtypes.py: the standard's table, NumPy's choice where it is silent.
"""

from __future__ import annotations

from .._errors import DTypeError
from . import dtypes as D
from .array_object import Array, astype_array
from .elementwise_ops import promote_items


def astype(x, dtype, /, *, copy=True, device=None):
    """x converted to `dtype` (on `device` if given). ``copy=False`` returns x itself when
    nothing changes."""
    if not isinstance(x, Array):
        raise TypeError(f"astype() takes a dpk array, not {type(x).__name__}")
    dtype = D.normalize(dtype)
    if device is not None:
        x = x.to_device(device)
    if dtype == x.dtype:
        return x.copy() if copy else x
    if x.dtype.kind == "c" and dtype.kind not in "cb":
        raise DTypeError(f"astype(): casting complex {D.name(x.dtype)} to {D.name(dtype)} would "
                         "drop the imaginary part (the standard does not permit it); use "
                         "real(x) or abs(x)")
    return astype_array(x, dtype)


def can_cast(from_, to, /):
    """Whether the promotion rules allow `from_` (a dtype or an array) to become `to`."""
    if isinstance(from_, Array):
        from_ = from_.dtype
    return D.can_cast(D.normalize(from_), D.normalize(to))


def finfo(type, /):  # noqa: A002 - the standard's name
    """Machine limits of a floating-point dtype (or of an array's dtype)."""
    dtype = D.normalize(type.dtype if isinstance(type, Array) else type)
    if dtype.kind not in "fc":
        raise DTypeError(f"finfo() needs a floating-point dtype, not {D.name(dtype)}")
    return D.finfo_object(dtype)


def iinfo(type, /):  # noqa: A002
    """Machine limits of an integer dtype (or of an array's dtype)."""
    dtype = D.normalize(type.dtype if isinstance(type, Array) else type)
    if dtype.kind not in "iu":
        raise DTypeError(f"iinfo() needs an integer dtype, not {D.name(dtype)}")
    return D.iinfo_object(dtype)


def isdtype(dtype, kind):
    """Whether `dtype` is of `kind`: a dtype, one of "bool", "signed integer", "unsigned
    integer", "integral", "real floating", "complex floating", "numeric", or a tuple of these."""
    return D.isdtype(D.normalize(dtype), kind)


def result_type(*arrays_and_dtypes):
    """The dtype promotion gives the arguments (arrays, dtypes and, since 2024.12, Python
    scalars, which are weak)."""
    items = []
    for a in arrays_and_dtypes:
        if isinstance(a, Array):
            items.append(("strong", None, a.dtype))
        elif D.is_python_scalar(a) or isinstance(a, complex):
            items.append(("weak", a))
        else:
            items.append(("strong", None, D.normalize(a)))
    if not any(it[0] == "strong" for it in items):
        raise ValueError("result_type() needs at least one array or dtype")
    return promote_items("result_type()", items, None)


__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]
