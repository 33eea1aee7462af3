"""``dpk.kernel``, ``dpk.device_func``, ``dpk.call_kernel`` and ``dpk.call_kernel_async``.

A KernelDispatcher owns a C++ Launcher (src/ext/init_launch.cpp). A warm call goes straight to
C++; on a miss (new argument signature, range kind or device) the launcher calls ``_miss``,
which types the arguments, compiles the kernel to IR once per specialization (compute follows
data for the device), creates the dpk program and returns a launch plan:
  - direct: NumPy arrays pass zero-copy to the host device, dpk arrays by their device address;
  - slow: for another device, NumPy arrays are copied to it, the launch runs on dpk arrays,
    and the arrays are copied back (diagnostics level 3 reports the copies); dpk arrays of
    several devices are migrated the same way when the policy says so (placement.py);
  - import: foreign arrays (CuPy, PyTorch, DLPack producers) are imported without copies and
    the launch is made again with them (placement.py).
The IR compiled per specialization is device-independent; the core compiles it per device and
caches the result on disk (DPK_CACHE_DIR), so a second process pays no device compile.

A launcher caches its plans (with their device) per argument signature, so the device of a
``dpk.device_context`` cannot be part of a plan made outside it: each context device gets a
launcher of its own (``_launcher_for``), and ``call_kernel`` picks the one of the current
context, or the dispatcher's own outside any context.

Kernels take the work-item as their first parameter (kapi style) or not (OpenCL style, with
``dpk.get_global_id(d)``); kapi.work_items.takes_item decides per launch from the parameter
count. ``kernel[global, local](args)`` is subscript_launch.py's.
"""

from __future__ import annotations

import functools
import inspect
import operator
import os
import threading
import warnings
import weakref

import numpy as np

from ..arrays import fusion as _fusion
from ..arrays import generated as _generated
from .. import _core_loader
from .._errors import (DpkError, InvalidArgumentError, InvalidRangeError, KernelTypeError,
                       NoDeviceError, PluginLoadError)
from .._ir.types import BOOL, F64, I64, supported_dtype
from .._ir.values import PointerArray, Scalar, ViewArray
from .._runtime import devices as _devices
from .._runtime.devices import select_device
from .._runtime.launch import register_launch_types
from .._runtime.policy import target_device
from ..arrays.array_object import Array, devices_of
from ..arrays.interchange import may_overlap
from . import placement, queue_launch
from .compiler.driver import compile_kernel
from .functions import DeviceFunction, KernelFunction
from .kapi import Item, LocalAccessor, NdItem, NdRange, Range
from .kapi.work_items import (GROUP_NAMES, choose_local_size, implicit_item_note,
                              item_annotation, refers_to, takes_item)
from .subscript_launch import ConfiguredKernel, launch_range

def _register_launch_types(core):
    register_launch_types()  # NdRange derives from the registered NdRangeBase


class _Compiled:
    """One specialization: its IR text and the dpk program/kernel made from it."""

    __slots__ = ("ir", "name", "program", "kernel", "kinds", "written")

    def __init__(self, ir, name, kinds, written, boundscheck=None, link=()):
        self.ir = ir
        self.name = name
        self.kinds = kinds
        self.written = written  # indices of the array arguments the kernel may write
        core = _core_loader.core()
        # boundscheck None: DPK_BOUNDSCHECK, else the policy's `boundscheck:` (the runtime asks)
        # link: files defining its dpk.declare_device functions, read now (docs/linking.md)
        self.program = core.Program.from_ir(ir, name, boundscheck, list(link))
        self.kernel = core.Kernel(self.program, name)


def _link_paths(fn, link):
    """The absolute paths of ``@dpk.kernel(link=[...])`` (relative ones from the current
    directory at decoration), as a tuple."""
    if link is None:
        return ()
    if isinstance(link, (str, bytes, os.PathLike)):
        link = [link]
    paths = []
    for item in link:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"kernel {fn.__name__}(): link takes file paths (str or "
                            f"os.PathLike), not {item!r}")
        paths.append(os.path.abspath(os.fspath(item)))
    return tuple(paths)


def _arg_error(fn, index, arg, why):
    return KernelTypeError(f"argument {index + 1} of kernel {fn.__name__}() "
                           f"({type(arg).__name__}): {why}")


def _write_hazard(arg):
    """Why a kernel must not write `arg` (None when it may): read-only memory, or a view whose
    elements share memory (a write to one would change others)."""
    if isinstance(arg, Array):
        base = arg._base
        if base is not None and base.read_only:
            return ("it is a read-only dpk array (its memory was lent read-only, by a read-only "
                    "DLPack tensor or NumPy array)")
        if arg._strides is not None and may_overlap(arg._shape, arg._strides):
            return (f"its strides {arg.strides} make different elements of its shape "
                    f"{arg.shape} share memory, so a write to one would change others")
        return None
    if isinstance(arg, np.ndarray):
        read_only = None if arg.flags.writeable else "it is read-only (flags.writeable is False)"
        shape, strides, itemsize = arg.shape, arg.strides, arg.itemsize
    else:
        try:
            view = memoryview(arg)
        except TypeError:
            return None
        read_only = None
        if view.readonly:
            read_only = ("it is an immutable bytes object" if isinstance(arg, bytes) else
                         "its buffer is read-only (a read-only mmap, memoryview, ...)")
        shape, strides, itemsize = view.shape, view.strides, view.itemsize
    overlap = may_overlap(shape, strides, itemsize)
    reasons = []
    if read_only:
        reasons.append(read_only)
    if overlap:
        reasons.append(f"its strides {tuple(strides)} (bytes) make different elements of its "
                       f"shape {tuple(shape)} share memory (as np.broadcast_to and as_strided "
                       "views do), so a write to one would change others")
    return " and ".join(reasons) or None


class _ContextMiss:
    """The miss handler of a context device's launcher: the dispatcher's ``_miss`` with that
    device, held weakly (the dispatcher owns the launcher)."""

    __slots__ = ("_ref", "_device")

    def __init__(self, dispatcher, device):
        self._ref = weakref.ref(dispatcher)
        self._device = device

    def __call__(self):
        dispatcher = self._ref()
        if dispatcher is None:
            return None
        return functools.partial(dispatcher._miss, context_device=self._device)


_ACCESS_MODES = ("read_only", "write_only", "read_write")


def _access_table(fn, access_types):
    """{parameter name: mode} from numba-dppy's ``access_types`` ({mode: [names]})."""
    if not access_types:
        return {}
    if not isinstance(access_types, dict):
        raise TypeError("access_types must be a dict such as {'read_only': ['a'], "
                        "'write_only': ['c']}")
    params = set(inspect.signature(fn).parameters)
    table = {}
    for mode, names in access_types.items():
        if mode not in _ACCESS_MODES:
            warnings.warn(f"kernel {fn.__name__}(): '{mode}' is not an access type (use "
                          f"{', '.join(_ACCESS_MODES)}); its arrays are copied both ways",
                          stacklevel=3)
            continue
        for name in ([names] if isinstance(names, str) else names):
            if name not in params:
                warnings.warn(f"kernel {fn.__name__}() has no parameter '{name}' (named in "
                              f"access_types['{mode}'])", stacklevel=3)
            table[name] = mode
    return table


class KernelDispatcher(KernelFunction):
    """A kernel: a Python function compiled per argument signature and launched by
    ``call_kernel`` or ``kernel[global_size, local_size](args)``. Calling it directly runs
    nothing (as in numba-dpex)."""

    def __init__(self, fn, signatures=None, device=None, access_types=None, boundscheck=None,
                 link=None, min_groups_per_cu=0):
        functools.update_wrapper(self, fn)
        self.py_func = fn
        if boundscheck is not None and not isinstance(boundscheck, bool):
            raise TypeError(f"kernel {fn.__name__}(): boundscheck must be True, False or None, "
                            f"not {boundscheck!r}")
        self.boundscheck = boundscheck
        most = _core_loader.core().MAX_GROUPS_PER_COMPUTE_UNIT  # the IR's bound
        if (isinstance(min_groups_per_cu, bool) or not isinstance(min_groups_per_cu, int)
                or not 0 <= min_groups_per_cu <= most):
            raise TypeError(f"kernel {fn.__name__}(): min_groups_per_cu must be an int from 0 "
                            f"to {most}, not {min_groups_per_cu!r}")
        self.min_groups_per_cu = min_groups_per_cu
        self.link = _link_paths(fn, link)
        self._lock = threading.RLock()
        self._specs = {}
        self._device = device
        self._access = _access_table(fn, access_types)
        self._params = list(inspect.signature(fn).parameters)
        self._needs_groups = None
        self._launchers = {}  # context device -> its Launcher
        self.stats = {"compiles": 0, "specialization_hits": 0, "plans": 0}
        self._launcher = None
        if _core_loader.available():
            self._make_launcher()
        for sig in signatures or ():
            self.compile(sig)

    def _make_launcher(self):
        core = _core_loader.core()
        _register_launch_types(core)
        self._launcher = core.Launcher(weakref.WeakMethod(self._miss))
        return self._launcher

    def _launcher_for(self, device):
        """The launcher of launches made while `device` is the current device (None: outside
        any device_context)."""
        if device is None:
            return self._launcher or self._make_launcher()
        launcher = self._launchers.get(device)
        if launcher is None:
            with self._lock:
                launcher = self._launchers.get(device)
                if launcher is None:
                    core = _core_loader.core()
                    _register_launch_types(core)
                    launcher = self._launchers[device] = core.Launcher(_ContextMiss(self, device))
        return launcher

    def needs_groups(self):
        """Whether the kernel needs work-groups (local ids, barriers, local memory), so that a
        launch leaving the local size to dpk must still be an NdRange."""
        if self._needs_groups is None:
            self._needs_groups = (item_annotation(self.py_func) is NdItem
                                  or refers_to(self.py_func, GROUP_NAMES))
        return self._needs_groups

    def __getitem__(self, subscript):
        """``kernel[global_size]``, ``kernel[global_size, local_size]``,
        ``kernel[dpk.Range(...)]`` or ``kernel[dpk.NdRange(...)]``: the kernel configured for a
        launch; call the result with the arguments (numba-dppy's syntax)."""
        return ConfiguredKernel(self, launch_range(subscript, self.__name__, self.needs_groups),
                                call_kernel)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"kernel {self.__name__}() is launched with "
                        f"dpk.call_kernel({self.__name__}, range, *args) or "
                        f"{self.__name__}[global_size, local_size](*args)")

    def __repr__(self):
        return f"<dpk.kernel {self.__name__}>"

    # ---- typing ---------------------------------------------------------------------------

    def _index_kind(self, index_range):
        if isinstance(index_range, NdRange):
            kind, ndim = "nditem", index_range.ndim
        elif isinstance(index_range, tuple):
            if not 1 <= len(index_range) <= 3:
                raise InvalidRangeError("a Range has 1 to 3 dimensions")
            for extent in index_range:
                try:
                    operator.index(extent)
                except TypeError:
                    raise KernelTypeError("Range extents must be ints") from None
            kind, ndim = "item", len(index_range)
        else:
            raise KernelTypeError(f"call_kernel expects a Range or an NdRange, got "
                                  f"{type(index_range).__name__}")
        ann = item_annotation(self.py_func)
        if ann is NdItem and kind == "item":
            raise KernelTypeError(f"kernel {self.__name__}() takes an NdItem: launch it with "
                                  "an NdRange, not a Range")
        if ann is Item and kind == "nditem":
            raise KernelTypeError(f"kernel {self.__name__}() takes an Item: launch it with a "
                                  "Range, not an NdRange")
        return kind, ndim

    def _type_args(self, args, kind):
        """(compile-time values, packing kinds, key) of the arguments."""
        values, kinds, key = [], [], []
        for i, a in enumerate(args):
            if isinstance(a, bool):
                values.append(Scalar(None, BOOL, False)); kinds.append("b"); key.append("b")
            elif isinstance(a, int):
                if not -(1 << 63) <= a < (1 << 63):
                    raise _arg_error(self.py_func, i, a, "integer does not fit in int64")
                values.append(Scalar(None, I64, True)); kinds.append("i"); key.append("i")
            elif isinstance(a, float):
                values.append(Scalar(None, F64, True)); kinds.append("f"); key.append("f")
            elif isinstance(a, np.generic) or (isinstance(a, np.ndarray) and a.ndim == 0):
                if not supported_dtype(a.dtype):
                    raise _arg_error(self.py_func, i, a, f"dtype {a.dtype} is not supported")
                values.append(Scalar(None, a.dtype, False)); kinds.append("S")
                key.append(("s", a.dtype.str))
            elif isinstance(a, Array):
                if not supported_dtype(a.dtype):  # complex: the kernel IR has real scalars only
                    raise _arg_error(self.py_func, i, a, f"dtype {a.dtype} is not supported in "
                                     "kernels (complex arrays work in the array namespace; pass "
                                     "a kernel their real and imaginary parts as real arrays)")
                values.append(ViewArray(None, a.dtype, a.ndim)); kinds.append("D")
                key.append(("v", a.dtype.str, a.ndim))
            elif isinstance(a, LocalAccessor):
                if kind != "nditem":
                    raise KernelTypeError(f"kernel {self.__name__}(): LocalAccessor arguments "
                                          "need an NdRange launch (local memory belongs to "
                                          "work-groups), not a Range")
                values.append(PointerArray(None, a.dtype, a.shape, "local")); kinds.append("-")
                key.append(("l", a.dtype.str, a.shape))
            else:
                try:
                    view = memoryview(a) if not isinstance(a, np.ndarray) else None
                except TypeError:
                    view = None
                    if hasattr(a, "__cuda_array_interface__") or hasattr(a, "__dlpack__"):
                        raise _arg_error(self.py_func, i, a, "foreign device arrays must be "
                                         "imported first: dpk.asarray(x, device=...)") from None
                    raise _arg_error(self.py_func, i, a, "kernels take NumPy or dpk arrays, "
                                     "Python or NumPy numbers, and LocalAccessor") from None
                arr = a if view is None else np.asarray(view)
                if not 1 <= arr.ndim <= 3:
                    raise _arg_error(self.py_func, i, a, f"arrays must have 1 to 3 dimensions, "
                                     f"not {arr.ndim}")
                if not supported_dtype(arr.dtype):
                    raise _arg_error(self.py_func, i, a, f"dtype {arr.dtype} is not supported")
                if any(s % arr.itemsize for s in arr.strides):
                    raise _arg_error(self.py_func, i, a, "strides are not a multiple of the "
                                     "element size")
                values.append(ViewArray(None, arr.dtype, arr.ndim)); kinds.append("V")
                key.append(("v", arr.dtype.str, arr.ndim))
        return values, "".join(kinds), tuple(key)

    def _specialize(self, kind, ndim, values, kinds, key):
        spec_key = (kind, ndim, key)
        compiled = self._specs.get(spec_key)
        if compiled is not None:
            self.stats["specialization_hits"] += 1
            return compiled
        with self._lock:
            compiled = self._specs.get(spec_key)
            if compiled is None:
                with_item = takes_item(self.py_func, len(values))
                note = implicit_item_note(self.py_func, len(values)) if with_item else None
                text, name, _, written = compile_kernel(
                    self.py_func, kind, ndim, values, with_item=with_item, item_note=note,
                    min_groups_per_cu=self.min_groups_per_cu)
                compiled = _Compiled(text, name, kinds, written, self.boundscheck, self.link)
                self._specs[spec_key] = compiled
                self.stats["compiles"] += 1
        return compiled

    def compile(self, signature):
        """Compiles one specialization ahead of the first launch (eager specialization).

        ``signature`` is ``(range, arg1, arg2, ...)`` where ``range`` is a Range or NdRange
        (its extents are ignored, only its kind and rank matter) and each argument is an
        example value, or ``dpk.array_type(dtype, ndim)`` for an array, or a NumPy scalar type
        or ``int``/``float``/``bool`` for a scalar.
        """
        index_range, *examples = signature
        args = [_example_value(e) for e in examples]
        kind, ndim = self._index_kind(index_range)
        values, kinds, key = self._type_args(args, kind)
        return self._specialize(kind, ndim, values, kinds, key)

    def inspect_ir(self, index_range, *args):
        """The dpk IR text this kernel compiles to for a launch like the given one."""
        kind, ndim = self._index_kind(index_range)
        values, kinds, key = self._type_args(args, kind)
        return self._specialize(kind, ndim, values, kinds, key).ir

    # ---- the launch miss handler --------------------------------------------------------------

    def _access_modes(self, nargs):
        """The access type of each argument (None where none was given)."""
        if not self._access:
            return None
        offset = 1 if takes_item(self.py_func, nargs) else 0
        names = self._params[offset:offset + nargs]
        return tuple(self._access.get(n) for n in names)

    def _check_writes(self, args, written):
        """InvalidArgumentError, before anything runs, for an argument the kernel writes that
        must not be written (read-only memory, overlapping elements): on the host the write
        would land in it, elsewhere it would be silently dropped."""
        for i in sorted(written):
            if i >= len(args):
                continue
            why = _write_hazard(args[i])
            if why is None:
                continue
            offset = 1 if takes_item(self.py_func, len(args)) else 0
            names = self._params[offset:]
            name = f" ('{names[i]}')" if i < len(names) else ""
            raise InvalidArgumentError(
                f"kernel {self.__name__}(): argument {i + 1}{name} is written by the kernel, "
                f"but {why}; pass a writable array that owns its elements (e.g. np.array(x))")

    def _launch_on(self, device, index_range, args):
        """Launches on the host `device` exactly, with no placement decision: the host fallback
        of a launch whose data could not be staged on its own device (placement.py)."""
        kind, ndim = self._index_kind(index_range)
        values, kinds, key = self._type_args(args, kind)
        plan = (self._specialize(kind, ndim, values, kinds, key).kernel, device.queue, kinds)
        launcher = _core_loader.core().Launcher(lambda: lambda _range, _args: plan)
        if _fusion._pending_refs:  # lazy results reading memory the kernel may write
            _fusion.flush_arguments(args)
        launcher.call(index_range, tuple(args), None, False)

    def _bound_device(self):
        """The device of ``@dpk.kernel(device=...)``. When no device matches, the policy's
        fallback decides where the work runs (the host, with its warning), as for a launch."""
        try:
            return select_device(self._device)
        except (NoDeviceError, PluginLoadError) as exc:
            fallback = _core_loader.core().fallback_device(self.__name__, "", exc.status,
                                                            str(exc))
            return _devices._wrap(fallback)

    def _miss(self, index_range, args, context_device=None):
        if any(placement.is_foreign(a) for a in args):
            # Not cached (the fast path cannot key foreign objects): each launch imports them.
            return ("slow", functools.partial(placement.importing_launch, weakref.proxy(self)))
        kind, ndim = self._index_kind(index_range)
        if kind == "item" and not takes_item(self.py_func, len(args)) and self.needs_groups():
            # An OpenCL-style kernel that needs work-groups, over a plain Range: dpk chooses the
            # local size (as kernel[n, DEFAULT_LOCAL_SIZE] does).
            return ("slow", functools.partial(_grouped_launch, weakref.proxy(self),
                                              context_device))
        values, kinds, key = self._type_args(args, kind)
        compiled = self._specialize(kind, ndim, values, kinds, key)
        self._check_writes(args, compiled.written)
        found = devices_of(args)
        bound = self._bound_device() if self._device is not None else None
        # Misplaced: arrays of several devices, or arrays away from the kernel's bound device.
        migrate = len(found) > 1 or (bound is not None and found and found[0] is not bound)
        if migrate:
            placement.check_placement(found, bound, self.__name__)  # raises unless migrating
            device = target_device(found, bound)
        elif found:
            device = found[0]
        elif bound is not None:
            device = bound
        elif context_device is not None:
            device = context_device
        else:
            # The policy's default (DPK_DEVICE_SELECTOR included), which falls back to the host
            # when nothing matches and the policy allows it.
            device = select_device(None)
        self.stats["plans"] += 1
        if migrate or ("V" in kinds and not device.is_host):
            # weakref.proxy: the plan lives in the launcher, which the dispatcher owns.
            return ("slow", functools.partial(placement.staged_launch, weakref.proxy(self),
                                              device, kinds,
                                              compiled.written, self.__name__,
                                              self._access_modes(len(args))))
        return (compiled.kernel, device.queue, kinds)


def _grouped_launch(dispatcher, context_device, index_range, args, deps, is_async):
    """Launches an OpenCL-style kernel that needs work-groups over an NdRange whose local size
    dpk chooses for the Range it was given."""
    nd_range = NdRange(Range(*index_range), choose_local_size(tuple(index_range)))
    if _fusion._pending_refs:  # lazy results reading memory the kernel may write
        _fusion.flush_arguments(args)
    return dispatcher._launcher_for(context_device).call(nd_range, tuple(args), deps, is_async)


class _ArrayType:
    def __init__(self, dtype, ndim):
        self.dtype, self.ndim = np.dtype(dtype), ndim


def array_type(dtype, ndim):
    """An array argument type for ``kernel(signatures=...)``."""
    return _ArrayType(dtype, ndim)


def _example_value(e):
    if isinstance(e, _ArrayType):
        return np.empty((1,) * e.ndim, dtype=e.dtype)
    if e is int:
        return 0
    if e is float:
        return 0.0
    if e is bool:
        return False
    if isinstance(e, type) and issubclass(e, np.generic):
        return e(0)
    return e


# numba-dpex / numba-dppy kernel options that have no meaning in dpk; accepted so that
# decorators port as is.
_IGNORED_OPTIONS = {"debug", "inline_threshold", "cache", "fastmath", "enable_cache"}
# device_func also accepts Numba's boundscheck; the launching kernel's mode decides.
_IGNORED_DEVICE_OPTIONS = _IGNORED_OPTIONS | {"boundscheck"}


def _is_foreign_signature(sig):
    """A numba signature (a string such as "void(float32[:])" or a numba Signature/type): dpk
    compiles per argument types at the first launch, so these are accepted and not needed."""
    if isinstance(sig, str):
        return True
    return type(sig).__module__.split(".")[0] == "numba"


def _dpk_signatures(sigs):
    """The dpk signatures among a list (tuples starting with a Range or NdRange)."""
    return [s for s in sigs if not _is_foreign_signature(s)]


def kernel(func=None, *, signatures=None, device=None, access_types=None, access_type=None,
           boundscheck=None, link=None, min_groups_per_cu=0, **options):
    """Decorates a kernel: ``@dpk.kernel`` or ``@dpk.kernel(signatures=[...], device=...)``.

    The first parameter receives the work-item (an Item for a Range launch, an NdItem for an
    NdRange launch), unless the kernel has as many parameters as the launch has arguments: then
    it takes no item and uses ``dpk.get_global_id(d)`` and friends (numba-dppy style).
    ``signatures`` compiles specializations eagerly (see KernelDispatcher.compile); numba
    signature strings or objects (``"void(float32[:])"``) are accepted and not needed, as dpk
    compiles per argument types at the first launch. ``device`` pins launches that no dpk array
    places. ``access_types`` (numba-dppy; also spelt ``access_type``), e.g.
    ``{"read_only": ["a", "b"], "write_only": ["c"]}``, lets a launch on a device that cannot
    read host memory skip copying NumPy arrays it will only write there, or only read back.
    ``boundscheck`` (as Numba's): True checks every array index of the kernel and raises
    ``dpk.BoundsError`` (an IndexError) naming the kernel, file:line, array, index and shape
    when one is out of bounds, skipping the access; False compiles no check; None (the default)
    follows ``DPK_BOUNDSCHECK``, else the policy's ``boundscheck:`` key. Bounds-checked launches
    wait for the kernel to finish. ``link`` lists files that define the ``dpk.declare_device``
    functions the kernel calls, linked per device (``.ll``/``.bc`` LLVM IR on the host, SPIR-V
    and CUDA; ``.cl`` OpenCL C on OpenCL; ``.ptx``/``.cu`` on CUDA; docs/linking.md); their
    contents are read when a specialization is first built and join the kernel cache key, and a
    missing symbol, a signature mismatch or a file no device target can use raises
    ``dpk.LinkError``. ``min_groups_per_cu`` (an int, 0 = none) asks that this many
    work-groups fit on one compute unit at once, as CUDA's ``__launch_bounds__(size, N)``:
    where registers are allocated per kernel and the group size is known (CUDA, NdRange
    launches) the compiler keeps the kernel's registers low enough for N groups; elsewhere it
    changes nothing. numba-dpex's ``debug``, ``inline_threshold``, ``cache``,
    ``enable_cache`` and ``fastmath`` options are accepted and ignored (dpk always caches
    compiled kernels on disk).
    """
    unknown = set(options) - _IGNORED_OPTIONS
    if unknown:
        raise TypeError(f"dpk.kernel() got unexpected options: {', '.join(sorted(unknown))}")
    if access_types is not None and access_type is not None:
        raise TypeError("dpk.kernel() takes access_types or access_type, not both")
    access = access_types if access_types is not None else access_type
    sigs = list(signatures or ())
    if func is not None and not callable(func):
        # @dpk.kernel(sig) / @dpk.kernel([sig, ...]): numba signatures or dpk ones.
        sigs += list(func) if isinstance(func, (list, tuple)) and not isinstance(func, str) \
            and not (func and isinstance(func[0], (Range, NdRange))) else [func]
        func = None
    sigs = _dpk_signatures(sigs)
    if func is None:
        return lambda f: KernelDispatcher(f, sigs, device, access, boundscheck, link,
                                          min_groups_per_cu)
    return KernelDispatcher(func, sigs, device, access, boundscheck, link, min_groups_per_cu)


def device_func(func=None, **options):
    """Decorates a function that kernels call (numba-dpex's options are accepted, ignored;
    also under numba-dppy's and numba-dpex's name ``dpk.func``). A numba signature as the
    first argument is accepted and not needed: device functions are compiled per argument
    types."""
    unknown = set(options) - _IGNORED_DEVICE_OPTIONS
    if unknown:
        raise TypeError(f"dpk.device_func() got unexpected options: {', '.join(sorted(unknown))}")
    if func is None or not callable(func):
        return DeviceFunction
    return DeviceFunction(func)


def _launcher_of(kernel_obj):
    launcher = getattr(kernel_obj, "_launcher", None)
    if launcher is None:
        if isinstance(kernel_obj, KernelDispatcher):
            return kernel_obj._make_launcher()
        raise KernelTypeError("call_kernel expects a function decorated with @dpk.kernel, got "
                              f"{type(kernel_obj).__name__}")
    return launcher


def _context_launcher(kernel_obj):
    """The launcher for the current device_context (the kernel's own outside any)."""
    stack = _devices._context.stack
    if stack:
        return kernel_obj._launcher_for(stack[-1])
    return kernel_obj._launcher or _launcher_of(kernel_obj)


def _plain_tuple_error(index_range):
    """numba-dpex's kapi takes a Range or an NdRange as the index space, never a bare tuple
    (``kernel[(n,)]`` does take plain sizes); a tuple is most likely a forgotten Range."""
    sizes = ", ".join(str(v) for v in index_range)
    return KernelTypeError(f"call_kernel expects a dpk.Range or a dpk.NdRange as the index "
                           f"space, not the tuple {index_range!r}: write dpk.Range({sizes}) "
                           f"(kernel[{index_range!r}](...) launches over plain sizes)")


def call_kernel(kernel, index_range, *kernel_args, queue=None):
    """Compiles (once per argument signature) and runs ``kernel`` over ``index_range``; returns
    when it has finished. ``queue``: a ``dpk.Queue`` to submit to (its device runs the kernel;
    queue_launch.py)."""
    if type(index_range) is tuple:
        raise _plain_tuple_error(index_range)
    try:
        stack = _devices._context.stack
        if queue is not None:
            _launcher_of(kernel)  # a KernelTypeError for what is not a kernel
            launcher = queue_launch.launcher_for(kernel, queue)
        else:
            launcher = kernel._launcher_for(stack[-1]) if stack else \
                (kernel._launcher or _launcher_of(kernel))
        if _fusion._pending_refs:  # lazy results reading memory the kernel may write
            _fusion.flush_arguments(kernel_args)
        return launcher.call(index_range, kernel_args, None, False)
    except AttributeError:
        if not isinstance(kernel, KernelDispatcher):
            raise KernelTypeError("call_kernel expects a function decorated with @dpk.kernel, "
                                  f"got {type(kernel).__name__}") from None
        raise
    except DpkError as exc:
        raise exc.with_traceback(None) from None


def launch_in_order(kernel, index_range, *kernel_args):
    """For dpk's own library kernels (the primitives), which take dpk arrays: call_kernel's
    launch, queued without waiting and without an event where array work does not wait (every
    device but the host; arrays.generated.waits_at_once). Their device's queue is in order and
    freed memory returns to a pool only later commands of that queue use, so what follows sees
    the results; a failed kernel is raised by the next read back or synchronize, by name."""
    device = next(a.device for a in kernel_args if isinstance(a, Array))
    launcher = kernel._launcher or _launcher_of(kernel)
    if _fusion._pending_refs:
        _fusion.flush_arguments(kernel_args)
    try:
        launcher.call(index_range, kernel_args, None, not _generated.waits_at_once(device), False)
    except DpkError as exc:
        raise exc.with_traceback(None) from None


def call_kernel_async(kernel, index_range, dependent_events, *kernel_args, queue=None):
    """Submits ``kernel`` after ``dependent_events`` (a list of events, may be empty) and
    returns its Event at once. The arguments stay alive until the event completes.
    ``queue``: a ``dpk.Queue`` to submit to; the event of a profiling queue answers
    ``elapsed_ns()``."""
    if type(index_range) is tuple:
        raise _plain_tuple_error(index_range)
    # Events of launches that completed synchronously (copies to a device) need no waiting.
    deps = [e for e in dependent_events or ()
            if not isinstance(e, placement.DoneEvent)] or None
    try:
        if not isinstance(kernel, KernelDispatcher):
            _launcher_of(kernel)  # raises the KernelTypeError
        if _fusion._pending_refs:  # lazy results reading memory the kernel may write
            _fusion.flush_arguments(kernel_args)
        launcher = queue_launch.launcher_for(kernel, queue) if queue is not None else \
            _context_launcher(kernel)
        return launcher.call(index_range, kernel_args, deps, True)
    except DpkError as exc:
        raise exc.with_traceback(None) from None
