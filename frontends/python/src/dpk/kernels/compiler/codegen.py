"""The kernel compiler: Python ``ast`` of a kernel -> dpk IR, through the C++ Builder.

One ``FunctionGen`` compiles one function (kernel or device function) for one specialization
(the types of its arguments). Statements and expressions are dispatched through two visitor
tables (``_STMT`` and ``_EXPR``, keyed by ``ast`` node class), as Triton's and Warp's code
generators do; a node without an entry is unsupported Python and raises KernelSyntaxError with
the kernel's file, line and source line.

Mutable Python variables become one-element private allocas placed at the function's entry
(structured IR scoping needs them there) and accessed with load/store. A variable's type is only
known once every assignment has been seen, so a function is generated repeatedly into a scratch
module: each pass records the variables it met and widens their types
(dpk._ir.types.unify_variable); when a pass meets nothing new, the types are final and the
function is emitted into the real module. Typical kernels converge in two or three passes of a
few milliseconds; driver.py runs the passes, source.py parses the function.

The visitors live in one mixin per topic: statements.py (s_*), expressions.py (names,
attributes, subscripts), operators.py (arithmetic, comparisons, and/or/not), calls.py (calls and
Python builtins) and kernel_api_calls.py (the kapi library); this file holds the generator's
state, its entry point, the two dispatchers and the tables. Constants, conversions and integer
arithmetic come from the shared builder helpers (dpk._ir.builder).
"""

from __future__ import annotations

import ast
import types as pytypes

import numpy as np

from ... import _core_loader
from ..._errors import KernelSyntaxError, KernelTypeError
from ..._ir import types as T
from ..._ir.values import (Atomic, Const, IndexSpace, PointerArray, Scalar, Slot,
                           StridedArray, TupleValue, ViewArray)
from .calls import CallLowering
from .expressions import ExpressionLowering
from .kernel_api_calls import KernelApiLowering
from .opencl_calls import OpenClApiLowering
from .operators import OperatorLowering
from .statements import StatementLowering

MAX_PASSES = 12


_SUPPORTED_STATEMENTS = ("assignments (=, +=, ...), if/elif/else, for ... in range(...), while, "
                         "break, continue, return, pass, and calls")


class FunctionGen(StatementLowering, ExpressionLowering, OperatorLowering, CallLowering,
                  KernelApiLowering, OpenClApiLowering):
    """Compiles one specialization of one function into ``module`` with ``builder``."""

    def __init__(self, ctx, source, mangled, arg_values, is_kernel, hints, module, builder):
        self.ctx = ctx
        self.src = source
        self.mangled = mangled
        self.arg_values = arg_values  # compile-time description of each parameter
        self.is_kernel = is_kernel
        self.hints = hints            # name -> (dtype, weak); shared across passes
        self.module = module
        self.b = builder
        self.core = _core_loader.core()
        self.retry = False
        self.slots = {}
        self.binds = {}
        self.local_arrays = {}  # "$local<line>_<col>" -> PointerArray allocated at the entry
        self.loop_depth = 0
        self.terminated = False
        self.return_value_seen = False
        self.written = set()  # kernel arguments (indices) the function may write

    # ---- errors -----------------------------------------------------------------------------

    def fail(self, node, message, hint=None, cls=KernelSyntaxError):
        lineno, text = self.src.line_of(node)
        if hint is None and "the work-item (" in message:
            # A parameter taken as the work-item by count, used as something else.
            hint = next((v.note for v in self.arg_values
                         if isinstance(v, IndexSpace) and v.note), None)
        if cls is KernelSyntaxError:
            raise KernelSyntaxError(f"in kernel {self.src.name}(): {message}", self.src.filename,
                                    lineno, text, hint)
        where = f"{self.src.filename}:{lineno}: " if lineno else ""
        detail = f"\n    {text.strip()}" if text else ""
        raise cls(f"{where}in kernel {self.src.name}(): {message}{detail}"
                  + (f"\n  hint: {hint}" if hint else ""))

    def type_fail(self, node, message, hint=None):
        self.fail(node, message, hint, cls=KernelTypeError)

    # ---- entry --------------------------------------------------------------------------------

    def generate(self):
        core = self.core
        params, names, bound = [], [], []
        func = self.src.tree
        if func.args.vararg or func.args.kwarg or func.args.kwonlyargs:
            self.fail(func, "kernels take positional parameters only (no *args, **kwargs or "
                      "keyword-only parameters)")
        arg_names = [a.arg for a in func.args.args]
        extra = {}  # parameter name -> the IR types of a strided view's extents and strides
        for name, value in zip(arg_names, self.arg_values):
            if isinstance(value, StridedArray):
                # A view is passed as its pointer, then its extents and strides (i64 each).
                space = getattr(core.AddressSpace, value.space.capitalize())
                params.append(core.Type.pointer(space, T.scalar_kind(value.dtype)))
                names.append(name)
                i64 = T.ir_scalar(T.I64)
                extra[name] = [i64] * (2 * value.ndim)
                for what in ("shape", "stride"):
                    for d in range(value.ndim):
                        params.append(i64)
                        names.append(f"{name}_{what}{d}")
                continue
            if isinstance(value, ViewArray):
                params.append(core.Type.view(core.AddressSpace.Global, T.scalar_kind(value.dtype),
                                             value.ndim))
                names.append(name)
            elif isinstance(value, Scalar):
                params.append(T.ir_scalar(value.dtype))
                names.append(name)
            elif isinstance(value, PointerArray):
                space = (core.AddressSpace.Local if value.space == "local"
                         else core.AddressSpace.Private)
                if self.is_kernel:
                    params.append(None)  # a LocalAccessor: allocated at the kernel's entry
                    names.append(None)
                    continue
                params.append(core.Type.pointer(space, T.scalar_kind(value.dtype)))
                names.append(name)
            else:
                params.append(None)
                names.append(None)
        ret = self.hints.get("$return")
        ret_type = T.ir_scalar(ret[0]) if ret is not None else core.Type.void()
        lineno, _ = self.src.line_of(func)
        self.b.set_loc(self.src.filename, lineno or 0, 0)
        fn = self.b.create_function(self.mangled, self.is_kernel,
                                    [p for p in params if p is not None],
                                    [n for n in names if n is not None], ret_type)
        ir_params = list(fn.params)
        # Bind parameters (params has the extents and strides of strided views after them).
        params = _strip_extra(params, self.arg_values)
        for name, value, ptype in zip(arg_names, self.arg_values, params):
            if ptype is None:
                if isinstance(value, PointerArray) and self.is_kernel:
                    count = int(np.prod(value.shape))
                    value = PointerArray(self.b.local_alloc(T.scalar_kind(value.dtype), count),
                                         value.dtype, value.shape, "local")
                self.binds[name] = value
                continue
            ir = ir_params.pop(0)
            if isinstance(value, StridedArray):
                shape = [Scalar(ir_params.pop(0), T.I64) for _ in range(value.ndim)]
                strides = [Scalar(ir_params.pop(0), T.I64) for _ in range(value.ndim)]
                self.binds[name] = StridedArray(ir, value.dtype, shape, strides, value.space,
                                                value.param)
            elif isinstance(value, ViewArray):
                self.binds[name] = ViewArray(ir, value.dtype, value.ndim, value.param)
            elif isinstance(value, PointerArray):
                self.binds[name] = PointerArray(ir, value.dtype, value.shape, value.space)
            else:
                self._declare_slots_once()
                self.assign_name(func, name, Scalar(ir, value.dtype))
        self._declare_slots_once()
        self.body(func.body)
        if not self.terminated:
            if ret is not None:
                self.b.ret(self.const(ret[0], 0))
            else:
                self.b.ret()
        return fn

    def _declare_slots_once(self):
        """Allocas for every variable known from earlier passes, at the function entry."""
        if getattr(self, "_slots_declared", False):
            return
        self._slots_declared = True
        # One i64 zero at the entry serves every variable access (allocas have one element).
        self._zero = self.const(T.I64, 0)
        for name, hint in self.hints.items():
            if name.startswith("$return"):
                continue
            if name.startswith("$local"):
                # local.array() of an earlier pass: allocated here, at the kernel's top level.
                _, shape, dtype = hint
                ptr = self.b.local_alloc(T.scalar_kind(dtype), int(np.prod(shape)))
                self.local_arrays[name] = PointerArray(ptr, np.dtype(dtype), shape, "local")
                continue
            dtype, weak = hint
            ptr = self.b.private_alloc(T.scalar_kind(dtype), 1)
            self.slots[name] = Slot(ptr, np.dtype(dtype), weak)

    # ---- statements -------------------------------------------------------------------------

    def body(self, stmts):
        for stmt in stmts:
            if self.terminated:
                break  # code after break/continue/return is unreachable
            lineno, _ = self.src.line_of(stmt)
            self.b.set_loc(self.src.filename, lineno or 0, getattr(stmt, "col_offset", 0) + 1)
            handler = _STMT.get(type(stmt))
            if handler is None:
                self.fail(stmt, f"{type(stmt).__name__} statements are not supported in kernels",
                          hint=f"kernels support {_SUPPORTED_STATEMENTS}")
            handler(self, stmt)

    # ---- expressions ----------------------------------------------------------------------

    def expr(self, node):
        handler = _EXPR.get(type(node))
        if handler is None:
            self.fail(node, f"{type(node).__name__} expressions are not supported in kernels",
                      hint="kernels support arithmetic, comparisons, and/or/not, conditional "
                           "expressions, calls, indexing, attributes and tuples")
        return handler(self, node)

    # ---- helpers ------------------------------------------------------------------------------

    def describe(self, value):
        if isinstance(value, Scalar):
            return f"a {np.dtype(value.dtype).name} number"
        if isinstance(value, ViewArray):
            return f"a {value.ndim}-D {value.dtype.name} array"
        if isinstance(value, PointerArray):
            return f"a {value.space} {value.dtype.name} array of shape {value.shape}"
        if isinstance(value, StridedArray):
            return f"a {value.ndim}-D {value.dtype.name} view of an array"
        if isinstance(value, TupleValue):
            return "a tuple"
        if isinstance(value, IndexSpace):
            what = {"item": "an Item", "nditem": "an NdItem", "group": "a Group",
                    "subgroup": "a SubGroup"}[value.kind]
            if value.note:
                return f"the work-item ({what[3:] if what.startswith('an ') else what})"
            return what
        if isinstance(value, Atomic):
            return "an AtomicRef"
        if isinstance(value, Const):
            obj = value.obj
            if isinstance(obj, pytypes.ModuleType):
                return f"module {obj.__name__}"
            return getattr(obj, "__qualname__", None) or type(obj).__name__
        return type(value).__name__


def _strip_extra(params, values):
    """The per-argument parameter types: a strided view's extents and strides removed."""
    out, i = [], 0
    for value in values:
        out.append(params[i])
        i += 1 + (2 * value.ndim if isinstance(value, StridedArray) else 0)
    return out


_STMT = {
    ast.Expr: FunctionGen.s_expr,
    ast.Pass: FunctionGen.s_pass,
    ast.Assign: FunctionGen.s_assign,
    ast.AnnAssign: FunctionGen.s_annassign,
    ast.AugAssign: FunctionGen.s_augassign,
    ast.If: FunctionGen.s_if,
    ast.For: FunctionGen.s_for,
    ast.While: FunctionGen.s_while,
    ast.Break: FunctionGen.s_break,
    ast.Continue: FunctionGen.s_continue,
    ast.Return: FunctionGen.s_return,
}

_EXPR = {
    ast.Constant: FunctionGen.e_constant,
    ast.Name: FunctionGen.e_name,
    ast.Tuple: FunctionGen.e_tuple,
    ast.Attribute: FunctionGen.e_attribute,
    ast.Subscript: FunctionGen.e_subscript,
    ast.BinOp: FunctionGen.e_binop,
    ast.UnaryOp: FunctionGen.e_unaryop,
    ast.Compare: FunctionGen.e_compare,
    ast.BoolOp: FunctionGen.e_boolop,
    ast.IfExp: FunctionGen.e_ifexp,
    ast.Call: FunctionGen.e_call,
}

__all__ = ["FunctionGen", "MAX_PASSES"]
