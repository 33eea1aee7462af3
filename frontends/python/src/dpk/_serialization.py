"""Pickling of dpk's functions: kernels (``@dpk.kernel``), device functions
(``@dpk.device_func``), ``@dpk.vectorize`` objects and ``@dpk.jit`` functions, so that
``multiprocessing``, Dask's process and distributed schedulers and mpi4py's object API can ship
them to other processes.
(Devices and arrays pickle through their own ``__reduce__``: devices by filter string, arrays as
their data and their device's filter string.)

A function goes **by reference** (module and qualified name) when importing its module and
following its name gives the same object back, as ``pickle`` does for plain functions: the other
process imports it and gets the module's object, already compiled there or not.

Functions of ``__main__`` (a script, a notebook, ``python -i``), local functions and functions
whose name leads elsewhere go **by source**: the text the kernel compiler reads
(``compiler.source.function_source``, so functions without source files come back from their
bytecode as they do for compiling) and the values of the global and closure names the function
reads (modules by name, other dpk functions recursively, everything else pickled as it is). The
receiving process compiles the text under a file name of its own that names the original file,
padded so that line numbers match the original, and registers it with ``linecache``, so the
kernel compiler reads it and its errors point at the original lines. Loading the same function
twice in a process returns the same object (so a process compiles each kernel once however
many tasks bring it).

Registered in ``copyreg.dispatch_table``, which ``pickle`` and cloudpickle (Dask) consult.
"""

from __future__ import annotations

import ast
import builtins
import copyreg
import hashlib
import importlib
import linecache
import sys
import textwrap
import threading
import types

from .autopar.function import JitFunction
from .kernels.compiler.source import function_source
from .kernels.dispatcher import KernelDispatcher
from .kernels.functions import DeviceFunction
from .primitives.vectorize import Vectorized

_lock = threading.Lock()
_functions = {}  # source key -> (global values, the recreated function)
_objects = {}    # (kind, function, options) -> the recreated dpk object


# ---- references ------------------------------------------------------------------------------

def _reference(obj, module, qualname):
    """(module, qualname) when they lead back to `obj` in this process, else None."""
    if not module or not qualname or module == "__main__" or "<locals>" in qualname:
        return None
    found = sys.modules.get(module)
    try:
        for part in qualname.split("."):
            found = getattr(found, part)
    except AttributeError:
        return None
    return (module, qualname) if found is obj else None


def _load_reference(module, qualname):
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


class _ModuleName:
    """A module a function reads, pickled by name (modules do not pickle)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __reduce__(self):
        return (_ModuleName, (self.name,))


# ---- functions by source ---------------------------------------------------------------------

def _names_read(source):
    """The global and closure names a function reads (its parsed source, not its bytecode:
    attribute names are not reads)."""
    names = set()
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
    return names - source.locals


def _source_payload(fn):
    """What recreates `fn` in another process: its text (decorators blanked out, dedented) and
    the values of the names it reads."""
    source = function_source(fn)  # KernelSourceError when neither source nor bytecode reads
    text = textwrap.dedent("".join(source.lines))
    lines = text.splitlines(keepends=True)
    definition = ast.parse(text).body[0]
    # The decorators' lines become empty lines: the loader applies dpk's decorator itself, and
    # line numbers stay those of the original file.
    def_index = definition.lineno - 1
    text = "\n" * def_index + "".join(lines[def_index:])
    values = {}
    for name in sorted(_names_read(source)):
        if name in source.closure:
            value = source.closure[name]
        elif name in source.globals:
            value = source.globals[name]
        else:
            continue  # a builtin (or undefined: the compiler says so where it is used)
        values[name] = _ModuleName(value.__name__) if isinstance(value, types.ModuleType) \
            else value
    return {"name": fn.__name__, "qualname": fn.__qualname__, "module": fn.__module__,
            "filename": source.filename, "first_line": source.first_line, "text": text,
            "globals": values}


def _same_values(a, b):
    if a.keys() != b.keys():
        return False
    for key, x in a.items():
        y = b[key]
        if x is y:
            continue
        if type(x) is not type(y):
            return False
        try:
            if not bool(x == y):
                return False
        except Exception:  # arrays and other values without a truth value: not the same
            return False
    return True


def _function_from_source(payload):
    values = {k: importlib.import_module(v.name) if isinstance(v, _ModuleName) else v
              for k, v in payload["globals"].items()}
    key = (payload["module"], payload["qualname"], payload["filename"], payload["first_line"],
           payload["text"])
    with _lock:
        known = _functions.get(key)
        if known is not None and _same_values(known[0], values):
            return known[1]
        digest = hashlib.sha256(payload["text"].encode()).hexdigest()[:12]
        filename = (f"<dpk: {payload['qualname']} of {payload['filename']}, "
                    f"pickled {digest}>")
        text = "\n" * (payload["first_line"] - 1) + payload["text"]
        # Read back by inspect.getsource (and so by the kernel compiler); a None modification
        # time keeps linecache.checkcache from dropping an entry that has no file.
        linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
        namespace = {"__name__": payload["module"], "__builtins__": builtins}
        namespace.update(values)
        exec(compile(text, filename, "exec"), namespace)
        fn = namespace[payload["name"]]
        fn.__qualname__ = payload["qualname"]
        _functions[key] = (values, fn)
        return fn


def _function_state(fn, module, qualname, obj):
    """('ref', module, qualname) or ('source', payload) for the function behind `obj`."""
    ref = _reference(obj, module, qualname)
    if ref is not None:
        return ("ref",) + ref
    return ("source", _source_payload(fn))


def _function_of(state):
    return _function_from_source(state[1])


def _recreated(kind, fn, options, make):
    key = (kind, fn, repr(options))
    with _lock:
        obj = _objects.get(key)
    if obj is None:
        obj = make()
        with _lock:
            obj = _objects.setdefault(key, obj)
    return obj


# ---- kernels, device functions, vectorize ----------------------------------------------------

def _kernel_options(k):
    access = {}
    for name, mode in k._access.items():
        access.setdefault(mode, []).append(name)
    return {"device": k._device, "access_types": access or None,
            "boundscheck": getattr(k, "boundscheck", None),
            "link": list(getattr(k, "link", ())) or None,
            "min_groups_per_cu": getattr(k, "min_groups_per_cu", 0)}


def _reduce_kernel(k):
    state = _function_state(k.py_func, k.__module__, k.__qualname__, k)
    if state[0] == "ref":
        return (_load_reference, state[1:])
    return (_load_kernel, (state, _kernel_options(k)))


def _load_kernel(state, options):
    fn = _function_of(state)
    return _recreated("kernel", fn, options, lambda: KernelDispatcher(fn, **options))


def _reduce_device_func(f):
    state = _function_state(f.py_func, f.__module__, f.__qualname__, f)
    if state[0] == "ref":
        return (_load_reference, state[1:])
    return (_load_device_func, (state,))


def _load_device_func(state):
    fn = _function_of(state)
    return _recreated("device_func", fn, None, lambda: DeviceFunction(fn))


def _reduce_vectorized(v):
    fn = v.py_func
    state = _function_state(fn, fn.__module__, fn.__qualname__, v)
    if state[0] == "ref":
        return (_load_reference, state[1:])
    signatures = [(str(ret), tuple(str(a) for a in args)) for ret, args in v._explicit]
    return (_load_vectorized, (state, signatures or None, v.target))


def _load_vectorized(state, signatures, target):
    fn = _function_of(state)
    return _recreated("vectorize", fn, (signatures, target),
                      lambda: Vectorized(fn, signatures=signatures, target=target))


def _reduce_jit(f):
    # by reference when importable; by source with the decorator's options (device, fallback,
    # link) otherwise: the receiving process parses its regions and compiles their kernels itself
    state = _function_state(f.py_func, f.__module__, f.__qualname__, f)
    if state[0] == "ref":
        return (_load_reference, state[1:])
    return (_load_jit, (state, {"device": f.device, "fallback": f.fallback,
                                "link": list(f.link) or None}))


def _load_jit(state, options):
    fn = _function_of(state)
    return _recreated("jit", fn, options, lambda: JitFunction(fn, **options))


copyreg.pickle(KernelDispatcher, _reduce_kernel)
copyreg.pickle(JitFunction, _reduce_jit)
copyreg.pickle(DeviceFunction, _reduce_device_func)
copyreg.pickle(Vectorized, _reduce_vectorized)
