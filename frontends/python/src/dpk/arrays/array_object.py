"""dpk arrays: n-D strided views of memory on one dpk device, the Array API standard's array
object.

An ``Array`` is either *materialized* (a view of a ``Buffer``: element offset, shape, strides in
elements, 0 to any number of dimensions) or *lazy* (an expression-graph node of
dpk.arrays.fusion that has not run yet; ``_materialize()`` runs it). Operators come from the
elementwise table (elementwise_table.py) through ``elementwise()`` (elementwise_ops.py), which
checks devices (compute follows data: operands of different devices raise DeviceMismatchError),
dtypes (the standard's categories and promotion, Python scalars weak) and shapes
(broadcasting), then records the operation in the graph. Basic slicing returns views; integer-array and boolean-mask indexing
run gather/scatter kernels (indexing.py).

Interchange:
  - ``asnumpy()`` / ``np.asarray(a)`` copy to the host (zero-copy for arrays on the host device,
    which also export ``__array_interface__``); ``__dlpack__`` is zero-copy on the host (kDLCPU)
    and on CUDA devices (kDLCUDA);
  - ``asarray(x)`` accepts NumPy arrays and anything NumPy converts, DLPack producers on the
    CPU (through ``numpy.from_dlpack``, zero-copy into the host) and on CUDA devices (wrapped
    zero-copy on that dpk CUDA device), and objects with ``__cuda_array_interface__`` (wrapped
    zero-copy when the target is a CUDA device).
NumPy arrays and scalars given to operators are converted: NumPy scalars (and 0-D arrays) become
kernel parameters of their dtype; other NumPy arrays are copied to the device of the dpk operand
(diagnostics level 3 reports an ``arrays.implicit_copy`` record). NumPy's ufuncs and functions
on dpk arrays (``np.sin(x)``, ``numpy_array + x``, ``np.sum(x)``, ``x.sum()``) dispatch to dpk
through ``__array_ufunc__``/``__array_function__``, which numpy_protocol.py installs.
"""

from __future__ import annotations

import builtins
import functools
import operator
import sys

import numpy as np

from .._errors import (DTypeError, InvalidArgumentError, KernelTypeError, ShapeError,
                       UnsupportedError)
from .._ir.types import supported_dtype
from .._runtime.devices import Device, Queue, get_current_device, get_devices, select_device
from . import dtypes as D
from . import fusion, generated, indexing, interchange
from .memory import Buffer, c_strides, element_range, is_c_contiguous, size_of

# DLPack device types (dlpack.h DLDeviceType) dpk understands.
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
# Type characters Queue.read_scalar turns into Python numbers (others go through NumPy).
_READABLE_SCALARS = frozenset("?bBhHiIlLqQfdFD")


def _c_strides(shape):
    return c_strides(shape)


class Array:
    """An n-D array in the memory of one dpk device (kernels take 1 to 3 dimensions)."""

    # The fixed attributes live in slots: the immediate operations (immediate.py) read and
    # write them at their offsets from C++; anything else an array carries goes in __dict__.
    __slots__ = ("_shape", "_dtype", "_device", "_base", "_offset", "_strides", "_node",
                 "__dict__", "__weakref__")
    _dpk_array = True
    __array_ufunc__ = None  # NumPy's operators return NotImplemented: dpk's reflected run
    # The graph leaf of a materialized array, made on first use (_as_node): its memory and
    # geometry never change, and every operation on it needs one (1-2 us to make each time).
    _leaf = None

    def __init__(self, shape, dtype, device=None, *, _ptr=None, _owner=None):
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = tuple(int(s) for s in shape)
        self._dtype = np.dtype(dtype)
        if not (supported_dtype(self._dtype) or self._dtype in D.COMPLEX):
            raise KernelTypeError(f"dtype {self._dtype} is not supported by dpk arrays")
        if self._dtype in D.ALL_TYPES:
            self._dtype = D.normalize(self._dtype)
        self._device = device if isinstance(device, Device) else _target(device)
        self._base = Buffer(self._device, size_of(self._shape) * self._dtype.itemsize,
                            ptr=_ptr, owner=_owner)
        self._offset = 0
        self._strides = c_strides(self._shape)
        self._node = None

    @classmethod
    def _view(cls, base, offset, shape, strides, dtype, device):
        self = object.__new__(cls)
        self._shape = tuple(shape)
        self._dtype = dtype
        self._device = device
        self._base = base
        self._offset = offset
        self._strides = tuple(strides)
        self._node = None
        return self

    @classmethod
    def _lazy(cls, node):
        self = object.__new__(cls)
        self._shape = node.shape
        self._dtype = node.dtype
        self._device = node.device
        self._base = None
        self._offset = 0
        self._strides = None
        self._node = node
        if fusion.enabled():
            fusion.track(self)
        else:
            self._materialize()
        return self

    def _materialize(self):
        """Runs the pending graph (if any); afterwards the array is a view of memory."""
        node = self._node
        if node is not None:
            self._base = fusion.materialize(node)
            self._offset = 0
            self._strides = c_strides(self._shape)
            self._node = None
            fusion.untrack(self)
        return self

    def _as_node(self):
        """The graph node standing for this array's value."""
        node = self._node
        if node is not None:
            return node
        leaf = self._leaf
        if leaf is None:
            leaf = self._leaf = fusion.leaf(self._base, self._offset, self._shape,
                                            self._strides, self._dtype, self._device)
        return leaf

    # ---- raw access: kernels, interchange ----------------------------------------------------
    @property
    def _ptr(self):
        """The address of element 0 (materializes; lazy results reading this memory are
        computed first, as whoever takes the address may write through it)."""
        self._materialize()
        fusion.flush_readers(self._base, keep=self)
        return self._base.ptr + self._offset * self._dtype.itemsize

    @property
    def _owner(self):
        self._materialize()
        return self._base.owner

    # The launch path reads _dpk_sig and _dpk_view for every array of every launch, so both are
    # cached in the instance dict (functools.cached_property is a non-data descriptor: later
    # reads run no Python). A materialized view's memory, shape and strides never change; the
    # signature depends only on dtype, rank, device and the memory's read-only flag, and a lazy
    # result materializes into fresh writable memory. The launch sites flush lazy results that
    # read an argument's memory first (fusion.flush_arguments), since a kernel may write it.
    @functools.cached_property
    def _dpk_view(self):
        """The kernel launch's view descriptor: (address, ndim, shape, strides in elements);
        0-D arrays pass as one element."""
        ptr = self._ptr
        if not 0 <= len(self._shape) <= 3:
            raise KernelTypeError(f"dpk arrays passed to kernels have 1 to 3 dimensions, not "
                                  f"{len(self._shape)}")
        if not self._shape:
            return (ptr, 1, (1,), (1,))
        return (ptr, len(self._shape), self._shape, self._strides)

    @functools.cached_property
    def _dpk_sig(self):
        # "r": read-only memory, keyed apart so that launches writing it are refused (the
        # launcher adds "o" itself for views whose elements overlap). Cached in the instance
        # dict (a non-data descriptor): later launches read it without running Python.
        # "o" (views whose elements overlap) is decided here too, once, from the fixed
        # geometry, so the launcher's key needs no look at the view.
        base = self._base
        overlap = self._strides is not None and interchange.may_overlap(self._shape,
                                                                        self._strides)
        return (f"D{self._dtype.str}{max(len(self._shape), 1)}@{self._device._dev.handle}"
                f"{'r' if base is not None and base.read_only else ''}{'o' if overlap else ''}")

    # ---- properties -------------------------------------------------------------------------
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    device = property(lambda self: self._device)
    ndim = property(lambda self: len(self._shape))

    @property
    def size(self):
        return size_of(self._shape)

    @property
    def nbytes(self):
        return self.size * self._dtype.itemsize

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def strides(self):
        """Strides in bytes, as NumPy gives them."""
        self._materialize()
        return tuple(s * self._dtype.itemsize for s in self._strides)

    @property
    def T(self):
        if self.ndim != 2:
            raise ShapeError(f"x.T needs a 2-D array, not {self.ndim}-D (use x.mT or "
                             "dpk.permute_dims for other ranks)")
        return self._permuted((1, 0))

    @property
    def mT(self):
        if self.ndim < 2:
            raise ShapeError(f"x.mT needs at least 2 dimensions, not {self.ndim}")
        axes = tuple(range(self.ndim - 2)) + (self.ndim - 1, self.ndim - 2)
        return self._permuted(axes)

    def _permuted(self, axes):
        self._materialize()
        return Array._view(self._base, self._offset, [self._shape[a] for a in axes],
                           [self._strides[a] for a in axes], self._dtype, self._device)

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-D array")
        return self._shape[0]

    def __iter__(self):
        if self.ndim != 1:
            raise TypeError(f"iteration is defined for 1-D arrays, not {self.ndim}-D")
        return (self[i] for i in range(self._shape[0]))

    def __repr__(self):
        data = np.array2string(self.asnumpy(), separator=", ", prefix="dpk.Array(")
        return (f"dpk.Array({data}, dtype={D.name(self._dtype)}, "
                f"device={self._device.filter_string!r})")

    def __str__(self):
        return str(self.asnumpy())

    @property
    def __cuda_array_interface__(self):
        """Numba's CUDA Array Interface, version 3, for arrays in CUDA memory (CuPy, PyTorch
        and Numba take them without a copy); other arrays have no such attribute. dpk waits
        for its device's queue first, so ``stream`` is None (no synchronization needed)."""
        if self._device.backend != "cuda":
            raise AttributeError(f"__cuda_array_interface__: this array lives on "
                                 f"{self._device.filter_string}, not in CUDA memory")
        itemsize = self._dtype.itemsize
        ptr = self._ptr if self.size else 0
        strides = None if self._strides is None or is_c_contiguous(self._shape, self._strides) \
            else tuple(s * itemsize for s in self._strides)
        self._device.synchronize()
        read_only = bool(self._base is not None and self._base.read_only)
        return {"shape": self._shape, "typestr": self._dtype.str, "data": (ptr, read_only),
                "strides": strides, "descr": [("", self._dtype.str)], "mask": None,
                "stream": None, "version": 3}

    def __reduce__(self):
        """Pickled as a NumPy copy of its data and its device's filter string: unpickling
        copies the data to that device of the receiving process (NoDeviceError naming the
        filter when it has none). Views and strides are not kept: the copy is C-contiguous."""
        return (_unpickle_array, (self.asnumpy(), self._device))

    def __array_namespace__(self, /, *, api_version=None):
        if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12",
                                                            "2024.12"):
            raise ValueError(f"dpk implements the Array API standard 2024.12 (and earlier), "
                             f"not {api_version!r}")
        return sys.modules["dpk"]

    # ---- conversion to Python -----------------------------------------------------------------
    def _scalar(self, what):
        if self.size != 1:
            raise TypeError(f"{what}() of an array of shape {self._shape}: only arrays with one "
                            "element convert to Python scalars")
        self._materialize()
        if self._dtype.char in _READABLE_SCALARS:
            # One element, read straight into a Python number (no NumPy array around it)
            return generated.read_scalar(self._device, self._base.ptr + self._offset
                                         * self._dtype.itemsize, self._dtype)
        return self.asnumpy().reshape(()).item()

    def __bool__(self):
        return builtins.bool(self._scalar("bool"))

    def __int__(self):
        value = self._scalar("int")
        if isinstance(value, float) and (value != value or value in (float("inf"),
                                                                     float("-inf"))):
            raise (ValueError if value != value else OverflowError)(
                f"cannot convert {value} to int")
        return int(value)

    def __float__(self):
        return float(self._scalar("float"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        if self._dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index, not "
                            f"{D.name(self._dtype)}")
        return int(self._scalar("index"))

    # ---- transfers ----------------------------------------------------------------------------
    def _copy_from_host(self, host):
        host = np.asarray(host, dtype=self._dtype)
        if host.shape != self._shape:
            host = np.broadcast_to(host, self._shape)
        self._materialize()
        fusion.flush_readers(self._base, keep=self)
        if not self.nbytes:
            return
        if is_c_contiguous(self._shape, self._strides):
            host = np.asarray(host, order="C")
            dst = self._base.ptr + self._offset * self._dtype.itemsize
            self._device.queue.copy(dst, host.ctypes.data, self.nbytes, keepalive=host).wait()
            return
        staged = asarray(host, device=self._device)
        fusion.run(staged._as_node(), self._base, self._offset, self._shape, self._strides,
                   self._dtype)

    def _contiguous(self):
        """This array, or a C-contiguous copy of it."""
        self._materialize()
        if is_c_contiguous(self._shape, self._strides):
            return self
        buf = fusion.materialize(self._as_node())
        return Array._view(buf, 0, self._shape, c_strides(self._shape), self._dtype,
                           self._device)

    def asnumpy(self) -> np.ndarray:
        """A NumPy copy of the data."""
        src = self._contiguous()
        out = np.empty(self._shape, dtype=self._dtype)
        if self.nbytes:
            ptr = src._base.ptr + src._offset * self._dtype.itemsize
            generated.read_into(self._device, out, ptr, self.nbytes)
        return out

    # ---- interchange (interchange.py has the rules) -------------------------------------------
    def __array__(self, dtype=None, copy=None):
        """NumPy 2's protocol: a view of host memory, else a copy; copy=False raises
        (ValueError) when a copy is needed."""
        return interchange.to_numpy(self, dtype, copy)

    @property
    def __array_interface__(self):
        """Host arrays only: their memory, zero-copy (read-only when the array is)."""
        return interchange.array_interface(self)

    def __buffer__(self, flags, /):
        """The buffer protocol (PEP 688) for host arrays: a memoryview of their memory."""
        return interchange.buffer(self, flags)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack 1.0 export, as the Array API standard specifies it (interchange.py)."""
        return interchange.export_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        """(DLPack device type, id): kDLCPU for the host, kDLCUDA, kDLOpenCL, kDLOneAPI."""
        return interchange.dlpack_device(self)

    def to_device(self, device, /, *, stream=None) -> "Array":
        """A copy on another device (the same array when it already lives there). Between two
        CUDA devices the copy goes device to device (the driver's peer copy over NVLink or PCIe
        where the GPUs allow it, else staged by the driver); otherwise through host memory."""
        target = select_device(device)
        if target is self._device:
            return self
        if self._device.backend == "cuda" and target.backend == "cuda" and self.nbytes:
            src = self._contiguous()
            out = empty(self._shape, dtype=self._dtype, device=target)
            self._device.synchronize()  # the source's pending writes, on its own queue
            target.queue.copy(out._base.ptr, src._base.ptr + src._offset * self._dtype.itemsize,
                              self.nbytes).wait()
            return out
        return asarray(self.asnumpy(), device=target)

    def copy(self) -> "Array":
        """A C-contiguous copy on the same device."""
        self._materialize()
        buf = fusion.materialize(fusion.leaf(self._base, self._offset, self._shape,
                                             self._strides, self._dtype, self._device))
        return Array._view(buf, 0, self._shape, c_strides(self._shape), self._dtype,
                           self._device)

    # ---- indexing -----------------------------------------------------------------------------
    def __getitem__(self, key):
        return indexing.getitem(self, key, Array, asarray)

    def __setitem__(self, key, value):
        indexing.setitem(self, key, value, Array, asarray, _elementwise_node_hook[0])

    # ---- matmul (the operators of the table are added below the class) ------------------------
    def __matmul__(self, other):
        return _matmul_hook[0](self, other)

    def __rmatmul__(self, other):
        return _matmul_hook[0](other, self)

    def __imatmul__(self, other):
        result = _matmul_hook[0](self, other)
        if result.shape != self._shape:
            raise ShapeError(f"x @= y: the result's shape {result.shape} is not x's "
                             f"{self._shape}")
        self[...] = result
        return self

    __hash__ = None


# linear_algebra registers matmul here, and elementwise_ops its elementwise_node (they sit above
# this module; elementwise_ops also sets the Array's other operators).
_matmul_hook = [None]
_elementwise_node_hook = [None]


def _target(device):
    """The device of a new array: `device`, else the current device_context's, else the
    policy's default."""
    return select_device(device) if device is not None else get_current_device()

def _check_device_dtype(what, device, *dtypes):
    if device.has_fp64:
        return
    for d in dtypes:
        if d == D.float64 or d == D.complex128:
            raise UnsupportedError(f"{what}: {device.filter_string} has no float64 support; "
                                   "use float32")


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
    _wait_for_producer_stream(cai, target)
    shape = tuple(cai["shape"])
    adt = np.dtype(cai["typestr"])
    strides = cai.get("strides")
    if strides is not None and tuple(strides) != tuple(s * adt.itemsize
                                                       for s in _c_strides(shape)):
        raise UnsupportedError("only C-contiguous __cuda_array_interface__ arrays are wrapped")
    arr = Array(shape, adt, target, _ptr=int(cai["data"][0]), _owner=obj)
    return arr if dtype is None or np.dtype(dtype) == adt else asarray(arr.asnumpy(), dtype,
                                                                      target)


def _wait_for_producer_stream(cai, device):
    """The CUDA Array Interface's ``stream`` (version 3): the producer may still be writing the
    data on that stream, so dpk waits for it before using the data (1 and 2 name the legacy
    and per-thread default streams, 0 is disallowed; None: nothing to wait for)."""
    stream = cai.get("stream")
    if stream is None:
        return
    if isinstance(stream, bool) or not isinstance(stream, int) or stream == 0:
        raise InvalidArgumentError(f"__cuda_array_interface__: stream {stream!r} is not a stream "
                                   "handle (0 is disallowed by the interface; None means none)")
    Queue.from_cuda_stream(stream, device=device).synchronize()


dlpack_device_of = interchange.dlpack_device_of
cuda_device_for = interchange.cuda_device_for


def _from_cuda_dlpack(obj, device, dtype):
    """Wraps a kDLCUDA producer's memory on its dpk CUDA device without copying (the dpk array
    holds the imported tensor, so the producer's memory stays valid); copies only when `device`
    names another device or `dtype` another type."""
    arr = interchange.from_dlpack(obj, Array, asarray)
    if device is not None and select_device(device) is not arr.device:
        arr = arr.to_device(device)
    return arr if dtype is None or np.dtype(dtype) == arr.dtype else asarray(arr.asnumpy(), dtype,
                                                                            arr.device)


def _infer_host(obj, dtype, device):
    """`obj` (Python scalars, nested sequences, NumPy arrays, buffers) as a NumPy array of a
    dpk dtype: bool, the default integer, the default float of `device` unless `dtype`."""
    if dtype is not None:
        dtype = D.normalize(dtype)
    if isinstance(obj, builtins.bool) or (isinstance(obj, int) and dtype is None):
        if not isinstance(obj, builtins.bool) and not -(1 << 63) <= obj < (1 << 63):
            raise OverflowError(f"asarray(): Python integer {obj} does not fit in int64")
    try:
        host = np.asarray(obj, dtype=dtype)
    except OverflowError:
        raise OverflowError(f"asarray(): a value of {obj!r} does not fit in "
                            f"{D.name(dtype) if dtype is not None else 'int64'}") from None
    if dtype is None:
        if host.dtype == np.float64 and not _has_float_input_dtype(obj):
            host = host.astype(D.default_float(device), copy=False)
        elif host.dtype == np.complex128 and not _has_float_input_dtype(obj):
            host = host.astype(D.default_complex(device), copy=False)
        elif host.dtype.kind in "US":
            raise DTypeError(f"asarray(): strings are not array data ({host.dtype})")
        elif host.dtype == object:
            raise DTypeError("asarray(): could not make a numeric array of this object")
    if not (supported_dtype(host.dtype) or host.dtype in D.COMPLEX):
        raise UnsupportedError(f"asarray(): dtype {host.dtype} is not supported by dpk arrays")
    return host


def _has_float_input_dtype(obj):
    return isinstance(obj, (np.ndarray, np.generic)) and obj.dtype in (np.float64, np.complex128)


def asarray(obj, /, dtype=None, device=None, copy=None) -> Array:
    """``obj`` as a dpk array on ``device`` (a filter string or Device; default: obj's own
    device for a dpk array, else the current device_context's device, else the policy's
    choice). ``copy``: True always copies, False never does (ValueError when it would have
    to), None copies when needed."""
    if isinstance(obj, Array):
        target = obj.device if device is None else select_device(device)
        want = obj.dtype if dtype is None else D.normalize(dtype)
        if target is obj.device and want == obj.dtype:
            return obj.copy() if copy else obj
        if copy is False:
            raise ValueError("asarray(copy=False): the array would have to be copied (another "
                             "device or dtype)")
        moved = obj if want == obj.dtype else astype_array(obj, want)
        return moved.to_device(target) if target is not obj.device else moved
    foreign = not isinstance(obj, (np.ndarray, np.generic, list, tuple, int, float, complex))
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
    target = _target(device)
    host = _infer_host(obj, dtype, target)
    if copy is False:
        if not (target.is_host and isinstance(obj, np.ndarray) and host is obj):
            raise ValueError("asarray(copy=False): the data must be copied to the device")
        itemsize = host.itemsize
        if any(s % itemsize for s in host.strides):
            # A field of a structured array: its elements are not a whole number of elements
            # apart, which a dpk view (strides in elements) cannot describe.
            raise ValueError(f"asarray(copy=False): the array's strides {host.strides} are not "
                             f"multiples of its element size ({itemsize} bytes); it must be "
                             "copied")
        strides = [s // itemsize for s in host.strides]
        extent = element_range(0, host.shape, strides)
        low, high = extent if extent is not None else (0, -1)
        # The buffer spans the elements the view reaches (negative strides reach below the
        # first element's address); an empty array spans none.
        base = Buffer(target, (high - low + 1) * itemsize, ptr=host.ctypes.data + low * itemsize,
                      owner=host, read_only=not host.flags.writeable)
        return Array._view(base, -low, host.shape, strides, D.normalize(host.dtype)
                           if host.dtype in D.ALL_TYPES else host.dtype, target)
    host = np.asarray(host, order="C")  # keeps 0-D arrays 0-D
    arr = Array(host.shape, host.dtype, target)
    arr._copy_from_host(host)
    return arr


def from_dlpack(x, /, *, device=None, copy=None) -> Array:
    """The Array API's ``from_dlpack``: zero-copy when the data can stay where it is (host
    memory on the host device, CUDA memory on its dpk CUDA device), else a copy on ``device``;
    ``copy=True`` always copies, ``copy=False`` never (BufferError). interchange.py says how."""
    return interchange.from_dlpack(x, Array, asarray, device, copy)


def _unpickle_array(data, device):
    return asarray(data, device=device, copy=True)


def asnumpy(x, /):
    """``dpk.asnumpy(x)``: a NumPy copy of x's data (NumPy values pass through)."""
    if isinstance(x, Array):
        return x.asnumpy()
    return np.asarray(x)


def astype_array(x, dtype):
    """x converted to `dtype` (a new lazy array of the same device)."""
    return Array._lazy(fusion.cast(x._as_node(), dtype))


def empty(shape, dtype=None, device=None) -> Array:
    target = _target(device)
    return Array(_shape_arg(shape), D.normalize(dtype) if dtype is not None
                 else D.default_float(target), target)


def zeros(shape, dtype=None, device=None) -> Array:
    arr = empty(shape, dtype, device)
    if arr.nbytes:
        arr.device.queue.fill(arr._base.ptr, b"\0", arr.nbytes).wait()
    return arr


def ones(shape, dtype=None, device=None) -> Array:
    if dtype is None:
        dtype = D.default_float(_target(device))
    return full(shape, 1, dtype, device)


def full(shape, fill_value, dtype=None, device=None) -> Array:
    """An array of `shape` filled with `fill_value` (a Python scalar or 0-D array)."""
    target = _target(device)
    if isinstance(fill_value, Array):
        if fill_value.ndim:
            raise ShapeError("full(): fill_value must be a scalar or a 0-D array")
        fill_value = fill_value._scalar("full")
    if dtype is None:
        dtype = D.scalar_dtype(fill_value if not isinstance(fill_value, np.generic)
                               else fill_value.item(), target)
        if isinstance(fill_value, np.generic):
            dtype = D.normalize(fill_value.dtype)
    else:
        dtype = D.normalize(dtype)
    _check_device_dtype("full()", target, dtype)
    arr = Array(_shape_arg(shape), dtype, target)
    if arr.size:
        value = fill_value.item() if isinstance(fill_value, np.generic) else fill_value
        if dtype.kind in "iu" and isinstance(value, float):
            value = int(value)
        if dtype.kind in "iu" and not isinstance(value, builtins.bool):
            D.check_int_range(int(value), dtype)
        fusion.run(fusion.scalar(value, dtype, target), arr._base, 0, arr._shape,
                   arr._strides, dtype)
    return arr


def _shape_arg(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    try:
        shape = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError(f"a shape is an int or a tuple of ints, not {shape!r}") from None
    if any(s < 0 for s in shape):
        raise ShapeError(f"negative dimensions are not allowed: {shape}")
    return shape


def devices_of(args):
    """The distinct devices of the dpk arrays among ``args``, in argument order."""
    found = []
    for a in args:
        if isinstance(a, Array) and a.device not in found:
            found.append(a.device)
    return found


# Launches tell dpk arrays from other buffers by this class; the buffer protocol of host arrays
# is __buffer__, the slot from Python 3.12 on (PEP 688), installed by the extension before.
interchange.register_array_class(Array)
