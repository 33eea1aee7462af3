"""What happens when the device chosen for a region cannot run it.

The mode is the decorator's ``fallback=`` when given ("warn", "allow", "deny"), else the
runtime policy's (``fallback.mode`` in the policy file, ``DPK_FALLBACK``, kernel rules by the
function's name), asked through the runtime itself so that the policy's rules, its once-per-key
warning and its typed error are the same as for any kernel:

- warn: the region runs on the host (compiled for the host backend if that works, else as the
  region's own Python) after a warning naming the function, the region's source lines, the
  device and the reason (the decorator's mode: a ``JitFallbackWarning``; the policy's: the
  runtime's ``dpk warning:`` line, once per function, device and reason);
- allow: the same, silently (a level-1 diagnostics record only);
- deny: the typed error (CompileError, LaunchError) naming the same; the region runs nowhere,
  nothing is written.
"""

from __future__ import annotations

import warnings

from .. import _core_loader
from .._errors import error_class_for_status
from .._runtime import diagnostics
from .._runtime.devices import _wrap, select_device

MODES = (None, "warn", "allow", "deny")


class JitFallbackWarning(RuntimeWarning):
    """A region of a ``@dpk.jit`` function ran on the host instead of its device."""


def where(runner):
    region = runner.region
    return (f"{runner.src.name}() region {region.index} ({runner.src.filename}:"
            f"{region.lines})")


def decide(runner, device, reason, status, error=None):
    """The host device the region falls back to; raises under deny."""
    mode = runner.jitfn.fallback
    label = where(runner)
    if mode == "deny":
        cls = error_class_for_status(status)
        exc = cls(f"dpk.jit: {label} cannot run on {device.filter_string}: {reason} (no "
                  "fallback to the host: fallback='deny'); nothing was run")
        raise exc from error
    if mode is None:
        cause = f"region {runner.region.index} at {runner.src.filename}:{runner.region.lines}: " \
                f"{reason}"
        if device.is_host:
            # The host has no host to fall back to (the runtime refuses a fallback from it): the
            # region's Python is the only way left, and the policy still decides whether it
            # may run, asked as for a kernel without a device.
            try:
                _core_loader.core().fallback_device(
                    runner.src.name, "", status, f"{cause} (on {device.filter_string}; the "
                    "region's Python runs instead)")
            except Exception as exc:
                raise exc.with_traceback(None) from error
            host = device
        else:
            try:
                host = _wrap(_core_loader.core().fallback_device(
                    runner.src.name, device.filter_string, status, cause))
            except Exception as exc:
                raise exc.with_traceback(None) from error
    else:
        host = device if device.is_host else select_device("host")
        if mode == "warn":
            warnings.warn(f"dpk.jit: {label} could not run on {device.filter_string} "
                          f"({reason}); running it on the host instead", JitFallbackWarning,
                          stacklevel=4)
    if diagnostics.enabled(1):
        diagnostics.emit(1, "jit.fallback", {
            "function": runner.src.name, "region": runner.region.index,
            "lines": runner.region.lines, "from": device.filter_string,
            "to": host.filter_string, "mode": mode or "policy", "reason": reason})
    return host
