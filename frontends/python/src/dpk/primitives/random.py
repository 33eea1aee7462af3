"""``dpk.random``: a counter-based generator (Philox-4x32-10, philox.py) whose numbers are the
same on every device for the same seed.

A ``Generator`` holds a 64-bit key (the seed) and a position in Philox blocks (a counter): each
request takes the blocks it needs and advances the position, so consecutive requests never
overlap and the numbers of a request depend only on (seed, position, size, dtype), never on the
device or its work-group sizes. ``Generator.spawn``/``stream`` are not provided: two seeds give
independent streams (the key differs).

Per request: float32 uniform and normal use 4 values per block (one word each for uniform, a
word pair per normal pair), float64 uniform/normal and integers use 2 (a word pair per value).
"""

from __future__ import annotations

import operator
import os

import numpy as np

from .._errors import DTypeError
from ..arrays import dtypes as D
from ..arrays.array_object import _target, empty
from ..arrays.manipulation_functions import reshape
from ..kernels.dispatcher import call_kernel
from ..kernels.kapi import Range
from . import philox

_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1


def _shape(size):
    if size is None:
        return ()
    if isinstance(size, (tuple, list)):
        return tuple(operator.index(s) for s in size)
    return (operator.index(size),)


class Generator:
    """Philox-4x32-10 numbers as dpk arrays. ``seed``: an int (taken modulo 2**64) or None
    (64 bits from the operating system). ``device``: where the arrays are made (a Device or a
    filter string); None: the current device at each call (``dpk.device_context``, else the
    policy's default)."""

    def __init__(self, seed=None, *, device=None):
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        self.seed = operator.index(seed) & _MASK64
        self.position = 0  # in Philox blocks of 4 words
        self.device = device

    def __repr__(self):
        return f"dpk.random.Generator(seed={self.seed}, position={self.position})"

    # ---- plumbing ---------------------------------------------------------------------------

    def _run(self, kern, shape, dtype, per_block, device, *params):
        device = _target(device if device is not None else self.device)
        n = 1
        for s in shape:
            if s < 0:
                raise ValueError(f"negative dimension in size {shape}")
            n *= s
        out = empty((n,), dtype=dtype, device=device)
        blocks = -(-n // per_block)
        if blocks:
            call_kernel(kern, Range(blocks), out, n, np.uint64(self.position),
                        np.uint32(self.seed & _MASK32), np.uint32(self.seed >> 32), *params)
        self.position = (self.position + blocks) & _MASK64
        return reshape(out, shape) if shape != (n,) else out

    @staticmethod
    def _float_dtype(dtype, device, what):
        if dtype is None:
            return D.default_float(device)
        dtype = D.normalize(dtype)
        if dtype not in (D.float32, D.float64):
            raise DTypeError(f"{what}: dtype must be float32 or float64, not {D.name(dtype)}")
        return dtype

    # ---- the distributions ------------------------------------------------------------------

    def random_raw(self, size=None, *, device=None):
        """uint32 words straight from Philox (4 per block)."""
        return self._run(philox.raw_kernel, _shape(size), D.uint32, 4, device)

    def random(self, size=None, dtype=None, *, device=None):
        """Uniform numbers in [0, 1)."""
        return self.uniform(0.0, 1.0, size, dtype=dtype, device=device)

    def uniform(self, low=0.0, high=1.0, size=None, *, dtype=None, device=None):
        """Uniform numbers in [low, high) (float32: 24 random bits; float64: 53)."""
        dev = _target(device if device is not None else self.device)
        dtype = self._float_dtype(dtype, dev, "uniform()")
        scale = float(high) - float(low)
        if dtype == D.float32:
            return self._run(philox.uniform32_kernel, _shape(size), dtype, 4, dev,
                             np.float32(low), np.float32(scale))
        return self._run(philox.uniform64_kernel, _shape(size), dtype, 2, dev,
                         np.float64(low), np.float64(scale))

    def normal(self, loc=0.0, scale=1.0, size=None, *, dtype=None, device=None):
        """Normal numbers (Box-Muller transform of Philox uniforms)."""
        dev = _target(device if device is not None else self.device)
        dtype = self._float_dtype(dtype, dev, "normal()")
        if float(scale) < 0:
            raise ValueError("normal(): scale must be non-negative")
        if dtype == D.float32:
            return self._run(philox.normal32_kernel, _shape(size), dtype, 4, dev,
                             np.float32(loc), np.float32(scale))
        return self._run(philox.normal64_kernel, _shape(size), dtype, 2, dev,
                         np.float64(loc), np.float64(scale))

    def standard_normal(self, size=None, dtype=None, *, device=None):
        """Normal numbers of mean 0 and standard deviation 1."""
        return self.normal(0.0, 1.0, size, dtype=dtype, device=device)

    def integers(self, low, high=None, size=None, dtype=D.int64, endpoint=False, *,
                 device=None):
        """Integers in [low, high) ([low, high] with endpoint=True), as NumPy's
        ``Generator.integers``; ``integers(n)`` is [0, n)."""
        if high is None:
            low, high = 0, low
        low, high = operator.index(low), operator.index(high)
        if endpoint:
            high += 1
        dtype = D.normalize(dtype)
        if dtype.kind not in "iu":
            raise DTypeError(f"integers(): dtype must be an integer type, not {D.name(dtype)}")
        if high <= low:
            raise ValueError(f"integers(): low ({low}) must be less than high ({high})")
        info = np.iinfo(dtype)
        if low < info.min or high - 1 > info.max:
            raise ValueError(f"integers(): [{low}, {high}) does not fit {D.name(dtype)}")
        span = high - low
        if span > 1 << 64:
            raise ValueError("integers(): the range is wider than 2**64")
        # low travels as int64 bits (a uint64 low above 2**63 wraps, and so does the sum)
        low_bits = low - (1 << 64) if low >= 1 << 63 else low
        return self._run(philox.integers_kernel, _shape(size), dtype, 2, device,
                         np.int64(low_bits), np.uint64(span & _MASK64))


def default_rng(seed=None, *, device=None):
    """A new Generator (NumPy's name)."""
    return Generator(seed, device=device)


_global = Generator()


def seed(value=None):
    """Re-seeds the generator behind the module-level functions (its position restarts)."""
    global _global
    _global = Generator(value)


def _module_function(name):
    method = getattr(Generator, name)

    def fn(*args, **kwargs):
        return method(_global, *args, **kwargs)
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = method.__doc__ + " (the module's generator: ``dpk.random.seed``)"
    return fn


random = _module_function("random")
random_raw = _module_function("random_raw")
uniform = _module_function("uniform")
normal = _module_function("normal")
standard_normal = _module_function("standard_normal")
integers = _module_function("integers")

__all__ = ["Generator", "default_rng", "integers", "normal", "random", "random_raw", "seed",
           "standard_normal", "uniform"]
