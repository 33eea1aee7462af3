"""The factorizations of the linalg extension, written as dpk kernels (the kernel model).

One work-item factors one matrix of the batch, in place in global memory: LU with partial
pivoting (det, slogdet, solve, inv), Cholesky, Householder QR, cyclic Jacobi for symmetric
eigenproblems and one-sided Jacobi for the SVD. They are exact algorithms in the arithmetic of
the input's dtype and run on every device, but a matrix takes one work-item: fast for many
small matrices, slow for one large one (docs/arrays.md says so). Arguments are 3-D dpk arrays
(batch, rows, columns).
"""

from __future__ import annotations

import math

from ..kernels.dispatcher import kernel


@kernel
def lu_factor(item, a, piv, sign):
    """a[b] = P L U in place (unit-diagonal L below, U on and above the diagonal); piv[b, k]:
    the row swapped with row k at step k; sign[b]: the permutation's sign."""
    b = item.get_id(0)
    n = a.shape[1]
    s = a.dtype.type(1.0)
    for k in range(n):
        p = k
        best = abs(a[b, k, k])
        for i in range(k + 1, n):
            v = abs(a[b, i, k])
            if v > best:
                best = v
                p = i
        piv[b, k] = p
        if p != k:
            for j in range(n):
                t = a[b, k, j]
                a[b, k, j] = a[b, p, j]
                a[b, p, j] = t
            s = -s
        d = a[b, k, k]
        if d != 0:
            for i in range(k + 1, n):
                f = a[b, i, k] / d
                a[b, i, k] = f
                for j in range(k + 1, n):
                    a[b, i, j] -= f * a[b, k, j]
    sign[b] = s


@kernel
def lu_solve(item, lu, piv, x):
    """Solves (P L U) y = x[b, :, c] in place, one right-hand side per work-item (b, c)."""
    b = item.get_id(0)
    c = item.get_id(1)
    n = lu.shape[1]
    for k in range(n):
        p = piv[b, k]
        if p != k:
            t = x[b, k, c]
            x[b, k, c] = x[b, p, c]
            x[b, p, c] = t
    for i in range(n):
        acc = x[b, i, c]
        for j in range(i):
            acc -= lu[b, i, j] * x[b, j, c]
        x[b, i, c] = acc
    for i in range(n - 1, -1, -1):
        acc = x[b, i, c]
        for j in range(i + 1, n):
            acc -= lu[b, i, j] * x[b, j, c]
        x[b, i, c] = acc / lu[b, i, i]


@kernel
def cholesky_factor(item, a):
    """a[b] = L L^T: L in the lower triangle, zeros above (NaN when a[b] is not positive
    definite)."""
    b = item.get_id(0)
    n = a.shape[1]
    for j in range(n):
        d = a[b, j, j]
        for k in range(j):
            d -= a[b, j, k] * a[b, j, k]
        d = math.sqrt(d)
        a[b, j, j] = d
        for i in range(j + 1, n):
            acc = a[b, i, j]
            for k in range(j):
                acc -= a[b, i, k] * a[b, j, k]
            a[b, i, j] = acc / d
        for i in range(j):
            a[b, i, j] = a.dtype.type(0.0)


@kernel
def householder_qr(item, r, q, v):
    """r[b] (m x n) becomes R and q[b] (m x m, the identity on entry) Q with Q R = the input;
    v[b] is an m-element workspace."""
    b = item.get_id(0)
    m = r.shape[1]
    n = r.shape[2]
    steps = min(m - 1, n)
    for k in range(steps):
        norm = a_zero = r.dtype.type(0.0)
        for i in range(k, m):
            norm += r[b, i, k] * r[b, i, k]
        norm = math.sqrt(norm)
        if norm != a_zero:
            alpha = norm
            if r[b, k, k] > 0:
                alpha = -norm
            vnorm = a_zero
            for i in range(k, m):
                v[b, i] = r[b, i, k]
            v[b, k] = v[b, k] - alpha
            for i in range(k, m):
                vnorm += v[b, i] * v[b, i]
            if vnorm != a_zero:
                for j in range(k, n):
                    dot = a_zero
                    for i in range(k, m):
                        dot += v[b, i] * r[b, i, j]
                    f = 2 * dot / vnorm
                    for i in range(k, m):
                        r[b, i, j] -= f * v[b, i]
                for i in range(m):
                    dot = a_zero
                    for j in range(k, m):
                        dot += q[b, i, j] * v[b, j]
                    f = 2 * dot / vnorm
                    for j in range(k, m):
                        q[b, i, j] -= f * v[b, j]
        for i in range(k + 1, m):
            r[b, i, k] = a_zero
    for j in range(n):
        for i in range(j + 1, m):
            r[b, i, j] = r.dtype.type(0.0)


@kernel
def jacobi_eigh(item, a, vecs, w, sweeps, tol):
    """Symmetric a[b] diagonalized by cyclic Jacobi rotations: eigenvalues into w[b]
    (ascending), eigenvectors into the columns of vecs[b] (the identity on entry)."""
    b = item.get_id(0)
    n = a.shape[1]
    for sweep in range(sweeps):
        off = a.dtype.type(0.0)
        total = a.dtype.type(0.0)
        for i in range(n):
            for j in range(n):
                if i != j:
                    off += a[b, i, j] * a[b, i, j]
                total += a[b, i, j] * a[b, i, j]
        if off > tol * tol * total:
            for p in range(n):
                for q in range(p + 1, n):
                    apq = a[b, p, q]
                    if apq != 0:
                        theta = (a[b, q, q] - a[b, p, p]) / (2 * apq)
                        t = 1 / (abs(theta) + math.sqrt(theta * theta + 1))
                        if theta < 0:
                            t = -t
                        c = 1 / math.sqrt(t * t + 1)
                        s = t * c
                        for k in range(n):
                            akp = a[b, k, p]
                            akq = a[b, k, q]
                            a[b, k, p] = c * akp - s * akq
                            a[b, k, q] = s * akp + c * akq
                        for k in range(n):
                            apk = a[b, p, k]
                            aqk = a[b, q, k]
                            a[b, p, k] = c * apk - s * aqk
                            a[b, q, k] = s * apk + c * aqk
                        for k in range(n):
                            vkp = vecs[b, k, p]
                            vkq = vecs[b, k, q]
                            vecs[b, k, p] = c * vkp - s * vkq
                            vecs[b, k, q] = s * vkp + c * vkq
    for i in range(n):
        w[b, i] = a[b, i, i]
    for i in range(n):
        best = i
        for j in range(i + 1, n):
            if w[b, j] < w[b, best]:
                best = j
        if best != i:
            t = w[b, i]
            w[b, i] = w[b, best]
            w[b, best] = t
            for k in range(n):
                t = vecs[b, k, i]
                vecs[b, k, i] = vecs[b, k, best]
                vecs[b, k, best] = t


@kernel
def jacobi_svd(item, u, vt, s, sweeps, tol):
    """One-sided Jacobi on the columns of u[b] (m x n, m >= n; vt[b] the n x n identity on
    entry): afterwards u[b] has orthonormal columns (the first n of U), s[b] the singular
    values in descending order, vt[b] V^T. Columns of zero norm are left zero (completed by
    complete_basis)."""
    b = item.get_id(0)
    m = u.shape[1]
    n = u.shape[2]
    for sweep in range(sweeps):
        rotated = 0
        for p in range(n):
            for q in range(p + 1, n):
                alpha = u.dtype.type(0.0)
                beta = u.dtype.type(0.0)
                gamma = u.dtype.type(0.0)
                for k in range(m):
                    alpha += u[b, k, p] * u[b, k, p]
                    beta += u[b, k, q] * u[b, k, q]
                    gamma += u[b, k, p] * u[b, k, q]
                if abs(gamma) > tol * math.sqrt(alpha * beta) and gamma != 0:
                    rotated = 1
                    zeta = (beta - alpha) / (2 * gamma)
                    t = 1 / (abs(zeta) + math.sqrt(1 + zeta * zeta))
                    if zeta < 0:
                        t = -t
                    c = 1 / math.sqrt(1 + t * t)
                    sn = c * t
                    for k in range(m):
                        ukp = u[b, k, p]
                        ukq = u[b, k, q]
                        u[b, k, p] = c * ukp - sn * ukq
                        u[b, k, q] = sn * ukp + c * ukq
                    for k in range(n):
                        vpk = vt[b, p, k]
                        vqk = vt[b, q, k]
                        vt[b, p, k] = c * vpk - sn * vqk
                        vt[b, q, k] = sn * vpk + c * vqk
        if rotated == 0:
            break
    for j in range(n):
        norm = u.dtype.type(0.0)
        for k in range(m):
            norm += u[b, k, j] * u[b, k, j]
        norm = math.sqrt(norm)
        s[b, j] = norm
        for k in range(m):
            if norm != 0:
                u[b, k, j] = u[b, k, j] / norm
            else:
                u[b, k, j] = u.dtype.type(0.0)
    for i in range(n):
        best = i
        for j in range(i + 1, n):
            if s[b, j] > s[b, best]:
                best = j
        if best != i:
            t = s[b, i]
            s[b, i] = s[b, best]
            s[b, best] = t
            for k in range(m):
                t = u[b, k, i]
                u[b, k, i] = u[b, k, best]
                u[b, k, best] = t
            for k in range(n):
                t = vt[b, i, k]
                vt[b, i, k] = vt[b, best, k]
                vt[b, best, k] = t


@kernel
def complete_basis(item, u, start):
    """Makes the columns of u[b] (m rows) orthonormal where they are not: column j is kept
    when j < start and it has norm 1, otherwise replaced by the first unit vector that stays
    independent after Gram-Schmidt against every other column (columns still to be replaced
    are zero, so they do not count)."""
    b = item.get_id(0)
    m = u.shape[1]
    cols = u.shape[2]
    for j in range(cols):
        norm = u.dtype.type(0.0)
        for k in range(m):
            norm += u[b, k, j] * u[b, k, j]
        if j >= start or norm < 0.5:
            for k in range(m):
                u[b, k, j] = u.dtype.type(0.0)
            found = 0
            for e in range(m):
                if found == 0:
                    for k in range(m):
                        u[b, k, j] = u.dtype.type(0.0)
                    u[b, e, j] = u.dtype.type(1.0)
                    for rep in range(2):
                        for i in range(cols):
                            if i != j:
                                dot = u.dtype.type(0.0)
                                for k in range(m):
                                    dot += u[b, k, i] * u[b, k, j]
                                for k in range(m):
                                    u[b, k, j] -= dot * u[b, k, i]
                    nn = u.dtype.type(0.0)
                    for k in range(m):
                        nn += u[b, k, j] * u[b, k, j]
                    if nn > 0.25:
                        nn = math.sqrt(nn)
                        for k in range(m):
                            u[b, k, j] = u[b, k, j] / nn
                        found = 1
