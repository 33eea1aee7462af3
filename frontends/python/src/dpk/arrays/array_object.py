"""dpk device arrays: memory on one dpk device, with NumPy-style shape and dtype.

Arrays are C-contiguous. They follow compute-follows-data: a launch whose dpk arrays all live on
one device runs there; for arrays of different devices see dpk.kernels.placement.
Interchange:
  - ``asnumpy()`` / ``np.asarray(a)`` copy to the host (zero-copy for arrays on the host device,
    which also export ``__array_interface__``); ``__dlpack__`` is zero-copy on the host (kDLCPU)
    and on CUDA devices (kDLCUDA);
  - ``asarray(x)`` accepts NumPy arrays and anything NumPy converts, DLPack producers on the
    CPU (through ``numpy.from_dlpack``, zero-copy into the host) and on CUDA devices (wrapped
    zero-copy on that dpk CUDA device), and objects with ``__cuda_array_interface__`` (wrapped
    zero-copy when the target is a CUDA device).
"""

from __future__ import annotations

import weakref

import numpy as np

from .._core_loader import core
from .._errors import KernelTypeError, UnsupportedError
from .._ir.types import supported_dtype
from .._runtime.devices import Device, get_current_device, get_devices, select_device

_MEM_DEVICE = 1

# DLPack device types (dlpack.h DLDeviceType) dpk understands.
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13


def _c_strides(shape):
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(reversed(strides))


def _free(ptr):
    try:
        core().mem_free(ptr)
    except Exception:  # interpreter shutdown: the process frees everything anyway
        pass


class _HostExport:
    """Exposes a host-device array's memory to NumPy without a copy (keeps the array alive)."""

    def __init__(self, array):
        self._array = array
        self.__array_interface__ = {
            "shape": array.shape, "typestr": array.dtype.str,
            "data": (array._ptr, False), "strides": None, "version": 3,
        }


class Array:
    """An n-D array (1 to 3 dimensions for kernels) in the memory of one dpk device."""

    _dpk_array = True

    def __init__(self, shape, dtype, device=None, *, _ptr=None, _owner=None):
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = tuple(int(s) for s in shape)
        self._dtype = np.dtype(dtype)
        if not supported_dtype(self._dtype):
            raise KernelTypeError(f"dtype {self._dtype} is not supported by dpk arrays")
        self._device = device if isinstance(device, Device) else _target(device)
        nbytes = max(1, self.nbytes)
        if _ptr is None:
            _ptr = core().mem_alloc(self._device._dev, _MEM_DEVICE, nbytes)
            self._finalizer = weakref.finalize(self, _free, _ptr)
        self._owner = _owner
        self._ptr = _ptr
        strides = _c_strides(self._shape)
        self._dpk_view = (_ptr, len(self._shape), self._shape, strides)
        self._dpk_sig = f"D{self._dtype.str}{len(self._shape)}@{self._device._dev.handle}"

    # ---- properties ---------------------------------------------------------------------------
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    device = property(lambda self: self._device)
    ndim = property(lambda self: len(self._shape))

    @property
    def size(self):
        n = 1
        for s in self._shape:
            n *= s
        return n

    @property
    def nbytes(self):
        return self.size * self._dtype.itemsize

    @property
    def strides(self):
        return tuple(s * self._dtype.itemsize for s in _c_strides(self._shape))

    def __len__(self):
        return self._shape[0]

    def __repr__(self):
        return (f"dpk.Array(shape={self._shape}, dtype={self._dtype.name}, "
                f"device={self._device.filter_string!r})")

    # ---- transfers ----------------------------------------------------------------------------
    def _copy_from_host(self, host):
        host = np.ascontiguousarray(host, dtype=self._dtype)
        if host.shape != self._shape:
            raise ValueError(f"shape {host.shape} does not match the array's {self._shape}")
        if self.nbytes:
            self._device.queue.copy(self._ptr, host.ctypes.data, self.nbytes,
                                    keepalive=host).wait()

    def asnumpy(self) -> np.ndarray:
        """A NumPy copy of the data."""
        out = np.empty(self._shape, dtype=self._dtype)
        if self.nbytes:
            self._device.queue.copy(out.ctypes.data, self._ptr, self.nbytes).wait()
        return out

    def __array__(self, dtype=None, copy=None):
        data = np.asarray(_HostExport(self)) if self._device.is_host else self.asnumpy()
        return data if dtype is None else data.astype(dtype)

    @property
    def __array_interface__(self):
        if not self._device.is_host:
            raise AttributeError("__array_interface__ exists for host-device arrays only; use "
                                 "asnumpy()")
        return _HostExport(self).__array_interface__

    def __dlpack__(self, stream=None, **kwargs):
        """DLPack export: host arrays as kDLCPU (through NumPy), CUDA arrays as kDLCUDA over the
        array's own memory (the capsule keeps the array alive). dpk waits for its own queue
        before handing out the tensor, so ``stream`` needs no ordering from dpk's side."""
        if self._device.is_host:
            return np.asarray(_HostExport(self)).__dlpack__(
                **({} if stream is None else {"stream": stream}))
        if self._device.backend != "cuda":
            raise UnsupportedError(f"__dlpack__ is offered for arrays on the host and CUDA "
                                   f"devices; this one is on {self._device.filter_string}: "
                                   "call asnumpy() first")
        self._device.synchronize()
        exported = core().dlpack_export(self._ptr, list(self._shape), self._dtype.str,
                                        KDL_CUDA, self._device.ordinal, self)
        # nanobind's exporter takes the standard keywords (max_version, dl_device, copy) and
        # accepts `stream` without needing it: dpk's queue is idle at this point.
        return exported.__dlpack__(**kwargs, **({} if stream is None else {"stream": stream}))

    def __dlpack_device__(self):
        if self._device.backend == "cuda":
            return (KDL_CUDA, self._device.ordinal)
        return (KDL_CPU, 0)

    def to_device(self, device) -> "Array":
        """A copy on another device (the same array when it already lives there)."""
        target = select_device(device)
        if target is self._device:
            return self
        return asarray(self.asnumpy(), device=target)

    def copy(self) -> "Array":
        return asarray(self.asnumpy(), device=self._device)


def _target(device):
    """The device of a new array: `device`, else the current device_context's, else the
    policy's default."""
    return select_device(device) if device is not None else get_current_device()


def _from_cuda_array_interface(obj, device, dtype):
    cai = obj.__cuda_array_interface__
    target = _target(device)
    if target.backend != "cuda":
        cuda = [d for d in get_devices() if d.backend == "cuda"]
        if not cuda:
            raise UnsupportedError("an object with __cuda_array_interface__ needs a CUDA device "
                                   "in dpk; none is available")
        staged = _from_cuda_array_interface(obj, cuda[0], dtype)
        return staged.to_device(target)
    shape = tuple(cai["shape"])
    adt = np.dtype(cai["typestr"])
    strides = cai.get("strides")
    if strides is not None and tuple(strides) != tuple(s * adt.itemsize
                                                       for s in _c_strides(shape)):
        raise UnsupportedError("only C-contiguous __cuda_array_interface__ arrays are wrapped")
    arr = Array(shape, adt, target, _ptr=int(cai["data"][0]), _owner=obj)
    return arr if dtype is None or np.dtype(dtype) == adt else asarray(arr.asnumpy(), dtype,
                                                                      target)


def dlpack_device_of(obj):
    """The producer's (DLPack device type, id); producers without __dlpack_device__ are CPU."""
    query = getattr(obj, "__dlpack_device__", None)
    if query is None:
        return (KDL_CPU, 0)
    kind, ident = query()
    return (int(kind), int(ident))


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


def _from_cuda_dlpack(obj, device, dtype):
    """Wraps a kDLCUDA producer's memory on its dpk CUDA device without copying (the dpk array
    holds the imported tensor, so the producer's memory stays valid); copies only when `device`
    names another device or `dtype` another type."""
    kind, ordinal = dlpack_device_of(obj)
    home = cuda_device_for(ordinal, f"this DLPack array (device type {kind})")
    view = core().dlpack_import(obj)
    if not view.typestr:
        raise UnsupportedError("this DLPack array's element type has no NumPy equivalent")
    adt = np.dtype(view.typestr)
    shape = tuple(view.shape)
    if tuple(view.strides) != _c_strides(shape):
        raise UnsupportedError("only C-contiguous DLPack arrays are wrapped on CUDA devices")
    arr = Array(shape if shape else (1,), adt, home, _ptr=int(view.ptr), _owner=view)
    if device is not None and select_device(device) is not home:
        arr = arr.to_device(device)
    return arr if dtype is None or np.dtype(dtype) == adt else asarray(arr.asnumpy(), dtype,
                                                                      arr.device)


def asarray(obj, dtype=None, device=None) -> Array:
    """``obj`` as a dpk array on ``device`` (a filter string or Device; default: obj's own
    device for a dpk array, else the current device_context's device, else the policy's
    choice)."""
    if isinstance(obj, Array):
        if device is None or select_device(device) is obj.device:
            if dtype is None or np.dtype(dtype) == obj.dtype:
                return obj
            return asarray(obj.asnumpy().astype(dtype), device=obj.device)
        moved = obj.to_device(device)
        return moved if dtype is None else asarray(moved, dtype)
    foreign = not isinstance(obj, np.ndarray)
    # DLPack before __cuda_array_interface__ (CuPy and PyTorch offer both): it names the device.
    if foreign and hasattr(obj, "__dlpack__") and \
            dlpack_device_of(obj)[0] in (KDL_CUDA, KDL_CUDA_MANAGED):
        return _from_cuda_dlpack(obj, device, dtype)
    if foreign and hasattr(obj, "__cuda_array_interface__"):
        return _from_cuda_array_interface(obj, device, dtype)
    if foreign and hasattr(obj, "__dlpack__"):
        try:
            obj = np.from_dlpack(obj)
        except (RuntimeError, BufferError, TypeError) as exc:
            raise UnsupportedError(f"cannot import this DLPack producer on the host: {exc}") \
                from None
    host = np.ascontiguousarray(np.asarray(obj, dtype=dtype))
    if host.ndim == 0:
        host = host.reshape(1)
    arr = Array(host.shape, host.dtype, _target(device))
    arr._copy_from_host(host)
    return arr


def empty(shape, dtype=np.float64, device=None) -> Array:
    return Array(shape, dtype, _target(device))


def zeros(shape, dtype=np.float64, device=None) -> Array:
    arr = Array(shape, dtype, _target(device))
    if arr.nbytes:
        arr.device.queue.fill(arr._ptr, b"\0", arr.nbytes).wait()
    return arr


def ones(shape, dtype=np.float64, device=None) -> Array:
    arr = Array(shape, dtype, _target(device))
    arr._copy_from_host(np.ones(arr.shape, dtype=arr.dtype))
    return arr


def devices_of(args):
    """The distinct devices of the dpk arrays among ``args``, in argument order."""
    found = []
    for a in args:
        if isinstance(a, Array) and a.device not in found:
            found.append(a.device)
    return found
