"""Float sort keys: the bits of a float as an unsigned integer whose order is NumPy's sort order
(negatives complemented, positives with the sign bit set; both zeros the key of +0.0, every NaN
the largest key; descending: the complement), and back.

The device functions are shared by the stand-alone kernels here (every device: the keys of an
array, and floats from sorted keys) and by the radix sort's sub-group passes, which apply them as
they read the first pass's input and write the last pass's output (radix_sort.py), so that a
float sort makes no separate passes over the data for them.

A key gives back its float except for -0.0 (it comes back +0.0) and NaNs other than the
canonical one (they come back canonical); ``float_special`` says which inputs those are.
"""

from __future__ import annotations

import numpy as np

from ..kernels.dispatcher import device_func, kernel
from ..kernels.kapi import AtomicRef, Item


@device_func
def float_key(b, sign, infinity, largest, flip):
    """The key of the float bits b (unsigned: uint32 for float32, uint64 for float64)."""
    magnitude = b & (sign - 1)
    k = ~b if b >= sign else b | sign
    if magnitude == 0:
        k = sign
    if magnitude > infinity:
        k = largest
    return k ^ flip


@device_func
def float_special(b, sign, infinity, canonical):
    """Whether float_of_key(float_key(b)) is not b: -0.0 and non-canonical NaNs."""
    magnitude = b & (sign - 1)
    return (magnitude == 0 and b != 0) or (magnitude > infinity and b != canonical)


@device_func
def float_of_key(key, sign, largest, flip, canonical):
    """The float bits of a key (float_key's inverse where it has one)."""
    k = key ^ flip
    b = canonical
    if k != largest:
        b = k ^ sign if k >= sign else ~k
    return b


@kernel
def float_keys_kernel(item: Item, bits, keys, sign, infinity, largest, flip, canonical,
                      specials):
    # keys[i] = float_key(bits[i]); specials[0] counts the inputs their keys do not give back
    i = item.get_id(0)
    b = bits[i]
    if float_special(b, sign, infinity, canonical):
        AtomicRef(specials, 0).fetch_add(1)
    keys[i] = float_key(b, sign, infinity, largest, flip)


@kernel
def floats_from_keys_kernel(item: Item, keys, bits, sign, largest, flip, canonical):
    i = item.get_id(0)
    bits[i] = float_of_key(keys[i], sign, largest, flip, canonical)


def key_constants(dt, descending):
    """The constants of float dtype dt's keys: the unsigned dtype, its width, and the scalars
    the device functions take (sign, infinity, largest, flip, canonical)."""
    width = 8 * dt.itemsize
    udt = np.dtype(np.uint32 if width == 32 else np.uint64)
    largest = udt.type((1 << width) - 1)
    return dict(udt=udt, width=width, sign=udt.type(1 << (width - 1)),
                infinity=udt.type(0x7F800000 if width == 32 else 0x7FF0000000000000),
                canonical=udt.type(0x7FC00000 if width == 32 else 0x7FF8000000000000),
                largest=largest, flip=largest if descending else udt.type(0))
