"""The source of a function the compiler reads: its parsed ``ast``, its locals, globals and
closure, and the file and line an error message names. Parsed once per function object.

Functions Python keeps no source for (typed into ``python -i``, made by ``exec``) are read back
from their bytecode by bytecode.recover_source, which verifies what it reads."""

from __future__ import annotations

import ast
import inspect
import textwrap
import weakref

from ..._errors import KernelSyntaxError
from .bytecode import recover_source


class FunctionSource:
    """The parsed source of a Python function, with what error messages need."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        self.from_bytecode = False
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            # No source (an interactive session, exec of a string): read it back from the
            # bytecode, verified (bytecode.py), or raise KernelSourceError saying why.
            lines, first = recover_source(fn)
            self.from_bytecode = True
        self.lines = lines
        self.first_line = first
        self.filename = (None if self.from_bytecode else inspect.getsourcefile(fn)) \
            or fn.__code__.co_filename
        tree = ast.parse(textwrap.dedent("".join(lines)))
        func = tree.body[0]
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise KernelSyntaxError(f"{fn.__name__} is not a plain function definition")
        self.tree = func
        # Names the function assigns anywhere are its locals (Python's scoping rule).
        self.locals = set(a.arg for a in func.args.args)
        for node in ast.walk(func):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.locals.add(node.id)
        closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:
                    pass
        self.closure = closure
        self.globals = fn.__globals__

    def line_of(self, node):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return None, None
        absolute = self.first_line + lineno - 1
        text = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else None
        return absolute, text


_sources = weakref.WeakKeyDictionary()


def function_source(pyfunc):
    """The parsed source of `pyfunc`, parsed once per function object."""
    source = _sources.get(pyfunc)
    if source is None:
        source = _sources[pyfunc] = FunctionSource(pyfunc)
    return source
