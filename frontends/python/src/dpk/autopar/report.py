"""Offload diagnostics of the jit's parallel transforms, through the runtime's diagnostics
sink (DPK_DIAGNOSTICS or the policy's ``diagnostics:``; DPK_OFFLOAD_DIAGNOSTICS is read as its
alias, see function.py), and the same facts as data for ``inspect_regions()``.

- level 1, ``jit.region``: each region run: the device it ran on, how (kernel or python), the
  fallback and why; ``jit.fallback`` (fallback.py): each fallback;
- level 2, ``jit.regions``: the regions found, once per function: lines, loop variables,
  collapsed dims, reductions with their operator, atomics, arrays read and written, private
  arrays (the array layer's ``arrays.fusion`` records give the fusion groups);
- level 3, ``jit.launch``: launch geometry, staged bytes, time of each region launch;
- level 4, ``jit.kernel``: the generated kernel source and its dpk IR, once per specialization.
"""

from __future__ import annotations

import numpy as np

from .._runtime import diagnostics
from .analysis import inner_pranges


def region_facts(runner):
    """The static facts of a region, as data (level 2 and inspect_regions())."""
    region, analysis = runner.region, runner.region.analysis
    return {
        "function": runner.src.name,
        "region": region.index,
        "file": runner.src.filename,
        "lines": region.lines,
        "loop_variables": list(region.loop_vars),
        "collapsed_dims": len(region.loop_vars),
        "sequential_pranges": [runner.src.first_line + ln - 1 for ln in inner_pranges(region)],
        "reductions": [r.as_dict() for r in analysis.reductions],
        "atomics": [{"update": text, "operation": method, "line": line}
                    for method, text, line in analysis.atomics.values()],
        "arrays_read": sorted(analysis.arrays_read),
        "arrays_written": sorted(analysis.arrays_written),
        "private_arrays": [p.as_dict() for p in analysis.privates.values()],
        "arguments": list(analysis.live_in),
        "kernel_shape": runner.generated.shape,
        "kernel_name": runner.generated.name,
    }


def _text(value):
    if isinstance(value, list):
        return ",".join(_text(v) for v in value) or "-"
    if isinstance(value, dict):
        return ":".join(str(v) for v in value.values())
    return str(value)


def regions_found(runners):
    if not diagnostics.enabled(2):
        return
    for runner in runners:
        facts = region_facts(runner)
        diagnostics.emit(2, "jit.regions", {
            "function": facts["function"], "region": facts["region"], "lines": facts["lines"],
            "loop_variables": _text(facts["loop_variables"]),
            "collapsed_dims": facts["collapsed_dims"],
            "reductions": ",".join(f"{r['variable']}:{r['operator']}"
                                   for r in facts["reductions"]) or "-",
            "atomics": ",".join(f"{a['update']}:{a['operation']}"
                                for a in facts["atomics"]) or "-",
            "arrays_read": _text(facts["arrays_read"]),
            "arrays_written": _text(facts["arrays_written"]),
            "private_arrays": ",".join(f"{p['name']}{p['shape']}"
                                       for p in facts["private_arrays"]) or "-",
            "sequential_pranges": _text(facts["sequential_pranges"]),
            "kernel": facts["kernel_shape"]})


_level1 = []  # [whether level-1 records are produced], asked once: the level is fixed when
#               the runtime starts


def any_enabled():
    if not _level1:
        _level1.append(diagnostics.enabled(1))
    return _level1[0]


def geometry_fields(geometry):
    """The launch geometry as strings: shape, global, local (and groups of a reduce kernel)."""
    if geometry["shape"] == "map":
        return {"shape": "map", "global": "x".join(map(str, geometry["counts"])),
                "local": "auto"}
    return dict(geometry)


def region_ran(runner, device, geometry, elapsed_ms, live, kd, rng, kargs, fallback_from,
               reason):
    name, region = runner.src.name, runner.region
    if diagnostics.enabled(1):
        fields = {"function": name, "region": region.index, "lines": region.lines,
                  "device": device.filter_string, "how": "kernel"}
        if fallback_from is not None:
            fields.update({"fallback_from": fallback_from, "reason": reason})
        diagnostics.emit(1, "jit.region", fields)
    if diagnostics.enabled(3):
        geometry = geometry_fields(geometry)
        staged = 0 if device.is_host else sum(v.nbytes for v in live
                                               if isinstance(v, np.ndarray))
        diagnostics.emit(3, "jit.launch", {
            "function": name, "region": region.index, "device": device.filter_string,
            "kernel": runner.generated.name, "range": geometry["shape"] == "map" and "range"
            or "nd_range", "global": geometry["global"], "local": geometry["local"],
            "groups": geometry.get("groups", 0), "staged_bytes": staged,
            "time_ms": round(elapsed_ms, 3)})
    if diagnostics.enabled(4):
        key = (device.filter_string, tuple(type(a).__name__ + str(getattr(a, "dtype", ""))
                                           for a in kargs))
        if key not in runner._seen:
            runner._seen.add(key)
            diagnostics.emit(4, "jit.kernel", {
                "function": name, "region": region.index, "kernel": runner.generated.name,
                "source": runner.generated.text, "ir": kd.inspect_ir(rng, *kargs) or ""})


def region_ran_python(runner, host, device, reason, elapsed_ms):
    if diagnostics.enabled(1):
        diagnostics.emit(1, "jit.region", {
            "function": runner.src.name, "region": runner.region.index,
            "lines": runner.region.lines, "device": host.filter_string, "how": "python",
            "fallback_from": device.filter_string, "reason": reason})
