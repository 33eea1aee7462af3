"""Running one parallel region: where (compute follows data), with which kernel and launch
geometry, and how the reductions' partials become the variables' new values.

Device: the device of the dpk arrays the region reads (compute follows data; arrays of several
devices follow the policy's ``placement.mixed_devices``, as any launch); with NumPy arrays
only, ``@dpk.jit(device=...)``, else the innermost ``dpk.device_context``, else the policy's
default. The function's NumPy arguments were converted at entry (arguments.py); NumPy arrays a
region still gets (made inside the function, or left NumPy there) are used in place on the host
device and staged (copied in, and back when the kernel writes them) on others, by the kernel
model's launch path.

Before launching, a region that the device cannot run is sent to the fallback (fallback.py):
a value the kernel cannot take (a list, None, ...), float64 data on a device without fp64, a
failure forced by the test hook ``FORCED_FAILURES``; after it, a compile or launch error.
"""

from __future__ import annotations

import copy
import math
import time

import numpy as np

from .._errors import (BoundsError, CompileError, DeviceError, DpkError, InvalidArgumentError,
                       KernelSyntaxError, KernelTypeError, LaunchError,
                       OutOfDeviceMemoryError, PlacementError)
from .._ir.types import supported_dtype
from .._ir.values import IndexSpace, ViewArray
from ..arrays import fusion as _fusion
from ..arrays.array_object import Array, asnumpy, devices_of
from ..arrays.reduction import _workgroup_size, make_op
from ..kernels.compiler.driver import CompileContext
from ..kernels.compiler.source import function_source
from ..kernels.dispatcher import KernelDispatcher
from ..kernels.kapi import LocalAccessor, NdRange, Range
from . import fallback, report
from .arguments import SIMULATED_NO_FP64, default_device  # noqa: F401 (a test hook, see there)
from .kernelgen import HELPERS, generate, step_kinds

#: Test hook: {device filter string: reason} makes every region fail on that device as a
#: compile failure would (fallback tests); "host:cpu:0" also stops the compiled host fallback.
FORCED_FAILURES = {}


_FALLBACK_STATUSES = (CompileError.status, LaunchError.status, DeviceError.status,
                      OutOfDeviceMemoryError.status)


_ARRAY_OPS = {"+": "sum", "*": "prod", "min": "min", "max": "max"}


def identity(op, dtype):
    """The identity of a reduction operator in `dtype`: the array layer's reductions' own
    (reduction.make_op) for + * min max, all bits / no bits for & | ^."""
    dtype = np.dtype(dtype)
    name = _ARRAY_OPS.get(op)
    if name is not None:
        return dtype.type(make_op(name, dtype).identity[0])
    if op == "&":
        return dtype.type(True) if dtype.kind == "b" else dtype.type(
            np.iinfo(dtype).max if dtype.kind == "u" else -1)
    return dtype.type(0)


_FOLD = {"+": np.add, "*": np.multiply, "min": np.minimum, "max": np.maximum,
         "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}


def _scalar_dtype(value):
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        return np.dtype(np.int64)
    if isinstance(value, float):
        return np.dtype(np.float64)
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return value.dtype
    return None


_PLAIN = (bool, int, float, np.generic, Array)


def unsupported_value(name, value):
    """Why a kernel cannot take `value` (None when it can)."""
    if isinstance(value, _PLAIN):
        return None
    if isinstance(value, np.ndarray):
        if value.ndim == 0 or (1 <= value.ndim <= 3 and supported_dtype(value.dtype)):
            return None
        return (f"'{name}' is a {value.ndim}-D {value.dtype} array; kernels take 1 to 3 "
                "dimensions of bool, integer or float elements")
    return f"'{name}' is a {type(value).__name__}, which kernels cannot take"


def _is_f64(value):
    dtype = getattr(value, "dtype", None)
    return dtype is not None and np.dtype(dtype) == np.float64


_NO_OBSTACLE = (None, None, None)
_ARRAY_REDUCE_OPS = ("+", "&", "|", "^")  # operators with an atomic update


def _scalars(values):
    return tuple([v.asnumpy()[()] if type(v) is Array and not v._shape else v for v in values])


class RegionRunner:
    """The callable that stands for one region in the rewritten function."""

    def __init__(self, jitfn, src, region):
        self.jitfn = jitfn
        self.src = src
        self.region = region
        # the variant last used (inspection); before any run, the one of range(n) loops
        self.generated = generate(src, region, ("id",) * len(region.loop_vars))
        self.python = None        # the region's own Python (set by function.py)
        self._variants = {}       # (step kinds, work-group size) -> (GeneratedKernel, dispatcher)
        self._acc = {}            # typing key -> accumulator dtypes
        self._seen = set()        # specializations whose level-4 record was emitted
        self._last = {}           # what the last run did (see `last`)
        self._ndims = len(region.loop_vars)
        self._nlive = len(region.analysis.live_in)
        self._host_wg = {}        # device -> work-group size of its reduce kernels
        self._array_writes = bool(region.analysis.array_writes)
        # reductions whose start may be an array (y = np.zeros(4); y += x[i]): run by a
        # variant of the region where they are atomic updates of the array (_array_reduction)
        self._array_reducible = any(r.op in _ARRAY_REDUCE_OPS
                                    for r in region.analysis.reductions)
        self._array_runners = {}  # names reduced into arrays -> RegionRunner of that variant

    @property
    def last(self):
        """What the last run did, as a dict (device, fallback, fallback_from, reason, how,
        iterations, launch geometry, time_ms); kept raw on the hot path."""
        last = self._last
        if isinstance(last, dict):
            return last
        ran_on, fallback_from, reason, total, geometry, elapsed = last
        return {"device": ran_on.filter_string, "fallback": fallback_from is not None,
                "fallback_from": fallback_from, "reason": reason, "how": "kernel",
                "iterations": total, **report.geometry_fields(geometry),
                "time_ms": round(elapsed * 1e3, 3)}

    # ---- the kernel -----------------------------------------------------------------------
    def dispatcher(self, steps, wg, ranks=None):
        """The kernel dispatcher of one variant of the region's kernel (kernelgen.generate;
        `ranks`: the ranks of the values it receives, for regions with array statements)."""
        key = (steps, wg) if ranks is None else (steps, wg, ranks)
        found = self._variants.get(key)
        if found is None:
            gen = generate(self.src, self.region, steps, wg, None if ranks is None else
                           dict(zip(self.region.analysis.live_in, ranks)))
            namespace = dict(self.src.globals)
            namespace.update(self.src.closure)
            namespace.update(HELPERS)
            exec(compile(gen.text, gen.filename, "exec"), namespace)
            found = self._variants[key] = (gen, KernelDispatcher(namespace[gen.name],
                                                                 link=self.jitfn.link or None))
        self.generated = found[0]
        return found[1]

    def _accumulator_dtypes(self, kd, kargs):
        """The dtypes the compiler gives the reduction variables (its own type inference: a
        variable's type unifies everything assigned to it)."""
        values, _, key = kd._type_args(kargs, "nditem")
        found = self._acc.get(key)
        if found is None:
            ctx = CompileContext("nditem", 1)
            src = function_source(kd.py_func)
            vals = [IndexSpace("nditem", 1)] + [
                ViewArray(v.ir, v.dtype, v.ndim, i) if isinstance(v, ViewArray) else v
                for i, v in enumerate(values)]
            hints, _ = ctx.converge(src, ctx.unique_name(src.name), vals, True)
            found = self._acc[key] = [np.dtype(hints[r.name][0])
                                      for r in self.region.analysis.reductions]
        return found

    # ---- a run ------------------------------------------------------------------------------
    def __call__(self, *args):
        ndims = self._ndims
        nlive = self._nlive
        live = args[ndims:ndims + nlive]
        inits = args[ndims + nlive:]
        device = None
        for v in args[ndims:]:
            if type(v) is Array:
                if not v._shape:
                    # a 0-d dpk array (a[0], np.sum(a) between regions on dpk arrays) is the
                    # number it holds, as Numba's scalars are
                    live, inits = _scalars(live), _scalars(inits)
                    device = self._device(live)
                    break
                if device is None:
                    device = v._device  # compute follows data (the first array's device)
        if device is None:
            device = default_device(self.jitfn)
        if ndims == 1:
            ranges = args[:1]
            total = len(range(*args[0]))
            counts = (total,)
        else:
            ranges = args[:ndims]
            counts = tuple([len(range(*r)) for r in ranges])
            total = math.prod(counts)
        if total == 0:
            self._last = {"device": device.filter_string, "fallback": False, "iterations": 0}
            return tuple(inits)
        if self._array_reducible:
            for v in inits:
                if isinstance(v, (np.ndarray, Array)) and v.ndim:
                    done = self._array_reduction(ranges, live, inits)
                    if done is not None:
                        return done
                    break
        reason, status, host_may_compile = self._obstacle(device, live, inits)
        if reason is None:
            try:
                return self._launch(device, ranges, counts, total, live, inits)
            except (InvalidArgumentError, BoundsError, PlacementError):
                raise
            except KernelSyntaxError as exc:
                reason, status = self._syntax_reason(exc), CompileError.status
                return self._fall_back(device, reason, status, ranges, counts, total, live,
                                       inits, compiled_host=False, error=exc)
            except (DpkError, KernelTypeError) as exc:
                # the policy's failure classes: compile, launch (device errors too), out of
                # memory; anything else counts as the device being unable to compile it
                status = exc.status if getattr(exc, "status", None) in _FALLBACK_STATUSES \
                    else CompileError.status
                reason = f"{type(exc).__name__}: {exc}"
                return self._fall_back(device, reason, status, ranges, counts, total, live,
                                       inits, compiled_host=True, error=exc)
        return self._fall_back(device, reason, status, ranges, counts, total, live, inits,
                               compiled_host=host_may_compile)

    # ---- reductions into arrays ---------------------------------------------------------------
    def _array_reduction(self, ranges, live, inits):
        """Numba's array reductions (``y += x[i]`` with ``y`` an array before the loop): the
        region runs as a variant where each such variable is an array the kernel receives and
        its updates are atomic updates of every element (arrayexpr.py), updating the array in
        place; None when an operator has no atomic form (the region then falls back)."""
        reductions = self.region.analysis.reductions
        names = tuple([r.name for r, v in zip(reductions, inits)
                       if isinstance(v, (np.ndarray, Array)) and v.ndim])
        if any(r.op not in _ARRAY_REDUCE_OPS for r in reductions if r.name in names):
            return None
        sub = self._array_runners.get(names)
        if sub is None:
            sub = self._array_runners[names] = self._array_runner(names)
        arrays = [v for r, v in zip(reductions, inits) if r.name in names]
        scalars = [v for r, v in zip(reductions, inits) if r.name not in names]
        try:
            out = iter(sub(*ranges, *live, *arrays, *scalars))
        finally:
            self._last = sub._last
            self.generated = sub.generated
        return tuple([v if r.name in names else next(out) for r, v in zip(reductions, inits)])

    def _array_runner(self, names):
        region = copy.copy(self.region)
        analysis = copy.copy(region.analysis)
        reductions = analysis.reductions
        analysis.reductions = [r for r in reductions if r.name not in names]
        analysis.live_in = list(analysis.live_in) + list(names)
        analysis.arrays_written = set(analysis.arrays_written) | set(names)
        analysis.array_writes = dict(analysis.array_writes)
        for stmt, name in analysis.reduction_stmts.items():
            if name in names:
                analysis.array_writes[stmt] = False  # every iteration updates every element
        region.analysis = analysis
        sub = RegionRunner(self.jitfn, self.src, region)
        ndims, nlive, python = self._ndims, self._nlive, self.python

        def python_variant(*args):
            # the region's own Python takes every reduction's value in the original order
            arrays = iter(args[ndims + nlive:ndims + nlive + len(names)])
            scalars = iter(args[ndims + nlive + len(names):])
            full = [next(arrays) if r.name in names else next(scalars) for r in reductions]
            out = python(*args[:ndims + nlive], *full)
            results = []
            for r, start, new in zip(reductions, full, out):
                if r.name not in names:
                    results.append(new)
                elif new is not start:  # y = y + x[i] made a new array: the result is in y
                    start[...] = new
            return tuple(results)

        sub.python = python_variant
        return sub

    def _device(self, live):
        found = devices_of(live)
        if found:
            return found[0]
        return default_device(self.jitfn)

    def _obstacle(self, device, live, inits):
        """(reason, status, whether the host backend may still compile it) when the region
        cannot be tried on `device`, else (None, None, None)."""
        if not inits and not FORCED_FAILURES and device._dev.backend == "host":
            for value in live:  # the common case: arrays and Python numbers on the host
                kind = type(value)
                if not (kind is Array or kind is int or kind is float or (
                        kind is np.ndarray and 1 <= value.ndim <= 3)):
                    break
            else:
                return _NO_OBSTACLE
        for name, value in zip(self.region.analysis.live_in, live):
            kind = type(value)
            if kind is Array or kind is int or kind is float or (
                    kind is np.ndarray and 1 <= value.ndim <= 3):
                continue  # the common cases first (supported dtypes: the launch checks)
            why = unsupported_value(name, value)
            if why is not None:
                return why, CompileError.status, False
        for r, value in zip(self.region.analysis.reductions, inits):
            if _scalar_dtype(value) is None:
                return (f"'{r.name}' is a {type(value).__name__}, not a number to reduce",
                        CompileError.status, False)
        if FORCED_FAILURES:
            forced = FORCED_FAILURES.get(device.filter_string)
            if forced is not None:
                return forced, CompileError.status, True
        if device._dev.backend != "host":
            lacks = device.filter_string in SIMULATED_NO_FP64 or not device.has_aspect_fp64
            if lacks and (any(_is_f64(v) for v in live) or any(isinstance(v, float) or
                                                                _is_f64(v) for v in inits)):
                return (f"the region uses float64 and {device.filter_string} has no fp64 "
                        "support", CompileError.status, True)
        return None, None, None

    def _syntax_reason(self, exc):
        """A compiler error in the generated kernel, told at the user's line."""
        gen = self.generated
        line = self.generated.line_map.get(getattr(exc, "lineno", None) or -1)
        text = (str(exc.args[0]) if exc.args else str(exc)).splitlines()[0]
        if getattr(exc, "filename", None) not in (None, gen.filename):
            return text  # in a device function the region calls: its own file and line
        prefix = f"{gen.filename}:{exc.lineno}: "
        if text.startswith(prefix):
            text = text[len(prefix):]
        return f"{self.src.filename}:{line or self.region.lines}: {text}"

    def _kernel_args(self, kd, device, wg, ranges, counts, total, live, inits):
        """(launch range, kernel arguments, partial arrays, accumulator dtypes, geometry)."""
        reductions = self.region.analysis.reductions
        kargs = []
        for (lo, _, step), count in zip(ranges, counts):
            kargs += [lo, step] + ([count] if reductions else [])
        if not reductions:
            # a plain tuple is a Range launch on the launch fast path
            kargs += live
            return counts, kargs, (), (), {"shape": "map", "counts": counts}
        # 8 work-groups per compute unit: each group's tree and its partial cost the same
        # whatever its share, so on a GPU fewer, longer groups beat the array layer's 32 per
        # compute unit (H100, Monte-Carlo pi over 2^26: 0.61 ms with 32, the hand-written
        # kernel's 8 took 0.52 ms).
        groups = max(1, min(-(-total // wg), 8 * max(device.max_compute_units, 1)))
        chunk = -(-total // groups)
        chunk = -(-chunk // wg) * wg
        groups = -(-total // chunk)
        kargs += [total, chunk]
        kargs += live
        init_dtypes = [_scalar_dtype(v) for v in inits]
        typing = list(kargs)
        for op, dt in zip((r.op for r in reductions), init_dtypes):
            typing += [identity(op, dt), np.empty(1, dt), LocalAccessor((wg,), dt)]
        acc = self._accumulator_dtypes(kd, typing)
        parts = []
        for r, dt in zip(reductions, acc):
            part = np.empty(groups, dt)
            parts.append(part)
            kargs += [identity(r.op, dt), part, LocalAccessor((wg,), dt)]
        return NdRange(Range(groups * wg), Range(wg)), kargs, parts, acc, {
            "shape": "reduce", "global": str(groups * wg), "local": str(wg), "groups": groups}

    def _launch(self, device, ranges, counts, total, live, inits, fallback_from=None,
                reason=None):
        steps = step_kinds(ranges)
        if inits:
            wg = self._host_wg.get(device)
            if wg is None:
                wg = self._host_wg[device] = _workgroup_size(device)
        else:
            wg = 0
        if self._array_writes:  # array statements: a variant per rank combination
            ranks = tuple([v.ndim if isinstance(v, (np.ndarray, Array)) else 0 for v in live])
            found = self._variants.get((steps, wg, ranks))
            kd = found[1] if found is not None else self.dispatcher(steps, wg, ranks)
        else:
            found = self._variants.get((steps, wg))
            kd = found[1] if found is not None else self.dispatcher(steps, wg)
        if inits or len(ranges) != 1:
            rng, kargs, parts, acc, geometry = self._kernel_args(kd, device, wg, ranges,
                                                                 counts, total, live, inits)
        else:  # a 1-D map region: the launch's plain form (the hot path of small regions)
            lo, _, step = ranges[0]
            rng, kargs, parts = counts, (lo, step, *live), ()
            geometry = {"shape": "map", "counts": counts}
        if _fusion._pending_refs:  # lazy array results that read memory the kernel may write
            _fusion.flush_arguments(kargs)
        start = time.perf_counter()
        kd._launcher_for(device).call(rng, tuple(kargs), None, False)
        elapsed = time.perf_counter() - start
        results = tuple(_FOLD[r.op](dt.type(init), _FOLD[r.op].reduce(part)).astype(dt)[()]
                        for r, dt, init, part in zip(self.region.analysis.reductions, acc,
                                                     inits, parts)) if parts else ()
        ran_on = device  # the dpk arrays' device when there are any (_device)
        # kept raw: inspect_regions() and the diagnostics format it (report.run_facts)
        self._last = (ran_on, fallback_from, reason, total, geometry, elapsed)
        if report.any_enabled():
            report.region_ran(self, ran_on, geometry, elapsed * 1e3, live, kd, rng, kargs,
                              fallback_from, reason)
        return results

    # ---- the fallback --------------------------------------------------------------------------
    def _fall_back(self, device, reason, status, ranges, counts, total, live, inits,
                   compiled_host, error=None):
        host = fallback.decide(self, device, reason, status, error)
        if _fusion._pending_refs:  # lazy array results that read memory the region may write
            _fusion.flush_arguments(live)
        # dpk arrays as NumPy: views of host memory (the same data), copies of device memory
        # (written back afterwards)
        local, moved = [], []
        for v in live:
            if isinstance(v, Array):
                if v.device.is_host:
                    v = np.asarray(v)
                else:
                    copy = asnumpy(v)
                    moved.append((v, copy))
                    v = copy
            local.append(v)
        results = None
        if compiled_host and not device.is_host and host.filter_string not in FORCED_FAILURES:
            try:
                results = self._launch(host, ranges, counts, total, local, inits,
                                       fallback_from=device.filter_string, reason=reason)
            except (InvalidArgumentError, BoundsError, PlacementError):
                raise
            except (DpkError, KernelTypeError) as exc:
                reason = f"{reason}; on the host too: {type(exc).__name__}: {exc}"
        if results is None:
            start = time.perf_counter()
            results = self.python(*ranges, *local, *inits)
            elapsed = (time.perf_counter() - start) * 1e3
            self._last = {"device": host.filter_string, "fallback": True,
                         "fallback_from": device.filter_string, "reason": reason,
                         "how": "python", "iterations": total, "time_ms": round(elapsed, 3)}
            report.region_ran_python(self, host, device, reason, elapsed)
        for orig, copy in moved:
            orig[...] = copy
        return results
