"""Finding the parallel regions of a function: every ``for ... in prange(...)`` loop that is
not itself inside another one, with directly nested ``prange`` loops collapsed into one n-D
range (up to 3 dimensions, as launches have).

A nest collapses while the loop body is exactly one ``prange`` loop whose bounds do not use the
outer loop variables; any other inner ``prange`` stays a sequential loop inside the kernel (as
Numba runs inner pranges).
"""

from __future__ import annotations

import ast

from .._errors import KernelSyntaxError
from .loops import is_prange_call

MAX_COLLAPSED = 3  # dimensions of a launch


class Region:
    """One parallel region: the outer ``for`` node, the collapsed loops and the body."""

    def __init__(self, index, loops, body, src):
        self.index = index
        self.node = loops[0]
        self.loops = loops
        self.loop_vars = [loop.target.id for loop in loops]
        self.range_args = [loop.iter.args for loop in loops]
        self.body = body
        self.first_line = src.first_line + loops[0].lineno - 1
        self.last_line = src.first_line + (loops[0].end_lineno or loops[0].lineno) - 1
        self.analysis = None  # analysis.RegionAnalysis, filled by analyze()

    @property
    def lines(self):
        return f"{self.first_line}-{self.last_line}"

    def __repr__(self):
        return f"<jit region {self.index} lines {self.lines} over {', '.join(self.loop_vars)}>"


def syntax_error(src, node, message, hint=None):
    """A KernelSyntaxError at `node`'s line of the user's file."""
    lineno, text = src.line_of(node)
    return KernelSyntaxError(f"in @dpk.jit function {src.name}(): {message}", src.filename,
                             lineno, text, hint)


def _names_in(nodes):
    found = set()
    for n in nodes:
        for sub in ast.walk(n):
            if isinstance(sub, ast.Name):
                found.add(sub.id)
    return found


def _check_loop(src, loop):
    if not isinstance(loop.target, ast.Name):
        raise syntax_error(src, loop, "a prange loop variable must be a plain name")
    if loop.orelse:
        raise syntax_error(src, loop, "a prange loop cannot have an else clause")
    call = loop.iter
    if call.keywords or not 1 <= len(call.args) <= 3 or \
            any(isinstance(a, ast.Starred) for a in call.args):
        raise syntax_error(src, loop, "prange takes 1 to 3 positional arguments, as range does")


def _collapse(src, outer):
    loops = [outer]
    _check_loop(src, outer)
    node = outer
    while (len(loops) < MAX_COLLAPSED and len(node.body) == 1
           and isinstance(node.body[0], ast.For) and is_prange_call(node.body[0].iter)):
        inner = node.body[0]
        _check_loop(src, inner)
        outer_vars = {loop.target.id for loop in loops}
        if _names_in(inner.iter.args) & outer_vars:
            break  # triangular: the inner bounds vary with the outer index
        loops.append(inner)
        node = inner
    return loops, node.body


_BLOCK_FIELDS = ("body", "orelse", "finalbody")


def find_regions(src):
    """The regions of the function `src` (a compiler.source.FunctionSource), in source order."""
    regions = []

    def visit(stmts):
        for stmt in stmts:
            if isinstance(stmt, (ast.For, ast.AsyncFor)) and is_prange_call(stmt.iter):
                loops, body = _collapse(src, stmt)
                regions.append(Region(len(regions), loops, body, src))
                continue
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue  # their own scopes: not outlined
            for field in _BLOCK_FIELDS:
                block = getattr(stmt, field, None)
                if isinstance(block, list):
                    visit(block)
            for handler in getattr(stmt, "handlers", ()) or ():
                visit(handler.body)
            for case in getattr(stmt, "cases", ()) or ():
                visit(case.body)

    visit(src.tree.body)
    return regions
