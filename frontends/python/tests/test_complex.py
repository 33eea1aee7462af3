"""complex64 and complex128 in the dpk Array API namespace, against NumPy, on every device:
dtypes and promotion, creation, elementwise functions (random values and the special values of
the standard's tables), reductions, linear algebra, indexing, manipulation, interchange."""

import cmath
import math

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi
from dpk.arrays import immediate

CDTYPES = ["complex64", "complex128"]

_NP = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
       "acosh": np.arccosh, "atanh": np.arctanh, "pow": np.power, "conj": np.conjugate}

UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "conj", "cos", "cosh", "exp",
         "expm1", "imag", "isfinite", "isinf", "isnan", "log", "log10", "log1p", "log2",
         "negative", "positive", "real", "reciprocal", "round", "sign", "sin", "sinh", "sqrt",
         "square", "tan", "tanh"]
BINARY = ["add", "subtract", "multiply", "divide", "pow", "equal", "not_equal"]


def npf(name):
    return _NP.get(name) or getattr(np, name)


def rtol(dtype):
    return 2e-5 if np.dtype(dtype) == np.complex64 else 1e-12


def sample(shape, dtype, seed=0, scale=2.0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-scale, scale, shape) + 1j * rng.uniform(-scale, scale, shape)
    return a.astype(dtype)


def skip_fp64(device, dtype):
    if np.dtype(dtype) == np.complex128 and not device.has_fp64:
        pytest.skip("no fp64 on this device")


def check(got, ref, dtype, tol=None):
    got = dpk.asnumpy(got) if isinstance(got, dpk.Array) else np.asarray(got)
    ref = np.asarray(ref)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    assert got.shape == ref.shape
    if got.dtype.kind in "fc":
        tol = tol or rtol(dtype)
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * 4, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, ref)


def test_dtypes_and_info():
    assert dpk.complex64 == np.complex64 and dpk.complex128 == np.complex128
    info = dpk.__array_namespace_info__()
    assert info.dtypes(kind="complex floating", device="host") == {
        "complex64": dpk.complex64, "complex128": dpk.complex128}
    assert info.default_dtypes(device="host")["complex floating"] == dpk.complex128
    assert dpk.isdtype(dpk.complex64, "complex floating")
    assert dpk.isdtype(dpk.complex128, "numeric")
    assert not dpk.isdtype(dpk.complex64, "real floating")
    f = dpk.finfo(dpk.complex64)
    assert f.dtype == dpk.float32 and f.bits == 32
    assert dpk.can_cast(dpk.float32, dpk.complex64)
    assert not dpk.can_cast(dpk.complex64, dpk.float64)


def test_promotion(host):
    z = dpk.asarray(np.ones(2, np.complex64), device=host)
    f64 = dpk.ones(2, dtype=dpk.float64, device=host)
    assert (z + f64).dtype == dpk.complex128
    assert (z + 1.5).dtype == dpk.complex64
    assert (z * 2j).dtype == dpk.complex64
    f32 = dpk.ones(2, dtype=dpk.float32, device=host)
    assert (f32 + 1j).dtype == dpk.complex64
    assert (dpk.ones(2, dtype=dpk.int32, device=host) + 1j).dtype == dpk.complex128
    assert dpk.result_type(dpk.float32, 1j) == dpk.complex64
    assert dpk.result_type(dpk.complex64, dpk.float64) == dpk.complex128
    check((f32 + 1j), np.ones(2, np.float32) + np.complex64(1j), np.complex64)
    for fn in (dpk.maximum, dpk.less, dpk.floor_divide, dpk.atan2):
        with pytest.raises(TypeError):
            fn(z, z)
    with pytest.raises(TypeError):
        dpk.ceil(z)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_creation(device, dtype):
    skip_fp64(device, dtype)
    check(dpk.zeros((2, 3), dtype=dtype, device=device), np.zeros((2, 3), dtype), dtype)
    check(dpk.ones(3, dtype=dtype, device=device), np.ones(3, dtype), dtype)
    check(dpk.full((2,), 1 - 2j, dtype=dtype, device=device), np.full(2, 1 - 2j, dtype), dtype)
    check(dpk.eye(3, k=1, dtype=dtype, device=device), np.eye(3, k=1, dtype=dtype), dtype)
    check(dpk.linspace(1j, 2 + 3j, 5, dtype=dtype, device=device),
          np.linspace(1j, 2 + 3j, 5, dtype=dtype), dtype)
    a = sample((2, 3), dtype)
    x = dpk.asarray(a, device=device)
    check(x, a, dtype)
    check(dpk.ones_like(x), np.ones_like(a), dtype)
    check(dpk.full_like(x, 3j), np.full_like(a, 3j), dtype)
    check(dpk.empty_like(x) * 0, np.zeros_like(a), dtype)
    check(dpk.tril(x), np.tril(a), dtype)
    assert complex(x[1, 2]) == complex(a[1, 2])
    if device.has_fp64:
        y = dpk.asarray([1 + 2j, 3], device=device)
        assert y.dtype == dpk.complex128
        check(y, np.asarray([1 + 2j, 3]), "complex128")
        assert dpk.full((1,), 1j, device=device).dtype == dpk.complex128


@pytest.mark.parametrize("dtype", CDTYPES)
def test_astype(device, dtype):
    skip_fp64(device, dtype)
    f = np.array([1.5, -2.0, 0.0], np.float32)
    x = dpk.asarray(f, device=device)
    check(dpk.astype(x, dtype), f.astype(dtype), dtype)
    check(dpk.astype(dpk.asarray([True, False], device=device), dtype),
          np.array([1, 0], dtype), dtype)
    z = dpk.asarray(sample(4, dtype), device=device)
    check(dpk.astype(z, "bool"), sample(4, dtype) != 0, dtype)
    other = "complex64" if dtype == "complex128" else "complex128"
    if device.has_fp64:
        check(dpk.astype(z, other), sample(4, dtype).astype(other), "complex64")
    with pytest.raises(TypeError):
        dpk.astype(z, dpk.float32)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary(device, name, dtype):
    skip_fp64(device, dtype)
    a = sample((3, 5), dtype, seed=len(name))
    x = dpk.asarray(a, device=device)
    got = getattr(dpk, name)(x)
    ref = npf(name)(a)
    if name == "sign":
        ref = a / np.abs(a)
    check(got, ref, dtype, tol=rtol(dtype) * (10 if name in ("tan", "tanh") else 1))
    # a strided view
    check(getattr(dpk, name)(x[:, ::2]), ref[:, ::2], dtype,
          tol=rtol(dtype) * (10 if name in ("tan", "tanh") else 1))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary(device, name, dtype):
    skip_fp64(device, dtype)
    a, b = sample((3, 4), dtype, 1), sample((4,), dtype, 2)
    x, y = dpk.asarray(a, device=device), dpk.asarray(b, device=device)
    check(getattr(dpk, name)(x, y), npf(name)(a, b), dtype, tol=rtol(dtype) * 10)
    # with Python scalars on either side
    check(getattr(dpk, name)(x, 1.5 - 0.5j), npf(name)(a, np.asarray(1.5 - 0.5j, dtype)),
          dtype, tol=rtol(dtype) * 10)
    check(getattr(dpk, name)(2.0, x), npf(name)(np.asarray(2.0, dtype), a), dtype,
          tol=rtol(dtype) * 10)


def test_operators(device):
    a = sample(6, "complex64")
    x = dpk.asarray(a, device=device)
    check(x + 1j, a + np.complex64(1j), "complex64")
    check(2 * x - x / 3, 2 * a - a / np.float32(3), "complex64")
    check(-x, -a, "complex64")
    check(abs(x), np.abs(a), "complex64")
    check(x ** 2, a ** 2, "complex64")
    check(x == x, a == a, "complex64")
    y = dpk.asarray(a, device=device)
    y += 1j
    y *= 2
    check(y, (a + np.complex64(1j)) * 2, "complex64")
    f = dpk.asarray(np.ones(6, np.float32), device=device)
    with pytest.raises(TypeError):
        f += 1j   # a float32 array cannot hold complex results


def _cases():
    v = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, math.inf, -math.inf, math.nan]
    return np.array([complex(r, i) for r in v for i in v], np.complex128)


SPECIAL = ["exp", "log", "log10", "sqrt", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
           "acos", "asin", "atan", "sin", "cos", "tan"]


def _same(got, ref):
    """NaN matches NaN, infinities and zeros compare exactly (with their sign), the rest is
    close."""
    if math.isnan(ref):
        return math.isnan(got)
    if math.isinf(ref) or ref == 0:
        return got == ref and math.copysign(1, got) == math.copysign(1, ref)
    return abs(got - ref) <= 1e-12 * max(1.0, abs(ref))


@pytest.mark.parametrize("name", SPECIAL)
def test_special_values(host, name):
    """Signed zeros, infinities and NaN against Python's cmath, which follows C99 Annex G (as
    the standard's special-case tables do); inputs for which cmath raises (a domain error) are
    checked by the standard's suite instead. Where Annex G leaves a sign unspecified
    ("+-0", "+-inf"), only the magnitude is compared."""
    values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, math.inf, -math.inf, math.nan]
    cases = [complex(r, i) for r in values for i in values]
    x = dpk.asarray(np.array(cases, np.complex128), device=host)
    got = dpk.asnumpy(getattr(dpk, name)(x))
    fn = getattr(cmath, name)
    bad = []
    for z, g in zip(cases, got):
        try:
            r = fn(z)
        except (ValueError, OverflowError):
            continue
        re_ok = _same(g.real, r.real) or (r.real == g.real == 0) or \
            (math.isinf(r.real) and math.isinf(g.real))
        im_ok = _same(g.imag, r.imag) or (r.imag == g.imag == 0) or \
            (math.isinf(r.imag) and math.isinf(g.imag))
        # the standard (2024.12) asks tanh(+0 + inf j) = tanh(+0 + NaN j) = +0 + NaN j where
        # older C (and cmath) give NaN + NaN j; tan(z) = -i tanh(iz) inherits it
        newer = (name == "tanh" and z.real == 0 and not math.isfinite(z.imag)) or \
            (name == "tan" and z.imag == 0 and not math.isfinite(z.real)) or \
            (name == "acosh" and z.real == 0 and math.isnan(z.imag))  # NaN +- pi/2 j
        if newer:
            re_ok = re_ok or math.isnan(g.imag) or math.isnan(g.real)
            im_ok = im_ok or math.isnan(g.imag) or math.isnan(g.real)
        if not (re_ok and im_ok):
            bad.append((z, complex(g), r))
    assert not bad, bad[:6]


def test_predicates_special(host):
    values = [0.0, -1.0, math.inf, -math.inf, math.nan]
    a = np.array([complex(r, i) for r in values for i in values], np.complex64)
    x = dpk.asarray(a, device=host)
    for name in ("isnan", "isinf", "isfinite"):
        np.testing.assert_array_equal(dpk.asnumpy(getattr(dpk, name)(x)), getattr(np, name)(a))
    np.testing.assert_array_equal(dpk.asnumpy(dpk.abs(x)), np.abs(a))
    np.testing.assert_array_equal(dpk.asnumpy(x == x), a == a)
    s = dpk.asnumpy(dpk.sign(x))
    assert s[0] == 0 and np.isnan(s[-1].real) and np.isnan(s[-1].imag)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_reductions(device, dtype):
    skip_fp64(device, dtype)
    a = sample((5, 7), dtype, 3)
    x = dpk.asarray(a, device=device)
    check(dpk.sum(x), np.sum(a), dtype, tol=rtol(dtype) * 10)
    check(dpk.sum(x, axis=0), np.sum(a, axis=0), dtype, tol=rtol(dtype) * 10)
    check(dpk.sum(x * 2j, axis=1, keepdims=True), np.sum(a * 2j, axis=1, keepdims=True),
          dtype, tol=rtol(dtype) * 10)
    check(dpk.prod(x, axis=1), np.prod(a, axis=1), dtype, tol=rtol(dtype) * 10)
    check(dpk.prod(x[:3, :5]), np.prod(a[:3, :5]), dtype, tol=rtol(dtype) * 10)
    check(dpk.mean(x, axis=0), np.mean(a, axis=0), dtype, tol=rtol(dtype) * 10)
    check(dpk.var(x), np.var(a), dtype, tol=rtol(dtype) * 10)
    check(dpk.std(x, axis=1, correction=1), np.std(a, axis=1, ddof=1), dtype,
          tol=rtol(dtype) * 10)
    check(dpk.cumulative_sum(x, axis=1), np.cumsum(a, axis=1), dtype, tol=rtol(dtype) * 10)
    check(dpk.cumulative_prod(x * 0.5, axis=0), np.cumprod(a * 0.5, axis=0), dtype,
          tol=rtol(dtype) * 10)
    check(dpk.cumulative_prod(x[:, :3], axis=1, include_initial=True),
          np.concatenate([np.ones((5, 1), dtype), np.cumprod(a[:, :3], axis=1)], axis=1),
          dtype, tol=rtol(dtype) * 10)
    check(dpk.sum(dpk.zeros((0,), dtype=dtype, device=device)), np.complex128(0).astype(dtype),
          dtype)
    assert bool(dpk.any(x)) and bool(dpk.all(x))
    check(dpk.count_nonzero(x), np.count_nonzero(a), dtype)
    for fn in (dpk.max, dpk.min, dpk.argmax):
        with pytest.raises(TypeError):
            fn(x)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_linear_algebra(device, dtype):
    skip_fp64(device, dtype)
    a, b = sample((3, 4), dtype, 4), sample((4, 5), dtype, 5)
    x, y = dpk.asarray(a, device=device), dpk.asarray(b, device=device)
    tol = rtol(dtype) * 10
    check(x @ y, a @ b, dtype, tol=tol)
    check(dpk.matmul(x, y[:, 0]), a @ b[:, 0], dtype, tol=tol)
    check(x @ dpk.asarray(b.real.copy(), device=device), a @ b.real, dtype, tol=tol)
    check(dpk.vecdot(x, x), np.sum(np.conj(a) * a, axis=-1), dtype, tol=tol)
    check(dpk.vecdot(x, x[::-1], axis=0), np.vecdot(a, a[::-1], axis=0), dtype, tol=tol)
    check(dpk.tensordot(x, y, axes=1), np.tensordot(a, b, axes=1), dtype, tol=tol)
    check(dpk.linalg.matmul(x, y), a @ b, dtype, tol=tol) if hasattr(dpk.linalg, "matmul") \
        else None


@pytest.mark.parametrize("dtype", CDTYPES)
def test_pseudo_inverse(device, dtype):
    """linalg.pinv of complex matrices (through the real embedding [[B, -C], [C, B]]):
    NumPy's values for tall, wide, batched and rank-deficient matrices, and the default and an
    explicit cutoff."""
    skip_fp64(device, dtype)
    tol = rtol(dtype) * 50
    for shape, seed in (((5, 3), 1), ((3, 6), 2), ((2, 4, 4), 3)):
        a = sample(shape, dtype, seed)
        got = dpk.linalg.pinv(dpk.asarray(a, device=device))
        np.testing.assert_allclose(dpk.asnumpy(got), np.linalg.pinv(a), rtol=tol, atol=tol)
        assert got.dtype == np.dtype(dtype)
    rank_one = np.outer([1, 2j, 3, -1], [1, 1 - 1j, 0.5j]).astype(dtype)
    got = dpk.linalg.pinv(dpk.asarray(rank_one, device=device))
    np.testing.assert_allclose(dpk.asnumpy(got), np.linalg.pinv(rank_one), rtol=tol, atol=tol)
    # a cutoff above the smaller singular value drops it, as NumPy's rcond does
    a = np.diag([4.0, 1e-3]).astype(dtype) * (1 + 1j)
    got = dpk.linalg.pinv(dpk.asarray(a, device=device), rtol=0.01)
    np.testing.assert_allclose(dpk.asnumpy(got), np.linalg.pinv(a, rcond=0.01), rtol=tol,
                               atol=tol)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_indexing_and_manipulation(device, dtype):
    skip_fp64(device, dtype)
    a = sample((4, 5), dtype, 6)
    x = dpk.asarray(a, device=device)
    idx = np.array([3, 0, 2])
    check(x[1:3, ::-2], a[1:3, ::-2], dtype)
    check(x[dpk.asarray(idx, device=device)], a[idx], dtype)
    check(x[:, dpk.asarray(idx, device=device)], a[:, idx], dtype)
    mask = a.real > 0
    check(x[dpk.asarray(mask, device=device)], a[mask], dtype)
    check(dpk.take(x, dpk.asarray(idx, device=device), axis=1), np.take(a, idx, axis=1), dtype)
    check(dpk.where(dpk.asarray(mask, device=device), x, 1j), np.where(mask, a, 1j).astype(dtype),
          dtype)
    check(dpk.concat([x, x[:1]], axis=0), np.concatenate([a, a[:1]]), dtype)
    check(dpk.stack([x, x], axis=1), np.stack([a, a], axis=1), dtype)
    check(dpk.flip(x, axis=1), np.flip(a, axis=1), dtype)
    check(dpk.roll(x, 3), np.roll(a, 3), dtype)
    check(dpk.reshape(x.T, (20,)), a.T.reshape(20), dtype)
    check(dpk.repeat(x, 2, axis=1), np.repeat(a, 2, axis=1), dtype)
    check(dpk.tile(x, (1, 2)), np.tile(a, (1, 2)), dtype)
    check(dpk.diff(x, axis=0), np.diff(a, axis=0), dtype)
    check(dpk.nonzero(x * dpk.asarray(mask, device=device))[1], np.nonzero(a * mask)[1], dtype)
    y = dpk.asarray(a, device=device)
    b = a.copy()
    y[1] = 2 - 1j
    b[1] = 2 - 1j
    y[dpk.asarray([0, 3], device=device), 2] = 5j
    b[[0, 3], 2] = 5j
    y[dpk.asarray(b.real < 0, device=device)] = 0
    b[b.real < 0] = 0
    y[:, 4] = dpk.asarray(a[:, 0], device=device)
    b[:, 4] = a[:, 0]
    check(y, b, dtype)
    f = dpk.zeros(3, dtype=dpk.float32, device=device)
    with pytest.raises(TypeError):
        f[0] = 1j


def test_interchange(device):
    a = sample((3, 2), "complex64", 7)
    x = dpk.asarray(a, device=device)
    check(np.asarray(x), a, "complex64")
    check(np.from_dlpack(x, device="cpu") if not device.is_host else np.from_dlpack(x), a,
          "complex64")
    y = dpk.from_dlpack(a, device=device)
    check(y, a, "complex64")
    if device.is_host:
        z = dpk.from_dlpack(a)
        check(z, a, "complex64")
        view = np.from_dlpack(x)
        assert view.ctypes.data == np.asarray(x).ctypes.data  # zero-copy on the host
    assert x.to_device("host").dtype == dpk.complex64
    assert complex(dpk.sum(x)) == pytest.approx(complex(np.sum(a)), rel=1e-5)
    assert cmath.isclose(complex(x[0, 0]), complex(a[0, 0]))


def test_fusion_one_kernel(host):
    a = sample(1000, "complex128", 8)
    x = dpk.asarray(a, device=host)
    before = immediate.launch_count()
    r = dpk.exp(x * 1j) + dpk.conj(x) / 2
    r._materialize()
    assert immediate.launch_count() - before == 1
    check(r, np.exp(a * 1j) + np.conj(a) / 2, "complex128")


def test_complex_arrays_are_a_typed_error_as_kernel_arguments(device):
    @dpk.kernel
    def double(item: kapi.Item, a):
        i = item.get_id(0)
        a[i] = a[i] * 2

    z = dpk.asarray(np.ones(3, np.complex64), device=device)
    with pytest.raises(dpk.KernelTypeError, match="complex64 is not supported in kernels"):
        dpk.call_kernel(double, dpk.Range(3), z)
