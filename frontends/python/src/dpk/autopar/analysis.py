"""What a parallel region does, read from its body before anything runs.

- **Reductions**: a name whose every update in the body is ``s += e``, ``s -= e``, ``s *= e``,
  ``s &= e``, ``s |= e``, ``s ^= e``, ``s = s + e`` (``e + s``, ``s * e``, ...),
  ``s = min(s, e)`` or ``s = max(s, e)`` (one operator family per name, ``-`` counting as ``+``),
  and that is read nowhere else in the body. Its value before the loop is the initial value.
- **Atomics**: ``a[idx] op= e`` whose index may repeat across iterations (it does not contain
  every collapsed loop variable as a plain component), for ``+ - & | ^``, and
  ``a[idx] = min(a[idx], e)`` / ``max``.
- **Private arrays**: ``t = np.empty(shape[, dtype])`` / ``np.zeros(...)`` with a constant shape.
- **Errors**, raised as KernelSyntaxError with file:line before anything runs: a variable read
  before it is assigned in the body that the body also assigns and that is not a reduction (a
  loop-carried dependence), an element every iteration writes (an index that does not depend on
  the loop variables) without a reduction operator, ``*=`` on an element that iterations share,
  ``break``/``return``/``yield`` in the body, assigning a loop variable.
"""

from __future__ import annotations

import ast

from .loops import is_prange_call
from .regions import syntax_error

# s op= e -> reduction operator ("-" reduces with "+": s - e1 - e2 == s + (-e1) + (-e2))
REDUCE_AUG = {ast.Add: "+", ast.Sub: "+", ast.Mult: "*", ast.BitAnd: "&", ast.BitOr: "|",
              ast.BitXor: "^"}
_COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)
# a[idx] op= e on a shared element -> AtomicRef method
ATOMIC_AUG = {ast.Add: "fetch_add", ast.Sub: "fetch_sub", ast.BitAnd: "fetch_and",
              ast.BitOr: "fetch_or", ast.BitXor: "fetch_xor"}
_MINMAX_FUNCS = {"min": "min", "max": "max", "minimum": "min", "maximum": "max",
                 "fmin": "min", "fmax": "max"}
_ARRAY_MAKERS = {"empty": False, "zeros": True}


class Reduction:
    def __init__(self, name, op):
        self.name = name
        self.op = op
        self.lines = []

    def as_dict(self):
        return {"variable": self.name, "operator": self.op, "lines": list(self.lines)}


class PrivateArray:
    def __init__(self, name, shape, dtype, zero, line):
        self.name, self.shape, self.dtype, self.zero, self.line = name, shape, dtype, zero, line

    def as_dict(self):
        return {"name": self.name, "shape": self.shape, "dtype": self.dtype,
                "zeroed": self.zero, "line": self.line}


class RegionAnalysis:
    """The facts kernelgen and the runtime need about one region."""

    def __init__(self):
        self.live_in = []          # names of the function the region reads (not reductions)
        self.outer_reads = []      # global and closure names the region reads
        self.reductions = []       # Reduction, in order of first appearance
        self.atomics = {}          # id(stmt) -> (AtomicRef method, array text, line)
        self.privates = {}         # id(stmt) -> PrivateArray
        self.arrays_read = set()
        self.arrays_written = set()
        self.has_continue = False
        self.array_writes = {}     # id(stmt) -> whether iterations write distinct elements
        self.reduction_stmts = {}  # id(stmt) -> the reduction variable it updates

    def reduction(self, name):
        return next((r for r in self.reductions if r.name == name), None)


def _names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node is not None else set()


def _root_name(node):
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _minmax_name(func):
    if isinstance(func, ast.Name):
        return _MINMAX_FUNCS.get(func.id) if func.id in ("min", "max") else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id in ("np", "numpy", "math"):
        return _MINMAX_FUNCS.get(func.attr)
    return None


def reduction_form(stmt):
    """(name, operator, other operand) when `stmt` updates a plain name in a reduction form."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        op = REDUCE_AUG.get(type(stmt.op))
        name = stmt.target.id
        if op is not None and name not in _names(stmt.value):
            return name, op, stmt.value
        return None
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)):
        return None
    name, value = stmt.targets[0].id, stmt.value
    if isinstance(value, ast.BinOp) and type(value.op) in REDUCE_AUG:
        left, right = value.left, value.right
        if isinstance(left, ast.Name) and left.id == name and name not in _names(right):
            return name, REDUCE_AUG[type(value.op)], right
        if isinstance(value.op, _COMMUTATIVE) and isinstance(right, ast.Name) \
                and right.id == name and name not in _names(left):
            return name, REDUCE_AUG[type(value.op)], left
        return None
    if isinstance(value, ast.Call) and len(value.args) == 2 and not value.keywords:
        op = _minmax_name(value.func)
        if op is None:
            return None
        a, b = value.args
        for mine, other in ((a, b), (b, a)):
            if isinstance(mine, ast.Name) and mine.id == name and name not in _names(other):
                return name, op, other
    return None


def _element_minmax(stmt):
    """('min'|'max', value) for ``a[idx] = min(a[idx], e)`` (either order), else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Subscript)):
        return None
    value = stmt.value
    if not (isinstance(value, ast.Call) and len(value.args) == 2 and not value.keywords):
        return None
    op = _minmax_name(value.func)
    if op is None:
        return None
    target = ast.dump(stmt.targets[0].__class__(value=stmt.targets[0].value,
                                                 slice=stmt.targets[0].slice, ctx=ast.Load()))
    a, b = value.args
    for mine, other in ((a, b), (b, a)):
        if isinstance(mine, ast.Subscript) and ast.dump(mine) == target:
            return op, other
    return None


def statements(body):
    """Every statement of `body`, nested blocks included (not nested function scopes)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                yield from statements(block)
        for handler in getattr(stmt, "handlers", ()) or ():
            yield from statements(handler.body)


def _own_expressions(stmt):
    """The expressions a statement evaluates itself (not those of its nested blocks)."""
    if isinstance(stmt, (ast.If, ast.While)):
        return [stmt.test]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.iter]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    return [stmt]


def _private_array(src, stmt):
    """PrivateArray for ``t = np.empty(shape, dtype)`` / ``np.zeros`` (None otherwise)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id in ("np", "numpy") and func.attr in _ARRAY_MAKERS:
        maker = func.attr
    else:
        return None
    if not call.args:
        raise syntax_error(src, stmt, f"np.{maker}() in a prange body needs a shape")
    shape = call.args[0]
    parts = shape.elts if isinstance(shape, ast.Tuple) else [shape]
    if not parts or not all(isinstance(p, (ast.Constant, ast.Name, ast.Attribute)) for p in parts):
        raise syntax_error(src, stmt, "arrays made inside a prange body are private to each "
                           "iteration and need a constant shape",
                           "use a number or a tuple of numbers, e.g. np.empty(3) or "
                           "np.zeros((4, 4), np.float32)")
    dtype = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "dtype"), None)
    line = src.line_of(stmt)[0]
    return PrivateArray(stmt.targets[0].id, ast.unparse(shape),
                        ast.unparse(dtype) if dtype is not None else "np.float64",
                        _ARRAY_MAKERS[maker], line)


def _direct_loop_vars(index, loop_vars):
    """The loop variables that appear as a whole index component (``i``, ``i + 1``)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    found = set()
    for part in parts:
        node = part
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            if isinstance(node.right, ast.Constant):
                node = node.left
            elif isinstance(node.left, ast.Constant) and isinstance(node.op, ast.Add):
                node = node.right
        if isinstance(node, ast.Name) and node.id in loop_vars:
            found.add(node.id)
    return found


def analyze(src, region):
    """Fills and returns region.analysis (a RegionAnalysis); raises KernelSyntaxError for a
    region that cannot run in parallel safely."""
    result = RegionAnalysis()
    body = region.body
    loop_vars = set(region.loop_vars)
    fn_locals = function_locals(src)
    stmts = list(statements(body))

    # ---- reductions: names updated only in reduction form and read nowhere else ------------
    red_updates, other_stores, other_loads = {}, set(), set()
    red_stmt_ids = {}
    for stmt in stmts:
        form = reduction_form(stmt)
        if form is not None:
            red_updates.setdefault(form[0], []).append((stmt, form[1]))
            red_stmt_ids[id(stmt)] = form
            other_loads |= _names(form[2])
            continue
        for expr in _own_expressions(stmt):
            for n in ast.walk(expr):
                if isinstance(n, ast.Name):
                    (other_stores if isinstance(n.ctx, ast.Store) else other_loads).add(n.id)
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            other_stores |= _names(stmt.target)
    reductions = {}
    for name, updates in red_updates.items():
        ops = {op for _, op in updates}
        if name in other_stores or name in other_loads or name in loop_vars:
            continue
        if len(ops) > 1:
            raise syntax_error(src, updates[0][0],
                               f"'{name}' is reduced with different operators "
                               f"({', '.join(sorted(ops))}) in one prange loop",
                               "use one operator per reduction variable")
        if name not in fn_locals:
            raise syntax_error(src, updates[0][0],
                               f"the reduction variable '{name}' must be a local variable of "
                               "the function, given a value before the loop")
        r = Reduction(name, ops.pop())
        r.lines = [src.line_of(s)[0] for s, _ in updates]
        reductions[name] = r
        result.reductions.append(r)
    # the statements that update a name that turned out not to be a reduction are ordinary
    red_stmt_ids = {k: v for k, v in red_stmt_ids.items() if v[0] in reductions}
    result.reduction_stmts = {k: v[0] for k, v in red_stmt_ids.items()}

    stored = set(other_stores) | {name for name in red_updates if name not in reductions}
    for stmt in stmts:
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and id(stmt) not in \
                red_stmt_ids:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        stored.add(n.id)
                        if n.id in loop_vars:
                            raise syntax_error(src, stmt, f"the prange loop variable '{n.id}' "
                                               "is assigned in the loop body")

    # ---- private arrays ---------------------------------------------------------------------
    private_names = set()
    for stmt in stmts:
        private = _private_array(src, stmt)
        if private is not None:
            result.privates[id(stmt)] = private
            private_names.add(private.name)

    # ---- definite assignment: loop-carried dependences and the names read from outside -----
    live_in = []

    def load(name, node, defined):
        if name in defined or name in reductions:
            return
        if name in stored:
            if name in red_updates:
                hint = (f"'{name}' is updated like a reduction but also read or assigned "
                        "another way in the loop body; a reduction variable may only be "
                        "updated (s += ..., s = min(s, ...))")
            else:
                hint = ("only reductions (s += ..., s *= ..., s = min(s, ...)) may carry a "
                        "value from one iteration to the next; assign the variable before "
                        "reading it in each iteration")
            raise syntax_error(src, node, f"loop-carried dependence: '{name}' is read before "
                               "it is assigned in this iteration, so each iteration would "
                               "depend on the one before", hint)
        if name in fn_locals:
            if name not in live_in:
                live_in.append(name)
        elif name not in result.outer_reads:
            result.outer_reads.append(name)

    def loads_of(expr, defined, node):
        for n in ast.walk(expr):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                load(n.id, node, defined)

    def store_target(target, defined, node):
        if isinstance(target, ast.Name):
            defined.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                store_target(t, defined, node)
        elif isinstance(target, ast.Starred):
            store_target(target.value, defined, node)
        else:  # subscript or attribute: its parts are read
            loads_of(target, defined, node)

    def walk(block, defined, depth):
        for stmt in block:
            form = red_stmt_ids.get(id(stmt))
            if form is not None:
                loads_of(form[2], defined, stmt)
            elif isinstance(stmt, ast.Assign):
                loads_of(stmt.value, defined, stmt)
                for t in stmt.targets:
                    store_target(t, defined, stmt)
            elif isinstance(stmt, ast.AnnAssign):
                if stmt.value is not None:
                    loads_of(stmt.value, defined, stmt)
                store_target(stmt.target, defined, stmt)
            elif isinstance(stmt, ast.AugAssign):
                loads_of(stmt.value, defined, stmt)
                if isinstance(stmt.target, ast.Name):
                    load(stmt.target.id, stmt, defined)
                store_target(stmt.target, defined, stmt)
            elif isinstance(stmt, ast.If):
                loads_of(stmt.test, defined, stmt)
                a = walk(stmt.body, set(defined), depth)
                b = walk(stmt.orelse, set(defined), depth)
                defined = a & b
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                loads_of(stmt.iter, defined, stmt)
                inner = set(defined)
                store_target(stmt.target, inner, stmt)
                inner = walk(stmt.body, inner, depth + 1)
                walk(stmt.orelse, set(inner), depth)
                defined = inner  # the loop is taken to run at least once
            elif isinstance(stmt, ast.While):
                loads_of(stmt.test, defined, stmt)
                defined = walk(stmt.body, set(defined), depth + 1)
            elif isinstance(stmt, ast.Break) and depth == 0:
                raise syntax_error(src, stmt, "break in a prange loop: iterations run in no "
                                   "order, so there is no iteration to stop after")
            elif isinstance(stmt, ast.Continue) and depth == 0:
                result.has_continue = True
            elif isinstance(stmt, ast.Return):
                raise syntax_error(src, stmt, "return inside a prange loop is not supported",
                                   "compute into an array or a reduction variable and return "
                                   "after the loop")
            elif isinstance(stmt, (ast.Break, ast.Continue, ast.Pass)):
                pass
            else:
                for expr in _own_expressions(stmt):
                    if isinstance(expr, ast.expr):
                        loads_of(expr, defined, stmt)
                    else:
                        for n in ast.walk(expr):
                            if isinstance(n, (ast.Yield, ast.YieldFrom)):
                                raise syntax_error(src, stmt, "yield inside a prange loop")
                            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                                load(n.id, stmt, defined)
        return defined

    walk(body, set(loop_vars), 0)
    # names read only in the range bounds of inner loops and such are covered by the walk
    result.live_in = live_in

    # ---- which names vary from one iteration to the next -------------------------------------
    varying = set(loop_vars)
    changed = True
    while changed:
        changed = False
        for stmt in stmts:
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                value = stmt.value
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                value, targets = stmt.iter, [stmt.target]
            else:
                continue
            if value is not None and _names(value) & varying:
                for t in targets:
                    if isinstance(t, (ast.Name, ast.Tuple, ast.List)):
                        new = _names(t) - varying
                        if new:
                            varying |= new
                            changed = True

    # views of the region's arrays held in locals: row = a[i] (written through: a is written)
    aliases = {}
    for stmt in stmts:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Subscript):
            root = _root_name(stmt.value)
            if root is not None and root not in private_names:
                aliases[stmt.targets[0].id] = (root, bool(_names(stmt.value.slice) & varying))

    # ---- element writes: plain, atomic, or an error -----------------------------------------
    for stmt in stmts:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Subscript):
            targets = [stmt.target]
        elif isinstance(stmt, ast.Assign):
            targets = [t for t in stmt.targets if isinstance(t, ast.Subscript)]
            targets += [e for t in stmt.targets if isinstance(t, (ast.Tuple, ast.List))
                        for e in t.elts if isinstance(e, ast.Subscript)]
        else:
            continue
        for target in targets:
            root = _root_name(target)
            if root in private_names and any(isinstance(n, ast.Slice)
                                             for n in ast.walk(target.slice)):
                result.array_writes[id(stmt)] = True  # each work-item's own array
                continue
            if root is None or root in private_names:
                continue
            through_view = False
            if root in aliases:
                root, through_view = aliases[root]
            elif root in stored:
                continue  # a private value of the iteration
            result.arrays_written.add(root)
            index = target.slice
            if any(isinstance(n, ast.Slice) for n in ast.walk(index)):
                # an array write (out[i, :] = a[i, :] * 2, y[:] += x[i]): kernelgen lowers it
                # to loops over the sliced dimensions where the ranks allow (elements of
                # distinct rows: plain stores; shared ones: atomics), else the compiler
                # refuses it and the region falls back (its Python computes it)
                parts = index.elts if isinstance(index, ast.Tuple) else [index]
                scalar = [p for p in parts if not isinstance(p, ast.Slice)]
                result.array_writes[id(stmt)] = through_view or _direct_loop_vars(
                    ast.Tuple(scalar, ast.Load()), loop_vars) >= loop_vars
                continue
            distinct = through_view or _direct_loop_vars(index, loop_vars) >= loop_vars
            depends = through_view or bool(_names(target) & varying)
            text = ast.unparse(target)
            line = src.line_of(stmt)[0]
            if isinstance(stmt, ast.AugAssign):
                if distinct:
                    continue
                method = ATOMIC_AUG.get(type(stmt.op))
                if method is None:
                    raise syntax_error(src, stmt, f"'{text} {_op_text(stmt.op)}= ...': "
                                       "iterations may update the same element and there is "
                                       "no atomic form of this operator",
                                       "index the element by the loop variable, or use +=, "
                                       "-=, &=, |=, ^= (atomic) or a scalar reduction")
                result.atomics[id(stmt)] = (method, text, line)
                continue
            minmax = _element_minmax(stmt)
            if minmax is not None and not distinct:
                result.atomics[id(stmt)] = ("fetch_" + minmax[0], text, line)
                continue
            if not depends and not distinct:
                raise syntax_error(src, stmt, f"every iteration of the prange loop writes the "
                                   f"same element {text} and this is not a reduction",
                                   "index the element by the loop variable, or accumulate "
                                   "with += (an atomic update) or into a scalar reduction")

    # ---- arrays read ----------------------------------------------------------------------------
    for stmt in stmts:
        for expr in _own_expressions(stmt):
            for n in ast.walk(expr):
                if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
                    root = _root_name(n)
                    if root in aliases:
                        root = aliases[root][0]
                    if root is not None and root not in private_names and root not in stored:
                        result.arrays_read.add(root)
    region.analysis = result
    return result


def function_locals(src):
    """The function's local names: every parameter kind (the compiler's FunctionSource counts
    only positional ones) and every name it assigns."""
    args = src.tree.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    params += [a for a in (args.vararg, args.kwarg) if a is not None]
    return set(src.locals) | {a.arg for a in params}


def _op_text(op):
    return {ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
            ast.LShift: "<<", ast.RShift: ">>", ast.MatMult: "@"}.get(type(op), "?")


def inner_pranges(region):
    """Lines of prange loops inside the region that run as sequential loops."""
    return [loop.lineno for loop in statements(region.body)
            if isinstance(loop, ast.For) and is_prange_call(loop.iter)]
