"""FunctionGen mixin: value expressions (constants, names, tuples, attributes, subscripts).

Subscripts follow NumPy: one integer per dimension reads or writes an element; fewer integers,
slices (``a[i, 1:4]``, ``a[:, j]``, ``a[::-1]``) or an Ellipsis give a *strided view*
(values.StridedArray: a pointer to the first element plus run-time extents and strides), which
can be indexed again, sliced, passed to device functions and used with atomics. Slice bounds
are normalised as Python does (negative bounds count from the end, out-of-range bounds are
clipped); steps must be constant.
"""

from __future__ import annotations

import ast
import builtins

import numpy as np

from ..._ir import types as T
from ..._ir.values import (Atomic, BoundMethod, Const, IndexSpace, PointerArray, Scalar,
                           StridedArray, TupleValue, ViewArray)

#: The methods of each work-item kind, to reject a misspelt one where it is named.
INDEX_METHODS = {
    "item": {"get_id", "get_range", "get_linear_id", "get_linear_range"},
    "nditem": {"get_global_id", "get_local_id", "get_global_range", "get_local_range",
               "get_global_linear_id", "get_local_linear_id", "get_global_linear_range",
               "get_local_linear_range", "get_group", "get_group_linear_id", "get_sub_group"},
    "group": {"get_group_id", "get_group_linear_id", "get_group_range", "get_group_linear_range",
              "get_local_range", "get_local_linear_range"},
    "subgroup": {"get_local_id", "get_local_linear_id", "get_local_range",
                 "get_local_linear_range", "get_max_local_range", "get_group_id",
                 "get_group_linear_id", "get_group_range", "get_group_linear_range"},
}
_ALL_INDEX_METHODS = set().union(*INDEX_METHODS.values())


class _Slice:
    """A slice of a subscript while it is lowered: Scalars or None."""

    __slots__ = ("lower", "upper", "step")

    def __init__(self, lower, upper, step):
        self.lower, self.upper, self.step = lower, upper, step


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
        if (isinstance(node.value, ast.Name) and node.attr in _ALL_INDEX_METHODS
                and self._undefined(node.value.id)):
            self.fail(node, f"name '{node.value.id}' is not defined",
                      hint=f"if '{node.value.id}' is the work-item, make it the kernel's first "
                           f"parameter: def {self.src.name}({node.value.id}, ...)")
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, Const):
            obj = base.obj
            if isinstance(obj, np.dtype) and attr == "type":
                return Const(obj.type)
            try:
                value = getattr(obj, attr)
            except AttributeError as exc:
                # dpk's table of foreign names (numba.cuda, dpctl, ...) says what to use instead.
                hint = getattr(exc, "hint", None)
                self.fail(node, f"{self.describe(base)} has no attribute '{attr}'", hint=hint)
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
        if isinstance(base, StridedArray):
            if attr == "shape":
                return TupleValue(list(base.shape))
            if attr == "ndim":
                return Scalar(None, T.I64, True, base.ndim)
            if attr == "dtype":
                return Const(base.dtype)
            if attr == "size":
                total = Scalar(None, T.I64, True, 1)
                for extent in base.shape:
                    total = self.binop(node, ast.Mult(), total, extent)
                return total
            if attr == "strides":
                itemsize = Scalar(None, T.I64, True, base.dtype.itemsize)
                return TupleValue([self.binop(node, ast.Mult(), s, itemsize)
                                   for s in base.strides])
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
            if attr in ("ndim", "dimensions"):
                return Scalar(None, T.I64, True, base.ndim)
            if attr == "leader" and base.kind == "group":
                lin = self.linear_id(node, self.core.OpKind.LocalId, self.core.OpKind.LocalSize,
                                     base.ndim)
                return Scalar(self.b.cmp(self.core.CmpPredicate.Eq, lin.ir,
                                         self.const(T.I64, 0)), T.BOOL)
            if attr not in INDEX_METHODS[base.kind]:
                owner = {"item": "Item", "nditem": "NdItem", "group": "Group",
                         "subgroup": "SubGroup"}[base.kind]
                if base.note and attr not in _ALL_INDEX_METHODS:
                    # e.g. `a.shape` of a parameter taken as the item: the note says why.
                    self.fail(node, f"{self.describe(base)} has no attribute '{attr}'")
                hint = None
                if base.kind == "item" and attr in INDEX_METHODS["nditem"]:
                    hint = "a Range launch gives an Item; use an NdRange launch for NdItem methods"
                self.fail(node, f"{owner} has no method {attr}()", hint=hint)
            return BoundMethod(base, attr)
        if isinstance(base, Atomic):
            return BoundMethod(base, attr)
        if isinstance(base, Scalar):
            if attr in ("real",):
                return base
            if attr == "bit_count":  # int.bit_count(): CallLowering.popcount
                if np.dtype(base.dtype).kind not in "iub":
                    self.type_fail(node, f"bit_count() takes an integer, not "
                                         f"{self.describe(base)}")
                return BoundMethod(base, attr)
            if attr == "dtype":
                return Const(np.dtype(base.dtype))
        self.fail(node, f"{self.describe(base)} has no attribute '{attr}' in kernels")

    def _undefined(self, name):
        return (name not in self.binds and name not in self.slots and name not in self.src.locals
                and self.resolve_global(name) is None)

    def e_subscript(self, node):
        container = self.expr(node.value)
        if isinstance(container, TupleValue):
            index = self.expr(node.slice)
            if not (isinstance(index, Scalar) and index.is_literal):
                self.fail(node, "tuples can only be indexed by a constant")
            try:
                return container.items[index.py]
            except (IndexError, TypeError):
                self.fail(node, f"tuple index {index.py} out of range")
        entries = self.subscript_entries(node, node.slice)
        if isinstance(container, (ViewArray, PointerArray, StridedArray)) and (
                len(entries) < container.ndim
                or any(not isinstance(e, Scalar) for e in entries)):
            return self.strided_view(node, container, entries)
        return self.subscript_load(node, container, self.index_values(node, entries))

    def subscript_entries(self, node, slice_node):
        """The parts of a subscript: Scalars (and other values, rejected later), _Slices and
        Ellipsis."""
        parts = slice_node.elts if isinstance(slice_node, ast.Tuple) else [slice_node]
        entries = []
        for part in parts:
            if isinstance(part, ast.Slice):
                bounds = [None if b is None else self.expr(b)
                          for b in (part.lower, part.upper, part.step)]
                for b in bounds:
                    if b is not None and not (isinstance(b, Scalar)
                                              and (T.is_int(b.dtype) or T.is_bool(b.dtype))):
                        self.type_fail(node, "slice bounds must be integers")
                entries.append(_Slice(*bounds))
            elif isinstance(part, ast.Constant) and part.value is Ellipsis:
                entries.append(Ellipsis)
            else:
                value = self.expr(part)
                if isinstance(value, TupleValue) and not isinstance(slice_node, ast.Tuple):
                    entries.extend(value.items)  # idx = (i, j); a[idx]
                else:
                    entries.append(value)
        return entries

    def index_values(self, node, index):
        if isinstance(index, TupleValue):
            items = index.items
        elif isinstance(index, list):
            items = index
        else:
            items = [index]
        for item in items:
            if isinstance(item, _Slice) or item is Ellipsis:
                self.fail(node, "assigning to a slice of an array is not supported in kernels",
                          hint="store one element at a time: loop over the indices")
            if not isinstance(item, Scalar) or not (T.is_int(item.dtype) or T.is_bool(item.dtype)):
                self.type_fail(node, f"array indices must be integers, not "
                               f"{self.describe(item)}",
                               hint="index with integers, one per dimension (or fewer, or "
                                    "slices, for a view)")
        return items

    # ---- strided views ------------------------------------------------------------------------

    def array_layout(self, node, container):
        """(pointer, shape Scalars, stride Scalars, space, param) of an array value."""
        lit = lambda v: Scalar(None, T.I64, True, v)  # noqa: E731
        if isinstance(container, ViewArray):
            shape = [Scalar(self.b.view_dim(container.ir, d), T.I64)
                     for d in range(container.ndim)]
            strides = [Scalar(self.b.view_stride(container.ir, d), T.I64)
                       for d in range(container.ndim)]
            return None, shape, strides, "global", container.param
        if isinstance(container, PointerArray):
            strides, step = [], 1
            for extent in reversed(container.shape):
                strides.append(lit(step))
                step *= extent
            return (container.ir, [lit(e) for e in container.shape], list(reversed(strides)),
                    container.space, -1)
        if isinstance(container, StridedArray):
            return (container.ir, list(container.shape), list(container.strides),
                    container.space, container.param)
        self.type_fail(node, f"{self.describe(container)} cannot be indexed")

    def _expand(self, node, container, entries):
        """Entries with the Ellipsis expanded and missing trailing dimensions as full slices."""
        ellipses = sum(1 for e in entries if e is Ellipsis)
        if ellipses > 1:
            self.fail(node, "an index can only have a single ellipsis ('...')")
        explicit = len(entries) - ellipses
        if explicit > container.ndim:
            self.fail(node, f"too many indices for a {container.ndim}-D array: {explicit}")
        full = _Slice(None, None, None)
        if ellipses:
            at = entries.index(Ellipsis)
            entries = entries[:at] + [full] * (container.ndim - explicit) + entries[at + 1:]
        return entries + [full] * (container.ndim - len(entries))

    def _bound(self, node, value, extent, low_clip, high_clip):
        """Python's normalisation of a slice bound: negative counts from the end, then clipped
        to [low_clip, high_clip]."""
        add = ast.Add()
        if value.is_literal and value.py < 0:
            return self.minmax(node, False, [self.binop(node, add, value, extent), low_clip])
        direct = self.minmax(node, True, [value, high_clip])
        if value.is_literal:
            return direct
        from_end = self.minmax(node, False, [self.binop(node, add, value, extent), low_clip])
        negative = self.b.cmp(self.core.CmpPredicate.Lt, self.coerce(node, value, T.I64),
                              self.const(T.I64, 0))
        return Scalar(self.b.select(negative, self.coerce(node, from_end, T.I64),
                                    self.coerce(node, direct, T.I64)), T.I64)

    def strided_view(self, node, container, entries):
        """The StridedArray that `container[entries]` denotes (fewer indices than dimensions,
        slices or an ellipsis)."""
        ptr, shape, strides, space, param = self.array_layout(node, container)
        entries = self._expand(node, container, entries)
        lit = lambda v: Scalar(None, T.I64, True, v)  # noqa: E731
        add, sub, mul, fdiv = ast.Add(), ast.Sub(), ast.Mult(), ast.FloorDiv()
        starts = []  # per dimension of the container: the index of the view's first element
        new_shape, new_strides = [], []
        for d, entry in enumerate(entries):
            extent, stride = shape[d], strides[d]
            if isinstance(entry, Scalar):
                if not (T.is_int(entry.dtype) or T.is_bool(entry.dtype)):
                    self.type_fail(node, f"array indices must be integers, not "
                                   f"{self.describe(entry)}")
                start = entry
                if entry.is_literal and entry.py < 0:
                    start = self.binop(node, add, extent, entry)
            elif isinstance(entry, _Slice):
                step = entry.step if entry.step is not None else lit(1)
                if not step.is_literal:
                    self.fail(node, "slice steps must be constants in kernels")
                if step.py == 0:
                    self.fail(node, "slice step cannot be zero")
                if step.py > 0:
                    start = (lit(0) if entry.lower is None
                             else self._bound(node, entry.lower, extent, lit(0), extent))
                    stop = (extent if entry.upper is None
                            else self._bound(node, entry.upper, extent, lit(0), extent))
                    span = stop if start.is_literal and start.py == 0 else \
                        self.binop(node, sub, stop, start)
                else:
                    last = self.binop(node, sub, extent, lit(1))
                    start = (last if entry.lower is None
                             else self._bound(node, entry.lower, extent, lit(-1), last))
                    stop = (lit(-1) if entry.upper is None
                            else self._bound(node, entry.upper, extent, lit(-1), last))
                    span = self.binop(node, sub, start, stop)
                magnitude = abs(step.py)
                if magnitude != 1:
                    span = self.binop(node, fdiv, self.binop(node, add, span, lit(magnitude - 1)),
                                      lit(magnitude))
                length = self.minmax(node, False, [span, lit(0)])
                new_shape.append(self.as_i64(node, length))
                new_strides.append(stride if step.py == 1 else
                                   self.as_i64(node, self.binop(node, mul, stride, step)))
            else:
                self.type_fail(node, f"array indices must be integers or slices, not "
                               f"{self.describe(entry)}")
            starts.append(start)
        if ptr is None:  # a view argument: the pointer to the first element of the view
            ptr = self.b.view_element_ptr(container.ir,
                                          [self.coerce(node, s, T.I64) for s in starts])
        else:
            offset = lit(0)
            for start, stride in zip(starts, strides):
                offset = self.binop(node, add, offset, self.binop(node, mul, start, stride))
            ptr = self.b.ptr_offset(ptr, self.coerce(node, offset, T.I64))
        if not new_shape:
            self.fail(node, "internal: a view without dimensions")
        return StridedArray(ptr, container.dtype, new_shape, new_strides, space, param)

    def as_i64(self, node, value):
        """A Scalar as an i64 Scalar (literals stay literals)."""
        if value.is_literal:
            return Scalar(None, T.I64, True, int(value.py))
        return Scalar(self.coerce(node, value, T.I64), T.I64)

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
        if isinstance(container, StridedArray):
            if len(index) != container.ndim:
                self.fail(node, f"a {container.ndim}-D array needs {container.ndim} indices, "
                          f"got {len(index)}")
            linear = Scalar(None, T.I64, True, 0)
            for d, i in enumerate(index):
                if i.is_literal and i.py < 0:
                    i = self.binop(node, ast.Add(), container.shape[d], i)
                linear = self.binop(node, ast.Add(), linear,
                                    self.binop(node, ast.Mult(), i, container.strides[d]))
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
        if isinstance(container, (ViewArray, StridedArray)):
            self.written.add(container.param)
        v = self.coerce(node, value, container.dtype)
        if kind == "view":
            self.b.view_store(container.ir, idx, v)
        else:
            self.b.store(container.ir, idx, v)
