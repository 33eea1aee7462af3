"""The OpenCL-style kernel API of numba-dppy and numba-dpex <= 0.20, as top-level ``dpk`` names:
``get_global_id(d)``, ``get_local_id``, ``get_group_id``, ``get_global_size``,
``get_local_size``, ``get_num_groups``, ``get_work_dim``, ``barrier(flags)``, ``mem_fence``,
``sub_group_barrier``, ``local.array``, ``private.array``, ``atomic.*``, the fence flags and
``DEFAULT_LOCAL_SIZE``.

A kernel written in this style takes no work-item parameter. The compiler lowers these calls to
the same IR builtins as the kapi methods (``item.get_id(d)`` is ``get_global_id(d)``), so both
styles give the same IR and can call the same device functions. Called from Python, the
functions answer for the work-item that ``kernel_api.call_kernel`` runs in the current thread
(work_items.current_item), so the same kernels also run in the pure-Python mode.

Semantics follow OpenCL 1.2, as numba-dppy's did: a dimension at or past ``get_work_dim()``
gives id 0 and size 1. Over a plain Range (no work-groups), a work-item is its own work-group
in the pure-Python mode: local id 0, local size 1.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from .kapi.barrier import BarrierDivergenceError
from .kapi.index_space_ids import NdItem
from .kapi.work_items import current_item

#: Fence flags of ``barrier`` and ``mem_fence`` (numba-dpex's names and numba-dppy's CLK_ ones).
LOCAL_MEM_FENCE = 0x1
GLOBAL_MEM_FENCE = 0x2
CLK_LOCAL_MEM_FENCE = LOCAL_MEM_FENCE
CLK_GLOBAL_MEM_FENCE = GLOBAL_MEM_FENCE


class _DefaultLocalSize(tuple):
    """An empty local size: ``kernel[global_size, DEFAULT_LOCAL_SIZE]`` lets dpk choose."""

    def __repr__(self):
        return "dpk.DEFAULT_LOCAL_SIZE"


#: ``kernel[n, DEFAULT_LOCAL_SIZE](...)``: dpk chooses the local size. numba-dppy's value was an
#: empty list; dpk's is an empty tuple (immutable), and ``[]`` is accepted as well.
DEFAULT_LOCAL_SIZE = _DefaultLocalSize()


# ---- ids and sizes -------------------------------------------------------------------------------

def _dim(d, what):
    try:
        return int(d)
    except (TypeError, ValueError):
        raise TypeError(f"{what}() takes a dimension (an int), not {type(d).__name__}") from None


def get_work_dim():
    """The number of dimensions of the launch (1 to 3)."""
    return current_item("get_work_dim()").ndim


def get_global_id(dim):
    """The work-item's index in dimension ``dim`` of the global range (0 past the rank)."""
    item = current_item("get_global_id()")
    d = _dim(dim, "get_global_id")
    if not 0 <= d < item.ndim:
        return 0
    return item.get_global_id(d) if isinstance(item, NdItem) else item.get_id(d)


def get_global_size(dim):
    """The extent of the global range in dimension ``dim`` (1 past the rank)."""
    item = current_item("get_global_size()")
    d = _dim(dim, "get_global_size")
    if not 0 <= d < item.ndim:
        return 1
    return item.get_global_range(d) if isinstance(item, NdItem) else item.get_range(d)


def get_local_id(dim):
    """The work-item's index in its work-group in dimension ``dim``."""
    item = current_item("get_local_id()")
    d = _dim(dim, "get_local_id")
    if not 0 <= d < item.ndim or not isinstance(item, NdItem):
        return 0
    return item.get_local_id(d)


def get_local_size(dim):
    """The extent of the work-group in dimension ``dim``."""
    item = current_item("get_local_size()")
    d = _dim(dim, "get_local_size")
    if not 0 <= d < item.ndim or not isinstance(item, NdItem):
        return 1
    return item.get_local_range(d)


def get_group_id(dim):
    """The work-group's index in dimension ``dim``."""
    item = current_item("get_group_id()")
    d = _dim(dim, "get_group_id")
    if not 0 <= d < item.ndim:
        return 0
    if not isinstance(item, NdItem):
        return item.get_id(d)
    return item.get_group().get_group_id(d)


def get_num_groups(dim):
    """The number of work-groups in dimension ``dim``."""
    item = current_item("get_num_groups()")
    d = _dim(dim, "get_num_groups")
    if not 0 <= d < item.ndim:
        return 1
    if not isinstance(item, NdItem):
        return item.get_range(d)
    return item.get_group().get_group_range(d)


# ---- synchronization -----------------------------------------------------------------------------

def barrier(flags=GLOBAL_MEM_FENCE):
    """Waits for every work-item of the work-group; memory writes before it (local and global:
    dpk fences both for either flag) are visible to the group after it."""
    item = current_item("barrier()")
    if not isinstance(item, NdItem):
        return None  # a work-item alone in its group (a Range launch) waits for nobody
    group_barrier_of = item.get_group()._barrier
    if group_barrier_of is None:
        raise BarrierDivergenceError("barrier() reached by a kernel the pure-Python launcher "
                                     "runs without threads (the barrier is not visible from "
                                     "the kernel's code)")
    group_barrier_of.wait()
    return None


def sub_group_barrier():
    """A barrier of the sub-group. Like numba-dpex, dpk makes it a work-group barrier."""
    return barrier(LOCAL_MEM_FENCE)


def mem_fence(flags=GLOBAL_MEM_FENCE):
    """Orders this work-item's memory accesses (a no-op in the pure-Python mode)."""
    current_item("mem_fence()")
    return None


# ---- local and private memory ---------------------------------------------------------------------

def _shape_of(shape, what):
    if isinstance(shape, (tuple, list)):
        dims = tuple(int(s) for s in shape)
    else:
        dims = (int(shape),)
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise ValueError(f"{what} shape must have 1 to 3 positive extents, got {shape!r}")
    return dims


_store_lock = threading.Lock()


class local:  # noqa: N801 - numba-dppy's name
    """Work-group local memory: ``local.array(shape, dtype)`` (constant shape)."""

    def __new__(cls):
        raise TypeError("dpk.local is a namespace: call dpk.local.array(shape, dtype)")

    @staticmethod
    def array(shape, dtype):
        """One array per work-group, shared by its work-items (allocated at the call site)."""
        item = current_item("local.array()")
        dims = _shape_of(shape, "local.array")
        if not isinstance(item, NdItem):
            return np.zeros(dims, dtype=dtype)  # a work-item alone in its group
        group = item.get_group()
        caller = sys._getframe(1)
        key = (caller.f_code, caller.f_lasti)
        with _store_lock:
            store = group._local_store
            if store is None:
                store = group._local_store = {}
            array = store.get(key)
            if array is None:
                array = store[key] = np.zeros(dims, dtype=dtype)
        return array


class private:  # noqa: N801 - numba-dppy's name
    """Work-item private memory: ``private.array(shape, dtype)`` (constant shape)."""

    def __new__(cls):
        raise TypeError("dpk.private is a namespace: call dpk.private.array(shape, dtype)")

    @staticmethod
    def array(shape, dtype):
        """A small array owned by the calling work-item (its values start undefined)."""
        return np.zeros(_shape_of(shape, "private.array"), dtype=dtype)


# ---- atomics ----------------------------------------------------------------------------------------

_ATOMIC_LOCK = threading.RLock()


def _rmw(name, update):
    def op(ary, idx, val):
        with _ATOMIC_LOCK:
            old = ary[idx]
            ary[idx] = update(old, val)
            return old
    op.__name__ = name
    op.__qualname__ = f"atomic.{name}"
    op.__doc__ = (f"atomic.{name}(ary, idx, val): atomically updates ary[idx] (an int or a tuple "
                  "for n-D arrays) and returns the old value.")
    return op


class atomic:  # noqa: N801 - numba-dppy's name
    """Atomic read-modify-write of one array element; each returns the element's old value.

    ``add``, ``sub``, ``min``, ``max`` (32/64-bit integers and floats), ``and_``, ``or_``,
    ``xor`` (integers), ``exchange`` (also ``exch``), ``compare_and_swap(ary, old, val)``
    (element 0, as numba.cuda) and ``cas(ary, idx, old, val)``.
    """

    def __new__(cls):
        raise TypeError("dpk.atomic is a namespace: call dpk.atomic.add(ary, idx, val), ...")

    add = staticmethod(_rmw("add", lambda old, val: old + val))
    sub = staticmethod(_rmw("sub", lambda old, val: old - val))
    min = staticmethod(_rmw("min", lambda old, val: min(old, val)))
    max = staticmethod(_rmw("max", lambda old, val: max(old, val)))
    and_ = staticmethod(_rmw("and_", lambda old, val: old & val))
    or_ = staticmethod(_rmw("or_", lambda old, val: old | val))
    xor = staticmethod(_rmw("xor", lambda old, val: old ^ val))
    exchange = staticmethod(_rmw("exchange", lambda old, val: val))
    exch = exchange

    @staticmethod
    def cas(ary, idx, old, val):
        """Sets ary[idx] to val if it equals old; returns the value it had."""
        with _ATOMIC_LOCK:
            current = ary[idx]
            if current == old:
                ary[idx] = val
            return current

    @staticmethod
    def compare_and_swap(ary, old, val):
        """numba.cuda's form: ``cas`` on element 0 of a 1-D array."""
        return atomic.cas(ary, 0, old, val)


#: The functions the compiler lowers, by object (the compiler's table keys on these).
ID_FUNCTIONS = {
    get_global_id: "GlobalId", get_local_id: "LocalId", get_group_id: "GroupId",
    get_global_size: "GlobalSize", get_local_size: "LocalSize", get_num_groups: "NumGroups",
}
ATOMIC_FUNCTIONS = {
    atomic.add: "Add", atomic.sub: "Sub", atomic.min: "Min", atomic.max: "Max",
    atomic.and_: "And", atomic.or_: "Or", atomic.xor: "Xor", atomic.exchange: "Exchange",
}

__all__ = [
    "CLK_GLOBAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE", "DEFAULT_LOCAL_SIZE", "GLOBAL_MEM_FENCE",
    "LOCAL_MEM_FENCE", "atomic", "barrier", "get_global_id", "get_global_size", "get_group_id",
    "get_local_id", "get_local_size", "get_num_groups", "get_work_dim", "local", "mem_fence",
    "private", "sub_group_barrier",
]
