"""Reductions over axes, generated as kernels that consume their elementwise producer.

``reduce(op, node, axes)`` reduces the expression graph `node` (fusion.py) over `axes`: the
graph is evaluated inside the reduction's loop, so ``sum((a - b) ** 2)`` reads a and b once and
writes one number. The dimensions of the input are split into kept ones (M output elements) and
reduced ones (length L each); each group is merged as far as every leaf allows. Two layouts,
chosen so that memory is read contiguously whichever axis is reduced:

- **inner** (the contiguous dimension is reduced, or everything is): an NdRange launch with one
  work-group of WG items per (output, part); the items stride through their part tile by tile
  (for t: k = start + t*WG + lid, uniform loop bounds, so the host runs it as a vectorized loop
  over the group's items), then combine in local memory as a tree (log2 WG barrier steps).
  P parts per output element give enough groups when M is small (a full reduction); the
  M x P partials are then reduced the same way (one group per output element).
- **outer** (a kept dimension is the contiguous one, e.g. ``sum(axis=0)`` of a C matrix): a
  Range launch over (P, M): item (p, m) loops over its part of the reduced range, so
  neighbouring items read neighbouring addresses; P > 1 parts are reduced again (outer, P = 1).

On GPUs a reduction in parts is one launch (``SINGLE_PASS``): each group writes its partial,
counts itself done on an atomic counter, and the group that finishes last combines the partials
of its output element. No atomics on the values: every result is combined in a fixed order, so
a reduction gives the same bits on every run. Operations (``OPS``): sum, prod, min, max, all,
any, argmin, argmax; ``min``/``max`` propagate NaN, ``argmin``/``argmax`` return the first
occurrence (the first NaN, if any).
"""

from __future__ import annotations

import math

import numpy as np

from .._ir import builder as B
from .._ir import scalar_ops
from .._runtime import diagnostics
from . import dtypes as D
from . import fusion
from . import generated as G
from .memory import Buffer, broadcast_strides, collapse, size_of

_I64 = np.dtype(np.int64)
_SENTINEL = (1 << 63) - 1
TREE_REDUCTIONS = None  # None: local-memory trees on non-CPU devices; True/False forces (tests)
# Steps of an item's loop whose loads are issued together (_build), on every device: 4. GPUs:
# one load in flight per item left a full f32 sum at half of the memory bandwidth. CPUs (the
# loop is vectorized across the group's items): four steps give four independent vector
# accumulators; on the GPU machine's 16-core Xeon a sum of 2^26 f32 went from 0.83x to 0.98x
# of oneTBB's triad bandwidth (2.86 -> 2.42 ms; 2 steps: 2.68). An int forces it (tests).
UNROLL = None
# Tiles each item of a GPU inner reduction gets at least (_workgroup_size; None: groups of 256
# whatever the row length). Measured on an H200: sum(axis=1) of 2^20 x 64 float32 1444 us with
# groups of 256 (a tree of 8 barrier steps after one load per item), 644 us with 32; rows of
# 4096 and full sums unchanged (docs/arrays.md).
GPU_TILES_PER_ITEM = 32
# Elements a part of a CPU inner reduction gets at least: below that, one work-group reduces
# the row in one launch instead of parts plus a second pass over their partials (a launch and
# its Python cost more than the cores save). Measured on the 2-core build machine, `sum` of
# float32 alternating the two settings in separate processes (a loaded machine: the figures of
# one setting moved 2x between rounds): 1024 elements 212-213 -> 64-112 us, 32768 elements
# 133-235 -> 67-119 us. From 2^19 elements on, a CPU gets as many parts as before.
CPU_MIN_PART = 1 << 15
# GPU inner reductions read a contiguous row with vector loads (_vector_layout): each item's
# unrolled step takes neighbouring elements, and the first load of each step promises 16-byte
# alignment when the leaf's address allows it, which the PTX code generator turns into one
# ld.global.v4 per leaf. None: on GPUs; True/False forces it on every device (tests).
VECTOR_LAYOUT = None
# GPU inner reductions in parts finish in their first launch: the last group of each output
# element (an atomic counter per element says which) combines the element's partials, instead
# of a second launch over them. That launch and its Python (two buffers, the arguments) were
# 20-30 us of a per-call `float(dpk.sum(a))` on the H100 machine. The counters (COUNTER_SLOTS
# per device, zero between launches: the last group resets its own) limit it to as many output
# elements. None: GPUs; True/False forces it on every device (tests).
SINGLE_PASS = None
COUNTER_SLOTS = 4096
_I32 = np.dtype(np.int32)


class ReduceOp:
    """A reduction: accumulator dtypes, identity, how an input element becomes an accumulator
    (``lift``), how two accumulators combine, and which component is the result."""

    def __init__(self, name, acc_dtypes, identity, combine, lift=None, result=0, pair=None):
        self.name = name
        self.pair = pair                  # complex dtype: the two components form the result
        self.acc_dtypes = acc_dtypes      # tuple of dtypes
        self.identity = identity          # tuple of Python values
        self.combine = combine            # (kb, a: tuple, b: tuple) -> tuple
        self.lift = lift                  # (kb, values: list, r) -> tuple (None: convert)
        self.result = result              # index of the component written as the result


def _binop(kind):
    def combine(kb, a, b, dtype):
        return (scalar_ops.EMITTERS[kind](kb.b, dtype, a[0], b[0]),)
    return combine


_OPS = {}


def make_op(name, acc_dtype):
    """The ReduceOp `name` accumulating in acc_dtype (made once: every reduction call asks)."""
    key = (name, acc_dtype)
    op = _OPS.get(key)
    if op is None:
        op = _OPS[key] = _make_op(name, acc_dtype)
    return op


def _make_op(name, acc_dtype):
    acc = acc_dtype
    if acc.kind == "c" and name == "sum":
        # complex sum: two real accumulators (re, im), written interleaved as the result
        comp = D.component(acc)
        add = scalar_ops.EMITTERS["add"]
        return ReduceOp("csum", (comp, comp), (0.0, 0.0),
                        lambda kb, a, b: (add(kb.b, comp, a[0], b[0]),
                                          add(kb.b, comp, a[1], b[1])),
                        lambda kb, values, r: tuple(values[0]), pair=acc)
    if name in ("sum", "prod"):
        kind = "add" if name == "sum" else "multiply"
        ident = 0 if name == "sum" else 1
        if acc.kind == "b":
            kind = "logical_or" if name == "sum" else "logical_and"
            ident = name != "sum"
        return ReduceOp(name, (acc,), (ident,),
                        lambda kb, a, b: (scalar_ops.EMITTERS[kind](kb.b, acc, a[0], b[0]),))
    if name in ("min", "max"):
        kind = "minimum" if name == "min" else "maximum"
        if acc.kind == "f":
            ident = math.inf if name == "min" else -math.inf
        elif acc.kind == "b":
            ident = name == "min"
        else:
            info = np.iinfo(acc)
            ident = int(info.max) if name == "min" else int(info.min)
        return ReduceOp(name, (acc,), (ident,),
                        lambda kb, a, b: (scalar_ops.EMITTERS[kind](kb.b, acc, a[0], b[0]),))
    if name in ("all", "any"):
        kind = "logical_and" if name == "all" else "logical_or"
        return ReduceOp(name, (D.bool,), (name == "all",),
                        lambda kb, a, b: (scalar_ops.EMITTERS[kind](kb.b, D.bool, a[0], b[0]),))
    if name in ("argmin", "argmax"):
        pred = "Lt" if name == "argmin" else "Gt"

        def combine(kb, a, b):
            b_ = kb.b
            va, ia = a
            vb, ib = b
            s = kb.i64(_SENTINEL)
            a_empty = kb.cmp("Eq", ia, s)
            b_valid = kb.cmp("Ne", ib, s)
            earlier = kb.cmp("Lt", ib, ia)
            better = kb.cmp(pred, vb, va)
            tie = kb.op("And", kb.cmp("Eq", vb, va), earlier)
            if acc.kind == "f":
                nan_a = scalar_ops.isnan(b_, acc, va)
                nan_b = scalar_ops.isnan(b_, acc, vb)
                not_nan_a = b_.unary(kb.core.OpKind.Not, nan_a)
                by_nan = kb.op("And", nan_b, kb.op("Or", not_nan_a, earlier))
                by_value = kb.op("And", not_nan_a, kb.op("Or", better, tie))
                take = kb.op("Or", by_nan, by_value)
            else:
                take = kb.op("Or", better, tie)
            take = kb.op("Or", a_empty, kb.op("And", b_valid, take))
            return (b_.select(take, vb, va), b_.select(take, ib, ia))

        def lift(kb, values, r):
            return (values[0], r)

        ident = 0.0 if acc.kind == "f" else 0
        return ReduceOp(name, (acc, _I64), (ident, _SENTINEL), combine, lift, result=1)
    raise ValueError(name)


# ---- geometry ---------------------------------------------------------------------------------

class Geometry:
    """The kept and reduced dimensions after merging, with every leaf's strides in each."""

    def __init__(self, shape, axes, leaves):
        nd = len(shape)
        kept = [d for d in range(nd) if d not in axes]
        red = [d for d in range(nd) if d in axes]
        strides = [broadcast_strides(lf.shape, lf.strides, shape) for lf in leaves]
        self.M = size_of([shape[d] for d in kept])
        self.L = size_of([shape[d] for d in red])
        self.kshape, kstr = collapse([shape[d] for d in kept], [[s[d] for d in kept]
                                                                for s in strides])
        self.rshape, rstr = collapse([shape[d] for d in red], [[s[d] for d in red]
                                                               for s in strides])
        self.kstrides = kstr
        self.rstrides = rstr
        self.inner = self._inner(leaves, strides, kept, red, shape)

    def _inner(self, leaves, strides, kept, red, shape):
        if self.M == 1:
            return True
        best, best_size = None, -1
        for lf, s in zip(leaves, strides):
            if lf.op == "iota":
                continue
            size = size_of(lf.shape)
            if size > best_size:
                best, best_size = s, size
        if best is None:
            return True
        dims = [d for d in range(len(shape)) if shape[d] > 1 and best[d] != 0]
        if not dims:
            return True
        fastest = min(dims, key=lambda d: abs(best[d]))
        return fastest in red

    def sigs(self):
        return ([fusion._sig(s) for s in self.kstrides], [fusion._sig(s) for s in self.rstrides])


def _unravel(kb, flat, extents_params, nd):
    """Indices of `flat` over nd dims whose extents 1..nd-1 are parameters (C order)."""
    return fusion._unravel(kb, flat, extents_params, nd)


# ---- the kernels ------------------------------------------------------------------------------

def _workgroup_size(device, L=None):
    """Items of an inner reduction's group. GPUs: 256, or with ``GPU_TILES_PER_ITEM`` set the
    largest power of two down to 32 that leaves each item that many tiles of a row of L (short
    rows then fill groups with loads instead of tree steps)."""
    if device.device_type == "cpu":
        return 64
    wg = min(256, device.max_work_group_size)
    if GPU_TILES_PER_ITEM and L is not None:
        while wg > 32 and L < wg * GPU_TILES_PER_ITEM:
            wg //= 2
    return wg


def _target_parallelism(device):
    """How many groups (inner) / items (outer) a reduction should spread over."""
    if device.device_type == "cpu":
        return 8 * max(device._dev.compute_units, 1), 256 * max(device._dev.compute_units, 1)
    return 4 * max(device._dev.compute_units, 1) * 8, 64 * 1024


def reduce(op, node, axes, device):
    """Reduces `node` over `axes` (a set of dims of node.shape) with ReduceOp `op`; returns a
    Buffer of size M (kept elements, C order) holding component ``op.result`` of the final
    accumulators (dtype op.acc_dtypes[op.result])."""
    axes_key = tuple(sorted(axes))
    knobs = _knobs()
    is_leaf = node.op == "leaf"
    memo_key = _memo_key(op, axes_key, knobs)
    memo = node.memo if is_leaf else None
    found = memo.get(memo_key) if memo else None
    if found is not None:
        recipe, head = found
        plan = fusion.Plan(node) if diagnostics.enabled(2) else None
    else:
        plan = fusion.Plan(node)
        aligned = _aligned_leaves(plan, device)
        key = (op.name, op.acc_dtypes, plan.key, node.shape, axes_key,
               tuple([(lf.op, lf.shape, lf.strides) for lf in plan.leaves]), device,
               aligned) + knobs
        recipe = _recipes.get(key)
        if recipe is None:
            recipe = _recipes.keep(key, _recipe(op, plan, node.shape, set(axes), device,
                                                 aligned))
        head = fusion.operand_args(plan, device)
        if is_leaf:
            # An array's leaf has one address and geometry for life (array_object._as_node):
            # its next reduction of this kind takes the recipe and arguments from here.
            fusion.leaf_memo(node)[memo_key] = (recipe, head)
    if plan is not None and recipe.M:
        fusion_report(plan, recipe.steps[0].kernel, node, op)
    return run_recipe(recipe, head, device, op)


def memoized_full(op, leaf):
    """(recipe, head) of a reduction of every axis of `leaf` (an array's leaf) with `op` that
    reduce() ran before and memoized with the current knobs, or None. What the statistical
    functions' shortcut for whole materialized arrays takes (statistical_functions._whole)."""
    memo = leaf.memo
    if memo is None:
        return None
    return memo.get(_memo_key(op, tuple(range(len(leaf.shape))), _knobs()))


def _memo_key(op, axes_key, knobs):
    """The key of a leaf's memoized reduction: the op, the sorted axes and the knobs."""
    return (op, axes_key, knobs)


def run_recipe(recipe, head, device, op):
    """Launches `recipe` with `head` (the leaves' and scalars' arguments) into a new Buffer of
    recipe.M results."""
    res_dtype = op.pair or op.acc_dtypes[op.result]
    out = Buffer(device, max(recipe.M, 0) * res_dtype.itemsize)
    if recipe.M == 0:
        return out
    first = recipe.steps[0]
    view_arg = G.view_arg
    if recipe.single:
        first.fire([view_arg(out.ptr, device)] + recipe.scratch_args(device), head)
        return out
    if len(recipe.steps) == 1:
        first.fire([view_arg(out.ptr, device)], head)
        return out
    buffers = [Buffer(device, n) for n in recipe.partial_bytes]
    partials = [view_arg(b.ptr, device) for b in buffers]
    first.fire(partials, head)
    recipe.steps[1].fire([view_arg(out.ptr, device)], partials)
    return out


_counter_buffers = {}


def _counters(device):
    """The device's COUNTER_SLOTS int32 counters of single-pass reductions, zero between
    launches (each launch's last groups reset theirs). Array work on a device runs on its one
    in-order queue, so two reductions never use them at once."""
    buf = _counter_buffers.get(device)
    if buf is None:
        buf = Buffer(device, COUNTER_SLOTS * 4)
        device.queue.fill(buf.ptr, b"\0", COUNTER_SLOTS * 4).wait()
        _counter_buffers[device] = buf
    return buf


def _single_pass(device, geo):
    enabled = device.device_type != "cpu" if SINGLE_PASS is None else SINGLE_PASS
    return enabled and geo.inner and geo.M <= COUNTER_SLOTS


# Reduction recipes: the launch geometry, kernels and size arguments of a reduction, which
# depend only on the graph's shape, the leaves' shapes and strides, the axes and the device, so a
# loop of reductions of one shape computes them once (a host `sum` of 1024 float32 spent most
# of its time there).
_recipes = G.Recipes()


def _knobs():
    """The settings a recipe depends on beyond its key (tests and benchmarks change them)."""
    return (TREE_REDUCTIONS, UNROLL, GPU_TILES_PER_ITEM, CPU_MIN_PART, VECTOR_LAYOUT,
            SINGLE_PASS, COUNTER_SLOTS, fusion.FLAT_LAUNCHES, _workgroup_size,
            _target_parallelism)


class _Recipe:
    __slots__ = ("M", "steps", "partial_bytes", "single", "_scratch")

    def scratch_args(self, device):
        """A single-pass launch's partials and counters (after the result): the partials'
        memory is the recipe's own, made on its first launch. Every launch of the recipe runs
        on the device's one in-order queue, so the next one starts after the last group of
        this one read them; the recipes of single passes are small (M <= COUNTER_SLOTS)."""
        if self._scratch is None:
            buffers = [Buffer(device, n) for n in self.partial_bytes]
            args = [G.view_arg(b.ptr, device) for b in buffers]
            args.append(G.view_arg(_counters(device).ptr, device))
            self._scratch = (buffers, args)
        return self._scratch[1]


def _aligned_leaves(plan, device):
    """GPUs: for each leaf, the alignment (bytes) a vector of an unrolled step's elements at
    its first element may promise (fusion.vector_alignment; 0 for none and for iota leaves);
    nothing on CPUs, whose vector loads need no alignment."""
    if not _vector_devices(device):
        return ()
    width = UNROLL or 4
    return tuple([0 if lf.op == "iota" else _leaf_alignment(lf, width) for lf in plan.leaves])


def _leaf_alignment(lf, width):
    """fusion.vector_alignment of leaf `lf`'s first element, kept in the leaf's memo."""
    memo = fusion.leaf_memo(lf)
    key = ("align", width)
    align = memo.get(key)
    if align is None:
        align = memo[key] = fusion.vector_alignment(
            lf.buffer.ptr + lf.offset * lf.dtype.itemsize, lf.dtype, width)
    return align


def _vector_devices(device):
    return device.device_type != "cpu" if VECTOR_LAYOUT is None else VECTOR_LAYOUT


def _vector_layout(device, geo, leaves, unroll):
    """Whether a GPU inner reduction's unrolled steps give each item `unroll` neighbouring
    elements (instead of one element of each of `unroll` tiles), so that a contiguous leaf is
    read with vector loads where its address allows (_load_alignments). The layout does not
    depend on the addresses, so neither do the result's bits."""
    if not _vector_devices(device) or not geo.inner or unroll < 2 or len(geo.rshape) != 1:
        return False
    _, rsig = geo.sigs()
    return any(lf.op != "iota" and sig == "1" for lf, sig in zip(leaves, rsig))


def _load_alignments(geo, leaves, aligned, chunk):
    """Per leaf, the alignment (bytes) the first load of an item's unrolled step may promise
    in the vector layout, or 0: the leaf is contiguous along the row, its first element is
    aligned for a vector of an unrolled step's elements (`aligned`, from _aligned_leaves), and
    every row and part starts a whole vector further on."""
    _, rsig = geo.sigs()
    out = []
    for i, lf in enumerate(leaves):
        size = lf.dtype.itemsize
        align = aligned[i] if i < len(aligned) else 0
        ok = (align and rsig[i] == "1" and (chunk * size) % align == 0
              and (geo.M == 1 or all((st * size) % align == 0 for st in geo.kstrides[i])))
        out.append(align if ok else 0)
    return tuple(out)


class _Step:
    """One launch of a reduction: its kernel and range, and the arguments after the outputs and
    the per-call head (leaf views and scalar values)."""

    __slots__ = ("kernel", "index_range", "tail")

    def fire(self, outs, head):
        """Launches with `outs` (ViewArgs of the outputs) and `head` before the tail."""
        self.kernel.launch(self.index_range, outs + head + self.tail)


def _recipe(op, plan, shape, axes, device, aligned=()):
    recipe = _Recipe()
    geo = Geometry(shape, axes, plan.leaves)
    M, L = geo.M, geo.L
    recipe.M = M
    recipe.steps = []
    recipe.partial_bytes = ()
    recipe.single = False
    recipe._scratch = None
    if M == 0:
        return recipe
    groups, items = _target_parallelism(device)
    if geo.inner:
        wg = _workgroup_size(device, L)
        per_part = wg * 8 if device.device_type != "cpu" else max(wg * 8, CPU_MIN_PART)
        parts = max(1, min(-(-groups // M), -(-L // per_part)))
        chunk = -(-L // parts)
        # whole groups of steps (GPUs: whole unrolled steps, so that parts start aligned)
        step = wg * (UNROLL or 4) if _vector_devices(device) else wg
        chunk = -(-chunk // step) * step
        parts = -(-L // chunk)
    else:
        wg = 0
        parts = max(1, min(-(-items // M), -(-L // 64)))
        width = _outer_width(device, M)
        if width:
            # CPU: a group is `width` neighbouring outputs, so it streams whole row segments;
            # enough parts to give every core a group
            parts = max(1, min(-(-2 * device._dev.compute_units // (M // width)), L // 256))
        chunk = -(-L // parts)
        parts = -(-L // chunk)
    if parts == 1:
        recipe.steps.append(_step(op, plan, geo, device, wg, 1, chunk, True, aligned))
        return recipe
    recipe.partial_bytes = tuple(M * parts * d.itemsize for d in op.acc_dtypes)
    if _single_pass(device, geo):
        recipe.single = True
        recipe.steps.append(_step(op, plan, geo, device, wg, parts, chunk, False, aligned,
                                  single=True))
        return recipe
    recipe.steps.append(_step(op, plan, geo, device, wg, parts, chunk, False, aligned))
    # Second pass over the partials: (M, parts) rows for inner, (parts, M) for outer.
    if geo.inner:
        pshape, pstrides, paxes = (M, parts), (parts, 1), {1}
    else:
        pshape, pstrides, paxes = (parts, M), (M, 1), {0}
    components = [fusion.leaf(None, 0, pshape, pstrides, d, device) for d in op.acc_dtypes]
    pplan = _PartialPlan(components)
    pgeo = Geometry(pshape, paxes, components)
    pgeo.inner = geo.inner
    pwg = _workgroup_size(device) if geo.inner else 0
    pchunk = -(-parts // pwg) * pwg if geo.inner else parts
    recipe.steps.append(_step(op, pplan, pgeo, device, pwg, 1, pchunk, final=True))
    return recipe


class _PartialPlan:
    """The input of a second pass: one leaf per accumulator component, taken as is."""

    def __init__(self, leaves):
        self.leaves = leaves
        self.scalars = []
        self.ops = ["partials"]
        self.where = []
        self.key = ("partials",) + tuple(lf.dtype.char for lf in leaves)


def _outer_width(device, M):
    """The group width of an outer reduction on a CPU (a divisor of M up to the device's group
    size limit; measured: sum(axis=0) of 4096² f32 took 9.6 ms with the host's own Range
    groups and 4.3 ms with 4096-wide groups), or 0 for the default launch."""
    if device.device_type != "cpu" or fusion.FLAT_LAUNCHES:
        return 0
    limit = min(device.max_work_group_size, 4096)
    if M <= limit:
        return M
    for width in range(limit, 255, -1):
        if M % width == 0:
            return width
    return 0


def _launch(op, plan, geo, node, device, wg, parts, chunk, outs, final):
    """One reduction pass of `plan` (its leaves and scalars as this call's arguments) into
    `outs` (scan.py's part totals use it directly)."""
    step = _step(op, plan, geo, device, wg, parts, chunk, final, _aligned_leaves(plan, device))
    if node is not None:
        fusion_report(plan, step.kernel, node, op)
    head = fusion.operand_args(plan, device)
    step.fire([G.view_arg(b.ptr, device) for b in outs], head)


def _step(op, plan, geo, device, wg, parts, chunk, final, aligned=(), single=False):
    ksig, rsig = geo.sigs()
    partial_input = isinstance(plan, _PartialPlan)
    space = None if geo.inner else fusion.LaunchShape([parts, geo.M], device)
    exact = not geo.inner and geo.L == parts * chunk
    tree = device.device_type != "cpu" if TREE_REDUCTIONS is None else TREE_REDUCTIONS
    unroll = UNROLL or 4
    vector = _vector_layout(device, geo, plan.leaves, unroll)
    aligns = _load_alignments(geo, plan.leaves, aligned, chunk) if vector else ()
    key = ("red", op.name, tuple(d.char for d in op.acc_dtypes), plan.key, tuple(ksig),
           tuple(rsig), geo.inner, wg, final, partial_input, space.key if space else None,
           exact, tree, unroll, vector, aligns, single)
    step = _Step()
    step.kernel = G.cached(key, lambda: _build(op, plan, geo, wg, final, partial_input, space,
                                               exact, tree, unroll, vector, aligns, single))
    tail = [geo.M, geo.L, parts, chunk, -(-chunk // wg) if wg else chunk]
    tail += geo.kshape[1:] + geo.rshape[1:]
    tail += fusion.stride_args(ksig, geo.kstrides) + fusion.stride_args(rsig, geo.rstrides)
    if space is not None:
        tail += space.args()
    step.tail = tail
    if geo.inner:
        step.index_range = G.NdRange((geo.M * parts * wg,), (wg,))
    else:
        width = _outer_width(device, geo.M)
        step.index_range = (G.NdRange((parts, geo.M), (1, width)) if width
                            else space.index_range())
    return step


def fusion_report(plan, kernel, node, op):
    if not diagnostics.enabled(2):
        return
    from_ops = getattr(plan, "ops", [])
    fusion._report_ops(plan, kernel, node, f"{op.name}(" + (" ".join(from_ops) or "copy") + ")")


def _build(op, plan, geo, wg, final, partial_input, space, exact, tree, unroll, vector=False,
           aligns=(), single=False):
    """A reduction pass. `single` (inner layout, in parts): the views are the result, the
    partials and the counters, and the last group of each output element finishes it."""
    name = fusion.kernel_name("reduce_" + op.name, getattr(plan, "ops", []))
    kb = G.KernelBuilder(name)
    result_views = []
    if final or single:
        result_views = [kb.view(op.acc_dtypes[op.result], "out")]  # pair: the component type
    if final:
        out_views = result_views
    else:
        out_views = [kb.view(d, "part") for d in op.acc_dtypes]
    counter_view = kb.view(_I32, "count") if single else None
    leaf_views = fusion.leaf_views(kb, plan)
    scalar_params = [kb.carrier(s.carrier) for s in plan.scalars]
    p_M, p_L, p_parts, p_chunk, p_tiles = (kb.scalar(_I64, n) for n in
                                           ("M", "L", "P", "chunk", "tiles"))
    kext = [kb.scalar(_I64, "ke") for _ in geo.kshape[1:]]
    rext = [kb.scalar(_I64, "re") for _ in geo.rshape[1:]]
    ksig, rsig = geo.sigs()
    kstride = [[kb.scalar(_I64, "ks") for c in s if c == "x"] for s in ksig]
    rstride = [[kb.scalar(_I64, "rs") for c in s if c == "x"] for s in rsig]
    if space is not None:
        space.declare(kb)
    b = kb.begin()
    outer_index = space.indices(kb) if space is not None else None
    zero = kb.i64(0)
    accs = [kb.alloca(d) for d in op.acc_dtypes]
    _reset_accumulators(kb, op, accs, zero)

    def load_acc():
        return tuple(kb.load(s, zero) for s in accs)

    def position():
        """(m, part, start, end): the output element and part of this item. Emitted where it
        is used: the host compiler then sees values derived from the group id as the same for
        every item of the group (computed before the loop they would be kept per item)."""
        if geo.inner:
            g = kb.work_item("GroupId", 0)
            P = kb.param(p_parts)
            m = kb.op("Div", g, P)
            part = kb.op("Sub", g, kb.op("Mul", m, P))
        else:
            part, m = outer_index
        start = kb.op("Mul", part, kb.param(p_chunk))
        end = b.math(kb.core.MathFn.Min, [kb.op("Add", start, kb.param(p_chunk)),
                                          kb.param(p_L)])
        return m, part, start, end

    def bases_of(m):
        kidx = _unravel(kb, m, kext, len(geo.kshape))
        return [fusion.offset_value(kb, kidx, ksig[i], kstride[i]) for i in range(len(ksig))]

    def lift_at(r, bases, lead=False):
        """The accumulator components of reduced element r (its loads and elementwise math);
        `lead`: r starts an item's vector of neighbours, so its loads promise the alignment."""
        ridx = _unravel(kb, r, rext, len(geo.rshape))

        def load_leaf(i, dtype):
            off = kb.op("Add", bases[i], fusion.offset_value(kb, ridx, rsig[i], rstride[i]))
            align = aligns[i] if lead and i < len(aligns) else 0
            if align:
                return kb.load(kb.ptr(leaf_views[i]), off, align)
            return fusion.load_leaf_at(kb, leaf_views[i], dtype, off)

        if partial_input:
            lifted = tuple(load_leaf(i, lf.dtype) for i, lf in enumerate(plan.leaves))
        else:
            value, vdt = plan.emit(kb, load_leaf, lambda i: scalar_params[i])
            if op.lift is not None:
                lifted = op.lift(kb, [value], r)
            else:
                lifted = (B.convert(b, value, vdt, op.acc_dtypes[0]),)
        return lifted

    def accumulate(rs, bases, vector_step=False):
        """Folds reduced elements rs into the accumulators, in order. Every element's loads
        come first, so that a GPU has len(rs) loads in flight per item instead of waiting for
        each before the next (the fold's order, hence the result's bits, stay the same).
        `vector_step`: rs are neighbours, the first at a vector's start."""
        values = [lift_at(r, bases, vector_step and k == 0) for k, r in enumerate(rs)]
        for lifted in values:
            _combine_into(kb, op, accs, lifted, zero)

    # Whole tiles without a bounds check (uniform trip count: the host runs the group's items
    # as a vectorized inner loop), then the last partial tile with one. The outer layout's
    # items each have their own part (a Range launch has no groups), so its loop runs to the
    # uniform chunk length and checks the end.
    if geo.inner:
        _, _, start, end = position()
        full = kb.op("Div", kb.op("Sub", end, start), kb.i64(wg))
        full = b.math(kb.core.MathFn.Max, [full, zero])
    else:
        full = kb.param(p_chunk)

    def element(t):
        """Reduced element of step t of this item's loop (tile t of the group, or row t)."""
        if geo.inner:
            lid = kb.work_item("LocalId", 0)
            return kb.op("Add", kb.op("Add", start, kb.op("Mul", t, kb.i64(wg))), lid)
        return kb.op("Add", start, t)

    # Unrolled steps first (GPUs, where every step is a full one: inner tiles, exact outer
    # parts), then the remaining steps one at a time.
    first = zero
    if unroll > 1 and (geo.inner or exact):
        steps = kb.op("Div", full, kb.i64(unroll))
        body, tu = G.for_loop(kb, zero, steps, kb.i64(1), "tu")
        with G.Block(kb, body):
            m, part, start, end = position()
            if vector:
                # the block of `unroll` tiles, item lid taking neighbours lid*unroll + u
                lid = kb.work_item("LocalId", 0)
                block = kb.op("Add", start, kb.op("Mul", tu, kb.i64(unroll * wg)))
                first_r = kb.op("Add", block, kb.op("Mul", lid, kb.i64(unroll)))
                accumulate([kb.op("Add", first_r, kb.i64(u)) if u else first_r
                            for u in range(unroll)], bases_of(m), vector_step=True)
            else:
                t0 = kb.op("Mul", tu, kb.i64(unroll))
                accumulate([element(kb.op("Add", t0, kb.i64(u))) for u in range(unroll)],
                           bases_of(m))
        first = kb.op("Mul", steps, kb.i64(unroll))
    body, t = G.for_loop(kb, first, full, kb.i64(1), "t")
    with G.Block(kb, body):
        m, part, start, end = position()
        bases = bases_of(m)
        if geo.inner or exact:  # exact: every part is full, no check in the loop the host
            accumulate([element(t)], bases)  # vectorizes
        else:
            r = element(t)
            cond = b.create_if(kb.cmp("Lt", r, end))
            with G.Block(kb, G.then_block(cond)):
                accumulate([r], bases)
    m, part, start, end = position()
    if geo.inner:
        lid = kb.work_item("LocalId", 0)
        g = kb.work_item("GroupId", 0)
        r = kb.op("Add", kb.op("Add", start, kb.op("Mul", full, kb.i64(wg))), lid)
        cond = b.create_if(kb.cmp("Lt", r, end))
        with G.Block(kb, G.then_block(cond)):
            accumulate([r], bases_of(m))

    if geo.inner:
        scratch = [kb.local(d, wg) for d in op.acc_dtypes]
        acc = load_acc()
        for sc, v in zip(scratch, acc):
            kb.store(sc, lid, v)
        b.barrier(kb.core.IrMemoryScope.WorkGroup)
        _fold_group(kb, op, scratch, accs, lid, wg, tree, None)
        cond = b.create_if(kb.cmp("Eq", lid, zero))
        with G.Block(kb, G.then_block(cond)):
            final_acc = tuple(kb.load(sc, zero) for sc in scratch)
            _write(kb, op, out_views, g, final_acc, final)
        if single:
            _finish_last_group(kb, op, out_views, result_views[0], counter_view, scratch, accs,
                               m, kb.param(p_parts), lid, wg, tree)
    else:
        index = kb.op("Add", kb.op("Mul", part, kb.param(p_M)), m)
        _write(kb, op, out_views, index, load_acc(), final)
    return kb.finish()


def _reset_accumulators(kb, op, accs, zero):
    """Stores the op's identity in each private accumulator slot."""
    for acc, d, ident in zip(accs, op.acc_dtypes, op.identity):
        kb.store(acc, zero, kb.const(d, ident))


def _combine_into(kb, op, accs, values, zero):
    """accs (private accumulator slots) <- op.combine(accs, values): one fold step."""
    mine = tuple(kb.load(acc, zero) for acc in accs)
    for acc, v in zip(accs, op.combine(kb, mine, values)):
        kb.store(acc, zero, v)


def _fold_group(kb, op, scratch, accs, lid, wg, tree, active):
    """Combines the group's values in local `scratch` (one per item) into scratch[0], in a
    fixed order: a tree (log2 wg barrier steps) or, on CPUs, item 0 folding them by index (one
    barrier instead of a round per level). `active` (a bool value, uniform in the group, or
    None): only then are values combined; the barriers are passed either way, which keeps them
    in uniform control flow."""
    b = kb.b
    zero = kb.i64(0)

    def when(cond):
        return cond if active is None else kb.op("And", active, cond)

    if not tree:
        cond = b.create_if(when(kb.cmp("Eq", lid, zero)))
        with G.Block(kb, G.then_block(cond)):
            for sc, v in zip(accs, (kb.load(sc2, zero) for sc2 in scratch)):
                kb.store(sc, zero, v)
            fold, i = G.for_loop(kb, kb.i64(1), kb.i64(wg), kb.i64(1), "i")
            with G.Block(kb, fold):
                _combine_into(kb, op, accs, tuple(kb.load(sc, i) for sc in scratch), zero)
            for sc, acc in zip(scratch, accs):
                kb.store(sc, zero, kb.load(acc, zero))
        return
    s = wg // 2
    while s >= 1:
        cond = b.create_if(when(kb.cmp("Lt", lid, kb.i64(s))))
        with G.Block(kb, G.then_block(cond)):
            other = kb.op("Add", lid, kb.i64(s))
            mine = tuple(kb.load(sc, lid) for sc in scratch)
            theirs = tuple(kb.load(sc, other) for sc in scratch)
            for sc, v in zip(scratch, op.combine(kb, mine, theirs)):
                kb.store(sc, lid, v)
        b.barrier(kb.core.IrMemoryScope.WorkGroup)
        s //= 2


def _finish_last_group(kb, op, part_views, out_view, counter_view, scratch, accs, m, P, lid,
                       wg, tree):
    """The end of a single-pass reduction (SINGLE_PASS), after item 0 wrote the group's
    partial: item 0 publishes it (a device-scope fence, then the counter of output element m
    counts the group) and learns whether the group was the element's last; that group then
    combines the element's P partials in a fixed order (item l takes partials l, l + wg, ...;
    then the group's fold) and writes the result, and item 0 resets the counter for the next
    launch."""
    b = kb.b
    core = kb.core
    zero = kb.i64(0)
    scope = core.IrMemoryScope.Device
    acq_rel = core.IrMemoryOrder.AcqRel
    flag = kb.local(_I32, 1)
    is_first_item = kb.cmp("Eq", lid, zero)
    cond = b.create_if(is_first_item)
    with G.Block(kb, G.then_block(cond)):
        b.fence(acq_rel, scope)
        done = b.atomic_rmw(core.AtomicRmwKind.Add, kb.ptr(counter_view), m,
                            kb.const(_I32, 1), acq_rel, scope)
        last = kb.cmp("Eq", B.convert(b, done, _I32, _I64), kb.op("Sub", P, kb.i64(1)))
        kb.store(flag, zero, b.select(last, kb.const(_I32, 1), kb.const(_I32, 0)))
    b.barrier(core.IrMemoryScope.WorkGroup)
    last = kb.cmp("Ne", kb.load(flag, zero), kb.const(_I32, 0))
    cond = b.create_if(last)
    with G.Block(kb, G.then_block(cond)):
        b.fence(acq_rel, scope)  # the other groups' partials, published before their counts
        _reset_accumulators(kb, op, accs, zero)
        body, k = G.for_loop(kb, lid, P, kb.i64(wg), "k")
        with G.Block(kb, body):
            index = kb.op("Add", kb.op("Mul", m, P), k)
            _combine_into(kb, op, accs, tuple(kb.load(kb.ptr(v), index) for v in part_views),
                          zero)
        for sc, acc in zip(scratch, accs):
            kb.store(sc, lid, kb.load(acc, zero))
    b.barrier(core.IrMemoryScope.WorkGroup)
    _fold_group(kb, op, scratch, accs, lid, wg, tree, last)
    cond = b.create_if(kb.op("And", last, is_first_item))
    with G.Block(kb, G.then_block(cond)):
        _write(kb, op, [out_view], m, tuple(kb.load(sc, zero) for sc in scratch), True)
        b.atomic_store(kb.ptr(counter_view), m, kb.const(_I32, 0),
                       core.IrMemoryOrder.Relaxed, scope)


def _write(kb, op, out_views, index, acc, final):
    if final and op.pair is not None:
        fusion.store_value(kb, out_views[0], op.pair, index, (acc[0], acc[1]))
    elif final:
        kb.store(kb.ptr(out_views[0]), index, acc[op.result])
    else:
        for v, a in zip(out_views, acc):
            kb.store(kb.ptr(v), index, a)
