"""The standard's linalg extension (``dpk.linalg``).

Array-level functions (matmul, tensordot, vecdot, matrix_transpose, diagonal, trace, outer,
cross, vector_norm, matrix_norm, matrix_power) are array operations: views, fused elementwise
graphs, reductions and the tiled matmul kernel. Factorizations (cholesky, det, slogdet, inv,
solve, qr, eigh, eigvalsh, svd, svdvals, pinv, matrix_rank) run the kernels of
linalg_kernels.py, one work-item per matrix of the batch. Integer inputs are factored in the
default floating type. Complex inputs are not supported (dpk has no complex dtypes yet).
"""

from __future__ import annotations

import math
import operator
from collections import namedtuple

from .._errors import DTypeError, ShapeError
from ..arrays import dtypes as D
from ..arrays.array_object import Array
from ..arrays.elementwise_ops import broadcast_shapes, common_device
from ..arrays.creation_functions import eye, zeros
from ..arrays.data_type_functions import astype
from ..arrays.linear_algebra_functions import matmul, matrix_transpose, tensordot, vecdot
from ..arrays.manipulation_functions import broadcast_to, concat, moveaxis, reshape, stack
from ..arrays.memory import size_of
from ..arrays.elementwise_functions import abs as eabs, log as elog, sign as esign
from ..arrays.elementwise_functions import imag, real
from ..arrays.statistical_functions import max as amax, min as amin, prod as aprod
from ..arrays.statistical_functions import sum as asum
from ..kernels.dispatcher import call_kernel
from ..kernels.kapi import Range
from . import linalg_kernels as K

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])

_SWEEPS = 60


def _check(x, what, min_ndim=2):
    if not isinstance(x, Array):
        raise TypeError(f"{what} takes a dpk array, not {type(x).__name__}")
    if x.ndim < min_ndim:
        raise ShapeError(f"{what} needs at least {min_ndim} dimensions, not {x.ndim}")


def _float(x, what):
    if x.dtype.kind == "f":
        return x.dtype
    if x.dtype.kind == "b":
        raise DTypeError(f"{what} needs a floating-point (or integer) array, not bool")
    return D.default_float(x.device)


def _square(x, what):
    _check(x, what)
    if x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"{what} needs square matrices, not {x.shape[-2:]}")


def _batch(x, dtype):
    """A C-contiguous (B, m, n) working copy of x in dtype."""
    m, n = x.shape[-2:]
    b = size_of(x.shape[:-2])
    work = astype(x, dtype, copy=True)
    work._materialize()
    return reshape(work, (b, m, n)), b


# ---- array-level functions ------------------------------------------------------------------

def diagonal(x, /, *, offset=0):
    """The offset-th diagonal of the last two dimensions, as a view."""
    _check(x, "diagonal()")
    x._materialize()
    n, m = x.shape[-2:]
    offset = operator.index(offset)
    if offset >= 0:
        size = max(0, min(n, m - offset))
        start = offset * x._strides[-1]
    else:
        size = max(0, min(n + offset, m))
        start = -offset * x._strides[-2]
    return Array._view(x._base, x._offset + (start if size else 0), x.shape[:-2] + (size,),
                       x._strides[:-2] + (x._strides[-2] + x._strides[-1],), x.dtype,
                       x.device)


def trace(x, /, *, offset=0, dtype=None):
    return asum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def outer(x1, x2, /):
    for x in (x1, x2):
        if not isinstance(x, Array) or x.ndim != 1:
            raise ShapeError("outer() takes two 1-D dpk arrays")
    common_device("outer()", [x1, x2])
    return reshape(x1, (-1, 1)) * reshape(x2, (1, -1))


def cross(x1, x2, /, *, axis=-1):
    for x in (x1, x2):
        if not isinstance(x, Array):
            raise TypeError("cross() takes dpk arrays")
    axis = operator.index(axis)
    if axis >= 0:
        raise ValueError("cross(): axis must be negative (counted from the end)")
    shape = broadcast_shapes("cross()", x1.shape, x2.shape)
    for x in (x1, x2):
        if x.ndim < -axis or x.shape[axis] != 3:
            raise ShapeError(f"cross(): axis {axis} must have size 3 in {x1.shape} and "
                             f"{x2.shape}")
    a = moveaxis(broadcast_to(x1, shape), axis, -1)
    b = moveaxis(broadcast_to(x2, shape), axis, -1)
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    out = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(out, -1, axis)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    if not isinstance(x, Array):
        raise TypeError("vector_norm() takes a dpk array")
    dtype = _float(x, "vector_norm()")
    a = abs(astype(x, dtype, copy=False))
    if ord == 2:
        return (asum(a * a, axis=axis, keepdims=keepdims)) ** 0.5
    if ord == 1:
        return asum(a, axis=axis, keepdims=keepdims)
    if ord == math.inf:
        return amax(a, axis=axis, keepdims=keepdims) if a.size else \
            asum(a, axis=axis, keepdims=keepdims)
    if ord == -math.inf:
        return amin(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return astype(asum(a != 0, axis=axis, keepdims=keepdims), dtype)
    p = float(ord)
    return asum(a ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002
    _check(x, "matrix_norm()")
    dtype = _float(x, "matrix_norm()")
    a = abs(astype(x, dtype, copy=False))
    axes = (-2, -1)
    if ord == "fro":
        r = asum(a * a, axis=axes, keepdims=keepdims) ** 0.5
    elif ord in (1, -1):
        cols = asum(a, axis=-2, keepdims=True)
        r = (amax if ord == 1 else amin)(cols, axis=-1, keepdims=True)
        r = r if keepdims else reshape(r, x.shape[:-2])
    elif ord in (math.inf, -math.inf):
        rows = asum(a, axis=-1, keepdims=True)
        r = (amax if ord == math.inf else amin)(rows, axis=-2, keepdims=True)
        r = r if keepdims else reshape(r, x.shape[:-2])
    elif ord in ("nuc", 2, -2):
        s = svdvals(astype(x, dtype, copy=False))
        r = asum(s, axis=-1) if ord == "nuc" else (amax if ord == 2 else amin)(s, axis=-1)
        if keepdims:
            r = reshape(r, x.shape[:-2] + (1, 1))
    else:
        raise ValueError(f"matrix_norm(): unknown ord {ord!r}")
    return r


def matrix_power(x, n, /):
    _square(x, "matrix_power()")
    n = operator.index(n)
    if n == 0:
        ident = eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return broadcast_to(ident, x.shape).copy()
    base = inv(x) if n < 0 else x
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result if result is not x else x.copy()


# ---- factorizations -------------------------------------------------------------------------

def _lu(x, what):
    _square(x, what)
    dtype = _float(x, what)
    a, b = _batch(x, dtype)
    n = x.shape[-1]
    piv = zeros((b, max(n, 1)), dtype=D.int64, device=x.device)
    sign = zeros((b,), dtype=dtype, device=x.device)
    if b and n:
        call_kernel(K.lu_factor, Range(b), a, piv, sign)
    return a, piv, sign, dtype


def det(x, /):
    a, piv, sign, dtype = _lu(x, "det()")
    n = x.shape[-1]
    if n == 0:
        return reshape(zeros(x.shape[:-2], dtype=dtype, device=x.device) + 1, x.shape[:-2])
    return reshape(sign * aprod(diagonal(a), axis=-1), x.shape[:-2])


def slogdet(x, /):
    a, piv, sign, dtype = _lu(x, "slogdet()")
    n = x.shape[-1]
    shape = x.shape[:-2]
    if n == 0:
        one = zeros(shape, dtype=dtype, device=x.device) + 1
        return SlogdetResult(one, zeros(shape, dtype=dtype, device=x.device))
    d = diagonal(a)
    s = sign * aprod(esign(d), axis=-1)  # 0 for a singular matrix
    logabs = asum(elog(eabs(d)), axis=-1)
    return SlogdetResult(reshape(s, shape), reshape(logabs, shape))


def solve(x1, x2, /):
    _square(x1, "solve()")
    if not isinstance(x2, Array):
        raise TypeError("solve() takes dpk arrays")
    common_device("solve()", [x1, x2])
    dtype = D.promote(_float(x1, "solve()"), _float(x2, "solve()"))
    n = x1.shape[-1]
    vector = x2.ndim == 1
    rhs = reshape(x2, (n, 1)) if vector else x2
    if rhs.shape[-2] != n:
        raise ShapeError(f"solve(): x2's shape {x2.shape} does not match x1's {x1.shape}")
    batch = broadcast_shapes("solve()", x1.shape[:-2], rhs.shape[:-2])
    a = broadcast_to(x1, batch + (n, n))
    r = broadcast_to(rhs, batch + rhs.shape[-2:])
    lu, piv, _, _ = _lu(astype(a, dtype, copy=False), "solve()")
    sol, b = _batch(r, dtype)
    k = r.shape[-1]
    if b and n and k:
        call_kernel(K.lu_solve, Range(b, k), lu, piv, sol)
    out = reshape(sol, batch + (n, k))
    return reshape(out, batch + (n,)) if vector else out


def inv(x, /):
    _square(x, "inv()")
    n = x.shape[-1]
    ident = broadcast_to(eye(n, dtype=_float(x, "inv()"), device=x.device), x.shape)
    return solve(x, ident)


def cholesky(x, /, *, upper=False):
    _square(x, "cholesky()")
    dtype = _float(x, "cholesky()")
    a, b = _batch(x, dtype)
    if b and x.shape[-1]:
        call_kernel(K.cholesky_factor, Range(b), a)
    low = reshape(a, x.shape)
    return matrix_transpose(low).copy() if upper else low


def qr(x, /, *, mode="reduced"):
    _check(x, "qr()")
    if mode not in ("reduced", "complete"):
        raise ValueError("qr(): mode must be 'reduced' or 'complete'")
    dtype = _float(x, "qr()")
    m, n = x.shape[-2:]
    r, b = _batch(x, dtype)
    q = broadcast_to(eye(m, dtype=dtype, device=x.device), (b, m, m)).copy()
    work = zeros((b, max(m, 1)), dtype=dtype, device=x.device)
    if b and m and n:
        call_kernel(K.householder_qr, Range(b), r, q, work)
    batch = x.shape[:-2]
    k = min(m, n)
    if mode == "complete":
        return QRResult(reshape(q, batch + (m, m)), reshape(r, batch + (m, n)))
    return QRResult(reshape(q[:, :, :k].copy(), batch + (m, k)),
                    reshape(r[:, :k, :].copy(), batch + (k, n)))


def eigh(x, /):
    _square(x, "eigh()")
    dtype = _float(x, "eigh()")
    a, b = _batch(x, dtype)
    n = x.shape[-1]
    vecs = broadcast_to(eye(n, dtype=dtype, device=x.device), (b, n, n)).copy()
    w = zeros((b, max(n, 1)), dtype=dtype, device=x.device)
    if b and n:
        call_kernel(K.jacobi_eigh, Range(b), a, vecs, w, _SWEEPS,
                    float(D.finfo_object(dtype).eps))
    return EighResult(reshape(w[:, :n].copy(), x.shape[:-1]), reshape(vecs, x.shape))


def eigvalsh(x, /):
    return eigh(x).eigenvalues


def _svd(x, full_matrices, want_vectors):
    _check(x, "svd()")
    dtype = _float(x, "svd()")
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    flip = m < n
    a = matrix_transpose(x) if flip else x
    mm, nn = (n, m) if flip else (m, n)
    u, b = _batch(a, dtype)
    vt = broadcast_to(eye(nn, dtype=dtype, device=x.device), (b, nn, nn)).copy()
    s = zeros((b, max(nn, 1)), dtype=dtype, device=x.device)
    if b and nn and mm:
        call_kernel(K.jacobi_svd, Range(b), u, vt, s, _SWEEPS,
                    float(D.finfo_object(dtype).eps))
    k = min(m, n)
    svals = reshape(s[:, :nn].copy(), batch + (k,))
    if not want_vectors:
        return svals
    if full_matrices and mm > nn:
        full = zeros((b, mm, mm), dtype=dtype, device=x.device)
        full[:, :, :nn] = u
        if b:
            call_kernel(K.complete_basis, Range(b), full, nn)
        u = full
    elif b and mm and nn:
        call_kernel(K.complete_basis, Range(b), u, nn)  # columns of zero singular values
    ucols = u.shape[-1]
    U = reshape(u, batch + (mm, ucols))
    V = reshape(matrix_transpose(vt).copy(), batch + (nn, nn))
    if flip:
        # x^T = U S V^T, so x = V S U^T
        return SVDResult(V, svals, matrix_transpose(U).copy())
    return SVDResult(U, svals, matrix_transpose(V).copy())


def svd(x, /, *, full_matrices=True):
    return _svd(x, full_matrices, True)


def svdvals(x, /):
    return _svd(x, False, False)


def _rtol(x, rtol, s):
    if rtol is None:
        return max(x.shape[-2:]) * D.finfo_object(s.dtype).eps
    return rtol


def matrix_rank(x, /, *, rtol=None):
    _check(x, "matrix_rank()")
    s = svdvals(x)
    if s.shape[-1] == 0:
        return zeros(x.shape[:-2], dtype=D.int64, device=x.device)
    tol = amax(s, axis=-1, keepdims=True) * (_rtol(x, rtol, s) if not isinstance(rtol, Array)
                                             else rtol[..., None])
    return asum(s > tol, axis=-1)


def pinv(x, /, *, rtol=None):
    _check(x, "pinv()")
    if x.dtype.kind == "c":
        return _pinv_complex(x, rtol)
    U, S, Vh = svd(x, full_matrices=False)
    if S.shape[-1] == 0:
        return zeros(x.shape[:-2] + (x.shape[-1], x.shape[-2]), dtype=S.dtype,
                     device=x.device)
    tol = amax(S, axis=-1, keepdims=True) * (_rtol(x, rtol, S) if not isinstance(rtol, Array)
                                             else rtol[..., None])
    keep = S > tol
    inv_s = (1 / (S + (1 - keep))) * keep
    return matmul(matrix_transpose(Vh) * inv_s[..., None, :], matrix_transpose(U))


def _pinv_complex(x, rtol):
    """pinv of a complex x through its real embedding phi(B + iC) = [[B, -C], [C, B]]. phi
    keeps sums, products and conjugate transposes (as transposes), hence the four Moore-Penrose
    conditions, so pinv(phi(x)) = phi(pinv(x)): pinv(x) is the embedding's left blocks, top
    (real part) and bottom (imaginary part). phi(x) has x's singular values, each twice, so the
    same relative cutoff drops the same ones; the default cutoff is x's (max(M, N) * eps), not
    the doubled embedding's."""
    m, n = x.shape[-2], x.shape[-1]
    re, im = real(x), imag(x)
    embedding = concat([concat([re, -im], axis=-1), concat([im, re], axis=-1)], axis=-2)
    if rtol is None:
        rtol = max(m, n) * D.finfo_object(re.dtype).eps
    p = pinv(embedding, rtol=rtol)
    return astype(p[..., :n, :m] + 1j * p[..., n:, :m], x.dtype)


__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
           "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
           "vector_norm"]
