"""The kernel generated for a parallel region, as Python source for dpk's kernel compiler (so
the jit shares the kernel model's IR path, specialization cache, disk cache and diagnostics).

Two shapes:

- **map** (no scalar reduction): a Range launch over the collapsed loops' iteration counts;
  work-item (k0, k1, ...) runs iteration ``i = lo0 + k0 * step0, ...``. A ``continue`` at the
  top of the body becomes ``return``.
- **reduce** (one or more scalar reductions): an NdRange launch of G groups of WG items. Each
  item strides over the flattened iterations (item g takes g, g + G*WG, ... so neighbouring
  items touch neighbouring elements), accumulating every reduction variable privately from its
  identity; then each group combines its items' values as a tree in local memory (log2 WG
  barrier steps) and item 0 writes the group's partial. The runtime combines the G partials
  with the variable's value before the loop (execution.py).

Inside the body, inner ``prange`` loops become ``range`` and shared-element updates become
``AtomicRef`` calls; ``np.empty``/``np.zeros`` become one ``PrivateArray`` declared at the top
of the kernel (the compiler binds an array once), reused by every iteration the work-item runs:
``np.empty`` leaves nothing in its place, ``np.zeros`` a zero fill. The generated text
is registered with ``linecache`` (the compiler reads source through ``inspect``), and every
statement of the body keeps a map to its line in the user's file, so that compiler errors name
the user's line.
"""

from __future__ import annotations

import ast
import copy
import itertools
import linecache

import numpy as np

from ..kernels.functions import DeviceFunction
from ..kernels.kapi import AtomicRef, PrivateArray, group_barrier
from .arrayexpr import Lowering, is_lowered_loop, private_rank
from .loops import is_prange_call


def _zero_fill_1(a):
    for i in range(a.shape[0]):
        a[i] = 0


def _zero_fill_2(a):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = 0


def _zero_fill_3(a):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                a[i, j, k] = 0


HELPERS = {"__dpk_AtomicRef": AtomicRef, "__dpk_PrivateArray": PrivateArray,
           "__dpk_group_barrier": group_barrier, "__dpk_np": np,
           "__dpk_zero_fill_1": DeviceFunction(_zero_fill_1),
           "__dpk_zero_fill_2": DeviceFunction(_zero_fill_2),
           "__dpk_zero_fill_3": DeviceFunction(_zero_fill_3)}

_COMBINE = {"+": "{a} + {b}", "*": "{a} * {b}", "min": "min({a}, {b})",
            "max": "max({a}, {b})", "&": "{a} & {b}", "|": "{a} | {b}", "^": "{a} ^ {b}"}

_serial = itertools.count()


class GeneratedKernel:
    """The source of one region's kernel, its parameters and the line map."""

    def __init__(self, name, text, filename, params, shape, line_map):
        self.name = name
        self.text = text
        self.filename = filename
        self.params = params        # parameter names after the work-item
        self.shape = shape          # "map" or "reduce"
        self.line_map = line_map    # generated line -> the user's line


class _BodyRewriter(ast.NodeTransformer):
    """Rewrites a copy of the region body for the kernel (see the module docstring)."""

    def __init__(self, analysis, originals, top_continue_returns, lowering=None):
        self.declarations = []      # the private arrays, declared once at the kernel's top
        self.lowering = lowering    # arrayexpr.Lowering when the arrays' ranks are known
        self.analysis = analysis
        self.originals = originals  # id(copied node) -> id(original node)
        self.top_continue_returns = top_continue_returns
        self.depth = 0

    def _original(self, node):
        return self.originals.get(id(node))

    def _loop(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_For(self, node):
        if is_prange_call(node.iter):
            node.iter.func = ast.Name("range", ast.Load())
        return self._loop(node)

    visit_While = _loop

    def visit_Continue(self, node):
        if self.depth == 0 and self.top_continue_returns:
            return ast.Return(None)
        return node

    def _atomic(self, node, value):
        method = self.analysis.atomics[self._original(node)][0]
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        ref = ast.Call(ast.Name("__dpk_AtomicRef", ast.Load()),
                       [copy.deepcopy(target.value)],
                       [ast.keyword("index", copy.deepcopy(target.slice))])
        call = ast.Call(ast.Attribute(ref, method, ast.Load()), [value], [])
        return ast.copy_location(ast.Expr(call), node)

    def _lowered(self, node):
        """The loop nest of an array statement (arrayexpr.py), or None."""
        original = self._original(node)
        if self.lowering is None or original not in self.analysis.array_writes:
            return None
        return self.lowering.lower(node, self.analysis.array_writes[original])

    def visit_AugAssign(self, node):
        lowered = self._lowered(node)
        if lowered is not None:
            return lowered
        if self._original(node) in self.analysis.atomics:
            return self._atomic(node, node.value)
        return node

    def visit_Assign(self, node):
        lowered = self._lowered(node)
        if lowered is not None:
            return lowered
        if self.lowering is not None:
            self.lowering.note_assign(node)
        original = self._original(node)
        if original in self.analysis.atomics:
            target = ast.dump(node.targets[0].__class__(
                value=node.targets[0].value, slice=node.targets[0].slice, ctx=ast.Load()))
            a, b = node.value.args
            value = b if ast.dump(a) == target else a
            return self._atomic(node, value)
        private = self.analysis.privates.get(original)
        if private is not None:
            shape = node.value.args[0]
            if not isinstance(shape, ast.Tuple):
                shape = ast.Tuple([shape], ast.Load())
            dtype = ast.parse(private.dtype, mode="eval").body
            if isinstance(dtype, ast.Attribute) and isinstance(dtype.value, ast.Name) \
                    and dtype.value.id == "np" and private.dtype == "np.float64":
                dtype.value.id = "__dpk_np"  # the default: the user may not have `np`
            declare = ast.Assign([ast.Name(private.name, ast.Store())], ast.Call(
                ast.Name("__dpk_PrivateArray", ast.Load()), [shape, dtype], []))
            self.declarations.append(declare)
            if not private.zero:
                return ast.copy_location(ast.Pass(), node)
            fill = ast.Call(ast.Name(f"__dpk_zero_fill_{len(shape.elts)}", ast.Load()),
                            [ast.Name(private.name, ast.Load())], [])
            return ast.copy_location(ast.Expr(fill), node)
        return node


def _rewrite_body(region, ranks):
    originals = {}
    body = copy.deepcopy(region.body)
    for new, old in zip(_walk_all(body), _walk_all(region.body)):
        originals[id(new)] = id(old)
    shape = "reduce" if region.analysis.reductions else "map"
    lowering = None
    if ranks is not None and region.analysis.array_writes:
        ranks = dict(ranks)
        for private in region.analysis.privates.values():
            ranks[private.name] = private_rank(private)
        lowering = Lowering(ranks)
    rewriter = _BodyRewriter(region.analysis, originals, shape == "map", lowering)
    body = [rewriter.visit(stmt) for stmt in body]
    return body, rewriter.declarations


def _walk_all(body):
    for stmt in body:
        yield from ast.walk(stmt)


def _index_lines(region, dims, flat, steps):
    """Statements computing the loop variables from the work-item (or the flat iteration).
    `steps[d]`: "id" (range(n): the variable is the work-item id itself), "unit" (step 1: the
    id plus a uniform offset) or "any"; the simpler forms let the host compiler see contiguous
    accesses across the lanes it maps work-items to."""
    def index(d, k):
        if steps[d] == "id":
            return k
        if steps[d] == "unit":
            return f"__lo{d} + {k}"
        return f"__lo{d} + {k} * __st{d}"
    if not flat:
        return [f"{var} = {index(d, f'__item.get_id({d})')}"
                for d, var in enumerate(region.loop_vars)]
    if dims == 1:
        return [f"{region.loop_vars[0]} = {index(0, '__it')}"]
    out = ["__rest = __it"]
    for d in range(dims - 1, 0, -1):
        out.append(f"{region.loop_vars[d]} = {index(d, f'(__rest % __n{d})')}")
        out.append(f"__rest = __rest // __n{d}")
    out.append(f"{region.loop_vars[0]} = {index(0, '__rest')}")
    return out


_ID = ("id",)


def step_kinds(ranges):
    """The `steps` of _index_lines for the (lo, hi, step) tuples of a call."""
    if len(ranges) == 1:
        lo, _, step = ranges[0]
        if lo == 0 and step == 1:
            return _ID
    return tuple(["id" if lo == 0 and step == 1 else "unit" if step == 1 else "any"
                  for lo, _, step in ranges])


def generate(src, region, steps=None, wg=64, ranks=None):
    """The GeneratedKernel of `region` of the function `src`: `steps` as _index_lines takes
    them (None: "any" in every dimension); `wg`: the work-group size of a reduce kernel (its
    tree is unrolled); `ranks`: {name: rank} of the values the kernel receives (0: scalars),
    which lets array statements be lowered to loops (arrayexpr.py; None: left as they are)."""
    analysis = region.analysis
    dims = len(region.loop_vars)
    steps = steps or ("any",) * dims
    shape = "reduce" if analysis.reductions else "map"
    name = f"{src.name}_region{region.index}"
    params = []
    for d in range(dims):
        params += [f"__lo{d}", f"__st{d}"] + ([f"__n{d}"] if shape == "reduce" else [])
    if shape == "reduce":
        params += ["__total", "__chunk"]
    params += list(analysis.live_in)
    for r in analysis.reductions:
        params += [f"__id_{r.name}", f"__part_{r.name}", f"__lm_{r.name}"]
    lines = [f"def {name}(__item, {', '.join(params)}):"]
    marker = "__DPK_BODY__"
    if shape == "map":
        lines += ["    " + s for s in _index_lines(region, dims, False, steps)]
        lines.append(f"    {marker}")
    else:
        # Each group takes a contiguous chunk of the flattened iterations; its items walk it
        # tile by tile (iteration start + t*WG + lid): whole tiles with a uniform trip count
        # and no check (the host runs them as a vectorized loop over the group's items), then
        # the last partial tile with one. Then a tree in local memory, log2(WG) steps.
        lines.append("    __lid = __item.get_local_id(0)")
        lines += [f"    {r.name} = __id_{r.name}" for r in analysis.reductions]
        lines += ["    __start = __item.get_group_linear_id() * __chunk",
                  "    __end = min(__start + __chunk, __total)",
                  f"    __full = max((__end - __start) // {wg}, 0)",
                  "    for __t in range(__full):",
                  f"        __it = __start + __t * {wg} + __lid"]
        lines += ["        " + s for s in _index_lines(region, dims, True, steps)]
        lines.append(f"        {marker}")
        lines += ["    for __t in range(__full, __full + 1):",
                  f"        __it = __start + __t * {wg} + __lid",
                  "        if __it < __end:"]
        lines += ["            " + s for s in _index_lines(region, dims, True, steps)]
        lines.append(f"            {marker}")
        lines += [f"    __lm_{r.name}[__lid] = {r.name}" for r in analysis.reductions]
        lines.append("    __dpk_group_barrier(__item.get_group())")
        width = wg // 2
        while width >= 1:
            lines.append(f"    if __lid < {width}:")
            for r in analysis.reductions:
                lm = f"__lm_{r.name}"
                combined = _COMBINE[r.op].format(a=f"{lm}[__lid]", b=f"{lm}[__lid + {width}]")
                lines.append(f"        {lm}[__lid] = {combined}")
            lines.append("    __dpk_group_barrier(__item.get_group())")
            width //= 2
        lines.append("    if __lid == 0:")
        lines += [f"        __part_{r.name}[__item.get_group_linear_id()] = __lm_{r.name}[0]"
                  for r in analysis.reductions]
    tree = ast.parse("\n".join(lines) + "\n")
    func = tree.body[0]
    declarations = []
    for container, position in _find_markers(func, marker):
        body, declarations = _rewrite_body(region, ranks)
        container[position:position + 1] = body
    func.body[0:0] = declarations
    ast.fix_missing_locations(tree)
    text = ast.unparse(tree) + "\n"
    filename = f"<dpk.jit: region {region.index} of {src.name}() at {src.filename}:" \
               f"{region.lines}, #{next(_serial)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    line_map = _line_map(text, marker, region, src)
    return GeneratedKernel(name, text, filename, params, shape, line_map)


def _statements(body):
    """statements(body), a lowered array statement (a loop nest) counting as one statement."""
    for stmt in body:
        yield stmt
        if is_lowered_loop(stmt):
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                yield from _statements(block)
        for handler in getattr(stmt, "handlers", ()) or ():
            yield from _statements(handler.body)


def _same_kind(new, old):
    """Whether the generated statement `new` stands for the body's `old` (the same kind, or
    an update the rewriter replaced: a lowered loop nest, an atomic call)."""
    if type(new) is type(old):
        return True
    if not isinstance(old, (ast.Assign, ast.AugAssign)):
        return False
    if is_lowered_loop(new):
        return True
    call = new.value if isinstance(new, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
        and isinstance(call.func.value, ast.Call) \
        and getattr(call.func.value.func, "id", None) == "__dpk_AtomicRef"


def _find_markers(func, marker):
    """(block, index) of every marker statement, last first (so indices stay valid)."""
    found = []
    for node in ast.walk(func):
        block = getattr(node, "body", None)
        if isinstance(block, list):
            for i, stmt in enumerate(block):
                if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Name) \
                        and stmt.value.id == marker:
                    found.append((block, i))
    return found


def _line_map(text, marker, region, src):
    """{generated line: the user's line} for every statement of each copy of the body (the
    body ends each block it was put in)."""
    func = ast.parse(text).body[0]
    line_map = {}
    n_body = len(region.body)
    for node in ast.walk(func):
        block = getattr(node, "body", None)
        if not isinstance(block, list) or len(block) < n_body:
            continue
        generated = block[len(block) - n_body:]
        pairs = list(zip(_statements(generated), _statements(region.body)))
        if not pairs or not _same_kind(*pairs[0]):
            continue
        for new, old in pairs:
            user = src.first_line + old.lineno - 1
            for ln in range(new.lineno, (getattr(new, "end_lineno", None) or new.lineno) + 1):
                line_map.setdefault(ln, user)
    return line_map
