"""What an expression evaluates to while a kernel is compiled.

Run-time scalars carry an IR value (or, for literals, a Python value that becomes an IR constant
of whatever type the use needs); arrays carry the IR view or pointer; ids, ranges of items,
modules, functions, dtypes and enums are compile-time objects with no IR at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Scalar:
    """A number or bool. ``ir`` is None for a literal not yet materialised (``py`` holds it)."""

    ir: object
    dtype: np.dtype
    weak: bool = False
    py: object = None

    @property
    def is_literal(self):
        return self.ir is None


@dataclass
class ViewArray:
    """A global-memory array argument: an IR view<global, T, ndim>."""

    ir: object
    dtype: np.dtype
    ndim: int
    param: int = -1  # which kernel argument it is (-1: not a kernel argument)


@dataclass
class PointerArray:
    """Local or private memory of static shape: an IR pointer, row-major."""

    ir: object
    dtype: np.dtype
    shape: tuple
    space: str  # "local" or "private"

    @property
    def ndim(self):
        return len(self.shape)


@dataclass
class StridedArray:
    """A view into another array (a row ``a[i]``, a slice ``a[:, j]``, ``a[i, 1:4]``): a pointer
    to its first element with run-time extents and strides (Scalars, in elements). ``space`` is
    the pointer's address space ("global", "local" or "private"); ``param`` is the kernel
    argument it views (-1: none), so that stores through it mark that argument written."""

    ir: object
    dtype: np.dtype
    shape: list
    strides: list
    space: str
    param: int = -1

    @property
    def ndim(self):
        return len(self.shape)


@dataclass
class TupleValue:
    items: list


@dataclass
class Const:
    """A compile-time Python object (module, function, dtype, enum member, ...)."""

    obj: object


@dataclass
class IndexSpace:
    """An Item, NdItem, Group or SubGroup of the launch (``kind`` is "item", "nditem", "group"
    or "subgroup").
    ``note`` explains, for error messages, why a kernel parameter was taken as the item."""

    kind: str
    ndim: int
    note: str = None


@dataclass
class Atomic:
    """An AtomicRef: element ``idx`` (IR i64) of pointer ``ptr``."""

    ptr: object
    idx: object
    dtype: np.dtype
    order: object
    scope: object


@dataclass
class BoundMethod:
    obj: object
    name: str


@dataclass
class Slot:
    """A mutable scalar variable: a one-element private alloca."""

    ptr: object
    dtype: np.dtype
    weak: bool = False
    extra: dict = field(default_factory=dict)
