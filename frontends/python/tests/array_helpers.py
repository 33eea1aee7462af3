"""Shared helpers of the array tests: NumPy references, special values, sweeps.

The default run tests a representative dtype set per function; ``DPK_ARRAY_SWEEP=1`` runs
every dtype and more shapes (slow: one kernel build per function, dtype and device).
"""

import os

import numpy as np

import dpk

SWEEP = os.environ.get("DPK_ARRAY_SWEEP", "") not in ("", "0")

FLOATS = ["float32", "float64"]
INTS = ["int8", "uint8", "int32", "int64", "uint64"] if not SWEEP else \
    ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
if not SWEEP:
    INTS_SHORT = ["int8", "uint64", "int64"]
else:
    INTS_SHORT = INTS

SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -2.5, 2.5, 3.7, -7.25, 1e10, -1e-10,
                  np.inf, -np.inf, np.nan, 1e-30, 100.0]


def sample(dtype, n=None, seed=0, positive=False):
    """Test values of dtype: special values plus random ones (NumPy array)."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return np.array([True, False, True, True, False, False, True, False])
    if dtype.kind == "f":
        vals = np.array(SPECIAL_FLOATS + list(rng.standard_normal(14) * 10), dtype=dtype)
        if positive:
            vals = np.abs(vals)
        return vals
    info = np.iinfo(dtype)
    edge = [0, 1, 2, 3, 7, info.max, info.min, info.max - 1, info.min + 1]
    if dtype.kind == "i":
        edge += [-1, -2, -3, -7]
    rand = rng.integers(max(info.min, -1000), min(info.max, 1000), 12, dtype=dtype)
    vals = np.array(edge, dtype=dtype)
    out = np.concatenate([vals, rand])
    return np.abs(out) if positive and dtype.kind == "i" else out


def to_dpk(a, device):
    return dpk.asarray(a, device=device)


def assert_matches(out, ref, rtol=None, atol=0.0, exact=False):
    """out (dpk) against the NumPy reference: dtype, shape, values (NaN where NaN; exact for
    integers and bools)."""
    got = out.asnumpy() if isinstance(out, dpk.Array) else np.asarray(out)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if got.dtype.kind in "biu" or exact:
        np.testing.assert_array_equal(got, ref)
        return
    if rtol is None:
        rtol = 2e-6 if got.dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, ref.astype(got.dtype), rtol=rtol, atol=atol,
                               equal_nan=True)
