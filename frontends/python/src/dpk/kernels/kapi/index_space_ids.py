"""Work-item and work-group identities: ``Item``, ``NdItem`` and ``Group``.

Inside a compiled kernel these are replaced by builtins; in the pure-Python mode of
``kernel_api.call_kernel`` they are real objects built per work-item.
"""

from __future__ import annotations

from .ranges import Range
from .sub_groups import SubGroup


def _linear(index, extent):
    linear = 0
    for i, e in zip(index, extent):
        linear = linear * e + i
    return linear


def _product(extent):
    total = 1
    for e in extent:
        total *= e
    return total


class Group:
    """The work-group a work-item belongs to (``sycl::group``)."""

    __slots__ = ("_global_range", "_local_range", "_group_range", "_index", "_leader",
                 "_barrier", "_local_store")

    def __init__(self, global_range, local_range, group_range, index):
        self._global_range = global_range
        self._local_range = local_range
        self._group_range = group_range
        self._index = tuple(index)
        self._leader = False
        self._barrier = None  # set by the pure-Python launcher for kernels with barriers
        # Shared by the work-items of one group: the OpenCL-style local.array allocations of
        # the pure-Python mode, one per call site (set by the launcher).
        self._local_store = None

    def get_group_id(self, dim):
        """The work-group's index in dimension ``dim``."""
        return self._index[dim]

    def get_group_linear_id(self):
        """The work-group's row-major linear index."""
        return _linear(self._index, self._group_range)

    def get_group_range(self, dim=None):
        """The number of work-groups: a Range, or its extent in ``dim`` when given."""
        if dim is None:
            return Range(*self._group_range)
        return self._group_range[dim]

    def get_group_linear_range(self):
        """The total number of work-groups."""
        return _product(self._group_range)

    def get_local_range(self, dim=None):
        """The work-group's shape: a Range, or its extent in ``dim`` when given."""
        if dim is None:
            return Range(*self._local_range)
        return self._local_range[dim]

    def get_local_linear_range(self):
        """The number of work-items in the work-group."""
        return _product(self._local_range)

    @property
    def leader(self):
        """True for exactly one work-item of the group: the one with local id 0."""
        return self._leader

    @leader.setter
    def leader(self, value):
        self._leader = value

    @property
    def dimensions(self) -> int:
        """The number of dimensions of the launch (a property, as in numba-dpex)."""
        return len(self._index)

    @property
    def ndim(self) -> int:
        return len(self._index)


class Item:
    """A point of a ``Range`` launch (``sycl::item``)."""

    __slots__ = ("_extent", "_index")

    def __init__(self, extent, index):
        self._extent = extent
        self._index = tuple(index)

    def get_id(self, idx):
        """The work-item's index in dimension ``idx``."""
        return self._index[idx]

    def get_linear_id(self):
        """The row-major linear index (dimension 0 slowest varying)."""
        return _linear(self._index, self._extent)

    def get_range(self, idx):
        """The extent of the launch in dimension ``idx``."""
        return self._extent[idx]

    def get_linear_range(self):
        """The number of work-items of the launch."""
        return _product(self._extent)

    @property
    def dimensions(self) -> int:
        """The number of dimensions of the launch (a property, as in numba-dpex)."""
        return len(self._extent)

    @property
    def ndim(self) -> int:
        return len(self._extent)


class NdItem:
    """A work-item of an ``NdRange`` launch (``sycl::nd_item``)."""

    __slots__ = ("_global_item", "_local_item", "_group")

    def __init__(self, global_item, local_item, group):
        self._global_item = global_item
        self._local_item = local_item
        self._group = group

    def get_global_id(self, idx):
        return self._global_item.get_id(idx)

    def get_global_linear_id(self):
        return self._global_item.get_linear_id()

    def get_local_id(self, idx):
        return self._local_item.get_id(idx)

    def get_local_linear_id(self):
        return self._local_item.get_linear_id()

    def get_global_range(self, idx):
        return self._global_item.get_range(idx)

    def get_local_range(self, idx):
        return self._local_item.get_range(idx)

    def get_global_linear_range(self):
        return self._global_item.get_linear_range()

    def get_local_linear_range(self):
        return self._local_item.get_linear_range()

    def get_group(self):
        """The work-item's Group."""
        return self._group

    def get_group_linear_id(self):
        return self._group.get_group_linear_id()

    def get_sub_group(self):
        """The work-item's SubGroup (a dpk extension; in pure Python every work-item is one)."""
        return SubGroup(self.get_local_linear_id(), self.get_local_linear_range())

    @property
    def dimensions(self) -> int:
        """The number of dimensions of the launch (a property, as in numba-dpex)."""
        return self._global_item.ndim

    @property
    def ndim(self) -> int:
        return self._global_item.ndim
