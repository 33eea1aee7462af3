"""Sub-groups: ``NdItem.get_sub_group()``, ``group_ballot`` and ``select_from_group``.

A dpk extension of the kapi names (SYCL 2020's ``sub_group``, ``select_from_group`` and the oneAPI
``group_ballot``), for kernels that rank or exchange values within a warp. A sub-group is a run
of at most 32 work-items of one work-group, consecutive in local linear id, of a size the device's
compiler target picks: 32 on CUDA (the warp), 1 on every other device today (docs/kernels.md,
"Sub-groups"). Code written against ``get_local_range()`` is correct for any size. Ballots and
selections are collective: every work-item of the sub-group must call them together.

In the pure-Python mode of ``call_kernel`` every work-item is a sub-group of one, as on the host.
"""

from __future__ import annotations

import numpy as np


class SubGroup:
    """The sub-group a work-item belongs to (``sycl::sub_group``)."""

    __slots__ = ("_index", "_count")

    def __init__(self, index, count):
        self._index = index  # the sub-group's index within its work-group
        self._count = count  # sub-groups per work-group

    def get_local_id(self):
        """The work-item's lane within its sub-group, 0 .. get_local_range() - 1."""
        return 0

    def get_local_range(self):
        """The sub-group size of this kernel on this device (at most 32)."""
        return 1

    def get_group_id(self):
        """The sub-group's index within its work-group."""
        return self._index

    def get_group_range(self):
        """The number of sub-groups per work-group."""
        return self._count

    # The linear spellings SYCL also has (a sub-group is 1-D).
    get_local_linear_id = get_local_id
    get_local_linear_range = get_local_range
    get_max_local_range = get_local_range
    get_group_linear_id = get_group_id
    get_group_linear_range = get_group_range


def group_ballot(sub_group, predicate):
    """A uint32 mask with bit ``l`` set when lane ``l``'s predicate is true."""
    if not isinstance(sub_group, SubGroup):
        raise TypeError("group_ballot() takes the SubGroup of an NdItem (nd_item.get_sub_group())")
    return np.uint32(1 if predicate else 0)


def select_from_group(sub_group, value, lane):
    """``value`` as lane ``lane % get_local_range()`` of the sub-group holds it."""
    if not isinstance(sub_group, SubGroup):
        raise TypeError("select_from_group() takes the SubGroup of an NdItem "
                        "(nd_item.get_sub_group())")
    return value
