"""Launch ranges: ``Range`` (a 1-3 D index space) and ``NdRange`` (global range + work-group).

Dimension 0 is the slowest varying: linear ids are row-major, as in SYCL and kapi.
"""

from __future__ import annotations

import operator

from ..._errors import InvalidRangeError
from ..._runtime.launch import NdRangeBase


def _as_extent(value, what):
    try:
        extent = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} of a Range must be an int, not {type(value).__name__}") from None
    if extent < 0:
        raise InvalidRangeError(f"{what} of a Range must not be negative, got {extent}")
    return extent


class Range(tuple):
    """A 1, 2 or 3 dimensional index space (``sycl::range``); a tuple of ints. An extent of 0
    makes an empty index space: a launch over it runs no work-item (as in SYCL and kapi)."""

    UNDEFINED_DIMENSION = -1

    def __new__(cls, dim0, dim1=None, dim2=None):
        extents = [_as_extent(dim0, "dim0")]
        if dim1 is not None:
            extents.append(_as_extent(dim1, "dim1"))
            if dim2 is not None:
                extents.append(_as_extent(dim2, "dim2"))
        elif dim2 is not None:
            raise TypeError("a Range with dim2 needs dim1")
        return super().__new__(cls, extents)

    def get(self, index):
        """The extent of dimension ``index``."""
        return self[index]

    def size(self):
        """The number of points: the product of the extents."""
        total = 1
        for extent in self:
            total *= extent
        return total

    @property
    def ndim(self) -> int:
        return len(self)

    @property
    def dim0(self) -> int:
        return self[0]

    @property
    def dim1(self) -> int:
        return self[1] if len(self) > 1 else Range.UNDEFINED_DIMENSION

    @property
    def dim2(self) -> int:
        return self[2] if len(self) > 2 else Range.UNDEFINED_DIMENSION

    def __repr__(self):
        return f"Range{tuple(self)}"


def _as_range(value, what):
    if isinstance(value, Range):
        return value
    if isinstance(value, int):
        return Range(value)
    try:
        return Range(*value)
    except TypeError as exc:
        raise TypeError(f"NdRange {what} must be a Range or an iterable of ints ({exc})") from None


class NdRange(NdRangeBase):
    """A global range split into work-groups of ``local_size`` (``sycl::nd_range``).

    Raises InvalidRangeError (a ValueError) when the ranks differ or a local extent does not
    divide the global one. Its base is the type the launch fast path knows (dpk._runtime.launch).
    """

    __slots__ = ()

    def __init__(self, global_size, local_size):
        self._global_range = _as_range(global_size, "global_size")
        self._local_range = _as_range(local_size, "local_size")
        if len(self._global_range) != len(self._local_range):
            raise InvalidRangeError(
                f"NdRange: the global range has {len(self._global_range)} dimensions but the "
                f"local range has {len(self._local_range)}")
        for dim, (g, l) in enumerate(zip(self._global_range, self._local_range)):
            if l < 1:
                raise InvalidRangeError(f"NdRange: the local size of dimension {dim} is {l}; a "
                                        "work-group has at least one work-item per dimension")
            if g % l != 0:
                raise InvalidRangeError(
                    f"NdRange: in dimension {dim} the local size {l} does not divide the global "
                    f"size {g}")

    @property
    def global_range(self) -> Range:
        return self._global_range

    @property
    def local_range(self) -> Range:
        return self._local_range

    def get_global_range(self) -> Range:
        return self._global_range

    def get_local_range(self) -> Range:
        return self._local_range

    @property
    def ndim(self) -> int:
        return len(self._global_range)

    def __eq__(self, other):
        return (isinstance(other, NdRange) and self._global_range == other._global_range
                and self._local_range == other._local_range)

    def __hash__(self):
        return hash((self._global_range, self._local_range))

    def __repr__(self):
        return f"NdRange({tuple(self._global_range)}, {tuple(self._local_range)})"

    __str__ = __repr__
