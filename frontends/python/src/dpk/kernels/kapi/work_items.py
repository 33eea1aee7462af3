"""Rules about work-items that the compiled and the pure-Python launches share:

  - whether a kernel's first parameter is the work-item (kapi style) or the kernel takes only
    its arguments and asks for ids with ``dpk.get_global_id(d)`` (numba-dppy / OpenCL style);
  - which names a kernel refers to, to know whether it needs work-groups (barriers, local ids,
    local memory) or may run over a plain Range;
  - the local size dpk chooses when a launch leaves it open (``DEFAULT_LOCAL_SIZE``);
  - the work-item that the OpenCL-style functions of the pure-Python mode answer for (a
    thread-local, set by ``kernel_api.call_kernel`` for each work-item it runs).
"""

from __future__ import annotations

import dis
import inspect
import threading
import types

from ..._errors import KernelTypeError
from .index_space_ids import Item, NdItem

# ---- the item parameter -----------------------------------------------------------------------

_ITEM_ANNOTATIONS = ("Item", "NdItem")


def _positional_parameters(fn):
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY) for p in params):
        return None
    return params


def item_annotation(fn):
    """Item or NdItem when the kernel's first parameter is annotated so, else None."""
    params = _positional_parameters(fn)
    if not params:
        return None
    ann = params[0].annotation
    if ann in (Item, NdItem):
        return ann
    if isinstance(ann, str):  # `from __future__ import annotations`
        last = ann.rpartition(".")[2]
        if last in _ITEM_ANNOTATIONS:
            return NdItem if last == "NdItem" else Item
    return None


#: Methods and properties only a work-item has.
ITEM_ATTRIBUTES = frozenset({
    "get_id", "get_range", "get_linear_id", "get_linear_range", "get_global_id",
    "get_local_id", "get_global_range", "get_local_range", "get_global_linear_id",
    "get_local_linear_id", "get_global_linear_range", "get_local_linear_range", "get_group",
    "get_group_linear_id", "dimensions"})


def uses_first_parameter_as_item(fn):
    """Whether the body calls a work-item method on the first parameter (``item.get_id``)."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_argcount == 0:
        return False
    first = code.co_varnames[0]
    previous = None
    try:
        for ins in dis.get_instructions(code):
            if (previous is not None and previous.opname.startswith("LOAD_FAST")
                    and previous.argval == first
                    and ins.opname in ("LOAD_ATTR", "LOAD_METHOD")
                    and ins.argval in ITEM_ATTRIBUTES):
                return True
            previous = ins
    except Exception:  # an unknown bytecode layout: no opinion
        return False
    return False


def takes_item(fn, nargs):
    """Whether kernel `fn`, launched with `nargs` arguments, receives the work-item as its first
    parameter.

    A kernel whose first parameter is annotated ``Item``/``NdItem`` takes it. Otherwise the
    parameter count decides: one parameter more than the launch's arguments means the first
    is the work-item (kapi style), as many as the arguments means the kernel has no item
    parameter and uses ``dpk.get_global_id(d)`` and friends (numba-dppy style), unless the body
    calls work-item methods on that first parameter. Raises KernelTypeError for any other
    count.
    """
    params = _positional_parameters(fn)
    if params is None:
        return True  # *args kernels: the pure-Python launcher passes the item first
    name = getattr(fn, "__name__", "kernel")
    annotated = item_annotation(fn) is not None
    if annotated:
        if len(params) != nargs + 1:
            raise KernelTypeError(f"kernel {name}() takes {len(params) - 1} argument(s) after "
                                  f"its item, {nargs} given")
        return True
    if len(params) == nargs + 1:
        return True
    if len(params) == nargs and not uses_first_parameter_as_item(fn):
        return False
    raise KernelTypeError(
        f"kernel {name}() takes {max(len(params) - 1, 0)} argument(s) after its item (or "
        f"{len(params)} without an item parameter), {nargs} given")


def implicit_item_note(fn, nargs):
    """A sentence for errors about a first parameter that was taken as the work-item because
    of the parameter count (None when it was annotated)."""
    if item_annotation(fn) is not None:
        return None
    params = _positional_parameters(fn) or []
    first = params[0].name if params else "?"
    return (f"kernel {getattr(fn, '__name__', 'kernel')}() has {len(params)} parameters and "
            f"the launch passes {nargs} argument(s), so its first parameter '{first}' is taken "
            f"as the work-item; if '{first}' is meant to be an argument, pass it, and if the "
            f"kernel needs no item parameter, use dpk.get_global_id(d) in the body")


# ---- which names a kernel uses ----------------------------------------------------------------

#: Names whose use means the kernel needs work-groups (an NdRange launch).
GROUP_NAMES = frozenset({"get_local_id", "get_group_id", "get_local_size", "get_num_groups",
                         "barrier", "sub_group_barrier", "local", "group_barrier",
                         "LocalAccessor", "get_group"})
#: Names whose use means the pure-Python mode must run a group's work-items as threads.
BARRIER_NAMES = frozenset({"barrier", "sub_group_barrier", "group_barrier"})


def refers_to(fn, wanted, seen=None):
    """Whether `fn`, or a function it names (globals and closure cells, recursively), refers
    to one of the names in `wanted` (a conservative scan of the code objects' names)."""
    seen = set() if seen is None else seen
    fn = getattr(fn, "py_func", fn)
    code = getattr(fn, "__code__", None)
    if code is None or code in seen:
        return False
    seen.add(code)
    names = set()
    stack = [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    if names & wanted:
        return True
    env = getattr(fn, "__globals__", {})
    targets = [env.get(name) for name in names]
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            targets.append(cell.cell_contents)
        except ValueError:
            pass
    for target in targets:
        if target is not None and (inspect.isfunction(target) or hasattr(target, "py_func")):
            if refers_to(target, wanted, seen):
                return True
    return False


# ---- the local size dpk chooses ----------------------------------------------------------------

#: The largest work-group dpk chooses: within every device's limit (CUDA: 1024, PoCL and
#: Intel's CPU runtime: 4096 and 8192), a good size on GPUs, few threads in the pure-Python mode.
DEFAULT_GROUP_LIMIT = 256


def choose_local_size(global_range, limit=DEFAULT_GROUP_LIMIT):
    """A local size for `global_range` (a tuple) when the launch leaves it open: in every
    dimension a divisor of the global extent, the fastest-varying (last) dimension filled
    first, at most `limit` work-items in all."""
    local = [1] * len(global_range)
    budget = limit
    for d in reversed(range(len(global_range))):
        extent = global_range[d]
        best = 1
        for candidate in range(min(extent, budget), 0, -1):
            if extent % candidate == 0:
                best = candidate
                break
        local[d] = best
        budget //= best
    return tuple(local)


# ---- the current work-item of the pure-Python mode --------------------------------------------

_current = threading.local()


def set_current_item(item):
    """Called by the pure-Python launcher before running a work-item (None after)."""
    _current.item = item


def current_item(what):
    """The Item or NdItem being run in this thread by ``kernel_api.call_kernel``."""
    item = getattr(_current, "item", None)
    if item is None:
        raise RuntimeError(
            f"{what} is only meaningful inside a kernel: launch the kernel with "
            "kernel[global_size, local_size](args) or dpk.call_kernel (compiled), or with "
            "dpk.kernel_api.call_kernel (pure Python)")
    return item
