"""kapi-style kernel API: the names kernels use, and a pure-Python ``call_kernel``.

``from dpk import kernel_api as kapi`` gives the same names as numba-dpex's
``numba_dpex.kernel_api``, plus ``popcount``. The classes are the ones the compiler understands,
so one kernel runs compiled (``dpk.call_kernel``) and interpreted (``kapi.call_kernel``, for
debugging, barriers included). The public name of dpk.kernels.kapi, where the code lives.
"""

from ..kernels.kapi import (AddressSpace, AtomicRef, BarrierDivergenceError, Group, Item,
                            LocalAccessor, MemoryOrder, MemoryScope, NdItem, NdRange,
                            PrivateArray, Range, atomic_fence, call_kernel, group_barrier,
                            popcount)

__all__ = [
    "AddressSpace", "atomic_fence", "AtomicRef", "BarrierDivergenceError", "call_kernel",
    "Group", "group_barrier", "Item", "LocalAccessor", "MemoryOrder", "MemoryScope", "NdItem",
    "NdRange", "popcount", "PrivateArray", "Range",
]
