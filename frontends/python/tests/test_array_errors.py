"""Typed errors of the array namespace: each names the operation and the shapes, dtypes or
devices involved, says what to do, and leaves every output untouched."""

import numpy as np
import pytest

import dpk

from array_helpers import to_dpk
from conftest import DEVICE_FILTERS


@pytest.mark.skipif(len(DEVICE_FILTERS) < 2, reason="needs two devices")
def test_device_mismatch_names_both_devices():
    a = dpk.ones(3, device=DEVICE_FILTERS[0])
    b = dpk.ones(3, device=DEVICE_FILTERS[1])
    with pytest.raises(dpk.DeviceMismatchError) as err:
        a + b
    text = str(err.value)
    assert a.device.filter_string in text and b.device.filter_string in text
    assert "to_device" in text and "__add__" in text
    assert isinstance(err.value, ValueError)  # a PlacementError
    with pytest.raises(dpk.DeviceMismatchError):
        dpk.matmul(dpk.ones((2, 2), device=DEVICE_FILTERS[0]),
                   dpk.ones((2, 2), device=DEVICE_FILTERS[1]))
    c = a + b.to_device(a.device)  # the way out
    assert c.device is a.device


def test_shape_errors(device):
    a = dpk.ones((2, 3), device=device)
    with pytest.raises(dpk.ShapeError, match=r"add\(\): shapes \(2, 3\) and \(4,\)"):
        dpk.add(a, dpk.ones(4, device=device))
    with pytest.raises(ValueError):
        a @ dpk.ones((2, 2), device=device)
    with pytest.raises(dpk.ShapeError):
        dpk.reshape(a, (4, 2))


def test_dtype_errors(device):
    f = dpk.ones(3, device=device)
    with pytest.raises(dpk.DTypeError, match="bitwise_and.*integer or boolean.*float64"):
        dpk.bitwise_and(f, f)
    with pytest.raises(TypeError):
        dpk.negative(dpk.ones(2, dtype=dpk.bool, device=device))
    with pytest.raises(dpk.UnsupportedError, match="float16"):
        dpk.zeros(2, dtype=np.float16)
    z = dpk.ones(2, dtype=dpk.complex64, device=device)
    with pytest.raises(dpk.DTypeError, match="real numeric"):
        dpk.maximum(z, z)  # complex numbers are not ordered


def test_bounds_errors(device):
    a = to_dpk(np.arange(5), device)
    with pytest.raises(dpk.BoundsError, match="index 5 is out of bounds for axis 0 with size 5"):
        a[5]
    with pytest.raises(IndexError):
        a[to_dpk(np.array([0, -6]), device)]
    with pytest.raises(IndexError, match="too many indices"):
        a[0, 0]


def test_failed_operations_write_nothing(device):
    a = to_dpk(np.arange(6, dtype=np.int32).reshape(2, 3), device)
    before = a.asnumpy()
    with pytest.raises(ValueError):
        a += to_dpk(np.ones((4, 3), np.int32), device)
    with pytest.raises(TypeError):
        a *= 1.5
    with pytest.raises(ValueError):
        a[0] = to_dpk(np.ones(4, np.int32), device)
    with pytest.raises(IndexError):
        a[to_dpk(np.array([0, 1]), device), to_dpk(np.array([0, 7]), device)] = 5
    np.testing.assert_array_equal(a.asnumpy(), before)


def test_fp64_on_a_device_without_it(device, monkeypatch):
    monkeypatch.setattr(type(device), "has_fp64", property(lambda self: False))
    x = dpk.ones(3, dtype=dpk.float32, device=device)
    with pytest.raises(dpk.UnsupportedError, match="float64"):
        x + np.float64(1.0)
    assert dpk.asarray([1.5], device=device).dtype == dpk.float32  # default float follows
    assert (x * 2.5).dtype == dpk.float32


def test_reductions_of_nothing(device):
    e = dpk.zeros((0, 3), device=device)
    with pytest.raises(ValueError, match="zero-size"):
        dpk.argmax(e, axis=0)
    with pytest.raises(IndexError):
        dpk.sum(e, axis=2)
    with pytest.raises(ValueError):
        dpk.sum(e, axis=(0, 0))
