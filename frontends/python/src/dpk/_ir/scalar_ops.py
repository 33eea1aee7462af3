"""Scalar functions of the Python Array API standard, built in IR one element at a time.

Each emitter takes the C++ IR builder, the NumPy dtype its operands have (already converted to
it) and the operand IR values, and returns the IR value of the result. They implement the
standard's special cases (signed zeros, infinities, NaN) and NumPy's answers where the IR's
own op would be undefined: shifts by the bit width or more give 0 (or -1 for negative values
shifted right), ``maximum``/``minimum`` propagate NaN, ``round`` rounds half to even, float
``floor_divide``/``remainder`` follow Python's ``//`` and ``%``. ``EMITTERS`` maps the
standard's function names onto them; the array layer's table (dpk.arrays.elementwise_table)
says which dtypes each accepts and what it returns.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _core_loader
from . import builder as B
from . import types as T


def _c():
    return _core_loader.core()


def _k(b, dtype, value):
    return B.const(b, dtype, value)


def _bin(b, kind, x, y):
    return b.binary(getattr(_c().OpKind, kind), x, y)


def _cmp(b, pred, x, y):
    return b.cmp(getattr(_c().CmpPredicate, pred), x, y)


def _math(b, fn, *args):
    return b.math(getattr(_c().MathFn, fn), list(args))


def _not(b, x):
    return b.unary(_c().OpKind.Not, x)


def _and(b, x, y):
    return _bin(b, "And", x, y)


def _or(b, x, y):
    return _bin(b, "Or", x, y)


def isnan(b, dtype, x):
    if dtype.kind != "f":
        return b.const_bool(False)
    return _math(b, "IsNan", x)


def _isnan2(b, x, y):
    return _or(b, _math(b, "IsNan", x), _math(b, "IsNan", y))


# ---- unary ----------------------------------------------------------------------------------

def abs_(b, dtype, x):
    if dtype.kind == "u" or dtype.kind == "b":
        return x
    if dtype.kind == "f":
        return _math(b, "Fabs", x)
    neg = b.unary(_c().OpKind.Neg, x)
    return b.select(_cmp(b, "Lt", x, _k(b, dtype, 0)), neg, x)


def negative(b, dtype, x):
    if dtype.kind == "u":
        return _bin(b, "Sub", _k(b, dtype, 0), x)
    return b.unary(_c().OpKind.Neg, x)


def positive(b, dtype, x):
    return x


def square(b, dtype, x):
    return _bin(b, "Mul", x, x)


def reciprocal(b, dtype, x):
    return _bin(b, "Div", _k(b, dtype, 1.0), x)


def bitwise_invert(b, dtype, x):
    return _not(b, x)


def logical_not(b, dtype, x):
    return _not(b, x)


def _integral_identity_or(fn):
    def emit(b, dtype, x):
        if dtype.kind != "f":
            return x
        return _math(b, fn, x)
    return emit


ceil = _integral_identity_or("Ceil")
floor = _integral_identity_or("Floor")
trunc = _integral_identity_or("Trunc")


def round_(b, dtype, x):
    """Round half to even; integers unchanged; keeps -0 and NaN/inf."""
    if dtype.kind != "f":
        return x
    mant = 52 if dtype.itemsize == 8 else 23
    ax = _math(b, "Fabs", x)
    r = _math(b, "Floor", x)
    d = _bin(b, "Sub", x, r)
    half = _k(b, dtype, 0.5)
    one = _k(b, dtype, 1.0)
    r1 = _bin(b, "Add", r, one)
    even = _cmp(b, "Eq", _math(b, "Fmod", r, _k(b, dtype, 2.0)), _k(b, dtype, 0.0))
    tie = b.select(even, r, r1)
    res = b.select(_cmp(b, "Gt", d, half), r1, b.select(_cmp(b, "Lt", d, half), r, tie))
    res = _math(b, "Copysign", res, x)
    small = _cmp(b, "Lt", ax, _k(b, dtype, float(2 ** mant)))
    return b.select(small, res, x)


def sign(b, dtype, x):
    if dtype.kind == "b":
        return x
    zero, one = _k(b, dtype, 0), _k(b, dtype, 1)
    if dtype.kind == "u":
        return b.select(_cmp(b, "Gt", x, zero), one, zero)
    m1 = _k(b, dtype, -1)
    # floats: +0 for either zero, NaN stays NaN (the standard's special cases)
    rest = b.select(_cmp(b, "Eq", x, zero), zero, x) if dtype.kind == "f" else zero
    inner = b.select(_cmp(b, "Lt", x, zero), m1, rest)
    return b.select(_cmp(b, "Gt", x, zero), one, inner)


def signbit(b, dtype, x):
    if dtype.kind == "u" or dtype.kind == "b":
        return b.const_bool(False)
    if dtype.kind in "i":
        return _cmp(b, "Lt", x, _k(b, dtype, 0))
    return _cmp(b, "Lt", _math(b, "Copysign", _k(b, dtype, 1.0), x), _k(b, dtype, 0.0))


def isnan_(b, dtype, x):
    return isnan(b, dtype, x)


def isinf(b, dtype, x):
    if dtype.kind != "f":
        return b.const_bool(False)
    return _math(b, "IsInf", x)


def isfinite(b, dtype, x):
    if dtype.kind != "f":
        return b.const_bool(True)
    return _cmp(b, "Lt", _math(b, "Fabs", x), _k(b, dtype, math.inf))


def _math_unary(fn):
    def emit(b, dtype, x):
        return _math(b, fn, x)
    emit.__name__ = fn.lower()
    return emit


def identity(b, dtype, x):
    return x


def zero_like(b, dtype, x):
    return _k(b, dtype, 0)


# ---- binary ---------------------------------------------------------------------------------

def _arith(kind):
    def emit(b, dtype, x, y):
        if dtype.kind == "b":  # bool add/mul as NumPy: or/and
            return _bin(b, {"Add": "Or", "Mul": "And"}.get(kind, kind), x, y)
        return _bin(b, kind, x, y)
    return emit


add = _arith("Add")
subtract = _arith("Sub")
multiply = _arith("Mul")


def divide(b, dtype, x, y):
    return _bin(b, "Div", x, y)


def floor_divide(b, dtype, x, y):
    if dtype.kind == "f":
        return _float_floor_divide(b, dtype, x, y)
    if dtype.kind == "b":
        return _and(b, x, y)
    # The IR's integer div/rem are total as NumPy's (x // 0 == 0, MIN // -1 == MIN), so the
    # kernel compiler's floor division is NumPy's too.
    return B.floordiv(b, dtype, x, y)


def remainder(b, dtype, x, y):
    if dtype.kind == "f":
        return _float_remainder(b, dtype, x, y)
    if dtype.kind == "b":
        return _and(b, x, _not(b, y))
    return B.floormod(b, dtype, x, y)


def _float_floor_divide(b, dtype, x, y):
    """Python's float ``x // y`` (NumPy's divmod algorithm), with the standard's special cases
    for infinities and zero divisors (x / y there)."""
    zero, one, half = _k(b, dtype, 0.0), _k(b, dtype, 1.0), _k(b, dtype, 0.5)
    quotient = _bin(b, "Div", x, y)
    mod = _math(b, "Fmod", x, y)
    div = _bin(b, "Div", _bin(b, "Sub", x, mod), y)
    signs_differ = _bin(b, "Xor", _cmp(b, "Lt", y, zero), _cmp(b, "Lt", mod, zero))
    adjust = _and(b, _cmp(b, "Ne", mod, zero), signs_differ)
    div = b.select(adjust, _bin(b, "Sub", div, one), div)
    fl = _math(b, "Floor", div)
    fl = b.select(_cmp(b, "Gt", _bin(b, "Sub", div, fl), half), _bin(b, "Add", fl, one), fl)
    fl = b.select(_cmp(b, "Eq", div, zero), _math(b, "Copysign", zero, quotient), fl)
    special = _or(b, _or(b, _math(b, "IsInf", x), _math(b, "IsInf", y)),
                  _or(b, _cmp(b, "Eq", y, zero), _isnan2(b, x, y)))
    return b.select(special, quotient, fl)


def _float_remainder(b, dtype, x, y):
    """Python's float ``x % y``: the result has y's sign (NumPy's divmod algorithm)."""
    zero = _k(b, dtype, 0.0)
    mod = _math(b, "Fmod", x, y)
    signs_differ = _bin(b, "Xor", _cmp(b, "Lt", y, zero), _cmp(b, "Lt", mod, zero))
    nonzero = _cmp(b, "Ne", mod, zero)
    fixed = b.select(_and(b, nonzero, signs_differ), _bin(b, "Add", mod, y), mod)
    fixed = b.select(nonzero, fixed, _math(b, "Copysign", zero, y))
    return b.select(_cmp(b, "Eq", y, zero), mod, fixed)


def pow_(b, dtype, x, y):
    if dtype.kind == "f":
        return _math(b, "Pow", x, y)
    if dtype.kind == "b":
        return _or(b, x, _not(b, y))
    # Integers: square-and-multiply over every bit of the exponent, straight-line.
    bits = dtype.itemsize * 8
    one = _k(b, dtype, 1)
    zero = _k(b, dtype, 0)
    result, base = one, x
    for k in range(bits - (1 if dtype.kind == "i" else 0)):
        bit = _cmp(b, "Ne", _bin(b, "And", y, _k(b, dtype, 1 << k)), zero)
        result = b.select(bit, _bin(b, "Mul", result, base), result)
        if k + 1 < bits:
            base = _bin(b, "Mul", base, base)
    if dtype.kind == "i":
        # Negative exponents: 1 ** e = 1, (-1) ** e = +-1, anything else truncates to 0.
        odd = _cmp(b, "Ne", _bin(b, "And", y, one), zero)
        m1 = _k(b, dtype, -1)
        neg_result = b.select(_cmp(b, "Eq", x, one), one,
                              b.select(_cmp(b, "Eq", x, m1), b.select(odd, m1, one), zero))
        result = b.select(_cmp(b, "Lt", y, zero), neg_result, result)
    return result


def _shift(kind):
    def emit(b, dtype, x, y):
        bits = dtype.itemsize * 8
        zero = _k(b, dtype, 0)
        in_range = _cmp(b, "Lt", y, _k(b, dtype, bits))
        if dtype.kind == "i":
            in_range = _and(b, in_range, _cmp(b, "Ge", y, zero))
        ys = b.select(in_range, y, zero)
        shifted = _bin(b, kind, x, ys)
        overflow = zero
        if kind == "Shr" and dtype.kind == "i":
            overflow = b.select(_cmp(b, "Lt", x, zero), _k(b, dtype, -1), zero)
        return b.select(in_range, shifted, overflow)
    return emit


bitwise_left_shift = _shift("Shl")
bitwise_right_shift = _shift("Shr")


def _bitwise(kind):
    def emit(b, dtype, x, y):
        return _bin(b, kind, x, y)
    return emit


def _compare(pred):
    def emit(b, dtype, x, y):
        return _cmp(b, pred, x, y)
    return emit


def _minmax(fn, pred):
    def emit(b, dtype, x, y):
        if dtype.kind == "b":
            return _or(b, x, y) if fn == "Max" else _and(b, x, y)
        if dtype.kind != "f":
            return b.select(_cmp(b, pred, x, y), x, y)
        plain = _math(b, fn, x, y)
        return b.select(_math(b, "IsNan", x), x, b.select(_math(b, "IsNan", y), y, plain))
    return emit


maximum = _minmax("Max", "Gt")
minimum = _minmax("Min", "Lt")


def logaddexp(b, dtype, x, y):
    m = maximum(b, dtype, x, y)
    d = b.unary(_c().OpKind.Neg, _math(b, "Fabs", _bin(b, "Sub", x, y)))
    general = _bin(b, "Add", m, _math(b, "Log1p", _math(b, "Exp", d)))
    same = _bin(b, "Add", x, _k(b, dtype, math.log(2.0)))
    return b.select(_cmp(b, "Eq", x, y), same, general)


def nextafter(b, dtype, x, y):
    """The next float after x toward y, from the exponent found with log2 and ldexp (the IR
    has no bit casts)."""
    f64 = dtype.itemsize == 8
    mant = 52 if f64 else 23
    emin = -1022 if f64 else -126
    i32 = np.dtype(np.int32)
    zero = _k(b, dtype, 0.0)
    one = _k(b, dtype, 1.0)
    ax = _math(b, "Fabs", x)
    finite_nonzero = _and(b, _cmp(b, "Lt", ax, _k(b, dtype, math.inf)),
                          _cmp(b, "Gt", ax, zero))
    safe = b.select(finite_nonzero, ax, one)
    e = b.cast(_math(b, "Floor", _math(b, "Log2", safe)), T.ir_scalar(i32))
    p = _math(b, "Ldexp", one, e)
    e = b.select(_cmp(b, "Gt", p, safe), _bin(b, "Sub", e, _k(b, i32, 1)), e)
    e1 = _bin(b, "Add", e, _k(b, i32, 1))
    e = b.select(_cmp(b, "Le", _math(b, "Ldexp", one, e1), safe), e1, e)
    e = b.select(_cmp(b, "Lt", e, _k(b, i32, emin)), _k(b, i32, emin), e)
    ulp = _math(b, "Ldexp", one, _bin(b, "Sub", e, _k(b, i32, mant)))
    # y > x with x > 0 moves away from zero; y < x with x > 0 toward it, and mirrored below 0.
    toward_zero = _not(b, _bin(b, "Xor", _cmp(b, "Gt", y, x), _cmp(b, "Lt", x, zero)))
    at_power = _and(b, _cmp(b, "Eq", safe, _math(b, "Ldexp", one, e)),
                    _cmp(b, "Gt", e, _k(b, i32, emin)))
    half_ulp = _bin(b, "Mul", ulp, _k(b, dtype, 0.5))
    step = b.select(_and(b, toward_zero, at_power), half_ulp, ulp)
    mag = b.select(toward_zero, _bin(b, "Sub", safe, step), _bin(b, "Add", safe, step))
    res = _math(b, "Copysign", mag, x)
    tiny = _math(b, "Ldexp", one, _k(b, i32, emin - mant))
    from_zero = _math(b, "Copysign", tiny, _bin(b, "Sub", y, x))
    res = b.select(_cmp(b, "Eq", ax, zero), from_zero, res)
    largest = _math(b, "Copysign", _k(b, dtype, float(np.finfo(dtype).max)), x)
    res = b.select(_math(b, "IsInf", x), largest, res)
    res = b.select(_cmp(b, "Eq", x, y), y, res)
    return b.select(_isnan2(b, x, y), _bin(b, "Add", x, y), res)


def _math_binary(fn):
    def emit(b, dtype, x, y):
        return _math(b, fn, x, y)
    return emit


def logical(kind):
    def emit(b, dtype, x, y):
        return _bin(b, kind, x, y)
    return emit


def where(b, dtype, c, x, y):
    return b.select(c, x, y)


EMITTERS = {
    # unary
    "abs": abs_, "negative": negative, "positive": positive, "square": square,
    "reciprocal": reciprocal, "bitwise_invert": bitwise_invert, "logical_not": logical_not,
    "ceil": ceil, "floor": floor, "trunc": trunc, "round": round_, "sign": sign,
    "signbit": signbit, "isnan": isnan_, "isinf": isinf, "isfinite": isfinite,
    "conj": identity, "real": identity, "imag": zero_like,
    "acos": _math_unary("Acos"), "acosh": _math_unary("Acosh"), "asin": _math_unary("Asin"),
    "asinh": _math_unary("Asinh"), "atan": _math_unary("Atan"), "atanh": _math_unary("Atanh"),
    "cos": _math_unary("Cos"), "cosh": _math_unary("Cosh"), "exp": _math_unary("Exp"),
    "expm1": _math_unary("Expm1"), "log": _math_unary("Log"), "log1p": _math_unary("Log1p"),
    "log2": _math_unary("Log2"), "log10": _math_unary("Log10"), "sin": _math_unary("Sin"),
    "sinh": _math_unary("Sinh"), "sqrt": _math_unary("Sqrt"), "tan": _math_unary("Tan"),
    "tanh": _math_unary("Tanh"),
    # binary
    "add": add, "subtract": subtract, "multiply": multiply, "divide": divide,
    "floor_divide": floor_divide, "remainder": remainder, "pow": pow_,
    "atan2": _math_binary("Atan2"), "copysign": _math_binary("Copysign"),
    "hypot": _math_binary("Hypot"), "logaddexp": logaddexp, "nextafter": nextafter,
    "maximum": maximum, "minimum": minimum,
    "bitwise_and": _bitwise("And"), "bitwise_or": _bitwise("Or"), "bitwise_xor": _bitwise("Xor"),
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    "logical_and": logical("And"), "logical_or": logical("Or"), "logical_xor": logical("Xor"),
    "equal": _compare("Eq"), "not_equal": _compare("Ne"), "less": _compare("Lt"),
    "less_equal": _compare("Le"), "greater": _compare("Gt"), "greater_equal": _compare("Ge"),
    # ternary
    "where": where,
}
