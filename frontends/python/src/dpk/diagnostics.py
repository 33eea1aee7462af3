"""Offload diagnostics from Python: receive the runtime's records as dicts.

``dpk.diagnostics.capture()`` collects the records of a block; ``add_listener(fn)`` and
``remove_listener(fn)`` subscribe a function. The level (1 = where each kernel ran and every
fallback, 2 = plugins, policy, compiles and cache events, 3 = launches and copies, 4 = stage
dumps) is set by the policy or the DPK_DIAGNOSTICS environment variable before the runtime
starts. The public name of dpk._runtime.diagnostics, where the code lives.
"""

from ._runtime.diagnostics import add_listener, capture, remove_listener

__all__ = ["add_listener", "capture", "remove_listener"]
