"""The function as it runs: the user's function with each parallel region replaced by a call
into the runtime, and each region's own Python (the last fallback).

Both are compiled from the user's source with its file name and line numbers (tracebacks point
at the user's lines) and get the user's module globals and closure cells, so the sequential
statements between regions behave exactly as written. A region call is

    s, t = <region runner>((lo0, hi0, step0), ..., <names the region reads>, s, t)

where ``s, t`` are the region's scalar reductions (the call returns their new values); a region
without reductions is a plain call statement. The region's Python is

    def <region python>(__r0, ..., <names>, s, t):
        for i in range(*__r0): ...        # the original loops, prange -> range
        return (s, t)
"""

from __future__ import annotations

import ast
import copy
import types

from .loops import is_prange_call

MAKER = "__dpk_make"


def runner_name(region):
    return f"__dpk_region_{region.index}"


def python_name(region):
    return f"__dpk_python_region_{region.index}"


def _range_tuple(args):
    args = [copy.deepcopy(a) for a in args]
    if len(args) == 1:
        args = [ast.Constant(0), args[0], ast.Constant(1)]
    elif len(args) == 2:
        args = args + [ast.Constant(1)]
    return ast.Tuple(args, ast.Load())


def _region_call(region):
    analysis = region.analysis
    args = [_range_tuple(a) for a in region.range_args]
    args += [ast.Name(n, ast.Load()) for n in analysis.live_in]
    args += [ast.Name(r.name, ast.Load()) for r in analysis.reductions]
    call = ast.Call(ast.Name(runner_name(region), ast.Load()), args, [])
    if analysis.reductions:
        target = ast.Tuple([ast.Name(r.name, ast.Store()) for r in analysis.reductions],
                           ast.Store())
        stmt = ast.Assign([target], call)
    else:
        stmt = ast.Expr(call)
    return ast.copy_location(stmt, region.node)


class _Outliner(ast.NodeTransformer):
    def __init__(self, regions):
        self.by_node = {id(r.node): r for r in regions}

    def visit_For(self, node):
        region = self.by_node.get(id(node))
        if region is not None:
            return _region_call(region)
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node):  # nested functions are not outlined
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef


def _python_region(region):
    analysis = region.analysis
    params = [f"__r{d}" for d in range(len(region.loop_vars))]
    params += list(analysis.live_in) + [r.name for r in analysis.reductions]
    loop = copy.deepcopy(region.node)
    node = loop
    for d in range(len(region.loop_vars)):
        node.iter = ast.Call(ast.Name("range", ast.Load()),
                             [ast.Starred(ast.Name(f"__r{d}", ast.Load()), ast.Load())], [])
        if d + 1 < len(region.loop_vars):
            node = node.body[0]
    for sub in ast.walk(loop):
        if isinstance(sub, ast.For) and is_prange_call(sub.iter):
            sub.iter.func = ast.copy_location(ast.Name("range", ast.Load()), sub.iter.func)
    ret = ast.Return(ast.Tuple([ast.Name(r.name, ast.Load()) for r in analysis.reductions],
                               ast.Load()))
    func = ast.FunctionDef(
        name=python_name(region),
        args=ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[loop, ast.copy_location(ret, loop)], decorator_list=[], returns=None,
        type_comment=None)
    return ast.copy_location(func, region.node)


def build(src, regions, runners):
    """(the rewritten function, {region index: the region's Python function})."""
    fn = src.fn
    tree = copy.deepcopy(src.tree)
    ast.increment_lineno(tree, src.first_line - 1)
    # the regions were found on src.tree: find the same nodes in the copy by position
    originals = list(ast.walk(src.tree))
    copies = list(ast.walk(tree))
    index = {id(o): c for o, c in zip(originals, copies)}
    shifted = []
    for region in regions:
        clone = copy.copy(region)
        clone.node = index[id(region.node)]
        shifted.append(clone)
    pythons = [_python_region(r) for r in shifted]
    tree.decorator_list = []
    outliner = _Outliner(shifted)
    tree.body = [outliner.visit(stmt) for stmt in tree.body]
    freevars = list(fn.__code__.co_freevars)
    maker_params = freevars + [runner_name(r) for r in regions]
    maker = ast.FunctionDef(
        name=MAKER,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in maker_params],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=pythons + [tree, ast.Return(ast.Constant(None))], decorator_list=[],
        returns=None, type_comment=None)
    module = ast.Module([maker], type_ignores=[])
    ast.fix_missing_locations(module)
    code = compile(module, src.filename, "exec")
    make = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    cells = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        cells[name] = cell
    for region, runner in zip(regions, runners):
        cells[runner_name(region)] = types.CellType(runner)
    made = {}
    for const in make.co_consts:
        if isinstance(const, types.CodeType):
            closure = tuple(cells[v] for v in const.co_freevars) or None
            made[const.co_name] = types.FunctionType(const, fn.__globals__, const.co_name,
                                                     None, closure)
    rewritten = made[tree.name]
    rewritten.__defaults__ = fn.__defaults__
    rewritten.__kwdefaults__ = fn.__kwdefaults__
    rewritten.__qualname__ = fn.__qualname__
    rewritten.__doc__ = fn.__doc__
    return rewritten, {r.index: made[python_name(r)] for r in regions}
