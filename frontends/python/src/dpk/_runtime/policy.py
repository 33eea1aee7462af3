"""What the runtime's policy says when a launch must choose between devices: whether arrays of
several devices are an error or are migrated (``placement.mixed_devices``, DPK_MIXED_DEVICES),
and which of several devices comes first (the order of ``dpk.get_devices()``, i.e. the
policy's ``devices.prefer``). Every programming model asks here; what it does with the answer
(the kernels' launches: dpk.kernels.placement) is its own.
"""

from __future__ import annotations

from .._core_loader import core
from .devices import get_devices, select_device


def mixed_devices_mode():
    """('error' | 'migrate', where it was set) from the runtime's policy."""
    return core().placement_policy()


def target_device(found, bound=None):
    """The device a migrating launch runs on: the kernel's bound device if it has one, else the
    arrays' device that comes first in the policy's device order."""
    if bound is not None:
        return select_device(bound)
    order = {id(d): i for i, d in enumerate(get_devices())}
    return min(found, key=lambda d: order.get(id(d), len(order)))
