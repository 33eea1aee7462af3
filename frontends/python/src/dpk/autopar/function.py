"""``@dpk.jit``: the function object and the decorator.

The first call (or ``inspect_regions()``) parses the source once, finds and analyses the
regions (errors with file:line), generates each region's kernel source and builds the
rewritten function; kernels compile per argument types at their first launch, through the
kernel model's dispatcher and caches. ``JitFunction`` is a ``DeviceFunction``: a kernel, a
device function or another jit function's region that calls a jit function compiles its Python
as a device function (numba-dpex's dpjit functions are callable from kernels the same way).
"""

from __future__ import annotations

import os
import threading

import numpy as np

from .._runtime.devices import select_device
from ..arrays.array_object import Array
from ..kernels.compiler.source import function_source
from ..kernels.functions import DeviceFunction
from . import report, rewrite
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

    def __init__(self, fn, device=None, fallback=None):
        super().__init__(fn)
        if fallback not in MODES:
            raise ValueError(f"dpk.jit(fallback={fallback!r}): use 'warn', 'allow' or 'deny' "
                             "(None: the policy's fallback mode)")
        self.device = device
        self.fallback = fallback
        self._lock = threading.Lock()
        self._compiled = None
        self._runners = None
        self._bound = None

    def bound_device(self):
        if self._bound is None:
            self._bound = select_device(self.device)
        return self._bound

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
            self._compiled = compiled
            report.regions_found(runners)
            return compiled

    def __call__(self, *args, **kwargs):
        compiled = self._compiled or self._prepare()
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


def jit(func=None, *, device=None, fallback=None, **options):
    """``@dpk.jit``, ``@dpk.jit(device="opencl:cpu")``, ``@dpk.jit(fallback="deny")``: a
    function whose ``dpk.prange`` loop nests run as kernels, region by region (docs/jit.md).

    ``device``: where regions over NumPy arrays run (dpk arrays keep theirs); default the
    innermost ``dpk.device_context``, else the policy's default. ``fallback``: "warn", "allow"
    or "deny" for a region its device cannot run (None: the policy's mode). Numba's options
    (``parallel``, ``nopython``, ``cache``, ``fastmath``, ...) are accepted and ignored."""
    unknown = set(options) - _IGNORED
    if unknown:
        raise TypeError(f"dpk.jit() got unexpected options: {', '.join(sorted(unknown))}")
    if func is None or not callable(func):
        return lambda f: JitFunction(f, device, fallback)
    return JitFunction(func, device, fallback)
