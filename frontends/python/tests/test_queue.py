"""dpk.Queue: launches on a queue the caller made (call_kernel / call_kernel_async with
queue=), its device rules, synchronize(), and event timing on profiling queues of every
device."""

import pickle

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi


@dpk.kernel
def add_one(item: kapi.Item, a):
    i = item.get_id(0)
    a[i] += 1


@dpk.kernel
def copy_kernel(item: kapi.Item, src, dst):
    i = item.get_id(0)
    dst[i] = src[i]


def test_queue_properties(device):
    q = dpk.Queue(device)
    assert q.device is device and q.sycl_device is device
    assert q.is_in_order and not q.has_enable_profiling
    p = dpk.Queue(device.filter_string, in_order=False, enable_profiling=True)
    assert p.device is device and not p.is_in_order and p.has_enable_profiling
    assert "profiling" in repr(p) and "out of order" in repr(p)
    with dpk.device_context(device):
        assert dpk.Queue().device is device


def test_call_kernel_on_a_queue_runs_on_its_device(device):
    q = dpk.Queue(device)
    a = dpk.zeros(1000, dtype=dpk.int32, device=device)
    dpk.call_kernel(add_one, dpk.Range(1000), a, queue=q)
    dpk.call_kernel(add_one, dpk.Range(1000), a, queue=q)  # warm: the queue's plan
    np.testing.assert_array_equal(a.asnumpy(), np.full(1000, 2))


def test_async_launches_on_an_in_order_queue_run_in_order(device):
    q = dpk.Queue(device)
    a = dpk.zeros(4096, dtype=dpk.float32, device=device)
    events = [dpk.call_kernel_async(add_one, dpk.Range(4096), [], a, queue=q)
              for _ in range(5)]
    q.synchronize()
    assert all(e.status() == 2 for e in events)
    np.testing.assert_array_equal(a.asnumpy(), np.full(4096, 5.0, dtype=np.float32))


def test_out_of_order_queue_orders_by_events(device):
    q = dpk.Queue(device, in_order=False)
    a = dpk.zeros(512, dtype=dpk.int64, device=device)
    ev = dpk.call_kernel_async(add_one, dpk.Range(512), [], a, queue=q)
    ev = dpk.call_kernel_async(add_one, dpk.Range(512), [ev], a, queue=q)
    ev.wait()
    np.testing.assert_array_equal(a.asnumpy(), np.full(512, 2))


def test_array_creation_takes_a_queue_for_its_device(device):
    q = dpk.Queue(device)
    assert dpk.zeros(3, device=q).device is device
    assert dpk.asarray(np.arange(3), device=q).device is device


def test_numpy_arguments_on_a_queue(device):
    """NumPy arrays: zero-copy on the host; elsewhere staged through the device's own queue
    after the given queue's work."""
    q = dpk.Queue(device)
    src = np.arange(100, dtype=np.float64)
    dst = np.zeros_like(src)
    dpk.call_kernel(copy_kernel, dpk.Range(100), src, dst, queue=q)
    np.testing.assert_array_equal(dst, src)
    ev = dpk.call_kernel_async(copy_kernel, dpk.Range(100), [], src * 2, dst, queue=q)
    ev.wait()
    np.testing.assert_array_equal(dst, src * 2)


def test_queue_of_another_device_is_a_placement_error(device, host):
    others = [d for d in dpk.get_devices() if d is not device]
    if not others:
        pytest.skip("needs a second device")
    a = dpk.zeros(8, device=others[0])
    with pytest.raises(dpk.PlacementError, match=device.filter_string):
        dpk.call_kernel(add_one, dpk.Range(8), a, queue=dpk.Queue(device))


def test_kernel_bound_elsewhere_rejects_the_queue(device):
    others = [d for d in dpk.get_devices() if d is not device]
    if not others:
        pytest.skip("needs a second device")

    @dpk.kernel(device=others[0].filter_string)
    def bound(item: kapi.Item, a):
        a[item.get_id(0)] = 1

    with pytest.raises(dpk.PlacementError, match="is bound to"):
        dpk.call_kernel(bound, dpk.Range(4), dpk.zeros(4, device=device),
                        queue=dpk.Queue(device))


def test_queue_argument_must_be_a_queue(device):
    with pytest.raises(TypeError, match="dpk.Queue"):
        dpk.call_kernel(add_one, dpk.Range(4), dpk.zeros(4, device=device), queue=device)


@pytest.mark.parametrize("in_order", [True, False])
def test_profiling_queue_times_a_launch(device, in_order):
    q = dpk.Queue(device, in_order=in_order, enable_profiling=True)
    a = dpk.zeros(1 << 18, dtype=dpk.float32, device=device)
    dpk.call_kernel(add_one, dpk.Range(1 << 18), a, queue=q)  # compile outside the timing
    ev = dpk.call_kernel_async(add_one, dpk.Range(1 << 18), [], a, queue=q)
    ns = ev.elapsed_ns()  # waits for the kernel
    assert isinstance(ns, int) and 0 < ns < 60 * 10**9
    np.testing.assert_array_equal(a.asnumpy()[:4], np.full(4, 2.0, dtype=np.float32))


def test_timing_without_profiling_says_how_to_get_it(device):
    a = dpk.zeros(64, device=device)
    for q in (dpk.Queue(device), None):
        ev = dpk.call_kernel_async(add_one, dpk.Range(64), [], a, queue=q)
        with pytest.raises(dpk.UnsupportedError, match=r"enable_profiling=True"):
            ev.elapsed_ns()
        ev.wait()


def test_queue_pickles_as_its_device_and_properties(device):
    q = dpk.Queue(device, in_order=False, enable_profiling=True)
    q2 = pickle.loads(pickle.dumps(q))
    assert q2 is not q and q2.device is device
    assert not q2.is_in_order and q2.has_enable_profiling
