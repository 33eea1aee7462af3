"""The parallel primitives against NumPy: sort/argsort (stability, NaN order, -0.0, duplicates,
descending, axes), topk, unique_*, reduce/scan with built-in operators and device functions,
bincount/histogram, scatter_add, compact; empty, 1-element and non-power-of-two inputs.
DPK_PRIMITIVES_SWEEP=1 sweeps every dtype and more sizes. The sort and bincount kernels have a CPU
shape and a GPU shape (common.kernel_shape); each device runs its own, test_both_shapes runs
both on every device, and DPK_PRIMITIVES_SHAPE=gpu (or cpu) runs this whole file with one."""

import os

import numpy as np
import pytest

import dpk

SWEEP = os.environ.get("DPK_PRIMITIVES_SWEEP") == "1"
ALL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64, np.float32, np.float64]
DTYPES = ALL_DTYPES if SWEEP else [np.int32, np.int64, np.uint8, np.float32, np.float64]
SIZES = [0, 1, 2, 7, 1000, 4097] + ([65537, 300001] if SWEEP else [])


def _data(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        # a narrow range makes duplicates (stability is visible), plus the extremes
        x = rng.integers(max(info.min, -20), min(info.max, 20), n).astype(dtype)
        if n > 4:
            x[0], x[1] = info.min, info.max
        return x
    x = (rng.standard_normal(n) * 10).round(1).astype(dtype)  # rounding makes duplicates
    if n > 10:
        x[::7] = np.nan
        x[1::11] = -0.0
        x[2::13] = 0.0
        x[3] = np.inf
        x[4] = -np.inf
        x[5] = -np.nan
    return x


def _on(device, x):
    return dpk.asarray(x, device=device)


def _skip_fp64(device, dtype):
    if np.dtype(dtype) == np.float64 and not device.has_fp64:
        pytest.skip("no fp64")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sort_and_argsort_1d(device, dtype, n):
    _skip_fp64(device, dtype)
    x = _data(dtype, n)
    d = _on(device, x)
    np.testing.assert_array_equal(dpk.sort(d).asnumpy(), np.sort(x, kind="stable"))
    np.testing.assert_array_equal(dpk.argsort(d).asnumpy(), np.argsort(x, kind="stable"))
    # descending as array-api-strict defines it: flip, stable sort, flip (NaN first)
    want = x.size - 1 - np.flip(np.argsort(np.flip(x), kind="stable"))
    np.testing.assert_array_equal(dpk.argsort(d, descending=True).asnumpy(), want)
    np.testing.assert_array_equal(dpk.sort(d, descending=True).asnumpy(), x[want])
    np.testing.assert_array_equal(d.asnumpy(), x)  # the input is left alone


def test_sort_zeros_and_nans_keep_their_order(device):
    x = np.array([0.0, -0.0, np.nan, 1.0, -np.nan, 0.0, -0.0, -1.0], np.float32)
    got = dpk.argsort(_on(device, x)).asnumpy()
    np.testing.assert_array_equal(got, np.argsort(x, kind="stable"))
    s = dpk.sort(_on(device, x)).asnumpy()
    np.testing.assert_array_equal(np.signbit(s[1:5]), np.signbit(x[[0, 1, 5, 6]]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_sort_by_keys_alone(device, monkeypatch, dtype):
    """Where the sub-group passes sort (forced here on every device), a float sort moves the
    keys alone and turns them back into floats, unless -0.0 or a NaN other than the canonical
    one is present: then the values travel with the keys. Either way the bits are NumPy's."""
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip("no fp64")
    from dpk.primitives import common, radix_sort
    monkeypatch.setattr(radix_sort, "WARP_RANKING", True)
    monkeypatch.setenv(common.SHAPE_ENV, "gpu")
    udt = np.dtype(f"u{np.dtype(dtype).itemsize}")
    rng = np.random.default_rng(30)
    plain = (rng.standard_normal(5000) * 10).round(1).astype(dtype)
    plain[::97] = np.nan
    plain[5::89] = 0.0
    plain[7] = -np.inf
    signed_zero = plain.copy()
    signed_zero[3::50] = -0.0
    payload = plain.copy()
    payload[11] = np.frombuffer(np.array([udt.type(np.iinfo(udt).max >> 1)]).tobytes(),
                                dtype=dtype)[0]  # a NaN with every payload bit set
    negative_nan = plain.copy()
    negative_nan[13] = -np.nan
    for name, x in [("plain", plain), ("-0.0", signed_zero), ("payload", payload),
                    ("-nan", negative_nan)]:
        want = np.sort(x, kind="stable")
        got = dpk.sort(_on(device, x)).asnumpy()
        np.testing.assert_array_equal(got.view(udt), want.view(udt), err_msg=name)
        # descending: NaNs first, then the stable order of the rest reversed by key
        want_desc = x[x.size - 1 - np.flip(np.argsort(np.flip(x), kind="stable"))]
        got_desc = dpk.sort(_on(device, x), descending=True).asnumpy()
        np.testing.assert_array_equal(got_desc.view(udt), want_desc.view(udt), err_msg=name)
    # the look-back's 64-bit status words (inputs of 2^30 keys and more), on a short input
    monkeypatch.setattr(radix_sort, "STATUS32_LIMIT", 0)
    np.testing.assert_array_equal(dpk.sort(_on(device, plain)).asnumpy().view(udt),
                                  np.sort(plain, kind="stable").view(udt))
    np.testing.assert_array_equal(dpk.argsort(_on(device, plain)).asnumpy(),
                                  np.argsort(plain, kind="stable"))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_sort_axes(device, axis):
    x = _data(np.float32, 37 * 53, seed=3).reshape(37, 53)
    d = _on(device, x)
    np.testing.assert_array_equal(dpk.sort(d, axis=axis).asnumpy(), np.sort(x, axis=axis))
    np.testing.assert_array_equal(dpk.argsort(d, axis=axis).asnumpy(),
                                  np.argsort(x, axis=axis, kind="stable"))
    y = _data(np.int16, 3 * 4 * 5, seed=4).reshape(3, 4, 5)
    np.testing.assert_array_equal(dpk.argsort(_on(device, y), axis=1).asnumpy(),
                                  np.argsort(y, axis=1, kind="stable"))


def test_sort_numpy_inputs():
    x = _data(np.int64, 1000)
    r = dpk.sort(x)
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r, np.sort(x))
    with pytest.raises(ValueError):
        dpk.sort(np.float32(1.0))


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("n,k", [(10, 3), (1000, 1000), (200003, 100), (5, 0)])
def test_topk(device, dtype, n, k):
    x = _data(dtype, n, seed=5)
    d = _on(device, x)
    values, indices = dpk.topk(d, k)
    want = (n - 1 - np.flip(np.argsort(np.flip(x), kind="stable")))[:k]
    np.testing.assert_array_equal(indices.asnumpy(), want)
    np.testing.assert_array_equal(values.asnumpy(), x[want])
    values, indices = dpk.topk(d, k, largest=False)
    np.testing.assert_array_equal(indices.asnumpy(), np.argsort(x, kind="stable")[:k])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 1000])
def test_unique(device, dtype, n):
    _skip_fp64(device, dtype)
    x = _data(dtype, n, seed=6)
    if np.dtype(dtype).kind == "f":
        x = x[~np.isnan(x)]  # the standard's NaN rule differs from NumPy's equal_nan
    d = _on(device, x)
    v, i, inv, c = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(dpk.unique_values(d).asnumpy(), v)
    got = dpk.unique_all(d)
    for g, w in zip(got, (v, i, inv.reshape(x.shape), c)):
        np.testing.assert_array_equal(g.asnumpy(), w)
    gv, gc = dpk.unique_counts(d)
    np.testing.assert_array_equal(gc.asnumpy(), c)
    gv, ginv = dpk.unique_inverse(_on(device, x.reshape(-1, 1)) if n else d)
    np.testing.assert_array_equal(gv.asnumpy()[ginv.asnumpy()].reshape(-1), x)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_unique_of_complex_values(device, dtype):
    """The set functions take complex values (sort and argsort do not, as the standard
    says): NumPy's values, first indices, inverse and counts, ordered by real then imaginary
    part; signed zeros equal, each NaN distinct."""
    _skip_fp64(device, dtype)
    rng = np.random.default_rng(8)
    x = (rng.integers(-3, 3, 500) + 1j * rng.integers(-2, 2, 500)).astype(dtype)
    d = _on(device, x)
    v, i, inv, c = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    got = dpk.unique_all(d)
    for g, w in zip(got, (v, i, inv.reshape(x.shape), c)):
        np.testing.assert_array_equal(g.asnumpy(), w)
    np.testing.assert_array_equal(dpk.unique_values(d).asnumpy(), v)
    special = np.array([complex(1, np.nan), 1 + 0j, complex(np.nan, 0), -0.0 + 0j, 0j,
                        complex(1, -0.0), 1 + 0j], dtype)
    values, counts = dpk.unique_counts(_on(device, special))
    np.testing.assert_array_equal(values.asnumpy(),
                                  np.array([0j, 1 + 0j, complex(1, np.nan),
                                            complex(np.nan, 0)], dtype))
    np.testing.assert_array_equal(counts.asnumpy(), [2, 3, 1, 1])
    with pytest.raises(dpk.DTypeError):
        dpk.sort(d)


def test_unique_results_are_the_standards_named_tuples(device):
    x = np.array([3, 1, 3, 2, 1, 3], np.int32)
    d = _on(device, x)
    got = dpk.unique_all(d)
    assert type(got).__name__ == "UniqueAllResult"
    np.testing.assert_array_equal(got.values.asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(got.indices.asnumpy(), [1, 3, 0])
    np.testing.assert_array_equal(got.inverse_indices.asnumpy(), [2, 0, 2, 1, 0, 2])
    np.testing.assert_array_equal(got.counts.asnumpy(), [2, 1, 3])
    counts = dpk.unique_counts(d)
    assert type(counts).__name__ == "UniqueCountsResult"
    np.testing.assert_array_equal(counts.counts.asnumpy(), [2, 1, 3])
    inverse = dpk.unique_inverse(d)
    assert type(inverse).__name__ == "UniqueInverseResult"
    np.testing.assert_array_equal(inverse.values.asnumpy()[inverse.inverse_indices.asnumpy()], x)
    # NumPy in, NumPy out: the same named fields
    assert dpk.unique_counts(x).counts.tolist() == [2, 1, 3]


def test_unique_nans_are_distinct(device):
    x = np.array([1.0, np.nan, 1.0, np.nan], np.float32)
    v, c = dpk.unique_counts(_on(device, x))
    np.testing.assert_array_equal(v.asnumpy(), [1.0, np.nan, np.nan])
    np.testing.assert_array_equal(c.asnumpy(), [2, 1, 1])


@dpk.device_func
def _max2(a, b):
    return max(a, b)


@dpk.device_func
def _affine_compose(a, b):  # associative, not commutative
    return a * 2 + b


@pytest.mark.parametrize("n", SIZES[1:])
def test_reduce(device, n):
    x = _data(np.int64, n, seed=7)
    d = _on(device, x)
    assert int(dpk.reduce("add", d)) == x.sum()
    assert int(dpk.reduce(dpk.multiply, _on(device, x % 3 + 1))) == np.prod(x % 3 + 1)
    assert int(dpk.reduce(_max2, d)) == x.max()
    assert int(dpk.reduce(_max2, d, initial=10 ** 6)) == max(int(x.max()), 10 ** 6)
    m = x[: (n // 4) * 4].reshape(4, -1) if n >= 4 else x.reshape(1, -1)
    np.testing.assert_array_equal(dpk.reduce(_max2, _on(device, m), axis=1).asnumpy(),
                                  m.max(axis=1))
    np.testing.assert_array_equal(dpk.reduce(_max2, _on(device, m), axis=0).asnumpy(),
                                  m.max(axis=0))
    assert dpk.reduce("max", x) == x.max()


def test_reduce_empty(device):
    e = _on(device, np.zeros(0, np.float32))
    assert float(dpk.reduce("add", e)) == 0.0
    assert float(dpk.reduce(_max2, e, initial=-5.0)) == -5.0
    with pytest.raises(ValueError):
        dpk.reduce(_max2, e)


@pytest.mark.parametrize("n", SIZES)
def test_scan(device, n):
    x = _data(np.int64, n, seed=8)
    d = _on(device, x)
    np.testing.assert_array_equal(dpk.scan("add", d).asnumpy(), np.cumsum(x))
    np.testing.assert_array_equal(dpk.scan("add", d, inclusive=False).asnumpy(),
                                  np.concatenate([[0], np.cumsum(x)[:-1]]) if n else x)
    np.testing.assert_array_equal(dpk.scan(_max2, d).asnumpy(), np.maximum.accumulate(x))
    np.testing.assert_array_equal(dpk.scan("min", d).asnumpy(), np.minimum.accumulate(x))
    np.testing.assert_array_equal(dpk.accumulate(_max2, d, inclusive=False,
                                                 initial=-100).asnumpy(),
                                  np.maximum.accumulate(np.concatenate([[-100], x]))[:-1])
    small = (x % 3).astype(np.int64)[:60]  # a non-commutative operator: order must be kept
    want, acc = [], None
    for v in small.tolist():
        acc = v if acc is None else acc * 2 + v
        want.append(acc)
    if n:
        np.testing.assert_array_equal(dpk.scan(_affine_compose, _on(device, small)).asnumpy(),
                                      want)


def test_scan_axis_and_nan(device):
    x = _data(np.float32, 12 * 31, seed=9).reshape(12, 31)
    np.testing.assert_array_equal(dpk.scan("max", _on(device, x), axis=1).asnumpy(),
                                  np.maximum.accumulate(x, axis=1))
    np.testing.assert_array_equal(dpk.scan(_max2, _on(device, x), axis=0).asnumpy()[:, 3:5],
                                  np.array([[max(x[:i + 1, j].tolist()) for j in (3, 4)]
                                            for i in range(12)], np.float32))


@pytest.mark.parametrize("n", [0, 1, 1000, 100003])
def test_bincount_histogram(device, n):
    rng = np.random.default_rng(10)
    x = rng.integers(0, 50, n)
    d = _on(device, x)
    np.testing.assert_array_equal(dpk.bincount(d).asnumpy(), np.bincount(x))
    np.testing.assert_array_equal(dpk.bincount(d, minlength=60).asnumpy(),
                                  np.bincount(x, minlength=60))
    if device.has_fp64:
        w = rng.random(n)
        np.testing.assert_allclose(dpk.bincount(d, weights=_on(device, w)).asnumpy(),
                                   np.bincount(x, weights=w))
    v = rng.standard_normal(n)
    if device.has_fp64:
        counts, edges = dpk.histogram(_on(device, v), bins=13, range=(-2, 2))
        wc, we = np.histogram(v, bins=13, range=(-2, 2))
        np.testing.assert_array_equal(counts.asnumpy(), wc)
        np.testing.assert_allclose(edges.asnumpy(), we)
    with pytest.raises(ValueError):
        dpk.bincount(_on(device, np.array([1, -1])))


def test_scatter_add(device):
    rng = np.random.default_rng(11)
    idx = rng.integers(-10, 10, 5000)
    vals = rng.integers(0, 5, 5000).astype(np.int32)
    t = np.zeros(10, np.int32)
    want = t.copy()
    np.add.at(want, idx, vals)
    td = _on(device, t)
    dpk.scatter_add(td, _on(device, idx), _on(device, vals))
    np.testing.assert_array_equal(td.asnumpy(), want)
    tf = _on(device, np.zeros(10, np.float32))
    dpk.scatter_add(tf, _on(device, idx % 10), 1.0)
    np.testing.assert_array_equal(tf.asnumpy(), np.bincount(idx % 10, minlength=10))
    tn = np.zeros(10, np.int32)
    assert dpk.scatter_add(tn, idx, vals) is tn
    np.testing.assert_array_equal(tn, want)
    with pytest.raises(IndexError):
        dpk.scatter_add(td, _on(device, np.array([10])), _on(device, np.array([1], np.int32)))


def test_compact_and_argwhere(device):
    x = _data(np.int32, 1001, seed=12)
    d = _on(device, x)
    np.testing.assert_array_equal(dpk.compact(d, d > 3).asnumpy(), x[x > 3])
    np.testing.assert_array_equal(dpk.argwhere(_on(device, x.reshape(7, 143))).asnumpy(),
                                  np.argwhere(x.reshape(7, 143)))
    np.testing.assert_array_equal(dpk.compact(x, x % 2), x[x % 2 != 0])


def test_searchsorted_numpy(device):
    a = np.sort(_data(np.float32, 100, seed=13))
    v = _data(np.float32, 50, seed=14)
    np.testing.assert_array_equal(dpk.searchsorted(a, v), np.searchsorted(a, v))
    np.testing.assert_array_equal(
        dpk.searchsorted(_on(device, a), _on(device, v), side="right").asnumpy(),
        np.searchsorted(a, v, side="right"))


# ---- both kernel shapes on every device -------------------------------------------------------

@pytest.mark.parametrize("shape", ["cpu", "gpu", "gpu-warps"])
@pytest.mark.parametrize("n", [1, 255, 1000, 4097, 70001])
def test_both_shapes(device, monkeypatch, shape, n):
    """The CPU-shaped kernels (a work-item walks a block) and the GPU-shaped ones (work-groups
    with local-memory histograms, ranking by bit masks or, "gpu-warps", by sub-group ballots)
    give the same, NumPy's, answers on every device; the sizes cover a partial work-group, one
    round per tile, several rounds and tiles, and a partial last tile. On devices whose
    sub-groups are single work-items the sub-group ranking still runs, one histogram per
    work-item."""
    from dpk.primitives import common, radix_sort
    monkeypatch.setattr(radix_sort, "WARP_RANKING", shape == "gpu-warps")
    shape = shape.split("-")[0]
    monkeypatch.setenv(common.SHAPE_ENV, shape)
    assert common.kernel_shape(device) == shape
    dtypes = [np.float32, np.int8, np.uint16, np.int64] + ([np.float64] if device.has_fp64
                                                              else [])
    for dtype in dtypes:
        x = _data(dtype, n, seed=20)
        d = _on(device, x)
        np.testing.assert_array_equal(dpk.argsort(d).asnumpy(), np.argsort(x, kind="stable"))
        np.testing.assert_array_equal(dpk.sort(d).asnumpy(), np.sort(x, kind="stable"))
        want = x.size - 1 - np.flip(np.argsort(np.flip(x), kind="stable"))
        np.testing.assert_array_equal(dpk.argsort(d, descending=True).asnumpy(), want)
    x = _data(np.float32, n, seed=21)
    s = dpk.sort(_on(device, x)).asnumpy()
    np.testing.assert_array_equal(np.signbit(s), np.signbit(np.sort(x, kind="stable")))
    if n >= 1000:
        m = x[: (n // 8) * 8].reshape(8, -1)
        np.testing.assert_array_equal(dpk.argsort(_on(device, m), axis=0).asnumpy(),
                                      np.argsort(m, axis=0, kind="stable"))
        values, indices = dpk.topk(_on(device, x), 10)
        np.testing.assert_array_equal(
            indices.asnumpy(), (n - 1 - np.flip(np.argsort(np.flip(x), kind="stable")))[:10])
    y = _data(np.int32, n, seed=22)
    v, c = dpk.unique_counts(_on(device, y))
    wv, wc = np.unique(y, return_counts=True)
    np.testing.assert_array_equal(v.asnumpy(), wv)
    np.testing.assert_array_equal(c.asnumpy(), wc)
    b = np.random.default_rng(23).integers(0, 1000, n).astype(np.uint16)
    np.testing.assert_array_equal(dpk.bincount(_on(device, b)).asnumpy(), np.bincount(b))
    np.testing.assert_array_equal(dpk.bincount(_on(device, b), minlength=1024).asnumpy(),
                                  np.bincount(b, minlength=1024))


def test_shape_variable_is_checked(host, monkeypatch):
    from dpk.primitives import common
    monkeypatch.setenv(common.SHAPE_ENV, "fast")
    with pytest.raises(ValueError, match="DPK_PRIMITIVES_SHAPE"):
        dpk.sort(np.arange(3))
    monkeypatch.setenv(common.SHAPE_ENV, "auto")
    assert common.kernel_shape(host) == "cpu"
