"""x[key] and x[key] = value against NumPy on every device: basic slicing (views), integer
arrays, boolean masks, bounds errors, aliasing and overlapping assignments."""

import numpy as np
import pytest

from array_helpers import assert_matches, to_dpk

BASIC_KEYS = [
    (), (1,), (-1,), (slice(None),), (slice(1, None, 2),), (slice(None, None, -1),),
    (Ellipsis,), (Ellipsis, 0), (0, Ellipsis, -1), (None, 1), (slice(1, 3), None, slice(None),
                                                              2),
    (slice(5, 1, -2), slice(None), slice(0, 100)), (1, 2, 3), (slice(3, 3),),
]


@pytest.mark.parametrize("key", BASIC_KEYS, ids=str)
def test_basic_getitem_is_a_view(device, key):
    x = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
    d = to_dpk(x, device)
    got = d[key]
    assert_matches(got, x[key])
    if got.size:
        got[...] = -7  # a view: writes reach the parent
        ref = x.copy()
        ref[key] = -7
        assert_matches(d, ref)


def test_zero_d_indexing(device):
    z = to_dpk(np.array(5.0), device)
    assert z[()].shape == () and z[...].shape == ()
    assert z[None].shape == (1,)
    assert float(z[()]) == 5.0


def test_integer_array_indexing(device):
    x = np.arange(60).reshape(3, 4, 5)
    d = to_dpk(x, device)
    i = np.array([2, 0, -1])
    j = np.array([[1], [3]])
    assert_matches(d[to_dpk(i, device)], x[i])
    assert_matches(d[to_dpk(i, device), 1], x[i, 1])
    assert_matches(d[to_dpk(i, device), to_dpk(j, device)], x[i, j])
    assert_matches(d[:, to_dpk(j, device), 2], x[:, j, 2])
    assert_matches(d[to_dpk(i, device), :, to_dpk(i, device)], x[i, :, i])
    assert_matches(d[[0, 2]], x[[0, 2]])
    assert_matches(d[to_dpk(np.array(1), device), to_dpk(np.array(2), device)], x[1, 2])
    with pytest.raises(IndexError):
        d[to_dpk(np.array([0, 3]), device)]


def test_boolean_masks(device):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    d = to_dpk(x, device)
    m = x % 3 == 1
    assert_matches(d[to_dpk(m, device)], x[m])
    rows = np.array([True, False, True, True])
    assert_matches(d[to_dpk(rows, device)], x[rows])
    assert d[to_dpk(np.array(True), device)].shape == (1, 4, 6)
    assert d[to_dpk(np.array(False), device)].shape == (0, 4, 6)
    assert_matches(d[d > 100], x[x > 100])
    with pytest.raises(IndexError):
        d[to_dpk(np.array([True, False]), device)]


def test_setitem_forms(device):
    x = np.arange(20, dtype=np.float64).reshape(4, 5)
    d = to_dpk(x, device)
    d[1] = 7
    x[1] = 7
    d[:, 2] = to_dpk(np.array([1.0, 2.0, 3.0, 4.0]), device)
    x[:, 2] = [1.0, 2.0, 3.0, 4.0]
    d[d > 10] = -1
    x[x > 10] = -1
    d[to_dpk(np.array([0, 3]), device), to_dpk(np.array([4, 0]), device)] = 99
    x[[0, 3], [4, 0]] = 99
    mask = x < 2
    d[to_dpk(mask, device)] = to_dpk(np.arange(mask.sum(), dtype=np.float64), device)
    x[mask] = np.arange(mask.sum())
    assert_matches(d, x)
    i = to_dpk(np.zeros(3, np.int8), device)
    with pytest.raises(TypeError):
        i[0] = 1.5
    with pytest.raises(OverflowError):
        i[0] = 1000


def test_out_of_bounds_writes_nothing(device):
    d = to_dpk(np.zeros(5), device)
    with pytest.raises(IndexError):
        d[7] = 1.0
    with pytest.raises(IndexError):
        d[to_dpk(np.array([1, 9]), device)] = 1.0
    assert (d.asnumpy() == 0).all()  # the in-bounds index 1 was not written either


def test_overlapping_assignments(device):
    x = np.arange(10, dtype=np.int64)
    d = to_dpk(x, device)
    d[1:] = d[:-1]
    x[1:] = x[:-1].copy()
    assert_matches(d, x)
    d[::-1] = d
    x[::-1] = x.copy()
    assert_matches(d, x)
    m = np.arange(16, dtype=np.int64).reshape(4, 4)
    dm = to_dpk(m, device)
    dm += dm[0]  # row 0 is read by every row and written itself
    assert_matches(dm, m + m[0])
    dm[...] = dm.T
    assert_matches(dm, (m + m[0]).T)
