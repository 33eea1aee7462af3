"""dpk.sort / dpk.argsort with less=: the stable merge sort for custom comparisons, on every
device, against NumPy's stable sort of the equivalent key."""

import numpy as np
import pytest

import dpk


@dpk.device_func
def by_abs(a, b):
    return abs(a) < abs(b)


def by_last_digit(a, b):  # a plain function: compiled as a device function
    return a % 10 < b % 10


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 63, 1000, 5003])
def test_argsort_by_abs_is_stable(device, n):
    rng = np.random.default_rng(n)
    x = rng.integers(-40, 40, n).astype(np.float32)  # many ties: stability shows
    d = dpk.asarray(x, device=device)
    ref = np.argsort(np.abs(x), kind="stable")
    np.testing.assert_array_equal(dpk.argsort(d, less=by_abs).asnumpy(), ref)
    got = dpk.sort(d, less=by_abs)
    assert got.device is device and got.dtype == dpk.float32
    np.testing.assert_array_equal(got.asnumpy(), x[ref])
    np.testing.assert_array_equal(d.asnumpy(), x)  # the input is not modified


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16])
def test_plain_function_and_integer_dtypes(device, dtype):
    x = np.random.default_rng(1).integers(0, 1000, 777).astype(dtype)
    got = dpk.argsort(dpk.asarray(x, device=device), less=by_last_digit).asnumpy()
    np.testing.assert_array_equal(got, np.argsort(x % 10, kind="stable"))


def test_axis_and_descending(device):
    m = np.random.default_rng(2).integers(-9, 9, (3, 37, 5)).astype(np.int32)
    d = dpk.asarray(m, device=device)
    got = dpk.argsort(d, axis=1, less=by_abs, descending=True).asnumpy()
    np.testing.assert_array_equal(got, np.argsort(-np.abs(m), axis=1, kind="stable"))
    got = dpk.sort(d, axis=-1, less=by_abs).asnumpy()
    ref = np.take_along_axis(m, np.argsort(np.abs(m), axis=-1, kind="stable"), axis=-1)
    np.testing.assert_array_equal(got, ref)


def test_numpy_in_numpy_out():
    x = np.array([3.0, -1.0, -3.0, 2.0, 1.0])
    got = dpk.sort(x, less=by_abs)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, [-1.0, 1.0, 2.0, 3.0, -3.0])


def test_errors():
    with pytest.raises(TypeError, match="device function of two elements"):
        dpk.sort(np.arange(3), less=3)
    with pytest.raises(ValueError, match="at least one dimension"):
        dpk.sort(dpk.asarray(1.0), less=by_abs)
