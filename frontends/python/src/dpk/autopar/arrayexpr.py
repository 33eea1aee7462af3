"""Array statements inside a parallel region, lowered to loops in the region's kernel:
``out[i, :] = a[i, :] * 2 + b[i]``, ``y[:] += x[i]``, ``row[:] = 0``.

A statement is lowered when its target is an array subscript whose slices are all whole
dimensions (``:``) and its value is an elementwise expression (arithmetic, comparisons,
conditional expressions, calls of scalar functions) of numbers, loop-invariant scalars and
array operands: subscripts whose slices are whole dimensions, and arrays named whole. The
ranks of the arrays come from the launch (each rank combination is a variant of the kernel;
``a[i]`` of a 2-D ``a`` is a row), so a row is told from an element. Operands broadcast as
NumPy aligns them: an operand with k free dimensions runs along the target's last k; a scalar
everywhere. Shapes are taken to agree, as broadcasting requires (a shorter operand reads out of
bounds: the bounds-check mode catches it).

The target's free dimensions become a loop nest ``for __eN_k in range(target.shape[d])`` around
one element statement: a plain store (or ``op=``) when iterations write distinct elements (the
index holds every loop variable, or a row view taken at the iteration's row), else an atomic
update (``+= -= &= |= ^=``), as for element updates. Anything else is left as it is: the kernel
compiler refuses it and the region falls back (docs/jit.md, "Fallback").
"""

from __future__ import annotations

import ast
import copy

from .analysis import ATOMIC_AUG

_SCALAR_MODULES = {"np", "numpy", "math"}


class _NotLowered(Exception):
    pass


def _full(node):
    return isinstance(node, ast.Slice) and node.lower is None and node.upper is None \
        and node.step is None


def _components(sub, rank):
    """The index components of `sub` padded with whole slices to `rank`."""
    index = sub.slice
    parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    if len(parts) > rank:
        raise _NotLowered
    return parts + [ast.Slice(None, None, None)] * (rank - len(parts))


def _indexed(name, parts):
    index = parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load())
    return ast.Subscript(ast.Name(name, ast.Load()), index, ast.Load())


class Lowering:
    """Lowers the array statements of one copy of a region body; `ranks`: {name: rank} of the
    arrays the kernel receives and the private arrays (0 for scalars). Row views assigned in
    the body (``row = a[i]``) are added as they are met."""

    def __init__(self, ranks):
        self.ranks = dict(ranks)
        self.serial = 0

    def note_assign(self, node):
        """Records the rank of ``name = array[...]`` (a view or an element)."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        name = node.targets[0].id
        value = node.value
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            rank = self.ranks.get(value.value.id)
            if rank:
                try:
                    parts = _components(value, rank)
                except _NotLowered:
                    return
                if all(_full(p) or not isinstance(p, ast.Slice) for p in parts):
                    self.ranks[name] = sum(1 for p in parts if isinstance(p, ast.Slice))
                    return
        if not isinstance(value, ast.Call):  # (np.empty(...) of a private array keeps it)
            self.ranks.pop(name, None)  # a scalar (or something this lowering does not know)

    def lower(self, node, distinct):
        """The loop nest standing for the statement `node`, or None."""
        try:
            return self._lower(_as_update(node), distinct)
        except _NotLowered:
            return None

    def _lower(self, node, distinct):
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                raise _NotLowered
            target, op = node.targets[0], None
        else:
            target, op = node.target, node.op
        if isinstance(target, ast.Name):  # an array reduction: y += x[i] is y[:] += x[i]
            root = target.id
            rank = self.ranks.get(root)
            if not rank:
                raise _NotLowered
            parts = [ast.Slice(None, None, None)] * rank
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            root = target.value.id
            rank = self.ranks.get(root)
            if not rank:
                raise _NotLowered
            parts = _components(target, rank)
        else:
            raise _NotLowered
        free = [d for d, p in enumerate(parts) if isinstance(p, ast.Slice)]
        if not free or not all(_full(parts[d]) for d in free):
            raise _NotLowered
        serial = self.serial
        self.serial += 1
        loop_vars = [f"__e{serial}_{k}" for k in range(len(free))]
        index = list(parts)
        for k, d in enumerate(free):
            index[d] = ast.Name(loop_vars[k], ast.Load())
        value = self._elementwise(node.value, loop_vars)
        element = _indexed(root, index)
        if op is None:
            element.ctx = ast.Store()
            stmt = ast.Assign([element], value)
        elif distinct:
            element.ctx = ast.Store()
            stmt = ast.AugAssign(element, op, value)
        else:
            method = ATOMIC_AUG.get(type(op))
            if method is None:
                raise _NotLowered
            flat = index[0] if len(index) == 1 else ast.Tuple(index, ast.Load())
            ref = ast.Call(ast.Name("__dpk_AtomicRef", ast.Load()),
                           [ast.Name(root, ast.Load())], [ast.keyword("index", flat)])
            stmt = ast.Expr(ast.Call(ast.Attribute(ref, method, ast.Load()), [value], []))
        for k in reversed(range(len(free))):
            extent = ast.Subscript(ast.Attribute(ast.Name(root, ast.Load()), "shape",
                                                 ast.Load()), ast.Constant(free[k]), ast.Load())
            stmt = ast.For(ast.Name(loop_vars[k], ast.Store()),
                           ast.Call(ast.Name("range", ast.Load()), [extent], []), [stmt], [])
        return ast.copy_location(stmt, node)

    def _operand(self, name, parts, loop_vars):
        """`name[parts]` with its whole slices running along the last loop variables."""
        slices = [k for k, p in enumerate(parts) if isinstance(p, ast.Slice)]
        if not all(_full(parts[k]) for k in slices) or len(slices) > len(loop_vars):
            raise _NotLowered
        index = [copy.deepcopy(p) for p in parts]
        for k, at in enumerate(slices):
            index[at] = ast.Name(loop_vars[len(loop_vars) - len(slices) + k], ast.Load())
        return _indexed(name, index) if index else ast.Name(name, ast.Load())

    def _elementwise(self, expr, loop_vars):
        if isinstance(expr, ast.Constant):
            return expr
        if isinstance(expr, ast.Name):
            rank = self.ranks.get(expr.id, 0)
            if not rank:
                return expr
            return self._operand(expr.id, [ast.Slice(None, None, None)] * rank, loop_vars)
        if isinstance(expr, ast.Attribute):
            if expr.attr in ("T", "mT", "real", "imag"):
                raise _NotLowered
            return expr  # a module constant (math.pi), a shape
        if isinstance(expr, ast.Subscript):
            if isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape":
                return expr
            if not isinstance(expr.value, ast.Name):
                raise _NotLowered
            rank = self.ranks.get(expr.value.id)
            if not rank:
                raise _NotLowered
            if any(isinstance(n, ast.Slice) for n in ast.walk(expr.slice)) or \
                    len(_components(expr, rank)) > (len(expr.slice.elts) if isinstance(
                        expr.slice, ast.Tuple) else 1):
                return self._operand(expr.value.id, _components(expr, rank), loop_vars)
            return expr  # an element
        if isinstance(expr, ast.BinOp):
            return ast.BinOp(self._elementwise(expr.left, loop_vars), expr.op,
                             self._elementwise(expr.right, loop_vars))
        if isinstance(expr, ast.UnaryOp):
            return ast.UnaryOp(expr.op, self._elementwise(expr.operand, loop_vars))
        if isinstance(expr, ast.Compare):
            return ast.Compare(self._elementwise(expr.left, loop_vars), expr.ops,
                               [self._elementwise(c, loop_vars) for c in expr.comparators])
        if isinstance(expr, ast.IfExp):
            return ast.IfExp(self._elementwise(expr.test, loop_vars),
                             self._elementwise(expr.body, loop_vars),
                             self._elementwise(expr.orelse, loop_vars))
        if isinstance(expr, ast.Call) and not expr.keywords:
            func = expr.func
            scalar_fn = isinstance(func, ast.Name) or (
                isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id in _SCALAR_MODULES)
            if scalar_fn and not (isinstance(func, ast.Name) and self.ranks.get(func.id)):
                return ast.Call(func, [self._elementwise(a, loop_vars) for a in expr.args], [])
        raise _NotLowered


def _as_update(node):
    """``y = y + e`` / ``y = e + y`` (the reduction forms of a name) as ``y += e``."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.BinOp)):
        return node
    name, value = node.targets[0].id, node.value
    if isinstance(value.left, ast.Name) and value.left.id == name:
        other = value.right
    elif isinstance(value.right, ast.Name) and value.right.id == name and \
            isinstance(value.op, (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)):
        other = value.left
    else:
        return node
    update = ast.AugAssign(ast.Name(name, ast.Store()), value.op, other)
    return ast.copy_location(update, node)


def private_rank(private):
    """The rank of a private array from its shape text."""
    shape = ast.parse(private.shape, mode="eval").body
    return len(shape.elts) if isinstance(shape, ast.Tuple) else 1


def is_lowered_loop(stmt):
    """Whether `stmt` is the loop nest of a lowered array statement."""
    return isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) \
        and stmt.target.id.startswith("__e")
