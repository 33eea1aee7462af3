"""Philox-4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
SC'11) as a dpk device function, and the kernels that turn its output into numbers.

Philox is a keyed bijection of a 128-bit counter: element i of a request depends only on the
key (the seed), the generator's counter position and i, so every device computes the same
words, and a launch can give each work-item its own block of 4 words with no state to share.
The arithmetic is 32x32->64-bit products and xors on unsigned integers, which every backend
does exactly; the conversions to uniform floats below are exact too (an integer of at most 24
or 53 bits times a power of two), so integer and uniform results are bit-identical on every
device. Normal numbers go through log/sqrt/cos/sin, whose last bit may differ between the
devices' math libraries.

Counter of block b of a request: (lo32(base + b), hi32(base + b), 0, 0) with the key
(lo32(seed), hi32(seed)); ``base`` is the generator's position in blocks.
"""

from __future__ import annotations

import math

import numpy as np

from ..kernels.dispatcher import device_func, kernel
from ..kernels.kapi import Item, PrivateArray

# The round constants of Philox-4x32 (Random123's philox.h names them PHILOX_M4x32_0/1 and
# PHILOX_W32_0/1; they are the SC'11 paper's multipliers and Weyl key increments).
MULTIPLIER_0 = 0xD2511F53
MULTIPLIER_1 = 0xCD9E8D57
WEYL_0 = 0x9E3779B9
WEYL_1 = 0xBB67AE85
ROUNDS = 10

_MASK32 = 0xFFFFFFFF
_TWO_PI = 2.0 * math.pi


@device_func
def philox4x32_10(c, k0, k1):
    """Encrypts the counter `c` (4 uint32, private memory) in place with key (k0, k1)."""
    for _ in range(ROUNDS):
        p0 = np.uint64(MULTIPLIER_0) * np.uint64(c[0])
        p1 = np.uint64(MULTIPLIER_1) * np.uint64(c[2])
        n0 = np.uint32(p1 >> 32) ^ c[1] ^ k0
        n2 = np.uint32(p0 >> 32) ^ c[3] ^ k1
        c[1] = np.uint32(p1)
        c[3] = np.uint32(p0)
        c[0] = n0
        c[2] = n2
        k0 = k0 + np.uint32(WEYL_0)
        k1 = k1 + np.uint32(WEYL_1)
    return 0


@device_func
def block_words(c, b, base, k0, k1):
    """The 4 words of block `b` of a request starting at block `base` into `c`."""
    position = base + np.uint64(b)
    c[0] = np.uint32(position)
    c[1] = np.uint32(position >> 32)
    c[2] = np.uint32(0)
    c[3] = np.uint32(0)
    philox4x32_10(c, k0, k1)
    return 0


@device_func
def unit24(w, plus):
    """The top 24 bits of w, plus `plus` (0, or 1 for a value in (0, 1]), times 2**-24: a
    float32 uniform in [0, 1), computed exactly."""
    return np.float32((w >> 8) + plus) * np.float32(5.9604644775390625e-08)  # 2**-24


@device_func
def unit53(hi, lo, plus):
    """53 random bits (27 of hi, 26 of lo), plus `plus` (0.0, or 1.0 for (0, 1]), times 2**-53:
    a float64 uniform in [0, 1), computed exactly."""
    return ((np.float64(hi >> 5) * 67108864.0 + np.float64(lo >> 6)) + plus) \
        * 1.1102230246251565e-16  # 2**26, 2**-53


@kernel
def raw_kernel(item: Item, out, n, base, k0, k1):
    """out[4b + j] = word j of block b (uint32)."""
    b = item.get_id(0)
    c = PrivateArray(4, np.uint32)
    block_words(c, b, base, k0, k1)
    for j in range(4):
        i = 4 * b + j
        if i < n:
            out[i] = c[j]


@kernel
def uniform32_kernel(item: Item, out, n, base, k0, k1, low, scale):
    """float32 in [low, low + scale): 4 per block, 24 random bits each."""
    b = item.get_id(0)
    c = PrivateArray(4, np.uint32)
    block_words(c, b, base, k0, k1)
    for j in range(4):
        i = 4 * b + j
        if i < n:
            out[i] = low + scale * unit24(c[j], np.uint32(0))


@kernel
def uniform64_kernel(item: Item, out, n, base, k0, k1, low, scale):
    """float64 in [low, low + scale): 2 per block, 53 random bits each (27 + 26 of two words)."""
    b = item.get_id(0)
    c = PrivateArray(4, np.uint32)
    block_words(c, b, base, k0, k1)
    for j in range(2):
        i = 2 * b + j
        if i < n:
            out[i] = low + scale * unit53(c[2 * j], c[2 * j + 1], 0.0)


@kernel
def normal32_kernel(item: Item, out, n, base, k0, k1, loc, scale):
    """float32 normal numbers by Box-Muller: 4 per block (two pairs of words)."""
    b = item.get_id(0)
    c = PrivateArray(4, np.uint32)
    block_words(c, b, base, k0, k1)
    for j in range(2):
        # u1 in (0, 1] so that log(u1) is finite; u2 in [0, 1)
        u1 = unit24(c[2 * j], np.uint32(1))
        u2 = unit24(c[2 * j + 1], np.uint32(0))
        r = math.sqrt(np.float32(-2.0) * math.log(u1))
        theta = np.float32(_TWO_PI) * u2
        i = 4 * b + 2 * j
        if i < n:
            out[i] = loc + scale * (r * math.cos(theta))
        if i + 1 < n:
            out[i + 1] = loc + scale * (r * math.sin(theta))


@kernel
def normal64_kernel(item: Item, out, n, base, k0, k1, loc, scale):
    """float64 normal numbers by Box-Muller: 2 per block (53-bit uniforms from word pairs)."""
    b = item.get_id(0)
    c = PrivateArray(4, np.uint32)
    block_words(c, b, base, k0, k1)
    u1 = unit53(c[0], c[1], 1.0)  # (0, 1]: log(u1) is finite
    u2 = unit53(c[2], c[3], 0.0)
    r = math.sqrt(-2.0 * math.log(u1))
    theta = _TWO_PI * u2
    i = 2 * b
    if i < n:
        out[i] = loc + scale * (r * math.cos(theta))
    if i + 1 < n:
        out[i + 1] = loc + scale * (r * math.sin(theta))


@kernel
def integers_kernel(item: Item, out, n, base, k0, k1, low, span):
    """low + (64 random bits mod span): 2 per block. The bias of the modulo is below
    span / 2**64 (2**-32 for spans up to 2**32); span 0 stands for 2**64."""
    b = item.get_id(0)
    c = PrivateArray(4, np.uint32)
    block_words(c, b, base, k0, k1)
    for j in range(2):
        i = 2 * b + j
        if i < n:
            bits = (np.uint64(c[2 * j]) << 32) | np.uint64(c[2 * j + 1])
            if span != np.uint64(0):
                bits = bits % span
            out[i] = low + np.int64(bits)


def reference_words(seed, base, blocks):
    """The same words computed with NumPy on the host (uint32, 4 per block): the tests'
    reference and a host-side check."""
    b = np.arange(blocks, dtype=np.uint64) + np.uint64(base)
    c = [(b & np.uint64(_MASK32)), (b >> np.uint64(32)), np.zeros_like(b), np.zeros_like(b)]
    k0 = np.uint64(seed & _MASK32)
    k1 = np.uint64((seed >> 32) & _MASK32)
    return reference_philox(c, k0, k1)


def reference_philox(c, k0, k1):
    """Philox-4x32-10 over arrays of counters (uint64 arrays holding 32-bit words)."""
    mask = np.uint64(_MASK32)
    c = [np.asarray(w, dtype=np.uint64) for w in c]
    k0, k1 = np.uint64(k0), np.uint64(k1)
    for _ in range(ROUNDS):
        p0 = np.uint64(MULTIPLIER_0) * c[0]
        p1 = np.uint64(MULTIPLIER_1) * c[2]
        c = [((p1 >> np.uint64(32)) ^ c[1] ^ k0) & mask, p1 & mask,
             ((p0 >> np.uint64(32)) ^ c[3] ^ k1) & mask, p0 & mask]
        k0 = (k0 + np.uint64(WEYL_0)) & mask
        k1 = (k1 + np.uint64(WEYL_1)) & mask
    return np.stack(c, axis=-1).astype(np.uint32).reshape(-1)
