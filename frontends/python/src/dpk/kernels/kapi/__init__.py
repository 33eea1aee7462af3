"""kapi-style kernel API: the names kernels use, and a pure-Python ``call_kernel``.

Users import it as ``dpk.kernel_api`` (``from dpk import kernel_api as kapi``), which gives the
same names as numba-dpex's ``numba_dpex.kernel_api``. The classes are the ones the compiler
understands, so one kernel runs compiled (``dpk.call_kernel``) and interpreted
(``kapi.call_kernel``, for debugging, barriers included). Imports only ``dpk._errors``: the
pure-Python execution needs neither the compiler nor the extension.
"""

from .atomic_ref import AtomicRef
from .barrier import BarrierDivergenceError, atomic_fence, group_barrier
from .bits import popcount
from .index_space_ids import Group, Item, NdItem
from .launcher import call_kernel
from .local_accessor import LocalAccessor
from .memory_enums import AddressSpace, MemoryOrder, MemoryScope
from .private_array import PrivateArray
from .ranges import NdRange, Range
from .sub_groups import SubGroup, group_ballot, select_from_group

__all__ = [
    "AddressSpace", "atomic_fence", "AtomicRef", "BarrierDivergenceError", "call_kernel",
    "Group", "group_barrier", "Item", "LocalAccessor", "MemoryOrder", "MemoryScope", "NdItem",
    "NdRange", "popcount", "PrivateArray", "Range", "select_from_group", "SubGroup",
    "group_ballot",
]
