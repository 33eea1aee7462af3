"""The one table of elementwise functions: name -> dtype category -> IR emitter -> result rule.

Every elementwise function of the namespace (``dpk.add``, ``dpk.sin``, ...) and every array
operator (``x + y``, ``x += y``, ``y - x`` reflected) comes from a row here, so the checks of
dtypes, the promotion and the result dtype are written once (``resolve``) and the IR comes from
``dpk._ir.scalar_ops.EMITTERS`` (the standard's special cases live there).

Columns:
  - category: the standard's dtype category of the inputs ("numeric", "integer or boolean",
    "bool", ...). Two relaxations, as NumPy has them: floating-point functions accept integers
    and bool (computed in the default floating type), and logical functions accept any dtype
    (converted to bool).
  - result: "same" (the promoted operand type), "bool", "float" (the promoted type, or the
    default floating type for integer operands: ``divide``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._errors import DTypeError
from . import dtypes as D


@dataclass(frozen=True)
class Row:
    name: str
    arity: int
    category: str
    result: str
    operator: str = ""     # the array dunder, e.g. "__add__" (reflected/in-place derived)


def _rows():
    rows = []

    def unary(name, category, result="same", operator=""):
        rows.append(Row(name, 1, category, result, operator))

    def binary(name, category, result="same", operator=""):
        rows.append(Row(name, 2, category, result, operator))

    for n in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1",
              "log", "log1p", "log2", "log10", "sin", "sinh", "sqrt", "tan", "tanh",
              "reciprocal"):
        unary(n, "floating-point", "float")
    unary("abs", "numeric", operator="__abs__")
    unary("negative", "numeric", operator="__neg__")
    unary("positive", "numeric", operator="__pos__")
    unary("square", "numeric")
    unary("sign", "numeric")
    unary("ceil", "real numeric")
    unary("floor", "real numeric")
    unary("trunc", "real numeric")
    unary("round", "numeric")
    unary("conj", "numeric")
    unary("real", "numeric")
    unary("imag", "numeric")
    unary("isfinite", "numeric", "bool")
    unary("isinf", "numeric", "bool")
    unary("isnan", "numeric", "bool")
    unary("signbit", "real floating-point", "bool")
    unary("bitwise_invert", "integer or boolean", operator="__invert__")
    unary("logical_not", "logical", "bool")

    binary("add", "numeric", operator="__add__")
    binary("subtract", "numeric", operator="__sub__")
    binary("multiply", "numeric", operator="__mul__")
    binary("divide", "numeric", "float", operator="__truediv__")
    binary("floor_divide", "real numeric", operator="__floordiv__")
    binary("remainder", "real numeric", operator="__mod__")
    binary("pow", "numeric", operator="__pow__")
    binary("atan2", "real floating-point", "float")
    binary("copysign", "real floating-point", "float")
    binary("hypot", "real floating-point", "float")
    binary("logaddexp", "real floating-point", "float")
    binary("nextafter", "real floating-point", "float")
    binary("maximum", "real numeric")
    binary("minimum", "real numeric")
    binary("bitwise_and", "integer or boolean", operator="__and__")
    binary("bitwise_or", "integer or boolean", operator="__or__")
    binary("bitwise_xor", "integer or boolean", operator="__xor__")
    binary("bitwise_left_shift", "integer", operator="__lshift__")
    binary("bitwise_right_shift", "integer", operator="__rshift__")
    binary("logical_and", "logical", "bool")
    binary("logical_or", "logical", "bool")
    binary("logical_xor", "logical", "bool")
    binary("equal", "any", "bool", operator="__eq__")
    binary("not_equal", "any", "bool", operator="__ne__")
    binary("less", "real numeric", "bool", operator="__lt__")
    binary("less_equal", "real numeric", "bool", operator="__le__")
    binary("greater", "real numeric", "bool", operator="__gt__")
    binary("greater_equal", "real numeric", "bool", operator="__ge__")
    return {r.name: r for r in rows}


TABLE = _rows()

OPERATORS = {r.operator: r for r in TABLE.values() if r.operator}

# Reflected and in-place operators of the binary rows.
REFLECTED = {"__r" + op[2:]: row for op, row in OPERATORS.items() if row.arity == 2
             and row.result != "bool"}
INPLACE = {"__i" + op[2:]: row for op, row in OPERATORS.items() if row.arity == 2
           and row.result != "bool"}


def resolve(row, dtype, device=None):
    """(compute dtype, result dtype) of `row` on operands promoted to `dtype`; raises
    TypeError when the standard's category does not admit it."""
    cat = row.category
    if cat == "logical":
        return D.bool, D.bool
    if cat == "floating-point" or (cat == "real floating-point" and dtype.kind != "c"):
        if dtype.kind not in "fc":
            dtype = D.default_float(device)
        return dtype, (D.bool if row.result == "bool" else dtype)
    if dtype not in D.CATEGORIES[cat]:
        raise DTypeError(f"{row.name}() needs {_article(cat)} {cat} data type, not "
                        f"{D.name(dtype)}")
    if row.result == "bool":
        return dtype, D.bool
    if dtype.kind == "c":
        if row.name in _REAL_OF_COMPLEX:
            return dtype, D.component(dtype)
        return dtype, dtype
    if row.result == "float" and dtype.kind != "f":
        dtype = D.default_float(device)
    return dtype, dtype


# Rows whose result is real for complex operands.
_REAL_OF_COMPLEX = ("abs", "real", "imag")


def _article(category):
    return "an" if category[0] in "aeiou" else "a"
