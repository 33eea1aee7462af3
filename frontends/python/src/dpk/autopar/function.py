"""``@dpk.jit``: the function object and the decorator.

The first call (or ``inspect_regions()``) parses the source once, finds and analyses the
regions (errors with file:line), generates each region's kernel source and builds the
rewritten function; kernels compile per argument types at their first launch, through the
kernel model's dispatcher and caches. A call with NumPy array arguments converts them to dpk
arrays on the function's device first, and back at exit (arguments.py). ``JitFunction`` is a
``DeviceFunction``: a kernel, a device function or another jit function's region that calls a
jit function compiles its Python as a device function (numba-dpex's dpjit functions are
callable from kernels the same way).
"""

from __future__ import annotations

import inspect
import os
import threading

import numpy as np

from .._runtime.devices import _context as _context_stack
from .._runtime.devices import select_device
from ..arrays.array_object import Array
from ..kernels.compiler.source import function_source
from ..kernels.dispatcher import _link_paths
from ..kernels.functions import DeviceFunction
from . import arguments, report, rewrite
from .analysis import analyze
from .execution import RegionRunner
from .fallback import MODES
from .regions import find_regions

# numba's name for the diagnostics variable is NUMBA_DPEX_OFFLOAD_DIAGNOSTICS; the issue and
# docs/jit.md name DPK_OFFLOAD_DIAGNOSTICS. Both feed the runtime's one diagnostics level,
# which it reads when it starts (after `import dpk`), unless DPK_DIAGNOSTICS says otherwise.
for _alias in ("DPK_OFFLOAD_DIAGNOSTICS", "NUMBA_DPEX_OFFLOAD_DIAGNOSTICS"):
    if os.environ.get(_alias) and not os.environ.get("DPK_DIAGNOSTICS"):
        os.environ["DPK_DIAGNOSTICS"] = os.environ[_alias]

# Numba and numba-dpex options that mean nothing here, accepted so decorators port unchanged.
_IGNORED = {"parallel", "nopython", "nogil", "cache", "fastmath", "boundscheck", "debug",
            "inline", "error_model", "locals", "forceobj", "looplift", "no_cpython_wrapper",
            "target", "signature_or_function", "pipeline_class", "no_rewrites"}


class JitFunction(DeviceFunction):
    """A ``@dpk.jit`` function (see the module docstring and docs/jit.md)."""

    def __init__(self, fn, device=None, fallback=None, link=None):
        super().__init__(fn)
        if fallback not in MODES:
            raise ValueError(f"dpk.jit(fallback={fallback!r}): use 'warn', 'allow' or 'deny' "
                             "(None: the policy's fallback mode)")
        self.device = device
        self.fallback = fallback
        # files defining the dpk.declare_device functions its regions call (docs/linking.md)
        self.link = _link_paths(fn, link)
        self._lock = threading.Lock()
        self._compiled = None
        self._runners = None
        self._bound = None
        # NumPy arguments become dpk arrays at entry (arguments.py); not for generators and
        # coroutines, whose bodies run after the call returns
        self._convert = not (inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn)
                             or inspect.isasyncgenfunction(fn))
        code = fn.__code__
        self._param_names = code.co_varnames[:code.co_argcount]
        self._keyword_names = set(code.co_varnames[code.co_posonlyargcount:code.co_argcount
                                                   + code.co_kwonlyargcount])
        self._may_write = None
        self._host_wrap_at = None

    def bound_device(self):
        if self._bound is None:
            self._bound = select_device(self.device)
        return self._bound

    def _host_only(self, _stack=_context_stack):
        """The host device when the call's NumPy arrays go there (the caller checked that no
        dpk array decides otherwise), else None."""
        if self.device is not None:
            device = self._bound or self.bound_device()
        else:
            stack = _stack.stack
            device = stack[-1] if stack else arguments.default_device(self)
        return device if device._dev.backend == "host" else None

    def _prepare(self):
        with self._lock:
            if self._compiled is not None:
                return self._compiled
            src = function_source(self.py_func)
            regions = find_regions(src)
            runners = []
            for region in regions:
                analysis = analyze(src, region)
                # module-level and closure arrays are passed in like the function's own
                # (numba reads global arrays as constants; a kernel cannot read globals)
                for name in analysis.outer_reads:
                    value = src.closure.get(name, src.globals.get(name))
                    if isinstance(value, (np.ndarray, Array)):
                        analysis.live_in.append(name)
                runners.append(RegionRunner(self, src, region))
            compiled, pythons = rewrite.build(src, regions, runners)
            for runner in runners:
                runner.python = pythons[runner.region.index]
            self._runners = runners
            self._may_write = arguments.may_write(src)
            # per position (the last one standing for *args): whether a NumPy argument is
            # wrapped as a dpk array on the host; None: at no position
            used = arguments.used_between_regions(src, regions)
            vararg = src.tree.args.vararg
            wrap_at = [name in used for name in self._param_names]
            wrap_at.append(vararg is not None and vararg.arg in used)
            self._host_wrap_at = tuple(wrap_at) if any(wrap_at) else None
            self._compiled = compiled
            report.regions_found(runners)
            return compiled

    def __call__(self, *args, **kwargs):
        compiled = self._compiled or self._prepare()
        if self._convert:
            numpy = False
            for a in args:
                if type(a) is np.ndarray:
                    numpy = True
                elif isinstance(a, Array):
                    break  # compute follows data: the general path
            else:
                if numpy and not kwargs:
                    device = self._host_only()
                    if device is not None:
                        if self._host_wrap_at is None:  # NumPy in place: only regions use it
                            return compiled(*args)
                        return arguments.host_call(self, compiled, args, device,
                                                   self._host_wrap_at)
            if numpy or (kwargs and any(type(a) is np.ndarray for a in kwargs.values())):
                return arguments.Call(self).run(compiled, args, kwargs)
        return compiled(*args, **kwargs)

    def inspect_regions(self):
        """The regions of the function as data: per region what level 2 of the diagnostics
        says (lines, loop variables, collapsed dimensions, reductions with their operators,
        atomics, arrays read and written, private arrays), the generated kernel source, and
        what its last run did (device, fallback and why, launch geometry, time)."""
        self._prepare()
        out = []
        for runner in self._runners:
            facts = report.region_facts(runner)
            facts["kernel_source"] = runner.generated.text
            facts["last_run"] = dict(runner.last)
            out.append(facts)
        return out

    def __repr__(self):
        return f"<dpk.jit {self.__name__}>"


def jit(func=None, *, device=None, fallback=None, link=None, **options):
    """``@dpk.jit``, ``@dpk.jit(device="opencl:cpu")``, ``@dpk.jit(fallback="deny")``: a
    function whose ``dpk.prange`` loop nests run as kernels, region by region (docs/jit.md).

    ``device``: where regions over NumPy arrays run (dpk arrays keep theirs); default the
    innermost ``dpk.device_context``, else the policy's default. ``fallback``: "warn", "allow"
    or "deny" for a region its device cannot run (None: the policy's mode). ``link``: files
    defining the ``dpk.declare_device`` functions its regions call, as ``@dpk.kernel(link=...)``
    takes them (docs/linking.md). Numba's options
    (``parallel``, ``nopython``, ``cache``, ``fastmath``, ...) are accepted and ignored."""
    unknown = set(options) - _IGNORED
    if unknown:
        raise TypeError(f"dpk.jit() got unexpected options: {', '.join(sorted(unknown))}")
    if func is None or not callable(func):
        return lambda f: JitFunction(f, device, fallback, link)
    return JitFunction(func, device, fallback, link)
