"""FunctionGen mixin: kernel statements (assignment, if, for/while, break/continue, return)."""

from __future__ import annotations

import ast
import builtins

import numpy as np

from ..._ir import types as T
from ..._ir.values import Scalar, Slot, TupleValue


class StatementLowering:
    """The s_* visitors of codegen.FunctionGen and their helpers."""

    def s_expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        self.expr(node.value)

    def s_pass(self, node):
        pass

    def s_assign(self, node):
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def s_annassign(self, node):
        if node.value is None:
            return
        self.assign(node.target, self.expr(node.value))

    def s_augassign(self, node):
        target = node.target
        if isinstance(target, ast.Name):
            current = self.load_name(target)
            self.assign(target, self.binop(node, node.op, current, self.expr(node.value)))
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value)
            index = self.index_values(target, self.subscript_entries(target, target.slice))
            current = self.subscript_load(target, container, index)
            result = self.binop(node, node.op, current, self.expr(node.value))
            self.subscript_store(target, container, index, result)
        else:
            self.fail(node, "augmented assignment needs a variable or an array element")

    def assign(self, target, value):
        if isinstance(target, ast.Name):
            self.assign_name(target, target.id, value)
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value)
            index = self.index_values(target, self.subscript_entries(target, target.slice))
            self.subscript_store(target, container, index, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, TupleValue) or len(value.items) != len(target.elts):
                self.fail(target, "tuple unpacking needs a tuple of the same length on the right")
            for t, v in zip(target.elts, value.items):
                self.assign(t, v)
        else:
            self.fail(target, f"cannot assign to {type(target).__name__}",
                      hint="assign to a variable, an array element or a tuple of them")

    def assign_name(self, node, name, value):
        if isinstance(value, Scalar):
            if name in self.binds:
                self.fail(node, f"variable '{name}' holds an array or object; it cannot also "
                          "hold a number")
            dtype = np.dtype(value.dtype)
            if dtype == np.float16:
                dtype = T.F32
            hint = self.hints.get(name)
            if hint is None:
                self.hints[name] = (dtype, value.weak)
                self.retry = True
                ptr = self.b.private_alloc(T.scalar_kind(dtype), 1)
                self.slots[name] = Slot(ptr, dtype, value.weak)
            else:
                new = T.unify_variable(hint[0], hint[1], dtype, value.weak)
                if (np.dtype(new[0]), new[1]) != (np.dtype(hint[0]), hint[1]):
                    self.hints[name] = new
                    self.retry = True
            slot = self.slots.get(name)
            if slot is None:
                ptr = self.b.private_alloc(T.scalar_kind(self.hints[name][0]), 1)
                slot = self.slots[name] = Slot(ptr, np.dtype(self.hints[name][0]),
                                               self.hints[name][1])
            self.b.store(slot.ptr, self._zero, self.coerce(node, value, slot.dtype))
            return
        if name in self.slots or name in self.hints:
            self.fail(node, f"variable '{name}' holds a number; it cannot also hold "
                      f"{self.describe(value)}")
        previous = self.binds.get(name)
        if previous is not None and previous is not value and self._depth_key() != 0:
            self.fail(node, f"'{name}' is rebound to another array or object inside control flow",
                      hint="bind arrays and objects once, or use different names")
        self.binds[name] = value

    def _depth_key(self):
        return getattr(self, "_nesting", 0)

    def _nested(self):
        gen = self

        class _Ctx:
            def __enter__(self):
                gen._nesting = gen._depth_key() + 1

            def __exit__(self, *exc):
                gen._nesting = gen._depth_key() - 1
        return _Ctx()

    def s_if(self, node):
        cond = self.expr(node.test)
        static = self.static_truth(cond)
        if static is not None:
            self.body(node.body if static else node.orelse)
            return
        cond = self.to_bool(node.test, cond)
        op = self.b.create_if(cond.ir)
        block = self.b.insertion_block
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.then_block(op))
            self.body(node.body)
            then_terminated = self.terminated
            self.terminated = False
            else_terminated = False
            if node.orelse:
                self.b.set_insertion_point(self.core.Builder.else_block(op))
                self.body(node.orelse)
                else_terminated = self.terminated
                self.terminated = False
        self.b.set_insertion_point(block)
        self.terminated = then_terminated and else_terminated and bool(node.orelse)

    def s_for(self, node):
        if node.orelse:
            self.fail(node, "for ... else is not supported in kernels",
                      hint="use a flag variable set before break")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and self.resolve_global(it.func.id) is builtins.range and not it.keywords):
            self.fail(node, "kernels can only loop over range(...)",
                      hint="write `for i in range(n)` (1 to 3 arguments) and index arrays")
        if not isinstance(node.target, ast.Name):
            self.fail(node.target, "the loop variable must be a plain name")
        args = [self.expr(a) for a in it.args]
        if not 1 <= len(args) <= 3:
            self.fail(it, "range() takes 1 to 3 arguments")
        for a, n in zip(args, it.args):
            if not isinstance(a, Scalar) or not (T.is_int(a.dtype) or T.is_bool(a.dtype)):
                self.type_fail(n, "range() arguments must be integers")
        if len(args) == 1:
            lo, hi, step = Scalar(None, T.I64, True, 0), args[0], Scalar(None, T.I64, True, 1)
        elif len(args) == 2:
            lo, hi, step = args[0], args[1], Scalar(None, T.I64, True, 1)
        else:
            lo, hi, step = args
        name = node.target.id
        if step.is_literal and step.py == 0:
            self.fail(it, "range() step must not be zero")
        block = self.b.insertion_block
        if step.is_literal and step.py > 0:
            for_op = self.b.create_for(self.coerce(it, lo, T.I64), self.coerce(it, hi, T.I64),
                                       self.coerce(it, step, T.I64), name)
            with self._nested():
                self.b.set_insertion_point(self.core.Builder.for_body(for_op))
                iv = self.core.Builder.for_induction_var(for_op)
                self.assign_name(node.target, name, Scalar(iv, T.I64))
                self.loop_body(node.body)
            self.b.set_insertion_point(block)
            return
        # Negative or run-time step: a while loop over a hidden counter, advanced before the body
        # so that `continue` cannot skip it.
        counter = f"$for{node.lineno}_{node.col_offset}"
        step_v = self.coerce(it, step, T.I64)
        hi_v = self.coerce(it, hi, T.I64)
        self.assign_name(node, counter, Scalar(self.coerce(it, lo, T.I64), T.I64))
        while_op = self.b.create_while()
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.while_cond(while_op))
            current = self.load_slot(node, counter)
            zero = self.const(T.I64, 0)
            up = self.b.cmp(self.core.CmpPredicate.Gt, step_v, zero)
            below = self.b.cmp(self.core.CmpPredicate.Lt, current.ir, hi_v)
            above = self.b.cmp(self.core.CmpPredicate.Gt, current.ir, hi_v)
            self.b.condition(self.b.select(up, below, above))
            self.b.set_insertion_point(self.core.Builder.while_body(while_op))
            current = self.load_slot(node, counter)
            self.assign_name(node.target, name, current)
            self.assign_name(node, counter, Scalar(
                self.b.binary(self.core.OpKind.Add, current.ir, step_v), T.I64))
            self.loop_body(node.body)
        self.b.set_insertion_point(block)

    def loop_body(self, stmts):
        self.loop_depth += 1
        self.body(stmts)
        self.terminated = False
        self.loop_depth -= 1

    def s_while(self, node):
        if node.orelse:
            self.fail(node, "while ... else is not supported in kernels",
                      hint="use a flag variable set before break")
        block = self.b.insertion_block
        while_op = self.b.create_while()
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.while_cond(while_op))
            cond = self.to_bool(node.test, self.expr(node.test))
            self.b.condition(cond.ir)
            self.b.set_insertion_point(self.core.Builder.while_body(while_op))
            self.loop_body(node.body)
        self.b.set_insertion_point(block)

    def s_break(self, node):
        if self.loop_depth == 0:
            self.fail(node, "break outside a loop")
        self.b.break_op()
        self.terminated = True

    def s_continue(self, node):
        if self.loop_depth == 0:
            self.fail(node, "continue outside a loop")
        self.b.continue_op()
        self.terminated = True

    def s_return(self, node):
        if node.value is None or (isinstance(node.value, ast.Constant)
                                  and node.value.value is None):
            if self.hints.get("$return") is not None:
                self.fail(node, "this function returns a value elsewhere; every return must")
            self.b.ret()
            self.terminated = True
            return
        if self.is_kernel:
            self.fail(node, "a kernel cannot return a value",
                      hint="write results into an array argument")
        value = self.expr(node.value)
        if not isinstance(value, Scalar):
            self.fail(node, f"device functions can return numbers only, not "
                      f"{self.describe(value)}")
        hint = self.hints.get("$return")
        dtype = np.dtype(T.arith_dtype(value.dtype)) if not T.is_bool(value.dtype) else T.BOOL
        if hint is None:
            self.hints["$return"] = (dtype, value.weak)
            self.retry = True
            hint = self.hints["$return"]
        else:
            new = T.unify_variable(hint[0], hint[1], dtype, value.weak)
            if (np.dtype(new[0]), new[1]) != (np.dtype(hint[0]), hint[1]):
                self.hints["$return"] = new
                self.retry = True
        self.b.ret(self.coerce(node, value, hint[0]))
        self.terminated = True
