"""Launches on a queue the caller made: ``call_kernel(..., queue=q)`` and
``call_kernel_async(..., queue=q)`` with a ``dpk.Queue``.

Each (queue, kernel) pair gets a Launcher of its own (kept by the queue, weakly keyed by the
kernel), whose plans are the kernel's usual plans with the queue's device as the current device
and the queue in place of the device's own queue, so a warm launch on a queue is as fast as any.
The queue fixes the device: a dpk array of another device, or a kernel bound to another device
with ``device=``, is a PlacementError naming both.

Launches that dpk has to stage (NumPy arrays on a device that cannot read host memory, foreign
arrays, OpenCL-style kernels that need work-groups over a Range) keep their own path on the
device's queue: they start after everything submitted to ``q`` and have finished when the call
returns (so their events do not time the kernel alone).
"""

from __future__ import annotations

import functools
import weakref

from .._core_loader import core
from .._errors import PlacementError
from .._runtime.devices import Queue, select_device
from .._runtime.launch import register_launch_types
from ..arrays.array_object import devices_of


def _check_device(dispatcher, queue, args):
    device = queue.device
    for found in devices_of(args):
        if found is not device:
            raise PlacementError(f"kernel {dispatcher.__name__}(): the launch's queue is on "
                                 f"{device.filter_string}, but an array argument lives on "
                                 f"{found.filter_string} (move it with x.to_device(...))")
    if dispatcher._device is not None:
        bound = select_device(dispatcher._device)
        if bound is not device:
            raise PlacementError(f"kernel {dispatcher.__name__}() is bound to "
                                 f"{bound.filter_string} but was given a queue on "
                                 f"{device.filter_string}")


def _after_queue(queue, slow, index_range, args, deps, is_async):
    """A staged launch ordered after the queue's work, finished when it returns."""
    queue.synchronize()
    event = slow(index_range, args, deps, is_async)
    if event is not None:
        event.wait()
    return event


class _QueueMiss:
    """The miss handler of a queue's launcher: the dispatcher's plan for the queue's device,
    with the queue in it. Holds both weakly (the queue owns the launcher)."""

    __slots__ = ("_dispatcher", "_queue")

    def __init__(self, dispatcher, queue):
        self._dispatcher = weakref.ref(dispatcher)
        self._queue = weakref.ref(queue)

    def __call__(self):
        dispatcher, queue = self._dispatcher(), self._queue()
        if dispatcher is None or queue is None:
            return None
        return functools.partial(_plan, dispatcher, queue)


def _plan(dispatcher, queue, index_range, args):
    _check_device(dispatcher, queue, args)
    plan = dispatcher._miss(index_range, args, context_device=queue.device)
    if isinstance(plan[0], str):  # a staged launch
        return ("slow", functools.partial(_after_queue, queue, plan[1]))
    kernel, _, kinds = plan
    return (kernel, queue._native, kinds)


def launcher_for(dispatcher, queue):
    """The Launcher of `dispatcher`'s launches on `queue`."""
    if not isinstance(queue, Queue):
        raise TypeError(f"queue must be a dpk.Queue, not {type(queue).__name__}")
    launchers = queue._launchers
    if launchers is None:
        launchers = queue._launchers = weakref.WeakKeyDictionary()
    launcher = launchers.get(dispatcher)
    if launcher is None:
        register_launch_types()
        launcher = launchers[dispatcher] = core().Launcher(_QueueMiss(dispatcher, queue))
    return launcher
