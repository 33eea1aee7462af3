"""DLPack beyond NumPy: the extension's importer/exporter, foreign arrays as kernel arguments,
and kDLCUDA producers (wrapped without copies on their CUDA device).

Tests marked `needs_cuda` run only where dpk has a CUDA device (the GPU machine); on a machine
without one they skip, and the no-GPU behaviour (a clear error) is checked instead.
"""

import numpy as np
import pytest

import dpk

KDL_CPU, KDL_CUDA = 1, 2


def _cuda_devices():
    try:
        return [d for d in dpk.get_devices() if d.backend == "cuda"]
    except ImportError:
        return []


CUDA = _cuda_devices()
needs_cuda = pytest.mark.skipif(not CUDA, reason="needs a dpk CUDA device")
needs_no_cuda = pytest.mark.skipif(bool(CUDA), reason="checks the behaviour without CUDA devices")


class DLPackOnly:
    """A foreign array that speaks only DLPack (like a torch or jax array): no buffer protocol,
    no __cuda_array_interface__."""

    def __init__(self, source):
        self.source = source

    def __dlpack__(self, **kwargs):
        return self.source.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.source.__dlpack_device__()


@dpk.kernel
def add_one(item, a):
    a[item.get_id(0)] += 1


# ---- the extension's DLPack importer and exporter (no device needed) -------------------------

def test_import_reads_address_shape_strides_and_type(core):
    base = np.arange(12, dtype=np.int16).reshape(3, 4)
    view = core.dlpack_import(base)
    assert view.ptr == base.ctypes.data
    assert view.shape == (3, 4) and view.strides == (4, 1)
    assert view.typestr == "<i2" and view.device == (KDL_CPU, 0)
    # A strided view: the address of its first element and strides in elements.
    sub = base[1:, ::2]
    view = core.dlpack_import(sub)
    assert view.ptr == sub.ctypes.data and view.shape == (2, 2) and view.strides == (4, 2)
    assert core.dlpack_import(np.zeros(2, dtype=bool)).typestr == "|b1"


def test_import_rejects_non_producers(core):
    with pytest.raises(dpk.UnsupportedError, match="DLPack"):
        core.dlpack_import(object())


def test_export_shares_memory_and_keeps_the_owner_alive(core):
    backing = np.zeros(6, dtype=np.float32)
    exported = core.dlpack_export(backing.ctypes.data, [2, 3], "<f4", KDL_CPU, 0, backing)
    assert exported.__dlpack_device__() == (KDL_CPU, 0)
    view = np.from_dlpack(exported)
    view[1, 2] = 7
    assert backing[5] == 7 and view.shape == (2, 3)


def test_cpu_dlpack_producer_as_kernel_argument(device):
    # No dpk.asarray needed: the producer's tensor becomes a NumPy view for the launch, so the
    # kernel's writes land in the producer's memory (copied back on a device that needs copies).
    src = np.arange(4, dtype=np.float32)

    @dpk.kernel(device=device.filter_string)
    def inc(item, a):
        a[item.get_id(0)] += 1

    dpk.call_kernel(inc, dpk.Range(4), DLPackOnly(src))
    np.testing.assert_array_equal(src, [1, 2, 3, 4])


# ---- kDLCUDA without a CUDA device: clear errors -----------------------------------------------

class FakeCudaProducer:
    """Claims to live on CUDA device 0; touching its memory would be a bug."""

    def __dlpack_device__(self):
        return (KDL_CUDA, 0)

    def __dlpack__(self, **kwargs):
        raise AssertionError("dpk must not import a CUDA tensor without a CUDA device")


@needs_no_cuda
def test_cuda_producer_without_cuda_device_is_a_clear_error(core):
    with pytest.raises(dpk.UnsupportedError, match=r"CUDA device 0.*dpk's CUDA devices: none"):
        dpk.asarray(FakeCudaProducer())
    with pytest.raises(dpk.UnsupportedError, match="CUDA device 0"):
        dpk.asarray(FakeCudaProducer(), device="host")  # no staging through a missing GPU
    with pytest.raises(dpk.UnsupportedError, match="CUDA device 0"):
        dpk.call_kernel(add_one, dpk.Range(4), FakeCudaProducer())


@needs_no_cuda
def test_cuda_array_interface_argument_without_cuda_device(core):
    class CudaInterfaceOnly:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False),
                                    "version": 3}

    with pytest.raises(dpk.UnsupportedError, match="needs a CUDA device"):
        dpk.call_kernel(add_one, dpk.Range(4), CudaInterfaceOnly())


@needs_no_cuda
def test_real_kdlcuda_capsule_without_cuda_device(core):
    # A genuine kDLCUDA capsule (made by the exporter over host memory it never reads).
    backing = np.zeros(4, dtype=np.float32)
    producer = core.dlpack_export(backing.ctypes.data, [4], "<f4", KDL_CUDA, 3, backing)
    assert producer.__dlpack_device__() == (KDL_CUDA, 3)
    assert core.dlpack_import(producer).device == (KDL_CUDA, 3)
    with pytest.raises(dpk.UnsupportedError, match="CUDA device 3"):
        dpk.asarray(producer)


def test_dlpack_export_by_device(device):
    # Host arrays export kDLCPU, CUDA arrays kDLCUDA; other devices' memory is not addressable
    # by DLPack consumers, so they refuse with the way out.
    a = dpk.zeros(4, np.float32, device=device)
    if device.is_host:
        assert a.__dlpack_device__() == (KDL_CPU, 0)
        assert np.from_dlpack(a).shape == (4,)
    elif device.backend == "cuda":
        assert a.__dlpack_device__() == (KDL_CUDA, device.ordinal)
    else:
        with pytest.raises(dpk.UnsupportedError, match="asnumpy"):
            a.__dlpack__()


# ---- kDLCUDA with a CUDA device (GPU machine) ----------------------------------------------

@needs_cuda
def test_cuda_array_exports_kdlcuda():
    a = dpk.zeros(8, np.float32, device=CUDA[0])
    assert a.__dlpack_device__() == (KDL_CUDA, CUDA[0].ordinal)
    view = dpk._core_loader.core().dlpack_import(a)
    assert view.ptr == a._ptr and view.device == (KDL_CUDA, CUDA[0].ordinal)
    assert view.shape == (8,) and view.typestr == "<f4"


@needs_cuda
def test_cuda_dlpack_producer_is_wrapped_without_copy():
    backing = dpk.zeros(8, np.float32, device=CUDA[0])
    wrapped = dpk.asarray(DLPackOnly(backing))
    assert wrapped._ptr == backing._ptr and wrapped.device is CUDA[0]
    dpk.call_kernel(add_one, dpk.Range(8), wrapped)
    assert (backing.asnumpy() == 1).all()
    staged = dpk.asarray(DLPackOnly(backing), device="host")  # another device: a copy
    assert staged.device.is_host and (staged.asnumpy() == 1).all()


@needs_cuda
def test_cuda_dlpack_producer_as_kernel_argument():
    backing = dpk.zeros(8, np.float32, device=CUDA[0])
    dpk.call_kernel(add_one, dpk.Range(8), DLPackOnly(backing))  # runs on the CUDA device
    dpk.call_kernel(add_one, dpk.Range(8), DLPackOnly(backing))
    assert (backing.asnumpy() == 2).all()


@needs_cuda
def test_cuda_array_interface_as_kernel_argument():
    backing = dpk.zeros(8, np.float32, device=CUDA[0])

    class CudaInterfaceOnly:
        __cuda_array_interface__ = {"shape": (8,), "typestr": "<f4",
                                    "data": (backing._ptr, False), "strides": None, "version": 3}

    dpk.call_kernel(add_one, dpk.Range(8), CudaInterfaceOnly())
    assert (backing.asnumpy() == 1).all()
