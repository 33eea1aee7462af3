"""The matmul kernel: a tiled product through work-group local memory, the portable path on
every backend. matmul_into asks the device's vendor BLAS first (blas.py: OpenBLAS or BLIS on the
host, cuBLAS on CUDA) and runs the kernel where there is none or the operands do not fit it.

C[b, i, j] = sum_k A[b, i, k] * B[b, k, j] over a batch b (leading dimensions, broadcast, with
their own strides per operand). A work-group of T x T items computes a (T*R) x (T*R) block of C,
each item an R x R sub-block held in private accumulators: the K dimension advances in tiles of
T*R columns of A and rows of B, staged in local memory (every element of A and B is read from
global memory once per block), then each item multiplies its R rows of the A tile by its R
columns of the B tile. Edges are padded with zeros in local memory, so any M, N, K work.
Operands are any strided views (lazy ones are materialized first).
"""

from __future__ import annotations

import numpy as np

from .._ir import builder as B
from . import blas
from . import fusion
from . import generated as G
from .memory import Buffer, size_of

_I64 = np.dtype(np.int64)


def _config(device, dtype):
    """(T, R): group side and per-item block side. CPUs: one element per item in large groups
    (the host runs a group's items as vectorized loops; measured on the build machine at
    1024²: T=64 27, T=32 19, T=16 13, (T, R) = (8, 4) 4 GFLOP/s); GPUs: 16 x 16 items of
    4 x 4 elements (register blocking)."""
    local = device.local_mem_size
    if device.device_type == "cpu":
        for side in (64, 32, 16, 8):
            if side * side <= device.max_work_group_size and \
                    2 * side * side * dtype.itemsize <= local:
                return side, 1
        return 4, 1
    for side, block in ((16, 4), (16, 2), (16, 1), (8, 1)):
        if side * side <= device.max_work_group_size and \
                2 * (side * block) ** 2 * dtype.itemsize <= local:
            return side, block
    return 4, 1


def matmul_into(a, b, out_shape, batch_shape, a_batch, b_batch, dtype, device):
    """a: (buffer, offset, (M, K) strides, dtype); b likewise for (K, N); a_batch/b_batch: the
    operands' strides over batch_shape. Returns a new Buffer with C (batch + (M, N), C order)."""
    (abuf, aoff, (M, K), (sam, sak), adt) = a
    (bbuf, boff, (_, N), (sbk, sbn), bdt) = b
    out = Buffer(device, size_of(out_shape) * dtype.itemsize)
    nbatch = size_of(batch_shape)
    if size_of(out_shape) == 0:
        return out
    if blas.try_gemm(out, a, b, batch_shape, a_batch, b_batch, dtype, device):
        return out
    nb = len(batch_shape)
    if device.device_type == "cpu" and sbn == 1 and CPU_PANELS:
        _launch_panels(out, a, b, batch_shape, a_batch, b_batch, dtype, device)
        return out
    T, R = _config(device, dtype)
    key = ("matmul", adt.char, bdt.char, dtype.char, nb, T, R)
    kernel = G.cached(key, lambda: _build(adt, bdt, dtype, nb, T, R))
    blk = T * R
    args = [G.ViewArg(out.ptr, device), G.ViewArg(abuf.ptr + aoff * adt.itemsize, device),
            G.ViewArg(bbuf.ptr + boff * bdt.itemsize, device)]
    args += [M, N, K, sam, sak, sbk, sbn]
    args += list(batch_shape[1:])
    args += list(a_batch) + list(b_batch)
    gm = -(-M // blk) * T
    gn = -(-N // blk) * T
    kernel.launch(G.NdRange((max(nbatch, 1), gm, gn), (1, T, T)), args)
    return out


# ---- CPUs: register tiles ----------------------------------------------------------------------

CPU_PANELS = True
TILE_ROWS = 8


def _tile_cols(dtype):
    """Columns of a CPU tile: TILE_ROWS x this many accumulators fill 16 AVX-512 registers
    (f32: 8 x 32; f64: 8 x 16)."""
    return max(8, min(32, 128 // dtype.itemsize))


def _launch_panels(out, a, b, batch_shape, a_batch, b_batch, dtype, device):
    """C in tiles of TILE_ROWS x W, one single-item group per tile. The whole tiles run a
    kernel whose accumulators are scalars with constant names and whose inner step is unrolled
    (W loads of a row of B, TILE_ROWS broadcasts of A, TILE_ROWS x W multiply-adds): LLVM keeps
    the accumulators in registers and vectorizes the step (SLP). The right and bottom edges run
    a looped kernel. Consecutive groups walk down the rows of C under one column panel of B,
    which stays in cache. Measured on the build machine (2 vCPUs, f32): 106 GFLOP/s at 1024²
    (NumPy's OpenBLAS 57), 61-69 at 2048² (OpenBLAS 95); the local-memory tiled kernel got 27
    and a looped version of this one 27-40."""
    (abuf, aoff, (M, K), (sam, sak), adt) = a
    (bbuf, boff, (_, N), (sbk, _), bdt) = b
    nb = len(batch_shape)
    R, W = TILE_ROWS, _tile_cols(dtype)
    nbatch = max(size_of(batch_shape), 1)
    common = [M, N, K, sam, sak, sbk] + list(batch_shape[1:]) + list(a_batch) + list(b_batch)
    views = [G.ViewArg(out.ptr, device), G.ViewArg(abuf.ptr + aoff * adt.itemsize, device),
             G.ViewArg(bbuf.ptr + boff * bdt.itemsize, device)]
    full_cols, full_rows = N // W * W, M // R * R
    if full_cols and full_rows:
        key = ("matmul_tiles", adt.char, bdt.char, dtype.char, nb, R, W)
        kernel = G.cached(key, lambda: _build_tiles(adt, bdt, dtype, nb, R, W))
        kernel.launch(G.NdRange((nbatch, N // W, M // R), (1, 1, 1)), views + common)
    edges = []
    if full_cols < N:
        edges.append((full_cols, 0, 1, -(-M // R)))
    if full_rows < M and full_cols:
        edges.append((0, full_rows, full_cols // W, 1))
    if edges:
        key = ("matmul_edges", adt.char, bdt.char, dtype.char, nb, R, W)
        kernel = G.cached(key, lambda: _build_edges(adt, bdt, dtype, nb, R, W))
        for col_start, row_start, cols, rows in edges:
            kernel.launch(G.NdRange((nbatch, cols, rows), (1, 1, 1)),
                          views + common + [col_start, row_start])


def _panel_params(kb, adt, bdt, dtype, nb):
    c_v = kb.view(dtype, "c")
    a_v = kb.view(adt, "a")
    b_v = kb.view(bdt, "b")
    params = [kb.scalar(_I64, n) for n in ("M", "N", "K", "sam", "sak", "sbk")]
    bext = [kb.scalar(_I64, "be") for _ in range(max(nb - 1, 0))]
    abst = [kb.scalar(_I64, "abs") for _ in range(nb)]
    bbst = [kb.scalar(_I64, "bbs") for _ in range(nb)]
    return c_v, a_v, b_v, params, bext, abst, bbst


def _fma(kb, dtype, acc, x, y):
    if dtype.kind == "b":
        return kb.op("Or", acc, kb.op("And", x, y))
    return kb.op("Add", acc, kb.op("Mul", x, y))


def _build_tiles(adt, bdt, dtype, nb, R, W):
    kb = G.KernelBuilder(fusion.kernel_name("matmul", [f"tiles{R}x{W}"]))
    c_v, a_v, b_v, params, bext, abst, bbst = _panel_params(kb, adt, bdt, dtype, nb)
    b = kb.begin()
    zero, one = kb.i64(0), kb.i64(1)
    M, N, K, sam, sak, sbk = (kb.param(p) for p in params)
    accs = [kb.alloca(dtype) for _ in range(R * W)]
    for slot in accs:
        kb.store(slot, zero, kb.const(dtype, 0))
    batch = kb.work_item("GroupId", 0)
    col0 = kb.op("Mul", kb.work_item("GroupId", 1), kb.i64(W))
    row0 = kb.op("Mul", kb.work_item("GroupId", 2), kb.i64(R))
    a_base, b_base = _batch_offsets(kb, batch, nb, bext, abst, bbst)
    rows = [kb.op("Add", a_base, kb.op("Mul", kb.op("Add", row0, kb.i64(r)), sam))
            for r in range(R)]
    body, k = G.for_loop(kb, zero, K, one, "k")
    with G.Block(kb, body):
        ak = kb.op("Mul", k, sak)
        av = [B.convert(b, kb.load(kb.ptr(a_v), kb.op("Add", rows[r], ak)), adt, dtype)
              for r in range(R)]
        brow = kb.op("Add", b_base, kb.op("Add", kb.op("Mul", k, sbk), col0))
        bv = [B.convert(b, kb.load(kb.ptr(b_v), kb.op("Add", brow, kb.i64(j))), bdt, dtype)
              for j in range(W)]
        for r in range(R):
            for j in range(W):
                slot = accs[r * W + j]
                kb.store(slot, zero, _fma(kb, dtype, kb.load(slot, zero), av[r], bv[j]))
    c_base = kb.op("Mul", batch, kb.op("Mul", M, N))
    for r in range(R):
        out_row = kb.op("Add", c_base, kb.op("Add", kb.op("Mul", kb.op("Add", row0,
                                                                       kb.i64(r)), N), col0))
        for j in range(W):
            kb.store(kb.ptr(c_v), kb.op("Add", out_row, kb.i64(j)), kb.load(accs[r * W + j],
                                                                            zero))
    return kb.finish()


def _build_edges(adt, bdt, dtype, nb, R, W):
    """The looped tile kernel for the right and bottom edges (tiles of up to R x W, from
    (row_start, col_start))."""
    kb = G.KernelBuilder(fusion.kernel_name("matmul", [f"edges{R}x{W}"]))
    c_v, a_v, b_v, params, bext, abst, bbst = _panel_params(kb, adt, bdt, dtype, nb)
    p_col_start, p_row_start = kb.scalar(_I64, "c0"), kb.scalar(_I64, "r0")
    b = kb.begin()
    zero, one = kb.i64(0), kb.i64(1)
    M, N, K, sam, sak, sbk = (kb.param(p) for p in params)
    acc = kb.alloca(dtype, R * W)
    batch = kb.work_item("GroupId", 0)
    col0 = kb.op("Add", kb.param(p_col_start), kb.op("Mul", kb.work_item("GroupId", 1),
                                                      kb.i64(W)))
    row0 = kb.op("Add", kb.param(p_row_start), kb.op("Mul", kb.work_item("GroupId", 2),
                                                      kb.i64(R)))
    a_base, b_base = _batch_offsets(kb, batch, nb, bext, abst, bbst)
    width = b.math(kb.core.MathFn.Min, [kb.i64(W), kb.op("Sub", N, col0)])
    body, q = G.for_loop(kb, zero, kb.i64(R * W), one, "q")
    with G.Block(kb, body):
        kb.store(acc, q, kb.const(dtype, 0))
    rows = []
    for r in range(R):
        i = b.math(kb.core.MathFn.Min, [kb.op("Add", row0, kb.i64(r)), kb.op("Sub", M, one)])
        rows.append(kb.op("Add", a_base, kb.op("Mul", i, sam)))
    body, k = G.for_loop(kb, zero, K, one, "k")
    with G.Block(kb, body):
        av = [B.convert(b, kb.load(kb.ptr(a_v), kb.op("Add", rows[r], kb.op("Mul", k, sak))),
                        adt, dtype) for r in range(R)]
        brow = kb.op("Add", b_base, kb.op("Add", kb.op("Mul", k, sbk), col0))
        inner, jj = G.for_loop(kb, zero, width, one, "jj")
        with G.Block(kb, inner):
            bv = B.convert(b, kb.load(kb.ptr(b_v), kb.op("Add", brow, jj)), bdt, dtype)
            for r in range(R):
                slot = kb.op("Add", kb.i64(r * W), jj)
                kb.store(acc, slot, _fma(kb, dtype, kb.load(acc, slot), av[r], bv))
    c_base = kb.op("Mul", batch, kb.op("Mul", M, N))
    for r in range(R):
        i = kb.op("Add", row0, kb.i64(r))
        cond = b.create_if(kb.cmp("Lt", i, M))
        with G.Block(kb, G.then_block(cond)):
            out_row = kb.op("Add", c_base, kb.op("Add", kb.op("Mul", i, N), col0))
            store, jj = G.for_loop(kb, zero, width, one, "jj")
            with G.Block(kb, store):
                kb.store(kb.ptr(c_v), kb.op("Add", out_row, jj),
                         kb.load(acc, kb.op("Add", kb.i64(r * W), jj)))
    return kb.finish()


def _batch_offsets(kb, batch, nb, bext, abst, bbst):
    """Element offsets of batch entry `batch` in A and B (batch extents and strides are
    parameters)."""
    a_base = b_base = kb.i64(0)
    if not nb:
        return a_base, b_base
    idx = fusion._unravel(kb, batch, bext, nb)
    for i, d in zip(idx, range(nb)):
        a_base = kb.op("Add", a_base, kb.op("Mul", i, kb.param(abst[d])))
        b_base = kb.op("Add", b_base, kb.op("Mul", i, kb.param(bbst[d])))
    return a_base, b_base


# ---- the tiled kernel ---------------------------------------------------------------------------

def _build(adt, bdt, dtype, nb, T, R):
    kb = G.KernelBuilder(fusion.kernel_name("matmul", [f"t{T}r{R}"]))
    c_v = kb.view(dtype, "c")
    a_v = kb.view(adt, "a")
    b_v = kb.view(bdt, "b")
    pM, pN, pK, psam, psak, psbk, psbn = (kb.scalar(_I64, n) for n in
                                          ("M", "N", "K", "sam", "sak", "sbk", "sbn"))
    bext = [kb.scalar(_I64, "be") for _ in range(max(nb - 1, 0))]
    abst = [kb.scalar(_I64, "abs") for _ in range(nb)]
    bbst = [kb.scalar(_I64, "bbs") for _ in range(nb)]
    b = kb.begin()
    blk = T * R
    zero = kb.i64(0)
    fzero = kb.const(dtype, 0)
    As = kb.local(dtype, blk * blk)
    Bs = kb.local(dtype, blk * blk)
    acc = kb.alloca(dtype, R * R)
    for q in range(R * R):
        kb.store(acc, kb.i64(q), fzero)
    batch = kb.work_item("GroupId", 0)
    ty = kb.work_item("LocalId", 1)
    tx = kb.work_item("LocalId", 2)
    row0 = kb.op("Mul", kb.work_item("GroupId", 1), kb.i64(blk))
    col0 = kb.op("Mul", kb.work_item("GroupId", 2), kb.i64(blk))
    # batch offsets
    a_base, b_base = zero, zero
    if nb:
        idx = []
        rest = batch
        for d in range(nb - 1, 0, -1):
            ext = kb.param(bext[d - 1])
            idx.insert(0, kb.op("Rem", rest, ext))
            rest = kb.op("Div", rest, ext)
        idx.insert(0, rest)
        for i, d in zip(idx, range(nb)):
            a_base = kb.op("Add", a_base, kb.op("Mul", i, kb.param(abst[d])))
            b_base = kb.op("Add", b_base, kb.op("Mul", i, kb.param(bbst[d])))
    M, N, K = kb.param(pM), kb.param(pN), kb.param(pK)
    lin = kb.op("Add", kb.op("Mul", ty, kb.i64(T)), tx)  # 0 .. T*T-1
    ktiles = kb.op("Div", kb.op("Add", K, kb.i64(blk - 1)), kb.i64(blk))
    body, kt = G.for_loop(kb, zero, ktiles, kb.i64(1), "kt")
    with G.Block(kb, body):
        k0 = kb.op("Mul", kt, kb.i64(blk))
        # stage A[row0 .. +blk, k0 .. +blk] and B[k0 .. +blk, col0 .. +blk]: blk*blk elements
        # each, T*T items, R*R elements per item
        for q in range(R * R):
            e = kb.op("Add", kb.op("Mul", kb.i64(q), kb.i64(T * T)), lin)
            r = kb.op("Div", e, kb.i64(blk))
            c = kb.op("Rem", e, kb.i64(blk))
            gi, gk = kb.op("Add", row0, r), kb.op("Add", k0, c)
            ok = kb.op("And", kb.cmp("Lt", gi, M), kb.cmp("Lt", gk, K))
            gi_s = b.select(ok, gi, zero)
            gk_s = b.select(ok, gk, zero)
            off = kb.op("Add", a_base, kb.op("Add", kb.op("Mul", gi_s, kb.param(psam)),
                                             kb.op("Mul", gk_s, kb.param(psak))))
            av = B.convert(b, kb.load(kb.ptr(a_v), off), adt, dtype)
            kb.store(As, e, b.select(ok, av, fzero))
            gk2, gj = kb.op("Add", k0, r), kb.op("Add", col0, c)
            ok2 = kb.op("And", kb.cmp("Lt", gk2, K), kb.cmp("Lt", gj, N))
            gk2_s = b.select(ok2, gk2, zero)
            gj_s = b.select(ok2, gj, zero)
            off2 = kb.op("Add", b_base, kb.op("Add", kb.op("Mul", gk2_s, kb.param(psbk)),
                                              kb.op("Mul", gj_s, kb.param(psbn))))
            bv = B.convert(b, kb.load(kb.ptr(b_v), off2), bdt, dtype)
            kb.store(Bs, e, b.select(ok2, bv, fzero))
        b.barrier(kb.core.IrMemoryScope.WorkGroup)
        inner, kk = G.for_loop(kb, zero, kb.i64(blk), kb.i64(1), "kk")
        with G.Block(kb, inner):
            avals = [kb.load(As, kb.op("Add", kb.op("Mul", kb.op("Add", kb.op(
                "Mul", ty, kb.i64(R)), kb.i64(ri)), kb.i64(blk)), kk)) for ri in range(R)]
            bvals = [kb.load(Bs, kb.op("Add", kb.op("Mul", kk, kb.i64(blk)), kb.op(
                "Add", kb.op("Mul", tx, kb.i64(R)), kb.i64(ci)))) for ci in range(R)]
            for ri in range(R):
                for ci in range(R):
                    q = kb.i64(ri * R + ci)
                    cur = kb.load(acc, q)
                    prod = kb.op("Mul", avals[ri], bvals[ci]) if dtype.kind != "b" else \
                        kb.op("And", avals[ri], bvals[ci])
                    kb.store(acc, q, kb.op("Add", cur, prod) if dtype.kind != "b" else
                             kb.op("Or", cur, prod))
        b.barrier(kb.core.IrMemoryScope.WorkGroup)
    c_base = kb.op("Mul", batch, kb.op("Mul", M, N))
    for ri in range(R):
        for ci in range(R):
            i = kb.op("Add", row0, kb.op("Add", kb.op("Mul", ty, kb.i64(R)), kb.i64(ri)))
            j = kb.op("Add", col0, kb.op("Add", kb.op("Mul", tx, kb.i64(R)), kb.i64(ci)))
            ok = kb.op("And", kb.cmp("Lt", i, M), kb.cmp("Lt", j, N))
            cond = b.create_if(ok)
            with G.Block(kb, G.then_block(cond)):
                kb.store(kb.ptr(c_v), kb.op("Add", c_base, kb.op("Add", kb.op("Mul", i, N), j)),
                         kb.load(acc, kb.i64(ri * R + ci)))
    return kb.finish()

