"""``dpk.prange`` and how the jit recognises it in source.

Called from plain Python, ``prange`` is ``range`` (numba's is too, outside a parallel
function). Inside a ``@dpk.jit`` function the parser looks for ``for ... in prange(...)``
whether it is spelt ``prange``, ``dpk.prange`` or ``numba.prange`` (code ported by changing
imports keeps its spelling).
"""

from __future__ import annotations

import ast


def prange(*args):
    """A parallel range: iterations may run in any order and at the same time inside a
    ``@dpk.jit`` function; ``range(*args)`` anywhere else."""
    return range(*args)


def is_prange_call(node) -> bool:
    """Whether `node` (an expression) is a call of ``prange`` (by any spelling)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id == "prange"
    return isinstance(func, ast.Attribute) and func.attr == "prange"
