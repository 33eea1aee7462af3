"""__cuda_array_interface__ (version 3) exported by dpk arrays in CUDA memory, and taken back
without a copy; arrays of other devices have no such attribute. The CUDA tests skip without a
dpk CUDA device; the CuPy and PyTorch ones also without those packages."""

import numpy as np
import pytest

import dpk

needs_cuda = pytest.mark.skipif(not dpk.has_device("cuda:gpu"), reason="needs a dpk CUDA device")


class _Producer:
    """Exposes only a __cuda_array_interface__ dict (as Numba's device arrays do)."""

    def __init__(self, cai, owner):
        self.__cuda_array_interface__ = cai
        self.owner = owner


def test_non_cuda_arrays_have_no_cuda_array_interface(device):
    if device.backend == "cuda":
        pytest.skip("a CUDA device")
    a = dpk.zeros(4, device=device)
    assert not hasattr(a, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match=device.filter_string):
        a.__cuda_array_interface__


@needs_cuda
def test_cuda_array_exports_version_3():
    a = dpk.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device="cuda:gpu")
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 4) and cai["typestr"] == "<f4"
    assert cai["data"] == (a._ptr, False) and cai["strides"] is None and cai["stream"] is None
    view = a[:, ::2]
    vcai = view.__cuda_array_interface__
    assert vcai["shape"] == (3, 2) and vcai["strides"] == (16, 8)
    assert vcai["data"][0] == a._ptr
    empty = dpk.zeros((0,), device="cuda:gpu")
    assert empty.__cuda_array_interface__["data"][0] == 0


@needs_cuda
def test_cuda_array_interface_roundtrip_is_zero_copy():
    a = dpk.asarray(np.arange(8, dtype=np.int64), device="cuda:gpu")
    b = dpk.asarray(_Producer(a.__cuda_array_interface__, a), device=a.device)
    assert b.device is a.device and b._ptr == a._ptr
    b[0] = 42
    assert a.asnumpy()[0] == 42


@needs_cuda
def test_lazy_result_exports_its_value():
    a = dpk.asarray(np.arange(5.0), device="cuda:gpu")
    lazy = a * 2 + 1
    b = dpk.asarray(_Producer(lazy.__cuda_array_interface__, lazy), device=a.device)
    np.testing.assert_array_equal(b.asnumpy(), np.arange(5.0) * 2 + 1)


@needs_cuda
def test_cupy_takes_dpk_arrays_without_copy():
    cupy = pytest.importorskip("cupy")
    a = dpk.asarray(np.arange(16, dtype=np.float32), device="cuda:gpu")
    c = cupy.asarray(a)
    assert c.data.ptr == a._ptr
    c *= 2
    np.testing.assert_array_equal(a.asnumpy(), np.arange(16, dtype=np.float32) * 2)


@needs_cuda
def test_torch_takes_dpk_arrays_without_copy():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    a = dpk.asarray(np.arange(16, dtype=np.float32), device="cuda:gpu")
    t = torch.as_tensor(a, device="cuda")
    assert t.data_ptr() == a._ptr
