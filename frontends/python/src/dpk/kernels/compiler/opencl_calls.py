"""Lowering of the OpenCL-style kernel API (numba-dppy, numba-dpex <= 0.20): ``get_global_id(d)``
and the other ids and sizes, ``get_work_dim()``, ``barrier``, ``mem_fence``,
``sub_group_barrier``, ``local.array``, ``private.array`` and ``atomic.*``.

A mixin of codegen.FunctionGen. The calls become the same IR as the kapi methods in
kernel_api_calls.py (``get_global_id(0)`` and ``item.get_id(0)`` are both ``global_id 0``), so
kernels of either style produce the same IR and share device functions. The launch's rank is
known at compile time (it is part of the specialization): a constant dimension at or past it
gives OpenCL's answer (id 0, size 1) without an IR op, and a run-time dimension becomes a
select over the launch's dimensions.

``local.array`` allocations must sit at the kernel's entry (the IR allows ``local_alloc`` only
at a kernel's top level), wherever the call is written: the first compile pass records each call
site's shape and dtype in the generator's hints, and the next passes allocate them before the
body (codegen.FunctionGen._declare_slots_once).
"""

from __future__ import annotations

import numpy as np

from ..._ir import types as T
from ..._ir.values import Const, PointerArray, Scalar, StridedArray, TupleValue, ViewArray
from ..kapi import MemoryOrder, MemoryScope
from ..opencl_api import (ATOMIC_FUNCTIONS, ID_FUNCTIONS, atomic, barrier, get_work_dim, local,
                          mem_fence, private, sub_group_barrier)
from .kernel_api_calls import _dtype_of_class

#: What each id or size gives for a dimension past the launch's rank (OpenCL 1.2).
_PAST_RANK = {"GlobalId": 0, "LocalId": 0, "GroupId": 0, "GlobalSize": 1, "LocalSize": 1,
              "NumGroups": 1}

OPENCL_CALLS = frozenset(ID_FUNCTIONS) | {get_work_dim, barrier, sub_group_barrier, mem_fence,
                                          local.array, private.array, atomic.cas,
                                          atomic.compare_and_swap} | frozenset(ATOMIC_FUNCTIONS)


class OpenClApiLowering:
    """OpenCL-style calls for FunctionGen."""

    def opencl_call(self, node, obj, args, kwargs):
        name = getattr(obj, "__qualname__", getattr(obj, "__name__", "function"))
        if kwargs:
            self.fail(node, f"{name}() takes positional arguments only")
        if obj in ID_FUNCTIONS:
            return self.opencl_id(node, name, ID_FUNCTIONS[obj], args)
        if obj is get_work_dim:
            if args:
                self.fail(node, "get_work_dim() takes no arguments")
            return Scalar(None, T.I64, True, self.ctx.ndim)
        if obj in (barrier, sub_group_barrier):
            if len(args) > (0 if obj is sub_group_barrier else 1):
                self.fail(node, f"{name}() takes {'no' if obj is sub_group_barrier else 'one'} "
                          "fence-flags argument" + ("s" if obj is sub_group_barrier else ""))
            # Either flag fences local and global memory among the group's work-items (a
            # work-group scope barrier, as SYCL defines it); sub-group barriers are work-group
            # barriers, as in numba-dpex.
            _, scope = self.order_scope(node, Const(MemoryOrder.SEQ_CST),
                                        Const(MemoryScope.WORK_GROUP))
            self.b.barrier(scope)
            return Const(None)
        if obj is mem_fence:
            if len(args) > 1:
                self.fail(node, "mem_fence() takes one fence-flags argument")
            order, scope = self.order_scope(node, Const(MemoryOrder.ACQ_REL),
                                            Const(MemoryScope.WORK_GROUP))
            self.b.fence(order, scope)
            return Const(None)
        if obj is private.array:
            if len(args) != 2:
                self.fail(node, "private.array() takes a shape and a dtype")
            return self.make_private_array(node, args, {})
        if obj is local.array:
            return self.opencl_local_array(node, args)
        return self.opencl_atomic(node, obj, name, args)

    def opencl_id(self, node, name, kind_name, args):
        if len(args) != 1:
            self.fail(node, f"{name}() takes one dimension argument")
        dim = args[0]
        if not isinstance(dim, Scalar) or not (T.is_int(dim.dtype) or T.is_bool(dim.dtype)):
            self.type_fail(node, f"the dimension of {name}() must be an integer")
        kind = getattr(self.core.OpKind, kind_name)
        ndim = self.ctx.ndim
        if dim.is_literal:
            d = int(dim.py)
            if not 0 <= d < ndim:
                return Scalar(None, T.I64, True, _PAST_RANK[kind_name])
            return Scalar(self.b.work_item(kind, d), T.I64)
        # A run-time dimension: select among the launch's dimensions.
        d = self.coerce(node, dim, T.I64)
        result = self.const(T.I64, _PAST_RANK[kind_name])
        for k in reversed(range(ndim)):
            hit = self.b.cmp(self.core.CmpPredicate.Eq, d, self.const(T.I64, k))
            result = self.b.select(hit, self.b.work_item(kind, k), result)
        return Scalar(result, T.I64)

    def opencl_local_array(self, node, args):
        if not self.is_kernel:
            self.fail(node, "local.array() must be called in the kernel itself, not in a device "
                      "function", hint="allocate it in the kernel and pass it to the function")
        if len(args) != 2:
            self.fail(node, "local.array() takes a shape and a dtype")
        shape_v = args[0]
        items = shape_v.items if isinstance(shape_v, TupleValue) else [shape_v]
        shape = []
        for s in items:
            if not (isinstance(s, Scalar) and s.is_literal and isinstance(s.py, int) and s.py > 0):
                self.fail(node, "local.array() shape must be made of positive constant integers",
                          hint="use a literal or a module-level constant")
            shape.append(s.py)
        if not 1 <= len(shape) <= 3:
            self.fail(node, "local.array() has 1 to 3 dimensions")
        dtype = _dtype_of_class(self.const_arg(node, args[1], "dtype"))
        if dtype is None or not T.supported_dtype(dtype) or dtype.kind == "b":
            self.type_fail(node, "local.array() dtype must be a NumPy number type")
        key = f"$local{node.lineno}_{node.col_offset}"
        spec = ("local", tuple(shape), np.dtype(dtype).str)
        allocated = self.local_arrays.get(key)
        if allocated is not None and self.hints.get(key) == spec:
            return allocated
        # First sight (or a changed call): record it; the next pass allocates it at the entry.
        self.hints[key] = spec
        self.retry = True
        ptr = self.b.local_alloc(T.scalar_kind(dtype), int(np.prod(shape)))
        return PointerArray(ptr, np.dtype(dtype), tuple(shape), "local")

    def opencl_atomic(self, node, obj, name, args):
        if obj is atomic.compare_and_swap:
            if len(args) != 3:
                self.fail(node, "atomic.compare_and_swap() takes (array, old, value)")
            ary, old, val = args
            index = Scalar(None, T.I64, True, 0)
        elif obj is atomic.cas:
            if len(args) != 4:
                self.fail(node, "atomic.cas() takes (array, index, old, value)")
            ary, index, old, val = args
        else:
            if len(args) != 3:
                self.fail(node, f"{name}() takes (array, index, value)")
            ary, index, val = args
        if not isinstance(ary, (ViewArray, PointerArray, StridedArray)):
            self.type_fail(node, f"{name}() needs an array, not {self.describe(ary)}")
        atom = self.make_atomic(node, [ary, index], {})
        if obj in (atomic.cas, atomic.compare_and_swap):
            old_ir = self.coerce(node, old, atom.dtype)
            return Scalar(self.b.atomic_cmpxchg(atom.ptr, atom.idx, old_ir,
                                                self.coerce(node, val, atom.dtype),
                                                atom.order, atom.scope), atom.dtype)
        kind = ATOMIC_FUNCTIONS[obj]
        if kind in ("And", "Or", "Xor") and atom.dtype.kind == "f":
            self.type_fail(node, f"{name}() needs an integer array")
        v = self.coerce(node, val, atom.dtype)
        return Scalar(self.b.atomic_rmw(getattr(self.core.AtomicRmwKind, kind), atom.ptr,
                                        atom.idx, v, atom.order, atom.scope), atom.dtype)
