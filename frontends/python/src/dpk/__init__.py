"""dpk: portable data-parallel kernels in Python, in the style of numba-dpex's kernel API.

    import dpk
    from dpk import kernel_api as kapi

    @dpk.kernel
    def vecadd(item: kapi.Item, a, b, c):
        i = item.get_id(0)
        c[i] = a[i] + b[i]

    dpk.call_kernel(vecadd, dpk.Range(n), a, b, c)   # NumPy or dpk arrays

``dpk.kernel_api.call_kernel`` runs the same kernel in plain Python (barriers included).

numba-dppy / numba-dpex <= 0.20 code ports too (``import dpk as dppy``): kernels without an item
parameter use ``dpk.get_global_id(d)``, ``dpk.barrier``, ``dpk.local.array``, ``dpk.atomic.add``
and launch as ``kernel[global_size, local_size](args)``; ``dpk.device_context(device)`` sets the
device. docs/porting.md maps every name.

The package has one room per programming model over shared layers, and imports only go
downward (tests/test_layering.py holds the order and enforces it; docs/python.md describes it):
``_errors`` < ``_core_loader`` < ``_ir`` (the IR-building layer) < ``_runtime`` (devices,
policy, diagnostics) < ``arrays`` < ``kernels`` < this file and the public modules
``kernel_api`` and ``diagnostics``, which re-export.
"""

from ._errors import (AbiMismatchError, CompileError, DeviceError, DpkError, ForeignNameError,
                      InvalidArgumentError, InvalidHandleError, InvalidRangeError,
                      KernelSourceError, KernelSyntaxError, KernelTypeError, LaunchError,
                      NoDeviceError, NotFoundError, OutOfDeviceMemoryError, OutOfMemoryError,
                      ParseError, PlacementError, PluginLoadError, PolicyError,
                      UnsupportedError, VerifyError)
from . import diagnostics, kernel_api
from .kernel_api import (AddressSpace, AtomicRef, Group, Item, LocalAccessor, MemoryOrder,
                         MemoryScope, NdItem, NdRange, PrivateArray, Range, atomic_fence,
                         group_barrier)
from .kernels.dispatcher import (KernelDispatcher, array_type, call_kernel, call_kernel_async,
                                 device_func, kernel)
from .kernels.functions import DeviceFunction
from .kernels.opencl_api import (CLK_GLOBAL_MEM_FENCE, CLK_LOCAL_MEM_FENCE, DEFAULT_LOCAL_SIZE,
                                 GLOBAL_MEM_FENCE, LOCAL_MEM_FENCE, atomic, barrier,
                                 get_global_id, get_global_size, get_group_id, get_local_id,
                                 get_local_size, get_num_groups, get_work_dim, local, mem_fence,
                                 private, sub_group_barrier)
from .kernels.foreign_names import module_getattr as __getattr__  # noqa: F401
from .arrays.array_object import Array, asarray, empty, ones, zeros
from ._runtime.devices import (Device, default_device, device_context, get_current_device,
                               get_devices, has_device, select_device)
from ._core_loader import available as _extension_available

#: numba-dppy's and numba-dpex's name for ``device_func``.
func = device_func

__version__ = "0.1.0"

__all__ = [
    "AddressSpace", "Array", "AtomicRef", "CLK_GLOBAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE",
    "CompileError", "DEFAULT_LOCAL_SIZE", "Device", "DeviceFunction", "DpkError",
    "ForeignNameError", "GLOBAL_MEM_FENCE", "Group", "InvalidRangeError", "Item",
    "KernelDispatcher", "KernelSourceError", "KernelSyntaxError", "KernelTypeError",
    "LOCAL_MEM_FENCE", "LocalAccessor", "MemoryOrder", "MemoryScope", "NdItem", "NdRange",
    "PlacementError", "PrivateArray", "Range", "array_type", "asarray", "atomic",
    "atomic_fence", "barrier", "call_kernel", "call_kernel_async", "default_device",
    "device_context", "device_func", "diagnostics", "empty", "func", "get_current_device",
    "get_devices", "get_global_id", "get_global_size", "get_group_id", "get_local_id",
    "get_local_size", "get_num_groups", "get_work_dim", "group_barrier", "has_device",
    "kernel", "kernel_api", "local", "mem_fence", "ones", "private", "select_device",
    "sub_group_barrier", "zeros",
]
