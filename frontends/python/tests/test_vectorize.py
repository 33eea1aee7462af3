"""@dpk.vectorize: signatures and NumPy's casting rules, the lazy form, broadcasting, out=,
NumPy and dpk inputs, and fusion with array expressions (kernel counts)."""

import math

import numpy as np
import pytest

import dpk
from dpk.arrays import immediate


@dpk.vectorize(["float32(float32, float32)", "float64(float64, float64)"])
def hypot2(a, b):
    return math.sqrt(a * a + b * b)


@dpk.vectorize(["int32(int32, int32)", "int64(int64, int64)", "float64(float64, float64)"])
def clamp_add(a, b):
    s = a + b
    if s > 10:
        s = 10
    return s


@dpk.vectorize
def poly(x):
    """Lazy form: specialized per input dtype."""
    acc = x * 0
    for k in range(3):
        acc = acc * x + (k + 1)
    return acc


@dpk.device_func
def _square(v):
    return v * v


@dpk.vectorize(["float64(float64)"])
def calls_device_func(v):
    return _square(v) + 1.0


def _dev(device, a):
    return dpk.asarray(a, device=device)


def test_numpy_inputs_give_numpy_results():
    x = np.arange(6, dtype=np.float32)
    y = np.full(6, 2.0, np.float32)
    r = hypot2(x, y)
    assert isinstance(r, np.ndarray) and r.dtype == np.float32
    np.testing.assert_allclose(r, np.hypot(x, y), rtol=1e-6)
    assert hypot2(3.0, 4.0) == 5.0


@pytest.mark.parametrize("in_dtype,want", [(np.float32, np.float32), (np.float64, np.float64),
                                           (np.int8, np.float32), (np.int16, np.float32),
                                           (np.int32, np.float64), (np.int64, np.float64),
                                           (np.uint8, np.float32)])
def test_signature_choice_follows_numpy_safe_casting(device, in_dtype, want):
    x = np.arange(5).astype(in_dtype)
    r = hypot2(_dev(device, x), _dev(device, x))
    assert r.dtype == want
    xw = x.astype(want)
    np.testing.assert_allclose(r.asnumpy(), np.hypot(xw, xw), rtol=1e-6)


def test_python_scalars_are_weak(device):
    x = _dev(device, np.arange(4, dtype=np.float32))
    assert hypot2(x, 2.0).dtype == np.float32            # a float fits float32
    assert clamp_add(_dev(device, np.arange(4, dtype=np.int32)), 3).dtype == np.int32
    assert clamp_add(_dev(device, np.arange(4, dtype=np.int32)), 2.5).dtype == np.float64
    np.testing.assert_array_equal(clamp_add(_dev(device, np.arange(12, dtype=np.int32)),
                                            3).asnumpy(),
                                  np.minimum(np.arange(12) + 3, 10))


def test_no_matching_signature(device):
    @dpk.vectorize(["int32(int32)"])
    def ints_only(v):
        return v + 1

    with pytest.raises(TypeError, match="no signature"):
        ints_only(_dev(device, np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="no signature"):
        ints_only(_dev(device, np.ones(3, np.int64)))
    with pytest.raises(TypeError, match="no signature"):
        ints_only(2.5)


def test_lazy_form(device):
    xi = np.arange(-3, 5, dtype=np.int64)
    xf = np.linspace(-1, 1, 7, dtype=np.float32)
    ri = poly(_dev(device, xi))
    rf = poly(_dev(device, xf))
    # the loop's k is int64, so float32 * int64 promotes to float64 inside the function
    assert ri.dtype == np.int64 and rf.dtype == np.float64
    np.testing.assert_array_equal(ri.asnumpy(), xi * xi + 2 * xi + 3)
    np.testing.assert_allclose(rf.asnumpy(), xf * xf + 2 * xf + 3, rtol=1e-6)
    assert "l->l" in poly.types and "f->d" in poly.types


def test_device_function_calls(device):
    x = np.linspace(0, 2, 9)
    np.testing.assert_allclose(calls_device_func(_dev(device, x)).asnumpy(), x * x + 1)


def test_broadcasting(device):
    a = np.arange(4, dtype=np.float32)[:, None]
    b = np.arange(3, dtype=np.float32)[None, :]
    r = hypot2(_dev(device, a), _dev(device, b))
    assert r.shape == (4, 3)
    np.testing.assert_allclose(r.asnumpy(), np.hypot(a, b), rtol=1e-6)
    # strided and scalar operands
    big = np.arange(20, dtype=np.float32).reshape(4, 5)
    r = hypot2(_dev(device, big)[:, ::2], 1.0)
    np.testing.assert_allclose(r.asnumpy(), np.hypot(big[:, ::2], 1.0), rtol=1e-6)
    with pytest.raises(ValueError):
        hypot2(_dev(device, np.ones(3, np.float32)), _dev(device, np.ones(4, np.float32)))


def test_out(device):
    x = np.arange(5, dtype=np.float32)
    out = dpk.zeros(5, dtype=dpk.float32, device=device)
    r = hypot2(_dev(device, x), 0.0, out=out)
    assert r is out
    np.testing.assert_array_equal(out.asnumpy(), x)
    # in place: out is also an input
    v = _dev(device, x)
    hypot2(v, v, out=v)
    np.testing.assert_allclose(v.asnumpy(), np.hypot(x, x), rtol=1e-6)
    # out of a wider dtype (same kind)
    out64 = dpk.zeros(5, dtype=dpk.float64, device=device) if device.has_fp64 else None
    if out64 is not None:
        hypot2(_dev(device, x), 0.0, out=out64)
        np.testing.assert_array_equal(out64.asnumpy(), x)
    with pytest.raises(TypeError):
        hypot2(_dev(device, x), 0.0, out=dpk.zeros(5, dtype=dpk.int32, device=device))
    with pytest.raises(ValueError):
        hypot2(_dev(device, x), 0.0, out=dpk.zeros(4, dtype=dpk.float32, device=device))


def test_numpy_out():
    x = np.arange(5, dtype=np.float32)
    o = np.empty(5, np.float32)
    assert hypot2(x, x, out=o) is o
    np.testing.assert_allclose(o, np.hypot(x, x), rtol=1e-6)


def test_fuses_with_array_expressions(device):
    # (beyond immediate.MAX_ELEMENTS: operations on fewer host elements run one by one)
    a = _dev(device, np.linspace(0, 1, 5000, dtype=np.float32))
    b = _dev(device, np.linspace(1, 2, 5000, dtype=np.float32))
    launches = immediate.launch_count()
    r = (hypot2(a * 2, b) + 1).asnumpy()
    assert immediate.launch_count() - launches == 1
    an, bn = a.asnumpy(), b.asnumpy()
    np.testing.assert_allclose(r, np.hypot(an * 2, bn) + 1, rtol=1e-6)
    launches = immediate.launch_count()
    s = float(dpk.sum(hypot2(a, b)))
    assert immediate.launch_count() - launches <= 2  # one reduction kernel (+ its partials pass)
    assert s == pytest.approx(float(np.hypot(an, bn).astype(np.float64).sum()), rel=1e-5)


def test_target(device):
    @dpk.vectorize(["float64(float64)"], target=device.filter_string)
    def plus_one(v):
        return v + 1.0

    if not device.has_fp64:
        pytest.skip("no fp64")
    np.testing.assert_array_equal(plus_one(np.arange(4.0)), np.arange(4.0) + 1)
    if not device.is_host:
        with pytest.raises(dpk.DeviceMismatchError):
            plus_one(dpk.asarray(np.arange(3.0), device="host"))


def test_errors():
    with pytest.raises(TypeError):
        dpk.vectorize(["float32 float32"])(lambda a: a)
    with pytest.raises(TypeError, match="input"):
        dpk.vectorize(["float32(float32, float32)"])(poly.py_func)
    with pytest.raises(TypeError):
        hypot2(np.ones(3))
