"""Pure-Python execution of kernels: ``kernel_api.call_kernel`` (for debugging).

Range launches run work-item after work-item. NdRange launches run work-group after work-group;
when the kernel can reach a barrier (``group_barrier``, or the OpenCL-style ``barrier``) the
work-items of a group run as threads that meet at a per-group barrier (so barriers inside loops
and branches work as on a device, as long as every work-item of the group reaches them),
otherwise they run one after another. Each work-group gets fresh arrays for its LocalAccessor
arguments and for the ``local.array`` calls of its work-items.

Kernels without an item parameter (numba-dppy style, see work_items.takes_item) are called with
their arguments only; the OpenCL-style functions (``dpk.get_global_id``, ...) read the
work-item this module records for the running thread. Such a kernel launched over a plain Range
that uses work-groups (local ids, barriers, local memory) runs over an NdRange whose local size
dpk chooses, as the compiled launch does.
"""

from __future__ import annotations

import itertools
import threading

from ..._errors import InvalidRangeError, KernelTypeError
from .barrier import BarrierDivergenceError, _GroupBarrier
from .index_space_ids import Group, Item, NdItem
from .local_accessor import LocalAccessor
from .ranges import NdRange, Range
from .work_items import (BARRIER_NAMES, GROUP_NAMES, choose_local_size, refers_to,
                         set_current_item, takes_item)


def _python_function(kernel):
    fn = getattr(kernel, "py_func", kernel)
    if not callable(fn):
        raise TypeError("call_kernel expects a kernel function as its first argument")
    return fn


def _may_reach_barrier(fn):
    """Whether `fn` or a function it names refers to a barrier (a conservative scan)."""
    return refers_to(fn, BARRIER_NAMES)


def _invoke(fn, item, args, with_item):
    set_current_item(item)
    try:
        if with_item:
            fn(item, *args)
        else:
            fn(*args)
    finally:
        set_current_item(None)


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


def _run_range(fn, index_range, args, with_item):
    if any(isinstance(a, LocalAccessor) for a in args):
        raise KernelTypeError("LocalAccessor arguments need an NdRange launch, not a Range")
    for index in itertools.product(*(range(n) for n in index_range)):
        _invoke(fn, Item(index_range, index), args, with_item)


def _run_group_sequential(fn, nd_range, group_range, group_index, local_indices, args,
                          with_item):
    gr, lr = nd_range.global_range, nd_range.local_range
    local_store = {}
    for local_index in local_indices:
        global_index = tuple(g * l + i for g, l, i in zip(group_index, lr, local_index))
        group = Group(gr, lr, group_range, group_index)
        group._local_store = local_store
        item = NdItem(Item(gr, global_index), Item(lr, local_index), group)
        group.leader = not any(local_index)
        _invoke(fn, item, args, with_item)


def _run_group_threads(fn, nd_range, group_range, group_index, local_indices, args, with_item):
    gr, lr = nd_range.global_range, nd_range.local_range
    barrier = _GroupBarrier(len(local_indices))
    local_store = {}
    errors = []

    def work_item(local_index):
        global_index = tuple(g * l + i for g, l, i in zip(group_index, lr, local_index))
        group = Group(gr, lr, group_range, group_index)
        group._barrier = barrier
        group._local_store = local_store
        group.leader = not any(local_index)
        item = NdItem(Item(gr, global_index), Item(lr, local_index), group)
        try:
            _invoke(fn, item, args, with_item)
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


def _run_nd_range(fn, nd_range, args, use_threads, with_item):
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
        run_group(fn, nd_range, group_range, group_index, local_indices, group_args, with_item)


def call_kernel(kernel, index_range, *kernel_args):
    """Runs ``kernel`` over ``index_range`` (a Range or an NdRange) in plain Python.

    ``kernel`` may be a plain function or a ``dpk.kernel``, with the work-item as its first
    parameter (kapi style) or without it (OpenCL style: ``dpk.get_global_id(d)``). NumPy
    arrays are updated in place; dpk device arrays are copied to the host and back.
    """
    fn = _python_function(kernel)
    with_item = takes_item(fn, len(kernel_args))
    args, write_back = _host_args(kernel_args)
    if isinstance(index_range, Range) and not with_item and refers_to(fn, GROUP_NAMES):
        index_range = NdRange(index_range, choose_local_size(tuple(index_range)))
    if isinstance(index_range, NdRange):
        _run_nd_range(fn, index_range, args, _may_reach_barrier(fn), with_item)
    elif isinstance(index_range, Range):
        _run_range(fn, index_range, args, with_item)
    else:
        raise TypeError("call_kernel expects a Range or an NdRange as its second argument, got "
                        f"{type(index_range).__name__}")
    for device_array, host in write_back:
        device_array._copy_from_host(host)
