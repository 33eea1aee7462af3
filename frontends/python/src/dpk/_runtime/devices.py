"""Devices and queues: the Python view of dpk's C runtime.

A Device is selected with a dpctl-style filter string ("host", "opencl:cpu", "cuda:gpu:0",
"gpu,cpu", "!opencl:*"); "" or None means the policy's default (the DPK_DEVICE_SELECTOR
environment variable or the policy file decide). One in-order queue per device serves every
launch and copy on it.

``device_context(device)`` (dpctl's name) makes a device current in a ``with`` block: launches
whose arguments place them on no device, array creation without ``device=`` and jit functions
use it. Contexts nest, and each thread has its own (a thread starts with none).
``get_current_device()`` is the innermost context's device, else the policy's default.
"""

from __future__ import annotations

import contextlib
import threading

from .._core_loader import core

_DEVICE_TYPES = {1: "cpu", 2: "gpu", 3: "accelerator"}
_lock = threading.RLock()
_by_handle = {}
_by_filter = {}


class Device:
    """A dpk device. Equal devices are the same object."""

    __slots__ = ("_dev", "_queue", "__weakref__")

    def __init__(self, native):
        self._dev = native
        self._queue = None

    @property
    def backend(self) -> str:
        return self._dev.backend

    @property
    def name(self) -> str:
        return self._dev.name

    @property
    def vendor(self) -> str:
        return self._dev.vendor

    @property
    def filter_string(self) -> str:
        return self._dev.filter_string

    @property
    def ordinal(self) -> int:
        """The index in the canonical filter string ("cuda:gpu:1" -> 1): the device's place
        among the devices of its backend and type. The CUDA plugin reports devices by CUDA
        ordinal, so for CUDA devices this is the ordinal DLPack's device id names."""
        return int(self._dev.filter_string.rsplit(":", 1)[-1])

    @property
    def device_type(self) -> str:
        return _DEVICE_TYPES.get(self._dev.device_type, "unknown")

    @property
    def is_host(self) -> bool:
        """The host backend runs kernels in this process: it reads NumPy memory directly."""
        return self._dev.backend == "host"

    @property
    def max_work_group_size(self) -> int:
        return self._dev.max_work_group_size

    @property
    def local_mem_size(self) -> int:
        return self._dev.local_mem_size

    @property
    def has_fp64(self) -> bool:
        return bool(self._dev.aspects & 1)

    @property
    def queue(self):
        """The device's in-order queue (created on first use)."""
        if self._queue is None:
            with _lock:
                if self._queue is None:
                    self._queue = core().Queue(self._dev)
        return self._queue

    def synchronize(self):
        """Waits for every command submitted to this device."""
        if self._queue is not None:
            self._queue.wait()

    def __repr__(self):
        return f"<dpk.Device {self.filter_string} ({self.name})>"


def _wrap(native):
    with _lock:
        device = _by_handle.get(native.handle)
        if device is None:
            device = _by_handle[native.handle] = Device(native)
        return device


def get_devices():
    """Every device the policy allows, in its preference order."""
    c = core()
    return [_wrap(c.get_device(i)) for i in range(c.device_count())]


def select_device(filter_string=None) -> Device:
    """The best device for a filter string; a Device passes through. None or "" is the policy's
    default device (the host when nothing matches and the policy's fallback allows it). A filter
    that matches no device raises NoDeviceError listing the devices present (PluginLoadError when
    it names a backend whose plugin failed to load); asking which device exists is not a launch,
    so no fallback applies."""
    if isinstance(filter_string, Device):
        return filter_string
    if filter_string is not None and not isinstance(filter_string, str):
        raise TypeError(f"a device is a dpk.Device or a filter string, not "
                        f"{type(filter_string).__name__}")
    key = filter_string or ""
    device = _by_filter.get(key)
    if device is None:
        device = _wrap(core().select_device(key))
        _by_filter[key] = device
    return device


def default_device() -> Device:
    return select_device(None)


# ---- the current device (device_context) ------------------------------------------------------

class _DeviceContextStack(threading.local):
    """Per thread: the devices of the enclosing ``device_context`` blocks, innermost last.

    A class attribute gives every thread an empty stack without a failed attribute lookup: the
    launch path reads it on every call, and ``getattr(local, name, None)`` on a missing name
    builds and discards an AttributeError each time (about 0.2 us per launch)."""
    stack = ()


_context = _DeviceContextStack()


def context_device():
    """The device of the innermost ``device_context`` of this thread, or None outside one."""
    stack = _context.stack
    return stack[-1] if stack else None


def get_current_device() -> Device:
    """The device of the innermost ``device_context`` of this thread, else the policy's
    default device."""
    return context_device() or default_device()


@contextlib.contextmanager
def device_context(device):
    """``with dpk.device_context("opencl:cpu") as dev:``: `device` (a Device or a filter string)
    is the current device of this thread inside the block. Arrays created without ``device=``
    go there, and so do launches whose arguments name no device (NumPy arrays and numbers
    only); dpk arrays still place a launch on their own device, and a kernel bound with
    ``device=`` keeps its device."""
    selected = select_device(device)
    if not isinstance(_context.stack, list):  # this thread's first block: its own list
        _context.stack = []
    stack = _context.stack
    stack.append(selected)
    try:
        yield selected
    finally:
        stack.pop()


def has_device(filter_string) -> bool:
    """Whether a device the policy allows matches `filter_string`, read by the runtime's own
    filter parser (the grammar of DPK_DEVICE_SELECTOR and select_device: "gpu,cpu", "HOST",
    "opencl:cpu:1", "!opencl:*"). No fallback: a filter nothing matches is False. A malformed
    filter raises ParseError, which points at the bad part and suggests a spelling."""
    if filter_string is None:
        filter_string = ""
    if not isinstance(filter_string, str):
        raise TypeError(f"has_device expects a filter string, not {type(filter_string).__name__}")
    return bool(core().matching_devices(filter_string))
