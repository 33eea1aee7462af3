"""Scans: cumulative sums and products along an axis, and the compaction behind ``nonzero`` and
boolean masks.

A scan over L elements of each of M rows (every other dimension) runs in parts so that long rows
spread over the device: (1) the total of every part, a reduction pass that consumes the input's
elementwise graph (reduction.py), (2) an exclusive scan of the part totals of each row, (3)
every part scanned again from its offset, writing the result. Each part is scanned by one
work-item in order (kernel ``scan_serial``), reading its elements in sequence; parts of a row
and rows run in parallel. Rows long enough get enough parts to fill the device; with one part
per row phases (1) and (2) are skipped.

``nonzero`` scans the flags ``x != 0`` (int64) and scatters each set element's flat index to its
place; the coordinates are then elementwise divisions of those indices.
"""

from __future__ import annotations

import operator

import numpy as np

from .._ir import builder as B
from .._ir import scalar_ops
from . import dtypes as D
from . import fusion, reduction
from . import generated as G
from .memory import Buffer, broadcast_strides, c_strides, collapse, size_of

_I64 = np.dtype(np.int64)
_I32 = np.dtype(np.int32)


def _combine(op, kb, dtype, a, b):
    kind = "add" if op == "sum" else "multiply"
    if dtype.kind == "b":
        kind = "logical_or" if op == "sum" else "logical_and"
    return scalar_ops.EMITTERS[kind](kb.b, dtype, a, b)


def _identity(op, dtype):
    if dtype.kind == "b":
        return op != "sum"
    return 0 if op == "sum" else 1


class _Rows:
    """Rows of a scan: kept dimensions (merged) and the scanned axis, with the strides of every
    operand (leaves, then the output) in each."""

    def __init__(self, shape, axis, stride_lists):
        kept = [d for d in range(len(shape)) if d != axis]
        self.M = size_of([shape[d] for d in kept])
        self.L = shape[axis]
        self.kshape, self.kstrides = collapse([shape[d] for d in kept],
                                              [[s[d] for d in kept] for s in stride_lists])
        self.astrides = [s[axis] for s in stride_lists]


def cumulative(x, op, axis, dtype, include_initial, what, Array):
    """cumulative_sum / cumulative_prod of x along axis (required unless x is 1-D)."""
    if x.ndim == 0:
        raise ValueError(f"{what} needs an array of at least one dimension")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"{what}: axis is required for arrays of more than one dimension")
        axis = 0
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise IndexError(f"{what}: axis {axis} is out of bounds for {x.ndim} dimension(s)")
    axis %= x.ndim
    shape = list(x.shape)
    out_shape = list(shape)
    if include_initial:
        out_shape[axis] += 1
    out = Buffer(x.device, size_of(out_shape) * dtype.itemsize)
    result = Array._view(out, 0, out_shape, c_strides(out_shape), dtype, x.device)
    if size_of(out_shape) == 0:
        return result
    node = fusion.cast(x._as_node(), dtype)
    out_strides = list(c_strides(out_shape))
    if include_initial:
        # The first element of every row is the identity; the scan writes from index 1.
        first = [slice(None)] * len(out_shape)
        first[axis] = 0
        fusion.run(fusion.scalar(_identity(op, dtype), dtype, x.device), out, 0,
                   [n for d, n in enumerate(out_shape) if d != axis],
                   [s for d, s in enumerate(out_strides) if d != axis], dtype)
        offset = out_strides[axis]
    else:
        offset = 0
    if size_of(shape) == 0:
        return result
    if dtype.kind == "c" and op != "sum":
        _complex_product_scan(x, node, axis, dtype, out, offset, out_strides, shape, Array)
        return result
    if dtype.kind == "c":
        # the sum of complex numbers: the real and imaginary parts scanned separately, each
        # into its components of the result
        comp = D.component(dtype)
        for part, name in ((0, "real"), (1, "imag")):
            pnode = fusion.apply(name, [node], comp, node.shape)
            scan_into(pnode, op, axis, comp, out, 2 * offset + part,
                      [2 * s for s in out_strides], x.device)
        return result
    scan_into(node, op, axis, dtype, out, offset, out_strides, x.device)
    return result


def _complex_product_scan(x, node, axis, dtype, out, offset, out_strides, shape, Array):
    """cumulative_prod of complex numbers (their product does not split into parts): a
    doubling scan (Hillis-Steele) of complex multiplications along the axis, log2(n)
    elementwise passes, written into the result's view."""
    cur = Array._lazy(fusion.apply("positive", [node], dtype, node.shape))._materialize()
    n = shape[axis]
    d = 1
    while d < n:
        tail = [slice(None)] * len(shape)
        prev = [slice(None)] * len(shape)
        tail[axis] = slice(d, n)
        prev[axis] = slice(0, n - d)
        step = cur[tuple(tail)] * cur[tuple(prev)]
        nxt = cur.copy()  # the first d stay; the rest take the product with d back
        nxt[tuple(tail)] = step
        cur = nxt
        d *= 2
    cur._materialize()
    fusion.run(cur._as_node(), out, offset, shape, out_strides, dtype)


GROUP_SCANS = None  # None: work-group scans on non-CPU devices; True/False forces it (tests)


def _grouped(device, plan, shape, axis):
    """Whether to scan with work-groups (GPUs, when the scanned axis is the contiguous one:
    a group reads and writes a tile of neighbouring elements), rather than one work-item per
    part (CPUs, and axes whose neighbours in memory are other rows)."""
    if GROUP_SCANS is not None:
        use = GROUP_SCANS
    else:
        use = device.device_type != "cpu"
    if not use:
        return False
    geo = reduction.Geometry(shape, {axis}, plan.leaves)
    return geo.inner


def scan_into(node, op, axis, dtype, out, out_offset, out_strides, device):
    """Scans `node` (shape S) along `axis` into the view (out, out_offset, S, out_strides)."""
    plan = fusion.Plan(node)
    shape = list(node.shape)
    stride_lists = [broadcast_strides(lf.shape, lf.strides, shape) for lf in plan.leaves]
    stride_lists.append(list(out_strides))
    rows = _Rows(shape, axis, stride_lists)
    M, L = rows.M, rows.L
    grouped = _grouped(device, plan, shape, axis)
    if not grouped and _chains(device, rows, L):
        _chained(plan, rows, op, dtype, device, out=(out, out_offset))
        return
    wg = reduction._workgroup_size(device)
    if grouped:
        groups, _ = reduction._target_parallelism(device)
        parts = max(1, min(-(-groups // M), -(-L // (wg * 16))))
    else:
        items = 256 * max(device._dev.compute_units, 1)
        parts = max(1, min(-(-items // M), -(-L // 4096)))
    scan_parts = _group_scan if grouped else _serial
    if parts == 1:
        scan_parts(plan, rows, op, dtype, device, parts=1, chunk=L, carry=None,
                   exclusive=False, out=(out, out_offset))
        return
    # (1) part totals: a reduction over (rows, parts) with chunks a multiple of its group size
    chunk = -(-L // parts)
    chunk = group_scan_chunk(device, chunk) if grouped else -(-chunk // wg) * wg
    parts = -(-L // chunk)
    red_op = reduction.make_op(op, dtype)
    geo = reduction.Geometry(node.shape, {axis}, plan.leaves)
    geo.inner = True
    totals = Buffer(device, M * parts * dtype.itemsize)
    reduction._launch(red_op, plan, geo, node, device, wg, parts, chunk, [totals], final=False)
    # (2) exclusive scan of the totals of each row: (M, parts), contiguous
    offsets = Buffer(device, M * parts * dtype.itemsize)
    tleaf = fusion.leaf(totals, 0, (M, parts), (parts, 1), dtype, device)
    tplan = fusion.Plan(tleaf)
    trows = _Rows([M, parts], 1, [[parts, 1], [parts, 1]])
    scan_parts(tplan, trows, op, dtype, device, parts=1, chunk=parts, carry=None,
               exclusive=True, out=(offsets, 0))
    # (3) every part from its offset
    scan_parts(plan, rows, op, dtype, device, parts=parts, chunk=chunk, carry=offsets,
               exclusive=False, out=(out, out_offset))


# ---- the chained scan (CPUs, along the contiguous axis) ----------------------------------------

CHAIN_CHUNK = 1 << 16  # elements a work-item scans: its input stays in its core's cache
CHAIN_GROUP = 32       # neighbouring elements scanned apart from the running total
CHAINED = None         # None: chained scans where _chains allows; True/False forces (tests)
# Results of at least this many bytes are written with nontemporal stores: they outgrow the
# last-level cache (36 MB on the build machine's Xeon), so caching them only costs the read of
# every destination line a store otherwise makes (2^26 float32 on the 16-core Xeon: 8.7 -> 7.4
# ms, docs/primitives.md). A smaller result stays in the cache for whoever reads it next.
# The chunk and group sizes above: a sweep on that Xeon (groups of 8: 0.67-0.85x of oneTBB's
# triad bandwidth, 32: 0.83-1.01x, 64: 0.78-0.88x; chunks 2^13..2^17 mattered less).
NONTEMPORAL_BYTES = 64 << 20


def _chains(device, rows, L):
    """Whether to scan rows with the chained single-pass kernel: CPUs (their work-groups run
    to completion once started, which the chain's waiting relies on), rows of more than one
    chunk, the result and every operand contiguous along the axis (a chunk is a run of memory;
    an operand broadcast along it is one value)."""
    contiguous = rows.astrides[-1] == 1 and all(st in (0, 1) for st in rows.astrides)
    if CHAINED is not None:
        return CHAINED and contiguous
    return device.device_type == "cpu" and L > CHAIN_CHUNK and contiguous


def _chained(plan, rows, op, dtype, device, out):
    """One pass over the input: each work-item takes the next chunk of a row (a ticket from an
    atomic counter, so chunks start in order), totals it, waits for the running total up to
    its chunk from the chunk before (published with a release store), publishes its own, and
    scans its chunk again from its cache, writing the result. The input is read from memory
    once, where the three-phase scan reads it twice.

    Both loops keep their dependency chains short: the total runs CHAIN_GROUP interleaved
    partial totals, and the scan combines each group of CHAIN_GROUP neighbours among
    themselves before adding the running total (one step of the long chain per group). The
    order of every combination is fixed by the chunk and group sizes, so the result does not
    depend on timing."""
    M, L = rows.M, rows.L
    chunk = min(CHAIN_CHUNK, -(-L // CHAIN_GROUP) * CHAIN_GROUP)
    parts = -(-L // chunk)
    chunks = M * parts
    ksig = [fusion._sig(s) for s in rows.kstrides]
    asig = [fusion._sig([s]) for s in rows.astrides]
    nontemporal = M * L * dtype.itemsize >= NONTEMPORAL_BYTES
    key = ("cscan", op, dtype.char, plan.key, tuple(ksig), tuple(asig), CHAIN_GROUP, nontemporal)
    kernel = G.cached(key, lambda: _build_chained(plan, rows, op, dtype, ksig, asig,
                                                  nontemporal))
    # flags[0] counts the tickets handed out; flags[1 + c] is set once chunk c's total is out
    flags = Buffer(device, (chunks + 1) * 4)
    device.queue.fill(flags.ptr, b"\0", (chunks + 1) * 4).wait()
    totals = Buffer(device, chunks * dtype.itemsize)
    buf, off = out
    args = [G.ViewArg(buf.ptr + off * dtype.itemsize, device), G.ViewArg(flags.ptr, device),
            G.ViewArg(totals.ptr, device)]
    args += fusion.operand_args(plan, device)
    args += [L, parts, chunk]
    args += rows.kshape[1:]
    args += fusion.stride_args(ksig, rows.kstrides)
    kernel.launch(G.NdRange((chunks,), (1,)), args)


def _build_chained(plan, rows, op, dtype, ksig, asig, nontemporal):
    group = CHAIN_GROUP
    kb = G.KernelBuilder(fusion.kernel_name("cscan_" + op, plan.ops))
    core = kb.core
    out_v = kb.view(dtype, "out")
    flags_v = kb.view(_I32, "flags")
    totals_v = kb.view(dtype, "totals")
    leaf_views = fusion.leaf_views(kb, plan)
    scalar_params = [kb.carrier(s.carrier) for s in plan.scalars]
    p_L, p_P, p_chunk = (kb.scalar(_I64, n) for n in ("L", "P", "chunk"))
    kext = [kb.scalar(_I64, "ke") for _ in rows.kshape[1:]]
    kstride = [[kb.scalar(_I64, "ks") for c in s if c == "x"] for s in ksig]
    b = kb.begin()
    zero = kb.i64(0)
    one = kb.i64(1)
    device_scope = core.IrMemoryScope.Device
    flags = kb.ptr(flags_v)
    ticket = b.atomic_rmw(core.AtomicRmwKind.Add, flags, zero, B.const(b, _I32, 1),
                          core.IrMemoryOrder.Relaxed, device_scope)
    c = B.convert(b, ticket, _I32, _I64)
    P = kb.param(p_P)
    m = kb.op("Div", c, P)
    part = kb.op("Sub", c, kb.op("Mul", m, P))
    kidx = reduction._unravel(kb, m, kext, len(rows.kshape))
    bases = [fusion.offset_value(kb, kidx, ksig[i], kstride[i]) for i in range(len(ksig))]
    start = kb.op("Mul", part, kb.param(p_chunk))
    end = b.math(kb.core.MathFn.Min, [kb.op("Add", start, kb.param(p_chunk)), kb.param(p_L)])
    full = kb.cmp("Eq", kb.op("Sub", end, start), kb.param(p_chunk))
    ident = kb.const(dtype, _identity(op, dtype))
    acc = kb.alloca(dtype, group)  # the total's partial totals, then the scan's running total
    n_out = len(asig) - 1

    def value_at(k):
        def load_leaf(i, dt):
            off = kb.op("Add", bases[i], fusion.offset_value(kb, [k], asig[i], []))
            return fusion.load_leaf_at(kb, leaf_views[i], dt, off)

        value, vdt = plan.emit(kb, load_leaf, lambda i: scalar_params[i])
        return B.convert(b, value, vdt, dtype)

    def over_chunk(whole_group, single):
        """A whole chunk (all but a row's last): whole_group(ks, values) for each group of
        neighbours, without bounds checks. A row's last chunk: single(k, value) in order."""
        branch = b.create_if(full)
        with G.Block(kb, G.then_block(branch)):
            body, j = G.for_loop(kb, zero, kb.op("Div", kb.param(p_chunk), kb.i64(group)),
                                 one, "j")
            with G.Block(kb, body):
                first = kb.op("Add", start, kb.op("Mul", j, kb.i64(group)))
                ks = [kb.op("Add", first, kb.i64(s)) for s in range(group)]
                whole_group(ks, [value_at(k) for k in ks])
        with G.Block(kb, G.else_block(branch)):
            body, k = G.for_loop(kb, start, end, one, "k")
            with G.Block(kb, body):
                single(k, value_at(k))

    def fold(s, value):
        slot = kb.i64(s)
        kb.store(acc, slot, _combine(op, kb, dtype, kb.load(acc, slot), value))

    for s in range(group):
        kb.store(acc, kb.i64(s), ident)
    over_chunk(lambda ks, values: [fold(s, v) for s, v in enumerate(values)],
               lambda k, value: fold(0, value))
    total = kb.load(acc, zero)
    for s in range(1, group):
        total = _combine(op, kb, dtype, total, kb.load(acc, kb.i64(s)))
    # the running total before this chunk: the chunk before publishes it (none for a row's first)
    kb.store(acc, zero, ident)
    cond = b.create_if(kb.cmp("Gt", part, zero))
    with G.Block(kb, G.then_block(cond)):
        wait = b.create_while()
        with G.Block(kb, core.Builder.while_cond(wait)):
            seen = b.atomic_load(flags, c, core.IrMemoryOrder.Acquire, device_scope)
            b.condition(kb.cmp("Eq", seen, B.const(b, _I32, 0)))
        kb.store(acc, zero, kb.load(kb.ptr(totals_v), kb.op("Sub", c, one)))
    kb.store(kb.ptr(totals_v), c, _combine(op, kb, dtype, kb.load(acc, zero), total))
    b.atomic_store(flags, kb.op("Add", c, one), B.const(b, _I32, 1),
                   core.IrMemoryOrder.Release, device_scope)

    def store(k, value, hint=False):
        kb.store(kb.ptr(out_v), kb.op("Add", bases[n_out], k), value, hint)

    def scan_group(ks, values):
        # the group's results are stored together, after its loads: the host combines them
        # into one vector store (a nontemporal one for large results)
        running = kb.load(acc, zero)
        partial = values[0]
        results = [_combine(op, kb, dtype, running, partial)]
        for value in values[1:]:
            partial = _combine(op, kb, dtype, partial, value)
            results.append(_combine(op, kb, dtype, running, partial))
        for k, result in zip(ks, results):
            store(k, result, nontemporal)
        kb.store(acc, zero, _combine(op, kb, dtype, running, partial))

    def scan_single(k, value):
        after = _combine(op, kb, dtype, kb.load(acc, zero), value)
        kb.store(acc, zero, after)
        store(k, after)

    over_chunk(scan_group, scan_single)
    return kb.finish()


def _serial(plan, rows, op, dtype, device, parts, chunk, carry, exclusive, out):
    ksig = [fusion._sig(s) for s in rows.kstrides]
    asig = [fusion._sig([s]) for s in rows.astrides]
    space = fusion.LaunchShape([parts, rows.M], device)
    key = ("scan", op, dtype.char, plan.key, tuple(ksig), tuple(asig), carry is not None,
           exclusive, space.key)
    kernel = G.cached(key, lambda: _build_serial(plan, rows, op, dtype, ksig, asig,
                                                 carry is not None, exclusive, space))
    buf, off = out
    args = [G.ViewArg(buf.ptr + off * dtype.itemsize, device)]
    if carry is not None:
        args.append(G.ViewArg(carry.ptr, device))
    args += fusion.operand_args(plan, device)
    args += [rows.M, rows.L, parts, chunk]
    args += rows.kshape[1:]
    args += fusion.stride_args(ksig, rows.kstrides)
    for a, st in zip(asig, rows.astrides):
        args += [st] if a == "x" else []
    args += space.args()
    if not space.flat and any(abs(st) == 1 for st in rows.astrides[:-1]):
        # CPUs, scanning along the contiguous axis: one item per group, so the host runs each
        # part as a plain loop over neighbouring elements (in bigger groups it vectorizes
        # across parts a chunk apart: cumulative_sum of 2^26 float32 took 240 ms that way,
        # 65 ms this way). Along other axes neighbouring items are neighbouring columns.
        index_range = G.NdRange((parts, rows.M), (1, 1))
    else:
        index_range = space.index_range()
    kernel.launch(index_range, args)


def _build_serial(plan, rows, op, dtype, ksig, asig, has_carry, exclusive, space):
    kb = G.KernelBuilder(fusion.kernel_name("scan_" + op, plan.ops))
    out_v = kb.view(dtype, "out")
    carry_v = kb.view(dtype, "carry") if has_carry else None
    leaf_views = fusion.leaf_views(kb, plan)
    scalar_params = [kb.carrier(s.carrier) for s in plan.scalars]
    p_M, p_L, p_P, p_chunk = (kb.scalar(_I64, n) for n in ("M", "L", "P", "chunk"))
    kext = [kb.scalar(_I64, "ke") for _ in rows.kshape[1:]]
    kstride = [[kb.scalar(_I64, "ks") for c in s if c == "x"] for s in ksig]
    astride = [[kb.scalar(_I64, "as")] if a == "x" else [] for a in asig]
    space.declare(kb)
    b = kb.begin()
    zero = kb.i64(0)
    part, m = space.indices(kb)
    kidx = reduction._unravel(kb, m, kext, len(rows.kshape))
    bases = [fusion.offset_value(kb, kidx, ksig[i], kstride[i]) for i in range(len(ksig))]
    acc = kb.alloca(dtype)
    if has_carry:
        init = kb.load(kb.ptr(carry_v), kb.op("Add", kb.op("Mul", m, kb.param(p_P)), part))
    else:
        init = kb.const(dtype, _identity(op, dtype))
    kb.store(acc, zero, init)
    start = kb.op("Mul", part, kb.param(p_chunk))
    end = b.math(kb.core.MathFn.Min, [kb.op("Add", start, kb.param(p_chunk)), kb.param(p_L)])
    body, t = G.for_loop(kb, zero, kb.param(p_chunk), kb.i64(1), "t")
    with G.Block(kb, body):
        k = kb.op("Add", start, t)
        cond = b.create_if(kb.cmp("Lt", k, end))
        with G.Block(kb, G.then_block(cond)):
            def load_leaf(i, dt):
                off = kb.op("Add", bases[i], fusion.offset_value(kb, [k], asig[i], astride[i]))
                return fusion.load_leaf_at(kb, leaf_views[i], dt, off)

            value, vdt = plan.emit(kb, load_leaf, lambda i: scalar_params[i])
            value = B.convert(b, value, vdt, dtype)
            before = kb.load(acc, zero)
            after = _combine(op, kb, dtype, before, value)
            kb.store(acc, zero, after)
            n_out = len(asig) - 1
            out_off = kb.op("Add", bases[n_out],
                            fusion.offset_value(kb, [k], asig[n_out], astride[n_out]))
            kb.store(kb.ptr(out_v), out_off, before if exclusive else after)
    return kb.finish()


# Elements each work-item of a group scan takes per tile (a tile is WG x GROUP_SCAN_ITEMS
# neighbouring elements). One element per item left the scan bound by the tile's 16 barrier
# steps: cumulative_sum of 2^26 float32 took 0.55 ms on the H100 with 256 x 1, where the bytes
# it must move take a third of that.
GROUP_SCAN_ITEMS = 8


def _group_scan(plan, rows, op, dtype, device, parts, chunk, carry, exclusive, out):
    """Scans each (row, part) with one work-group, tile by tile with a running carry: a tile's
    elements are loaded coalesced into local memory, each item scans its GROUP_SCAN_ITEMS
    neighbours there in order, the items' totals are scanned across the group (Hillis-Steele,
    log2 WG barrier steps a tile), and the results go back through local memory to coalesced
    stores."""
    wg = reduction._workgroup_size(device)
    items = GROUP_SCAN_ITEMS
    ksig = [fusion._sig(s) for s in rows.kstrides]
    asig = [fusion._sig([s]) for s in rows.astrides]
    key = ("gscan", op, dtype.char, plan.key, tuple(ksig), tuple(asig), carry is not None,
           exclusive, wg, items)
    kernel = G.cached(key, lambda: _build_group_scan(plan, rows, op, dtype, ksig, asig,
                                                     carry is not None, exclusive, wg, items))
    buf, off = out
    args = [G.ViewArg(buf.ptr + off * dtype.itemsize, device)]
    if carry is not None:
        args.append(G.ViewArg(carry.ptr, device))
    args += fusion.operand_args(plan, device)
    args += [rows.M, rows.L, parts, chunk, -(-chunk // (wg * items))]
    args += rows.kshape[1:]
    args += fusion.stride_args(ksig, rows.kstrides)
    for a, st in zip(asig, rows.astrides):
        args += [st] if a == "x" else []
    kernel.launch(G.NdRange((rows.M * parts * wg,), (wg,)), args)


def group_scan_chunk(device, chunk):
    """`chunk` rounded up to whole tiles of the group scan (parts then start on tiles)."""
    tile = reduction._workgroup_size(device) * GROUP_SCAN_ITEMS
    return -(-chunk // tile) * tile


def _build_group_scan(plan, rows, op, dtype, ksig, asig, has_carry, exclusive, wg, items):
    kb = G.KernelBuilder(fusion.kernel_name("gscan_" + op, plan.ops))
    out_v = kb.view(dtype, "out")
    carry_v = kb.view(dtype, "carry") if has_carry else None
    leaf_views = fusion.leaf_views(kb, plan)
    scalar_params = [kb.carrier(s.carrier) for s in plan.scalars]
    p_M, p_L, p_P, p_chunk, p_tiles = (kb.scalar(_I64, n) for n in
                                       ("M", "L", "P", "chunk", "tiles"))
    kext = [kb.scalar(_I64, "ke") for _ in rows.kshape[1:]]
    kstride = [[kb.scalar(_I64, "ks") for c in s if c == "x"] for s in ksig]
    astride = [[kb.scalar(_I64, "as")] if a == "x" else [] for a in asig]
    b = kb.begin()
    zero = kb.i64(0)
    barrier = kb.core.IrMemoryScope.WorkGroup
    ident = kb.const(dtype, _identity(op, dtype))
    tile = wg * items
    # The tile in local memory, one slot of padding after every 32 elements: item l reading its
    # neighbours l*items + j would otherwise hit the same banks as items 32/items apart.
    elems = kb.local(dtype, tile + tile // 32)
    sums = kb.local(dtype, wg)   # the items' totals, scanned across the group
    acc = kb.alloca(dtype)       # the carry: everything of the part before this tile
    val = kb.alloca(dtype)
    g = kb.work_item("GroupId", 0)
    lid = kb.work_item("LocalId", 0)
    P = kb.param(p_P)
    m = kb.op("Div", g, P)
    part = kb.op("Sub", g, kb.op("Mul", m, P))
    if has_carry:
        kb.store(acc, zero, kb.load(kb.ptr(carry_v), g))
    else:
        kb.store(acc, zero, ident)
    start = kb.op("Mul", part, kb.param(p_chunk))
    end = b.math(kb.core.MathFn.Min, [kb.op("Add", start, kb.param(p_chunk)), kb.param(p_L)])
    kidx = reduction._unravel(kb, m, kext, len(rows.kshape))
    bases = [fusion.offset_value(kb, kidx, ksig[i], kstride[i]) for i in range(len(ksig))]
    n_out = len(asig) - 1

    def padded(i):
        return kb.op("Add", i, kb.op("Shr", i, kb.i64(5)))

    body, t = G.for_loop(kb, zero, kb.param(p_tiles), kb.i64(1), "t")
    with G.Block(kb, body):
        first = kb.op("Add", start, kb.op("Mul", t, kb.i64(tile)))
        # coalesced loads: element first + s*wg + lid, identity past the part's end
        for s in range(items):
            slot = kb.op("Add", kb.i64(s * wg), lid)
            k = kb.op("Add", first, slot)
            kb.store(val, zero, ident)
            cond = b.create_if(kb.cmp("Lt", k, end))
            with G.Block(kb, G.then_block(cond)):
                def load_leaf(i, dt, k=k):
                    off = kb.op("Add", bases[i],
                                fusion.offset_value(kb, [k], asig[i], astride[i]))
                    return fusion.load_leaf_at(kb, leaf_views[i], dt, off)

                value, vdt = plan.emit(kb, load_leaf, lambda i: scalar_params[i])
                kb.store(val, zero, B.convert(b, value, vdt, dtype))
            kb.store(elems, padded(slot), kb.load(val, zero))
        b.barrier(barrier)
        # each item scans its neighbours in order (inclusive, in registers)
        own = kb.op("Mul", lid, kb.i64(items))
        values = [kb.load(elems, padded(kb.op("Add", own, kb.i64(j)))) for j in range(items)]
        inclusive = [values[0]]
        for value in values[1:]:
            inclusive.append(_combine(op, kb, dtype, inclusive[-1], value))
        kb.store(sums, lid, inclusive[-1])
        b.barrier(barrier)
        step = 1
        while step < wg:
            has = kb.cmp("Ge", lid, kb.i64(step))
            kb.store(val, zero, ident)
            cond = b.create_if(has)
            with G.Block(kb, G.then_block(cond)):
                kb.store(val, zero, kb.load(sums, kb.op("Sub", lid, kb.i64(step))))
            b.barrier(barrier)
            cond = b.create_if(has)
            with G.Block(kb, G.then_block(cond)):
                kb.store(sums, lid, _combine(op, kb, dtype, kb.load(val, zero),
                                             kb.load(sums, lid)))
            b.barrier(barrier)
            step *= 2
        # everything before this item's first element: the carry and the items before it
        carry_in = kb.load(acc, zero)
        before_items = b.select(kb.cmp("Gt", lid, zero),
                                kb.load(sums, b.select(kb.cmp("Gt", lid, zero),
                                                       kb.op("Sub", lid, kb.i64(1)), zero)),
                                ident)
        before = _combine(op, kb, dtype, carry_in, before_items)
        for j in range(items):
            if exclusive:
                result = before if j == 0 else _combine(op, kb, dtype, before, inclusive[j - 1])
            else:
                result = _combine(op, kb, dtype, before, inclusive[j])
            kb.store(elems, padded(kb.op("Add", own, kb.i64(j))), result)
        tile_total = kb.load(sums, kb.i64(wg - 1))
        b.barrier(barrier)
        # coalesced stores of the tile's results
        for s in range(items):
            slot = kb.op("Add", kb.i64(s * wg), lid)
            k = kb.op("Add", first, slot)
            cond = b.create_if(kb.cmp("Lt", k, end))
            with G.Block(kb, G.then_block(cond)):
                out_off = kb.op("Add", bases[n_out],
                                fusion.offset_value(kb, [k], asig[n_out], astride[n_out]))
                kb.store(kb.ptr(out_v), out_off, kb.load(elems, padded(slot)))
        kb.store(acc, zero, _combine(op, kb, dtype, carry_in, tile_total))
        b.barrier(barrier)
    return kb.finish()


# ---- nonzero ------------------------------------------------------------------------------------

def nonzero(x, Array):
    """The coordinates of the non-zero elements of x, one int64 array per dimension, in C
    order."""
    x._materialize()
    n = x.size
    device = x.device
    if x.ndim == 0:
        raise ValueError("nonzero() of a 0-D array: use nonzero(atleast_1d(x))")
    if x.dtype.kind == "c":
        x = Array._lazy(fusion.cast(x._as_node(), D.bool))._materialize()
    flags = fusion.apply("not_equal", [x._as_node(), fusion.scalar(0, x.dtype, device)],
                         D.bool, x.shape)
    flat_flags = fusion.cast(flags, _I64)
    positions = Buffer(device, max(n, 1) * 8)
    if n:
        flat = _flatten_node(flat_flags, x, device)
        scan_into(flat, "sum", 0, _I64, positions, 0, [1], device)
    count = 0
    if n:
        count = G.read_scalar(device, positions.ptr + (n - 1) * 8, _I64)
    indices = Buffer(device, max(count, 1) * 8)
    if count:
        _compact(x, positions, indices, n, device)
    flat_idx = Array._view(indices, 0, (count,), (1,), _I64, device)
    coords = []
    for d, stride in enumerate(c_strides(x.shape)):
        node = flat_idx._as_node()
        if stride != 1:
            node = fusion.apply("floor_divide", [node, fusion.scalar(stride, _I64, device)],
                                _I64, (count,))
        if d > 0:
            node = fusion.apply("remainder", [node, fusion.scalar(x.shape[d], _I64, device)],
                                _I64, (count,))
        coords.append(Array._lazy(node) if node.op != "leaf" else flat_idx)
    return tuple(coords)


def _flatten_node(node, x, device):
    """`node` (shape x.shape) as a 1-D graph in C order: materialized when x is not
    contiguous, else the same graph over flattened leaves."""
    buf = fusion.materialize(node)
    return fusion.leaf(buf, 0, (x.size,), (1,), node.dtype, device)


def _compact(x, positions, indices, n, device):
    """indices[positions[i] - 1] = i for every i with x[i] != 0 (x contiguous or not)."""
    xs = x._contiguous()
    space = fusion.LaunchShape([n], device)
    key = ("compact", x.dtype.char, space.key)
    kernel = G.cached(key, lambda: _build_compact(x.dtype, space))
    args = [G.ViewArg(indices.ptr, device), G.ViewArg(positions.ptr, device),
            G.ViewArg(xs._base.ptr + xs._offset * x.dtype.itemsize, device)]
    kernel.launch(space.index_range(), args + space.args())


def _build_compact(dtype, space):
    kb = G.KernelBuilder(fusion.kernel_name("compact", ["nonzero"]))
    out_v = kb.view(_I64, "out")
    pos_v = kb.view(_I64, "pos")
    x_v = kb.view(dtype, "x")
    space.declare(kb)
    b = kb.begin()
    (i,) = space.indices(kb)
    v = kb.load(kb.ptr(x_v), i)
    flag = B.convert(b, v, dtype, D.bool)
    cond = b.create_if(flag)
    with G.Block(kb, G.then_block(cond)):
        p = kb.op("Sub", kb.load(kb.ptr(pos_v), i), kb.i64(1))
        kb.store(kb.ptr(out_v), p, i)
    return kb.finish()
