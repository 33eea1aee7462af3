"""Integer division and remainder in kernels (issue 15, K): ``x // 0``, ``x % 0``,
``MIN // -1`` and ``MIN % -1`` killed Python with SIGFPE on the host and gave garbage on OpenCL.
They now give NumPy's results, bit for bit, for every integer dtype on every device:
``x // 0 == 0``, ``x % 0 == 0``, ``MIN // -1 == MIN`` (wraps), ``MIN % -1 == 0``, and Python's
floor semantics elsewhere (numpy.floor_divide / numpy.remainder). No warning flag is raised.
"""

import numpy as np
import pytest

import dpk

from conftest import run_on

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@dpk.kernel
def floor_ops(item, a, b, q, r):
    i = item.get_id(0)
    q[i] = a[i] // b[i]
    r[i] = a[i] % b[i]


@dpk.kernel
def by_literal_zero(item, a, q, r):
    i = item.get_id(0)
    q[i] = a[i] // 0
    r[i] = a[i] % 0


@dpk.kernel
def by_scalar(item, a, d, q, r):
    i = item.get_id(0)
    q[i] = a[i] // d
    r[i] = a[i] % d


def operands(dtype):
    """Pairs (a, b): zero divisors, MIN and MAX against -1, 0, 1, and random values."""
    info = np.iinfo(dtype)
    special = [info.min, info.max, 0, 1, 7, info.min + 1]
    divisors = [0, 1, 3, info.max]
    if info.min < 0:
        special += [-1, -7]
        divisors += [-1, -3, info.min]
    a = [x for x in special for _ in divisors]
    b = [y for _ in special for y in divisors]
    rng = np.random.default_rng(15)
    a = np.array(a, dtype=dtype)
    b = np.array(b, dtype=dtype)
    randoms = rng.integers(info.min, info.max, size=(2, 64), endpoint=True, dtype=dtype)
    return np.concatenate([a, randoms[0]]), np.concatenate([b, randoms[1] // dtype(7)])


def numpy_results(a, b):
    with np.errstate(all="ignore"):  # NumPy warns (divide by zero, overflow); kernels do not
        return np.floor_divide(a, b), np.remainder(a, b)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda t: np.dtype(t).name)
def test_array_operands_match_numpy(device, dtype):
    a, b = operands(dtype)
    q, r = np.zeros_like(a), np.zeros_like(a)
    run_on(device, floor_ops, dpk.Range(len(a)), a, b, q, r)
    expect_q, expect_r = numpy_results(a, b)
    np.testing.assert_array_equal(q, expect_q)
    np.testing.assert_array_equal(r, expect_r)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda t: np.dtype(t).name)
def test_literal_zero_divisor(device, dtype):
    a, _ = operands(dtype)
    q, r = np.full_like(a, 5), np.full_like(a, 5)
    run_on(device, by_literal_zero, dpk.Range(len(a)), a, q, r)
    np.testing.assert_array_equal(q, np.zeros_like(a))
    np.testing.assert_array_equal(r, np.zeros_like(a))


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("divisor", [0, -1])
def test_scalar_divisor(device, dtype, divisor):
    a, _ = operands(dtype)
    d = dtype(divisor)
    q, r = np.zeros_like(a), np.zeros_like(a)
    run_on(device, by_scalar, dpk.Range(len(a)), a, d, q, r)
    expect_q, expect_r = numpy_results(a, np.full_like(a, divisor))
    np.testing.assert_array_equal(q, expect_q)
    np.testing.assert_array_equal(r, expect_r)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda t: np.dtype(t).name)
def test_array_functions_match_numpy(device, dtype):
    a, b = operands(dtype)
    x, y = dpk.asarray(a, device=device), dpk.asarray(b, device=device)
    expect_q, expect_r = numpy_results(a, b)
    np.testing.assert_array_equal(dpk.floor_divide(x, y).asnumpy(), expect_q)
    np.testing.assert_array_equal(dpk.remainder(x, y).asnumpy(), expect_r)
