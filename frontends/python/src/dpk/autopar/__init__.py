"""The jit model (``@dpk.jit`` and ``dpk.prange``): ordinary Python functions whose ``prange``
loop nests are outlined into dpk kernels, region by region, while the rest of the function
stays Python (docs/jit.md).

The room is not called ``jit`` because ``dpk.jit`` is the decorator (docs/python.md, "Package
layout"). One purpose per module, in the order a call meets them:

- ``loops.py``: ``prange`` and how a ``prange`` call is recognised in source;
- ``regions.py``: finding each ``prange`` nest in the function and collapsing nested ones;
- ``analysis.py``: what a region reads and writes, its reductions, atomics and private
  arrays, and the dependences that make it unsafe (compile-time errors with file:line);
- ``kernelgen.py``: the kernel source generated for a region (compiled by dpk's kernel
  compiler, so the same IR, cache and diagnostics apply);
- ``arrayexpr.py``: array statements inside a region (``out[i, :] = a[i, :] * 2``) lowered to
  loops in its kernel;
- ``rewrite.py``: the function rewritten so each region is a call into the runtime, and each
  region's own Python (the last fallback);
- ``arguments.py``: NumPy arguments converted to dpk arrays at entry, written ones copied
  back and results converted at exit;
- ``execution.py``: running a region: device, launch geometry, reductions' partials;
- ``fallback.py``: what happens when the device cannot run a region (warn, allow, deny);
- ``report.py``: offload diagnostics records and ``inspect_regions()`` data;
- ``function.py``: the ``JitFunction`` object and the ``jit`` decorator.
"""

from .fallback import JitFallbackWarning
from .function import JitFunction, jit
from .loops import prange

__all__ = ["JitFallbackWarning", "JitFunction", "jit", "prange"]
