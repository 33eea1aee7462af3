"""@dpk.guvectorize: generalized ufuncs over core dimensions, on every device, against NumPy."""

import numpy as np
import pytest

import dpk


@dpk.guvectorize(["void(float32[:], float32[:], float32[:])",
                  "void(float64[:], float64[:], float64[:])"], "(n),(n)->()")
def dot(a, b, out):
    acc = 0.0
    for k in range(a.shape[0]):
        acc += a[k] * b[k]
    out[0] = acc


@dpk.guvectorize(["void(int64[:], int64, int64[:])"], "(n),()->(n)")
def add_scalar(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y


@dpk.guvectorize("(m,n),(n)->(m)")
def matvec(a, v, out):
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * v[j]
        out[i] = s


@dpk.guvectorize(["void(float32[:], float32[:], float32[:])"], "(n)->(),()")
def min_max(x, lo, hi):
    lo[0] = x[0]
    hi[0] = x[0]
    for i in range(1, x.shape[0]):
        lo[0] = min(lo[0], x[i])
        hi[0] = max(hi[0], x[i])


def test_dot_broadcasts_loop_dimensions(device):
    rng = np.random.default_rng(1)
    x = rng.random((2, 3, 8), dtype=np.float32)
    y = rng.random((3, 8), dtype=np.float32)  # broadcast over the first loop dimension
    got = dot(dpk.asarray(x, device=device), dpk.asarray(y, device=device))
    assert isinstance(got, dpk.Array) and got.device is device
    assert got.shape == (2, 3) and got.dtype == dpk.float32
    np.testing.assert_allclose(got.asnumpy(), np.einsum("ijk,jk->ij", x, y), rtol=1e-5)


def test_signature_dispatch_casts_safely(device):
    a = dpk.asarray(np.arange(6, dtype=np.int32).reshape(2, 3), device=device)
    got = dot(a, a)  # int32 casts safely to float64, not to float32: the float64 signature
    assert got.dtype == dpk.float64
    np.testing.assert_array_equal(got.asnumpy(), [5.0, 50.0])
    with pytest.raises(dpk.DTypeError, match="no signature matches"):
        add_scalar(dpk.astype(a, dpk.float32), 1)  # float32 -> int64 is not a safe cast


def test_scalar_core_input(device):
    x = np.arange(6, dtype=np.int64).reshape(2, 3)
    y = np.array([10, 20], dtype=np.int64)
    got = add_scalar(dpk.asarray(x, device=device), dpk.asarray(y, device=device))
    np.testing.assert_array_equal(got.asnumpy(), x + y[:, None])
    got = add_scalar(dpk.asarray(x, device=device), 5)  # a Python int: int64
    np.testing.assert_array_equal(got.asnumpy(), x + 5)


@pytest.mark.parametrize("loop", [(), (4,), (2, 3), (2, 1, 3)])
def test_matvec_any_loop_rank(device, loop):
    rng = np.random.default_rng(2)
    a = rng.random(loop + (3, 4))
    v = rng.random(4)
    got = matvec(dpk.asarray(a, device=device), dpk.asarray(v, device=device))
    assert got.shape == loop + (3,) and got.dtype == dpk.float64
    np.testing.assert_allclose(got.asnumpy(), a @ v, rtol=1e-12)


def test_several_outputs_and_out(device):
    x = np.random.default_rng(3).random((5, 7), dtype=np.float32)
    lo, hi = min_max(dpk.asarray(x, device=device))
    np.testing.assert_array_equal(lo.asnumpy(), x.min(axis=1))
    np.testing.assert_array_equal(hi.asnumpy(), x.max(axis=1))
    out = (dpk.zeros(5, dtype=dpk.float32, device=device),
           dpk.zeros(5, dtype=dpk.float32, device=device))
    got = min_max(dpk.asarray(x, device=device), out=out)
    assert got[0] is out[0] and got[1] is out[1]
    np.testing.assert_array_equal(out[1].asnumpy(), x.max(axis=1))


def test_numpy_in_numpy_out():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    got = dot(x, x)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, (x * x).sum(axis=1))
    assert dot(np.arange(4.0), np.arange(4.0)) == 14.0
    out = np.zeros(3)
    assert dot(x, x, out=out) is out
    np.testing.assert_array_equal(out, (x * x).sum(axis=1))


def test_empty_loop_dimension(device):
    got = dot(dpk.zeros((0, 4), dtype=dpk.float32, device=device),
              dpk.zeros(4, dtype=dpk.float32, device=device))
    assert got.shape == (0,)


def test_errors_name_what_is_wrong(device):
    a = dpk.zeros((2, 3), dtype=dpk.float32, device=device)
    with pytest.raises(dpk.ShapeError, match="core dimension 'n' is 3 in one input and 4"):
        dot(a, dpk.zeros(4, dtype=dpk.float32, device=device))
    with pytest.raises(TypeError, match="takes 2 input"):
        dot(a)
    with pytest.raises(ValueError, match="appears in no input"):
        dpk.guvectorize("(n)->(m)")(lambda x, y: None)
    with pytest.raises(ValueError, match="not of the form"):
        dpk.guvectorize(["void(float32[:])"], "(n)")(lambda x: None)
    with pytest.raises(TypeError, match="has 2 arguments"):
        dpk.guvectorize(["void(float32[:], float32[:])"], "(n),(n)->()")(lambda x, y, z: None)
