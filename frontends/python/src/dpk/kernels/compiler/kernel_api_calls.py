"""Lowering of the kernel_api calls: ids and ranges of Item/NdItem/Group/SubGroup, AtomicRef,
PrivateArray, group_barrier, atomic_fence, group_ballot and select_from_group.

A mixin of codegen.FunctionGen (it uses the generator's builder, coercions and error helpers);
kept apart so that codegen.py and its mixins hold the Python language and this file the kapi
library.
"""

from __future__ import annotations

import numpy as np

from ..._errors import KernelTypeError
from ..._ir import builder as irb
from ..._ir import types as T
from ..._ir.values import (Atomic, Const, IndexSpace, PointerArray, Scalar, StridedArray,
                           TupleValue, ViewArray)
from ..kapi import AddressSpace, MemoryOrder, MemoryScope

_ENUM_ORDER = {
    MemoryOrder.RELAXED: "Relaxed", MemoryOrder.ACQUIRE: "Acquire",
    MemoryOrder.CONSUME_UNSUPPORTED: "Acquire", MemoryOrder.RELEASE: "Release",
    MemoryOrder.ACQ_REL: "AcqRel", MemoryOrder.SEQ_CST: "SeqCst",
}
_ENUM_SCOPE = {
    MemoryScope.WORK_ITEM: "WorkItem", MemoryScope.SUB_GROUP: "SubGroup",
    MemoryScope.WORK_GROUP: "WorkGroup", MemoryScope.DEVICE: "Device",
    MemoryScope.SYSTEM: "System",
}

_ATOMIC_DTYPES = tuple(np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64,
                                             np.float32, np.float64))


def _dtype_of_class(obj):
    """numpy.float32 (or the dtype of it) -> dtype; None when obj is no scalar type."""
    if isinstance(obj, np.dtype):
        return obj
    if isinstance(obj, type) and issubclass(obj, np.generic):
        return np.dtype(obj)
    return None


class KernelApiLowering:
    """kapi calls for FunctionGen."""

    def const_arg(self, node, value, what):
        if isinstance(value, Const):
            return value.obj
        if isinstance(value, Scalar) and value.is_literal:
            return value.py
        self.fail(node, f"{what} must be a compile-time constant")

    def bind_args(self, node, names, defaults, args, kwargs, what):
        if len(args) > len(names):
            self.fail(node, f"{what}() takes at most {len(names)} arguments")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                self.fail(node, f"{what}() has no parameter '{k}'")
            if k in bound:
                self.fail(node, f"{what}() got '{k}' twice")
            bound[k] = v
        for k, d in defaults.items():
            bound.setdefault(k, d)
        missing = [n for n in names if n not in bound]
        if missing:
            self.fail(node, f"{what}() is missing {', '.join(missing)}")
        return bound

    def order_scope(self, node, order, scope):
        order = self.const_arg(node, order, "memory_order")
        scope = self.const_arg(node, scope, "memory_scope")
        try:
            o = getattr(self.core.IrMemoryOrder, _ENUM_ORDER[MemoryOrder(order)])
            s = getattr(self.core.IrMemoryScope, _ENUM_SCOPE[MemoryScope(scope)])
        except (ValueError, KeyError):
            self.fail(node, f"invalid memory order {order!r} or scope {scope!r}")
        return o, s

    def make_atomic(self, node, args, kwargs):
        bound = self.bind_args(
            node, ["ref", "index", "memory_order", "memory_scope", "address_space"],
            {"index": Scalar(None, T.I64, True, 0), "memory_order": Const(MemoryOrder.RELAXED),
             "memory_scope": Const(MemoryScope.DEVICE),
             "address_space": Const(AddressSpace.GLOBAL)}, args, kwargs, "AtomicRef")
        ref = bound["ref"]
        order, scope = self.order_scope(node, bound["memory_order"], bound["memory_scope"])
        index = self.index_values(node, bound["index"])
        space = self.const_arg(node, bound["address_space"], "address_space")
        if isinstance(ref, ViewArray):
            if AddressSpace(space) == AddressSpace.LOCAL:
                self.type_fail(node, "address_space=LOCAL needs a LocalAccessor, not a global "
                               "array")
            if len(index) == 1 and ref.ndim > 1:
                self.fail(node, f"AtomicRef of a {ref.ndim}-D array needs a tuple index")
            _, idx = self._element_pointer(node, ref, index)
            self.written.add(ref.param)
            ptr = self.b.view_element_ptr(ref.ir, idx)
            dtype = ref.dtype
            idx = self.const(T.I64, 0)
        elif isinstance(ref, (PointerArray, StridedArray)):
            if len(index) == 1 and ref.ndim > 1:
                self.fail(node, f"AtomicRef of a {ref.ndim}-D array needs a tuple index")
            if isinstance(ref, StridedArray):
                if ref.space == "global" and AddressSpace(space) == AddressSpace.LOCAL:
                    self.type_fail(node, "address_space=LOCAL needs local memory, not a view of "
                                   "a global array")
                self.written.add(ref.param)
            _, idx = self._element_pointer(node, ref, index)
            ptr, dtype = ref.ir, ref.dtype
        else:
            self.type_fail(node, f"AtomicRef needs an array, not {self.describe(ref)}")
        if np.dtype(dtype) not in _ATOMIC_DTYPES:
            self.type_fail(node, f"atomics support int32, int64, uint32, uint64, float32 and "
                           f"float64 elements, not {dtype}")
        return Atomic(ptr, idx, np.dtype(dtype), order, scope)

    def atomic_method(self, node, atom, name, args, kwargs):
        Rmw = self.core.AtomicRmwKind
        rmw = {"fetch_add": Rmw.Add, "fetch_sub": Rmw.Sub, "fetch_min": Rmw.Min,
               "fetch_max": Rmw.Max, "fetch_and": Rmw.And, "fetch_or": Rmw.Or,
               "fetch_xor": Rmw.Xor, "exchange": Rmw.Exchange}
        if name in rmw:
            if len(args) != 1 or kwargs:
                self.fail(node, f"AtomicRef.{name}() takes one value")
            if name in ("fetch_and", "fetch_or", "fetch_xor") and atom.dtype.kind == "f":
                self.type_fail(node, f"AtomicRef.{name}() needs an integer array")
            v = self.coerce(node, args[0], atom.dtype)
            return Scalar(self.b.atomic_rmw(rmw[name], atom.ptr, atom.idx, v, atom.order,
                                            atom.scope), atom.dtype)
        if name == "load":
            return Scalar(self.b.atomic_load(atom.ptr, atom.idx, atom.order, atom.scope),
                          atom.dtype)
        if name == "store":
            if len(args) != 1:
                self.fail(node, "AtomicRef.store() takes one value")
            self.b.atomic_store(atom.ptr, atom.idx, self.coerce(node, args[0], atom.dtype),
                                atom.order, atom.scope)
            return Const(None)
        if name == "compare_exchange":
            bound = self.bind_args(node, ["expected", "desired", "expected_idx"],
                                   {"expected_idx": Scalar(None, T.I64, True, 0)}, args, kwargs,
                                   "compare_exchange")
            expected = bound["expected"]
            if isinstance(expected, (ViewArray, StridedArray)):
                self.written.add(expected.param)
            if not isinstance(expected, (ViewArray, PointerArray, StridedArray)):
                self.type_fail(node, "compare_exchange() takes an array `expected` (kapi "
                               "semantics: it receives the current value on failure)")
            eidx = self.index_values(node, bound["expected_idx"])
            exp_value = self.subscript_load(node, expected, eidx)
            exp_ir = self.coerce(node, exp_value, atom.dtype)
            old = self.b.atomic_cmpxchg(atom.ptr, atom.idx, exp_ir,
                                        self.coerce(node, bound["desired"], atom.dtype),
                                        atom.order, atom.scope)
            ok = self.b.cmp(self.core.CmpPredicate.Eq, old, exp_ir)
            op = self.b.create_if(self.b.unary(self.core.OpKind.Not, ok))
            block = self.b.insertion_block
            self.b.set_insertion_point(self.core.Builder.then_block(op))
            self.subscript_store(node, expected, eidx, Scalar(old, atom.dtype))
            self.b.set_insertion_point(block)
            return Scalar(ok, T.BOOL)
        self.fail(node, f"AtomicRef has no method {name}()")

    def make_private_array(self, node, args, kwargs):
        bound = self.bind_args(node, ["shape", "dtype", "fill_zeros"],
                               {"fill_zeros": Scalar(None, T.BOOL, True, False)}, args, kwargs,
                               "PrivateArray")
        shape_v = bound["shape"]
        items = shape_v.items if isinstance(shape_v, TupleValue) else [shape_v]
        shape = []
        for s in items:
            if not (isinstance(s, Scalar) and s.is_literal and isinstance(s.py, int) and s.py > 0):
                self.fail(node, "PrivateArray shape must be made of positive constant integers",
                          hint="use a literal or a module-level constant")
            shape.append(s.py)
        if not 1 <= len(shape) <= 3:
            self.fail(node, "PrivateArray has 1 to 3 dimensions")
        dtype = _dtype_of_class(self.const_arg(node, bound["dtype"], "dtype"))
        if dtype is None or not T.supported_dtype(dtype):
            self.type_fail(node, "PrivateArray dtype must be a NumPy scalar type")
        count = int(np.prod(shape))
        ptr = self.b.private_alloc(T.scalar_kind(dtype), count)
        fill = self.const_arg(node, bound["fill_zeros"], "fill_zeros")
        if fill:
            for_op = self.b.create_for(self.const(T.I64, 0), self.const(T.I64, count),
                                       self.const(T.I64, 1))
            block = self.b.insertion_block
            self.b.set_insertion_point(self.core.Builder.for_body(for_op))
            self.b.store(ptr, self.core.Builder.for_induction_var(for_op), self.const(dtype, 0))
            self.b.set_insertion_point(block)
        return PointerArray(ptr, dtype, tuple(shape), "private")

    def barrier(self, node, args, kwargs):
        bound = self.bind_args(node, ["group", "fence_scope"],
                               {"fence_scope": Const(MemoryScope.WORK_GROUP)}, args, kwargs,
                               "group_barrier")
        group = bound["group"]
        if not (isinstance(group, IndexSpace) and group.kind == "group"):
            self.type_fail(node, "group_barrier() takes the Group of an NdItem "
                           "(nd_item.get_group())")
        _, scope = self.order_scope(node, Const(MemoryOrder.SEQ_CST), bound["fence_scope"])
        self.b.barrier(scope)
        return Const(None)

    def fence(self, node, args, kwargs):
        bound = self.bind_args(node, ["memory_order", "memory_scope"], {}, args, kwargs,
                               "atomic_fence")
        order, scope = self.order_scope(node, bound["memory_order"], bound["memory_scope"])
        self.b.fence(order, scope)
        return Const(None)

    def linear_id(self, node, id_kind, size_kind, ndim):
        return Scalar(irb.linear_work_item(self.b, id_kind, size_kind, ndim), T.I64)

    def linear_range(self, node, size_kind, ndim):
        return Scalar(irb.linear_work_range(self.b, size_kind, ndim), T.I64)

    def sub_group_method(self, node, space, name, args, kwargs):
        """SubGroup's queries: the lane, the size, and which sub-group of the work-group."""
        if args or kwargs:
            self.fail(node, f"SubGroup.{name}() takes no arguments")
        if name in ("get_local_id", "get_local_linear_id"):
            return Scalar(self.b.sub_group_local_id(), T.I64)
        if name in ("get_local_range", "get_max_local_range", "get_local_linear_range"):
            return Scalar(self.b.sub_group_size(), T.I64)
        K = self.core.OpKind
        Op = K.Div
        if name in ("get_group_id", "get_group_linear_id"):
            local = irb.linear_work_item(self.b, K.LocalId, K.LocalSize, space.ndim)
            return Scalar(self.b.binary(Op, local, self.b.sub_group_size()), T.I64)
        if name in ("get_group_range", "get_group_linear_range"):
            size = self.b.sub_group_size()
            local = irb.linear_work_range(self.b, K.LocalSize, space.ndim)
            up = self.b.binary(K.Sub, self.b.binary(K.Add, local, size), self.const(T.I64, 1))
            return Scalar(self.b.binary(Op, up, size), T.I64)
        self.fail(node, f"SubGroup has no method {name}()")

    def sub_group_argument(self, node, value, what):
        if not (isinstance(value, IndexSpace) and value.kind == "subgroup"):
            self.type_fail(node, f"{what}() takes the SubGroup of an NdItem "
                           "(nd_item.get_sub_group())")

    def ballot(self, node, args, kwargs):
        bound = self.bind_args(node, ["sub_group", "predicate"], {}, args, kwargs,
                               "group_ballot")
        self.sub_group_argument(node, bound["sub_group"], "group_ballot")
        predicate = self.to_bool(node, bound["predicate"]).ir
        return Scalar(self.b.sub_group_ballot(predicate), np.dtype(np.uint32))

    def select_from_group(self, node, args, kwargs):
        bound = self.bind_args(node, ["sub_group", "value", "lane"], {}, args, kwargs,
                               "select_from_group")
        self.sub_group_argument(node, bound["sub_group"], "select_from_group")
        value = bound["value"]
        if not isinstance(value, Scalar):
            self.type_fail(node, f"select_from_group() moves a number, not "
                           f"{self.describe(value)}")
        dtype = np.dtype(value.dtype)
        if dtype.kind not in "iuf" or dtype == np.float16:
            self.type_fail(node, f"select_from_group() moves integers, float32 and float64, "
                           f"not {dtype}")
        lane = self.coerce(node, bound["lane"], T.I64)
        v = self.coerce(node, value, dtype)
        return Scalar(self.b.sub_group_shuffle(v, lane), dtype)

    def index_method(self, node, space, name, args, kwargs):
        if space.kind == "subgroup":
            return self.sub_group_method(node, space, name, args, kwargs)
        K = self.core.OpKind
        tables = {
            "item": {"get_id": K.GlobalId, "get_range": K.GlobalSize},
            "nditem": {"get_global_id": K.GlobalId, "get_local_id": K.LocalId,
                       "get_global_range": K.GlobalSize, "get_local_range": K.LocalSize},
            "group": {"get_group_id": K.GroupId, "get_group_range": K.NumGroups,
                      "get_local_range": K.LocalSize},
        }
        linear = {
            "item": {"get_linear_id": (K.GlobalId, K.GlobalSize)},
            "nditem": {"get_global_linear_id": (K.GlobalId, K.GlobalSize),
                       "get_local_linear_id": (K.LocalId, K.LocalSize),
                       "get_group_linear_id": (K.GroupId, K.NumGroups)},
            "group": {"get_group_linear_id": (K.GroupId, K.NumGroups)},
        }
        ranges = {
            "item": {"get_linear_range": K.GlobalSize},
            "nditem": {"get_global_linear_range": K.GlobalSize,
                       "get_local_linear_range": K.LocalSize},
            "group": {"get_group_linear_range": K.NumGroups,
                      "get_local_linear_range": K.LocalSize},
        }
        kind = tables[space.kind].get(name)
        if kind is not None:
            if not args and space.kind == "group":
                # Group.get_group_range() / get_local_range(): the whole range as a tuple.
                return TupleValue([Scalar(self.b.work_item(kind, d), T.I64)
                                   for d in range(space.ndim)])
            if len(args) != 1 or kwargs:
                self.fail(node, f"{name}() takes one dimension argument")
            dim = args[0]
            if not (isinstance(dim, Scalar) and dim.is_literal and isinstance(dim.py, int)):
                self.fail(node, f"the dimension of {name}() must be a constant integer",
                          hint="write get_id(0), get_id(1), ... (dpk resolves dimensions at "
                               "compile time)")
            if not 0 <= dim.py < space.ndim:
                self.fail(node, f"dimension {dim.py} is out of range for a {space.ndim}-D launch",
                          cls=KernelTypeError)
            return Scalar(self.b.work_item(kind, dim.py), T.I64)
        if name in linear[space.kind]:
            return self.linear_id(node, *linear[space.kind][name], space.ndim)
        if name in ranges[space.kind]:
            return self.linear_range(node, ranges[space.kind][name], space.ndim)
        if space.kind == "nditem" and name == "get_group":
            return IndexSpace("group", space.ndim)
        if space.kind == "nditem" and name == "get_sub_group":
            if args or kwargs:
                self.fail(node, "get_sub_group() takes no arguments")
            return IndexSpace("subgroup", space.ndim)
        owner = {"item": "Item", "nditem": "NdItem", "group": "Group"}[space.kind]
        hint = None
        if space.kind == "item" and name in ("get_global_id", "get_local_id", "get_group"):
            hint = "a Range launch gives an Item; use an NdRange launch for NdItem methods"
        self.fail(node, f"{owner} has no method {name}()", hint=hint)

