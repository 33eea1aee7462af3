"""FunctionGen mixin: value expressions (constants, names, tuples, attributes, subscripts)."""

from __future__ import annotations

import ast
import builtins

import numpy as np

from ..._ir import types as T
from ..._ir.values import (Atomic, BoundMethod, Const, IndexSpace, PointerArray, Scalar,
                           TupleValue, ViewArray)


class ExpressionLowering:
    """The e_* visitors of codegen.FunctionGen for leaves, attributes and indexing."""

    def e_constant(self, node):
        v = node.value
        if isinstance(v, bool):
            return Scalar(None, T.BOOL, True, v)
        if isinstance(v, int):
            return Scalar(None, T.I64, True, v)
        if isinstance(v, float):
            return Scalar(None, T.F64, True, v)
        if v is None:
            return Const(None)
        self.fail(node, f"{type(v).__name__} constants are not supported in kernels")

    def e_name(self, node):
        return self.load_name(node)

    def load_name(self, node):
        name = node.id
        if name in self.binds:
            return self.binds[name]
        if name in self.slots:
            return self.load_slot(node, name)
        if name in self.src.locals:
            if self.hints.get(name) is None:
                # Assigned later in the source (e.g. in a loop); known in the next pass.
                self.retry = True
                return Scalar(None, T.I64, True, 0)
            self.fail(node, f"variable '{name}' is used before it is assigned")
        return self.from_python(node, self.resolve_global(name, node))

    def load_slot(self, node, name):
        slot = self.slots[name]
        return Scalar(self.b.load(slot.ptr, self._zero), slot.dtype, slot.weak)

    def resolve_global(self, name, node=None):
        if name in self.src.closure:
            return self.src.closure[name]
        if name in self.src.globals:
            return self.src.globals[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        if node is None:
            return None
        self.fail(node, f"name '{name}' is not defined")

    def from_python(self, node, obj):
        """A Python object seen from a kernel (a global, a closure variable, an attribute)."""
        if isinstance(obj, bool):
            return Scalar(None, T.BOOL, True, obj)
        if isinstance(obj, int):
            return Scalar(None, T.I64, True, obj)
        if isinstance(obj, float):
            return Scalar(None, T.F64, True, obj)
        if isinstance(obj, np.generic) and T.supported_dtype(obj.dtype):
            return Scalar(None, obj.dtype, False, obj.item())
        if isinstance(obj, tuple):
            return TupleValue([self.from_python(node, o) for o in obj])
        if isinstance(obj, np.ndarray):
            self.fail(node, "global NumPy arrays cannot be used in kernels",
                      hint="pass the array as a kernel argument")
        return Const(obj)

    def e_tuple(self, node):
        return TupleValue([self.expr(e) for e in node.elts])

    def e_attribute(self, node):
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, Const):
            obj = base.obj
            if isinstance(obj, np.dtype) and attr == "type":
                return Const(obj.type)
            try:
                value = getattr(obj, attr)
            except AttributeError:
                self.fail(node, f"{self.describe(base)} has no attribute '{attr}'")
            return self.from_python(node, value)
        if isinstance(base, ViewArray):
            if attr == "shape":
                return TupleValue([Scalar(self.b.view_dim(base.ir, d), T.I64)
                                   for d in range(base.ndim)])
            if attr == "ndim":
                return Scalar(None, T.I64, True, base.ndim)
            if attr == "dtype":
                return Const(base.dtype)
            if attr == "size":
                total = Scalar(None, T.I64, True, 1)
                for d in range(base.ndim):
                    total = self.binop(node, ast.Mult(), total,
                                       Scalar(self.b.view_dim(base.ir, d), T.I64))
                return total
            if attr == "strides":
                itemsize = base.dtype.itemsize
                return TupleValue([self.binop(node, ast.Mult(),
                                              Scalar(self.b.view_stride(base.ir, d), T.I64),
                                              Scalar(None, T.I64, True, itemsize))
                                   for d in range(base.ndim)])
        if isinstance(base, PointerArray):
            if attr == "shape":
                return TupleValue([Scalar(None, T.I64, True, s) for s in base.shape])
            if attr == "ndim":
                return Scalar(None, T.I64, True, base.ndim)
            if attr == "dtype":
                return Const(base.dtype)
            if attr == "size":
                return Scalar(None, T.I64, True, int(np.prod(base.shape)))
        if isinstance(base, IndexSpace):
            if attr == "ndim":
                return Scalar(None, T.I64, True, base.ndim)
            if attr == "leader" and base.kind == "group":
                lin = self.linear_id(node, self.core.OpKind.LocalId, self.core.OpKind.LocalSize,
                                     base.ndim)
                return Scalar(self.b.cmp(self.core.CmpPredicate.Eq, lin.ir,
                                         self.const(T.I64, 0)), T.BOOL)
            return BoundMethod(base, attr)
        if isinstance(base, Atomic):
            return BoundMethod(base, attr)
        if isinstance(base, Scalar):
            if attr in ("real",):
                return base
            if attr == "dtype":
                return Const(np.dtype(base.dtype))
        self.fail(node, f"{self.describe(base)} has no attribute '{attr}' in kernels")

    def e_subscript(self, node):
        container = self.expr(node.value)
        index = self.expr(node.slice)
        if isinstance(container, TupleValue):
            if not (isinstance(index, Scalar) and index.is_literal):
                self.fail(node, "tuples can only be indexed by a constant")
            try:
                return container.items[index.py]
            except (IndexError, TypeError):
                self.fail(node, f"tuple index {index.py} out of range")
        return self.subscript_load(node, container, self.index_values(node, index))

    def index_values(self, node, index):
        if isinstance(index, TupleValue):
            items = index.items
        else:
            items = [index]
        for item in items:
            if not isinstance(item, Scalar) or not (T.is_int(item.dtype) or T.is_bool(item.dtype)):
                self.type_fail(node, f"array indices must be integers, not "
                               f"{self.describe(item)}",
                               hint="slices are not supported; index one element per dimension")
        return items

    def _element_pointer(self, node, container, index):
        """(pointer, i64 index) or (view, index list) for an element access."""
        if isinstance(container, ViewArray):
            if len(index) != container.ndim:
                self.fail(node, f"a {container.ndim}-D array needs {container.ndim} indices, "
                          f"got {len(index)}", hint="index one element per dimension")
            values = []
            for d, i in enumerate(index):
                if i.is_literal and i.py < 0:
                    dim = Scalar(self.b.view_dim(container.ir, d), T.I64)
                    values.append(self.binop(node, ast.Add(), dim, i))
                else:
                    values.append(i)
            return "view", [self.coerce(node, v, T.I64) for v in values]
        if isinstance(container, PointerArray):
            if len(index) != container.ndim:
                self.fail(node, f"a {container.ndim}-D array needs {container.ndim} indices, "
                          f"got {len(index)}")
            linear = None
            stride = 1
            for d in reversed(range(container.ndim)):
                i = index[d]
                if i.is_literal and i.py < 0:
                    i = Scalar(None, T.I64, True, i.py + container.shape[d])
                term = self.binop(node, ast.Mult(), i, Scalar(None, T.I64, True, stride))
                linear = term if linear is None else self.binop(node, ast.Add(), term, linear)
                stride *= container.shape[d]
            return "ptr", self.coerce(node, linear, T.I64)
        self.type_fail(node, f"{self.describe(container)} cannot be indexed")

    def subscript_load(self, node, container, index):
        kind, idx = self._element_pointer(node, container, index)
        if kind == "view":
            ir = self.b.view_load(container.ir, idx)
        else:
            ir = self.b.load(container.ir, idx)
        value = Scalar(ir, container.dtype)
        if container.dtype == np.float16:
            value = Scalar(self.b.cast(ir, T.ir_scalar(T.F32)), T.F32)
        return value

    def subscript_store(self, node, container, index, value):
        if not isinstance(value, Scalar):
            self.type_fail(node, f"cannot store {self.describe(value)} into an array element")
        kind, idx = self._element_pointer(node, container, index)
        if isinstance(container, ViewArray):
            self.written.add(container.param)
        v = self.coerce(node, value, container.dtype)
        if kind == "view":
            self.b.view_store(container.ir, idx, v)
        else:
            self.b.store(container.ir, idx, v)
