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
policy, diagnostics) < ``arrays`` (the Array API namespace, docs/arrays.md) < ``kernels`` <
``extensions`` (the linalg extension's kernels) < ``primitives`` (random, vectorize, sort, scan,
...; docs/primitives.md) < this file and the public modules ``kernel_api``, ``diagnostics``,
``linalg`` and ``random``, which re-export.
"""

from ._errors import (AbiMismatchError, BoundsError, BufferExportError, CompileError, DTypeError,
                      DeviceError, DeviceMismatchError, DpkError, ForeignNameError,
                      InvalidArgumentError, InvalidHandleError, InvalidRangeError,
                      KernelSourceError, KernelSyntaxError, KernelTypeError, LaunchError, LinkError,
                      NoDeviceError, NotFoundError, OutOfDeviceMemoryError, OutOfMemoryError,
                      ParseError, PlacementError, PluginLoadError, PolicyError, ShapeError,
                      UnsupportedError, VerifyError)
from . import diagnostics, kernel_api
from .kernel_api import (AddressSpace, AtomicRef, Group, Item, LocalAccessor, MemoryOrder,
                         MemoryScope, NdItem, NdRange, PrivateArray, Range, atomic_fence,
                         group_barrier)
from .kernels.dispatcher import (KernelDispatcher, array_type, call_kernel, call_kernel_async,
                                 device_func, kernel)
from .kernels.functions import DeviceFunction, ExternalFunction, declare_device
from .kernels.opencl_api import (CLK_GLOBAL_MEM_FENCE, CLK_LOCAL_MEM_FENCE, DEFAULT_LOCAL_SIZE,
                                 GLOBAL_MEM_FENCE, LOCAL_MEM_FENCE, atomic, barrier,
                                 get_global_id, get_global_size, get_group_id, get_local_id,
                                 get_local_size, get_num_groups, get_work_dim, local, mem_fence,
                                 private, sub_group_barrier)
from .kernels.foreign_names import module_getattr as __getattr__  # noqa: F401
from .arrays.array_object import Array, asnumpy
from .arrays.constants import e, inf, nan, newaxis, pi
from .arrays.creation_functions import (arange, asarray, empty, empty_like, eye, from_dlpack,
                                        full, full_like, linspace, meshgrid, ones, ones_like,
                                        tril, triu, zeros, zeros_like)
from .arrays.data_type_functions import astype, can_cast, finfo, iinfo, isdtype, result_type
from .arrays.dtypes import (bool, complex64, complex128, float32, float64, int8, int16, int32,
                            int64, uint8, uint16, uint32, uint64)
from .arrays.elementwise_functions import (abs, acos, acosh, add, asin, asinh, atan, atan2,
                                           atanh, bitwise_and, bitwise_invert,
                                           bitwise_left_shift, bitwise_or, bitwise_right_shift,
                                           bitwise_xor, ceil, clip, conj, copysign, cos, cosh,
                                           divide, equal, exp, expm1, floor, floor_divide,
                                           greater, greater_equal, hypot, imag, isfinite, isinf,
                                           isnan, less, less_equal, log, log1p, log2, log10,
                                           logaddexp, logical_and, logical_not, logical_or,
                                           logical_xor, maximum, minimum, multiply, negative,
                                           nextafter, not_equal, positive, pow, real,
                                           reciprocal, remainder, round, sign, signbit, sin,
                                           sinh, sqrt, square, subtract, tan, tanh, trunc)
from .arrays.indexing_functions import take, take_along_axis
from .arrays.info import __array_namespace_info__
from .arrays.linear_algebra_functions import matmul, matrix_transpose, tensordot, vecdot
from .arrays.manipulation_functions import (broadcast_arrays, broadcast_to, concat, expand_dims,
                                            flip, moveaxis, permute_dims, repeat, reshape, roll,
                                            squeeze, stack, tile, unstack)
from .arrays.searching_functions import (argmax, argmin, count_nonzero, nonzero, searchsorted,
                                         where)
from .arrays.statistical_functions import (cumulative_prod, cumulative_sum, max, mean, min,
                                           prod, std, sum, var)
from .arrays.utility_functions import all, any, diff
from .arrays import numpy_protocol as _numpy_protocol  # noqa: F401  (np.sin(x), np.sum(x))
from . import fft, linalg, random
from .primitives.vectorize import vectorize
from .primitives.guvectorize import guvectorize
from .primitives.reductions import accumulate, reduce, scan
from .primitives.sorting import (argsort, sort, topk, unique_all, unique_counts, unique_inverse,
                                 unique_values)
from .primitives.counting import argwhere, bincount, compact, histogram, scatter_add, searchsorted
from .autopar import jit, prange
from ._runtime.devices import (Device, Queue, default_device, device_context,
                               get_current_device, get_devices, has_device)
from .scaleout import select_device  # one device per MPI rank (docs/scale-out.md)
from ._runtime.extension_kit import get_cmake_dir, get_include, get_include_dirs
from ._core_loader import available as _extension_available
from . import _serialization  # noqa: F401  (pickling of kernels, device_funcs, vectorize)

#: numba-dppy's and numba-dpex's name for ``device_func``.
func = device_func

__version__ = "0.1.0"

#: The version of the Python Array API standard the ``dpk`` namespace implements.
__array_api_version__ = "2024.12"

__all__ = [
    "AddressSpace", "Array", "AtomicRef", "CLK_GLOBAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE",
    "CompileError", "DEFAULT_LOCAL_SIZE", "Device", "DeviceFunction", "DpkError", "ExternalFunction",
    "ForeignNameError", "GLOBAL_MEM_FENCE", "Group", "InvalidRangeError", "Item",
    "KernelDispatcher", "KernelSourceError", "KernelSyntaxError", "KernelTypeError", "LinkError",
    "LOCAL_MEM_FENCE", "LocalAccessor", "MemoryOrder", "MemoryScope", "NdItem", "NdRange",
    "PlacementError", "PrivateArray", "Queue", "Range", "array_type", "asarray", "atomic",
    "atomic_fence", "barrier", "call_kernel", "call_kernel_async", "declare_device",
    "default_device",
    "device_context", "device_func", "diagnostics", "empty", "from_dlpack", "func", "get_current_device",
    "get_devices", "get_global_id", "get_global_size", "get_group_id", "get_local_id",
    "get_local_size", "get_num_groups", "get_work_dim", "group_barrier", "has_device",
    "kernel", "kernel_api", "local", "mem_fence", "ones", "private", "select_device",
    "sub_group_barrier", "zeros",
]

__all__ += [  # the Array API namespace (docs/arrays.md)
    "__array_api_version__", "__array_namespace_info__", "abs", "acos", "acosh", "add", "all",
    "any", "arange", "argmax", "argmin", "asarray", "asnumpy", "asin", "asinh", "astype", "atan",
    "atan2",
    "atanh", "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "bool", "BoundsError", "broadcast_arrays",
    "broadcast_to", "can_cast", "ceil", "clip", "complex128", "complex64", "concat", "conj",
    "copysign", "cos", "cosh",
    "count_nonzero", "cumulative_prod", "cumulative_sum", "DeviceMismatchError", "diff", "divide",
    "DTypeError", "e", "empty", "empty_like", "equal", "exp", "expand_dims", "expm1", "eye",
    "fft",
    "finfo", "flip", "float32", "float64", "floor", "floor_divide", "from_dlpack", "full",
    "full_like", "greater", "greater_equal", "hypot", "iinfo", "imag", "inf", "int16", "int32",
    "int64", "int8", "isdtype", "isfinite", "isinf", "isnan", "less", "less_equal", "linalg",
    "linspace", "log", "log10", "log1p", "log2", "logaddexp", "logical_and", "logical_not",
    "logical_or", "logical_xor", "matmul", "matrix_transpose", "max", "maximum", "mean",
    "meshgrid", "min", "minimum", "moveaxis", "multiply", "nan", "negative", "newaxis",
    "nextafter", "nonzero", "not_equal", "ones", "ones_like", "permute_dims", "pi", "positive",
    "pow", "prod", "real", "reciprocal", "remainder", "repeat", "reshape", "result_type", "roll",
    "round", "searchsorted", "ShapeError", "sign", "signbit", "sin", "sinh", "sqrt", "square",
    "squeeze", "stack", "std", "subtract", "sum", "take", "take_along_axis", "tan", "tanh",
    "tensordot", "tile", "tril", "triu", "trunc", "uint16", "uint32", "uint64", "uint8", "unstack",
    "var", "vecdot", "where", "zeros", "zeros_like",
]

__all__ += [  # the parallel primitives (docs/primitives.md)
    "accumulate", "argsort", "argwhere", "bincount", "compact", "histogram", "random", "reduce",
    "scan", "scatter_add", "sort", "topk", "unique_all", "unique_counts", "unique_inverse",
    "unique_values", "vectorize", "guvectorize",
]

__all__ += ["jit", "prange"]  # the jit model (docs/jit.md)

__all__ += ["get_cmake_dir", "get_include", "get_include_dirs"]  # native extensions
