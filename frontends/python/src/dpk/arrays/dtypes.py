"""The Array API data types of dpk arrays, their categories and type promotion.

dpk's dtype objects are NumPy dtypes (``dpk.float32 == numpy.dtype("float32")``), so they print,
compare and hash as NumPy's do and NumPy arrays convert without a table. Supported: bool,
int8-int64, uint8-uint64, float32, float64, complex64, complex128 (complex values are pairs of
real IR values in generated kernels: complex_ops.py).

Promotion between arrays follows the standard's table; the combinations the standard leaves
unspecified (signed with unsigned 64-bit, integers with floats, bool with numbers) follow
NumPy's ``promote_types``. Python scalars are weak (NEP 50, and the standard's rules for
scalars): they take the array's type when their kind fits (bool with bool, int with integers
and floats, float with floats), and otherwise the default type of their kind.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .._errors import DTypeError, UnsupportedError

bool = np.dtype(np.bool_)  # noqa: A001 - the standard's name
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
uint64 = np.dtype(np.uint64)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

SIGNED = (int8, int16, int32, int64)
UNSIGNED = (uint8, uint16, uint32, uint64)
INTEGER = SIGNED + UNSIGNED
FLOATING = (float32, float64)
COMPLEX = (complex64, complex128)
REAL_NUMERIC = INTEGER + FLOATING
NUMERIC = REAL_NUMERIC + COMPLEX
# The real types: every dpk kernel path (primitives, @dpk.vectorize, kernels) takes these.
ALL = (bool,) + REAL_NUMERIC
# The array namespace's types: the real ones and the complex ones.
ALL_TYPES = ALL + COMPLEX

DEFAULT_INT = int64
DEFAULT_INDEX = int64

# The standard's dtype categories (the "should have a ... data type" of each function).
CATEGORIES = {
    "bool": (bool,),
    "integer": INTEGER,
    "integer or boolean": INTEGER + (bool,),
    "numeric": NUMERIC,
    "real numeric": REAL_NUMERIC,
    "floating-point": FLOATING + COMPLEX,
    "real floating-point": FLOATING,
    "complex floating-point": COMPLEX,
    "any": ALL_TYPES,
}

_NAMES = {d: d.name for d in ALL_TYPES}
_NAMES[bool] = "bool"

# isdtype's kinds
_KINDS = {
    "bool": (bool,),
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": INTEGER,
    "real floating": FLOATING,
    "complex floating": COMPLEX,
    "numeric": NUMERIC,
}


def name(dtype) -> str:
    return _NAMES.get(np.dtype(dtype), str(dtype))


def normalize(dtype, what="dtype"):
    """A supported dpk dtype from a dtype-like object (dpk/NumPy dtype, type, name)."""
    if dtype is None:
        raise TypeError(f"{what} must be a data type, not None")
    try:
        d = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{what} {dtype!r} is not a data type") from None
    if d.isnative and d in _NAMES:
        return _NAMES_CANON[d]
    raise UnsupportedError(f"{what} {d} is not supported by dpk arrays (supported: "
                           f"{', '.join(name(x) for x in ALL_TYPES)})")


_NAMES_CANON = {d: d for d in ALL_TYPES}


def in_category(dtype, category) -> builtins.bool:
    return dtype in CATEGORIES[category]


def check_category(what, dtype, category):
    """Raises TypeError unless `dtype` belongs to the standard's `category`."""
    if dtype not in CATEGORIES[category]:
        raise DTypeError(f"{what} needs a {category} data type, not {name(dtype)}")


_PROMOTED = {}


def promote(a, b):
    """The result dtype of combining arrays of dtypes a and b (the standard's table; NumPy's
    choice where the standard leaves it open)."""
    if a is b:
        return a
    key = (a, b)
    out = _PROMOTED.get(key)
    if out is None:
        out = _PROMOTED[key] = a if a == b else _NAMES_CANON[np.promote_types(a, b)]
    return out


def default_float(device=None):
    """float64, or float32 on a device without fp64."""
    if device is not None and not device.has_fp64:
        return float32
    return float64


def default_complex(device=None):
    """complex128, or complex64 on a device without fp64."""
    if device is not None and not device.has_fp64:
        return complex64
    return complex128


_COMPONENT = {complex64: float32, complex128: float64}
_COMPLEX_OF = {float32: complex64, float64: complex128}


def component(dtype):
    """The real type of a complex type's components (complex64 -> float32); real types map to
    themselves."""
    return _COMPONENT.get(dtype, dtype)


def complex_of(dtype, device=None):
    """The complex type whose components are `dtype` (float32 -> complex64; other real types
    -> the default complex type)."""
    if dtype.kind == "c":
        return dtype
    return _COMPLEX_OF.get(dtype) or default_complex(device)


def is_complex(dtype) -> builtins.bool:
    return dtype.kind == "c"


def is_python_scalar(value) -> builtins.bool:
    return isinstance(value, (builtins.bool, int, float, complex)) and \
        not isinstance(value, np.generic)


def scalar_result(array_dtype, value, device=None):
    """The dtype of ``array (of array_dtype) <op> value`` for a Python scalar `value`."""
    if isinstance(value, builtins.bool):
        return array_dtype
    if isinstance(value, int):
        if array_dtype is bool:
            return DEFAULT_INT
        if array_dtype.kind in "iu":
            check_int_range(value, array_dtype)
        return array_dtype
    if isinstance(value, float):
        if array_dtype.kind in "fc":
            return array_dtype
        return default_float(device)
    if isinstance(value, complex):
        if array_dtype.kind == "c":
            return array_dtype
        if array_dtype.kind == "f":
            return complex_of(array_dtype)
        return default_complex(device)
    raise TypeError(f"{type(value).__name__} is not an array or a Python scalar")


_INT_RANGE = {d: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for d in INTEGER}


def int_range(dtype):
    """(lowest, highest) value of the integer dtype, as Python ints."""
    return _INT_RANGE[dtype]


def check_int_range(value, dtype):
    lo, hi = _INT_RANGE[dtype]
    if not lo <= value <= hi:
        raise OverflowError(f"Python integer {value} out of bounds for {name(dtype)}")


def scalar_dtype(value, device=None):
    """The dtype a Python scalar takes alone: bool, the default int or the default float."""
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, int):
        return DEFAULT_INT
    if isinstance(value, float):
        return default_float(device)
    if isinstance(value, complex):
        return default_complex(device)
    raise TypeError(f"{type(value).__name__} is not a Python scalar")


# ---- data type functions' objects -----------------------------------------------------------

class finfo_object:
    """``dpk.finfo(float32)``: bits, eps, max, min, smallest_normal (Python floats), dtype.
    For a complex type they describe its real components (bits of one component, dtype the
    real type), as the standard says."""

    def __init__(self, dtype):
        dtype = component(dtype)
        info = np.finfo(dtype)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.smallest_normal = float(info.smallest_normal)
        self.dtype = dtype
        self.resolution = float(info.resolution)

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
                f"smallest_normal={self.smallest_normal}, dtype={name(self.dtype)})")


class iinfo_object:
    """``dpk.iinfo(int32)``: bits, max, min (Python ints), dtype."""

    def __init__(self, dtype):
        info = np.iinfo(dtype)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = dtype

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={name(self.dtype)})"


def isdtype(dtype, kind) -> builtins.bool:
    """The standard's ``isdtype``: kind is a dtype, a kind name, or a tuple of those."""
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype: unknown kind {kind!r} (one of {', '.join(_KINDS)})")
        return any(dtype == d for d in _KINDS[kind])
    return dtype == kind


def can_cast(from_, to) -> builtins.bool:
    """Whether `from_` converts to `to` without loss by promotion: the standard's lattice,
    extended across kinds as NumPy's "safe" casting is (bool to anything, integers to floats
    wide enough)."""
    return builtins.bool(np.can_cast(from_, to, casting="safe"))


def representable(value, dtype) -> builtins.bool:
    """Whether the Python number `value` is exactly representable in `dtype` (integers: in
    range; floats: finite values within range, inf and nan always)."""
    if dtype.kind in "iu":
        if isinstance(value, float):
            return False
        info = np.iinfo(dtype)
        return info.min <= value <= info.max
    if dtype.kind == "f":
        if isinstance(value, complex):
            return False
        if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
            return True
        return abs(float(value)) <= np.finfo(dtype).max
    if dtype.kind == "c":
        value = complex(value)
        return all(math.isinf(v) or math.isnan(v) or abs(v) <= np.finfo(component(dtype)).max
                   for v in (value.real, value.imag))
    return True
