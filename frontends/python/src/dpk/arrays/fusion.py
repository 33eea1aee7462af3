"""Automatic fusion: elementwise operations record an expression graph; one kernel computes it.

An elementwise operation on dpk arrays does not run: it returns a *lazy* array holding a
``Node`` of a small DAG whose leaves are views of device memory (``leaf``) and scalars
(``scalar``, passed to the kernel as parameters, so a new value does not make a new kernel), and
whose inner nodes are rows of the elementwise table (dpk.arrays.elementwise_table) or ``cast``.
The graph is *materialized* — generated into one kernel that reads every leaf once and writes
the result — when a value is needed: a reduction (which consumes the graph in its own kernel,
dpk.arrays.reduction), a non-elementwise operation, indexing, conversion (NumPy, ``bool()``,
``float()``, printing), DLPack export, a kernel launch taking the array, or a write into memory
the graph reads (``flush_readers``: in-place operators, ``__setitem__``). A graph that grows past
``MAX_NODES`` nodes or ``MAX_LEAVES`` leaves materializes its biggest operand first.

Generated kernels are cached by the graph's shape (ops, dtypes, which leaves are shared), the
stride class of every operand in every dimension after merging dimensions that all operands step
through together (0: broadcast, 1: contiguous, x: strided) and the rank: a Python loop over the
same expression builds its kernel once, whatever the sizes and scalar values.

The policy's ``arrays: {fusion: false}`` (or ``DPK_FUSION=0``, or ``set_enabled(False)``) turns
fusion off: every operation materializes at once, one kernel each (results are the same: integer
and exact operations bit for bit, floating point within the FMA contractions the compilers may
make). Diagnostics level 2 lists every
fusion group (``arrays.fusion`` records: the ops, the source lines that built them, the kernel).
"""

from __future__ import annotations

import os
import sys
import weakref

import numpy as np

from .._core_loader import core
from .._ir import scalar_ops
from .._runtime import diagnostics
from . import complex_ops as C
from . import dtypes as D
from . import generated as G
from .memory import Buffer, broadcast_strides, c_strides, collapse, size_of

MAX_NODES = 48
MAX_LEAVES = 10
MAX_ARGS = 64

# Inner nodes whose op is not a row of the elementwise table: op name (an identifier, unique per
# function and signature, so it can key the kernel cache and name kernels) -> emitter
# ``(kb, operand dtypes, operand values) -> value of the node's dtype``. Higher layers register
# them (dpk.primitives.vectorize: ``@dpk.vectorize`` functions, which so fuse like any row).
EXTERNAL_OPS = {}

# None until first asked: then the runtime policy's ``arrays.fusion`` (DPK_FUSION overrides it),
# read once the runtime has started (every array needs it, so asking cannot fail later).
_enabled = None
# Lazy arrays not yet materialized: id(ref) -> ref, a weak reference whose callback removes
# it when its array dies (a plain dict of built-in weak references: a WeakValueDictionary's
# Python-level KeyedRef cost 1 us per operation, and the launch path tests this dict's
# emptiness). The array keeps its ref (_pending_ref) for untrack.
_pending_refs = {}
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def enabled() -> bool:
    global _enabled
    if _enabled is None:
        _enabled = bool(core().array_policy()[0])
    return _enabled


def set_enabled(flag):
    """Turns fusion on or off for this process, whatever the policy's ``arrays.fusion`` (or
    ``DPK_FUSION``) said."""
    global _enabled
    _enabled = bool(flag)


class Node:
    """A node of the expression graph. ``op`` is "leaf" (a view: buffer, offset, strides),
    "scalar" (value, carrier), "cast", or a row name of the elementwise table."""

    __slots__ = ("op", "args", "dtype", "shape", "device", "buffer", "offset", "strides",
                 "value", "carrier", "result", "count", "nleaves", "bases", "where", "memo",
                 "view_key", "__weakref__")

    def __init__(self, op, args, dtype, shape, device):
        self.op = op
        self.args = args
        self.dtype = dtype
        self.shape = shape
        self.device = device
        self.buffer = None
        self.offset = 0
        self.strides = None
        self.value = None
        self.carrier = None
        self.result = None
        self.where = None
        self.memo = None  # a leaf's launches by kind (reduction.reduce), made on first use
        self.view_key = None  # a leaf's identity as a view (Plan), made on first use
        if args:
            # plain loops: a generator per buffer (any(...)) was about half of a node's cost
            count, nleaves, bases = 1, 0, ()
            for a in args:
                count += a.count
                nleaves += a.nleaves
                theirs = a.bases
                if theirs is bases or not theirs:
                    continue
                if not bases:
                    bases = theirs
                    continue
                for buf in theirs:
                    for x in bases:
                        if x is buf:
                            break
                    else:
                        bases += (buf,)
            self.count = count
            self.nleaves = nleaves
            self.bases = bases
        else:
            self.count = 1
            self.nleaves = 0
            self.bases = ()


def leaf(buffer, offset, shape, strides, dtype, device):
    node = Node("leaf", (), dtype, tuple(shape), device)
    node.buffer = buffer
    node.offset = offset
    node.strides = tuple(strides)
    node.nleaves = 1
    node.bases = (buffer,)
    return node


def iota(shape, strides, device):
    """A leaf without memory: element i is Σ index_d * strides[d] (int64): the flat C index
    for C strides, the index along one axis for a unit stride there and zeros elsewhere."""
    node = Node("iota", (), D.int64, tuple(shape), device)
    node.strides = tuple(strides)
    node.nleaves = 1
    return node


def _carrier(value, dtype):
    if isinstance(value, (bool, np.bool_)):
        return "b", bool(value)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if -(1 << 63) <= value < (1 << 63):
            return "i", value
        if dtype == D.uint64 and 0 <= value < (1 << 64):
            return "i", value - (1 << 64)
        return "f", float(value)
    return "f", float(value)


def scalar(value, dtype, device):
    if dtype.kind == "c":
        # a complex scalar is the pair of its real parameters (op "complex")
        value = complex(value)
        comp = D.component(dtype)
        return Node("complex", [scalar(value.real, comp, device),
                                scalar(value.imag, comp, device)], dtype, (), device)
    node = Node("scalar", (), dtype, (), device)
    node.carrier, node.value = _carrier(value, dtype)
    return node


def make_complex(re, im, dtype):
    """The complex node re + i im (re, im: nodes of one shape, converted to dtype's parts)."""
    comp = D.component(dtype)
    return apply("complex", [cast(re, comp), cast(im, comp)], dtype, re.shape)


def cast(node, dtype):
    if node.dtype is dtype or node.dtype == dtype:
        return node
    if node.op == "scalar":
        if dtype.kind == "c":
            return apply("complex", [cast(node, D.component(dtype)),
                                     scalar(0.0, D.component(dtype), node.device)], dtype, ())
        out = Node("scalar", (), dtype, (), node.device)
        out.carrier, out.value = node.carrier, node.value
        return out
    return apply("cast", [node], dtype, node.shape)


def apply(op, args, dtype, shape):
    """A new graph node `op` of `args` (nodes), bounded in size: an operand that would make the
    graph too large is materialized first."""
    shape = tuple(shape)
    while True:
        node = Node(op, list(args), dtype, shape, args[0].device)  # (counts its graph)
        if node.count <= MAX_NODES and node.nleaves <= MAX_LEAVES:
            break
        biggest = max((a for a in args if a.op not in ("leaf", "scalar", "iota")),
                      key=lambda a: (a.nleaves, a.count), default=None)
        if biggest is None:
            break
        args = [result_leaf(a) if a is biggest else a for a in args]
    if diagnostics.enabled(2):
        node.where = _user_frame()
    return node


def _user_frame():
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not os.path.abspath(path).startswith(_PACKAGE_DIR):
            return f"{path}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


# ---- lazy arrays ------------------------------------------------------------------------------

def _forget(ref):
    _pending_refs.pop(id(ref), None)


def track(array):
    """Registers a lazy array (for flush_readers)."""
    ref = weakref.ref(array, _forget)
    array._pending_ref = ref
    _pending_refs[id(ref)] = ref


def untrack(array):
    ref = array.__dict__.pop("_pending_ref", None)
    if ref is not None:
        _pending_refs.pop(id(ref), None)


def flush_readers(buffer, keep=None):
    """Materializes every lazy array whose graph reads `buffer`, before something writes it
    (so no lazy result observes a later value). `keep` is not materialized."""
    if not _pending_refs:
        return
    for ref in list(_pending_refs.values()):
        arr = ref()
        if arr is None:
            continue
        node = arr._node
        if arr is keep or node is None:
            continue
        if any(b is buffer for b in node.bases):
            arr._materialize()


def flush_arguments(args):
    """Before a kernel launch: materializes the lazy results that read memory of a dpk array
    among `args` (the kernel may write it). Call sites test `_pending_refs` first, so a launch
    with nothing lazy pays one dict test."""
    for arg in args:
        base = getattr(arg, "_base", None)
        if base is not None and getattr(arg, "_node", 0) is None:
            flush_readers(base, keep=arg)


def pending_readers():
    """The registry of lazy arrays (a dict, empty when there are none), for callers that test it
    on every operation: the object stays the same for the process's life."""
    return _pending_refs


def pending_count():
    return len(_pending_refs)


# ---- materialization ----------------------------------------------------------------------------

def result_leaf(node):
    """`node` as a leaf of its materialized value."""
    if node.op in ("leaf", "scalar", "iota"):
        return node
    buf = materialize(node)
    return leaf(buf, 0, node.shape, c_strides(node.shape), node.dtype, node.device)


def materialize(node):
    """Runs the graph of `node` as one kernel into new C-contiguous memory; returns the Buffer
    (cached on the node: graphs sharing it compute it once)."""
    if node.result is not None:
        return node.result
    device = node.device
    n = size_of(node.shape)
    buf = Buffer(device, n * node.dtype.itemsize)
    if n:
        run(node, buf, 0, node.shape, c_strides(node.shape), node.dtype)
    if node.op != "leaf":
        # (a leaf stands for memory that later writes change, and arrays keep theirs: a copy
        # of it made now is no answer for later)
        node.result = buf
    return buf


class Plan:
    """The DAG below a root as a list of entries in evaluation order, with its leaves (unique
    views) and scalars numbered; ``key`` describes it without sizes or values."""

    def __init__(self, root):
        self.entries = []
        self.leaves = []
        self.scalars = []
        self.ops = []
        self.where = []
        self._index = {}
        self._leaf_index = {}
        self.root = self._visit(root)
        self.key = tuple(self.entries)

    def _visit(self, node):
        index = self._index
        nid = id(node)
        found = index.get(nid)
        if found is not None:
            return found
        op = node.op
        if op == "scalar":
            self.scalars.append(node)
            entry = ("S", len(self.scalars) - 1, node.carrier, node.dtype.char)
        elif op == "iota":
            vkey = ("iota", node.strides, node.shape)
            li = self._leaf_index.get(vkey)
            if li is None:
                li = self._leaf_index[vkey] = len(self.leaves)
                self.leaves.append(node)
            entry = ("I", li, "q")
        elif op == "leaf" or node.result is not None:
            if op != "leaf":
                node = leaf(node.result, 0, node.shape, c_strides(node.shape), node.dtype,
                            node.device)
            vkey = node.view_key
            if vkey is None:  # (an array's leaf lives as long as the array: made once)
                vkey = node.view_key = (id(node.buffer), node.offset, node.strides, node.shape,
                                        node.dtype.char)
            li = self._leaf_index.get(vkey)
            if li is None:
                li = self._leaf_index[vkey] = len(self.leaves)
                self.leaves.append(node)
            entry = ("L", li, node.dtype.char)
        else:
            children = tuple([self._visit(a) for a in node.args])
            entry = (op, node.dtype.char) + children
            self.ops.append(op)
            if node.where:
                self.where.append(node.where)
        entries = self.entries
        entries.append(entry)
        position = index[nid] = len(entries) - 1
        return position

    def emit(self, kb, load_leaf, scalar_param):
        """IR value of the root: ``load_leaf(i, dtype)`` loads leaf i at the current element,
        ``scalar_param(i)`` is scalar i's parameter index."""
        b = kb.b
        values, dtypes = [], []
        for entry in self.entries:
            tag = entry[0]
            if tag == "L" or tag == "I":
                dtype = np.dtype(entry[2])
                values.append(load_leaf(entry[1], dtype))
            elif tag == "S":
                dtype = np.dtype(entry[3])
                values.append(kb.scalar_value(scalar_param(entry[1]), dtype))
            elif tag == "cast":
                dtype = np.dtype(entry[1])
                src = entry[2]
                values.append(C.convert(b, values[src], dtypes[src], dtype))
            elif tag == "complex":
                dtype = np.dtype(entry[1])
                comp = D.component(dtype)
                values.append((C.convert(b, values[entry[2]], dtypes[entry[2]], comp),
                               C.convert(b, values[entry[3]], dtypes[entry[3]], comp)))
            elif tag in EXTERNAL_OPS:
                dtype = np.dtype(entry[1])
                kids = entry[2:]
                values.append(EXTERNAL_OPS[tag](kb, [dtypes[k] for k in kids],
                                                [values[k] for k in kids]))
            else:
                dtype = np.dtype(entry[1])
                kids = entry[2:]
                operand_dtype = dtypes[kids[-1]]
                table = C.EMITTERS if operand_dtype.kind == "c" else scalar_ops.EMITTERS
                values.append(table[tag](b, operand_dtype, *[values[k] for k in kids]))
            dtypes.append(dtype)
        return values[self.root], dtypes[self.root]


def leaf_args(plan, device):
    """The launch arguments of the plan's leaves that have memory."""
    return [leaf_arg(lf, device) for lf in plan.leaves if lf.op != "iota"]


def leaf_memo(lf):
    """Leaf `lf`'s memo, made on first use: what launches derive from a leaf's address and
    geometry (its launch argument, its alignment, reductions' recipes), which an array's leaf
    keeps for life."""
    memo = lf.memo
    if memo is None:
        memo = lf.memo = {}
    return memo


def leaf_arg(lf, device):
    """The launch argument of leaf `lf` (a leaf with memory), kept in the leaf's memo."""
    memo = leaf_memo(lf)
    arg = memo.get(device)
    if arg is None:
        arg = memo[device] = G.view_arg(lf.buffer.ptr + lf.offset * lf.dtype.itemsize, device)
    return arg


def operand_args(plan, device):
    """The launch arguments of the plan's operands: a view per leaf with memory, then every
    scalar's value."""
    return leaf_args(plan, device) + [s.value for s in plan.scalars]


def stride_args(sigs, stride_lists):
    """The strides of class x (the kernel's run-time stride parameters), operand by operand,
    dimension by dimension: `sigs` from _sig, `stride_lists` the strides they classify."""
    return [v for sig, st in zip(sigs, stride_lists) for c, v in zip(sig, st) if c == "x"]


def leaf_views(kb, plan):
    """Declares a view parameter per leaf with memory; None for iota leaves. A complex leaf is
    a view of its component type (element i: components 2i and 2i+1)."""
    return [kb.view(D.component(lf.dtype), "in") if lf.op != "iota" else None
            for lf in plan.leaves]


def load_leaf_at(kb, view, dtype, offset):
    """Leaf value at `offset`: a load (a pair for a complex leaf), or for an iota leaf the
    offset itself."""
    if view is None:
        return offset
    if dtype.kind == "c":
        return load_complex(kb, view, offset)
    return kb.load(kb.ptr(view), offset)


def load_complex(kb, view, offset):
    """(re, im) of complex element `offset` of a view declared with the component type."""
    two = kb.op("Add", offset, offset)
    return (kb.load(kb.ptr(view), two), kb.load(kb.ptr(view), kb.op("Add", two, kb.i64(1))))


def store_value(kb, view, dtype, offset, value):
    """Stores `value` (a pair for a complex dtype) at element `offset` of `view`."""
    if dtype.kind == "c":
        two = kb.op("Add", offset, offset)
        kb.store(kb.ptr(view), two, value[0])
        kb.store(kb.ptr(view), kb.op("Add", two, kb.i64(1)), value[1])
    else:
        kb.store(kb.ptr(view), offset, value)


def _sig(strides):
    return "".join("0" if s == 0 else "1" if s == 1 else "x" for s in strides)


# Elementwise recipes: the kernel, range and size/stride arguments of a graph computed into a
# view, which depend only on the graph's shape, the views' shapes and strides and the device;
# a loop over one expression computes them once (x + 1 on one element is launch-bound).
_recipes = G.Recipes()


def run(node, out_buf, out_offset, out_shape, out_strides, out_dtype):
    """Computes `node` (broadcast to out_shape) into the view (out_buf, out_offset, out_shape,
    out_strides) of dtype out_dtype, in one kernel."""
    out_shape = tuple(out_shape)
    out_strides = tuple(out_strides)
    device = node.device
    plan = Plan(node)
    # (dtypes by their char in keys: hashing a NumPy dtype costs several times a str's)
    key = (plan.key, out_dtype.char, out_shape, out_strides, device, FLAT_LAUNCHES,
           VECTOR_ELEMENTWISE, tuple([(lf.shape, lf.strides) for lf in plan.leaves]))
    recipe = _recipes.get(key)
    if recipe is None:
        recipe = _recipes.keep(key, _run_recipe(node, plan, out_shape, out_strides, out_dtype))
    if recipe is None:  # too many arguments: split (rare, not kept)
        _run_split(node, out_buf, out_offset, out_shape, out_strides, out_dtype)
        return
    _launch_recipe(recipe, plan, node, out_buf, out_offset, out_dtype)


def _run_recipe(node, plan, out_shape, out_strides, out_dtype):
    """(kernel, index range, arguments after the views and scalars) for `plan`, or None when
    the launch would take too many arguments."""
    device = node.device
    leaves = plan.leaves
    contiguous = out_strides == c_strides(out_shape)
    if contiguous:
        for lf in leaves:
            if lf.shape != out_shape or lf.strides != out_strides:
                contiguous = False
                break
    if contiguous:  # the common case: one dimension, unit strides
        shape = [size_of(out_shape)]
        strides = [[1]] * (1 + len(leaves))
        sigs = ["1"] * (1 + len(leaves))
    else:
        operands = [list(out_strides)]
        for lf in leaves:
            operands.append(broadcast_strides(lf.shape, lf.strides, out_shape))
        shape, strides = collapse(list(out_shape), operands)
        sigs = [_sig(st) for st in strides]
    space = LaunchShape(shape, device)
    tail = space.args()
    nargs = (1 + len(leaves) + len(plan.scalars) + len(tail)
             + sum(sig.count("x") for sig in sigs))
    if nargs > MAX_ARGS:
        return None
    if contiguous and space.flat and _vector_elementwise(device, shape[0]):
        return _VectorRecipe(plan, out_dtype, space, tail)
    key = ("ew", plan.key, out_dtype.char, tuple(sigs), space.key)
    kernel = G.cached(key, lambda: _build_elementwise(plan, out_dtype, sigs, space))
    if not contiguous:
        tail += stride_args(sigs, strides)
    return kernel, space.index_range(), tail


# GPUs give each work-item VECTOR_WIDTH neighbouring elements of a long contiguous elementwise
# launch, loaded and stored as one vector per operand where its address is 16-byte aligned
# (PTX ld.global.v4 / st.global.v4: fewer instructions per byte, more bytes in flight).
# None: GPUs, from VECTOR_MIN_ELEMENTS on; True/False forces it on every device (tests).
VECTOR_ELEMENTWISE = None
VECTOR_WIDTH = 4
VECTOR_MIN_ELEMENTS = 1 << 16


def _vector_elementwise(device, n):
    if VECTOR_ELEMENTWISE is None:
        return device.device_type != "cpu" and n >= VECTOR_MIN_ELEMENTS
    return VECTOR_ELEMENTWISE


class _VectorRecipe:
    """The recipe of a contiguous elementwise launch in the vector layout: a kernel per
    combination of operand alignments (which only the call's addresses tell), its range and
    tail arguments."""

    __slots__ = ("out_dtype", "space", "index_range", "tail", "kernels")

    def __init__(self, plan, out_dtype, space, tail):
        total = size_of(space.shape)
        items = -(-total // VECTOR_WIDTH)
        self.index_range = G.NdRange((-(-items // GPU_GROUP) * GPU_GROUP,), (GPU_GROUP,))
        self.out_dtype = out_dtype
        self.space = space
        self.tail = tail
        self.kernels = {}  # (the recipe keeps no plan: its leaves hold the call's arrays)

    def kernel(self, plan, addresses, dtypes):
        """The kernel of `plan` (the recipe's graph) for operands at `addresses` (output
        first) of `dtypes`."""
        aligns = tuple([vector_alignment(a, d, VECTOR_WIDTH) for a, d in zip(addresses, dtypes)])
        kernel = self.kernels.get(aligns)
        if kernel is None:
            key = ("ewv", plan.key, self.out_dtype.char, VECTOR_WIDTH) + aligns
            kernel = self.kernels[aligns] = G.cached(key, lambda: _build_vector_elementwise(
                plan, self.out_dtype, self.space, aligns))
        return kernel


def vector_alignment(address, dtype, width):
    """The alignment (bytes) a vector of `width` elements of `dtype` at `address` may promise:
    the vector's size up to 16, or 0 when that is not a power of two, the address is not a
    multiple of it, or the elements are complex (pairs). Elementwise launches and reductions
    (reduction._aligned_leaves) decide their vector accesses with it."""
    align = min(16, width * dtype.itemsize)
    if dtype.kind == "c" or align & (align - 1) or address % align:
        return 0
    return align


def _run_split(node, out_buf, out_offset, out_shape, out_strides, out_dtype):
    """run() for a graph whose launch would take too many arguments: its biggest operand
    subgraphs are materialized first until it fits."""
    while True:
        node = _split(node)
        plan = Plan(node)
        recipe = _run_recipe(node, plan, out_shape, out_strides, out_dtype)
        if recipe is not None:
            _launch_recipe(recipe, plan, node, out_buf, out_offset, out_dtype)
            return


def _launch_recipe(recipe, plan, node, out_buf, out_offset, out_dtype):
    if isinstance(recipe, _VectorRecipe):
        _launch_vector(recipe, plan, node, out_buf, out_offset, out_dtype)
        return
    kernel, index_range, tail = recipe
    device = node.device
    view_arg = G.view_arg
    args = [view_arg(out_buf.ptr + out_offset * out_dtype.itemsize, device)]
    # operand_args() inlined: every elementwise operation passes here, and the two calls and
    # list concatenation cost 4% of a one-element `x + 1` (callgrind)
    for lf in plan.leaves:
        if lf.op != "iota":
            args.append(view_arg(lf.buffer.ptr + lf.offset * lf.dtype.itemsize, device))
    for sc in plan.scalars:
        args.append(sc.value)
    args += tail
    if diagnostics.enabled(2):
        _report(plan, kernel, node)
    kernel.launch(index_range, args)


def _launch_vector(recipe, plan, node, out_buf, out_offset, out_dtype):
    device = node.device
    addresses = [out_buf.ptr + out_offset * out_dtype.itemsize]
    dtypes = [out_dtype]
    for lf in plan.leaves:
        if lf.op != "iota":
            addresses.append(lf.buffer.ptr + lf.offset * lf.dtype.itemsize)
            dtypes.append(lf.dtype)
    kernel = recipe.kernel(plan, addresses, dtypes)
    args = [G.view_arg(a, device) for a in addresses]
    args += [sc.value for sc in plan.scalars]
    args += recipe.tail
    if diagnostics.enabled(2):
        _report(plan, kernel, node)
    kernel.launch(recipe.index_range, args)


def _split(node):
    biggest = max((a for a in node.args if a.op not in ("leaf", "scalar", "iota")),
                  key=lambda a: (a.nleaves, a.count), default=None)
    if biggest is None:
        raise RuntimeError("internal: an elementwise graph without inner nodes exceeds the "
                           "launch's argument limit")
    new = Node(node.op, [result_leaf(a) if a is biggest else a for a in node.args],
               node.dtype, node.shape, node.device)
    return new


def _report(plan, kernel, node):
    if diagnostics.enabled(2):
        _report_ops(plan, kernel, node, " ".join(plan.ops) or "copy")


def _report_ops(plan, kernel, node, label):
    """An ``arrays.fusion`` record (diagnostics level 2): the kernel, its fused ops and the
    source lines that built them."""
    if diagnostics.enabled(2):
        diagnostics.emit(2, "arrays.fusion", {
            "kernel": kernel.name, "ops": label,
            "leaves": len(plan.leaves), "scalars": len(plan.scalars),
            "shape": "x".join(map(str, node.shape)) or "()",
            "device": node.device.filter_string,
            "lines": ", ".join(dict.fromkeys(plan.where)) or "?"})


GPU_GROUP = 256
FLAT_LAUNCHES = None  # None: flat on non-CPU devices; True/False forces it (tests)


class LaunchShape:
    """How a kernel with one work-item per element covers `shape` (merged dimensions).

    On CPUs a Range of up to 3 dimensions (leading dimensions unravelled from dimension 0 when
    there are more), so the host vectorizes along the last one. On other devices a flat NdRange
    padded to groups of GPU_GROUP items with a bounds check, unravelling every dimension: GPU
    backends pick a Range's block among the divisors of its extents (a prime size would get
    one-item blocks) and limit the grid's y and z extents."""

    def __init__(self, shape, device):
        self.shape = list(shape)
        self.nd = len(shape)
        self.flat = (device.device_type != "cpu" if FLAT_LAUNCHES is None
                     else FLAT_LAUNCHES)

    @property
    def key(self):
        return ("flat" if self.flat else "nd", self.nd)

    def declare(self, kb):
        """Declares the extent parameters the indices need."""
        count = self.nd - 1 if self.flat else max(self.nd - 3, 0)
        self.params = [kb.scalar(np.int64, "n") for _ in range(count)]
        self.total = kb.scalar(np.int64, "total") if self.flat else None

    def args(self):
        if self.flat:
            return list(self.shape[1:]) + [size_of(self.shape)]
        return list(self.shape[1:self.nd - 2]) if self.nd > 3 else []

    def index_range(self):
        if self.flat:
            total = size_of(self.shape)
            return G.NdRange((-(-total // GPU_GROUP) * GPU_GROUP,), (GPU_GROUP,))
        if self.nd <= 3:
            return tuple(self.shape)
        return (size_of(self.shape[:self.nd - 2]), self.shape[self.nd - 2],
                self.shape[self.nd - 1])

    def indices(self, kb):
        """The current item's index per dimension. Flat: opens ``if gid < total`` and leaves
        the insertion point inside it (the rest of the kernel is the body)."""
        if self.flat:
            gid = kb.work_item("GlobalId", 0)
            cond = kb.b.create_if(kb.cmp("Lt", gid, kb.param(self.total)))
            kb.in_block(G.then_block(cond))
            return _unravel(kb, gid, self.params, self.nd)
        if self.nd <= 3:
            return [kb.work_item("GlobalId", d) for d in range(self.nd)]
        lead = _unravel(kb, kb.work_item("GlobalId", 0), self.params, self.nd - 2)
        return lead + [kb.work_item("GlobalId", 1), kb.work_item("GlobalId", 2)]


def _unravel(kb, flat, extent_params, nd):
    """Indices of `flat` over nd dims whose extents 1..nd-1 are parameters (C order)."""
    idx = []
    rest = flat
    for d in range(nd - 1, 0, -1):
        ext = kb.param(extent_params[d - 1])
        idx.insert(0, kb.op("Rem", rest, ext))
        rest = kb.op("Div", rest, ext)
    idx.insert(0, rest)
    return idx


def offset_value(kb, idx, sig, stride_params):
    """Σ idx[d] * stride[d] for one operand: stride class 0 adds nothing, 1 adds the index,
    x multiplies by the stride parameter."""
    total = None
    params = iter(stride_params)
    for i, c in zip(idx, sig):
        if c == "0":
            continue
        term = i if c == "1" else kb.op("Mul", i, kb.param(next(params)))
        total = term if total is None else kb.op("Add", total, term)
    return total if total is not None else kb.i64(0)


_names = {}


def kernel_name(prefix, ops):
    base = "_".join(dict.fromkeys(o for o in ops if o != "cast"))[:40] or "copy"
    n = _names.get((prefix, base), 0)
    _names[(prefix, base)] = n + 1
    return f"{prefix}_{base}_{n}"


def _build_vector_elementwise(plan, out_dtype, space, aligns):
    """A contiguous elementwise kernel whose item i computes elements VECTOR_WIDTH*i and the
    next ones: all their loads, then all their stores (so neighbouring accesses of an operand
    can merge into one vector access; an output that is also an input is still read before it
    is written). `aligns`: per operand with memory (output first), the alignment its vector
    loads or stores may promise (0: none). The item past the last whole vector does the rest
    one element at a time."""
    width = VECTOR_WIDTH
    kb = G.KernelBuilder(kernel_name("ewv", plan.ops))
    views = [kb.view(D.component(out_dtype), "out")]
    views += leaf_views(kb, plan)
    scalar_params = [kb.carrier(s.carrier) for s in plan.scalars]
    space.declare(kb)
    b = kb.begin()
    # the alignment of each leaf view (None for iota leaves) and of the output
    leaf_aligns, it = [], iter(aligns[1:])
    for v in views[1:]:
        leaf_aligns.append(next(it) if v is not None else 0)
    gid = kb.work_item("GlobalId", 0)
    total = kb.param(space.total)
    whole = kb.op("Div", total, kb.i64(width))
    first = kb.op("Mul", gid, kb.i64(width))

    def value_at(r, lead):
        def load_leaf(i, dtype):
            align = leaf_aligns[i] if lead else 0
            if align:
                return kb.load(kb.ptr(views[i + 1]), r, align)
            return load_leaf_at(kb, views[i + 1], dtype, r)
        value, dtype = plan.emit(kb, load_leaf, lambda i: scalar_params[i])
        return C.convert(kb.b, value, dtype, out_dtype)

    def store_at(r, value, lead):
        if lead and aligns[0]:
            kb.store(kb.ptr(views[0]), r, value, align=aligns[0])
        else:
            store_value(kb, views[0], out_dtype, r, value)

    cond = b.create_if(kb.cmp("Lt", gid, whole))
    with G.Block(kb, G.then_block(cond)):
        rs = [first] + [kb.op("Add", first, kb.i64(u)) for u in range(1, width)]
        values = [value_at(r, u == 0) for u, r in enumerate(rs)]
        for u, (r, value) in enumerate(zip(rs, values)):
            store_at(r, value, u == 0)
    with G.Block(kb, G.else_block(cond)):
        rest = b.create_if(kb.cmp("Eq", gid, whole))
        with G.Block(kb, G.then_block(rest)):
            body, r = G.for_loop(kb, first, total, kb.i64(1), "r")
            with G.Block(kb, body):
                store_at(r, value_at(r, False), False)
    return kb.finish()


def _build_elementwise(plan, out_dtype, sigs, space):
    kb = G.KernelBuilder(kernel_name("ew", plan.ops))
    views = [kb.view(D.component(out_dtype), "out")]
    views += leaf_views(kb, plan)
    scalar_params = [kb.carrier(s.carrier) for s in plan.scalars]
    space.declare(kb)
    stride_params = [[kb.scalar(np.int64, "st") for c in sig if c == "x"] for sig in sigs]
    kb.begin()
    idx = space.indices(kb)

    def load_leaf(i, dtype):
        off = offset_value(kb, idx, sigs[i + 1], stride_params[i + 1])
        return load_leaf_at(kb, views[i + 1], dtype, off)

    value, dtype = plan.emit(kb, load_leaf, lambda i: scalar_params[i])
    value = C.convert(kb.b, value, dtype, out_dtype)
    store_value(kb, views[0], out_dtype, offset_value(kb, idx, sigs[0], stride_params[0]), value)
    return kb.finish()
