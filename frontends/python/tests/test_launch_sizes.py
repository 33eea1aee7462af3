"""Launch ranges of every size on every device (issue 15, items H and Q).

Range launches on OpenCL devices run in a fixed work-group shape, as whole work-groups plus a
guarded remainder (core/compiler/RangeGuard.h), so that the OpenCL implementation compiles the
same two binaries for every size; these tests check that each work-item still runs exactly once and sees the size
it was launched with, that an NdRange keeps the caller's local size, and that ranges beyond a
device's limits are typed errors, not aborts or hangs. No test here times anything.
"""

import numpy as np
import pytest

import dpk

SIZES = list(range(1, 301)) + [509, 1021, 4093, 4099, 65537, 1000003]


@dpk.kernel
def count1(item, hits, sizes):
    i = item.get_id(0)
    hits[i] += 1
    sizes[i] = item.get_range(0)


@dpk.kernel
def count2(item, hits, sizes):
    i = item.get_id(0)
    j = item.get_id(1)
    k = i * item.get_range(1) + j
    hits[k] += 1
    sizes[k] = item.get_range(0) * item.get_range(1)


@dpk.kernel
def local_sizes(nd_item, hits, locals_):
    i = nd_item.get_global_id(0)
    hits[i] += 1
    locals_[i] = nd_item.get_local_range(0)


@dpk.kernel
def nothing(item, out):
    pass


def _buffers(device, capacity):
    hits = dpk.asarray(np.zeros(capacity, dtype=np.int32), device=device)
    sizes = dpk.asarray(np.full(capacity, -1, dtype=np.int64), device=device)
    return hits, sizes


def _check(hits, sizes, items, expected, what):
    hits, sizes = hits.asnumpy(), sizes.asnumpy()
    assert np.array_equal(hits[:items], np.ones(items, dtype=np.int32)), what
    assert not hits[items:].any(), f"{what}: work-items past the range ran"
    assert np.array_equal(sizes[:items], np.full(items, expected, dtype=np.int64)), what
    assert (sizes[items:] == -1).all(), what


def test_every_range_size_runs_each_item_once(device):
    for n in SIZES:
        hits, sizes = _buffers(device, n + 2048)
        dpk.call_kernel(count1, dpk.Range(n), hits, sizes)
        _check(hits, sizes, n, n, f"Range({n}) on {device}")


def test_two_dimensional_ranges(device):
    for shape in [(1, 1), (3, 5), (2, 257), (257, 2), (17, 31), (100, 3), (3, 1000), (131, 509)]:
        items = shape[0] * shape[1]
        hits, sizes = _buffers(device, items + 4096)
        dpk.call_kernel(count2, dpk.Range(*shape), hits, sizes)
        _check(hits, sizes, items, items, f"Range{shape} on {device}")


def test_nd_range_keeps_the_callers_local_size(device):
    for local in (1, 3, 12, 20, 60):
        hits, locals_ = _buffers(device, 60 + 1024)
        dpk.call_kernel(local_sizes, dpk.NdRange(dpk.Range(60), dpk.Range(local)), hits, locals_)
        _check(hits, locals_, 60, local, f"NdRange(60, {local}) on {device}")


def test_huge_ranges_are_typed_errors(device):
    out = dpk.asarray(np.zeros(4, dtype=np.int32), device=device)
    # Kernels number work-items with signed 64-bit ids.
    for index_range in (dpk.Range(2 ** 63), dpk.Range(2 ** 32, 2 ** 31),
                        dpk.NdRange(dpk.Range(2 ** 32, 2 ** 31), dpk.Range(1, 1))):
        with pytest.raises(dpk.InvalidRangeError, match=r"2\^63"):
            dpk.call_kernel(nothing, index_range, out)
    if device.device_type == "cpu":
        # The host ran 2^62 work-items for months and PoCL aborted the interpreter; a CPU runs
        # at most 2^44 in one launch.
        for index_range in (dpk.Range(2 ** 62), dpk.Range(2 ** 44 + 1), dpk.Range(2 ** 31, 2 ** 31)):
            with pytest.raises(dpk.InvalidRangeError, match=r"2\^44"):
                dpk.call_kernel(nothing, index_range, out)
    if device.name.startswith("pthread"):
        # PoCL counts a launch's work-groups in 32 bits (it aborted in `assert (max_wgs > 0)`).
        with pytest.raises(dpk.InvalidRangeError, match="work-groups"):
            dpk.call_kernel(nothing, dpk.Range(2 ** 42), out)
