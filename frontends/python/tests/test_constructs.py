"""Each supported Python construct, compiled and run on every test device, against NumPy (or
the same kernel run by kernel_api.call_kernel in plain Python)."""

import math

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi

from conftest import run_on

SCALE = 3          # module-level constants are compile-time values
OFFSET = 0.5
F32_ONE = np.float32(1.0)


def compare_with_python(device, kernel, index_range, *args, rtol=1e-6, atol=1e-12):
    """Runs `kernel` compiled on `device` and in plain Python; all array results must agree."""
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    kapi.call_kernel(kernel, index_range, *expected)
    run_on(device, kernel, index_range, *args)
    for got, want in zip(args, expected):
        if isinstance(got, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# ---- arithmetic ----------------------------------------------------------------------------

@dpk.kernel
def int_arith(item, a, b, out):
    i = item.get_id(0)
    x = a[i]
    y = b[i]
    out[i, 0] = x + y
    out[i, 1] = x - y
    out[i, 2] = x * y
    out[i, 3] = x // y          # floor division (Python semantics on negatives)
    out[i, 4] = x % y           # modulo with the divisor's sign
    out[i, 5] = x ** 2
    out[i, 6] = (x & 7) | (y ^ 3)
    out[i, 7] = (x << 2) >> 1
    out[i, 8] = -x + abs(y)
    out[i, 9] = min(x, y) * 10 + max(x, y, 2)


def test_integer_arithmetic(device):
    a = np.array([7, -7, 7, -7, 0, 13, -1, 5], dtype=np.int64)
    b = np.array([2, 2, -2, -2, 3, 4, 7, -3], dtype=np.int64)
    out = np.zeros((8, 10), dtype=np.int64)
    run_on(device, int_arith, dpk.Range(8), a, b, out)
    expect = np.stack([a + b, a - b, a * b, a // b, a % b, a ** 2, (a & 7) | (b ^ 3),
                       (a << 2) >> 1, -a + abs(b), np.minimum(a, b) * 10 +
                       np.maximum(np.maximum(a, b), 2)], axis=1)
    np.testing.assert_array_equal(out, expect)


@dpk.kernel
def float_arith(item, a, b, out):
    i = item.get_id(0)
    x = a[i]
    y = b[i]
    out[i, 0] = x / y
    out[i, 1] = x // y
    out[i, 2] = x % y
    out[i, 3] = x ** y
    out[i, 4] = x ** 2
    out[i, 5] = -x * SCALE + OFFSET
    t = x
    t += y
    t *= 2.0
    t -= 1
    t /= 4
    out[i, 6] = t
    out[i, 7] = 7 / 2 + 7 // 2 + 2 ** 3   # constant folding


def test_float_arithmetic(device):
    a = np.array([7.5, -7.5, 2.0, 0.25], dtype=np.float64)
    b = np.array([2.0, 2.0, -3.0, 1.5], dtype=np.float64)
    out = np.zeros((4, 8))
    run_on(device, float_arith, dpk.Range(4), a, b, out)
    t = ((a + b) * 2.0 - 1) / 4
    expect = np.stack([a / b, a // b, a % b, np.abs(a) ** b * np.sign(a) ** 0, a ** 2,
                       -a * SCALE + OFFSET, t, np.full(4, 3.5 + 3 + 8)], axis=1)
    expect[:, 3] = [x ** y for x, y in zip(a, b)]
    np.testing.assert_allclose(out, expect, rtol=1e-12)


@dpk.kernel
def f32_stays_f32(item, a, out):
    i = item.get_id(0)
    d = a.dtype.type(0.0)
    d += a[i] * 2 + 1.5          # weak literals keep float32
    out[i] = d + F32_ONE


def test_float32_weak_literals(device):
    a = np.linspace(0, 1, 16, dtype=np.float32)
    out = np.zeros(16, dtype=np.float32)
    run_on(device, f32_stays_f32, dpk.Range(16), a, out)
    np.testing.assert_allclose(out, a * 2 + 1.5 + 1, rtol=1e-6)
    assert "f64" not in f32_stays_f32.inspect_ir(dpk.Range(16), a, out).split("loc(")[0]


@dpk.kernel
def comparisons(item, a, out):
    i = item.get_id(0)
    x = a[i]
    out[i, 0] = x < 3
    out[i, 1] = 1 <= x < 4          # chained
    out[i, 2] = x == 2 or x == 5
    out[i, 3] = not (x != 4)
    out[i, 4] = x > 2 and x >= 3
    out[i, 5] = 10 if x > 2 else 20


def test_comparisons_and_boolean_ops(device):
    a = np.arange(7, dtype=np.int32)
    out = np.zeros((7, 6), dtype=np.int64)
    run_on(device, comparisons, dpk.Range(7), a, out)
    expect = np.stack([a < 3, (1 <= a) & (a < 4), (a == 2) | (a == 5), a == 4,
                       (a > 2) & (a >= 3), np.where(a > 2, 10, 20)], axis=1)
    np.testing.assert_array_equal(out, expect)


@dpk.kernel
def short_circuit(item, a, n, out):
    i = item.get_id(0)
    # a[i] is only read when i < n: the right operand must not be evaluated otherwise.
    if i < n and a[i] > 0:
        out[i] = 1
    else:
        out[i] = 2
    v = a[i] if i < n else -1
    out[i] += v * 10


def test_short_circuit_guards_reads(device):
    a = np.array([1, -1, 3], dtype=np.int64)
    out = np.zeros(6, dtype=np.int64)
    # The kernel reads a[i] only for i < 3; with a Range of 6 an eager read would go out of bounds.
    run_on(device, short_circuit, dpk.Range(6), a, 3, out)
    assert list(out) == [11, -8, 31, -8, -8, -8]


# ---- control flow -------------------------------------------------------------------------

@dpk.kernel
def control_flow(item, out):
    i = item.get_id(0)
    if i == 0:
        r = 100
    elif i == 1:
        r = 200
    else:
        r = 0
    total = 0
    for j in range(5):
        total += j
    for j in range(2, 6):
        total += j
    for j in range(10, 0, -3):      # negative step: 10, 7, 4, 1
        total += j
    for j in range(0, 10, 4):
        if j == 4:
            continue
        total += j * 100
    k = 0
    while True:
        k += 1
        if k >= i + 3:
            break
    out[i] = r + total + k * 1000


def test_control_flow(device):
    out = np.zeros(4, dtype=np.int64)
    run_on(device, control_flow, dpk.Range(4), out)
    total = 10 + 14 + 22 + 800
    assert list(out) == [100 + total + 3000, 200 + total + 4000, total + 5000, total + 6000]


@dpk.kernel
def runtime_range(item, lo, hi, step, out):
    i = item.get_id(0)
    s = 0
    for j in range(lo, hi, step):
        s += j
    out[i] = s


@pytest.mark.parametrize("lo,hi,step", [(0, 10, 3), (10, 0, -2), (5, 5, 1), (0, 7, -1)])
def test_range_with_runtime_arguments(device, lo, hi, step):
    out = np.zeros(2, dtype=np.int64)
    run_on(device, runtime_range, dpk.Range(2), lo, hi, step, out)
    assert list(out) == [sum(range(lo, hi, step))] * 2


@dpk.kernel
def tuples_and_shapes(item, m, out):
    i, j = item.get_id(0), item.get_id(1)
    idx = (i, j)
    rows, cols = m.shape
    out[idx] = m[i, j] * 10 + rows * 100 + m.shape[1] + len(m) * 1000 + m.ndim


def test_tuples_multi_index_and_shape(device):
    m = np.arange(12, dtype=np.int64).reshape(3, 4)
    out = np.zeros((3, 4), dtype=np.int64)
    run_on(device, tuples_and_shapes, dpk.Range(3, 4), m, out)
    np.testing.assert_array_equal(out, m * 10 + 300 + 4 + 3000 + 2)


@dpk.kernel
def conversions(item, a, out):
    i = item.get_id(0)
    x = a[i]
    out[i, 0] = int(x)                 # truncates toward zero
    out[i, 1] = float(int(x) * 2)
    out[i, 2] = np.float32(x) * 2
    out[i, 3] = a.dtype.type(1.25) + x
    out[i, 4] = np.int32(x) + np.int64(1)
    out[i, 5] = bool(x) + 0


def test_type_conversions(device):
    a = np.array([1.75, -1.75, 0.0, 3.5], dtype=np.float64)
    out = np.zeros((4, 6))
    run_on(device, conversions, dpk.Range(4), a, out)
    expect = np.stack([np.trunc(a), np.trunc(a) * 2, a * 2, a + 1.25,
                       np.trunc(a) + 1, (a != 0).astype(float)], axis=1)
    np.testing.assert_allclose(out, expect)


# ---- math -----------------------------------------------------------------------------------

UNARY = ["fabs", "exp", "expm1", "log", "log10", "log1p", "log2", "sqrt", "sin", "cos",
         "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "atanh", "erf",
         "erfc", "lgamma"]


@dpk.kernel
def math_unary(item, x, out):
    i = item.get_id(0)
    v = x[i]
    out[0, i] = math.fabs(v)
    out[1, i] = math.exp(v)
    out[2, i] = math.expm1(v)
    out[3, i] = math.log(v)
    out[4, i] = math.log10(v)
    out[5, i] = math.log1p(v)
    out[6, i] = math.log2(v)
    out[7, i] = math.sqrt(v)
    out[8, i] = math.sin(v)
    out[9, i] = math.cos(v)
    out[10, i] = math.tan(v)
    out[11, i] = math.asin(v)
    out[12, i] = math.acos(v)
    out[13, i] = math.atan(v)
    out[14, i] = math.sinh(v)
    out[15, i] = math.cosh(v)
    out[16, i] = math.tanh(v)
    out[17, i] = math.asinh(v)
    out[18, i] = math.atanh(v)
    out[19, i] = math.erf(v)
    out[20, i] = math.erfc(v)
    out[21, i] = math.lgamma(v)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_math_unary(device, dtype):
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip(f"{device} has no fp64")
    x = np.linspace(0.1, 0.9, 8).astype(dtype)
    out = np.zeros((len(UNARY), 8), dtype=dtype)
    run_on(device, math_unary, dpk.Range(8), x, out)
    for row, name in enumerate(UNARY):
        want = [getattr(math, name)(float(v)) for v in x]
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(out[row], want, rtol=tol, atol=tol, err_msg=name)


@dpk.kernel
def math_more(item, x, y, out):
    i = item.get_id(0)
    a = x[i]
    b = y[i]
    out[0, i] = math.atan2(a, b)
    out[1, i] = math.copysign(a, -b)
    out[2, i] = math.pow(a, b)
    out[3, i] = math.fmod(a * 7, b)
    out[4, i] = math.hypot(a, b)
    out[5, i] = math.ldexp(a, 3)
    out[6, i] = math.floor(a * 10) + math.ceil(b * 10) + math.trunc(-a * 10)
    out[7, i] = math.gamma(a + 1) + math.exp2(b) + math.acosh(a + 1)
    out[8, i] = math.isnan(a / 0.0 * 0.0) + math.isinf(b / 0.0) * 2
    out[9, i] = np.sqrt(a) + np.minimum(a, b) + np.maximum(a, b) + np.abs(-a) + np.floor(b)
    out[10, i] = min(a, b) - max(a, 0.5) + abs(a - b)
    out[11, i] = math.pi + math.e


def test_math_binary_and_misc(device):
    x = np.array([0.3, 0.6, 1.2, 2.5])
    y = np.array([0.7, 1.1, 0.4, 3.0])
    out = np.zeros((12, 4))
    run_on(device, math_more, dpk.Range(4), x, y, out)
    f = [math.atan2, lambda a, b: math.copysign(a, -b), math.pow,
         lambda a, b: math.fmod(a * 7, b), math.hypot, lambda a, b: math.ldexp(a, 3),
         lambda a, b: math.floor(a * 10) + math.ceil(b * 10) + math.trunc(-a * 10),
         lambda a, b: math.gamma(a + 1) + 2 ** b + math.acosh(a + 1),
         lambda a, b: 1 + 2,
         lambda a, b: math.sqrt(a) + min(a, b) + max(a, b) + a + math.floor(b),
         lambda a, b: min(a, b) - max(a, 0.5) + abs(a - b),
         lambda a, b: math.pi + math.e]
    for row, fn in enumerate(f):
        np.testing.assert_allclose(out[row], [fn(a, b) for a, b in zip(x, y)], rtol=1e-12,
                                   err_msg=str(row))


# ---- bit counts -----------------------------------------------------------------------------

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@dpk.kernel
def bit_counts(item, x, out):
    i = item.get_id(0)
    v = x[i]
    out[0, i] = kapi.popcount(v)       # the dtype's bits: -1 counts all of them
    out[1, i] = v.bit_count()          # Python's int.bit_count(): the bits of |v|
    out[2, i] = np.bitwise_count(v)    # NumPy's: |v| too, as uint8
    out[3, i] = kapi.popcount(v) + kapi.popcount(-1) + kapi.popcount(5)  # literals: int64


def bit_count_inputs(dtype):
    """0, 1, -1, the extremes, alternating bits and random patterns of `dtype`."""
    info = np.iinfo(dtype)
    bits = info.bits
    special = [0, 1, -1, info.min, info.max, int("01" * (bits // 2), 2),
               int("10" * (bits // 2), 2), 1 << (bits - 1), 3, -3, 100, -100]
    mask = (1 << bits) - 1
    words = np.array([v & mask for v in special], dtype=np.dtype(f"u{bits // 8}"))
    rng = np.random.default_rng(bits)
    random = rng.integers(0, np.iinfo(words.dtype).max, 52, dtype=words.dtype, endpoint=True)
    return np.concatenate([words, random]).view(dtype)  # 64 values, the same bit patterns


@pytest.mark.skipif(not hasattr(np, "bitwise_count"), reason="NumPy < 2.0: no bitwise_count")
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_popcount(device, dtype):
    x = bit_count_inputs(dtype)
    n = len(x)
    out = np.full((4, n), 99, dtype=dtype)
    run_on(device, bit_counts, dpk.Range(n), x, out)
    unsigned = x.view(np.dtype(f"u{x.itemsize}"))
    pattern = np.array([int(u).bit_count() for u in unsigned])   # bits of the representation
    assert pattern.max() == 8 * x.itemsize and pattern.min() == 0
    np.testing.assert_array_equal(out[0], pattern, err_msg="popcount")
    np.testing.assert_array_equal(out[0], np.bitwise_count(unsigned), err_msg="popcount")
    absolute = np.array([int(v).bit_count() for v in x])          # Python's bit_count
    np.testing.assert_array_equal(out[1], absolute, err_msg="bit_count")
    np.testing.assert_array_equal(out[2], np.bitwise_count(x), err_msg="np.bitwise_count")
    np.testing.assert_array_equal(out[3], pattern + 64 + 2, err_msg="popcount of literals")
    if np.dtype(dtype).kind == "i":   # the two meanings differ on negatives (-1 among them)
        assert (out[0] != out[1]).any()
    else:
        np.testing.assert_array_equal(out[0], out[1])
    # The pure-Python run of the same kernel agrees.
    expected = np.full((4, n), 99, dtype=dtype)
    kapi.call_kernel(bit_counts, dpk.Range(n), x, expected)
    np.testing.assert_array_equal(out, expected)


def test_popcount_types(host):
    """popcount keeps its operand's dtype, takes bool as int64, and rejects floats by name."""
    assert kapi.popcount(np.int8(-1)) == 8 and type(kapi.popcount(np.int8(-1))) is np.int8
    assert kapi.popcount(np.uint64(2**64 - 1)) == 64
    assert kapi.popcount(np.int64(np.iinfo(np.int64).min)) == 1
    assert kapi.popcount(-1) == 64 and kapi.popcount(True) == 1 and kapi.popcount(0) == 0
    with pytest.raises(TypeError, match="popcount"):
        kapi.popcount(1.5)

    @dpk.kernel
    def typed(item, x, out):
        i = item.get_id(0)
        out[i] = kapi.popcount(x[i]) + x[i].bit_count()

    x = np.array([-1, 3], dtype=np.int16)
    out = np.zeros(2, dtype=np.int16)
    run_on(host, typed, dpk.Range(2), x, out)
    np.testing.assert_array_equal(out, [16 + 1, 2 + 2])

    @dpk.kernel
    def on_float(item, x):
        i = item.get_id(0)
        x[i] = kapi.popcount(x[i])

    with pytest.raises(dpk.KernelTypeError, match=r"popcount\(\) takes an integer, not a float32"):
        run_on(host, on_float, dpk.Range(2), np.zeros(2, dtype=np.float32))

    @dpk.kernel
    def float_bit_count(item, x):
        i = item.get_id(0)
        x[i] = x[i].bit_count()

    with pytest.raises(dpk.KernelTypeError, match=r"bit_count\(\) takes an integer, not a float64"):
        run_on(host, float_bit_count, dpk.Range(2), np.zeros(2, dtype=np.float64))


# ---- device functions ----------------------------------------------------------------------

@dpk.device_func
def square(x):
    return x * x


@dpk.device_func
def sum_of_squares(a, b):
    return square(a) + square(b)


@dpk.device_func
def store_twice(arr, i, v):
    arr[i] = v * 2


@dpk.device_func
def sign(x):
    if x < 0:
        return -1
    return 1


@dpk.kernel
def uses_device_functions(item, a, out, out2):
    i = item.get_id(0)
    out[i] = sum_of_squares(a[i], 2.0) + sign(a[i] - 2)
    store_twice(out2, i, a[i])


def test_device_functions(device):
    a = np.arange(5, dtype=np.float64)
    out = np.zeros(5)
    out2 = np.zeros(5)
    run_on(device, uses_device_functions, dpk.Range(5), a, out, out2)
    np.testing.assert_allclose(out, a * a + 4 + np.where(a - 2 < 0, -1, 1))
    np.testing.assert_allclose(out2, a * 2)
    assert sum_of_squares(3, 4) == 25  # device functions stay callable from Python


# ---- scalars and arrays of all kinds --------------------------------------------------------

@dpk.kernel
def scalar_args(item, out, n, x, flag, f32):
    i = item.get_id(0)
    v = out[i] + n * x
    if flag:
        v += f32
    out[i] = v


def test_scalar_arguments(device):
    out = np.ones(4, dtype=np.float32)
    run_on(device, scalar_args, dpk.Range(4), out, 3, 0.5, True, np.float32(0.25))
    np.testing.assert_allclose(out, 1 + 1.5 + 0.25)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64, np.float32, np.float64, np.bool_])
def test_array_dtypes(device, dtype):
    @dpk.kernel
    def copy_plus(item, a, b):
        i = item.get_id(0)
        b[i] = a[i]

    a = (np.arange(6) % 2 == 1) if dtype == np.bool_ else np.arange(6).astype(dtype)
    b = np.zeros(6, dtype=dtype)
    run_on(device, copy_plus, dpk.Range(6), a, b)
    np.testing.assert_array_equal(a, b)


@dpk.kernel
def three_d(item, a, out):
    i, j, k = item.get_id(0), item.get_id(1), item.get_id(2)
    out[i, j, k] = a[i, j, k] + item.get_linear_id() * 0


def test_3d_and_strided_views(host):
    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    out = np.zeros((2, 3, 4), dtype=np.float32)
    dpk.call_kernel(three_d, dpk.Range(2, 3, 4), a, out)
    np.testing.assert_array_equal(out, a)
    # Non-contiguous NumPy views go zero-copy with their strides.
    big = np.arange(8 * 6 * 8, dtype=np.float32).reshape(8, 6, 8)
    view = big[::4, ::2, 1::4]
    out2 = np.zeros((2, 3, 2), dtype=np.float32)
    dpk.call_kernel(three_d, dpk.Range(2, 3, 2), view, out2)
    np.testing.assert_array_equal(out2, view)
    target = np.zeros((4, 6), dtype=np.float32)

    @dpk.kernel
    def fill(item, t):
        t[item.get_id(0), item.get_id(1)] = item.get_id(0) * 10 + item.get_id(1)

    dpk.call_kernel(fill, dpk.Range(2, 3), target[::2, ::2])
    assert target[2, 4] == 12 and target[1, 1] == 0


# ---- nd-range, local memory, barriers, atomics, private arrays ------------------------------

@dpk.kernel
def nd_ids(it, out):
    g = it.get_group()
    gi, gj = it.get_global_id(0), it.get_global_id(1)
    out[gi, gj, 0] = it.get_global_linear_id()
    out[gi, gj, 1] = it.get_local_id(0) * 10 + it.get_local_id(1)
    out[gi, gj, 2] = it.get_local_linear_id()
    out[gi, gj, 3] = g.get_group_id(0) * 10 + g.get_group_id(1)
    out[gi, gj, 4] = g.get_group_linear_id()
    out[gi, gj, 5] = g.get_group_range(0) * 10 + g.get_group_range(1)
    out[gi, gj, 6] = g.get_group_linear_range()
    out[gi, gj, 7] = g.get_local_range(0) * 10 + g.get_local_linear_range()
    out[gi, gj, 8] = it.get_global_range(0) * 100 + it.get_local_range(1)
    out[gi, gj, 9] = g.leader + it.ndim * 10


def test_nd_item_and_group_methods(device):
    out = np.zeros((4, 6, 10), dtype=np.int64)
    compare_with_python(device, nd_ids, dpk.NdRange((4, 6), (2, 3)), out)


@dpk.kernel
def neighbour_exchange(it, out, scratch):
    i = it.get_local_id(0)
    n = it.get_local_range(0)
    scratch[i] = it.get_global_id(0) * 10
    kapi.group_barrier(it.get_group())
    out[it.get_global_id(0)] = scratch[(i + 1) % n]


def test_barrier_and_local_accessor(device):
    out = np.zeros(32, dtype=np.int64)
    compare_with_python(device, neighbour_exchange, dpk.NdRange(32, 8), out,
                        dpk.LocalAccessor(8, np.int64))


@dpk.kernel
def atomics(item, counters, fcounter, minmax, bits, swaps, expected):
    i = item.get_id(0)
    kapi.AtomicRef(counters, 0).fetch_add(1)
    kapi.AtomicRef(counters, 1).fetch_sub(2)
    kapi.AtomicRef(fcounter, index=0, memory_order=kapi.MemoryOrder.SEQ_CST,
                   memory_scope=kapi.MemoryScope.DEVICE).fetch_add(0.5)
    kapi.AtomicRef(minmax, 0).fetch_min(i)
    kapi.AtomicRef(minmax, 1).fetch_max(i)
    kapi.AtomicRef(bits, 0).fetch_or(1 << (i % 8))
    kapi.AtomicRef(bits, 1).fetch_and(~(1 << (i % 8)))
    kapi.AtomicRef(bits, 2).fetch_xor(1 << i % 4)
    if i == 0:
        r = kapi.AtomicRef(swaps, 0)
        old = r.exchange(42)
        r.store(r.load() + old)
        ok = kapi.AtomicRef(swaps, 1).compare_exchange(expected, 99)
        bad = kapi.AtomicRef(swaps, 2).compare_exchange(expected, 77, 1)
        swaps[3] = ok * 10 + bad
    kapi.atomic_fence(kapi.MemoryOrder.SEQ_CST, kapi.MemoryScope.DEVICE)


def test_atomics(device):
    counters = np.array([0, 100], dtype=np.int32)
    fcounter = np.zeros(1, dtype=np.float32)
    minmax = np.array([1000, -1], dtype=np.int64)
    bits = np.array([0, 0xFF, 0], dtype=np.int32)
    swaps = np.array([5, 7, 8, 0], dtype=np.int64)
    expected = np.array([7, 3], dtype=np.int64)
    run_on(device, atomics, dpk.Range(64), counters, fcounter, minmax, bits, swaps, expected)
    assert list(counters) == [64, 100 - 128]
    assert fcounter[0] == 32.0
    assert list(minmax) == [0, 63]
    assert list(bits[:2]) == [0xFF, 0] and bits[2] == 0
    assert list(swaps) == [47, 99, 8, 10] and list(expected) == [7, 8]


@dpk.kernel
def local_atomics(it, out, hist):
    lid = it.get_local_id(0)
    if lid < 4:
        hist[lid] = 0
    kapi.group_barrier(it.get_group())
    kapi.AtomicRef(hist, lid % 4, memory_scope=kapi.MemoryScope.WORK_GROUP,
                   address_space=kapi.AddressSpace.LOCAL).fetch_add(1)
    kapi.group_barrier(it.get_group())
    if lid < 4:
        out[it.get_group().get_group_id(0), lid] = hist[lid]


def test_local_memory_atomics(device):
    out = np.zeros((2, 4), dtype=np.int32)
    run_on(device, local_atomics, dpk.NdRange(32, 16), out, dpk.LocalAccessor(4, np.int32))
    assert (out == 4).all()


@dpk.kernel
def private_arrays(item, out):
    i = item.get_id(0)
    p = kapi.PrivateArray((2, 3), np.int64, fill_zeros=True)
    for r in range(2):
        for c in range(3):
            p[r, c] += i * r + c
    s = 0
    for r in range(2):
        for c in range(3):
            s += p[r, c]
    q = kapi.PrivateArray(4, np.float32)
    q[-1] = 2.5
    out[i] = s + q[3]


def test_private_array(device):
    out = np.zeros(4)
    run_on(device, private_arrays, dpk.Range(4), out)
    np.testing.assert_allclose(out, [3 * i + 6 + 2.5 for i in range(4)])


@dpk.kernel
def tiled_transpose(it, a, out, tile):
    i, j = it.get_local_id(0), it.get_local_id(1)
    gi, gj = it.get_global_id(0), it.get_global_id(1)
    tile[i, j] = a[gi, gj]
    kapi.group_barrier(it.get_group(), kapi.MemoryScope.WORK_GROUP)
    g = it.get_group()
    ti = g.get_group_id(1) * it.get_local_range(0) + i
    tj = g.get_group_id(0) * it.get_local_range(1) + j
    out[ti, tj] = tile[j, i]


def test_2d_local_memory_compiled_matches_python(device):
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = np.zeros((8, 8), dtype=np.float32)
    compare_with_python(device, tiled_transpose, dpk.NdRange((8, 8), (4, 4)), a, out,
                        dpk.LocalAccessor((4, 4), np.float32))
    np.testing.assert_array_equal(out, a.T)


@dpk.device_func
def load_tile(it, src, tile):
    tile[it.get_local_id(0)] = src[it.get_global_id(0)]


@dpk.device_func
def tile_sum(tile, n):
    s = tile.dtype.type(0)
    for k in range(n):
        s += tile[k]
    return s


@dpk.kernel
def device_functions_with_items_and_local_memory(it, src, out, tile):
    load_tile(it, src, tile)
    kapi.group_barrier(it.get_group())
    out[it.get_global_id(0)] = tile_sum(tile, it.get_local_range(0))


def test_device_functions_take_items_and_local_arrays(device):
    src = np.arange(16, dtype=np.float32)
    out = np.zeros(16, dtype=np.float32)
    compare_with_python(device, device_functions_with_items_and_local_memory, dpk.NdRange(16, 4),
                        src, out, dpk.LocalAccessor(4, np.float32))
    np.testing.assert_allclose(out, np.repeat(src.reshape(4, 4).sum(axis=1), 4))


@dpk.kernel
def half_precision(item, a, out):
    i = item.get_id(0)
    out[i] = a[i] * 2 + 1


def test_float16_storage(host):
    a = np.linspace(0, 1, 8).astype(np.float16)
    out = np.zeros(8, dtype=np.float16)
    dpk.call_kernel(half_precision, dpk.Range(8), a, out)
    np.testing.assert_allclose(out, (a.astype(np.float32) * 2 + 1).astype(np.float16))


@dpk.kernel
def variable_types_unify(item, a, out):
    i = item.get_id(0)
    s = 0                 # starts as a weak int ...
    for k in range(3):
        s += a[i]         # ... and becomes float32 (a[i] * k would be float64: int64 * f32)
    n = 0
    n += 0.5              # int + float -> float64
    out[i] = s + n


def test_variable_type_unification(device):
    a = np.arange(4, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    run_on(device, variable_types_unify, dpk.Range(4), a, out)
    np.testing.assert_allclose(out, a * 3 + 0.5)
    ir = variable_types_unify.inspect_ir(dpk.Range(4), a, out)
    assert "alloca 1 : ptr<private, f32>" in ir and "alloca 1 : ptr<private, f64>" in ir
