"""dpk.random: Philox-4x32-10 against Random123's known answers, the same numbers on every
device (bit for bit for words, uniforms and integers), and distribution checks."""

import math
import os

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi
from dpk.primitives import philox

from conftest import DEVICE_FILTERS

SWEEP = os.environ.get("DPK_PRIMITIVES_SWEEP") == "1"
SIZES = [0, 1, 7, 13, 1000, 4099] + ([1 << 16, 100003] if SWEEP else [])

# Known-answer vectors of philox4x32_10 from Random123's kat_vectors file (Salmon et al., SC'11;
# the same lines are in DEShawResearch/fs123, core123/ut/ut_philox.cpp, test_kat_philox4x32):
# (counter words, key words, expected output words)
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@dpk.kernel
def _kat_kernel(item: kapi.Item, counters, keys, out):
    v = item.get_id(0)
    c = kapi.PrivateArray(4, np.uint32)
    for j in range(4):
        c[j] = counters[v, j]
    philox.philox4x32_10(c, keys[v, 0], keys[v, 1])
    for j in range(4):
        out[v, j] = c[j]


def test_known_answers_reference():
    for ctr, key, want in KAT:
        got = philox.reference_philox([np.uint64(w) for w in ctr], key[0], key[1])
        assert [int(x) for x in got] == list(want)


def test_known_answers_on_device(device):
    counters = dpk.asarray(np.array([k[0] for k in KAT], np.uint32), device=device)
    keys = dpk.asarray(np.array([k[1] for k in KAT], np.uint32), device=device)
    out = dpk.zeros((len(KAT), 4), dtype=dpk.uint32, device=device)
    dpk.call_kernel(_kat_kernel, dpk.Range(len(KAT)), counters, keys, out)
    assert out.asnumpy().tolist() == [list(k[2]) for k in KAT]


def _words(seed, base, n, per_value=1):
    """Reference words for n values taking `per_value` words each (4 // per_value per
    block)."""
    per_block = 4 // per_value
    blocks = -(-n // per_block)
    return philox.reference_words(seed, base, blocks).reshape(blocks, 4)


@pytest.mark.parametrize("n", SIZES)
def test_raw_words_match_reference(device, n):
    g = dpk.random.default_rng(20261125, device=device)
    got = g.random_raw(n).asnumpy()
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got, _words(20261125, 0, n).reshape(-1)[:n])
    # the position advanced by the blocks used: the next request continues the stream
    nxt = g.random_raw(5).asnumpy()
    np.testing.assert_array_equal(nxt, philox.reference_words(20261125, -(-n // 4), 2)[:5])


@pytest.mark.parametrize("n", SIZES)
def test_uniform_float32_bits(device, n):
    got = dpk.random.default_rng(7, device=device).random(n, dtype=np.float32).asnumpy()
    w = _words(7, 0, n).reshape(-1)[:n]
    want = (w >> 8).astype(np.float32) * np.float32(2.0 ** -24)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("n", SIZES)
def test_uniform_float64_bits(device, n):
    if not device.has_fp64:
        pytest.skip("no fp64")
    got = dpk.random.default_rng(7, device=device).uniform(size=n, dtype=np.float64).asnumpy()
    w = _words(7, 0, n, per_value=2).reshape(-1, 2)[:n].astype(np.float64)
    want = (np.floor(w[:, 0] / 32) * 2.0 ** 26 + np.floor(w[:, 1] / 64)) * 2.0 ** -53
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
    assert got.size == 0 or (got.min() >= 0.0 and got.max() < 1.0)


@pytest.mark.parametrize("dtype,low,high", [(np.int64, -10, 10), (np.uint8, 0, 256),
                                            (np.int32, -(1 << 31), 1 << 31),
                                            (np.int64, -(1 << 63), 1 << 63),
                                            (np.uint64, 1 << 63, (1 << 64) - 1)])
def test_integers_bits(device, dtype, low, high):
    n = 1001
    got = dpk.random.default_rng(99, device=device).integers(low, high, n, dtype=dtype)
    got = got.asnumpy()
    assert got.dtype == dtype
    w = _words(99, 0, n, per_value=2).reshape(-1, 2)[:n]
    bits = [(int(a) << 32) | int(b) for a, b in w]
    span = high - low
    want = np.array([low + (v % span) for v in bits], dtype=object)
    assert [int(v) for v in got] == [int(v) for v in want]
    assert all(low <= int(v) < high for v in got)


def _normal32_reference(seed, n):
    w = _words(seed, 0, n).reshape(-1, 2)
    u1 = ((w[:, 0] >> 8) + np.uint32(1)).astype(np.float32) * np.float32(2.0 ** -24)
    u2 = (w[:, 1] >> 8).astype(np.float32) * np.float32(2.0 ** -24)
    r = np.sqrt(np.float32(-2.0) * np.log(u1))
    theta = np.float32(2 * math.pi) * u2
    return np.stack([r * np.cos(theta), r * np.sin(theta)], axis=-1).reshape(-1)[:n]


@pytest.mark.parametrize("n", SIZES)
def test_normal_float32_matches_reference(device, n):
    got = dpk.random.default_rng(5, device=device).normal(size=n, dtype=np.float32).asnumpy()
    want = _normal32_reference(5, n)
    # log/sqrt/cos/sin may differ in the last bits between math libraries
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_distribution(device, dtype):
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip("no fp64")
    n = 1 << 20
    x = dpk.random.default_rng(11, device=device).normal(3.0, 2.0, n, dtype=dtype).asnumpy()
    x = x.astype(np.float64)
    # 6 standard errors: the mean's is 2/sqrt(n), the variance's 4*sqrt(2/n)
    assert abs(x.mean() - 3.0) < 6 * 2.0 / math.sqrt(n)
    assert abs(x.var() - 4.0) < 6 * 4.0 * math.sqrt(2.0 / n)
    z = (x - 3.0) / 2.0
    assert abs((z ** 3).mean()) < 6 * math.sqrt(15.0 / n)        # skewness
    assert abs((z ** 4).mean() - 3.0) < 6 * math.sqrt(96.0 / n)  # kurtosis
    assert abs((np.abs(z) < 1).mean() - 0.682689492) < 0.003


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_distribution(device, dtype):
    if dtype == np.float64 and not device.has_fp64:
        pytest.skip("no fp64")
    n = 1 << 20
    x = dpk.random.default_rng(12, device=device).uniform(-1.0, 3.0, n, dtype=dtype).asnumpy()
    assert x.min() >= -1.0 and x.max() < 3.0
    x = x.astype(np.float64)
    assert abs(x.mean() - 1.0) < 6 * (4 / math.sqrt(12)) / math.sqrt(n)
    assert abs(x.var() - 16 / 12) < 6 * 16 * math.sqrt(1 / 180) / math.sqrt(n)
    counts = np.histogram(x, bins=16, range=(-1, 3))[0]
    expected = n / 16
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 45  # 15 degrees of freedom: p ~ 1e-4


def test_integers_distribution(device):
    n = 1 << 20
    x = dpk.random.default_rng(13, device=device).integers(10, size=n).asnumpy()
    counts = np.bincount(x, minlength=10)
    chi2 = ((counts - n / 10) ** 2 / (n / 10)).sum()
    assert chi2 < 35  # 9 degrees of freedom


def test_same_numbers_on_every_device():
    results = []
    for f in DEVICE_FILTERS:  # the devices the suite sweeps (DPK_TEST_DEVICES can narrow it)
        g = dpk.random.default_rng(42, device=f)
        results.append((g.random_raw(333).asnumpy(), g.random(333, dtype=np.float32).asnumpy(),
                        g.integers(-1000, 1000, 333).asnumpy()))
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)


def test_shapes_seeds_and_module_functions(device):
    with dpk.device_context(device):
        dpk.random.seed(3)
        a = dpk.random.normal(size=(4, 5), dtype=np.float32)
        assert a.shape == (4, 5) and a.device == device
        dpk.random.seed(3)
        b = dpk.random.normal(size=(4, 5), dtype=np.float32)
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
        c = dpk.random.normal(size=(4, 5), dtype=np.float32)
        assert not np.array_equal(b.asnumpy(), c.asnumpy())
    g1 = dpk.random.default_rng(1, device=device).random_raw(8).asnumpy()
    g2 = dpk.random.default_rng(2, device=device).random_raw(8).asnumpy()
    assert not np.array_equal(g1, g2)
    assert dpk.random.default_rng(1, device=device).random(dtype=np.float32).shape == ()


def test_errors(host):
    g = dpk.random.default_rng(0, device=host)
    with pytest.raises(ValueError):
        g.integers(5, 5)
    with pytest.raises(ValueError):
        g.integers(0, 300, 4, dtype=np.uint8)
    with pytest.raises(TypeError):
        g.integers(0, 3, 4, dtype=np.float32)
    with pytest.raises(TypeError):
        g.uniform(size=3, dtype=np.int32)
    with pytest.raises(ValueError):
        g.normal(0, -1, 3)
    with pytest.raises(ValueError):
        g.random(-1)
