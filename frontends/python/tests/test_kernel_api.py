"""kernel_api in pure Python: ranges, ids, atomics, private/local arrays, and call_kernel with
and without barriers. These tests need no compiled extension."""

import threading

import numpy as np
import pytest

from dpk import kernel_api as kapi
from dpk import InvalidRangeError, KernelTypeError


def test_range_and_ndrange():
    r = kapi.Range(4, 3, 2)
    assert r == (4, 3, 2) and r.ndim == 3 and r.size() == 24 and r.get(1) == 3
    assert (r.dim0, r.dim1, r.dim2) == (4, 3, 2)
    assert kapi.Range(5).dim1 == kapi.Range.UNDEFINED_DIMENSION
    nd = kapi.NdRange((8, 4), (2, 2))
    assert nd.global_range == (8, 4) and nd.local_range == (2, 2)
    assert nd.get_global_range() == kapi.Range(8, 4) and nd.get_local_range() == (2, 2)
    assert nd == kapi.NdRange(kapi.Range(8, 4), kapi.Range(2, 2))
    with pytest.raises(InvalidRangeError):
        kapi.NdRange((10,), (3,))
    with pytest.raises(ValueError):  # InvalidRangeError is a ValueError
        kapi.NdRange((8, 8), (2,))
    with pytest.raises(TypeError):
        kapi.Range(2.5)


def test_item_ndItem_group_methods():
    seen = {}

    def k(it, out):
        out[it.get_global_id(0), it.get_global_id(1)] = it.get_global_linear_id()
        g = it.get_group()
        seen[it.get_global_linear_id()] = (
            it.get_local_id(0), it.get_local_id(1), it.get_local_linear_id(),
            it.get_global_range(1), it.get_local_range(0), g.get_group_id(0), g.get_group_id(1),
            g.get_group_linear_id(), tuple(g.get_group_range()), g.get_group_linear_range(),
            tuple(g.get_local_range()), g.get_local_linear_range(), g.leader, it.ndim)

    out = np.zeros((4, 6), dtype=np.int64)
    kapi.call_kernel(k, kapi.NdRange((4, 6), (2, 3)), out)
    assert (out == np.arange(24).reshape(4, 6)).all()
    # work-item (3, 4): local (1, 1), group (1, 1)
    assert seen[3 * 6 + 4] == (1, 1, 4, 6, 2, 1, 1, 3, (2, 2), 4, (2, 3), 6, False, 2)
    assert seen[0][12] is True


def test_item_range_kernel():
    def k(item, out):
        out[item.get_id(0), item.get_id(1)] = item.get_linear_id() + 100 * item.get_range(1)

    out = np.zeros((3, 5), dtype=np.int64)
    kapi.call_kernel(k, kapi.Range(3, 5), out)
    assert (out == np.arange(15).reshape(3, 5) + 500).all()


def test_atomic_ref_operations():
    a = np.array([10, 0b1100, 5, 7], dtype=np.int64)
    r = kapi.AtomicRef(a, 0)
    assert r.fetch_add(5) == 10 and a[0] == 15
    assert r.fetch_sub(3) == 15 and a[0] == 12
    assert r.fetch_min(4) == 12 and a[0] == 4
    assert r.fetch_max(9) == 4 and a[0] == 9
    b = kapi.AtomicRef(a, 1, memory_order=kapi.MemoryOrder.SEQ_CST)
    assert b.memory_order == kapi.MemoryOrder.SEQ_CST
    assert b.fetch_and(0b1010) == 0b1100 and a[1] == 0b1000
    assert b.fetch_or(1) == 0b1000 and a[1] == 0b1001
    assert b.fetch_xor(0b1111) == 0b1001 and a[1] == 0b0110
    c = kapi.AtomicRef(a, 2)
    assert c.exchange(8) == 5 and c.load() == 8
    c.store(3)
    assert a[2] == 3
    expected = np.array([3], dtype=np.int64)
    assert c.compare_exchange(expected, 11) and a[2] == 11
    assert not c.compare_exchange(expected, 12) and expected[0] == 11


def test_private_array_and_local_accessor():
    p = kapi.PrivateArray((2, 3), np.float32, fill_zeros=True)
    assert p[1, 2] == 0
    p[1, 2] = 5
    assert p[1, 2] == 5
    la = kapi.LocalAccessor((4, 2), np.int32)
    assert la.shape == (4, 2) and la.dtype == np.int32
    with pytest.raises(NotImplementedError):
        la[0, 0]
    with pytest.raises(TypeError):
        kapi.LocalAccessor((1, 2, 3, 4), np.float32)
    with pytest.raises(TypeError):
        kapi.LocalAccessor(4, np.complex64)


def test_enum_values_match_kapi():
    assert kapi.MemoryOrder.RELAXED == 0 and kapi.MemoryOrder.SEQ_CST == 5
    assert kapi.MemoryScope.WORK_GROUP == 2 and kapi.MemoryScope.DEVICE == 3
    assert kapi.AddressSpace.GLOBAL == 1 and kapi.AddressSpace.LOCAL == 3


def reduce_kernel(it, data, out, scratch):
    lid = it.get_local_id(0)
    g = it.get_group()
    scratch[lid] = data[it.get_global_id(0)]
    kapi.group_barrier(g)
    stride = it.get_local_range(0) // 2
    while stride > 0:  # a barrier inside a loop
        if lid < stride:
            scratch[lid] += scratch[lid + stride]
        kapi.group_barrier(g, kapi.MemoryScope.WORK_GROUP)
        stride //= 2
    if g.leader:
        out[g.get_group_id(0)] = scratch[0]


def test_call_kernel_with_barriers_and_local_memory():
    data = np.arange(64, dtype=np.float64)
    out = np.zeros(4)
    kapi.call_kernel(reduce_kernel, kapi.NdRange(64, 16), data, out,
                     kapi.LocalAccessor(16, np.float64))
    assert np.allclose(out, data.reshape(4, 16).sum(axis=1))


def test_barrier_orders_neighbour_reads():
    # Each item writes its slot, then (after the barrier) reads its neighbour's: wrong without
    # a real barrier because items run in order.
    def k(it, out, scratch):
        i = it.get_local_id(0)
        n = it.get_local_range(0)
        scratch[i] = i * 10
        kapi.group_barrier(it.get_group())
        out[it.get_global_id(0)] = scratch[(i + 1) % n]

    out = np.zeros(8, dtype=np.int64)
    kapi.call_kernel(k, kapi.NdRange(8, 4), out, kapi.LocalAccessor(4, np.int64))
    assert list(out) == [10, 20, 30, 0, 10, 20, 30, 0]


def test_divergent_barrier_is_reported():
    def k(it, out):
        if it.get_local_id(0) == 0:
            return
        kapi.group_barrier(it.get_group())

    with pytest.raises(kapi.BarrierDivergenceError):
        kapi.call_kernel(k, kapi.NdRange(4, 4), np.zeros(4))


def test_exception_in_work_item_propagates():
    def k(it, out):
        if it.get_local_id(0) == 2:
            raise RuntimeError("boom")
        kapi.group_barrier(it.get_group())

    with pytest.raises(RuntimeError, match="boom"):
        kapi.call_kernel(k, kapi.NdRange(4, 4), np.zeros(4))


def test_atomics_under_threads():
    def k(it, counter):
        kapi.group_barrier(it.get_group())
        kapi.AtomicRef(counter, 0).fetch_add(1)

    counter = np.zeros(1, dtype=np.int64)
    kapi.call_kernel(k, kapi.NdRange(64, 32), counter)
    assert counter[0] == 64


def test_errors_in_pure_python_mode():
    def k(item, a):
        pass

    with pytest.raises(KernelTypeError):
        kapi.call_kernel(k, kapi.Range(4))
    with pytest.raises(KernelTypeError):
        kapi.call_kernel(k, kapi.Range(4), kapi.LocalAccessor(4, np.float32))
    with pytest.raises(TypeError):
        kapi.call_kernel(k, 4, np.zeros(4))


def test_private_array_in_kernel_and_fence():
    def k(item, out):
        p = kapi.PrivateArray(3, np.int64, fill_zeros=True)
        for j in range(3):
            p[j] = item.get_id(0) * j
        kapi.atomic_fence(kapi.MemoryOrder.SEQ_CST, kapi.MemoryScope.DEVICE)
        out[item.get_id(0)] = p[0] + p[1] + p[2]

    out = np.zeros(5, dtype=np.int64)
    kapi.call_kernel(k, kapi.Range(5), out)
    assert list(out) == [0, 3, 6, 9, 12]


def test_kernel_api_names_match_numba_dpex():
    for name in ["AddressSpace", "atomic_fence", "AtomicRef", "MemoryOrder", "MemoryScope",
                 "NdRange", "Range", "Group", "NdItem", "Item", "group_barrier", "call_kernel",
                 "LocalAccessor", "PrivateArray"]:
        assert hasattr(kapi, name), name
