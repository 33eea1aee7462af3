"""The Array API namespace's non-elementwise functions against NumPy on every device:
creation, data types, statistics, searching, utility, manipulation, linear algebra, indexing
functions and the inspection namespace."""

import math

import numpy as np
import pytest

import dpk

from array_helpers import FLOATS, INTS_SHORT, assert_matches, sample, to_dpk


# ---- creation -----------------------------------------------------------------------------------

def test_creation_functions(device):
    assert_matches(dpk.arange(10, device=device), np.arange(10))
    assert_matches(dpk.arange(2, 11, 3, device=device), np.arange(2, 11, 3))
    assert_matches(dpk.arange(5, -3, -2, device=device), np.arange(5, -3, -2))
    assert_matches(dpk.arange(0.0, 1.0, 0.1, device=device), np.arange(0.0, 1.0, 0.1))
    assert dpk.arange(0, device=device).shape == (0,)
    assert_matches(dpk.linspace(0, 1, 7, device=device), np.linspace(0, 1, 7))
    assert_matches(dpk.linspace(2, -3, 5, endpoint=False, device=device),
                   np.linspace(2, -3, 5, endpoint=False))
    assert_matches(dpk.eye(4, 5, k=1, dtype=dpk.int32, device=device),
                   np.eye(4, 5, k=1, dtype=np.int32))
    assert_matches(dpk.full((2, 3), 7, device=device), np.full((2, 3), 7))
    assert dpk.full((2,), True, device=device).dtype == dpk.bool
    assert dpk.ones((2,), device=device).dtype == dpk.float64
    assert dpk.zeros((), device=device).shape == ()
    x = to_dpk(np.arange(12.0).reshape(3, 4), device)
    for like in (dpk.zeros_like, dpk.ones_like, dpk.empty_like):
        y = like(x)
        assert y.shape == x.shape and y.dtype == x.dtype and y.device is device
    assert_matches(dpk.full_like(x, 2.5), np.full((3, 4), 2.5))
    assert_matches(dpk.tril(x, k=1), np.tril(np.arange(12.0).reshape(3, 4), k=1))
    assert_matches(dpk.triu(x, k=-1), np.triu(np.arange(12.0).reshape(3, 4), k=-1))
    gx, gy = dpk.meshgrid(dpk.arange(3, device=device), dpk.arange(2, device=device))
    rx, ry = np.meshgrid(np.arange(3), np.arange(2))
    assert_matches(gx, rx)
    assert_matches(gy, ry)
    ix, iy = dpk.meshgrid(dpk.arange(3, device=device), dpk.arange(2, device=device),
                          indexing="ij")
    assert_matches(ix, np.meshgrid(np.arange(3), np.arange(2), indexing="ij")[0])


def test_asarray_rules(device):
    assert dpk.asarray(True, device=device).dtype == dpk.bool
    assert dpk.asarray(3, device=device).dtype == dpk.int64
    assert dpk.asarray(3.0, device=device).shape == ()
    assert dpk.asarray([[1, 2], [3, 4.5]], device=device).dtype == dpk.float64
    x = dpk.asarray([1, 2, 3], dtype=dpk.int8, device=device)
    assert dpk.asarray(x) is x
    c = dpk.asarray(x, copy=True)
    assert c is not x
    c[0] = 9
    assert int(x[0]) == 1
    with pytest.raises(ValueError):
        dpk.asarray(x, dtype=dpk.int16, copy=False)
    assert dpk.asarray(x, dtype=dpk.float32).dtype == dpk.float32
    with pytest.raises(OverflowError):
        dpk.asarray(1 << 70, device=device)
    assert dpk.asarray(1j, device=device).dtype == (dpk.complex128 if device.has_fp64
                                                    else dpk.complex64)


def test_default_device_context(device):
    with dpk.device_context(device):
        assert dpk.zeros(3).device is device
        assert dpk.arange(3).device is device
        assert dpk.asarray([1, 2]).device is device
    assert dpk.zeros(2, device=device.filter_string).device is device


# ---- data types ---------------------------------------------------------------------------------

def test_data_type_functions(device):
    x = to_dpk(np.array([1.7, -2.2, 3.9]), device)
    assert_matches(dpk.astype(x, dpk.int32), np.array([1, -2, 3], np.int32))
    assert dpk.astype(x, dpk.float64, copy=False) is x
    assert dpk.can_cast(dpk.int8, dpk.int16) and not dpk.can_cast(dpk.int16, dpk.int8)
    assert dpk.can_cast(x, dpk.float64)
    assert dpk.finfo(dpk.float32).eps == float(np.finfo(np.float32).eps)
    assert dpk.iinfo(dpk.uint16).max == 65535
    assert dpk.isdtype(dpk.int8, "signed integer") and dpk.isdtype(dpk.float32, ("bool",
                                                                                 "real floating"))
    assert not dpk.isdtype(dpk.uint8, "signed integer")
    assert dpk.result_type(dpk.int8, dpk.uint8) == dpk.int16
    assert dpk.result_type(x, 1) == dpk.float64


# ---- statistics ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INTS_SHORT + FLOATS + ["bool"])
def test_sum_prod_min_max(device, dtype):
    x = np.resize(sample(dtype), 20).reshape(4, 5)
    if np.dtype(dtype).kind == "f":
        x = np.where(np.isfinite(x), x, 1.5).astype(dtype)
    d = to_dpk(x, device)
    with np.errstate(all="ignore"):
        for axis in (None, 0, 1, (0, 1)):
            for keepdims in (False, True):
                kw = dict(axis=axis, keepdims=keepdims)
                rtol = 1e-5 if dtype == "float32" else 1e-12
                assert_matches(dpk.sum(d, **kw), np.sum(x, **kw, dtype=_acc(dtype)), rtol=rtol)
                if dtype != "bool":
                    assert_matches(dpk.prod(d, **kw), np.prod(x, **kw, dtype=_acc(dtype)),
                                   rtol=rtol)
                assert_matches(dpk.max(d, **kw), np.max(x, **kw))
                assert_matches(dpk.min(d, **kw), np.min(x, **kw))


def _acc(dtype):
    k = np.dtype(dtype).kind
    return np.int64 if k in "bi" else np.uint64 if k == "u" else dtype


def test_statistics_float(device):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 7, 5))
    d = to_dpk(x, device)
    for axis in (None, 0, 2, (0, 2)):
        assert_matches(dpk.mean(d, axis=axis), np.mean(x, axis=axis), rtol=1e-12)
        for corr in (0, 1):
            assert_matches(dpk.var(d, axis=axis, correction=corr),
                           np.var(x, axis=axis, ddof=corr), rtol=1e-10)
            assert_matches(dpk.std(d, axis=axis, correction=corr, keepdims=True),
                           np.std(x, axis=axis, ddof=corr, keepdims=True), rtol=1e-10)
    nan = to_dpk(np.array([1.0, np.nan, 3.0]), device)
    assert math.isnan(float(dpk.max(nan))) and math.isnan(float(dpk.min(nan)))
    assert math.isnan(float(dpk.mean(to_dpk(np.zeros(0), device))))
    assert float(dpk.sum(to_dpk(np.zeros((0, 3)), device))) == 0.0
    with pytest.raises(ValueError):
        dpk.max(to_dpk(np.zeros(0), device))


def test_large_reductions_are_accurate(device):
    n = 3_000_001
    x = np.random.default_rng(4).random(n, dtype=np.float32)
    d = to_dpk(x, device)
    assert abs(float(dpk.sum(d)) - x.astype(np.float64).sum()) < 1e-5 * n
    m = x[: 1000 * 3000].reshape(1000, 3000)
    dm = to_dpk(m, device)
    assert_matches(dpk.sum(dm, axis=0), m.astype(np.float64).sum(axis=0), rtol=1e-4)
    assert_matches(dpk.sum(dm, axis=1), m.astype(np.float64).sum(axis=1), rtol=1e-4)
    assert int(dpk.argmax(d)) == int(np.argmax(x))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float64"])
def test_cumulative(device, dtype):
    with np.errstate(invalid="ignore"):
        x = np.nan_to_num(np.resize(sample(dtype), 24) % 50).astype(dtype).reshape(4, 6)
    d = to_dpk(x, device)
    for axis in (0, 1):
        assert_matches(dpk.cumulative_sum(d, axis=axis), np.cumsum(x, axis=axis,
                                                                   dtype=_acc(dtype)))
        ref = np.cumprod(x, axis=axis, dtype=_acc(dtype))
        assert_matches(dpk.cumulative_prod(d, axis=axis), ref, rtol=1e-12)
    init = dpk.cumulative_sum(d, axis=1, include_initial=True)
    assert init.shape == (4, 7) and (init[:, 0].asnumpy() == 0).all()
    long = np.arange(1, 100_001, dtype=np.int64)
    assert_matches(dpk.cumulative_sum(to_dpk(long, device)), np.cumsum(long))


# ---- searching and utility ---------------------------------------------------------------------

def test_searching(device):
    x = np.array([[3.0, 7.0, 7.0, -1.0], [np.nan, 2.0, np.nan, 9.0]])
    d = to_dpk(x, device)
    for axis in (None, 0, 1):
        assert_matches(dpk.argmax(d, axis=axis), np.argmax(x, axis=axis))
        assert_matches(dpk.argmin(d, axis=axis), np.argmin(x, axis=axis))
    assert dpk.argmax(d, axis=1, keepdims=True).shape == (2, 1)
    i = to_dpk(np.array([[0, 3, 0], [5, 0, 1]], np.int16), device)
    for got, ref in zip(dpk.nonzero(i), np.nonzero(np.array([[0, 3, 0], [5, 0, 1]]))):
        assert_matches(got, ref)
    assert_matches(dpk.count_nonzero(i, axis=1), np.array([1, 2]))
    sorted_ = to_dpk(np.array([1.0, 2.0, 2.0, 5.0, np.nan]), device)
    v = np.array([[0.0, 2.0], [6.0, np.nan]])
    for side in ("left", "right"):
        assert_matches(dpk.searchsorted(sorted_, to_dpk(v, device), side=side),
                       np.searchsorted(np.array([1.0, 2.0, 2.0, 5.0, np.nan]), v, side=side))
    order = to_dpk(np.array([1, 2, 0]), device)
    assert_matches(dpk.searchsorted(to_dpk(np.array([5, 1, 3]), device), to_dpk(
        np.array([4]), device), sorter=order), np.array([2]))


def test_utility(device):
    x = np.array([[0, 1, 2], [3, 0, 5]])
    d = to_dpk(x, device)
    for axis in (None, 0, 1):
        assert_matches(dpk.all(d, axis=axis), np.all(x, axis=axis))
        assert_matches(dpk.any(d, axis=axis), np.any(x, axis=axis))
    y = np.array([1, 4, 9, 16, 25])
    assert_matches(dpk.diff(to_dpk(y, device)), np.diff(y))
    assert_matches(dpk.diff(to_dpk(y, device), n=2), np.diff(y, n=2))
    assert_matches(dpk.diff(d, axis=0, prepend=to_dpk(np.zeros((1, 3), np.int64), device)),
                   np.diff(x, axis=0, prepend=np.zeros((1, 3), np.int64)))


# ---- manipulation -------------------------------------------------------------------------------

def test_manipulation(device):
    x = np.arange(24).reshape(2, 3, 4)
    d = to_dpk(x, device)
    assert_matches(dpk.reshape(d, (4, 6)), x.reshape(4, 6))
    assert_matches(dpk.reshape(d.mT, (-1,)), x.transpose(0, 2, 1).reshape(-1))
    assert_matches(dpk.permute_dims(d, (2, 0, 1)), x.transpose(2, 0, 1))
    assert_matches(dpk.moveaxis(d, 0, -1), np.moveaxis(x, 0, -1))
    assert_matches(dpk.flip(d, axis=(0, 2)), np.flip(x, axis=(0, 2)))
    assert_matches(dpk.expand_dims(d, axis=1), np.expand_dims(x, 1))
    assert_matches(dpk.squeeze(dpk.expand_dims(d, axis=0), axis=0), x)
    assert_matches(dpk.concat([d, d * 2], axis=1), np.concatenate([x, x * 2], axis=1))
    assert_matches(dpk.concat([d, d], axis=None), np.concatenate([x, x], axis=None))
    assert_matches(dpk.stack([d, d + 1], axis=2), np.stack([x, x + 1], axis=2))
    for a, b in zip(dpk.unstack(d, axis=1), [x[:, i] for i in range(3)]):
        assert_matches(a, b)
    assert_matches(dpk.tile(d, (2, 1, 2)), np.tile(x, (2, 1, 2)))
    assert_matches(dpk.roll(d, 2, axis=2), np.roll(x, 2, axis=2))
    assert_matches(dpk.roll(d, -5), np.roll(x, -5))
    assert_matches(dpk.roll(d, (1, 2), axis=(0, 1)), np.roll(x, (1, 2), axis=(0, 1)))
    assert_matches(dpk.repeat(d, 2, axis=1), np.repeat(x, 2, axis=1))
    assert_matches(dpk.repeat(d[0, 0], to_dpk(np.array([1, 0, 2, 3]), device)),
                   np.repeat(x[0, 0], [1, 0, 2, 3]))
    b1, b2 = dpk.broadcast_arrays(d, to_dpk(np.arange(4), device))
    assert b2.shape == (2, 3, 4)
    assert_matches(dpk.broadcast_to(to_dpk(np.arange(4), device), (3, 4)),
                   np.broadcast_to(np.arange(4), (3, 4)))


# ---- linear algebra -----------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [((5, 7), (7, 3)), ((33, 65), (65, 17)), ((2, 4, 3), (3, 5)),
                                    ((7,), (7, 2)), ((3, 4), (4,)), ((4,), (4,)),
                                    ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul(device, shapes):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shapes[0]).astype(np.float32)
    b = rng.standard_normal(shapes[1]).astype(np.float32)
    assert_matches(to_dpk(a, device) @ to_dpk(b, device), a @ b, rtol=1e-4, atol=1e-5)


def test_matmul_integers_strided_and_inplace(device):
    a = np.arange(20, dtype=np.int64).reshape(4, 5)
    d = to_dpk(a, device)
    assert_matches(d @ d.T, a @ a.T)
    assert_matches(dpk.matmul(d[:, ::2], d[:, ::2].mT), a[:, ::2] @ a[:, ::2].T)
    sq = to_dpk(np.eye(4, dtype=np.int64) * 2, device)
    sq2 = sq.copy()
    sq2 @= sq
    assert_matches(sq2, np.eye(4, dtype=np.int64) * 4)


def test_tensordot_vecdot(device):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((3, 4, 5))
    b = rng.standard_normal((4, 5, 2))
    da, db = to_dpk(a, device), to_dpk(b, device)
    assert_matches(dpk.tensordot(da, db), np.tensordot(a, b), rtol=1e-10)
    assert_matches(dpk.tensordot(da, db, axes=([1], [0])), np.tensordot(a, b, axes=([1], [0])),
                   rtol=1e-10)
    c = rng.standard_normal((2, 5))
    assert_matches(dpk.vecdot(da, to_dpk(c[1], device)), np.vecdot(a, c[1]), rtol=1e-10)
    assert_matches(dpk.vecdot(da, da, axis=0), np.sum(a * a, axis=0), rtol=1e-10)
    assert_matches(dpk.matrix_transpose(da), np.swapaxes(a, -1, -2))


# ---- indexing functions and info -------------------------------------------------------------

def test_take(device):
    x = np.arange(20).reshape(4, 5)
    d = to_dpk(x, device)
    idx = np.array([3, 0, -1, 3])
    assert_matches(dpk.take(d, to_dpk(idx, device), axis=1), np.take(x, idx, axis=1))
    assert_matches(dpk.take(d[0], to_dpk(idx, device)), np.take(x[0], idx))
    ta = np.array([[0, 4], [1, 1], [2, 0], [4, 3]])
    assert_matches(dpk.take_along_axis(d, to_dpk(ta, device), axis=1),
                   np.take_along_axis(x, ta, axis=1))


def test_inspection(device):
    info = dpk.__array_namespace_info__()
    assert device in info.devices()
    assert info.default_dtypes(device=device)["indexing"] == dpk.int64
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8",
                                                  "uint16", "uint32", "uint64"}
    assert info.capabilities()["boolean indexing"]
    x = dpk.zeros(2, device=device)
    assert x.__array_namespace__() is dpk and dpk.__array_api_version__ == "2024.12"
