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
from .._errors import InvalidArgumentError, NoDeviceError

_DEVICE_TYPES = {1: "cpu", 2: "gpu", 3: "accelerator"}
# DPK_ASPECT_* and DPK_FORMAT_* of include/dpk/dpk_types.h.
_ASPECTS = {"fp64": 1 << 0, "fp16": 1 << 1, "atomic64": 1 << 2, "usm_device": 1 << 3,
            "usm_shared": 1 << 4, "usm_host": 1 << 5, "peer_copy": 1 << 6}
_FORMATS = {"host-native": 1 << 0, "spirv": 1 << 1, "opencl-c": 1 << 2, "ptx": 1 << 3}
_BACKENDS = ("host", "opencl", "level_zero", "cuda")
_lock = threading.RLock()
_by_handle = {}
_by_filter = {}


class Device:
    """A dpk device. Equal devices are the same object."""

    __slots__ = ("_dev", "_queue", "_is_host", "_has_fp64", "_device_type", "__weakref__")

    def __init__(self, native):
        self._dev = native
        self._queue = None
        # Fixed facts every array operation asks for, read from the native device once (each
        # read through the extension costs a call, and a string one a new str).
        self._is_host = native.backend == "host"
        self._has_fp64 = bool(native.aspects & _ASPECTS["fp64"])
        self._device_type = _DEVICE_TYPES.get(native.device_type, "unknown")

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
        return self._device_type

    @property
    def is_host(self) -> bool:
        """The host backend runs kernels in this process: it reads NumPy memory directly."""
        return self._is_host

    @property
    def max_work_group_size(self) -> int:
        return self._dev.max_work_group_size

    @property
    def local_mem_size(self) -> int:
        return self._dev.local_mem_size

    @property
    def has_fp64(self) -> bool:
        return self._has_fp64

    @property
    def sub_group_size(self) -> int:
        """The size of the sub-groups of dpk kernels on this device (``NdItem.get_sub_group()``):
        32 where dpk compiles to PTX (CUDA's warps), 1 elsewhere (docs/ir.md, "Sub-groups"), as
        the core answers it (``dpk_device_get_sub_group_size``: it follows the compile target
        the core picks for the device)."""
        return self._dev.sub_group_size

    # ---- what the C API's dpk_device_info_t says, under dpctl's names --------------------------

    @property
    def max_compute_units(self) -> int:
        """Compute units (CPU cores or hardware threads, GPU SMs/EUs/CUs), as the backend
        counts them."""
        return self._dev.compute_units

    compute_units = max_compute_units

    @property
    def global_mem_size(self) -> int:
        """Bytes of global memory (for CPU devices: the host's memory)."""
        return self._dev.global_mem_size

    @property
    def max_work_item_sizes(self) -> tuple:
        """The largest work-group extent per dimension, in the backend's order (OpenCL/CUDA:
        the fastest-varying dimension first)."""
        return tuple(self._dev.max_work_item_sizes)

    @property
    def driver_version(self) -> str:
        return self._dev.driver_version

    @property
    def artifact_formats(self) -> tuple:
        """The kernel formats the backend accepts ("host-native", "spirv", "opencl-c",
        "ptx")."""
        return tuple(name for name, bit in _FORMATS.items() if self._dev.formats & bit)

    @property
    def aspects(self) -> tuple:
        """The device's aspects by name ("fp64", "fp16", "atomic64", "usm_device",
        "usm_shared", "usm_host", "peer_copy")."""
        return tuple(name for name, bit in _ASPECTS.items() if self._dev.aspects & bit)

    @property
    def has_aspect_fp64(self) -> bool:
        return self.has_fp64

    @property
    def has_aspect_fp16(self) -> bool:
        return bool(self._dev.aspects & _ASPECTS["fp16"])

    has_fp16 = has_aspect_fp16

    @property
    def has_aspect_atomic64(self) -> bool:
        return bool(self._dev.aspects & _ASPECTS["atomic64"])

    @property
    def has_aspect_usm_device_allocations(self) -> bool:
        return bool(self._dev.aspects & _ASPECTS["usm_device"])

    @property
    def has_aspect_usm_shared_allocations(self) -> bool:
        """Unified (shared) memory: one allocation dereferenceable on host and device."""
        return bool(self._dev.aspects & _ASPECTS["usm_shared"])

    has_unified_memory = has_aspect_usm_shared_allocations

    @property
    def has_aspect_usm_host_allocations(self) -> bool:
        return bool(self._dev.aspects & _ASPECTS["usm_host"])

    def device_info(self) -> dict:
        """Every property above, by name (what print_device_info prints)."""
        return {"name": self.name, "vendor": self.vendor, "driver_version": self.driver_version,
                "backend": self.backend, "device_type": self.device_type,
                "filter_string": self.filter_string,
                "max_compute_units": self.max_compute_units,
                "global_mem_size": self.global_mem_size, "local_mem_size": self.local_mem_size,
                "max_work_group_size": self.max_work_group_size,
                "max_work_item_sizes": self.max_work_item_sizes,
                "aspects": self.aspects, "artifact_formats": self.artifact_formats}

    def print_device_info(self, file=None):
        """Prints the device's properties, one per line (dpctl's print_device_info)."""
        info = self.device_info()
        width = max(len(k) for k in info)
        for key, value in info.items():
            if isinstance(value, tuple) and value and isinstance(value[0], str):
                value = ", ".join(value)
            elif key.endswith("mem_size"):
                value = f"{value} ({value / 2**20:.1f} MiB)"
            print(f"{key + ':':<{width + 1}} {value}", file=file)

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

    def __reduce__(self):
        """Pickled as its filter string: unpickling selects that device in the receiving
        process (NoDeviceError naming the filter when it has none)."""
        return (_unpickle_device, (self.filter_string,))


# DPK_QUEUE_* of frontends/c/include/dpk/dpk.h.
_QUEUE_OUT_OF_ORDER = 1 << 0
_QUEUE_PROFILING = 1 << 1


class Queue:
    """A command queue of one device, as dpctl's ``SyclQueue``: ``dpk.Queue(device,
    in_order=True, enable_profiling=False)``. ``call_kernel(..., queue=q)`` and
    ``call_kernel_async(..., queue=q)`` submit to it; events of a queue made with
    ``enable_profiling=True`` report their device time (``event.elapsed_ns()``). Wherever a
    device is expected (``device=`` of array creation), a queue stands for its device.

    ``device`` is a Device, a filter string, or None (the current device, see
    ``device_context``). Arrays are read and written through their device's own queue, so work
    submitted here asynchronously must have finished (``event.wait()``,
    ``q.synchronize()``) before its arrays are read back."""

    __slots__ = ("_native", "_device", "_flags", "_launchers", "_foreign", "__weakref__")

    def __init__(self, device=None, in_order=True, enable_profiling=False):
        self._device = get_current_device() if device is None else select_device(device)
        self._flags = (0 if in_order else _QUEUE_OUT_OF_ORDER) | \
            (_QUEUE_PROFILING if enable_profiling else 0)
        self._native = core().Queue(self._device._dev, self._flags)
        self._launchers = None  # kernel -> its Launcher for this queue (dpk.kernels)
        self._foreign = None  # the foreign stream object a from_cuda_stream queue runs on

    @classmethod
    def from_cuda_stream(cls, stream, device=None):
        """A dpk queue whose commands go to a CUDA stream another library made, so that they
        run in that stream's order with the library's own work: ``stream`` is a CUstream
        handle (an int), an object with the ``__cuda_stream__`` protocol (CUDA Python, CuPy
        13+, PyTorch 2.6+), a CuPy ``Stream``/``ExternalStream`` (``.ptr``), a PyTorch
        ``torch.cuda.Stream`` (``.cuda_stream``) or a Numba stream (``.handle``). ``device``:
        the stream's CUDA device (default: the one the stream object names, else the current
        device if it is a CUDA device, else the first CUDA device). The stream is borrowed: the
        queue keeps the stream object alive and never destroys the stream; a stream of another
        device or context is InvalidArgumentError. Stream 0 (the legacy default stream) is
        refused, as DLPack and the CUDA Array Interface do: pass a stream of your own."""
        handle, hinted = cuda_stream_handle(stream)
        if device is not None:
            dev = select_device(device)
        elif hinted is not None:
            dev = select_device(f"cuda:gpu:{hinted}")
        else:
            current = context_device()
            dev = current if current is not None and current.backend == "cuda" \
                else select_device("cuda:gpu")
        if dev.backend != "cuda":
            raise InvalidArgumentError(f"Queue.from_cuda_stream: {dev.filter_string} is not a "
                                       "CUDA device")
        self = cls.__new__(cls)
        self._device = dev
        self._flags = 0
        self._native = core().Queue.from_native(dev._dev, _NATIVE_API_CUDA, handle, stream)
        self._launchers = None
        self._foreign = stream
        return self

    def native_handles(self) -> dict:
        """The native handles behind this queue (``dpk_queue_get_native``) as integers: ``api``
        (1 host, 2 OpenCL, 3 Level Zero, 4 CUDA), ``queue`` (the cl_command_queue, CUstream or
        command list), ``context``, ``device``, ``platform``, and ``memory``/``order`` (how
        native code uses dpk's addresses and keeps its work in order; docs/extensions.md)."""
        return self._native.native_handles()

    @property
    def __cuda_stream__(self):
        """The ``__cuda_stream__`` protocol for queues of CUDA devices: ``q.__cuda_stream__()``
        is ``(0, CUstream handle)``, so CuPy (``cupy.cuda.ExternalStream``), PyTorch and CUDA
        Python can order their work on dpk's stream. Other queues have no such attribute."""
        if self._device.backend != "cuda":
            raise AttributeError(f"__cuda_stream__: {self._device.filter_string} is not a CUDA "
                                 "device")
        handle = self._native.native_handles()["queue"]
        return lambda: (0, handle)

    @property
    def device(self) -> "Device":
        return self._device

    sycl_device = device

    @property
    def is_in_order(self) -> bool:
        return not self._flags & _QUEUE_OUT_OF_ORDER

    @property
    def has_enable_profiling(self) -> bool:
        return bool(self._flags & _QUEUE_PROFILING)

    def synchronize(self):
        """Waits for every command submitted to this queue; raises the first one's error."""
        self._native.wait()

    wait = synchronize

    def __repr__(self):
        props = [] if self.is_in_order else ["out of order"]
        if self.has_enable_profiling:
            props.append("profiling")
        extra = f" ({', '.join(props)})" if props else ""
        return f"<dpk.Queue on {self._device.filter_string}{extra}>"

    def __reduce__(self):
        """Pickled as its device and properties: unpickling makes a new queue like it. A queue
        over a foreign CUDA stream does not pickle (the stream is this process's)."""
        if self._foreign is not None:
            raise TypeError("a dpk.Queue over a foreign CUDA stream cannot be pickled: the stream "
                            "belongs to this process")
        return (Queue, (self._device, self.is_in_order, self.has_enable_profiling))


_NATIVE_API_CUDA = 4  # DPK_NATIVE_API_CUDA


def cuda_stream_handle(stream):
    """(CUstream handle as an int, the CUDA device ordinal the object names or None) of the
    stream objects Queue.from_cuda_stream takes."""
    if isinstance(stream, bool):
        raise TypeError("Queue.from_cuda_stream: expected a CUDA stream, not a bool")
    if isinstance(stream, int):
        handle, device = stream, None
    elif hasattr(stream, "__cuda_stream__"):
        protocol = stream.__cuda_stream__()
        if not (isinstance(protocol, tuple) and len(protocol) == 2 and protocol[0] == 0):
            raise TypeError(f"Queue.from_cuda_stream: __cuda_stream__() returned {protocol!r}, "
                            "not (0, handle)")
        handle, device = int(protocol[1]), None
    elif hasattr(stream, "cuda_stream"):  # torch.cuda.Stream
        handle = int(stream.cuda_stream)
        device = getattr(getattr(stream, "device", None), "index", None)
    elif hasattr(stream, "ptr"):  # cupy.cuda.Stream / ExternalStream
        handle = int(stream.ptr)
        device = getattr(stream, "device_id", None)
    elif hasattr(stream, "handle"):  # numba.cuda stream (a ctypes c_void_p)
        raw = stream.handle
        handle = int(getattr(raw, "value", raw) or 0)
        device = None
    else:
        raise TypeError(f"Queue.from_cuda_stream: {type(stream).__name__} is not a CUDA stream "
                        "(an int handle, __cuda_stream__, CuPy, PyTorch or Numba stream)")
    if handle == 0:
        raise InvalidArgumentError("Queue.from_cuda_stream: stream 0 (the legacy default stream) "
                                   "is ambiguous; pass a stream of your own")
    if device is not None and device < 0:
        device = None
    return handle, device


def _unpickle_device(filter_string):
    try:
        return select_device(filter_string)
    except NoDeviceError as exc:
        raise NoDeviceError(f"cannot unpickle dpk.Device '{filter_string}': this process has "
                            f"no such device ({exc})") from None


def _wrap(native):
    with _lock:
        device = _by_handle.get(native.handle)
        if device is None:
            device = _by_handle[native.handle] = Device(native)
        return device


def _choice(value, what, accepted):
    """A lower-case name from a string or an enum-like value (its ``name``); "all" and None
    mean any."""
    if value is None:
        return None
    name = getattr(value, "name", value)
    if not isinstance(name, str):
        raise TypeError(f"get_devices: {what} must be a string, not {type(value).__name__}")
    name = name.lower()
    if name == "all":
        return None
    if name not in accepted:
        raise ValueError(f"get_devices: unknown {what} {value!r} (accepted: "
                         f"{', '.join(accepted + ('all',))})")
    return name


def get_devices(backend="all", device_type="all"):
    """The devices the policy allows, in its preference order; as dpctl's ``get_devices``,
    optionally only those of one backend ("host", "opencl", "level_zero", "cuda") and one
    device type ("cpu", "gpu", "accelerator"); "all" (the default) takes any."""
    backend = _choice(backend, "backend", _BACKENDS)
    device_type = _choice(device_type, "device type", tuple(_DEVICE_TYPES.values()))
    c = core()
    devices = [_wrap(c.get_device(i)) for i in range(c.device_count())]
    return [d for d in devices
            if (backend is None or d.backend == backend)
            and (device_type is None or d.device_type == device_type)]


def select_device(filter_string=None) -> Device:
    """The best device for a filter string; a Device passes through. None or "" is the policy's
    default device (the host when nothing matches and the policy's fallback allows it). A filter
    that matches no device raises NoDeviceError listing the devices present (PluginLoadError when
    it names a backend whose plugin failed to load); asking which device exists is not a launch,
    so no fallback applies."""
    if isinstance(filter_string, Device):
        return filter_string
    if isinstance(filter_string, Queue):
        return filter_string._device
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
