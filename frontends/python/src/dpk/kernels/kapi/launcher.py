"""Pure-Python execution of kernels: ``kernel_api.call_kernel`` (for debugging).

Range launches run work-item after work-item. NdRange launches run work-group after work-group;
when the kernel can reach ``group_barrier`` the work-items of a group run as threads that meet at
a per-group barrier (so barriers inside loops and branches work as on a device, as long as every
work-item of the group reaches them), otherwise they run one after another. Each work-group gets
fresh arrays for its LocalAccessor arguments.
"""

from __future__ import annotations

import inspect
import itertools
import threading
import types

from ..._errors import InvalidRangeError, KernelTypeError
from .barrier import BarrierDivergenceError, _GroupBarrier
from .index_space_ids import Group, Item, NdItem
from .local_accessor import LocalAccessor
from .ranges import NdRange, Range


def _python_function(kernel):
    fn = getattr(kernel, "py_func", kernel)
    if not callable(fn):
        raise TypeError("call_kernel expects a kernel function as its first argument")
    return fn


def _check_arg_count(fn, args):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params.values()):
        return
    if len(params) != len(args) + 1:
        raise KernelTypeError(
            f"kernel {fn.__name__}() takes {len(params) - 1} argument(s) after its item, "
            f"{len(args)} given")


def _may_reach_barrier(fn, seen=None):
    """Whether `fn` or a function it names refers to group_barrier (a conservative scan)."""
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
    if "group_barrier" in names:
        return True
    env = getattr(fn, "__globals__", {})
    for name in names:
        target = env.get(name)
        if target is not None and (inspect.isfunction(target) or hasattr(target, "py_func")):
            if _may_reach_barrier(target, seen):
                return True
    return False


def _host_args(args):
    """dpk arrays become NumPy copies (written back after the run); others pass through."""
    converted, write_back = [], []
    for arg in args:
        if getattr(arg, "_dpk_array", False):
            host = arg.asnumpy()
            converted.append(host)
            write_back.append((arg, host))
        else:
            converted.append(arg)
    return converted, write_back


def _run_range(fn, index_range, args):
    if any(isinstance(a, LocalAccessor) for a in args):
        raise KernelTypeError("LocalAccessor arguments need an NdRange launch, not a Range")
    for index in itertools.product(*(range(n) for n in index_range)):
        fn(Item(index_range, index), *args)


def _run_group_sequential(fn, nd_range, group_range, group_index, local_indices, args):
    gr, lr = nd_range.global_range, nd_range.local_range
    for local_index in local_indices:
        global_index = tuple(g * l + i for g, l, i in zip(group_index, lr, local_index))
        group = Group(gr, lr, group_range, group_index)
        item = NdItem(Item(gr, global_index), Item(lr, local_index), group)
        group.leader = not any(local_index)
        fn(item, *args)


def _run_group_threads(fn, nd_range, group_range, group_index, local_indices, args):
    gr, lr = nd_range.global_range, nd_range.local_range
    barrier = _GroupBarrier(len(local_indices))
    errors = []

    def work_item(local_index):
        global_index = tuple(g * l + i for g, l, i in zip(group_index, lr, local_index))
        group = Group(gr, lr, group_range, group_index)
        group._barrier = barrier
        group.leader = not any(local_index)
        item = NdItem(Item(gr, global_index), Item(lr, local_index), group)
        try:
            fn(item, *args)
        except BaseException as exc:  # reported by the launching thread
            errors.append(exc)
            barrier.abort(f"work-item {local_index} of group {group_index} raised "
                          f"{type(exc).__name__}: {exc}")
        finally:
            barrier.item_finished()

    threads = [threading.Thread(target=work_item, args=(li,), daemon=True)
               for li in local_indices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        # The first error that is not merely the broken barrier seen by the others.
        primary = [e for e in errors if not isinstance(e, BarrierDivergenceError)]
        raise (primary or errors)[0]


def _run_nd_range(fn, nd_range, args, use_threads):
    gr, lr = nd_range.global_range, nd_range.local_range
    for dim, (g, l) in enumerate(zip(gr, lr)):
        if g % l:
            raise InvalidRangeError(f"in dimension {dim} the local size {l} does not divide the "
                                    f"global size {g}")
    group_range = Range(*(g // l for g, l in zip(gr, lr)))
    local_indices = list(itertools.product(*(range(n) for n in lr)))
    run_group = _run_group_threads if use_threads else _run_group_sequential
    for group_index in itertools.product(*(range(n) for n in group_range)):
        group_args = [a._allocate() if isinstance(a, LocalAccessor) else a for a in args]
        run_group(fn, nd_range, group_range, group_index, local_indices, group_args)


def call_kernel(kernel, index_range, *kernel_args):
    """Runs ``kernel`` over ``index_range`` (a Range or an NdRange) in plain Python.

    ``kernel`` may be a plain function or a ``dpk.kernel``. NumPy arrays are updated in place;
    dpk device arrays are copied to the host and back.
    """
    fn = _python_function(kernel)
    _check_arg_count(fn, kernel_args)
    args, write_back = _host_args(kernel_args)
    if isinstance(index_range, NdRange):
        _run_nd_range(fn, index_range, args, _may_reach_barrier(fn))
    elif isinstance(index_range, Range):
        _run_range(fn, index_range, args)
    else:
        raise TypeError("call_kernel expects a Range or an NdRange as its second argument, got "
                        f"{type(index_range).__name__}")
    for device_array, host in write_back:
        device_array._copy_from_host(host)
