"""Immediate elementwise operations: an operation on small materialized arrays runs at once, in
one native call, instead of becoming a graph node.

Why: a few elements cost nothing to compute and everything to organize. A graph node, its plan,
its recipe, its buffer and the launch's packing are 20-40 µs of Python for a one-element
``x + 1`` on the host device, where ``dpk._core.ImmediateOps`` does the operation in about 2 µs
(docs/arrays.md, "Immediate operations"); on a GPU they were most of a 16 µs operation whose
launch costs the driver 3-5 µs. Fusion has nothing to win on such arrays: it saves passes over
memory, and a chain of immediate operations on a few elements costs no more than building its
graph and launching it once.

An operation is immediate when every array operand is a materialized ``Array`` with 1 to
``MAX_ELEMENTS`` elements in C order (one element: any strides), on one device, the operands
have one shape, the other operand (if any) is a Python bool, int or float, and ``learn`` below
accepts the combination. In-place operators too, into x's memory, when the result's dtype is
x's, x is writable, an array operand is x's very elements or does not overlap them, and no lazy
result exists (it might read x). Everything else (lazy operands, NumPy operands, broadcasting,
views with gaps, complex dtypes) takes the general path. The result is what the general path
computes: the kernel is the one it generates for the same graph over the operands' elements as
flat views, launched the way it launches it (on the host device waited for, elsewhere
asynchronous on the device's array queue), and the first call of each combination goes through
the general path's checks (dtype rules, errors) before anything runs.

``learn`` declines, so the general path keeps:
  - ``x ** scalar``: the general path turns ``x ** 2`` into ``x * x`` (the value decides the
    graph, and the native table keys on types only);
  - diagnostics level 2 and up: the ``arrays.fusion`` records name each kernel and its lines.
"""

from __future__ import annotations

import functools

from .._core_loader import core
from .._runtime import diagnostics
from . import fusion, generated
from . import dtypes as D
from .array_object import Array
from .elementwise_table import TABLE
from .memory import size_of

# Arrays of at most this many elements run immediately (0: never). Up to a few thousand
# elements an operation's memory traffic stays below its launch's cost, so running a chain
# operation by operation loses nothing against one fused kernel (docs/arrays.md).
MAX_ELEMENTS = 1024

_ROWS = list(TABLE.values())
OP_IDS = {row.name: i for i, row in enumerate(_ROWS)}
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _learn(node_of, op, x, y):
    """What ImmediateOps needs to run ``row(x[, y])`` itself for operands of these types, dtypes
    and device: (kernel, queue, result dtype, device, native device, lowest and highest integer
    scalar, the array operands' element sizes, the group size of a flat launch or 0, whether
    launches are waited for), or None when the combination keeps the general path. The general
    path's errors propagate (nothing is cached then)."""
    row = _ROWS[op]
    operands = (x,) if y is None else (x, y)
    arrays = [o for o in operands if type(o) is Array]
    device = arrays[0]._device
    if diagnostics.enabled(2):
        return None
    scalars = [o for o in operands if type(o) is not Array]
    if row.name == "pow" and scalars:
        return None
    n = size_of(arrays[0]._shape)
    flat = [Array._view(o._base, o._offset, (n,), (1,), o._dtype, device)
            if type(o) is Array else o for o in operands]
    node = node_of(row, flat)
    if node is None or node.op in ("leaf", "scalar") or node.dtype.kind == "c" or \
            any(a._dtype.kind == "c" for a in arrays):
        return None
    plan = fusion.Plan(node)
    distinct = arrays[:1] if len(arrays) == 2 and _same_memory(*arrays) else arrays
    if len(plan.leaves) != len(distinct) or len(plan.scalars) != len(scalars):
        return None
    for leaf, a in zip(plan.leaves, distinct):  # the native side passes views in this order
        if leaf.op != "leaf" or leaf.buffer is not a._base or leaf.offset != a._offset:
            return None
    low, high = _INT64
    if scalars:
        value, param = scalars[0], plan.scalars[0]
        if param.carrier != {bool: "b", int: "i", float: "f"}[type(value)]:
            return None
        if type(value) is int:
            for dtype in (arrays[0]._dtype, param.dtype):  # scalar_result's and the node's checks
                if dtype.kind in "iu":
                    lo, hi = D.int_range(dtype)
                    low, high = max(low, lo), min(high, hi)
    recipe = fusion._run_recipe(node, plan, (n,), (1,), node.dtype)
    group = _launch_group(recipe, n)
    if group is None:
        return None
    kernel = recipe[0]
    sizes = [a._dtype.itemsize for a in distinct] + [0]
    return (kernel.kernel, device.queue, node.dtype, device, device._dev, low, high,
            sizes[0], sizes[1], group, generated.waits_at_once(device))


def _launch_group(recipe, n):
    """How the native side launches the elementwise `recipe` over n elements: 0 for a Range
    of n without further arguments (CPUs), the group size for the GPUs' flat NdRange whose only
    further argument is n (fusion.LaunchShape), None for anything else (the general path)."""
    if not isinstance(recipe, tuple):
        return None  # (a vector recipe: long launches only)
    _, index_range, tail = recipe
    if not tail:
        return 0 if tuple(index_range) == (n,) else None
    group = fusion.GPU_GROUP
    if list(tail) == [n] and isinstance(index_range, generated.NdRange) and \
            index_range._global_range == (-(-n // group) * group,) and \
            index_range._local_range == (group,):
        return group
    return None


def _same_memory(a, b):
    return a._base is b._base and a._offset == b._offset and a._dtype is b._dtype


OPS = None  # the ImmediateOps of the process (create)


def create(node_of):
    """Makes the process's ImmediateOps, whose first call of each combination builds the
    operation's node with ``node_of(row, operands)`` (elementwise_ops.elementwise_node, which
    sits above this module) and returns it."""
    global OPS
    OPS = core().ImmediateOps(Array, functools.partial(_learn, node_of), MAX_ELEMENTS)
    return OPS


def set_max_elements(n):
    """Arrays of at most `n` elements run immediately from now on (0: none; tests of the graph
    on small arrays use it)."""
    OPS.max_elements = int(n)


def max_elements():
    return OPS.max_elements


def launch_count():
    """Kernels the array layer launched so far: generated kernels launched from Python
    (generated.STATS) and immediate operations, which launch from C++."""
    return generated.STATS["launches"] + OPS.launches
