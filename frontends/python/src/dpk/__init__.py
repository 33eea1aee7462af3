"""dpk: portable data-parallel kernels in Python, in the style of numba-dpex's kernel API.

    import dpk
    from dpk import kernel_api as kapi

    @dpk.kernel
    def vecadd(item: kapi.Item, a, b, c):
        i = item.get_id(0)
        c[i] = a[i] + b[i]

    dpk.call_kernel(vecadd, dpk.Range(n), a, b, c)   # NumPy or dpk arrays

``dpk.kernel_api.call_kernel`` runs the same kernel in plain Python (barriers included).

The package has one room per programming model over shared layers, and imports only go
downward (tests/test_layering.py holds the order and enforces it; docs/python.md describes it):
``_errors`` < ``_core_loader`` < ``_ir`` (the IR-building layer) < ``_runtime`` (devices,
policy, diagnostics) < ``arrays`` < ``kernels`` < this file and the public modules
``kernel_api`` and ``diagnostics``, which re-export.
"""

from ._errors import (AbiMismatchError, CompileError, DeviceError, DpkError,
                      InvalidArgumentError, InvalidHandleError, InvalidRangeError,
                      KernelSyntaxError, KernelTypeError, LaunchError, NoDeviceError,
                      NotFoundError, OutOfDeviceMemoryError, OutOfMemoryError, ParseError,
                      PlacementError, PluginLoadError, PolicyError, UnsupportedError,
                      VerifyError)
from . import diagnostics, kernel_api
from .kernel_api import (AddressSpace, AtomicRef, Group, Item, LocalAccessor, MemoryOrder,
                         MemoryScope, NdItem, NdRange, PrivateArray, Range, atomic_fence,
                         group_barrier)
from .kernels.dispatcher import (KernelDispatcher, array_type, call_kernel, call_kernel_async,
                                 device_func, kernel)
from .kernels.functions import DeviceFunction
from .arrays.array_object import Array, asarray, empty, ones, zeros
from ._runtime.devices import Device, default_device, get_devices, has_device, select_device
from ._core_loader import available as _extension_available

__version__ = "0.1.0"

__all__ = [
    "AddressSpace", "Array", "AtomicRef", "CompileError", "Device", "DeviceFunction",
    "DpkError", "Group", "InvalidRangeError", "Item", "KernelDispatcher", "KernelSyntaxError",
    "KernelTypeError", "LocalAccessor", "MemoryOrder", "MemoryScope", "NdItem", "NdRange",
    "PlacementError", "PrivateArray", "Range", "array_type", "asarray", "atomic_fence",
    "call_kernel", "call_kernel_async", "default_device", "device_func", "diagnostics", "empty",
    "get_devices", "group_barrier", "has_device", "kernel", "kernel_api", "ones",
    "select_device", "zeros",
]
