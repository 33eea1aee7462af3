"""The math functions kernels may call, mapped onto the IR's math ops.

Kinds: "float" (integers are computed in float64, result has the float type), "int_result"
(Python's math.floor/ceil/trunc return int), "bool" (isnan/isinf), "abs", "minmax", "ldexp"
(float, int32), "log_base" (math.log with an optional base), "bitwise_count" (np.bitwise_count:
the bits of an integer's absolute value, uint8), "popcount" (dpk.kernel_api.popcount, mapped by
the kernel compiler, which this layer cannot import).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MathSpec:
    fn: str
    kind: str = "float"
    arity: int = 1
    name: str = ""


def _table():
    t = {}

    def add(objs, spec):
        for obj in objs:
            if obj is not None:
                t[obj] = spec

    unary = {
        "Exp": ("exp",), "Expm1": ("expm1",), "Exp2": ("exp2",), "Log10": ("log10",),
        "Log1p": ("log1p",), "Log2": ("log2",), "Sqrt": ("sqrt",), "Sin": ("sin",),
        "Cos": ("cos",), "Tan": ("tan",), "Asin": ("asin", "arcsin"),
        "Acos": ("acos", "arccos"), "Atan": ("atan", "arctan"), "Sinh": ("sinh",),
        "Cosh": ("cosh",), "Tanh": ("tanh",), "Asinh": ("asinh", "arcsinh"),
        "Acosh": ("acosh", "arccosh"), "Atanh": ("atanh", "arctanh"), "Erf": ("erf",),
        "Erfc": ("erfc",), "Tgamma": ("gamma",), "Lgamma": ("lgamma",), "Fabs": ("fabs",),
    }
    for fn, names in unary.items():
        for n in names:
            add([getattr(math, n, None), getattr(np, n, None)], MathSpec(fn, name=n))
    add([math.log], MathSpec("Log", "log_base", 1, "log"))
    add([np.log], MathSpec("Log", name="log"))
    # numpy keeps floor/ceil/trunc in floating point; Python's math returns int.
    for fn, n in (("Floor", "floor"), ("Ceil", "ceil"), ("Trunc", "trunc")):
        add([getattr(math, n)], MathSpec(fn, "int_result", name=n))
        add([getattr(np, n)], MathSpec(fn, name=n))
    binary = {"Atan2": ("atan2", "arctan2"), "Copysign": ("copysign",), "Pow": ("pow", "power"),
              "Fmod": ("fmod",), "Hypot": ("hypot",)}
    for fn, names in binary.items():
        for n in names:
            add([getattr(math, n, None), getattr(np, n, None)], MathSpec(fn, arity=2, name=n))
    add([math.ldexp, np.ldexp], MathSpec("Ldexp", "ldexp", 2, "ldexp"))
    add([math.isnan, np.isnan], MathSpec("IsNan", "bool", name="isnan"))
    add([math.isinf, np.isinf], MathSpec("IsInf", "bool", name="isinf"))
    add([np.abs, np.absolute], MathSpec("Abs", "abs", name="abs"))
    add([np.minimum, np.fmin], MathSpec("Min", "minmax", 2, "minimum"))
    add([np.maximum, np.fmax], MathSpec("Max", "minmax", 2, "maximum"))
    add([getattr(np, "bitwise_count", None)],  # NumPy >= 2.0
        MathSpec("Popcount", "bitwise_count", 1, "bitwise_count"))
    return t


MATH_FUNCTIONS = _table()
