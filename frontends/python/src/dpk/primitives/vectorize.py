"""``@dpk.vectorize``: a scalar Python function applied elementwise as a ufunc-like object.

The function is compiled by the kernel compiler as a device function (so it takes what kernels
take: math, conditionals, loops, calls of other device functions) and becomes an *inner node of
the array layer's expression graph* (fusion.EXTERNAL_OPS): on dpk arrays ``f(a, b) * 2 + c``
and ``dpk.sum(f(a, b))`` are one kernel each, like any elementwise function of the namespace.
The node's emitter compiles the function into the generated kernel's module and calls it
there; the kernel cache keys it by the function and the signature chosen.

Dispatch follows NumPy's ufuncs: with a list of signatures, the first whose inputs every
argument casts to safely (``numpy.can_cast(..., "safe")``; Python scalars are weak, NEP 50:
an int fits an integer or floating signature whose type holds it, a float a floating one) is
used, and the inputs are converted to it. Without signatures (the lazy form) each new tuple of
input dtypes compiles a specialization, whose result dtype the compiler infers.

Where it runs: compute follows data. dpk arrays run on their device and return dpk arrays
(lazily, fused with what follows); calls with only NumPy arrays and scalars run on the host
device, zero-copy, and return NumPy arrays. ``target=`` names the device instead: "cpu" and
"parallel" are the host device (which uses every core: a one-thread host is not offered), "gpu"
the first GPU the policy offers, any other string a device filter ("opencl:cpu", "cuda:gpu:0");
NumPy inputs are copied there and the result copied back. dpk arrays on another device than
``target`` are a DeviceMismatchError (move them with ``x.to_device``).
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from .._errors import DeviceMismatchError, DTypeError, KernelTypeError
from .._ir import builder as B
from .._ir.types import ir_scalar
from .._ir.values import Scalar
from .._runtime.devices import select_device
from ..arrays import dtypes as D
from ..arrays import fusion
from ..arrays.array_object import Array, asarray
from ..arrays.elementwise_ops import broadcast_shapes, common_device
from ..kernels.compiler.driver import CompileContext
from ..kernels.compiler.source import function_source
from ..kernels.functions import DeviceFunction

_serial = itertools.count()
_SIGNATURE = re.compile(r"^\s*([A-Za-z_][\w]*)\s*\((.*)\)\s*$")


def parse_signature(sig):
    """(result dtype, (input dtypes)) from "float32(float32, int64)" or a (result, inputs)
    pair of dtype-likes."""
    if isinstance(sig, str):
        m = _SIGNATURE.match(sig)
        if m is None:
            raise TypeError(f"vectorize: cannot read the signature {sig!r} (expected e.g. "
                            "'float32(float32, float32)')")
        ret = m.group(1)
        args = [a.strip() for a in m.group(2).split(",") if a.strip()]
    else:
        ret, args = sig
    try:
        return D.normalize(np.dtype(ret)), tuple(D.normalize(np.dtype(a)) for a in args)
    except TypeError as exc:
        raise TypeError(f"vectorize: signature {sig!r}: {exc}") from None


def _ident(name):
    return re.sub(r"\W", "_", name)


class _Specialization:
    """One (input dtypes) of a function: its graph op name and result dtype; the emitter
    compiles the function into a generated kernel's module on first use there."""

    def __init__(self, owner, in_dtypes, out_dtype):
        self.owner = owner
        self.in_dtypes = in_dtypes
        self.op = f"vz_{_ident(owner.__name__)[:24]}_{next(_serial)}"
        if out_dtype is None:
            out_dtype = self._infer_result()
        self.out_dtype = out_dtype
        fusion.EXTERNAL_OPS[self.op] = self.emit

    def _params(self):
        return [Scalar(None, d, False) for d in self.in_dtypes]

    def _infer_result(self):
        ctx = CompileContext()
        source = function_source(self.owner.py_func)
        hints, _ = ctx.converge(source, self.op, self._params(), False)
        ret = hints.get("$return")
        if ret is None:
            raise KernelTypeError(f"vectorize: {self.owner.__name__}() returns no value")
        return D.normalize(np.dtype(ret[0]))

    def emit(self, kb, dtypes, values):
        """The node's IR in the kernel `kb` builds: a call of the function, compiled into
        kb's module once (one CompileContext per kernel keeps the names unique)."""
        ctx = getattr(kb, "_vectorize_context", None)
        if ctx is None:
            ctx = kb._vectorize_context = CompileContext()
            ctx.module = kb.module
            ctx.emitted = {}
        emitted = ctx.emitted.get(self.op)
        if emitted is None:
            source = function_source(self.owner.py_func)
            params = self._params()
            mangled = ctx.unique_name(self.op)
            hints, _ = ctx.converge(source, mangled, params, False)
            ctx.emit(source, mangled, params, False, hints)
            ret = hints.get("$return")
            if ret is None:
                raise KernelTypeError(f"vectorize: {self.owner.__name__}() returns no value")
            emitted = ctx.emitted[self.op] = (mangled, np.dtype(ret[0]))
        mangled, ret_dtype = emitted
        b = kb.b
        args = [B.convert(b, v, d, want) for v, d, want in zip(values, dtypes, self.in_dtypes)]
        value = b.call(mangled, args, ir_scalar(ret_dtype))
        return B.convert(b, value, ret_dtype, self.out_dtype)


class Vectorized:
    """The ufunc-like object ``@dpk.vectorize`` returns."""

    nout = 1

    def __init__(self, py_func, signatures=None, target=None):
        if isinstance(py_func, DeviceFunction):
            py_func = py_func.py_func
        self.py_func = py_func
        self.__name__ = getattr(py_func, "__name__", "ufunc")
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func
        self._explicit = [parse_signature(s) for s in signatures or ()]
        self.nin = len(function_source(py_func).tree.args.args)
        self.target = target
        for ret, args in self._explicit:
            if len(args) != self.nin:
                raise TypeError(f"vectorize: signature {ret}({', '.join(map(str, args))}) has "
                                f"{len(args)} input(s); {self.__name__}() takes {self.nin}")
        self._specs = {}

    def __repr__(self):
        return f"<dpk.vectorize {self.__name__}>"

    @property
    def types(self):
        """The signatures as NumPy's ufunc.types writes them ("ff->f")."""
        sigs = self._explicit or [(s.out_dtype, s.in_dtypes) for s in self._specs.values()]
        return ["".join(d.char for d in args) + "->" + ret.char for ret, args in sigs]

    @property
    def ntypes(self):
        return len(self.types)

    # ---- dispatch -------------------------------------------------------------------------------

    def _select(self, kinds):
        """The specialization for the inputs described by `kinds` (("array", dtype) or
        ("weak", python scalar))."""
        if self._explicit:
            for ret, args in self._explicit:
                if all(_fits(k, want) for k, want in zip(kinds, args)):
                    return self._spec(args, ret)
            got = ", ".join(D.name(k[1]) if k[0] == "array" else type(k[1]).__name__
                            for k in kinds)
            raise DTypeError(f"{self.__name__}(): no signature matches the input types ({got}) "
                             f"under the 'safe' casting rule; signatures: "
                             f"{', '.join(self.types)}")
        dtypes = []
        for k in kinds:
            if k[0] == "array":
                dtypes.append(k[1])
            else:
                dtypes.append(D.scalar_dtype(k[1]))
        return self._spec(tuple(dtypes), None)

    def _spec(self, in_dtypes, out_dtype):
        key = (in_dtypes, out_dtype)
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs[key] = _Specialization(self, in_dtypes, out_dtype)
        return spec

    def __call__(self, *args, out=None):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} argument(s), {len(args)} given")
        dpk_inputs = [a for a in args if isinstance(a, Array)]
        numpy_mode = not dpk_inputs and not isinstance(out, Array)
        target = _target_device(self.target)
        if dpk_inputs or isinstance(out, Array):
            device = common_device(f"{self.__name__}()",
                                   dpk_inputs + ([out] if isinstance(out, Array) else []))
            if target is not None and device is not target:
                raise DeviceMismatchError(
                    f"{self.__name__}(): target is {target.filter_string} but the arrays live on "
                    f"{device.filter_string}; move them with x.to_device(...)")
        else:
            device = target if target is not None else select_device("host")
        kinds, nodes_in = [], []
        for a in args:
            if isinstance(a, Array):
                kinds.append(("array", a.dtype))
                nodes_in.append(a)
            elif D.is_python_scalar(a):
                kinds.append(("weak", a))
                nodes_in.append(a)
            else:
                x = device_input(a, device, f"{self.__name__}()")
                kinds.append(("array", x.dtype))
                nodes_in.append(x)
        spec = self._select(kinds)
        shape = broadcast_shapes(f"{self.__name__}()",
                                 *[x.shape for x in nodes_in if isinstance(x, Array)])
        operands = []
        for x, want in zip(nodes_in, spec.in_dtypes):
            if isinstance(x, Array):
                operands.append(fusion.cast(x._as_node(), want))
            else:
                if want.kind in "iu" and not isinstance(x, bool):
                    D.check_int_range(x, want)
                operands.append(fusion.scalar(x, want, device))
        if not any(o.op != "scalar" for o in operands):
            # scalars only: a 0-D array operand carries the shape
            operands[0] = fusion.cast(asarray(np.asarray(args[0], dtype=spec.in_dtypes[0]),
                                              device=device)._as_node(), spec.in_dtypes[0])
        node = fusion.apply(spec.op, operands, spec.out_dtype, shape)
        if out is not None:
            return self._into(out, node, shape, device, numpy_mode)
        result = Array._lazy(node)
        if numpy_mode:
            host = np.asarray(result.to_device(select_device("host"))
                              if not device.is_host else result)
            return host[()] if host.ndim == 0 else host
        return result

    def _into(self, out, node, shape, device, numpy_mode):
        if isinstance(out, tuple):
            if len(out) != 1:
                raise TypeError(f"{self.__name__}(): out must hold one array")
            out = out[0]
        if isinstance(out, np.ndarray) and numpy_mode:
            if out.shape != shape:
                raise ValueError(f"{self.__name__}(): out has shape {out.shape}, the result "
                                 f"{shape}")
            if device.is_host:
                self._write(asarray(out, device=device, copy=False), node)
            else:
                tmp = Array._lazy(node)
                out[...] = tmp.asnumpy()
            return out
        if not isinstance(out, Array):
            raise TypeError(f"{self.__name__}(): out must be a dpk array for dpk inputs, not "
                            f"{type(out).__name__}")
        if out.shape != shape:
            raise ValueError(f"{self.__name__}(): out has shape {out.shape}, the result {shape}")
        if not np.can_cast(node.dtype, out.dtype, "same_kind"):
            raise DTypeError(f"{self.__name__}(): cannot write {D.name(node.dtype)} results into "
                             f"out of dtype {D.name(out.dtype)} (same_kind casting)")
        self._write(out, node)
        return out

    @staticmethod
    def _write(out, node):
        out._materialize()
        base = out._base
        if any(b is base for b in node.bases):
            node = fusion.result_leaf(node)  # reads out's memory: compute it first
        fusion.flush_readers(base, keep=out)
        if out.size:
            fusion.run(node, base, out._offset, out.shape, out._strides, out.dtype)


def device_input(a, device, what):
    """A NumPy (or NumPy-convertible) input as a dpk array on `device`: the same memory on the
    host device, a copy elsewhere."""
    arr = np.asarray(a)
    if arr.dtype not in D.ALL:
        raise DTypeError(f"{what}: inputs of dtype {arr.dtype} are not supported")
    if device.is_host and arr.ndim:
        return asarray(arr, device=device, copy=False)
    return asarray(np.ascontiguousarray(arr), device=device)


def _fits(kind, want):
    """Whether an input casts to `want` under NumPy's 'safe' rule (Python scalars weak)."""
    if kind[0] == "array":
        return np.can_cast(kind[1], want, "safe")
    value = kind[1]
    if isinstance(value, bool):
        return True
    if isinstance(value, int):
        if want.kind in "iu":
            info = np.iinfo(want)
            return info.min <= value <= info.max
        return want.kind == "f"
    return want.kind == "f"


def _target_device(target):
    if target is None:
        return None
    if target in ("cpu", "parallel"):
        return select_device("host")
    return select_device(target)


def vectorize(signatures=None, target=None, **options):
    """``@dpk.vectorize``, ``@dpk.vectorize(["float32(float32, float32)", ...])`` or
    ``dpk.vectorize(fn)``: a ufunc-like object of a scalar function (module docstring).
    Numba's ``cache``, ``nopython`` and ``fastmath`` options are accepted and ignored (dpk
    caches every kernel and always compiles)."""
    unknown = set(options) - {"cache", "nopython", "fastmath", "identity"}
    if unknown:
        raise TypeError(f"vectorize() got unexpected keyword argument(s) {sorted(unknown)}")
    if callable(signatures) and not isinstance(signatures, (str, list, tuple)):
        return Vectorized(signatures, None, target)
    if isinstance(signatures, str):
        signatures = [signatures]

    def decorate(fn):
        return Vectorized(fn, signatures, target)
    return decorate


__all__ = ["Vectorized", "vectorize"]
