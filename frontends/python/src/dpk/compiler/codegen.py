"""The kernel compiler: Python ``ast`` of a kernel -> dpk IR, through the C++ Builder.

One ``FunctionGen`` compiles one function (kernel or device function) for one specialization
(the types of its arguments). Statements and expressions are dispatched through two visitor
tables (``_STMT`` and ``_EXPR``, keyed by ``ast`` node class), as Triton's and Warp's code
generators do; a node without an entry is unsupported Python and raises KernelSyntaxError with
the kernel's file, line and source line.

Mutable Python variables become one-element private allocas placed at the function's entry
(structured IR scoping needs them there) and accessed with load/store. A variable's type is only
known once every assignment has been seen, so a function is generated repeatedly into a scratch
module: each pass records the variables it met and widens their types (types.unify_variable);
when a pass meets nothing new, the types are final and the function is emitted into the real
module. Typical kernels converge in two or three passes of a few milliseconds.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import types as pytypes

import numpy as np

from .. import _core_loader
from .._errors import KernelSyntaxError, KernelTypeError
from ..kernel_api import (AtomicRef, LocalAccessor, PrivateArray, atomic_fence,
                          group_barrier)
from . import types as T
from .kernel_api_calls import KernelApiLowering, _dtype_of_class
from .mathfns import MATH_FUNCTIONS, MathSpec
from .values import (Atomic, BoundMethod, Const, IndexSpace, PointerArray, Scalar, Slot,
                     TupleValue, ViewArray)

MAX_PASSES = 12


# ---- source access ------------------------------------------------------------------------------

class FunctionSource:
    """The parsed source of a Python function, with what error messages need."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError) as exc:
            raise KernelSyntaxError(
                f"cannot read the source of {fn.__name__}() ({exc})",
                hint="kernels must be defined in a file (or a notebook cell), not built with exec"
            ) from None
        self.lines = lines
        self.first_line = first
        self.filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
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


_SUPPORTED_STATEMENTS = ("assignments (=, +=, ...), if/elif/else, for ... in range(...), while, "
                         "break, continue, return, pass, and calls")


class FunctionGen(KernelApiLowering):
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
        self.loop_depth = 0
        self.terminated = False
        self.return_value_seen = False
        self.written = set()  # kernel arguments (indices) the function may write

    # ---- errors -----------------------------------------------------------------------------

    def fail(self, node, message, hint=None, cls=KernelSyntaxError):
        lineno, text = self.src.line_of(node)
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
        for name, value in zip(arg_names, self.arg_values):
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
        # Bind parameters.
        for name, value, ptype in zip(arg_names, self.arg_values, params):
            if ptype is None:
                if isinstance(value, PointerArray) and self.is_kernel:
                    count = int(np.prod(value.shape))
                    value = PointerArray(self.b.local_alloc(T.scalar_kind(value.dtype), count),
                                         value.dtype, value.shape, "local")
                self.binds[name] = value
                continue
            ir = ir_params.pop(0)
            if isinstance(value, ViewArray):
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
        for name, (dtype, weak) in self.hints.items():
            if name.startswith("$return"):
                continue
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

    def s_expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring
        self.expr(node.value)

    def s_pass(self, node):
        pass

    def s_assign(self, node):
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def s_annassign(self, node):
        if node.value is None:
            return
        self.assign(node.target, self.expr(node.value))

    def s_augassign(self, node):
        target = node.target
        if isinstance(target, ast.Name):
            current = self.load_name(target)
            self.assign(target, self.binop(node, node.op, current, self.expr(node.value)))
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value)
            index = self.index_values(target, self.expr(target.slice))
            current = self.subscript_load(target, container, index)
            result = self.binop(node, node.op, current, self.expr(node.value))
            self.subscript_store(target, container, index, result)
        else:
            self.fail(node, "augmented assignment needs a variable or an array element")

    def assign(self, target, value):
        if isinstance(target, ast.Name):
            self.assign_name(target, target.id, value)
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value)
            index = self.index_values(target, self.expr(target.slice))
            self.subscript_store(target, container, index, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, TupleValue) or len(value.items) != len(target.elts):
                self.fail(target, "tuple unpacking needs a tuple of the same length on the right")
            for t, v in zip(target.elts, value.items):
                self.assign(t, v)
        else:
            self.fail(target, f"cannot assign to {type(target).__name__}",
                      hint="assign to a variable, an array element or a tuple of them")

    def assign_name(self, node, name, value):
        if isinstance(value, Scalar):
            if name in self.binds:
                self.fail(node, f"variable '{name}' holds an array or object; it cannot also "
                          "hold a number")
            dtype = np.dtype(value.dtype)
            if dtype == np.float16:
                dtype = T.F32
            hint = self.hints.get(name)
            if hint is None:
                self.hints[name] = (dtype, value.weak)
                self.retry = True
                ptr = self.b.private_alloc(T.scalar_kind(dtype), 1)
                self.slots[name] = Slot(ptr, dtype, value.weak)
            else:
                new = T.unify_variable(hint[0], hint[1], dtype, value.weak)
                if (np.dtype(new[0]), new[1]) != (np.dtype(hint[0]), hint[1]):
                    self.hints[name] = new
                    self.retry = True
            slot = self.slots.get(name)
            if slot is None:
                ptr = self.b.private_alloc(T.scalar_kind(self.hints[name][0]), 1)
                slot = self.slots[name] = Slot(ptr, np.dtype(self.hints[name][0]),
                                               self.hints[name][1])
            self.b.store(slot.ptr, self._zero, self.coerce(node, value, slot.dtype))
            return
        if name in self.slots or name in self.hints:
            self.fail(node, f"variable '{name}' holds a number; it cannot also hold "
                      f"{self.describe(value)}")
        previous = self.binds.get(name)
        if previous is not None and previous is not value and self._depth_key() != 0:
            self.fail(node, f"'{name}' is rebound to another array or object inside control flow",
                      hint="bind arrays and objects once, or use different names")
        self.binds[name] = value

    def _depth_key(self):
        return getattr(self, "_nesting", 0)

    def _nested(self):
        gen = self

        class _Ctx:
            def __enter__(self):
                gen._nesting = gen._depth_key() + 1

            def __exit__(self, *exc):
                gen._nesting = gen._depth_key() - 1
        return _Ctx()

    def s_if(self, node):
        cond = self.expr(node.test)
        static = self.static_truth(cond)
        if static is not None:
            self.body(node.body if static else node.orelse)
            return
        cond = self.to_bool(node.test, cond)
        op = self.b.create_if(cond.ir)
        block = self.b.insertion_block
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.then_block(op))
            self.body(node.body)
            then_terminated = self.terminated
            self.terminated = False
            else_terminated = False
            if node.orelse:
                self.b.set_insertion_point(self.core.Builder.else_block(op))
                self.body(node.orelse)
                else_terminated = self.terminated
                self.terminated = False
        self.b.set_insertion_point(block)
        self.terminated = then_terminated and else_terminated and bool(node.orelse)

    def s_for(self, node):
        if node.orelse:
            self.fail(node, "for ... else is not supported in kernels",
                      hint="use a flag variable set before break")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and self.resolve_global(it.func.id) is builtins.range and not it.keywords):
            self.fail(node, "kernels can only loop over range(...)",
                      hint="write `for i in range(n)` (1 to 3 arguments) and index arrays")
        if not isinstance(node.target, ast.Name):
            self.fail(node.target, "the loop variable must be a plain name")
        args = [self.expr(a) for a in it.args]
        if not 1 <= len(args) <= 3:
            self.fail(it, "range() takes 1 to 3 arguments")
        for a, n in zip(args, it.args):
            if not isinstance(a, Scalar) or not (T.is_int(a.dtype) or T.is_bool(a.dtype)):
                self.type_fail(n, "range() arguments must be integers")
        if len(args) == 1:
            lo, hi, step = Scalar(None, T.I64, True, 0), args[0], Scalar(None, T.I64, True, 1)
        elif len(args) == 2:
            lo, hi, step = args[0], args[1], Scalar(None, T.I64, True, 1)
        else:
            lo, hi, step = args
        name = node.target.id
        if step.is_literal and step.py == 0:
            self.fail(it, "range() step must not be zero")
        block = self.b.insertion_block
        if step.is_literal and step.py > 0:
            for_op = self.b.create_for(self.coerce(it, lo, T.I64), self.coerce(it, hi, T.I64),
                                       self.coerce(it, step, T.I64), name)
            with self._nested():
                self.b.set_insertion_point(self.core.Builder.for_body(for_op))
                iv = self.core.Builder.for_induction_var(for_op)
                self.assign_name(node.target, name, Scalar(iv, T.I64))
                self.loop_body(node.body)
            self.b.set_insertion_point(block)
            return
        # Negative or run-time step: a while loop over a hidden counter, advanced before the body
        # so that `continue` cannot skip it.
        counter = f"$for{node.lineno}_{node.col_offset}"
        step_v = self.coerce(it, step, T.I64)
        hi_v = self.coerce(it, hi, T.I64)
        self.assign_name(node, counter, Scalar(self.coerce(it, lo, T.I64), T.I64))
        while_op = self.b.create_while()
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.while_cond(while_op))
            current = self.load_slot(node, counter)
            zero = self.const(T.I64, 0)
            up = self.b.cmp(self.core.CmpPredicate.Gt, step_v, zero)
            below = self.b.cmp(self.core.CmpPredicate.Lt, current.ir, hi_v)
            above = self.b.cmp(self.core.CmpPredicate.Gt, current.ir, hi_v)
            self.b.condition(self.b.select(up, below, above))
            self.b.set_insertion_point(self.core.Builder.while_body(while_op))
            current = self.load_slot(node, counter)
            self.assign_name(node.target, name, current)
            self.assign_name(node, counter, Scalar(
                self.b.binary(self.core.OpKind.Add, current.ir, step_v), T.I64))
            self.loop_body(node.body)
        self.b.set_insertion_point(block)

    def loop_body(self, stmts):
        self.loop_depth += 1
        self.body(stmts)
        self.terminated = False
        self.loop_depth -= 1

    def s_while(self, node):
        if node.orelse:
            self.fail(node, "while ... else is not supported in kernels",
                      hint="use a flag variable set before break")
        block = self.b.insertion_block
        while_op = self.b.create_while()
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.while_cond(while_op))
            cond = self.to_bool(node.test, self.expr(node.test))
            self.b.condition(cond.ir)
            self.b.set_insertion_point(self.core.Builder.while_body(while_op))
            self.loop_body(node.body)
        self.b.set_insertion_point(block)

    def s_break(self, node):
        if self.loop_depth == 0:
            self.fail(node, "break outside a loop")
        self.b.break_op()
        self.terminated = True

    def s_continue(self, node):
        if self.loop_depth == 0:
            self.fail(node, "continue outside a loop")
        self.b.continue_op()
        self.terminated = True

    def s_return(self, node):
        if node.value is None or (isinstance(node.value, ast.Constant)
                                  and node.value.value is None):
            if self.hints.get("$return") is not None:
                self.fail(node, "this function returns a value elsewhere; every return must")
            self.b.ret()
            self.terminated = True
            return
        if self.is_kernel:
            self.fail(node, "a kernel cannot return a value",
                      hint="write results into an array argument")
        value = self.expr(node.value)
        if not isinstance(value, Scalar):
            self.fail(node, f"device functions can return numbers only, not "
                      f"{self.describe(value)}")
        hint = self.hints.get("$return")
        dtype = np.dtype(T.arith_dtype(value.dtype)) if not T.is_bool(value.dtype) else T.BOOL
        if hint is None:
            self.hints["$return"] = (dtype, value.weak)
            self.retry = True
            hint = self.hints["$return"]
        else:
            new = T.unify_variable(hint[0], hint[1], dtype, value.weak)
            if (np.dtype(new[0]), new[1]) != (np.dtype(hint[0]), hint[1]):
                self.hints["$return"] = new
                self.retry = True
        self.b.ret(self.coerce(node, value, hint[0]))
        self.terminated = True

    # ---- expressions ----------------------------------------------------------------------

    def expr(self, node):
        handler = _EXPR.get(type(node))
        if handler is None:
            self.fail(node, f"{type(node).__name__} expressions are not supported in kernels",
                      hint="kernels support arithmetic, comparisons, and/or/not, conditional "
                           "expressions, calls, indexing, attributes and tuples")
        return handler(self, node)

    def e_constant(self, node):
        v = node.value
        if isinstance(v, bool):
            return Scalar(None, T.BOOL, True, v)
        if isinstance(v, int):
            return Scalar(None, T.I64, True, v)
        if isinstance(v, float):
            return Scalar(None, T.F64, True, v)
        if v is None:
            return Const(None)
        self.fail(node, f"{type(v).__name__} constants are not supported in kernels")

    def e_name(self, node):
        return self.load_name(node)

    def load_name(self, node):
        name = node.id
        if name in self.binds:
            return self.binds[name]
        if name in self.slots:
            return self.load_slot(node, name)
        if name in self.src.locals:
            if self.hints.get(name) is None:
                # Assigned later in the source (e.g. in a loop); known in the next pass.
                self.retry = True
                return Scalar(None, T.I64, True, 0)
            self.fail(node, f"variable '{name}' is used before it is assigned")
        return self.from_python(node, self.resolve_global(name, node))

    def load_slot(self, node, name):
        slot = self.slots[name]
        return Scalar(self.b.load(slot.ptr, self._zero), slot.dtype, slot.weak)

    def resolve_global(self, name, node=None):
        if name in self.src.closure:
            return self.src.closure[name]
        if name in self.src.globals:
            return self.src.globals[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        if node is None:
            return None
        self.fail(node, f"name '{name}' is not defined")

    def from_python(self, node, obj):
        """A Python object seen from a kernel (a global, a closure variable, an attribute)."""
        if isinstance(obj, bool):
            return Scalar(None, T.BOOL, True, obj)
        if isinstance(obj, int):
            return Scalar(None, T.I64, True, obj)
        if isinstance(obj, float):
            return Scalar(None, T.F64, True, obj)
        if isinstance(obj, np.generic) and T.supported_dtype(obj.dtype):
            return Scalar(None, obj.dtype, False, obj.item())
        if isinstance(obj, tuple):
            return TupleValue([self.from_python(node, o) for o in obj])
        if isinstance(obj, np.ndarray):
            self.fail(node, "global NumPy arrays cannot be used in kernels",
                      hint="pass the array as a kernel argument")
        return Const(obj)

    def e_tuple(self, node):
        return TupleValue([self.expr(e) for e in node.elts])

    def e_attribute(self, node):
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, Const):
            obj = base.obj
            if isinstance(obj, np.dtype) and attr == "type":
                return Const(obj.type)
            try:
                value = getattr(obj, attr)
            except AttributeError:
                self.fail(node, f"{self.describe(base)} has no attribute '{attr}'")
            return self.from_python(node, value)
        if isinstance(base, ViewArray):
            if attr == "shape":
                return TupleValue([Scalar(self.b.view_dim(base.ir, d), T.I64)
                                   for d in range(base.ndim)])
            if attr == "ndim":
                return Scalar(None, T.I64, True, base.ndim)
            if attr == "dtype":
                return Const(base.dtype)
            if attr == "size":
                total = Scalar(None, T.I64, True, 1)
                for d in range(base.ndim):
                    total = self.binop(node, ast.Mult(), total,
                                       Scalar(self.b.view_dim(base.ir, d), T.I64))
                return total
            if attr == "strides":
                itemsize = base.dtype.itemsize
                return TupleValue([self.binop(node, ast.Mult(),
                                              Scalar(self.b.view_stride(base.ir, d), T.I64),
                                              Scalar(None, T.I64, True, itemsize))
                                   for d in range(base.ndim)])
        if isinstance(base, PointerArray):
            if attr == "shape":
                return TupleValue([Scalar(None, T.I64, True, s) for s in base.shape])
            if attr == "ndim":
                return Scalar(None, T.I64, True, base.ndim)
            if attr == "dtype":
                return Const(base.dtype)
            if attr == "size":
                return Scalar(None, T.I64, True, int(np.prod(base.shape)))
        if isinstance(base, IndexSpace):
            if attr == "ndim":
                return Scalar(None, T.I64, True, base.ndim)
            if attr == "leader" and base.kind == "group":
                lin = self.linear_id(node, self.core.OpKind.LocalId, self.core.OpKind.LocalSize,
                                     base.ndim)
                return Scalar(self.b.cmp(self.core.CmpPredicate.Eq, lin.ir,
                                         self.const(T.I64, 0)), T.BOOL)
            return BoundMethod(base, attr)
        if isinstance(base, Atomic):
            return BoundMethod(base, attr)
        if isinstance(base, Scalar):
            if attr in ("real",):
                return base
            if attr == "dtype":
                return Const(np.dtype(base.dtype))
        self.fail(node, f"{self.describe(base)} has no attribute '{attr}' in kernels")

    def e_subscript(self, node):
        container = self.expr(node.value)
        index = self.expr(node.slice)
        if isinstance(container, TupleValue):
            if not (isinstance(index, Scalar) and index.is_literal):
                self.fail(node, "tuples can only be indexed by a constant")
            try:
                return container.items[index.py]
            except (IndexError, TypeError):
                self.fail(node, f"tuple index {index.py} out of range")
        return self.subscript_load(node, container, self.index_values(node, index))

    def index_values(self, node, index):
        if isinstance(index, TupleValue):
            items = index.items
        else:
            items = [index]
        for item in items:
            if not isinstance(item, Scalar) or not (T.is_int(item.dtype) or T.is_bool(item.dtype)):
                self.type_fail(node, f"array indices must be integers, not "
                               f"{self.describe(item)}",
                               hint="slices are not supported; index one element per dimension")
        return items

    def _element_pointer(self, node, container, index):
        """(pointer, i64 index) or (view, index list) for an element access."""
        if isinstance(container, ViewArray):
            if len(index) != container.ndim:
                self.fail(node, f"a {container.ndim}-D array needs {container.ndim} indices, "
                          f"got {len(index)}", hint="index one element per dimension")
            values = []
            for d, i in enumerate(index):
                if i.is_literal and i.py < 0:
                    dim = Scalar(self.b.view_dim(container.ir, d), T.I64)
                    values.append(self.binop(node, ast.Add(), dim, i))
                else:
                    values.append(i)
            return "view", [self.coerce(node, v, T.I64) for v in values]
        if isinstance(container, PointerArray):
            if len(index) != container.ndim:
                self.fail(node, f"a {container.ndim}-D array needs {container.ndim} indices, "
                          f"got {len(index)}")
            linear = None
            stride = 1
            for d in reversed(range(container.ndim)):
                i = index[d]
                if i.is_literal and i.py < 0:
                    i = Scalar(None, T.I64, True, i.py + container.shape[d])
                term = self.binop(node, ast.Mult(), i, Scalar(None, T.I64, True, stride))
                linear = term if linear is None else self.binop(node, ast.Add(), term, linear)
                stride *= container.shape[d]
            return "ptr", self.coerce(node, linear, T.I64)
        self.type_fail(node, f"{self.describe(container)} cannot be indexed")

    def subscript_load(self, node, container, index):
        kind, idx = self._element_pointer(node, container, index)
        if kind == "view":
            ir = self.b.view_load(container.ir, idx)
        else:
            ir = self.b.load(container.ir, idx)
        value = Scalar(ir, container.dtype)
        if container.dtype == np.float16:
            value = Scalar(self.b.cast(ir, T.ir_scalar(T.F32)), T.F32)
        return value

    def subscript_store(self, node, container, index, value):
        if not isinstance(value, Scalar):
            self.type_fail(node, f"cannot store {self.describe(value)} into an array element")
        kind, idx = self._element_pointer(node, container, index)
        if isinstance(container, ViewArray):
            self.written.add(container.param)
        v = self.coerce(node, value, container.dtype)
        if kind == "view":
            self.b.view_store(container.ir, idx, v)
        else:
            self.b.store(container.ir, idx, v)

    # ---- arithmetic ---------------------------------------------------------------------------

    def const(self, dtype, value):
        dtype = np.dtype(dtype)
        kind = T.scalar_kind(dtype)
        if dtype.kind == "b":
            return self.b.const_bool(bool(value))
        if dtype.kind == "f":
            return self.b.const_float(kind, float(value))
        value = int(value)
        if dtype.kind == "u" and value < 0:
            value += 1 << (8 * dtype.itemsize)
        if value >= 1 << 63:
            value -= 1 << 64  # intAttr is an int64: unsigned values above 2**63 wrap
        return self.b.const_int(kind, value)

    def coerce(self, node, value, dtype):
        """The IR value of `value` converted to `dtype`."""
        dtype = np.dtype(dtype)
        if not isinstance(value, Scalar):
            self.type_fail(node, f"expected a number, got {self.describe(value)}")
        if value.is_literal:
            py = value.py
            if dtype.kind in "iu" and isinstance(py, float):
                py = int(py)
            return self.const(dtype, py)
        src = np.dtype(value.dtype)
        if src == dtype:
            return value.ir
        if dtype.kind == "b":
            zero = self.const(src, 0)
            return self.b.cmp(self.core.CmpPredicate.Ne, value.ir, zero)
        return self.b.cast(value.ir, T.ir_scalar(dtype))

    def to_bool(self, node, value):
        if not isinstance(value, Scalar):
            self.type_fail(node, f"{self.describe(value)} has no truth value in kernels")
        if T.is_bool(value.dtype) and not value.is_literal:
            return value
        return Scalar(self.coerce(node, value, T.BOOL), T.BOOL)

    def static_truth(self, value):
        if isinstance(value, Scalar) and value.is_literal:
            return bool(value.py)
        if isinstance(value, Const):
            return bool(value.obj)
        return None

    def e_binop(self, node):
        return self.binop(node, node.op, self.expr(node.left), self.expr(node.right))

    def binop(self, node, op, a, b):
        if not isinstance(a, Scalar) or not isinstance(b, Scalar):
            self.type_fail(node, f"unsupported operand types for {type(op).__name__}: "
                           f"{self.describe(a)} and {self.describe(b)}",
                           hint="array expressions are not supported; loop over elements")
        OpKind = self.core.OpKind
        if a.is_literal and b.is_literal and a.weak and b.weak:
            return self.fold(node, op, a, b)
        if isinstance(op, ast.Pow):
            return self.power(node, a, b)
        bitwise = isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor))
        if bitwise and T.is_bool(a.dtype) and T.is_bool(b.dtype):
            kind = {ast.BitAnd: OpKind.And, ast.BitOr: OpKind.Or, ast.BitXor: OpKind.Xor}[type(op)]
            return Scalar(self.b.binary(kind, self.coerce(node, a, T.BOOL),
                                        self.coerce(node, b, T.BOOL)), T.BOOL)
        dtype, weak = T.promote(a.dtype, a.weak, b.dtype, b.weak)
        if isinstance(op, ast.Div) and dtype.kind in "iu":
            dtype = T.F64
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)):
            if dtype.kind not in "iu":
                self.type_fail(node, "bitwise operators need integer operands")
        x, y = self.coerce(node, a, dtype), self.coerce(node, b, dtype)
        simple = {ast.Add: OpKind.Add, ast.Sub: OpKind.Sub, ast.Mult: OpKind.Mul,
                  ast.Div: OpKind.Div, ast.BitAnd: OpKind.And, ast.BitOr: OpKind.Or,
                  ast.BitXor: OpKind.Xor, ast.LShift: OpKind.Shl, ast.RShift: OpKind.Shr}
        kind = simple.get(type(op))
        if kind is not None:
            return Scalar(self.b.binary(kind, x, y), dtype, weak)
        if isinstance(op, ast.FloorDiv):
            return Scalar(self.floordiv(dtype, x, y), dtype, weak)
        if isinstance(op, ast.Mod):
            return Scalar(self.floormod(dtype, x, y), dtype, weak)
        self.fail(node, f"operator {type(op).__name__} is not supported in kernels")

    def fold(self, node, op, a, b):
        import operator as o
        fns = {ast.Add: o.add, ast.Sub: o.sub, ast.Mult: o.mul, ast.Div: o.truediv,
               ast.FloorDiv: o.floordiv, ast.Mod: o.mod, ast.Pow: o.pow, ast.BitAnd: o.and_,
               ast.BitOr: o.or_, ast.BitXor: o.xor, ast.LShift: o.lshift, ast.RShift: o.rshift}
        fn = fns.get(type(op))
        if fn is None:
            self.fail(node, f"operator {type(op).__name__} is not supported in kernels")
        try:
            return self.from_python(node, fn(a.py, b.py))
        except (ZeroDivisionError, OverflowError, ValueError) as exc:
            self.fail(node, f"constant expression fails: {exc}")

    def floordiv(self, dtype, x, y):
        OpKind, P = self.core.OpKind, self.core.CmpPredicate
        if dtype.kind == "f":
            q = self.b.binary(OpKind.Div, x, y)
            return self.b.math(self.core.MathFn.Floor, [q])
        q = self.b.binary(OpKind.Div, x, y)
        if dtype.kind == "u":
            return q
        # Python rounds toward -inf: subtract one when the remainder is non-zero and the
        # operands have opposite signs.
        r = self.b.binary(OpKind.Rem, x, y)
        zero = self.const(dtype, 0)
        nonzero = self.b.cmp(P.Ne, r, zero)
        signs_differ = self.b.cmp(P.Lt, self.b.binary(OpKind.Xor, r, y), zero)
        adjust = self.b.binary(OpKind.And, nonzero, signs_differ)
        return self.b.select(adjust, self.b.binary(OpKind.Sub, q, self.const(dtype, 1)), q)

    def floormod(self, dtype, x, y):
        OpKind, P = self.core.OpKind, self.core.CmpPredicate
        r = self.b.binary(OpKind.Rem, x, y)
        if dtype.kind == "u":
            return r
        zero = self.const(dtype, 0)
        nonzero = self.b.cmp(P.Ne, r, zero)
        if dtype.kind == "f":
            signs_differ = self.b.binary(OpKind.Xor, self.b.cmp(P.Lt, r, zero),
                                         self.b.cmp(P.Lt, y, zero))
        else:
            signs_differ = self.b.cmp(P.Lt, self.b.binary(OpKind.Xor, r, y), zero)
        adjust = self.b.binary(OpKind.And, nonzero, signs_differ)
        return self.b.select(adjust, self.b.binary(OpKind.Add, r, y), r)

    def power(self, node, a, b):
        dtype, weak = T.promote(a.dtype, a.weak, b.dtype, b.weak)
        if dtype.kind in "iu":
            if b.is_literal and isinstance(b.py, int) and 0 <= b.py <= 64:
                # Exponentiation by squaring, unrolled.
                result, base, e = None, self.coerce(node, a, dtype), b.py
                mul = self.core.OpKind.Mul
                while e:
                    if e & 1:
                        result = base if result is None else self.b.binary(mul, result, base)
                    e >>= 1
                    if e:
                        base = self.b.binary(mul, base, base)
                return Scalar(result if result is not None else self.const(dtype, 1), dtype, weak)
            if b.is_literal and b.py < 0:
                dtype = T.F64
            else:
                # Integer power with a run-time exponent: computed in float64, then truncated.
                fa, fb = self.coerce(node, a, T.F64), self.coerce(node, b, T.F64)
                p = self.b.math(self.core.MathFn.Pow, [fa, fb])
                return Scalar(self.b.cast(p, T.ir_scalar(dtype)), dtype, weak)
        if b.is_literal and b.py == 2:
            x = self.coerce(node, a, dtype)
            return Scalar(self.b.binary(self.core.OpKind.Mul, x, x), dtype, weak)
        x, y = self.coerce(node, a, dtype), self.coerce(node, b, dtype)
        return Scalar(self.b.math(self.core.MathFn.Pow, [x, y]), dtype, weak)

    def e_unaryop(self, node):
        v = self.expr(node.operand)
        if not isinstance(v, Scalar):
            self.type_fail(node, f"unary operator on {self.describe(v)}")
        if isinstance(node.op, ast.Not):
            s = self.static_truth(v)
            if s is not None:
                return Scalar(None, T.BOOL, True, not s)
            return Scalar(self.b.unary(self.core.OpKind.Not, self.to_bool(node, v).ir), T.BOOL)
        if isinstance(node.op, ast.UAdd):
            return v
        if v.is_literal:
            return self.from_python(node, -v.py if isinstance(node.op, ast.USub) else ~v.py)
        dtype = T.arith_dtype(v.dtype)
        x = self.coerce(node, v, dtype)
        if isinstance(node.op, ast.USub):
            return Scalar(self.b.unary(self.core.OpKind.Neg, x), dtype, v.weak)
        if dtype.kind not in "iu":
            self.type_fail(node, "~ needs an integer operand")
        return Scalar(self.b.unary(self.core.OpKind.Not, x), dtype, v.weak)

    def e_compare(self, node):
        left = self.expr(node.left)
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            c = self.compare(node, op, left, right)
            if result is None:
                result = c
            else:
                result = Scalar(self.b.binary(self.core.OpKind.And, self.coerce(node, result, T.BOOL),
                                              self.coerce(node, c, T.BOOL)), T.BOOL)
            left = right
        return result

    def compare(self, node, op, a, b):
        P = self.core.CmpPredicate
        preds = {ast.Eq: P.Eq, ast.NotEq: P.Ne, ast.Lt: P.Lt, ast.LtE: P.Le, ast.Gt: P.Gt,
                 ast.GtE: P.Ge}
        pred = preds.get(type(op))
        if pred is None:
            self.fail(node, f"comparison {type(op).__name__} is not supported in kernels",
                      hint="use ==, !=, <, <=, >, >=")
        if not isinstance(a, Scalar) or not isinstance(b, Scalar):
            self.type_fail(node, f"cannot compare {self.describe(a)} and {self.describe(b)}")
        if a.is_literal and b.is_literal and a.weak and b.weak:
            import operator as o
            fn = {ast.Eq: o.eq, ast.NotEq: o.ne, ast.Lt: o.lt, ast.LtE: o.le, ast.Gt: o.gt,
                  ast.GtE: o.ge}[type(op)]
            return Scalar(None, T.BOOL, True, bool(fn(a.py, b.py)))
        if T.is_bool(a.dtype) and T.is_bool(b.dtype):
            dtype = T.BOOL
        else:
            dtype, _ = T.promote(a.dtype, a.weak, b.dtype, b.weak)
        return Scalar(self.b.cmp(pred, self.coerce(node, a, dtype), self.coerce(node, b, dtype)),
                      T.BOOL)

    def _is_safe(self, node):
        """Whether evaluating `node` can neither fault nor have effects (so both sides of
        and/or/if-else may be evaluated eagerly)."""
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Call, ast.Subscript, ast.NamedExpr)):
                return False
            if isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Div, ast.FloorDiv,
                                                                  ast.Mod)):
                return False
        return True

    def e_boolop(self, node):
        is_and = isinstance(node.op, ast.And)
        first = self.expr(node.values[0])
        static = self.static_truth(first)
        if static is not None:
            if static != is_and:  # True or ..., False and ...
                return Scalar(None, T.BOOL, True, static)
            if len(node.values) == 2:
                return self.to_bool(node, self.expr(node.values[1]))
            return self.e_boolop(ast.BoolOp(op=node.op, values=node.values[1:]))
        result = self.to_bool(node, first)
        rest = node.values[1:]
        if all(self._is_safe(v) for v in rest):
            kind = self.core.OpKind.And if is_and else self.core.OpKind.Or
            for v in rest:
                result = Scalar(self.b.binary(kind, result.ir,
                                              self.to_bool(v, self.expr(v)).ir), T.BOOL)
            return result
        # Short-circuit through a temporary: `a and b` evaluates b only when a is true.
        temp = f"$bool{node.lineno}_{node.col_offset}"
        self.assign_name(node, temp, result)
        rhs = (ast.BoolOp(op=node.op, values=rest) if len(rest) > 1 else rest[0])
        cond = result if is_and else Scalar(self.b.unary(self.core.OpKind.Not, result.ir), T.BOOL)
        op = self.b.create_if(cond.ir)
        block = self.b.insertion_block
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.then_block(op))
            self.assign_name(node, temp, self.to_bool(node, self.expr(rhs)))
        self.b.set_insertion_point(block)
        return self.load_slot(node, temp) if temp in self.slots else result

    def e_ifexp(self, node):
        cond = self.expr(node.test)
        static = self.static_truth(cond)
        if static is not None:
            return self.expr(node.body if static else node.orelse)
        cond = self.to_bool(node.test, cond)
        if self._is_safe(node.body) and self._is_safe(node.orelse):
            a, b = self.expr(node.body), self.expr(node.orelse)
            if not isinstance(a, Scalar) or not isinstance(b, Scalar):
                self.type_fail(node, "conditional expressions must give numbers")
            if T.is_bool(a.dtype) and T.is_bool(b.dtype):
                dtype, weak = T.BOOL, a.weak and b.weak
            else:
                dtype, weak = T.promote(a.dtype, a.weak, b.dtype, b.weak)
            return Scalar(self.b.select(cond.ir, self.coerce(node, a, dtype),
                                        self.coerce(node, b, dtype)), dtype, weak)
        temp = f"$ifexp{node.lineno}_{node.col_offset}"
        op = self.b.create_if(cond.ir)
        block = self.b.insertion_block
        with self._nested():
            self.b.set_insertion_point(self.core.Builder.then_block(op))
            self.assign_name(node, temp, self.expr(node.body))
            self.b.set_insertion_point(self.core.Builder.else_block(op))
            self.assign_name(node, temp, self.expr(node.orelse))
        self.b.set_insertion_point(block)
        if temp not in self.slots:
            self.retry = True
            return Scalar(None, T.I64, True, 0)
        return self.load_slot(node, temp)

    # ---- calls ----------------------------------------------------------------------------

    def e_call(self, node):
        callee = self.expr(node.func)
        args = [self.expr(a) for a in node.args]
        if any(isinstance(a, ast.Starred) for a in node.args):
            self.fail(node, "*args in calls is not supported in kernels")
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                self.fail(node, "**kwargs in calls is not supported in kernels")
            kwargs[kw.arg] = self.expr(kw.value)
        if isinstance(callee, BoundMethod):
            if isinstance(callee.obj, IndexSpace):
                return self.index_method(node, callee.obj, callee.name, args, kwargs)
            if isinstance(callee.obj, Atomic):
                return self.atomic_method(node, callee.obj, callee.name, args, kwargs)
        if isinstance(callee, Const):
            return self.call_object(node, callee.obj, args, kwargs)
        self.fail(node, f"{self.describe(callee)} is not callable in kernels")

    def call_object(self, node, obj, args, kwargs):
        from ..dispatcher import DeviceFunction, KernelDispatcher
        if isinstance(obj, DeviceFunction):
            return self.ctx.call_device_function(self, node, obj, args, kwargs)
        if isinstance(obj, KernelDispatcher):
            self.fail(node, "a kernel cannot call another kernel",
                      hint="decorate the helper with @dpk.device_func")
        if obj is builtins.range:
            self.fail(node, "range() is only supported as the iterable of a for loop")
        if obj in (builtins.min, builtins.max):
            return self.minmax(node, obj is builtins.min, args)
        if obj is builtins.abs:
            return self.math_call(node, MathSpec("Abs", "abs", 1, "abs"), args)
        if obj is builtins.len:
            if len(args) != 1:
                self.fail(node, "len() takes one argument")
            a = args[0]
            if isinstance(a, ViewArray):
                return Scalar(self.b.view_dim(a.ir, 0), T.I64)
            if isinstance(a, PointerArray):
                return Scalar(None, T.I64, True, a.shape[0])
            if isinstance(a, TupleValue):
                return Scalar(None, T.I64, True, len(a.items))
            self.type_fail(node, f"len() of {self.describe(a)}")
        if obj in (builtins.int, builtins.float, builtins.bool):
            target = {builtins.int: T.I64, builtins.float: T.F64, builtins.bool: T.BOOL}[obj]
            return self.convert(node, target, args, kwargs)
        dtype = _dtype_of_class(obj)
        if dtype is not None:
            if not T.supported_dtype(dtype):
                self.type_fail(node, f"dtype {dtype} is not supported in kernels")
            return self.convert(node, dtype, args, kwargs)
        spec = MATH_FUNCTIONS.get(_hashable(obj))
        if spec is not None:
            return self.math_call(node, spec, args)
        if obj is AtomicRef:
            return self.make_atomic(node, args, kwargs)
        if obj is PrivateArray:
            return self.make_private_array(node, args, kwargs)
        if obj is group_barrier:
            return self.barrier(node, args, kwargs)
        if obj is atomic_fence:
            return self.fence(node, args, kwargs)
        if obj is LocalAccessor:
            self.fail(node, "LocalAccessor cannot be created inside a kernel",
                      hint="create it on the host and pass it as an argument of an NdRange "
                           "launch")
        name = getattr(obj, "__qualname__", None) or repr(obj)
        self.fail(node, f"calling {name} is not supported in kernels",
                  hint="kernels can call @dpk.device_func functions, math.* and numpy math "
                       "functions, min/max/abs, int/float/bool and dtype constructors, and the "
                       "kernel_api functions")

    def convert(self, node, dtype, args, kwargs):
        if len(args) != 1 or kwargs:
            self.fail(node, "a type conversion takes exactly one argument")
        v = args[0]
        if not isinstance(v, Scalar):
            self.type_fail(node, f"cannot convert {self.describe(v)} to {dtype}")
        dtype = np.dtype(dtype)
        if v.is_literal:
            py = v.py
            if dtype.kind in "iu":
                py = int(py)
            elif dtype.kind == "f":
                py = float(py)
            else:
                py = bool(py)
            return Scalar(None, dtype, False, py)
        if T.is_float(v.dtype) and dtype.kind in "iu":
            # int(x) truncates toward zero, as Python does; the IR cast does the same.
            pass
        return Scalar(self.coerce(node, v, dtype), dtype)

    def minmax(self, node, is_min, args):
        if len(args) == 1 and isinstance(args[0], TupleValue):
            args = args[0].items
        if len(args) < 2:
            self.fail(node, "min()/max() in kernels take two or more numbers")
        fn = self.core.MathFn.Min if is_min else self.core.MathFn.Max
        result = args[0]
        for other in args[1:]:
            if not isinstance(result, Scalar) or not isinstance(other, Scalar):
                self.type_fail(node, "min()/max() take numbers")
            dtype, weak = T.promote(result.dtype, result.weak, other.dtype, other.weak)
            if result.is_literal and other.is_literal and weak:
                result = Scalar(None, dtype, True, (min if is_min else max)(result.py, other.py))
                continue
            result = Scalar(self.b.math(fn, [self.coerce(node, result, dtype),
                                             self.coerce(node, other, dtype)]), dtype, weak)
        return result

    def math_call(self, node, spec, args):
        MathFn = self.core.MathFn
        fn = getattr(MathFn, spec.fn) if spec.fn else None
        arity = spec.arity
        if spec.kind == "log_base" and len(args) == 2:
            num = self.math_call(node, MathSpec("Log", "float"), args[:1])
            den = self.math_call(node, MathSpec("Log", "float"), args[1:])
            return self.binop(node, ast.Div(), num, den)
        if len(args) != arity:
            self.fail(node, f"{spec.name or spec.fn.lower()}() takes {arity} argument(s)")
        for a in args:
            if not isinstance(a, Scalar):
                self.type_fail(node, f"math functions take numbers, not {self.describe(a)}")
        if spec.kind == "abs":
            a = args[0]
            dtype = T.arith_dtype(a.dtype)
            if a.is_literal:
                return Scalar(None, dtype, a.weak, abs(a.py))
            x = self.coerce(node, a, dtype)
            return Scalar(self.b.math(MathFn.Abs if dtype.kind in "iu" else MathFn.Fabs, [x]),
                          dtype, a.weak)
        if spec.kind == "minmax":
            return self.minmax(node, spec.fn == "Min", args)
        # Float functions: integers compute in float64; a weak float adopts a strong float.
        dtype = None
        for a in args[:1] if spec.kind == "ldexp" else args:
            d = np.dtype(T.arith_dtype(a.dtype))
            d = d if d.kind == "f" and not a.weak else None
            if d is not None:
                dtype = d if dtype is None else np.promote_types(dtype, d)
        dtype = dtype or T.F64
        if spec.kind == "ldexp":
            x = self.coerce(node, args[0], dtype)
            e = self.coerce(node, args[1], T.I32)
            return Scalar(self.b.math(fn, [x, e]), dtype)
        xs = [self.coerce(node, a, dtype) for a in args]
        r = self.b.math(fn, xs)
        if spec.kind == "bool":
            return Scalar(r, T.BOOL)
        if spec.kind == "int_result":
            return Scalar(self.b.cast(r, T.ir_scalar(T.I64)), T.I64)
        return Scalar(r, dtype)

    # ---- helpers ------------------------------------------------------------------------------

    def describe(self, value):
        if isinstance(value, Scalar):
            return f"a {np.dtype(value.dtype).name} number"
        if isinstance(value, ViewArray):
            return f"a {value.ndim}-D {value.dtype.name} array"
        if isinstance(value, PointerArray):
            return f"a {value.space} {value.dtype.name} array of shape {value.shape}"
        if isinstance(value, TupleValue):
            return "a tuple"
        if isinstance(value, IndexSpace):
            return {"item": "an Item", "nditem": "an NdItem", "group": "a Group"}[value.kind]
        if isinstance(value, Atomic):
            return "an AtomicRef"
        if isinstance(value, Const):
            obj = value.obj
            if isinstance(obj, pytypes.ModuleType):
                return f"module {obj.__name__}"
            return getattr(obj, "__qualname__", None) or type(obj).__name__
        return type(value).__name__


def _hashable(obj):
    try:
        hash(obj)
    except TypeError:
        return None
    return obj


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

__all__ = ["FunctionGen", "FunctionSource", "MAX_PASSES"]
