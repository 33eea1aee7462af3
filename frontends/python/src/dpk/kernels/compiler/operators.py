"""FunctionGen mixin: kernel arithmetic, coercions, operators, comparisons and if-expressions."""

from __future__ import annotations

import ast

import numpy as np

from ..._ir import builder as irb
from ..._ir import types as T
from ..._ir.values import Const, Scalar


class OperatorLowering:
    """The arithmetic and operator visitors of codegen.FunctionGen."""

    # ---- arithmetic ---------------------------------------------------------------------------

    def const(self, dtype, value):
        return irb.const(self.b, dtype, value)

    def coerce(self, node, value, dtype):
        """The IR value of `value` converted to `dtype`."""
        dtype = np.dtype(dtype)
        if not isinstance(value, Scalar):
            self.type_fail(node, f"expected a number, got {self.describe(value)}")
        if value.is_literal:
            py = value.py
            if dtype.kind in "iu" and isinstance(py, float):
                py = int(py)
            elif dtype.kind in "iu" and type(py) is int:
                # NumPy 2 (NEP 50): a Python integer takes the other operand's or the array's
                # dtype, and one that does not fit raises OverflowError, not wraps
                info = np.iinfo(dtype)
                if not info.min <= py <= info.max:
                    self.type_fail(node, f"Python integer {py} out of bounds for {dtype} (NumPy "
                                         f"raises OverflowError here)",
                                   hint=f"make it a NumPy scalar of a wider type, e.g. "
                                        f"numpy.int64({py})")
            return self.const(dtype, py)
        return irb.convert(self.b, value.ir, value.dtype, dtype)

    def to_bool(self, node, value):
        if not isinstance(value, Scalar):
            self.type_fail(node, f"{self.describe(value)} has no truth value in kernels")
        if T.is_bool(value.dtype) and not value.is_literal:
            return value
        return Scalar(self.coerce(node, value, T.BOOL), T.BOOL)

    def static_truth(self, value):
        if isinstance(value, Scalar) and value.is_literal:
            return bool(value.py)
        if isinstance(value, Const):
            return bool(value.obj)
        return None

    def e_binop(self, node):
        return self.binop(node, node.op, self.expr(node.left), self.expr(node.right))

    def binop(self, node, op, a, b):
        if not isinstance(a, Scalar) or not isinstance(b, Scalar):
            self.type_fail(node, f"unsupported operand types for {type(op).__name__}: "
                           f"{self.describe(a)} and {self.describe(b)}",
                           hint="array expressions are not supported; loop over elements")
        OpKind = self.core.OpKind
        if a.is_literal and b.is_literal and a.weak and b.weak:
            return self.fold(node, op, a, b)
        if isinstance(op, ast.Pow):
            return self.power(node, a, b)
        bitwise = isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor))
        if bitwise and T.is_bool(a.dtype) and T.is_bool(b.dtype):
            kind = {ast.BitAnd: OpKind.And, ast.BitOr: OpKind.Or, ast.BitXor: OpKind.Xor}[type(op)]
            return Scalar(self.b.binary(kind, self.coerce(node, a, T.BOOL),
                                        self.coerce(node, b, T.BOOL)), T.BOOL)
        dtype, weak = T.promote(a.dtype, a.weak, b.dtype, b.weak)
        if isinstance(op, ast.Div) and dtype.kind in "iu":
            dtype = T.F64
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)):
            if dtype.kind not in "iu":
                self.type_fail(node, "bitwise operators need integer operands")
        x, y = self.coerce(node, a, dtype), self.coerce(node, b, dtype)
        simple = {ast.Add: OpKind.Add, ast.Sub: OpKind.Sub, ast.Mult: OpKind.Mul,
                  ast.Div: OpKind.Div, ast.BitAnd: OpKind.And, ast.BitOr: OpKind.Or,
                  ast.BitXor: OpKind.Xor, ast.LShift: OpKind.Shl, ast.RShift: OpKind.Shr}
        kind = simple.get(type(op))
        if kind is not None:
            return Scalar(self.b.binary(kind, x, y), dtype, weak)
        if isinstance(op, ast.FloorDiv):
            return Scalar(irb.floordiv(self.b, dtype, x, y), dtype, weak)
        if isinstance(op, ast.Mod):
            return Scalar(irb.floormod(self.b, dtype, x, y), dtype, weak)
        self.fail(node, f"operator {type(op).__name__} is not supported in kernels")

    def fold(self, node, op, a, b):
        import operator as o
        fns = {ast.Add: o.add, ast.Sub: o.sub, ast.Mult: o.mul, ast.Div: o.truediv,
               ast.FloorDiv: o.floordiv, ast.Mod: o.mod, ast.Pow: o.pow, ast.BitAnd: o.and_,
               ast.BitOr: o.or_, ast.BitXor: o.xor, ast.LShift: o.lshift, ast.RShift: o.rshift}
        fn = fns.get(type(op))
        if fn is None:
            self.fail(node, f"operator {type(op).__name__} is not supported in kernels")
        try:
            return self.from_python(node, fn(a.py, b.py))
        except (ZeroDivisionError, OverflowError, ValueError) as exc:
            self.fail(node, f"constant expression fails: {exc}")

    def power(self, node, a, b):
        dtype, weak = T.promote(a.dtype, a.weak, b.dtype, b.weak)
        if dtype.kind in "iu":
            if b.is_literal and isinstance(b.py, int) and 0 <= b.py <= 64:
                x = self.coerce(node, a, dtype)
                return Scalar(irb.int_power(self.b, dtype, x, b.py), dtype, weak)
            if b.is_literal and b.py < 0:
                dtype = T.F64
            else:
                # Integer power with a run-time exponent: computed in float64, then truncated.
                fa, fb = self.coerce(node, a, T.F64), self.coerce(node, b, T.F64)
                p = self.b.math(self.core.MathFn.Pow, [fa, fb])
                return Scalar(self.b.cast(p, T.ir_scalar(dtype)), dtype, weak)
        if b.is_literal and b.py == 2:
            x = self.coerce(node, a, dtype)
            return Scalar(self.b.binary(self.core.OpKind.Mul, x, x), dtype, weak)
        x, y = self.coerce(node, a, dtype), self.coerce(node, b, dtype)
        return Scalar(self.b.math(self.core.MathFn.Pow, [x, y]), dtype, weak)

    def e_unaryop(self, node):
        v = self.expr(node.operand)
        if not isinstance(v, Scalar):
            self.type_fail(node, f"unary operator on {self.describe(v)}")
        if isinstance(node.op, ast.Not):
            s = self.static_truth(v)
            if s is not None:
                return Scalar(None, T.BOOL, True, not s)
            return Scalar(self.b.unary(self.core.OpKind.Not, self.to_bool(node, v).ir), T.BOOL)
        if isinstance(node.op, ast.UAdd):
            return v
        if v.is_literal:
            return self.from_python(node, -v.py if isinstance(node.op, ast.USub) else ~v.py)
        dtype = T.arith_dtype(v.dtype)
        x = self.coerce(node, v, dtype)
        if isinstance(node.op, ast.USub):
            return Scalar(self.b.unary(self.core.OpKind.Neg, x), dtype, v.weak)
        if dtype.kind not in "iu":
            self.type_fail(node, "~ needs an integer operand")
        return Scalar(self.b.unary(self.core.OpKind.Not, x), dtype, v.weak)

    def e_compare(self, node):
        left = self.expr(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            c = self.compare(node, op, left, right)
            if result is None:
                result = c
            else:
                result = Scalar(self.b.binary(self.core.OpKind.And, self.coerce(node, result, T.BOOL),
                                              self.coerce(node, c, T.BOOL)), T.BOOL)
            left = right
        return result

    def compare(self, node, op, a, b):
        P = self.core.CmpPredicate
        preds = {ast.Eq: P.Eq, ast.NotEq: P.Ne, ast.Lt: P.Lt, ast.LtE: P.Le, ast.Gt: P.Gt,
                 ast.GtE: P.Ge}
        pred = preds.get(type(op))
        if pred is None:
            self.fail(node, f"comparison {type(op).__name__} is not supported in kernels",
                      hint="use ==, !=, <, <=, >, >=")
        if not isinstance(a, Scalar) or not isinstance(b, Scalar):
            self.type_fail(node, f"cannot compare {self.describe(a)} and {self.describe(b)}")
        if a.is_literal and b.is_literal and a.weak and b.weak:
            import operator as o
            fn = {ast.Eq: o.eq, ast.NotEq: o.ne, ast.Lt: o.lt, ast.LtE: o.le, ast.Gt: o.gt,
                  ast.GtE: o.ge}[type(op)]
            return Scalar(None, T.BOOL, True, bool(fn(a.py, b.py)))
        if T.is_bool(a.dtype) and T.is_bool(b.dtype):
            dtype = T.BOOL
        else:
            dtype, _ = T.promote(a.dtype, a.weak, b.dtype, b.weak)
        return Scalar(self.b.cmp(pred, self.coerce(node, a, dtype), self.coerce(node, b, dtype)),
                      T.BOOL)

    def _is_safe(self, node):
        """Whether evaluating `node` can neither fault nor have effects (so both sides of
        and/or/if-else may be evaluated eagerly)."""
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Call, ast.Subscript, ast.NamedExpr)):
                return False
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Div, ast.FloorDiv,
                                                                  ast.Mod)):
                return False
        return True

    def e_boolop(self, node):
        is_and = isinstance(node.op, ast.And)
        first = self.expr(node.values[0])
        static = self.static_truth(first)
        if static is not None:
            if static != is_and:  # True or ..., False and ...
                return Scalar(None, T.BOOL, True, static)
            if len(node.values) == 2:
                return self.to_bool(node, self.expr(node.values[1]))
            return self.e_boolop(ast.BoolOp(op=node.op, values=node.values[1:]))
        result = self.to_bool(node, first)
        rest = node.values[1:]
        if all(self._is_safe(v) for v in rest):
            kind = self.core.OpKind.And if is_and else self.core.OpKind.Or
            for v in rest:
                result = Scalar(self.b.binary(kind, result.ir,
                                              self.to_bool(v, self.expr(v)).ir), T.BOOL)
            return result
        # Short-circuit through a temporary: `a and b` evaluates b only when a is true.
        temp = f"$bool{node.lineno}_{node.col_offset}"
        self.assign_name(node, temp, result)
        rhs = (ast.BoolOp(op=node.op, values=rest) if len(rest) > 1 else rest[0])
        cond = result if is_and else Scalar(self.b.unary(self.core.OpKind.Not, result.ir), T.BOOL)
        op = self.b.create_if(cond.ir)
        block = self.b.insertion_block
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.then_block(op))
            self.assign_name(node, temp, self.to_bool(node, self.expr(rhs)))
        self.b.set_insertion_point(block)
        return self.load_slot(node, temp) if temp in self.slots else result

    def e_ifexp(self, node):
        cond = self.expr(node.test)
        static = self.static_truth(cond)
        if static is not None:
            return self.expr(node.body if static else node.orelse)
        cond = self.to_bool(node.test, cond)
        if self._is_safe(node.body) and self._is_safe(node.orelse):
            a, b = self.expr(node.body), self.expr(node.orelse)
            if not isinstance(a, Scalar) or not isinstance(b, Scalar):
                self.type_fail(node, "conditional expressions must give numbers")
            if T.is_bool(a.dtype) and T.is_bool(b.dtype):
                dtype, weak = T.BOOL, a.weak and b.weak
            else:
                dtype, weak = T.promote(a.dtype, a.weak, b.dtype, b.weak)
            return Scalar(self.b.select(cond.ir, self.coerce(node, a, dtype),
                                        self.coerce(node, b, dtype)), dtype, weak)
        temp = f"$ifexp{node.lineno}_{node.col_offset}"
        op = self.b.create_if(cond.ir)
        block = self.b.insertion_block
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.then_block(op))
            self.assign_name(node, temp, self.expr(node.body))
            self.b.set_insertion_point(self.core.Builder.else_block(op))
            self.assign_name(node, temp, self.expr(node.orelse))
        self.b.set_insertion_point(block)
        if temp not in self.slots:
            self.retry = True
            return Scalar(None, T.I64, True, 0)
        return self.load_slot(node, temp)
