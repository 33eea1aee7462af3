"""What every programming model launches with: the C++ launch fast path (``dpk._core.Launcher``)
and the one range type it recognises as an NdRange.

The Launcher reads a launch range as a tuple (a Range launch) or as an instance of the type
registered with ``set_launch_types`` (an NdRange launch, read through its ``_global_range`` and
``_local_range`` attributes). The registration is process-wide, so it names ``NdRangeBase``,
which kapi's ``dpk.NdRange`` and the array layer's internal ranges both derive from: kernels and
generated array kernels launch through the same fast path without knowing each other.
"""

from __future__ import annotations

import threading

from .._core_loader import core

_registered = False
_lock = threading.Lock()


class NdRangeBase:
    """A global range split into work-groups: tuples of 1 to 3 extents each, dimension 0 the
    slowest varying. Subclasses validate (kapi's NdRange); this base only carries the two."""

    __slots__ = ("_global_range", "_local_range")

    def __init__(self, global_size, local_size):
        self._global_range = tuple(global_size)
        self._local_range = tuple(local_size)


def register_launch_types():
    """Registers NdRangeBase with the extension's launch fast path (once per process)."""
    global _registered
    if _registered:
        return
    with _lock:
        if not _registered:
            core().set_launch_types(NdRangeBase)
            _registered = True


def make_launcher(miss):
    """A ``dpk._core.Launcher`` whose misses call ``miss()(range, args)`` (``miss`` is usually a
    weak reference to the handler, which owns the launcher)."""
    register_launch_types()
    return core().Launcher(miss)
