"""kapi-style kernel API: the names kernels use, and a pure-Python ``call_kernel``.

``from dpk import kernel_api as kapi`` gives the same names as numba-dpex's
``numba_dpex.kernel_api``, plus ``popcount`` and the sub-group extension (``NdItem.get_sub_group``, ``SubGroup``,
``group_ballot``, ``select_from_group``). The classes are the ones the compiler understands,
so one kernel runs compiled (``dpk.call_kernel``) and interpreted (``kapi.call_kernel``, for
debugging, barriers included). The public name of dpk.kernels.kapi, where the code lives.
"""

from ..kernels.kapi import (AddressSpace, AtomicRef, BarrierDivergenceError, Group, Item,
                            LocalAccessor, MemoryOrder, MemoryScope, NdItem, NdRange,
                            PrivateArray, Range, atomic_fence, call_kernel, group_barrier,
                            popcount, SubGroup, group_ballot, select_from_group)

__all__ = [
    "AddressSpace", "atomic_fence", "AtomicRef", "BarrierDivergenceError", "call_kernel",
    "Group", "group_barrier", "Item", "LocalAccessor", "MemoryOrder", "MemoryScope", "NdItem",
    "NdRange", "popcount", "PrivateArray", "Range", "select_from_group", "SubGroup",
    "group_ballot",
]
