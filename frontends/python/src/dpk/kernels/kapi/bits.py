"""``popcount``: the bits set in an integer, for kernels and for their pure-Python execution."""

from __future__ import annotations

import numpy as np


def popcount(x):
    """The number of bits set in the integer ``x``'s representation, in ``x``'s type.

    ``x`` is counted as its dtype stores it (two's complement for signed types), so a negative
    number counts its sign bits: ``popcount(np.int32(-1))`` is 32, ``popcount(np.int8(-128))``
    is 1. A Python int (or bool) is an int64, as in kernel arithmetic. The result has ``x``'s
    dtype. Compiled, it is the IR's ``math popcount`` (``popc`` on CUDA, ``OpBitCount`` in SPIR-V,
    ``popcount()`` in OpenCL C, ``popcnt`` or a vector sequence on the host); floats are a
    KernelTypeError there and a TypeError here.

    Python's ``int.bit_count()`` and NumPy's ``bitwise_count`` count the bits of the absolute
    value instead (``(-1).bit_count()`` is 1); kernels accept ``x.bit_count()`` and
    ``np.bitwise_count(x)`` with those meanings.
    """
    if isinstance(x, (bool, np.bool_)):
        x = int(x)
    if isinstance(x, np.integer):
        bits = x.dtype.itemsize * 8
        return x.dtype.type((int(x) & ((1 << bits) - 1)).bit_count())
    if isinstance(x, int):
        return (x & ((1 << 64) - 1)).bit_count()
    raise TypeError(f"popcount() takes an integer, not {type(x).__name__}")
