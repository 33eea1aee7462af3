"""The kernel compiler's entry point: a Python function plus argument types -> dpk IR text.

``compile_kernel`` is what the dispatcher calls. It drives codegen.FunctionGen to a fixed point
of variable types for the kernel and for each device-function specialization it calls (see
codegen's docstring), then emits everything into one IR module, verifies it and prints it. Type
rules are in dpk._ir.types; docs/python.md lists what Python is supported.
"""

from __future__ import annotations

import re

import numpy as np

from ... import _core_loader
from ..._errors import CompileError, KernelTypeError
from ..._ir.types import ir_scalar, scalar_kind, supported_dtype
from ..._ir.values import Const, IndexSpace, PointerArray, Scalar, StridedArray, ViewArray
from .codegen import MAX_PASSES, FunctionGen
from .source import function_source


def _ident(name):
    """An IR kernel name for a Python name: the Python name itself when the IR verifier accepts
    it (its rule, ir::kernelNameProblem, is the one asked), else an ASCII C identifier made from
    it that C and OpenCL C do not reserve (a Python function may well be called `kernel`)."""
    problem = _core_loader.core().kernel_name_problem
    if not problem(name):
        return name
    ident = re.sub(r"[^A-Za-z0-9_]", "_", name).lstrip("_") or "kernel_"
    if ident[0].isdigit():
        ident = "k_" + ident
    if problem(ident):  # reserved: no reserved word ends in "_"
        ident += "_"
    return ident


def _describe_key(value):
    """A hashable, readable description of a parameter for specialization keys."""
    if isinstance(value, Scalar):
        return ("s", np.dtype(value.dtype).str, bool(value.weak))
    if isinstance(value, ViewArray):
        return ("v", np.dtype(value.dtype).str, value.ndim)
    if isinstance(value, PointerArray):
        return ("p", np.dtype(value.dtype).str, value.shape, value.space)
    if isinstance(value, StridedArray):
        return ("sv", np.dtype(value.dtype).str, value.ndim, value.space)
    if isinstance(value, IndexSpace):
        return ("x", value.kind, value.ndim)
    if isinstance(value, Const):
        try:
            hash(value.obj)
            return ("c", value.obj)
        except TypeError:
            return ("c", id(value.obj))
    raise TypeError(value)


class _DeviceSpec:
    def __init__(self, mangled, hints, written):
        self.mangled = mangled
        self.hints = hints
        self.written = written  # indices of the array parameters the function may write
        self.emitted = False


class CompileContext:
    """State of one kernel compilation: the final module and device-function specializations."""

    def __init__(self, kind="item", ndim=1):
        self.kind = kind  # the launch: "item" (Range) or "nditem" (NdRange)
        self.ndim = ndim  # the launch's rank, which the OpenCL-style ids need
        self.core = _core_loader.core()
        self.module = self.core.Module()
        self.specs = {}
        self.in_progress = set()
        self.names = set()
        self.externals = set()  # names of the dpk.declare_device functions called

    def unique_name(self, base):
        name, n = _ident(base), 0
        while name in self.names:
            n += 1
            name = f"{_ident(base)}_{n}"
        self.names.add(name)
        return name

    def converge(self, source, mangled, arg_values, is_kernel):
        """(type hints, written): the variable types once they settle, and the indices of the
        array parameters the function may write (its stores, atomics and the writes of the
        device functions it calls)."""
        hints = {}
        for _ in range(MAX_PASSES):
            module = self.core.Module()
            gen = FunctionGen(self, source, mangled, arg_values, is_kernel, hints, module,
                              self.core.Builder(module))
            gen.final = False
            gen.generate()
            if not gen.retry:
                return hints, frozenset(gen.written - {-1})
        raise CompileError(f"the variable types of {source.name}() did not settle after "
                           f"{MAX_PASSES} passes (a dpk bug: please report it)")

    def emit(self, source, mangled, arg_values, is_kernel, hints):
        """Generates the function into the final module; returns the generator."""
        gen = FunctionGen(self, source, mangled, arg_values, is_kernel, dict(hints), self.module,
                          self.core.Builder(self.module))
        gen.final = True
        gen.generate()
        if gen.retry:
            raise CompileError(f"the variable types of {source.name}() changed in the final pass "
                               "(a dpk bug: please report it)")
        return gen

    def call_device_function(self, gen, node, dfunc, args, kwargs):
        if kwargs:
            gen.fail(node, "device functions take positional arguments only")
        params = []
        for a in args:
            if isinstance(a, Scalar):
                dtype = np.dtype(a.dtype)
                params.append(Scalar(None, dtype, a.weak))
            elif isinstance(a, ViewArray):
                # `param` is the position here, so the function's own stores say which of its
                # parameters it writes (spec.written).
                params.append(ViewArray(None, a.dtype, a.ndim, len(params)))
            elif isinstance(a, PointerArray):
                params.append(PointerArray(None, a.dtype, a.shape, a.space))
            elif isinstance(a, StridedArray):
                params.append(StridedArray(None, a.dtype, [None] * a.ndim, [None] * a.ndim,
                                           a.space, len(params)))
            elif isinstance(a, IndexSpace):
                params.append(IndexSpace(a.kind, a.ndim))
            elif isinstance(a, Const):
                params.append(a)
            else:
                gen.fail(node, f"{gen.describe(a)} cannot be passed to a device function")
        source = function_source(dfunc.py_func)
        nparams = len(source.tree.args.args)
        if nparams != len(args):
            gen.fail(node, f"{source.name}() takes {nparams} argument(s), {len(args)} given",
                     cls=KernelTypeError)
        key = (dfunc, tuple(_describe_key(p) for p in params))
        if key in self.in_progress:
            gen.fail(node, f"{source.name}() calls itself: recursion is not supported in kernels")
        spec = self.specs.get(key)
        if spec is None:
            self.in_progress.add(key)
            try:
                mangled = self.unique_name(source.name)
                spec = _DeviceSpec(mangled, *self.converge(source, mangled, params, False))
            finally:
                self.in_progress.discard(key)
            self.specs[key] = spec
        if gen.final and not spec.emitted:
            spec.emitted = True
            self.in_progress.add(key)
            try:
                self.emit(source, spec.mangled, params, False, spec.hints)
            finally:
                self.in_progress.discard(key)
        for position, a in enumerate(args):  # the arrays the function writes are written
            if position in spec.written and isinstance(a, (ViewArray, StridedArray)):
                gen.written.add(a.param)
        ir_args = []
        for a, p in zip(args, params):
            if isinstance(a, Scalar):
                ir_args.append(gen.coerce(node, a, p.dtype))
            elif isinstance(a, (ViewArray, PointerArray)):
                ir_args.append(a.ir)
            elif isinstance(a, StridedArray):
                ir_args.append(a.ir)
                ir_args.extend(gen.coerce(node, v, np.dtype(np.int64))
                               for v in list(a.shape) + list(a.strides))
        ret = spec.hints.get("$return")
        if ret is None:
            gen.b.call(spec.mangled, ir_args, self.core.Type.void())
            return Const(None)
        value = gen.b.call(spec.mangled, ir_args, ir_scalar(ret[0]))
        return Scalar(value, np.dtype(ret[0]), ret[1])


    def call_external(self, gen, node, ext, args, kwargs):
        """A call of a dpk.declare_device function: its `extern func` declaration (made once
        per module) and a call; the definition is linked per device (docs/linking.md)."""
        if kwargs:
            gen.fail(node, f"{ext.name}() takes positional arguments only")
        if len(args) != len(ext.argtypes):
            gen.fail(node, f"{ext.name}() takes {len(ext.argtypes)} argument(s) "
                     f"({ext.signature}), {len(args)} given", cls=KernelTypeError)
        core = self.core
        param_types, ir_args = [], []
        for position, (a, (dtype, is_array)) in enumerate(zip(args, ext.argtypes)):
            if not supported_dtype(dtype):
                gen.type_fail(node, f"{ext.name}(): dtype {dtype} is not supported in kernels")
            if is_array:
                if not isinstance(a, ViewArray):
                    gen.type_fail(node, f"argument {position + 1} of {ext.name}() is a global "
                                  f"array of {dtype} ({ext.signature}), not "
                                  f"{gen.describe(a)}")
                if np.dtype(a.dtype) != dtype:
                    gen.type_fail(node, f"argument {position + 1} of {ext.name}() is an array "
                                  f"of {dtype} ({ext.signature}), not of {np.dtype(a.dtype)}")
                param_types.append(core.Type.pointer(core.AddressSpace.Global,
                                                     scalar_kind(dtype)))
                ir_args.append(gen.b.view_ptr(a.ir))
                gen.written.add(a.param)  # the function may write it
                continue
            if not isinstance(a, Scalar):
                gen.type_fail(node, f"argument {position + 1} of {ext.name}() is {dtype} "
                              f"({ext.signature}), not {gen.describe(a)}")
            param_types.append(ir_scalar(dtype))
            ir_args.append(gen.coerce(node, a, dtype))
        declared = gen.module.lookup(ext.name)
        if declared is None:
            if ext.name in self.names and ext.name not in self.externals:
                gen.fail(node, f"the external function {ext.name}() has the name of a kernel or "
                         "device function of this kernel; rename one of them")
            ret = core.Type.void() if ext.restype is None else ir_scalar(ext.restype)
            gen.b.declare_external(ext.name, param_types, ret)
            self.externals.add(ext.name)
            self.names.add(ext.name)  # no device function gets its name
        elif not declared.is_external:
            gen.fail(node, f"the external function {ext.name}() has the name of a kernel or "
                     "device function of this kernel; rename one of them")
        elif [p.type for p in declared.params] != param_types:
            gen.fail(node, f"two external functions named {ext.name} with different signatures "
                     "are called in one kernel")
        if ext.restype is None:
            gen.b.call(ext.name, ir_args, core.Type.void())
            return Const(None)
        return Scalar(gen.b.call(ext.name, ir_args, ir_scalar(ext.restype)),
                      np.dtype(ext.restype))


def compile_kernel(pyfunc, index_kind, ndim, arg_values, name=None, with_item=True,
                   item_note=None, min_groups_per_cu=0):
    """Compiles `pyfunc` for a launch of `index_kind` ("item" or "nditem") in `ndim` dimensions
    and parameters described by `arg_values` (values.ViewArray / Scalar / PointerArray with no
    IR). `with_item`: the first parameter receives the work-item (kapi style); without it the
    kernel takes only the arguments (OpenCL style). `item_note` says, for error messages, why
    the first parameter was taken as the work-item. `min_groups_per_cu`: the kernel's
    occupancy request (docs/ir.md; 0: none). Returns (ir_text, kernel_name, module,
    written) where `written` is the set of argument indices of arrays the kernel may write."""
    ctx = CompileContext(index_kind, ndim)
    source = function_source(pyfunc)
    nparams = len(source.tree.args.args)
    if nparams != len(arg_values) + (1 if with_item else 0):
        raise KernelTypeError(f"kernel {source.name}() takes {nparams - 1} argument(s) after its "
                              f"item, {len(arg_values)} given")
    values = [IndexSpace(index_kind, ndim, item_note)] if with_item else []
    for i, v in enumerate(arg_values):
        values.append(ViewArray(v.ir, v.dtype, v.ndim, i) if isinstance(v, ViewArray) else v)
    mangled = ctx.unique_name(name or source.name)
    hints, _ = ctx.converge(source, mangled, values, True)
    gen = ctx.emit(source, mangled, values, True, hints)
    if min_groups_per_cu:
        ctx.module.lookup(mangled).min_groups_per_cu = min_groups_per_cu
    text = None
    if getattr(ctx.core, "HAVE_VERIFIER", False):
        ctx.module.verify()
    if getattr(ctx.core, "HAVE_PRINTER", False):
        text = ctx.module.print(locations=True)
    return text, mangled, ctx.module, frozenset(gen.written - {-1})


__all__ = ["compile_kernel", "CompileContext"]
