"""``@dpk.guvectorize``: a function over core dimensions, applied over loop dimensions (a
generalized ufunc, NumPy's and Numba's model).

    @dpk.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")
    def dot(a, b, out):
        acc = 0.0
        for k in range(a.shape[0]):
            acc += a[k] * b[k]
        out[0] = acc

    dot(x, y)            # x, y of shape (..., n) -> shape (...)

The layout names each argument's *core* dimensions; the leading dimensions of the inputs beyond
them are *loop* dimensions, broadcast together as NumPy does. The function is compiled as a
device function (everything kernels accept) and called once per loop index by a generated
kernel: ``f(a[i, j], b[i, j], out[i, j])``, each argument a view of its core dimensions (an
input with no core dimension, "()", is passed as a scalar; an output with none as a
one-element array that the function writes at ``[0]``, as in Numba). The kernel runs over the
loop shape (a ``Range``), so loop iterations run in parallel on the device. Kernel arrays have at
most 3 dimensions, loop and core together: where there would be more, the loop dimensions are
flattened into one (which may copy inputs that are not contiguous); core dimensions beyond 2
are not supported.

Signatures: Numba's strings, ``"void(float32[:], int64, float32[:])"`` or the same without
``void``; dispatch picks the first whose inputs every argument casts to safely (NumPy's rule),
and converts the inputs. Without signatures every output takes the inputs' result_type.
Outputs are allocated (or given with ``out=``, a tuple when there are several). Devices:
compute follows data as for ``@dpk.vectorize`` (dpk arrays run on their device and give dpk
arrays; NumPy inputs run on the host device, zero-copy, and give NumPy arrays; ``target=`` names
a device).
"""

from __future__ import annotations

import itertools
import linecache
import re

import numpy as np

from .._errors import DeviceMismatchError, DTypeError, ShapeError
from .._runtime.devices import select_device
from ..arrays import dtypes as D
from ..arrays.array_object import Array, empty
from ..arrays.elementwise_ops import broadcast_shapes, common_device
from ..arrays.data_type_functions import astype
from ..arrays.manipulation_functions import broadcast_to, reshape
from ..kernels.dispatcher import call_kernel, device_func
from ..kernels.dispatcher import kernel as make_kernel
from ..kernels.functions import DeviceFunction
from ..kernels.kapi import Item, Range
from .vectorize import _target_device, device_input

_serial = itertools.count()
_ARG = re.compile(r"^\s*([A-Za-z_]\w*)\s*(\[([:,\s]*)\])?\s*$")
_CORE = re.compile(r"\(([^()]*)\)")
_MAX_VIEW_DIMS = 3  # kernel array parameters have 1 to 3 dimensions (the IR's views)


def parse_layout(layout):
    """[[core dim names] per input], [[...] per output] from "(m,n),(n)->(m)"."""
    if not isinstance(layout, str) or "->" not in layout:
        raise ValueError(f"guvectorize: layout {layout!r} is not of the form '(n),(n)->()'")
    ins, outs = layout.replace(" ", "").split("->", 1)

    def side(text):
        groups = _CORE.findall(text)
        if _CORE.sub("", text).replace(",", ""):
            raise ValueError(f"guvectorize: cannot read {text!r} in the layout {layout!r}")
        return [[d for d in g.split(",") if d] for g in groups]
    inputs, outputs = side(ins), side(outs)
    if not outputs:
        raise ValueError(f"guvectorize: the layout {layout!r} has no output")
    known = {d for dims in inputs for d in dims}
    for dims in outputs:
        for d in dims:
            if d not in known:
                raise ValueError(f"guvectorize: output dimension {d!r} of {layout!r} appears in "
                                 "no input, so its size is unknown")
    return inputs, outputs


def parse_gu_signature(sig):
    """[(dtype, ndim)] of every argument, inputs then outputs, from Numba's string form."""
    text = sig.strip()
    if text.startswith("void"):
        text = text[4:].strip()
    if not (text.startswith("(") and text.endswith(")")):
        raise TypeError(f"guvectorize: cannot read the signature {sig!r} (expected e.g. "
                        "'void(float32[:], float32[:], float32[:])')")
    args = []
    for part in _split_args(text[1:-1]):
        m = _ARG.match(part)
        if m is None:
            raise TypeError(f"guvectorize: cannot read {part!r} in the signature {sig!r}")
        try:
            dtype = D.normalize(np.dtype(m.group(1)))
        except TypeError as exc:
            raise TypeError(f"guvectorize: signature {sig!r}: {exc}") from None
        args.append((dtype, m.group(3).count(":") if m.group(2) else 0))
    return args


def _split_args(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [p for p in parts + [cur] if p.strip()]


class GUVectorized:
    """The generalized-ufunc object ``@dpk.guvectorize`` returns."""

    def __init__(self, py_func, signatures, layout, target=None):
        if isinstance(py_func, DeviceFunction):
            py_func = py_func.py_func
        self.py_func = py_func
        self.__name__ = getattr(py_func, "__name__", "gufunc")
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func
        self.signature = layout
        self.core_in, self.core_out = parse_layout(layout)
        self.nin, self.nout = len(self.core_in), len(self.core_out)
        self.target = target
        self._device_func = device_func(py_func)
        self._signatures = [parse_gu_signature(s) for s in signatures or ()]
        for sig in self._signatures:
            if len(sig) != self.nin + self.nout:
                raise TypeError(f"guvectorize: a signature of {self.__name__} has {len(sig)} "
                                f"arguments; the layout {layout!r} has {self.nin + self.nout}")
            for k, ((dtype, ndim), dims) in enumerate(zip(sig, self.core_in + self.core_out)):
                # An output without core dimensions is a one-element array (written at [0]).
                scalar_output = k >= self.nin and not dims and ndim == 1
                if ndim and ndim != len(dims) and not scalar_output:
                    raise TypeError(f"guvectorize: a {ndim}-D argument in a signature of "
                                    f"{self.__name__} has {len(dims)} core dimension(s) in "
                                    f"{layout!r}")
        self._kernels = {}

    def __repr__(self):
        return f"<dpk.guvectorize {self.__name__} {self.signature}>"

    # ---- dispatch ----------------------------------------------------------------------------

    def _choose(self, in_dtypes):
        if not self._signatures:
            result = np.result_type(*in_dtypes) if in_dtypes else np.dtype(np.float64)
            return list(in_dtypes), [D.normalize(result)] * self.nout
        for sig in self._signatures:
            ins = [d for d, _ in sig[:self.nin]]
            if all(np.can_cast(have, want, "safe") for have, want in zip(in_dtypes, ins)):
                return ins, [d for d, _ in sig[self.nin:]]
        got = ", ".join(D.name(d) for d in in_dtypes)
        raise DTypeError(f"{self.__name__}(): no signature matches the input types ({got}) under "
                         "the 'safe' casting rule")

    def __call__(self, *args, out=None):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} input(s), {len(args)} given")
        outs = () if out is None else (out if isinstance(out, tuple) else (out,))
        if outs and len(outs) != self.nout:
            raise TypeError(f"{self.__name__}(): out must hold {self.nout} array(s)")
        dpk_arrays = [a for a in list(args) + list(outs) if isinstance(a, Array)]
        numpy_mode = not dpk_arrays
        target = _target_device(self.target)
        if dpk_arrays:
            device = common_device(f"{self.__name__}()", dpk_arrays)
            if target is not None and device is not target:
                raise DeviceMismatchError(
                    f"{self.__name__}(): target is {target.filter_string} but the arrays live "
                    f"on {device.filter_string}; move them with x.to_device(...)")
        else:
            device = target if target is not None else select_device("host")
        inputs = [self._to_device(a, device) for a in args]
        in_dtypes, out_dtypes = self._choose([x.dtype for x in inputs])
        inputs = [x if x.dtype == want else astype(x, want) for x, want in zip(inputs, in_dtypes)]

        sizes, loop_shapes = {}, []
        for i, (x, dims) in enumerate(zip(inputs, self.core_in)):
            if x.ndim < len(dims):
                raise ShapeError(f"{self.__name__}(): input {i} has {x.ndim} dimension(s); the "
                                 f"layout {self.signature!r} gives it {len(dims)} core ones")
            core = x.shape[x.ndim - len(dims):]
            for name, size in zip(dims, core):
                if sizes.setdefault(name, size) != size:
                    raise ShapeError(f"{self.__name__}(): core dimension {name!r} is "
                                     f"{sizes[name]} in one input and {size} in input {i}")
            loop_shapes.append(x.shape[:x.ndim - len(dims)])
        loop = broadcast_shapes(f"{self.__name__}()", *loop_shapes)
        inputs = [broadcast_to(x, loop + x.shape[len(s):]) for x, s in zip(inputs, loop_shapes)]

        results, written = [], []
        for k, (dims, dtype) in enumerate(zip(self.core_out, out_dtypes)):
            shape = loop + tuple(sizes[d] for d in dims)
            if outs:
                given = self._to_device(outs[k], device)
                if given.shape != shape:
                    raise ShapeError(f"{self.__name__}(): out[{k}] has shape {given.shape}, the "
                                     f"result {shape}")
                results.append(given)
            else:
                results.append(empty(shape, dtype=dtype, device=device))
            # Outputs with no core dimension are written at [0] of a one-element core.
            written.append(reshape(results[k], shape + (1,)) if not dims else results[k])
        if all(loop):
            self._launch(loop, inputs, written)
        for k, given in enumerate(outs):
            if isinstance(given, np.ndarray):
                if not (device.is_host and np.shares_memory(np.asarray(results[k]), given)):
                    given[...] = results[k].asnumpy()
                results[k] = given
        if numpy_mode:
            results = [r if isinstance(r, np.ndarray) else np.asarray(r.to_device(
                select_device("host"))) for r in results]
            results = [r[()] if r.ndim == 0 else r for r in results]
        return results[0] if self.nout == 1 else tuple(results)

    def _to_device(self, a, device):
        return a if isinstance(a, Array) else device_input(a, device, f"{self.__name__}()")

    # ---- the generated kernel ----------------------------------------------------------------

    def _launch(self, loop, inputs, outputs):
        rank = len(loop)
        core = max(x.ndim - rank for x in inputs + outputs)
        if core + 1 > _MAX_VIEW_DIMS:
            raise ShapeError(f"{self.__name__}(): an argument has {core} core dimensions; "
                             f"kernels take arrays of at most {_MAX_VIEW_DIMS} dimensions, one "
                             "of which is the loop's")
        if rank == 0 or rank + core > _MAX_VIEW_DIMS:
            # One loop dimension: none becomes (1,); more than kernel arrays can carry are
            # flattened (reshape copies the inputs that are not contiguous enough).
            flat = int(np.prod(loop))
            inputs = [reshape(x, (flat,) + x.shape[rank:]) for x in inputs]
            views = [reshape(y, (flat,) + y.shape[rank:]) for y in outputs]
            call_kernel(self._kernel(1), Range(flat), *inputs, *views)
            for y, v in zip(outputs, views):
                if v._base is not y._base:  # reshape copied: write the results back
                    y[...] = reshape(v, y.shape)
            return
        call_kernel(self._kernel(rank), Range(*loop), *inputs, *outputs)

    def _kernel(self, rank):
        kern = self._kernels.get(rank)
        if kern is None:
            kern = self._kernels[rank] = self._generate(rank)
        return kern

    def _generate(self, rank):
        """The kernel calling the function once per loop index, as Python source compiled by
        the kernel compiler (kept in linecache so that its errors can show the line)."""
        ids = [f"i{d}" for d in range(rank)]
        index = ", ".join(ids)
        names = [f"in{k}" for k in range(self.nin)] + [f"out{k}" for k in range(self.nout)]
        call_args = [f"{name}[{index}]" for name in names]
        body = [f"    {i} = item.get_id({d})" for d, i in enumerate(ids)]
        kname = f"gu_{re.sub(r'[^A-Za-z0-9_]', '_', self.__name__)}_{next(_serial)}"
        lines = [f"def {kname}(item: Item, {', '.join(names)}):", *body,
                 f"    __gu_func({', '.join(call_args)})", ""]
        source = "\n".join(lines)
        filename = f"<dpk.guvectorize {self.__name__} {kname}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        namespace = {"__gu_func": self._device_func, "Item": Item}
        exec(compile(source, filename, "exec"), namespace)
        return make_kernel(namespace[kname])


def guvectorize(signatures=None, layout=None, target=None, **options):
    """``@dpk.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")`` or
    ``@dpk.guvectorize("(n),(n)->()")`` (no signatures: outputs take the inputs' result type).
    Numba's ``cache``, ``nopython``, ``fastmath`` and ``writable_args`` are accepted and
    ignored. See the module docstring."""
    unknown = set(options) - {"cache", "nopython", "fastmath", "writable_args", "identity"}
    if unknown:
        raise TypeError(f"guvectorize() got unexpected keyword argument(s) {sorted(unknown)}")
    if layout is None and isinstance(signatures, str) and "->" in signatures:
        signatures, layout = None, signatures
    if isinstance(signatures, str):
        signatures = [signatures]
    if layout is None:
        raise TypeError("guvectorize() needs a layout such as '(n),(n)->()'")

    def decorate(fn):
        return GUVectorized(fn, signatures, layout, target)
    return decorate


__all__ = ["GUVectorized", "guvectorize"]
