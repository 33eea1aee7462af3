"""``group_barrier`` and ``atomic_fence``, and the barrier the pure-Python launcher uses."""

from __future__ import annotations

import threading

from ..._errors import DpkError
from .memory_enums import MemoryOrder, MemoryScope


class BarrierDivergenceError(DpkError):
    """Not every work-item of a group reached the same group_barrier (pure-Python mode)."""

    __module__ = "dpk.kernel_api"


class _GroupBarrier:
    """A reusable barrier for the work-items (threads) of one work-group.

    Unlike threading.Barrier it knows when a work-item has finished the kernel: a barrier that
    can then never complete (some items returned, the others wait) breaks at once with
    BarrierDivergenceError instead of hanging.
    """

    def __init__(self, parties):
        self._parties = parties
        self._alive = parties
        self._waiting = 0
        self._generation = 0
        self._broken = None
        self._cond = threading.Condition()

    def _break(self, reason):
        if self._broken is None:
            self._broken = reason
        self._cond.notify_all()

    def wait(self):
        with self._cond:
            if self._broken is not None:
                raise BarrierDivergenceError(self._broken)
            if self._alive < self._parties:
                self._break("group_barrier reached after some work-items of the group had "
                            "finished the kernel: barriers must be reached by every work-item")
                raise BarrierDivergenceError(self._broken)
            generation = self._generation
            self._waiting += 1
            if self._waiting == self._parties:
                self._waiting = 0
                self._generation += 1
                self._cond.notify_all()
                return
            while generation == self._generation and self._broken is None:
                self._cond.wait()
            if generation == self._generation:
                raise BarrierDivergenceError(self._broken)

    def item_finished(self):
        with self._cond:
            self._alive -= 1
            if self._waiting > 0:
                self._break("a work-item finished the kernel while others waited at a "
                            "group_barrier: barriers must be reached by every work-item")

    def abort(self, reason):
        with self._cond:
            self._break(reason)


def group_barrier(group, fence_scope=MemoryScope.WORK_GROUP):
    """Waits until every work-item of ``group`` has reached this barrier; memory written
    before it (with ``fence_scope``) is visible to the group after it."""
    barrier = getattr(group, "_barrier", None)
    if barrier is None:
        # Work-items of a group run one after another only when the kernel has no barrier; a
        # barrier reached anyway (e.g. through a helper) cannot be honoured then.
        raise DpkError("group_barrier called outside an NdRange kernel run by "
                       "kernel_api.call_kernel")
    barrier.wait()


def atomic_fence(memory_order=MemoryOrder.SEQ_CST, memory_scope=MemoryScope.DEVICE):
    """Orders memory accesses (``sycl::atomic_fence``). A no-op in the pure-Python mode, where
    every access is sequentially consistent."""
    return None
