"""FunctionGen mixin: kernel calls (device functions, Python builtins, dtypes, math, kapi)."""

from __future__ import annotations

import ast
import builtins

import numpy as np

from ..._ir import types as T
from ..._ir.mathfns import MATH_FUNCTIONS, MathSpec
from ..._ir.values import (Atomic, BoundMethod, Const, IndexSpace, PointerArray, Scalar,
                           StridedArray, TupleValue, ViewArray)
from ..functions import DeviceFunction, ExternalFunction, KernelFunction
from ..kapi import (AtomicRef, LocalAccessor, PrivateArray, atomic_fence, group_ballot,
                   group_barrier, popcount, select_from_group)
from .kernel_api_calls import _dtype_of_class
from .opencl_calls import OPENCL_CALLS


class CallLowering:
    """The call visitor of codegen.FunctionGen and the Python builtins it lowers."""

    # ---- calls ----------------------------------------------------------------------------

    def e_call(self, node):
        callee = self.expr(node.func)
        args = [self.expr(a) for a in node.args]
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, "*args in calls is not supported in kernels")
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                self.fail(node, "**kwargs in calls is not supported in kernels")
            kwargs[kw.arg] = self.expr(kw.value)
        if isinstance(callee, BoundMethod):
            if isinstance(callee.obj, IndexSpace):
                return self.index_method(node, callee.obj, callee.name, args, kwargs)
            if isinstance(callee.obj, Atomic):
                return self.atomic_method(node, callee.obj, callee.name, args, kwargs)
            if isinstance(callee.obj, Scalar) and callee.name == "bit_count":
                if args or kwargs:
                    self.fail(node, "bit_count() takes no arguments")
                return self.popcount(node, MathSpec("Popcount", "bit_count", 1, "bit_count"),
                                     callee.obj)
        if isinstance(callee, Const):
            return self.call_object(node, callee.obj, args, kwargs)
        self.fail(node, f"{self.describe(callee)} is not callable in kernels")

    def call_object(self, node, obj, args, kwargs):
        if isinstance(obj, DeviceFunction):
            return self.ctx.call_device_function(self, node, obj, args, kwargs)
        if isinstance(obj, ExternalFunction):
            return self.ctx.call_external(self, node, obj, args, kwargs)
        if isinstance(obj, KernelFunction):
            self.fail(node, "a kernel cannot call another kernel",
                      hint="decorate the helper with @dpk.device_func")
        if obj is builtins.range:
            self.fail(node, "range() is only supported as the iterable of a for loop")
        if obj in (builtins.min, builtins.max):
            return self.minmax(node, obj is builtins.min, args)
        if obj is builtins.abs:
            return self.math_call(node, MathSpec("Abs", "abs", 1, "abs"), args)
        if obj is popcount:
            if kwargs:
                self.fail(node, "popcount() takes no keyword arguments")
            return self.math_call(node, MathSpec("Popcount", "popcount", 1, "popcount"), args)
        if obj is builtins.len:
            if len(args) != 1:
                self.fail(node, "len() takes one argument")
            a = args[0]
            if isinstance(a, ViewArray):
                return Scalar(self.b.view_dim(a.ir, 0), T.I64)
            if isinstance(a, PointerArray):
                return Scalar(None, T.I64, True, a.shape[0])
            if isinstance(a, StridedArray):
                return a.shape[0]
            if isinstance(a, TupleValue):
                return Scalar(None, T.I64, True, len(a.items))
            self.type_fail(node, f"len() of {self.describe(a)}")
        if obj in (builtins.int, builtins.float, builtins.bool):
            target = {builtins.int: T.I64, builtins.float: T.F64, builtins.bool: T.BOOL}[obj]
            return self.convert(node, target, args, kwargs)
        dtype = _dtype_of_class(obj)
        if dtype is not None:
            if not T.supported_dtype(dtype):
                self.type_fail(node, f"dtype {dtype} is not supported in kernels")
            return self.convert(node, dtype, args, kwargs)
        hashable = _hashable(obj)
        if hashable is not None and hashable in OPENCL_CALLS:
            return self.opencl_call(node, obj, args, kwargs)
        spec = MATH_FUNCTIONS.get(hashable)
        if spec is not None:
            return self.math_call(node, spec, args)
        if obj is AtomicRef:
            return self.make_atomic(node, args, kwargs)
        if obj is PrivateArray:
            return self.make_private_array(node, args, kwargs)
        if obj is group_barrier:
            return self.barrier(node, args, kwargs)
        if obj is atomic_fence:
            return self.fence(node, args, kwargs)
        if obj is group_ballot:
            return self.ballot(node, args, kwargs)
        if obj is select_from_group:
            return self.select_from_group(node, args, kwargs)
        if obj is LocalAccessor:
            self.fail(node, "LocalAccessor cannot be created inside a kernel",
                      hint="create it on the host and pass it as an argument of an NdRange "
                           "launch")
        name = getattr(obj, "__qualname__", None) or repr(obj)
        self.fail(node, f"calling {name} is not supported in kernels",
                  hint="kernels can call @dpk.device_func functions, dpk.declare_device ones, math.* and numpy math "
                       "functions, min/max/abs, int/float/bool and dtype constructors, the "
                       "kernel_api functions and the OpenCL-style ones (dpk.get_global_id, "
                       "dpk.barrier, dpk.atomic.add, ...)")

    def convert(self, node, dtype, args, kwargs):
        if len(args) != 1 or kwargs:
            self.fail(node, "a type conversion takes exactly one argument")
        v = args[0]
        if not isinstance(v, Scalar):
            self.type_fail(node, f"cannot convert {self.describe(v)} to {dtype}")
        dtype = np.dtype(dtype)
        if v.is_literal:
            py = v.py
            if dtype.kind in "iu":
                py = int(py)
            elif dtype.kind == "f":
                py = float(py)
            else:
                py = bool(py)
            return Scalar(None, dtype, False, py)
        if T.is_float(v.dtype) and dtype.kind in "iu":
            # int(x) truncates toward zero, as Python does; the IR cast does the same.
            pass
        return Scalar(self.coerce(node, v, dtype), dtype)

    def minmax(self, node, is_min, args):
        if len(args) == 1 and isinstance(args[0], TupleValue):
            args = args[0].items
        if len(args) < 2:
            self.fail(node, "min()/max() in kernels take two or more numbers")
        fn = self.core.MathFn.Min if is_min else self.core.MathFn.Max
        result = args[0]
        for other in args[1:]:
            if not isinstance(result, Scalar) or not isinstance(other, Scalar):
                self.type_fail(node, "min()/max() take numbers")
            dtype, weak = T.promote(result.dtype, result.weak, other.dtype, other.weak)
            if result.is_literal and other.is_literal and weak:
                result = Scalar(None, dtype, True, (min if is_min else max)(result.py, other.py))
                continue
            result = Scalar(self.b.math(fn, [self.coerce(node, result, dtype),
                                             self.coerce(node, other, dtype)]), dtype, weak)
        return result

    def math_call(self, node, spec, args):
        MathFn = self.core.MathFn
        fn = getattr(MathFn, spec.fn) if spec.fn else None
        arity = spec.arity
        if spec.kind == "log_base" and len(args) == 2:
            num = self.math_call(node, MathSpec("Log", "float"), args[:1])
            den = self.math_call(node, MathSpec("Log", "float"), args[1:])
            return self.binop(node, ast.Div(), num, den)
        if len(args) != arity:
            self.fail(node, f"{spec.name or spec.fn.lower()}() takes {arity} argument(s)")
        for a in args:
            if not isinstance(a, Scalar):
                self.type_fail(node, f"math functions take numbers, not {self.describe(a)}")
        if spec.kind == "abs":
            a = args[0]
            dtype = T.arith_dtype(a.dtype)
            if a.is_literal:
                return Scalar(None, dtype, a.weak, abs(a.py))
            x = self.coerce(node, a, dtype)
            return Scalar(self.b.math(MathFn.Abs if dtype.kind in "iu" else MathFn.Fabs, [x]),
                          dtype, a.weak)
        if spec.kind == "minmax":
            return self.minmax(node, spec.fn == "Min", args)
        if spec.kind in ("popcount", "bitwise_count"):
            return self.popcount(node, spec, args[0])
        # Float functions: integers compute in float64; a weak float adopts a strong float.
        dtype = None
        for a in args[:1] if spec.kind == "ldexp" else args:
            d = np.dtype(T.arith_dtype(a.dtype))
            d = d if d.kind == "f" and not a.weak else None
            if d is not None:
                dtype = d if dtype is None else np.promote_types(dtype, d)
        dtype = dtype or T.F64
        if spec.kind == "ldexp":
            x = self.coerce(node, args[0], dtype)
            e = self.coerce(node, args[1], T.I32)
            return Scalar(self.b.math(fn, [x, e]), dtype)
        xs = [self.coerce(node, a, dtype) for a in args]
        r = self.b.math(fn, xs)
        if spec.kind == "bool":
            return Scalar(r, T.BOOL)
        if spec.kind == "int_result":
            return Scalar(self.b.cast(r, T.ir_scalar(T.I64)), T.I64)
        return Scalar(r, dtype)

    def popcount(self, node, spec, a):
        """Bits set in an integer: kapi.popcount(x) counts x's representation in x's dtype
        (a negative number's sign bits too). Python's x.bit_count() and NumPy's
        np.bitwise_count(x) count |x| instead: popcount of the wrapping abs, which is |x| except
        for the minimum, whose single set bit is also |x|'s. bitwise_count's result is uint8,
        as NumPy's; the others keep x's dtype. bool counts as int64, as in arithmetic."""
        dtype = np.dtype(T.arith_dtype(a.dtype))
        if dtype.kind not in "iu":
            self.type_fail(node, f"{spec.name}() takes an integer, not {self.describe(a)}")
        absolute = spec.kind != "popcount" and dtype.kind == "i"
        result = np.dtype(np.uint8) if spec.kind == "bitwise_count" else dtype
        weak = a.weak and spec.kind != "bitwise_count"
        if a.is_literal:
            v = abs(int(a.py)) if absolute else int(a.py)
            return Scalar(None, result, weak, (v & ((1 << (8 * dtype.itemsize)) - 1)).bit_count())
        x = self.coerce(node, a, dtype)
        MathFn = self.core.MathFn
        if absolute:
            x = self.b.math(MathFn.Abs, [x])
        r = self.b.math(MathFn.Popcount, [x])
        if result != dtype:
            r = self.b.cast(r, T.ir_scalar(result))
        return Scalar(r, result, weak)


def _hashable(obj):
    try:
        hash(obj)
    except TypeError:
        return None
    return obj
