"""matmul through the device's vendor BLAS (the plugin entry enqueue_gemm: OpenBLAS or BLIS on
the host, cuBLAS on CUDA), when the device has one and the operands fit its layout; matmul.py's
generated kernel runs otherwise and stays the portable path.

Fits: both operands and the result of one type, float32 or float64; each operand's matrix
row-major in memory (the last index contiguous) or transposed (the first one contiguous), with
non-negative leading dimensions; sizes below 2^31 (the libraries' ints). A batch whose entries
are a fixed stride apart (or one matrix broadcast over it) is one batched call; any other batch
of up to ``_MAX_LOOPED`` entries is a call per entry.

``DPK_VENDOR_BLAS=0`` (or ``set_enabled(False)``) forces the generated kernel everywhere, for
comparisons and tests. A backend without a BLAS answers UnsupportedError once; the device is
then remembered and not asked again. Diagnostics level 3: an ``arrays.matmul`` record per
matmul says which path it took and, for the kernel, why.
"""

from __future__ import annotations

import os

import numpy as np

from .._errors import UnsupportedError
from .._runtime import diagnostics
from . import generated as G
from .memory import size_of

_TYPES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2}
_TRANS_A, _TRANS_B = 1, 2
_INT_MAX = 2**31 - 1
_MAX_LOOPED = 64

_enabled = os.environ.get("DPK_VENDOR_BLAS", "1").strip().lower() not in ("0", "off", "false",
                                                                          "no")
_unsupported = {}  # device handle -> the backend's reason


def set_enabled(flag):
    """Turns the vendor path on or off for this process (DPK_VENDOR_BLAS's default)."""
    global _enabled
    _enabled = bool(flag)


def enabled():
    return _enabled


def _layout(rows, cols, srow, scol):
    """(transposed, ld) of a rows x cols matrix with these element strides, as BLAS reads it,
    or None when it cannot. A dimension of extent 0 or 1 has no stride worth keeping."""
    if cols <= 1 or scol == 1:
        ld = srow if rows > 1 and cols > 0 else max(cols, 1)
        if ld >= max(cols, 1):
            return False, ld
    if rows <= 1 or srow == 1:
        ld = scol if cols > 1 and rows > 0 else max(rows, 1)
        if ld >= max(rows, 1):
            return True, ld
    return None


def _batch_stride(shape, strides):
    """The one stride between consecutive entries of a C-order batch, or None when the
    entries are not evenly spaced (or go backwards)."""
    dims = [(n, s) for n, s in zip(shape, strides) if n > 1]
    if not dims:
        return 0
    step = dims[-1][1]
    expected = step
    for n, s in reversed(dims):
        if s != expected:
            return None
        expected = s * n
    return step if step >= 0 else None


def _report(path, reason, device, dtype, M, N, K, nbatch):
    diagnostics.emit(3, "arrays.matmul", {
        "path": path, "reason": reason, "device": device.filter_string, "dtype": dtype.name,
        "shape": f"{M}x{N}x{K}", "batch": nbatch})


def _why_not(a, b, batch_shape, a_batch, b_batch, dtype, device):
    """Why the operands cannot go to the vendor GEMM ("" when they can)."""
    if not _enabled:
        return "DPK_VENDOR_BLAS=0"
    reason = _unsupported.get(device._dev.handle)
    if reason is not None:
        return f"no vendor BLAS: {reason}"
    if dtype not in _TYPES or a[4] != dtype or b[4] != dtype:
        return f"types {a[4].name} @ {b[4].name} (vendor GEMM: float32 and float64)"
    (_, _, (M, K), (sam, sak), _) = a
    (_, _, (_, N), (sbk, sbn), _) = b
    if max(M, N, K, size_of(batch_shape)) > _INT_MAX:
        return "sizes past 2^31 - 1"
    if _layout(M, K, sam, sak) is None or _layout(K, N, sbk, sbn) is None:
        return "an operand is neither row- nor column-contiguous"
    if size_of(batch_shape) > _MAX_LOOPED and (_batch_stride(batch_shape, a_batch) is None or
                                               _batch_stride(batch_shape, b_batch) is None):
        return "a large batch whose entries are not evenly spaced"
    return ""


def try_gemm(out, a, b, batch_shape, a_batch, b_batch, dtype, device):
    """Computes C = A @ B into `out` (C order, batch + (M, N)) with the vendor GEMM and returns
    True, or returns False (having written nothing) when the kernel must do it."""
    (abuf, aoff, (M, K), (sam, sak), _) = a
    (bbuf, boff, (_, N), (sbk, sbn), _) = b
    nbatch = size_of(batch_shape)
    reason = _why_not(a, b, batch_shape, a_batch, b_batch, dtype, device)
    if reason:
        _report("generated", reason, device, dtype, M, N, K, nbatch)
        return False
    trans_a, lda = _layout(M, K, sam, sak)
    trans_b, ldb = _layout(K, N, sbk, sbn)
    flags = (_TRANS_A if trans_a else 0) | (_TRANS_B if trans_b else 0)
    item = dtype.itemsize
    a_ptr, b_ptr = abuf.ptr + aoff * item, bbuf.ptr + boff * item
    stride_a, stride_b = _batch_stride(batch_shape, a_batch), _batch_stride(batch_shape, b_batch)
    if stride_a is not None and stride_b is not None:
        calls = [(a_ptr, b_ptr, out.ptr, nbatch, stride_a, stride_b)]
    else:
        calls = []
        for i, index in enumerate(np.ndindex(*batch_shape)):
            da = sum(int(x) * s for x, s in zip(index, a_batch))
            db = sum(int(x) * s for x, s in zip(index, b_batch))
            calls.append((a_ptr + da * item, b_ptr + db * item, out.ptr + i * M * N * item,
                          1, 0, 0))
    keep = None if device.is_host else (abuf, bbuf, out)
    queue = device.queue
    for n, (pa, pb, pc, count, sa, sb) in enumerate(calls):
        try:
            event = queue.gemm(_TYPES[dtype], flags, M, N, K, pa, lda, pb, ldb, pc, N,
                               batch=count, stride_a=sa, stride_b=sb, stride_c=M * N,
                               keepalive=keep)
        except UnsupportedError as e:
            if n:  # the backend took the first call: this is no missing library
                raise
            _unsupported[device._dev.handle] = str(e)
            _report("generated", f"no vendor BLAS: {e}", device, dtype, M, N, K, nbatch)
            return False
        if G.waits_at_once(device):
            event.wait()
        else:
            G.track_event(device, event)
    _report("vendor", "", device, dtype, M, N, K, nbatch)
    return True
