"""The subscript launch syntax of numba-dppy and numba-dpex <= 0.20, kept for ported code:

    kernel[global_size](args)                       # an int, a tuple or a list of ints
    kernel[global_size, local_size](args)           # local_size: int/tuple/list, or
    kernel[global_size, dpk.DEFAULT_LOCAL_SIZE](args)   # DEFAULT_LOCAL_SIZE (or []): dpk chooses
    kernel[dpk.Range(...)](args)
    kernel[dpk.NdRange(global, local)](args)

As in numba-dppy, the subscript is read as ``(global_size, local_size)``: ``kernel[X, Y]`` (the
same Python value as ``kernel[(X, Y)]``) is a 1-D launch of X work-items in groups of Y, not a
2-D launch; write ``kernel[(X, Y), dpk.DEFAULT_LOCAL_SIZE]`` or ``kernel[dpk.Range(X, Y)]`` for
that. ``global_size[d]`` is the extent that ``get_global_id(d)`` runs over. The launch is
synchronous, as it was there; ``kernel[...]`` returns a ConfiguredKernel that can be kept and
called many times.

When dpk chooses the local size, a kernel that needs no work-groups (no local ids, barriers or
local memory, see work_items.refers_to) runs over a plain Range, and one that does runs over an
NdRange with work_items.choose_local_size's groups.
"""

from __future__ import annotations

import operator

from .._errors import InvalidRangeError, KernelTypeError
from .kapi import NdRange, Range
from .kapi.work_items import choose_local_size


def _extents(value, what, kernel_name):
    if isinstance(value, (list, tuple)):
        items = list(value)
    else:
        items = [value]
    try:
        extents = tuple(operator.index(v) for v in items)
    except TypeError:
        raise KernelTypeError(f"{kernel_name}[...]: the {what} must be an int or a tuple or list "
                              f"of ints, not {value!r}") from None
    if not 1 <= len(extents) <= 3:
        raise InvalidRangeError(f"{kernel_name}[...]: the {what} must have 1 to 3 dimensions, "
                                f"got {len(extents)}")
    return extents


def _is_default_local(value):
    return value is None or (isinstance(value, (list, tuple)) and len(value) == 0)


def launch_range(subscript, kernel_name, needs_groups):
    """The Range or NdRange that ``kernel[subscript]`` launches over. `needs_groups()` says
    whether the kernel needs work-groups (called only when dpk chooses the local size)."""
    if isinstance(subscript, (Range, NdRange)):
        return subscript
    if isinstance(subscript, (tuple, list)):
        if len(subscript) == 1:
            global_size, local_size = subscript[0], None
        elif len(subscript) == 2:
            global_size, local_size = subscript
        else:
            raise KernelTypeError(
                f"{kernel_name}[...] takes a global size and optionally a local size, got "
                f"{len(subscript)} values; for a {len(subscript)}-D launch write "
                f"{kernel_name}[({', '.join('n' for _ in subscript)}), dpk.DEFAULT_LOCAL_SIZE] "
                f"or {kernel_name}[dpk.Range(...)]")
        if isinstance(global_size, NdRange):
            raise KernelTypeError(f"{kernel_name}[...]: an NdRange is the whole launch "
                                  f"configuration: write {kernel_name}[nd_range](args)")
    else:
        global_size, local_size = subscript, None
    gsize = tuple(global_size) if isinstance(global_size, Range) else \
        _extents(global_size, "global size", kernel_name)
    if _is_default_local(local_size):
        global_range = Range(*gsize)
        if needs_groups():
            return NdRange(global_range, choose_local_size(gsize))
        return global_range
    lsize = _extents(local_size, "local size", kernel_name)
    if len(lsize) != len(gsize):
        raise InvalidRangeError(f"{kernel_name}[...]: the global size has {len(gsize)} "
                                f"dimensions but the local size has {len(lsize)}")
    return NdRange(gsize, lsize)


class ConfiguredKernel:
    """``kernel[global_size, local_size]``: a kernel with its launch range; calling it launches
    (synchronously) through ``call_kernel``."""

    __slots__ = ("kernel", "range", "_call")

    def __init__(self, kernel, index_range, call):
        self.kernel = kernel
        self.range = index_range
        self._call = call

    def __call__(self, *args):
        return self._call(self.kernel, self.range, *args)

    def __repr__(self):
        return f"<dpk.kernel {self.kernel.__name__}[{self.range!r}]>"
