"""NumPy arguments of a ``@dpk.jit`` function: converted once, at entry, to dpk arrays on the
function's device, so the whole body (regions and the Python between them) runs on dpk arrays
and array expressions between regions are the array layer's fused kernels (through NumPy's
dispatch protocols: ``np.sqrt(a) + b`` on dpk arrays is a dpk expression); at exit the arguments
the function may have written are copied back into the caller's arrays (Numba's semantics:
arguments are mutated in place) and returned dpk arrays become NumPy ones (docs/jit.md, "NumPy
arguments").

- **Device** (``entry_device``): the dpk arrays' device when the call passes any (compute
  follows data), else ``@dpk.jit(device=...)``, else the innermost ``dpk.device_context``, else
  the policy's default; regions use the same rule (execution.py).
- **Host device**: the caller's memory is wrapped zero-copy (a fresh dpk view per call, built
  from a per-array cache of what the wrap needs, so a warm call pays well under a microsecond
  per array); writes land in the caller's array directly, nothing is copied back.
- **Other devices**: one copy in per distinct array (the same array passed twice is one dpk
  array), and one copy back per array the function may write (``may_write``: a conservative
  reading of the source; an argument only read is not copied back). Arrays that overlap another
  argument without being the same array, dtypes dpk arrays cannot hold, float64 on a device
  without fp64, and 0-d arrays stay NumPy (the regions stage them per launch as before).
- **Results** (only when the call passed NumPy arrays and no dpk arrays): a returned argument is
  the caller's own array; other dpk arrays become NumPy arrays (a zero-copy view on the host),
  0-d ones NumPy scalars (as Numba returns ``a.sum()``); tuples, lists and dicts are converted
  element by element.
"""

from __future__ import annotations

import ast
import builtins
import math
import weakref

import numpy as np

from .._ir.types import supported_dtype
from .._runtime import diagnostics
from .._runtime import devices as _devices
from .._runtime.devices import select_device
from ..arrays.array_object import Array, asarray
from ..arrays.memory import Buffer
from . import report

_DEFAULT = []  # [the policy's default device], fixed once the runtime has started
#: Test hook: filter strings of devices to treat as lacking fp64 (the same set is
#: execution.SIMULATED_NO_FP64, where the fallback tests set it).
SIMULATED_NO_FP64 = set()


def default_device(jitfn):
    """``@dpk.jit(device=...)``, else the innermost ``device_context``, else the policy's."""
    if jitfn.device is not None:
        return jitfn.bound_device()
    stack = _devices._context.stack
    if stack:
        return stack[-1]
    if not _DEFAULT:
        _DEFAULT.append(select_device(None))
    return _DEFAULT[0]


# ---- which parameters the function may write ------------------------------------------------

# attributes that give a new value (not a view that could be written later)
_VALUE_ATTRS = {"shape", "dtype", "ndim", "size", "itemsize", "nbytes", "device"}
# attributes that give a view: their use decides
_VIEW_ATTRS = {"T", "mT", "real", "imag"}
# methods whose result is new data and that do not write the array
_READ_METHODS = {"sum", "mean", "min", "max", "prod", "std", "var", "any", "all", "argmin",
                 "argmax", "copy", "astype", "item", "tolist", "dot", "cumsum", "cumprod",
                 "asnumpy", "nonzero", "round", "clip", "conj", "to_device", "__len__"}
_READ_BUILTINS = {"len", "float", "int", "bool", "abs", "min", "max", "sum", "print", "range",
                  "isinstance", "type", "repr", "str", "round", "id", "hash", "complex"}
# NumPy functions that write an argument (besides any function's out=)
_NP_WRITERS = {"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis"}
_NP_NAMES = {"np", "numpy"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _reads_only_call(call, node, fn_globals):
    """Whether passing `node` to `call` (positionally or by keyword) reads it only."""
    for kw in call.keywords:
        if kw.value is node:
            if kw.arg == "out":
                return False
    func = call.func
    if isinstance(func, ast.Name):
        if func.id in _READ_BUILTINS and func.id not in fn_globals:
            return getattr(builtins, func.id, None) is not None
        return False
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id in _NP_NAMES and fn_globals.get(func.value.id) is np:
        target = getattr(np, func.attr, None)
        if target is None or func.attr in _NP_WRITERS:
            return False
        if isinstance(target, np.ufunc):
            # np.add(a, b, c): positions from nin on are outputs
            return all(a is not node for a in call.args[target.nin:])
        return True
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "math" and fn_globals.get("math") is math:
        return True  # scalar functions
    return False


def _read_use(node, parents, fn_globals):
    """Whether the expression `node` (a parameter, or a view derived from it) is only read."""
    parent = parents.get(id(node))
    if parent is None:
        return False
    if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.If, ast.While,
                           ast.Assert, ast.FormattedValue, ast.IfExp)):
        if isinstance(parent, ast.IfExp) and parent.test is not node:
            return _read_use(parent, parents, fn_globals)
        return True
    if isinstance(parent, ast.Subscript):
        if parent.value is not node:
            return True  # an index
        if isinstance(parent.ctx, ast.Load):
            return _read_use(parent, parents, fn_globals)  # an element or a view
        return False
    if isinstance(parent, ast.Attribute):
        if parent.attr in _VALUE_ATTRS:
            return True
        if parent.attr in _VIEW_ATTRS:
            return _read_use(parent, parents, fn_globals)
        grand = parents.get(id(parent))
        return parent.attr in _READ_METHODS and isinstance(grand, ast.Call) \
            and grand.func is parent
    if isinstance(parent, ast.keyword):
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and _reads_only_call(call, node, fn_globals)
    if isinstance(parent, ast.Call):
        return parent.func is not node and _reads_only_call(parent, node, fn_globals)
    if isinstance(parent, (ast.Return, ast.Expr)):
        return True  # returned: the caller gets its own array back
    if isinstance(parent, ast.Tuple) and isinstance(parents.get(id(parent)), ast.Return):
        return True
    return False  # an alias (b = a), an iteration (for row in a), a container, ...


def may_write(src):
    """The parameter names whose arrays the function may write (regions and the Python
    between them); conservative: any use not known to only read counts as a write."""
    tree = src.tree
    args = tree.args
    params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    params += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    parents = {}
    scoped = set()  # names used inside nested scopes (closures may write them)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    for stmt in tree.body:
        for node in ast.walk(stmt):
            if isinstance(node, _SCOPES):
                scoped |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    written = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in params and node.id not in written:
            if isinstance(node.ctx, ast.Load) and not _read_use(node, parents, src.globals):
                written.add(node.id)
            elif isinstance(node.ctx, ast.Store):
                # rebound: y += x[i] in a region updates the array in place (an array
                # reduction), and a name rebound between regions is counted the same way
                written.add(node.id)
    return written | (scoped & set(params))


def used_between_regions(src, regions):
    """The parameter names the function uses outside its regions other than for their shape
    (``a.shape``, ``len(a)``, ...): on the host, NumPy arguments that only regions read or
    write are passed as they are (regions use NumPy memory in place: the same data, without
    the wrap), the others become dpk arrays."""
    tree = src.tree
    args = tree.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    skip = {id(r.node) for r in regions}
    used = set()

    def visit(node, parent):
        if id(node) in skip:
            return
        if isinstance(node, ast.Name) and node.id in params and isinstance(node.ctx, ast.Load):
            shape_only = (isinstance(parent, ast.Attribute) and parent.attr in _VALUE_ATTRS) \
                or (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
                    and parent.func.id == "len" and node in parent.args)
            if not shape_only:
                used.add(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child, node)

    for stmt in tree.body:
        visit(stmt, tree)
    return used


# ---- a call -----------------------------------------------------------------------------------

class _HostWrap:
    """What wrapping one NumPy array zero-copy on the host needs, kept between calls while the
    array lives (the entry goes with it): a call checks that the array still has the same
    shape, strides, dtype and writability and builds a fresh view (a fresh one so that a view
    a call lets escape keeps the array alive like any other)."""

    __slots__ = ("ref", "ptr", "shape", "strides", "dtype", "writeable", "geometry", "state")

    def __init__(self, a, device):
        if any(stride % a.itemsize for stride in a.strides):
            # (asarray(copy=False) would divide the strides: the caller copies instead)
            raise ValueError("strides that are not whole elements")
        self.ref = None
        self.ptr = a.ctypes.data
        self.shape = a.shape
        self.strides = a.strides
        self.dtype = a.dtype
        self.writeable = a.flags.writeable
        view = asarray(a, device=device, copy=False)
        # the view's attributes, launch signature included (_dpk_sig, _dpk_view: cached
        # properties, the same for every view of this memory)
        view._dpk_sig, view._dpk_view  # noqa: B018 (computes and caches them)
        # (an Array keeps its geometry in slots and the cached properties in its __dict__)
        self.geometry = (view._shape, view._dtype, view._device, view._offset, view._strides)
        state = dict(view.__dict__)
        state.pop("_leaf", None)  # a graph leaf names the memory: each view makes its own
        self.state = state

    def view(self, a, device):
        base = Buffer(device, a.nbytes, ptr=self.ptr, owner=a, read_only=not self.writeable)
        out = object.__new__(Array)
        out._shape, out._dtype, out._device, out._offset, out._strides = self.geometry
        out._base = base
        out._node = None
        out.__dict__.update(self.state)
        return out


_host_wraps = {}  # id(ndarray) -> _HostWrap (removed when the array dies)


def _forget(key):
    def drop(_ref):
        _host_wraps.pop(key, None)
    return drop


def _host_view(a, device):
    key = id(a)
    wrap = _host_wraps.get(key)
    if wrap is not None and wrap.ref() is a and a.shape == wrap.shape \
            and a.strides == wrap.strides and a.dtype == wrap.dtype \
            and a.flags.writeable == wrap.writeable:
        return wrap.view(a, device)
    try:
        wrap = _HostWrap(a, device)
    except ValueError:  # strides that are not whole elements: a copy, written back
        return None
    wrap.ref = weakref.ref(a, _forget(key))
    _host_wraps[key] = wrap
    return wrap.view(a, device)


def host_call(jitfn, compiled, args, device, wrap_at):
    """The common case, positional NumPy arguments only and the host device: each array at a
    position `wrap_at` says (a parameter the Python between regions uses) wrapped zero-copy
    (from the wrap cache), the function called, the results converted."""
    new = list(args)
    views = {}
    last = len(wrap_at) - 1
    for pos, a in enumerate(args):
        if type(a) is not np.ndarray or not wrap_at[min(pos, last)]:
            continue
        key = id(a)
        view = views.get(key)
        if view is None:
            wrap = _host_wraps.get(key)
            if wrap is not None and wrap.ref() is a and a.shape == wrap.shape \
                    and a.strides == wrap.strides and a.dtype == wrap.dtype \
                    and a.flags.writeable == wrap.writeable:
                view = wrap.view(a, device)
            elif _convertible(a, device):
                view = _host_view(a, device)
                if view is None:  # strides that are not whole elements: copied, and back
                    return Call(jitfn).run(compiled, args, {})
            if view is None:
                view = a
            views[key] = view
        new[pos] = view
    result = compiled(*new)
    if result is None or type(result) in _PLAIN_RESULTS:
        return result
    return _convert_result(result, views, args)


_PLAIN_RESULTS = {int, float, bool, str, complex, np.float64, np.float32, np.int64, np.int32}


def _convert_result(value, views, args):
    if isinstance(value, Array):
        for a in args:
            if type(a) is np.ndarray and views.get(id(a)) is value:
                return a
        if value.ndim == 0:
            return value.asnumpy()[()]
        return np.asarray(value) if value.device.is_host else value.asnumpy()
    kind = type(value)
    if kind is tuple:
        return tuple([_convert_result(v, views, args) for v in value])
    if kind is list:
        return [_convert_result(v, views, args) for v in value]
    if kind is dict:
        return {k: _convert_result(v, views, args) for k, v in value.items()}
    return value


def _convertible(a, device):
    if a.ndim == 0 or not supported_dtype(a.dtype):
        return False
    if a.dtype == np.float64 and not device.is_host:
        if device.filter_string in SIMULATED_NO_FP64 or not device.has_aspect_fp64:
            return False  # the regions' fallback decides (fp64 on a device without it)
    return True


class Call:
    """One call's conversions: run(compiled, args, kwargs) converts, calls, copies back and
    converts the results."""

    __slots__ = ("jitfn", "device", "by_id", "back", "numpy_out")

    def __init__(self, jitfn):
        self.jitfn = jitfn
        self.by_id = {}      # id(caller's ndarray) -> (ndarray, dpk array)
        self.back = []       # (ndarray, dpk array) to copy back at exit
        self.numpy_out = True

    def _arrays(self, args, kwargs):
        found = [a for a in args if type(a) is np.ndarray]
        found += [a for a in kwargs.values() if type(a) is np.ndarray]
        return found

    def _convert_all(self, jitfn, args, kwargs):
        values = list(args) + list(kwargs.values())
        dpk_devices = [v.device for v in values if isinstance(v, Array)]
        self.numpy_out = not dpk_devices
        device = dpk_devices[0] if dpk_devices else default_device(jitfn)
        self.device = device
        arrays = []
        for a in self._arrays(args, kwargs):
            if id(a) not in self.by_id and _convertible(a, device):
                self.by_id[id(a)] = (a, None)
                arrays.append(a)
        if not device.is_host and len(arrays) > 1:
            # distinct arrays that share memory would become independent copies: stay NumPy
            for i, a in enumerate(arrays):
                for b in arrays[i + 1:]:
                    if np.may_share_memory(a, b):
                        self.by_id.pop(id(a), None)
                        self.by_id.pop(id(b), None)
        written = jitfn._may_write
        names = jitfn._param_names
        keywords = jitfn._keyword_names
        written_ids = set()
        for pos, a in enumerate(args):
            if type(a) is np.ndarray and (pos >= len(names) or names[pos] in written):
                written_ids.add(id(a))
        for key, a in kwargs.items():
            if type(a) is np.ndarray and (key not in keywords or key in written):
                written_ids.add(id(a))
        for key, (a, _) in list(self.by_id.items()):
            if device.is_host:
                view = _host_view(a, device)
                if view is not None:
                    self.by_id[key] = (a, view)
                    continue
            view = asarray(a, device=device)
            self.by_id[key] = (a, view)
            if key in written_ids and a.flags.writeable:
                self.back.append((a, view))

    def _swap(self, value):
        if type(value) is np.ndarray:
            found = self.by_id.get(id(value))
            if found is not None:
                return found[1]
        return value

    def run(self, compiled, args, kwargs):
        jitfn = self.jitfn
        self._convert_all(jitfn, args, kwargs)
        args = tuple([self._swap(a) for a in args])
        if kwargs:
            kwargs = {k: self._swap(v) for k, v in kwargs.items()}
        try:
            result = compiled(*args, **kwargs)
        except BaseException:
            try:
                self._copy_back()
            except Exception:  # the function's own error is the one to see
                pass
            raise
        self._copy_back()
        if report.any_enabled() and not self.device.is_host and diagnostics.enabled(3):
            self._report(args, kwargs)
        if self.numpy_out:
            return self._result(result)
        return result

    def _report(self, args, kwargs):
        """Level 3, a device other than the host: what the conversions at entry and exit
        copied (on the host they copy nothing)."""
        converted = [(a, view) for a, view in self.by_id.values() if view is not None]
        kept = sum(1 for a in list(args) + list(kwargs.values())
                   if type(a) is np.ndarray and id(a) not in self.by_id)
        diagnostics.emit(3, "jit.arguments", {
            "function": self.jitfn.__name__, "device": self.device.filter_string,
            "converted": len(converted),
            "copied_in_bytes": sum(a.nbytes for a, _ in converted),
            "copied_back": len(self.back),
            "copied_back_bytes": sum(a.nbytes for a, _ in self.back), "kept_numpy": kept})

    def _copy_back(self):
        for a, view in self.back:
            a[...] = view.asnumpy()

    def _result(self, value):
        if isinstance(value, Array):
            for a, view in self.by_id.values():
                if view is value:
                    return a
            if value.ndim == 0:
                return value.asnumpy()[()]
            return np.asarray(value) if value.device.is_host else value.asnumpy()
        kind = type(value)
        if kind is tuple:
            return tuple([self._result(v) for v in value])
        if kind is list:
            return [self._result(v) for v in value]
        if kind is dict:
            return {k: self._result(v) for k, v in value.items()}
        return value
