"""``PrivateArray``: a small array private to one work-item (kapi's PrivateArray).

Its shape and dtype must be compile-time constants in a compiled kernel.
"""

from __future__ import annotations

import numpy as np


class PrivateArray:
    """An array of ``shape`` and ``dtype`` owned by the work-item that creates it."""

    __slots__ = ("_data",)

    def __init__(self, shape, dtype, fill_zeros=False) -> None:
        if fill_zeros:
            self._data = np.zeros(shape, dtype=dtype)
        else:
            self._data = np.empty(shape, dtype=dtype)

    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)
    ndim = property(lambda self: self._data.ndim)

    def __getitem__(self, idx):
        return self._data[idx]

    def __setitem__(self, idx, val):
        self._data[idx] = val
