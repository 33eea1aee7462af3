"""dpk arrays: creation, transfers, interchange (NumPy, DLPack, __cuda_array_interface__) and
compute-follows-data."""

import numpy as np
import pytest

import dpk


def test_creation_and_transfers(device):
    a = dpk.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device=device)
    assert a.shape == (2, 3) and a.dtype == np.float32 and a.ndim == 2 and a.size == 6
    assert a.device is device
    np.testing.assert_array_equal(a.asnumpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(a), a.asnumpy())
    assert (dpk.zeros((3, 2), np.int32, device=device).asnumpy() == 0).all()
    assert (dpk.ones(5, np.float64, device=device).asnumpy() == 1).all()
    e = dpk.empty(4, np.int64, device=device)
    assert e.shape == (4,) and e.nbytes == 32
    assert dpk.asarray(a) is a
    assert dpk.asarray(a, device=device) is a
    c = a.copy()
    assert c is not a and (c.asnumpy() == a.asnumpy()).all()
    assert "dpk.Array" in repr(a)


def test_to_device(device, host):
    a = dpk.asarray(np.arange(4.0), device=host)
    b = a.to_device(device)
    assert b.device is device
    np.testing.assert_array_equal(b.asnumpy(), np.arange(4.0))
    assert a.to_device(host) is a


def test_host_arrays_share_memory_with_numpy(host):
    a = dpk.asarray(np.arange(4, dtype=np.int32), device="host")
    view = np.asarray(a)
    view[1] = 42  # zero-copy: the view is the array's memory
    assert a.asnumpy()[1] == 42
    via_dlpack = np.from_dlpack(a)
    assert via_dlpack[1] == 42 and a.__dlpack_device__() == (1, 0)


def test_host_wrap_without_copy_takes_any_whole_element_strides(host):
    # Negative strides reach below the first element's address; the wrap must cover them.
    r = np.arange(10.0)[::-2]
    d = dpk.asarray(r, device="host", copy=False)
    np.testing.assert_array_equal(d.asnumpy(), r)
    d[0] = 100.0
    assert r[0] == 100.0  # the caller's memory
    np.testing.assert_array_equal((d * 2).asnumpy(), r * 2)
    # A field of a structured array is not a whole number of elements apart: copied, not
    # wrapped wrongly.
    s = np.zeros(5, dtype=[("a", "f4"), ("b", "f8")])
    s["b"] = np.arange(5)
    with pytest.raises(ValueError, match="not multiples of its element size"):
        dpk.asarray(s["b"], device="host", copy=False)
    np.testing.assert_array_equal(dpk.asarray(s["b"], device="host").asnumpy(), np.arange(5.0))


class _DLPackProducer:
    """A foreign array that only speaks DLPack (as a CPU torch/jax array would)."""

    def __init__(self, arr):
        self._arr = arr

    def __dlpack__(self, **kwargs):
        return self._arr.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


def test_dlpack_producer_import(device):
    src = np.arange(8, dtype=np.float64)
    a = dpk.asarray(_DLPackProducer(src), device=device)
    np.testing.assert_array_equal(a.asnumpy(), src)


class _CudaProducer:
    """A foreign CUDA array (as CuPy or Numba would hand over) over memory dpk allocated."""

    def __init__(self, owner):
        self.owner = owner
        self.__cuda_array_interface__ = {"shape": owner.shape, "typestr": owner.dtype.str,
                                         "data": (owner._ptr, False), "strides": None,
                                         "version": 3}


def test_cuda_array_interface(core):
    cuda = [d for d in dpk.get_devices() if d.backend == "cuda"]
    if not cuda:
        class FakeCuda:
            __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False),
                                        "version": 3}

        with pytest.raises(dpk.UnsupportedError, match="CUDA"):
            dpk.asarray(FakeCuda(), device="host")
        return
    backing = dpk.zeros(8, np.float32, device=cuda[0])
    wrapped = dpk.asarray(_CudaProducer(backing), device=cuda[0])
    assert wrapped._ptr == backing._ptr  # zero-copy
    dpk.call_kernel(add_one, dpk.Range(8), wrapped)
    assert (backing.asnumpy() == 1).all()
    staged = dpk.asarray(_CudaProducer(backing), device="host")  # copied through the GPU
    assert staged.device.is_host and (staged.asnumpy() == 1).all()


@dpk.kernel
def add_one(item, a):
    a[item.get_id(0)] += 1


def test_compute_follows_data(device):
    a = dpk.asarray(np.zeros(8, dtype=np.float32), device=device)
    dpk.call_kernel(add_one, dpk.Range(8), a)  # runs on a's device
    assert (a.asnumpy() == 1).all()


def test_numpy_arrays_on_a_device_kernel(device):
    # A kernel bound to a device gets NumPy arrays copied there and back.
    @dpk.kernel(device=device.filter_string)
    def twice(item, a):
        a[item.get_id(0)] *= 2

    x = np.arange(5, dtype=np.float32)
    dpk.call_kernel(twice, dpk.Range(5), x)
    np.testing.assert_array_equal(x, np.arange(5) * 2)


def test_devices_and_filters(core):
    devices = dpk.get_devices()
    assert devices  # the policy (or DPK_DEVICE_SELECTOR) may leave the host out
    host = dpk.select_device("host")
    assert host.backend == "host" and host.device_type == "cpu"
    assert dpk.select_device(host) is host
    if not __import__("os").environ.get("DPK_DEVICE_SELECTOR"):
        assert dpk.has_device("host")
    if dpk.has_device("opencl:cpu"):
        cl = dpk.select_device("opencl:cpu")
        assert cl.backend == "opencl" and not cl.is_host
