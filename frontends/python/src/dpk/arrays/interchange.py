"""How dpk arrays meet other libraries: DLPack 1.0 both ways, the buffer protocol of host arrays,
and NumPy's ``__array__``/``__array_interface__``.

The Array object's interchange methods (``__dlpack__``, ``__dlpack_device__``, ``__array__``,
``__array_interface__``, ``__buffer__``) and ``dpk.from_dlpack`` call the functions here.

DLPack export (``Array.__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)``,
the Array API standard's signature):
  - a versioned capsule (``dltensor_versioned``, DLPack 1.0, with the read-only and is-copied
    flags) when the consumer's ``max_version`` is 1.x or more, else a legacy ``dltensor``;
  - devices are reported as they are: host arrays are kDLCPU, CUDA arrays kDLCUDA (zero-copy
    over the array's own memory); OpenCL arrays are kDLOpenCL and Level Zero arrays kDLOneAPI,
    whose memory (USM device allocations) no DLPack consumer can address, so they export only
    a host copy, asked for with ``dl_device=(kDLCPU, 0)`` (``np.from_dlpack(a, device="cpu")``);
  - ``copy=True`` always exports a copy (flag is-copied), ``copy=False`` never does
    (BufferExportError when one is needed), ``None`` copies only when it must;
  - ``stream``: dpk waits for the array's device queue before exporting, so the data is ready
    for any consumer stream; CUDA's stream 0 is refused as the standard says (ambiguous).
Read-only arrays (imported from a read-only producer) and views whose elements overlap (zero
strides) export with the read-only flag; a legacy capsule cannot carry it, so they go out as a
copy then (or fail with copy=False).

Buffer protocol: host arrays implement ``__buffer__`` (PEP 688). Python runs it as the buffer
slot from 3.12 on; on older Pythons the extension installs the same method as the slot
(``register_array_type``), since a class written in Python cannot have one there. So
``memoryview(a)``, ``bytes(a)``, mpi4py and every other buffer consumer see the array's memory
and its read-only flag on any supported Python.
"""

from __future__ import annotations

import operator

import numpy as np

from .._core_loader import available, core
from .._errors import BufferExportError, InvalidArgumentError, UnsupportedError
from .._ir.types import supported_dtype
from .._runtime.devices import get_current_device, get_devices, select_device
from . import dtypes as D
from .memory import Buffer, element_range

# DLPack device types (dlpack.h DLDeviceType) dpk deals with.
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_OPENCL = 1, 2, 3, 4
KDL_EXT_DEV, KDL_CUDA_MANAGED, KDL_ONEAPI = 12, 13, 14
_HOST_KINDS = (KDL_CPU, KDL_CUDA_HOST)     # memory the host CPU addresses directly
_CUDA_KINDS = (KDL_CUDA, KDL_CUDA_MANAGED)
_DLPACK_VERSION = (1, 0)


def may_overlap(shape, strides, itemsize=1):
    """Whether two elements of a view may share memory (strides in units of `itemsize`):
    sorting the dimensions of more than one element by stride, each stride must step over what
    the smaller ones span. The cheap test NumPy's ufuncs use on outputs; zero strides
    (broadcasting) always fail it."""
    dims = sorted((abs(s), n) for s, n in zip(strides, shape) if n > 1)
    span = itemsize
    for stride, extent in dims:
        if stride < span:
            return True
        span += stride * (extent - 1)
    return False


def is_read_only(array):
    """Whether the array's memory must not be written: imported from a read-only producer, or a
    view whose elements overlap."""
    base = array._base
    if base is not None and getattr(base, "read_only", False):
        return True
    return array._strides is not None and may_overlap(array._shape, array._strides)


# ---- NumPy and the buffer protocol --------------------------------------------------------------

def array_interface(array):
    """NumPy's ``__array_interface__`` (version 3) of a host array: its memory, zero-copy."""
    if not array._device.is_host:
        raise AttributeError(f"__array_interface__ exists for arrays on the host device; this "
                             f"one lives on {array._device.filter_string}: use asnumpy()")
    ptr = array._ptr  # materializes
    itemsize = array._dtype.itemsize
    strides = tuple(s * itemsize for s in array._strides)
    contiguous = strides == tuple(s * itemsize for s in _c_strides(array._shape))
    return {"shape": array._shape, "typestr": array._dtype.str,
            "data": (ptr, is_read_only(array)), "strides": None if contiguous else strides,
            "version": 3}


class _Interface:
    """Exposes a host array's memory to NumPy (the NumPy view keeps this, and so the array,
    alive)."""

    __slots__ = ("_array", "__array_interface__")

    def __init__(self, array):
        self._array = array
        self.__array_interface__ = array_interface(array)


def host_view(array):
    """A NumPy view of a host array's memory (read-only when the array is)."""
    return np.asarray(_Interface(array))


def to_numpy(array, dtype=None, copy=None):
    """``Array.__array__(dtype=None, copy=None)``, NumPy 2's protocol: a view of host memory
    unless a copy is needed, then a copy unless ``copy=False`` forbids it (ValueError)."""
    device = array._device
    want = None if dtype is None else np.dtype(dtype)
    if device.is_host:
        view = host_view(array)
        if want is not None and want != view.dtype:
            if copy is False:
                raise InvalidArgumentError(f"np.asarray(a, dtype={want}, copy=False): the array "
                                           f"is {view.dtype}; converting it needs a copy")
            return view.astype(want)
        return view.copy() if copy else view
    if copy is False:
        raise InvalidArgumentError(
            f"np.asarray(a, copy=False): the array lives in the memory of "
            f"{device.filter_string}, which NumPy cannot address; a copy is needed "
            "(np.asarray(a) or a.asnumpy() makes one)")
    data = array.asnumpy()
    return data if want is None else data.astype(want, copy=False)


def buffer(array, flags):
    """``Array.__buffer__(flags)`` (PEP 688): a memoryview of a host array's memory. The
    consumer's flags are checked against it (a writable request on a read-only array fails)."""
    if not array._device.is_host:
        raise BufferExportError(f"the buffer protocol is offered by arrays on the host device; "
                                f"this one lives on {array._device.filter_string}: use "
                                "asnumpy() or np.asarray(a)")
    return memoryview(host_view(array))


def register_array_class(cls):
    """Tells the extension which class is dpk's array: launches take its instances as dpk
    arrays, not as buffers, and on Python < 3.12 its ``__buffer__`` becomes the buffer slot
    (3.12+ does that by itself). Without the extension there are no arrays to launch or
    export."""
    if available():
        core().register_array_type(cls)


# ---- DLPack export ------------------------------------------------------------------------------

def dlpack_device(array):
    """``Array.__dlpack_device__()``: where the array's memory is, as DLPack names devices. The
    id is the device's ordinal (its index in the filter string; the CUDA ordinal for CUDA)."""
    device = array._device
    if device.is_host:
        return (KDL_CPU, 0)
    kind = {"cuda": KDL_CUDA, "opencl": KDL_OPENCL, "level_zero": KDL_ONEAPI}.get(
        device.backend, KDL_EXT_DEV)
    return (kind, device.ordinal)


def _pair(value, what):
    try:
        first, second = value
        return (int(first), int(second))
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"__dlpack__: {what} must be a pair of integers, not "
                                   f"{value!r}") from None


def _check_stream(target, stream):
    """The standard's stream rules for the DLPack device exported to; dpk needs no ordering from
    the consumer's stream, as it has waited for its own queue."""
    if stream is None:
        return
    if isinstance(stream, bool) or not isinstance(stream, int):
        raise InvalidArgumentError(f"__dlpack__: stream must be None or an integer, not "
                                   f"{type(stream).__name__}")
    if target[0] in _CUDA_KINDS:
        if stream == 0:
            raise InvalidArgumentError("__dlpack__: stream 0 is ambiguous for CUDA (DLPack): pass "
                                       "1 for the legacy default stream or 2 for the per-thread "
                                       "one")
        if stream < -1:
            raise InvalidArgumentError(f"__dlpack__: {stream} is not a CUDA stream")
        return
    if stream != -1:
        raise BufferExportError(f"__dlpack__: DLPack device {target} has no streams: stream "
                                f"must be None (or -1), not {stream}")


def _capsule(ptr, shape, strides, dtype, device, owner, versioned, read_only, copied):
    return core().dlpack_capsule(ptr, list(shape), list(strides), dtype.str, device[0],
                                 device[1], owner, versioned, read_only, copied)


def export_dlpack(array, stream=None, max_version=None, dl_device=None, copy=None):
    """``Array.__dlpack__``: see the module's docstring."""
    if max_version is not None:
        max_version = _pair(max_version, "max_version")
    versioned = max_version is not None and max_version[0] >= _DLPACK_VERSION[0]
    if copy is not None and not isinstance(copy, bool):
        raise InvalidArgumentError(f"__dlpack__: copy must be None, True or False, not {copy!r}")
    device = array._device
    own = dlpack_device(array)
    target = own if dl_device is None else _pair(dl_device, "dl_device")
    _check_stream(target, stream)
    addressable = device.is_host or device.backend == "cuda"
    read_only = is_read_only(array)
    why = None
    if target != own:
        why = f"the array lives on {device.filter_string} (DLPack device {own}), not {target}"
    elif not addressable:
        why = (f"the array lives in the device memory of {device.filter_string}, which DLPack "
               "consumers cannot address (a USM pointer, not a cl_mem or a CUDA pointer)")
    elif read_only and not versioned:
        why = ("the array is read-only and a legacy (pre-1.0) DLPack capsule cannot say so; ask "
               "with max_version=(1, 0)")
    if why is None and copy is not True:
        ptr = array._ptr  # materializes
        device.synchronize()  # dpk's own commands on it are done: any consumer stream may read
        return _capsule(ptr, array._shape, array._strides, array._dtype, own, array,
                        versioned, read_only, False)
    if why is not None and copy is False:
        raise BufferExportError(f"__dlpack__(copy=False): {why}; a copy would be needed")
    if target == (KDL_CPU, 0):
        host = array.asnumpy()  # C-contiguous, writable
        return _capsule(host.ctypes.data, host.shape, _c_strides(host.shape), host.dtype,
                        target, host, versioned, False, True)
    if target == own and addressable:
        duplicate = array.copy()
        ptr = duplicate._ptr
        device.synchronize()
        return _capsule(ptr, duplicate._shape, duplicate._strides, duplicate._dtype, own,
                        duplicate, versioned, False, True)
    raise BufferExportError(f"__dlpack__: {why}; ask for a host copy with dl_device="
                            f"({KDL_CPU}, 0) (np.from_dlpack(a, device='cpu')) or use asnumpy()")


# ---- DLPack import: dpk.from_dlpack -------------------------------------------------------------

def dlpack_device_of(obj):
    """The producer's (DLPack device type, id); producers without __dlpack_device__ are CPU."""
    query = getattr(obj, "__dlpack_device__", None)
    if query is None:
        return (KDL_CPU, 0)
    answer = query()
    try:
        kind, ident = answer
        if isinstance(kind, bool) or isinstance(ident, bool):
            raise TypeError
        return (operator.index(kind), operator.index(ident))
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{type(obj).__name__}.__dlpack_device__() returned "
                                   f"{answer!r}, not a (device type, device id) pair of "
                                   "integers") from None


def _check_imported_device(view, wanted, what):
    """The producer must hand over memory where it said (or where dpk asked for a copy): a
    tensor of another DLPack device would be read as if dpk could address it."""
    device = tuple(view.device)
    if device[0] not in wanted:
        kinds = " or ".join(str(k) for k in wanted)
        raise UnsupportedError(f"{what}: expected a tensor on DLPack device type {kinds}; the "
                               f"producer's tensor is on {device} (device type, id)")


def _c_strides(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def _host_device():
    for d in get_devices():
        if d.is_host:
            return d
    return None


def cuda_device_for(ordinal, what):
    """The dpk CUDA device whose CUDA ordinal is `ordinal`, or UnsupportedError saying why not."""
    cuda = [d for d in get_devices() if d.backend == "cuda"]
    for d in cuda:
        if d.ordinal == ordinal:
            return d
    have = ", ".join(d.filter_string for d in cuda) or "none"
    raise UnsupportedError(f"{what} lives on CUDA device {ordinal}, which dpk does not offer "
                           f"(dpk's CUDA devices: {have}; the policy or DPK_DEVICE_SELECTOR may "
                           "exclude them)")


def _wrap(view, device, view_cls):
    """A dpk array over an imported tensor's memory, without a copy (the buffer owns the view,
    so the producer's memory stays valid; read-only when the producer said so)."""
    if not view.typestr or not (supported_dtype(np.dtype(view.typestr))
                                or np.dtype(view.typestr) in D.COMPLEX):
        what = view.typestr or "one without a NumPy equivalent"
        raise UnsupportedError(f"this DLPack array's element type ({what}) is not supported by "
                               "dpk arrays")
    dtype = np.dtype(view.typestr)
    dtype = D.normalize(dtype) if dtype in D.ALL_TYPES else dtype
    shape, strides = tuple(view.shape), tuple(view.strides)
    extent = element_range(0, shape, strides)
    low, high = extent if extent is not None else (0, 0)
    base = Buffer(device, (high - low + 1) * dtype.itemsize,
                  ptr=view.ptr + low * dtype.itemsize, owner=view, read_only=view.read_only)
    return view_cls._view(base, -low, shape, strides, dtype, device)


def from_dlpack(x, view_cls, convert, device=None, copy=None):
    """``dpk.from_dlpack(x, /, *, device=None, copy=None)`` (the Array API's): a dpk array of a
    DLPack producer's data. Zero-copy when the data stays on its device (host memory on the host
    device, CUDA memory on its dpk CUDA device) and ``copy`` is not True; otherwise a copy on
    ``device`` (default: the producer's own device), refused with ``copy=False``
    (BufferExportError). A read-only producer gives a read-only array (kernels refuse to write
    it). `view_cls` and `convert` are the Array class and asarray."""
    if isinstance(x, view_cls):
        return convert(x, device=device, copy=copy)
    if not hasattr(x, "__dlpack__"):
        raise UnsupportedError(f"from_dlpack: {type(x).__name__} has no __dlpack__ method")
    if copy is not None and not isinstance(copy, bool):
        raise InvalidArgumentError(f"from_dlpack: copy must be None, True or False, not {copy!r}")
    kind, ident = dlpack_device_of(x)
    target = None if device is None else select_device(device)
    if kind in _CUDA_KINDS:
        home = cuda_device_for(ident, f"this DLPack array (device type {kind})")
        # DLPack's consumer protocol: the producer makes our stream wait for its pending work
        # on the data, so dpk's commands on the device's queue read it complete.
        stream = home.queue.native_handles()["queue"] if kind == KDL_CUDA else None
        view = core().dlpack_import(x, stream=stream)
        _check_imported_device(view, _CUDA_KINDS, "from_dlpack")
    elif kind in _HOST_KINDS:
        home = _host_device()
        view = core().dlpack_import(x)
        _check_imported_device(view, _HOST_KINDS, "from_dlpack")
    else:
        # Memory dpk cannot address (OpenCL, oneAPI, ...): ask the producer for a host copy.
        if copy is False:
            raise BufferExportError(f"from_dlpack(copy=False): the data lives on DLPack device "
                                    f"{(kind, ident)}, which dpk cannot address; a copy is "
                                    "needed")
        home = _host_device()
        view = core().dlpack_import(x, dl_device=(KDL_CPU, 0))
        _check_imported_device(view, _HOST_KINDS, "from_dlpack(a host copy)")
        copy = None if home is not None else True
    if home is None:
        # Host memory, but the policy leaves the host device out: stage through NumPy.
        if copy is False:
            raise BufferExportError("from_dlpack(copy=False): the data is host memory and the "
                                    "policy offers no host device to wrap it on")
        host = np.array(np.asarray(_ViewOwner(view)), copy=True)
        return convert(host, device=target or get_current_device())
    wrapped = _wrap(view, home, view_cls)
    if (target is None or target is home) and copy is not True:
        return wrapped
    if copy is False:
        raise BufferExportError(f"from_dlpack(copy=False): the data lives on "
                                f"{home.filter_string}, not {target.filter_string}; a copy is "
                                "needed")
    if target is None or target is home:
        return wrapped.copy()
    return wrapped.to_device(target)


class _ViewOwner:
    """NumPy's view of an imported host tensor (keeps the import alive)."""

    def __init__(self, view):
        self._view = view
        itemsize = np.dtype(view.typestr).itemsize
        self.__array_interface__ = {
            "shape": tuple(view.shape), "typestr": view.typestr,
            "data": (view.ptr, bool(view.read_only)),
            "strides": tuple(s * itemsize for s in view.strides), "version": 3}
