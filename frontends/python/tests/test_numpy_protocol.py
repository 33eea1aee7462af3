"""NumPy's dispatch protocols on dpk arrays (arrays/numpy_protocol.py): ufuncs, NumPy functions
and ndarray-style methods run as dpk operations on the arrays' device and give dpk arrays;
what dpk does not provide is NumPy's TypeError, never a silent host computation."""

import numpy as np
import pytest

import dpk

A = np.arange(1.0, 13.0).reshape(3, 4)


@pytest.fixture
def x(device):
    return dpk.asarray(A, device=device)


def check(got, ref, device):
    assert isinstance(got, dpk.Array) and got.device is device
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-12)


@pytest.mark.parametrize("ufunc", [np.sin, np.exp, np.sqrt, np.negative, np.absolute, np.log1p,
                                   np.arctan, np.rint, np.square, np.isnan])
def test_unary_ufuncs(x, device, ufunc):
    check(ufunc(x), ufunc(A), device)


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.true_divide, np.power,
                                   np.maximum, np.arctan2, np.greater, np.hypot])
def test_binary_ufuncs_mix_numpy_and_scalars(x, device, ufunc):
    check(ufunc(x, 2.0), ufunc(A, 2.0), device)
    check(ufunc(A[0], x), ufunc(A[0], A), device)  # a NumPy operand: copied to x's device


def test_ufunc_methods_and_out(x, device):
    check(np.add.reduce(x, axis=1), A.sum(axis=1), device)
    check(np.maximum.reduce(x, axis=0, keepdims=True), A.max(axis=0, keepdims=True), device)
    check(np.multiply.accumulate(x, axis=0), np.multiply.accumulate(A, axis=0), device)
    out = dpk.empty((3, 4), dtype=dpk.float64, device=device)
    assert np.multiply(x, 3, out=out) is out
    check(out, A * 3, device)
    check(np.matmul(x, x.T), A @ A.T, device)
    with pytest.raises(TypeError):
        np.add.outer(x, x)  # not provided: NumPy's error, no host fallback


def test_numpy_functions(x, device):
    check(np.sum(x, axis=0), A.sum(axis=0), device)
    check(np.mean(x, axis=(0, 1), keepdims=True), A.mean(axis=(0, 1), keepdims=True), device)
    check(np.std(x, ddof=1), A.std(ddof=1), device)
    check(np.cumsum(x), np.cumsum(A), device)
    check(np.concatenate([x, x], axis=1), np.concatenate([A, A], axis=1), device)
    check(np.where(x > 6, x, 0.0), np.where(A > 6, A, 0.0), device)
    check(np.where(A > 6, x, 0.0), np.where(A > 6, A, 0.0), device)  # NumPy condition
    check(np.transpose(x), A.T, device)
    check(np.reshape(x, (4, 3)), A.reshape(4, 3), device)
    check(np.full_like(x, 7.0, shape=(2, 2)), np.full((2, 2), 7.0), device)
    check(np.sort(-x, axis=None), np.sort(-A, axis=None), device)
    check(np.argsort(-x, axis=1), np.argsort(-A, axis=1), device)
    check(np.take(x, [0, 5]), np.take(A, [0, 5]), device)
    with pytest.raises(TypeError, match="no implementation found for 'numpy.fft.fft'"):
        np.fft.fft(x)


def test_ndarray_style_methods(x, device):
    check(x.sum(axis=1), A.sum(axis=1), device)
    check(x.mean(), A.mean(), device)
    check(x.max(axis=0), A.max(axis=0), device)
    check(x.cumsum(axis=1), A.cumsum(axis=1), device)
    check(x.reshape(2, 6), A.reshape(2, 6), device)
    check(x.reshape((6, 2)), A.reshape((6, 2)), device)
    check(x.transpose(1, 0), A.transpose(1, 0), device)
    check(x.astype("float32"), A.astype(np.float32), device)
    check(x.ravel(), A.ravel(), device)
    check(x.dot(x.T), A.dot(A.T), device)
    assert x.argmax() .asnumpy() == A.argmax()


def test_numpy_array_on_the_left(x, device):
    check(A + x, A + A, device)  # NumPy hands the operator to the dpk array
