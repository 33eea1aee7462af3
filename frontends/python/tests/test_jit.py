"""@dpk.jit and dpk.prange (docs/jit.md): regions as kernels, reductions, atomics, private
arrays, row views, calls between jit functions, devices, array expressions between regions.
Fallback, diagnostics and errors: test_jit_fallback.py; workloads: test_jit_workloads.py."""

import math

import numpy as np
import pytest

import dpk
from dpk import prange
from dpk.autopar import JitFunction

RNG = np.random.default_rng(7)


# ---- functions under test (module level: the jit reads their source) -------------------------

@dpk.jit
def vadd(a, b, c):
    for i in prange(a.shape[0]):
        c[i] = a[i] + b[i]


@dpk.jit
def saxpy_ranges(a, x, y, out):
    n = x.shape[0]
    for i in prange(1, n - 1, 2):
        out[i] = a * x[i] + y[i]


@dpk.jit
def outer2d(x, y, out):
    for i in prange(x.shape[0]):
        for j in prange(y.shape[0]):
            out[i, j] = x[i] * y[j]


@dpk.jit
def add3d(a, out):
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            for k in prange(a.shape[2]):
                out[i, j, k] = a[i, j, k] + i + 10 * j + 100 * k


@dpk.jit
def triangle(a, out):
    # the inner bounds use i: not collapsed, the inner prange runs as a sequential loop
    for i in prange(a.shape[0]):
        for j in prange(i + 1):
            out[i, j] = a[i, j] * 2


@dpk.jit
def rowsum_seq(a, out):
    for i in prange(a.shape[0]):
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k]
        out[i] = acc


@dpk.jit
def reduce_sum(a):
    s = 0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@dpk.jit
def reduce_sub(a, start):
    s = start
    for i in prange(a.shape[0]):
        s -= a[i]
    return s


@dpk.jit
def reduce_prod(a):
    p = 1.0
    for i in prange(a.shape[0]):
        p *= a[i]
    return p


@dpk.jit
def reduce_minmax(a):
    lo = a[0]
    hi = a[0]
    for i in prange(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(a[i], hi)
    return lo, hi


@dpk.jit
def reduce_many(a, b):
    s = 0.0
    n = 0
    m = -1e30
    for i in prange(a.shape[0]):
        d = a[i] - b[i]
        s += d * d
        if d > 0:
            n += 1
        m = max(m, d)
    return s, n, m


@dpk.jit
def reduce_bits(a):
    x = 0
    o = 0
    for i in prange(a.shape[0]):
        x ^= a[i]
        o |= a[i]
    return x, o


@dpk.jit
def reduce_assign_forms(a):
    s = 0.0
    t = 1.0
    for i in prange(a.shape[0]):
        s = s + a[i]
        t = a[i] * t
    return s, t


@dpk.jit
def reduce2d(a):
    s = 0.0
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            s += a[i, j] * (i + 1) - j
    return s


@dpk.jit
def histogram(x, bins):
    hist = np.zeros(bins, np.int64)
    for i in prange(x.shape[0]):
        k = int(x[i] * bins)
        if k >= bins:
            k = bins - 1
        hist[k] += 1
    return hist


@dpk.jit
def float_atomics(x, idx, out):
    for i in prange(x.shape[0]):
        out[idx[i]] += x[i]


@dpk.jit
def atomic2d(x, out):
    for i in prange(x.shape[0]):
        out[i % 2, i % 3] += x[i]


@dpk.jit
def shared_total(x, total):
    for i in prange(x.shape[0]):
        total[0] += x[i]


@dpk.jit
def private_arrays(pts, out):
    for i in prange(pts.shape[0]):
        tmp = np.empty(3)
        acc = np.zeros((4,), np.float32)
        for k in range(3):
            tmp[k] = pts[i, k] * 2.0
        for k in range(4):
            acc[k] = acc[k] + k
        out[i] = tmp[0] + tmp[1] + tmp[2] + acc[3]


@dpk.jit
def row_views(a, out):
    for i in prange(a.shape[0]):
        row = a[i]
        dst = out[i, :]
        for k in range(row.shape[0]):
            dst[k] = row[k] * row[k]


@dpk.device_func
def squared(v):
    return v * v


@dpk.jit
def cube(v):
    return v * v * v


@dpk.jit
def calls_functions(a, out):
    for i in prange(a.shape[0]):
        out[i] = squared(a[i]) + cube(a[i]) + math.sqrt(abs(a[i])) + np.exp(-a[i])


@dpk.jit
def calls_jit_from_python(a):
    out = np.empty_like(a)
    vadd(a, a, out)
    return reduce_sum(out)


@dpk.jit
def two_regions(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i] * 2
    c = b + 1              # between the regions: the array layer (NumPy arguments converted)
    s = 0.0
    for i in prange(a.shape[0]):
        s += c[i]
    return c, s


@dpk.jit
def continue_in_body(a, out):
    for i in prange(a.shape[0]):
        if a[i] < 0:
            continue
        out[i] = a[i]


@dpk.jit
def continue_with_reduction(a):
    s = 0.0
    for i in prange(a.shape[0]):
        if a[i] < 0:
            continue
        s += a[i]
    return s


@dpk.jit
def empty_range(a):
    s = 5
    for i in prange(0):
        s += 1
    return s


@pytest.fixture(autouse=True)
def no_fallback():
    """Every region of these tests runs as a kernel on its device: a fallback is a failure."""
    yield
    for value in list(globals().values()):
        if isinstance(value, JitFunction) and value._runners:
            for runner in value._runners:
                assert not runner.last.get("fallback"), (value.__name__, runner.last)


# ---- regions as kernels ------------------------------------------------------------------------

def test_prange_is_range_in_python():
    assert list(prange(3)) == [0, 1, 2]
    assert list(dpk.prange(1, 7, 3)) == [1, 4]


def test_map_1d(device):
    a, b = RNG.random(1000, dtype=np.float32), RNG.random(1000, dtype=np.float32)
    c = np.zeros_like(a)
    with dpk.device_context(device):
        vadd(a, b, c)
    np.testing.assert_allclose(c, a + b)
    assert vadd.inspect_regions()[0]["last_run"]["device"] == device.filter_string


def test_range_with_start_and_step(device):
    x, y = RNG.random(101), RNG.random(101)
    out = np.zeros(101)
    with dpk.device_context(device):
        saxpy_ranges(3.0, x, y, out)
    expect = np.zeros(101)
    expect[1:100:2] = 3.0 * x[1:100:2] + y[1:100:2]
    np.testing.assert_allclose(out, expect)


def test_nested_prange_collapses(device):
    x, y = RNG.random(37), RNG.random(23)
    out = np.zeros((37, 23))
    with dpk.device_context(device):
        outer2d(x, y, out)
    np.testing.assert_allclose(out, np.outer(x, y))
    info = outer2d.inspect_regions()[0]
    assert info["collapsed_dims"] == 2 and info["loop_variables"] == ["i", "j"]


def test_three_collapsed_dims(device):
    a = RNG.random((4, 5, 6))
    out = np.zeros_like(a)
    with dpk.device_context(device):
        add3d(a, out)
    i, j, k = np.indices(a.shape)
    np.testing.assert_allclose(out, a + i + 10 * j + 100 * k)


def test_triangular_inner_prange_is_sequential(device):
    a = RNG.random((20, 20))
    out = np.zeros_like(a)
    with dpk.device_context(device):
        triangle(a, out)
    np.testing.assert_allclose(out, np.tril(a) * 2)
    info = triangle.inspect_regions()[0]
    assert info["collapsed_dims"] == 1 and len(info["sequential_pranges"]) == 1


def test_sequential_loop_inside(device):
    a = RNG.random((50, 17))
    out = np.zeros(50)
    with dpk.device_context(device):
        rowsum_seq(a, out)
    np.testing.assert_allclose(out, a.sum(axis=1))


# ---- scalar reductions ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_sum_reduction_dtypes(device, dtype):
    a = (RNG.random(10007) * 100).astype(dtype)
    with dpk.device_context(device):
        s = reduce_sum(a)
    if np.dtype(dtype).kind == "i":
        assert s == int(a.astype(np.int64).sum())
    else:
        assert math.isclose(s, float(a.astype(np.float64).sum()), rel_tol=1e-5)
    info = reduce_sum.inspect_regions()[0]
    assert info["reductions"][0]["operator"] == "+"
    assert info["last_run"]["shape"] == "reduce" and info["last_run"]["groups"] >= 1


def test_sub_reduction(device):
    a = RNG.integers(0, 100, 999).astype(np.int64)
    with dpk.device_context(device):
        assert reduce_sub(a, 10) == 10 - int(a.sum())
        assert math.isclose(reduce_sub(a.astype(np.float64), 0.5), 0.5 - float(a.sum()))


def test_prod_reduction(device):
    a = 1.0 + RNG.random(300) * 0.01
    with dpk.device_context(device):
        assert math.isclose(reduce_prod(a), float(np.prod(a)), rel_tol=1e-9)


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_min_max_reduction(device, dtype):
    a = (RNG.random(5003) * 1000 - 500).astype(dtype)
    with dpk.device_context(device):
        lo, hi = reduce_minmax(a)
    assert lo == a.min() and hi == a.max()


def test_several_reductions_at_once(device):
    a, b = RNG.random(4000), RNG.random(4000)
    with dpk.device_context(device):
        s, n, m = reduce_many(a, b)
    d = a - b
    assert math.isclose(s, float((d * d).sum()), rel_tol=1e-9)
    assert n == int((d > 0).sum())
    assert isinstance(n, (int, np.integer))
    assert math.isclose(m, float(d.max()))
    ops = {r["variable"]: r["operator"] for r in reduce_many.inspect_regions()[0]["reductions"]}
    assert ops == {"s": "+", "n": "+", "m": "max"}


def test_bitwise_reductions(device):
    a = RNG.integers(0, 1 << 20, 777).astype(np.int64)
    with dpk.device_context(device):
        x, o = reduce_bits(a)
    assert x == np.bitwise_xor.reduce(a) and o == np.bitwise_or.reduce(a)


def test_assignment_forms_of_reductions(device):
    a = 1.0 + RNG.random(100) * 0.01
    with dpk.device_context(device):
        s, t = reduce_assign_forms(a)
    assert math.isclose(s, float(a.sum())) and math.isclose(t, float(np.prod(a)))


def test_reduction_over_collapsed_nest(device):
    a = RNG.random((33, 65))
    with dpk.device_context(device):
        s = reduce2d(a)
    i, j = np.indices(a.shape)
    assert math.isclose(s, float((a * (i + 1) - j).sum()), rel_tol=1e-9)


def test_continue_in_body(device):
    a = RNG.random(300) - 0.5
    out = np.zeros(300)
    with dpk.device_context(device):
        continue_in_body(a, out)
        s = continue_with_reduction(a)
    np.testing.assert_allclose(out, np.where(a < 0, 0, a))
    assert math.isclose(s, float(a[a >= 0].sum()))


def test_empty_range_keeps_initial_value(device):
    with dpk.device_context(device):
        assert empty_range(np.zeros(3)) == 5


# ---- atomics, private arrays, views, calls ----------------------------------------------------

def test_histogram_atomics(device):
    x = RNG.random(20000)
    with dpk.device_context(device):
        hist = histogram(x, 16)
    np.testing.assert_array_equal(hist, np.histogram(x, 16, (0, 1))[0])
    atomics = histogram.inspect_regions()[0]["atomics"]
    assert atomics == [{"update": "hist[k]", "operation": "fetch_add",
                        "line": atomics[0]["line"]}]


def test_float_atomics_and_2d(device):
    x = RNG.random(1000)
    idx = RNG.integers(0, 5, 1000)
    out = np.zeros(5)
    out2 = np.zeros((2, 3))
    total = np.zeros(1)
    with dpk.device_context(device):
        float_atomics(x, idx, out)
        atomic2d(x, out2)
        shared_total(x, total)
    np.testing.assert_allclose(out, np.bincount(idx, x, 5))
    i = np.arange(1000)
    expect = np.zeros((2, 3))
    np.add.at(expect, (i % 2, i % 3), x)
    np.testing.assert_allclose(out2, expect)
    assert math.isclose(total[0], float(x.sum()))


def test_private_arrays(device):
    pts = RNG.random((64, 3))
    out = np.zeros(64)
    with dpk.device_context(device):
        private_arrays(pts, out)
    np.testing.assert_allclose(out, pts.sum(axis=1) * 2 + 3)
    names = [p["name"] for p in private_arrays.inspect_regions()[0]["private_arrays"]]
    assert names == ["tmp", "acc"]


def test_row_views(device):
    a = RNG.random((20, 7))
    out = np.zeros_like(a)
    with dpk.device_context(device):
        row_views(a, out)
    np.testing.assert_allclose(out, a * a)
    assert row_views.inspect_regions()[0]["arrays_written"] == ["out"]


def test_calls_to_device_funcs_and_jit_functions(device):
    a = RNG.random(100) - 0.5
    out = np.zeros(100)
    with dpk.device_context(device):
        calls_functions(a, out)
        total = calls_jit_from_python(a)
    np.testing.assert_allclose(out, a * a + a ** 3 + np.sqrt(np.abs(a)) + np.exp(-a))
    assert math.isclose(total, float((2 * a).sum()))
    assert cube(3) == 27  # still callable from Python


# ---- devices and arrays ------------------------------------------------------------------------

def test_dpk_arrays_compute_follows_data(device):
    a = dpk.asarray(RNG.random(500, dtype=np.float32), device=device)
    b = dpk.asarray(RNG.random(500, dtype=np.float32), device=device)
    c = dpk.zeros(500, dtype=dpk.float32, device=device)
    vadd(a, b, c)  # no device_context: the arrays' device
    np.testing.assert_allclose(c.asnumpy(), a.asnumpy() + b.asnumpy())
    assert vadd.inspect_regions()[0]["last_run"]["device"] == device.filter_string
    assert math.isclose(reduce_sum(a), float(a.asnumpy().astype(np.float64).sum()),
                        rel_tol=1e-5)


def test_mixed_numpy_and_dpk_arguments(device):
    a = dpk.asarray(RNG.random(300), device=device)
    b = RNG.random(300)
    c = np.zeros(300)
    vadd(a, b, c)  # the dpk array places the region; the NumPy arrays are staged
    np.testing.assert_allclose(c, a.asnumpy() + b)


def test_array_expressions_between_regions(device):
    a = RNG.random(200)
    b = np.zeros(200)
    with dpk.device_context(device):
        c, s = two_regions(a, b)
    assert isinstance(c, np.ndarray)  # NumPy in, NumPy out (numba's semantics)
    np.testing.assert_allclose(c, 2 * a + 1)
    assert math.isclose(s, float((2 * a + 1).sum()))
    da = dpk.asarray(a, device=device)
    db = dpk.zeros(200, dtype=dpk.float64, device=device)
    c, s = two_regions(da, db)
    assert isinstance(c, dpk.Array) and c.device == device  # the array layer, on the device
    np.testing.assert_allclose(c.asnumpy(), 2 * a + 1)
    assert math.isclose(s, float((2 * a + 1).sum()))


def test_device_context_nesting():
    if not dpk.has_device("opencl:cpu"):
        pytest.skip("needs an opencl:cpu device next to the host")
    a = RNG.random(64)
    c = np.zeros(64)
    with dpk.device_context("opencl:cpu") as outer:
        with dpk.device_context("host"):
            vadd(a, a, c)
            assert vadd.inspect_regions()[0]["last_run"]["device"] == "host:cpu:0"
            assert dpk.get_current_device().is_host
        vadd(a, a, c)
        assert vadd.inspect_regions()[0]["last_run"]["device"] == outer.filter_string
        assert dpk.zeros(3).device == outer  # creation functions follow the context too
    np.testing.assert_allclose(c, 2 * a)


def test_decorator_device():
    target = "opencl:cpu" if dpk.has_device("opencl:cpu") else "host"
    f = dpk.jit(device=target)(vadd.py_func)
    a = RNG.random(10)
    c = np.zeros(10)
    f(a, a, c)
    np.testing.assert_allclose(c, 2 * a)
    assert f.inspect_regions()[0]["last_run"]["device"] == dpk.select_device(
        target).filter_string


def test_numba_options_accepted_and_unknown_refused():
    f = dpk.jit(parallel=True, nopython=True, cache=True, fastmath=True)(vadd.py_func)
    assert isinstance(f, JitFunction)
    with pytest.raises(TypeError, match="unexpected options: colour"):
        dpk.jit(colour=1)


def test_function_without_regions_and_defaults():
    @dpk.jit
    def plain(x, scale=2):
        return x * scale
    assert plain(3) == 6 and plain(3, scale=4) == 12
    assert plain.inspect_regions() == []


def test_closure_values_are_read():
    scale = 3.0

    @dpk.jit
    def scaled(a, out):
        for i in prange(a.shape[0]):
            out[i] = a[i] * scale
    a = RNG.random(10)
    out = np.zeros(10)
    with dpk.device_context("host"):
        scaled(a, out)
    np.testing.assert_allclose(out, 3 * a)


TABLE = np.array([1.0, 10.0, 100.0])


@dpk.jit
def reads_global_array(a, out):
    for i in prange(a.shape[0]):
        out[i] = a[i] * TABLE[i % 3]


@dpk.jit
def float32_accumulator(a):
    s = np.float32(0)
    for i in prange(a.shape[0]):
        s += a[i]
    return s


def test_global_and_closure_arrays_are_passed(device):
    a = RNG.random(30)
    out = np.zeros(30)
    weights = np.array([2.0, 3.0])

    @dpk.jit
    def reads_closure_array(a, out):
        for i in prange(a.shape[0]):
            out[i] = a[i] * weights[i % 2]
    with dpk.device_context(device):
        reads_global_array(a, out)
        np.testing.assert_allclose(out, a * np.tile(TABLE, 10))
        reads_closure_array(a, out)
        np.testing.assert_allclose(out, a * np.tile(weights, 15))
    assert not reads_closure_array.inspect_regions()[0]["last_run"]["fallback"]


def test_accumulator_dtype_follows_numba(device):
    a = RNG.random(1000, dtype=np.float32)
    with dpk.device_context(device):
        s32 = float32_accumulator(a)
        s64 = reduce_sum(a)  # s = 0 (int) += float32 -> float64, as Numba types it
    assert s32.dtype == np.float32 and math.isclose(s32, float(a.sum()), rel_tol=1e-4)
    assert s64.dtype == np.float64


@dpk.jit
def bucket_max(values, keys, out):
    for i in prange(values.shape[0]):
        out[keys[i]] = max(out[keys[i]], values[i])


def test_atomic_max_by_index(device):
    values = RNG.integers(0, 1000, 500).astype(np.int64)
    keys = RNG.integers(0, 7, 500)
    out = np.zeros(7, np.int64)
    with dpk.device_context(device):
        bucket_max(values, keys, out)
    expect = np.zeros(7, np.int64)
    np.maximum.at(expect, keys, values)
    np.testing.assert_array_equal(out, expect)
    assert bucket_max.inspect_regions()[0]["atomics"][0]["operation"] == "fetch_max"


@dpk.jit
def reversed_copy(a, out):
    n = a.shape[0]
    for i in prange(n - 1, -1, -1):
        out[n - 1 - i] = a[i]


@dpk.jit
def stepped_sum(a, lo, step):
    s = 0.0
    for i in prange(lo, a.shape[0], step):
        s += a[i]
    return s


@dpk.jit
def time_steps(u, steps):
    tmp = np.empty_like(u)
    for _ in range(steps):          # a sequential Python loop launching the region each step
        for i in prange(1, u.shape[0] - 1):
            tmp[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1])
        u[1:-1] = tmp[1:-1]
    return u


def test_negative_and_run_time_steps(device):
    a = RNG.random(57)
    out = np.zeros(57)
    with dpk.device_context(device):
        reversed_copy(a, out)
        s = stepped_sum(a, 3, 5)
    np.testing.assert_allclose(out, a[::-1])
    assert math.isclose(s, float(a[3::5].sum()))


def test_region_inside_a_sequential_loop(device):
    u = RNG.random(40)
    expect = u.copy()
    for _ in range(5):
        expect[1:-1] = 0.5 * expect[1:-1] + 0.25 * (expect[:-2] + expect[2:])
    with dpk.device_context(device):
        got = time_steps(u, 5)
    np.testing.assert_allclose(got, expect)


@dpk.jit
def parameter_kinds(a, *rest, scale=2.0, **kw):
    out = np.zeros_like(a)
    for i in prange(a.shape[0]):
        out[i] = a[i] * scale
    return out, rest, kw


@dpk.jit
def generator_with_region(a):
    for i in prange(a.shape[0]):
        a[i] = i
    yield float(a.sum())


def test_every_parameter_kind_and_generators(device):
    with dpk.device_context(device):
        out, rest, kw = parameter_kinds(np.arange(3.0), 1, 2, scale=3.0, z=1)
        assert list(generator_with_region(np.zeros(5))) == [10.0]
    np.testing.assert_allclose(out, [0.0, 3.0, 6.0])
    assert rest == (1, 2) and kw == {"z": 1}


@dpk.jit
def typed_sum(a, s):
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@dpk.jit
def typed_sub(a, s):
    for i in prange(a.shape[0]):
        s -= a[i]
    return s


@dpk.jit
def typed_prod(a, s):
    for i in prange(a.shape[0]):
        s *= a[i]
    return s


@dpk.jit
def typed_min(a, s):
    for i in prange(a.shape[0]):
        s = min(s, a[i])
    return s


@dpk.jit
def typed_max(a, s):
    for i in prange(a.shape[0]):
        s = max(s, a[i])
    return s


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("fn, init, fold", [
    (typed_sum, 5, lambda init, a: init + a.sum()),
    (typed_sub, 5, lambda init, a: init - a.sum()),
    (typed_prod, 3, lambda init, a: init * np.prod(a)),
    (typed_min, 7, lambda init, a: min(init, a.min())),
    (typed_max, -7, lambda init, a: max(init, a.max())),
], ids=["sum", "sub", "prod", "min", "max"])
def test_each_reduction_in_each_dtype(device, fn, init, fold, dtype):
    """The accumulator has the dtype of the value before the loop (here: the array's)."""
    if fn is typed_prod:
        a = np.ones(2001, dtype)
        a[RNG.integers(0, 2001, 9)] = 2  # a product that fits every dtype
    else:
        a = (RNG.random(2001) * 200 - 100).astype(dtype)
    start = np.dtype(dtype).type(init)
    with dpk.device_context(device):
        got = fn(a, start)
    assert got.dtype == np.dtype(dtype)
    expect = fold(start, a)
    if np.dtype(dtype).kind == "f":
        assert math.isclose(got, expect, rel_tol=1e-4 if dtype == np.float32 else 1e-10)
    else:
        assert got == expect
