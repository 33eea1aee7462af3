"""``LocalAccessor``: work-group local memory requested at launch (``sycl::local_accessor``).

A LocalAccessor is an argument of an NdRange launch. Compiled kernels allocate it per
work-group (its shape and dtype are part of the kernel's specialization); the pure-Python launcher
gives each work-group a fresh NumPy array. Outside a kernel its data cannot be accessed.
"""

from __future__ import annotations

import numpy as np

_SUPPORTED = tuple(np.dtype(t) for t in (
    np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
    np.uint32, np.uint64))


def _shape_tuple(shape, what):
    if hasattr(shape, "tolist") and not isinstance(shape, (list, tuple)):
        shape = shape.tolist()
    if not isinstance(shape, (list, tuple)):
        shape = (shape,)
    try:
        dims = tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise TypeError(f"{what} shape must be a positive int or a tuple of them") from None
    if not dims or len(dims) > 3 or any(d < 1 for d in dims):
        raise TypeError(f"{what} shape must have 1 to 3 positive extents, got {shape!r}")
    return dims


class LocalAccessor:
    """Local memory of ``shape`` (1-3 extents) and ``dtype``, one copy per work-group."""

    def __init__(self, shape, dtype) -> None:
        self._shape = _shape_tuple(shape, "LocalAccessor")
        self._dtype = np.dtype(dtype)
        if self._dtype not in _SUPPORTED:
            raise TypeError(
                f"LocalAccessor dtype {self._dtype} is not supported: use float32, float64 or a "
                "signed or unsigned integer of 8 to 64 bits")
        # The launch fast path keys kernel specializations on this string.
        self._dpk_sig = f"L{self._dtype.str}{self._shape}"

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self):
        return len(self._shape)

    def _allocate(self):
        return _LocalAccessorData(np.zeros(self._shape, dtype=self._dtype))

    def __getitem__(self, idx):
        raise NotImplementedError("the data of a LocalAccessor can only be accessed inside a kernel")

    def __setitem__(self, idx, val):
        raise NotImplementedError("the data of a LocalAccessor can only be accessed inside a kernel")


class _LocalAccessorData:
    """What a kernel sees of a LocalAccessor in the pure-Python mode: one work-group's array."""

    __slots__ = ("_data",)

    def __init__(self, data):
        self._data = data

    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)
    ndim = property(lambda self: self._data.ndim)

    def __getitem__(self, idx):
        return self._data[idx]

    def __setitem__(self, idx, val):
        self._data[idx] = val
