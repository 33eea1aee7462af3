"""Every elementwise function of the table against NumPy, on every device: dtypes of its
category, special values (signed zeros, infinities, NaN, integer limits), broadcasting, 0-D,
empty and strided operands, Python scalars, operators (plain, reflected, in-place)."""

import math
import operator

import numpy as np
import pytest

import dpk
from dpk.arrays.elementwise_table import TABLE

from array_helpers import FLOATS, INTS, INTS_SHORT, SWEEP, assert_matches, sample, to_dpk

_NP = {"bitwise_invert": np.invert, "bitwise_left_shift": np.left_shift,
       "bitwise_right_shift": np.right_shift}


def np_func(name):
    return _NP.get(name) or getattr(np, name)


def dtypes_for(row):
    if row.category in ("floating-point", "real floating-point"):
        return FLOATS
    if row.category == "bool" or row.category == "logical":
        return ["bool"]
    if row.category == "integer":
        return INTS_SHORT
    if row.category == "integer or boolean":
        return ["bool"] + INTS_SHORT
    if row.category == "any":
        return ["bool", "int32", "uint8", "float32"] if not SWEEP else ["bool"] + INTS + FLOATS
    return INTS_SHORT + FLOATS


def _params(arity):
    return [pytest.param(name, dt, id=f"{name}-{dt}")
            for name, row in sorted(TABLE.items()) if row.arity == arity
            for dt in dtypes_for(row)]


# Reference quirks: NumPy's answer differs from the standard's special cases (the dpk result
# follows the standard; these inputs are left out of the comparison).
def _skip_mask(name, x, y=None):
    if name in ("floor_divide", "remainder") and x.dtype.kind == "f":
        return np.isinf(x) | np.isinf(y) | (y == 0)
    if name == "sign" and x.dtype.kind == "f":
        return x == 0
    return np.zeros(x.shape, bool)


def _skip_repeat(device, name, dtype):
    """Other devices than the host run each function for its first dtype of each kind (the
    kernels are the same IR; DPK_ARRAY_SWEEP=1 runs them all)."""
    if SWEEP or device.is_host:
        return
    row = TABLE[name]
    kinds = {}
    for dt in dtypes_for(row):
        kinds.setdefault(np.dtype(dt).kind, dt)
    if dtype not in kinds.values():
        pytest.skip("covered on the host; DPK_ARRAY_SWEEP=1 runs every dtype here too")


@pytest.mark.parametrize("name,dtype", _params(1))
def test_unary(device, name, dtype):
    _skip_repeat(device, name, dtype)
    x = sample(dtype)
    with np.errstate(all="ignore"):
        ref = np_func(name)(x)
    out = getattr(dpk, name)(to_dpk(x, device))
    if name in ("imag",):
        ref = np.zeros_like(x)
    assert out.dtype == ref.dtype or (ref.dtype.kind == "f" and out.dtype.kind == "f")
    rtol = 4e-6 if np.dtype(dtype) == np.float32 else 4e-15
    assert_matches(out, ref, rtol=rtol, atol=1e-30)


def _binary_inputs(dtype, name):
    x = sample(dtype)
    y = sample(dtype, seed=1)[::-1].copy()
    if name == "pow" and np.dtype(dtype).kind in "iu":
        y = np.abs(y) % 5
    if name in ("bitwise_left_shift", "bitwise_right_shift"):
        y = (np.abs(y.astype(np.int64)) % (8 * np.dtype(dtype).itemsize + 3)).astype(dtype)
    return x, y


@pytest.mark.parametrize("name,dtype", _params(2))
def test_binary(device, name, dtype):
    _skip_repeat(device, name, dtype)
    x, y = _binary_inputs(dtype, name)
    with np.errstate(all="ignore"):
        ref = np_func(name)(x, y)
    out = getattr(dpk, name)(to_dpk(x, device), to_dpk(y, device))
    got = out.asnumpy()
    keep = ~_skip_mask(name, x, y)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    rtol = 4e-6 if np.dtype(dtype) == np.float32 else 4e-15
    assert_matches(got[keep], ref[keep], rtol=rtol, atol=1e-30)


def test_floor_divide_and_remainder_special_cases(device):
    inf = math.inf
    x = np.array([inf, -inf, 5.0, -5.0, 5.0, -5.0, 0.0, -0.0, 1.0, 7.0, -7.0])
    y = np.array([2.0, 2.0, inf, inf, -inf, -inf, 3.0, 3.0, 0.0, -2.0, 2.0])
    fd = dpk.floor_divide(to_dpk(x, device), to_dpk(y, device)).asnumpy()
    np.testing.assert_array_equal(fd, [inf, -inf, 0.0, -0.0, -0.0, 0.0, 0.0, -0.0, inf,
                                       -4.0, -4.0])
    assert math.copysign(1, fd[3]) == -1 and math.copysign(1, fd[4]) == -1
    rm = dpk.remainder(to_dpk(x, device), to_dpk(y, device)).asnumpy()
    np.testing.assert_array_equal(rm[2:6], [5.0, inf, -inf, -5.0])
    assert math.isnan(rm[0]) and math.isnan(rm[8])
    np.testing.assert_array_equal(rm[9:], [-1.0, 1.0])


def test_integer_division_by_zero_and_overflow(device):
    x = to_dpk(np.array([7, -7, -128, 5], np.int8), device)
    y = to_dpk(np.array([0, 0, -1, 2], np.int8), device)
    np.testing.assert_array_equal((x // y).asnumpy(), [0, 0, -128, 2])
    np.testing.assert_array_equal((x % y).asnumpy(), [0, 0, 0, 1])


def test_round_half_to_even_and_nextafter(device):
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, -0.0, 1e300, np.inf, np.nan])
    np.testing.assert_array_equal(dpk.round(to_dpk(x, device)).asnumpy(), np.round(x))
    assert math.copysign(1, dpk.round(to_dpk(np.array([-0.4]), device)).asnumpy()[0]) == -1
    for dt in FLOATS:
        a = np.array([0.0, 1.0, -1.0, 1.0, 2.0, np.inf, 3.0, np.finfo(dt).max, -0.0], dt)
        b = np.array([1.0, 2.0, -2.0, 0.0, 1.0, 0.0, np.nan, np.inf, -1.0], dt)
        got = dpk.nextafter(to_dpk(a, device), to_dpk(b, device)).asnumpy()
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(got, np.nextafter(a, b))


def test_maximum_minimum_propagate_nan(device):
    x = to_dpk(np.array([1.0, np.nan, 3.0]), device)
    y = to_dpk(np.array([np.nan, 2.0, 1.0]), device)
    np.testing.assert_array_equal(dpk.maximum(x, y).asnumpy(), [np.nan, np.nan, 3.0])
    np.testing.assert_array_equal(dpk.minimum(x, y).asnumpy(), [np.nan, np.nan, 1.0])


@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                "and_", "or_", "xor", "lshift", "rshift", "lt", "le", "eq",
                                "ne", "gt", "ge"])
def test_operators_with_scalars_and_reflection(device, op):
    fn = getattr(operator, op)
    bitwise = op in ("and_", "or_", "xor", "lshift", "rshift")
    dtype = np.int32 if bitwise or op in ("floordiv", "mod", "pow") else np.float32
    x = np.arange(1, 9, dtype=dtype).reshape(2, 4)
    d = to_dpk(x, device)
    for scalar in (3, 2) if bitwise or dtype == np.int32 else (3, 2.5):
        with np.errstate(all="ignore"):
            assert_matches(fn(d, scalar), fn(x, scalar), exact=True)
            assert_matches(fn(scalar, d), fn(scalar, x), exact=True)
    other = x[:, ::-1].copy()
    with np.errstate(all="ignore"):
        assert_matches(fn(d, to_dpk(other, device)), fn(x, other), exact=True)
        assert_matches(fn(d, other), fn(x, other), exact=True)  # NumPy operand: copied
        assert_matches(fn(other, d), fn(other, x), exact=True)  # reflected through NumPy


@pytest.mark.parametrize("op", ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod",
                                "ipow", "iand", "ior", "ixor", "ilshift", "irshift"])
def test_inplace_operators(device, op):
    fn = getattr(operator, op)
    dtype = np.int64 if op in ("iand", "ior", "ixor", "ilshift", "irshift", "ifloordiv",
                               "imod", "ipow") else np.float64
    x = np.arange(1, 7, dtype=dtype).reshape(2, 3)
    d = to_dpk(x, device)
    alias = d[1]  # a view: sees the in-place update
    y = np.array([1, 2, 3], dtype=dtype)
    ref = fn(x.copy(), y)
    out = fn(d, to_dpk(y, device))
    assert out is d
    assert_matches(d, ref, exact=True)
    assert_matches(alias, ref[1], exact=True)


def test_inplace_keeps_dtype_and_rejects_widening(device):
    d = to_dpk(np.arange(4, dtype=np.float32), device)
    d += 1.5
    assert d.dtype == dpk.float32
    i = to_dpk(np.arange(4, dtype=np.int32), device)
    with pytest.raises(TypeError):
        i += 1.5
    with pytest.raises(ValueError):
        i += to_dpk(np.ones((2, 4), np.int32), device)  # would change x's shape


def test_promotion_table(device):
    names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float32", "float64"]
    arrays = {n: dpk.ones(2, dtype=getattr(dpk, n), device=device) for n in names}
    for a in names:
        for b in names:
            expected = np.promote_types(a, b)
            if "bool" in (a, b) and a != b:
                continue  # bool with numbers: no arithmetic in the standard
            assert dpk.result_type(arrays[a], arrays[b]) == expected
            if a != "bool":
                assert (arrays[a] + arrays[b]).dtype == expected


def test_python_scalars_are_weak(device):
    f32 = dpk.ones(3, dtype=dpk.float32, device=device)
    i8 = dpk.ones(3, dtype=dpk.int8, device=device)
    b = dpk.ones(3, dtype=dpk.bool, device=device)
    assert (f32 * 2).dtype == dpk.float32 and (f32 * 2.5).dtype == dpk.float32
    assert (i8 + 1).dtype == dpk.int8 and (i8 * 2.5).dtype == dpk.float64
    assert (b & True).dtype == dpk.bool and (b + 1).dtype == dpk.int64
    assert (f32 + np.float64(1)).dtype == dpk.float64  # NumPy scalars are strong
    with pytest.raises(OverflowError):
        i8 + 300
    assert dpk.result_type(dpk.int8, 1) == dpk.int8
    assert dpk.result_type(dpk.float32, 1.0) == dpk.float32


def test_broadcast_zero_d_empty_and_strided(device):
    base = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    d = to_dpk(base, device)
    assert_matches(d + to_dpk(np.arange(4.0), device), base + np.arange(4.0))
    assert_matches(d * to_dpk(np.array(2.0), device), base * 2.0)
    assert_matches(d[:, ::2, ::-1] - d[:, 1:, 1:3][:, :2, :1], base[:, ::2, ::-1]
                   - base[:, 1:, 1:3][:, :2, :1])
    zero_d = to_dpk(np.array(3, np.int64), device)
    assert (zero_d + 1).shape == () and int(zero_d * 2) == 6
    empty = to_dpk(np.zeros((0, 3)), device)
    assert (empty + 1).shape == (0, 3)
    assert_matches(d.mT + 1, base.transpose(0, 2, 1) + 1)


def test_eight_dimensions(device):
    shape = (2, 1, 3, 2, 1, 2, 2, 3)
    x = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    d = to_dpk(x, device)
    assert d.ndim == 8
    y = x[:, :, ::-1, :, :, ::-1]
    assert_matches(d[:, :, ::-1, :, :, ::-1] * 3 - 1, y * 3 - 1)
    assert_matches(dpk.sum(d, axis=(1, 3, 7)), x.sum(axis=(1, 3, 7)))


def test_clip_and_where(device):
    x = np.array([-3.0, 0.5, 2.0, np.nan, 9.0])
    d = to_dpk(x, device)
    assert_matches(dpk.clip(d, 0.0, 3.0), np.clip(x, 0.0, 3.0))
    assert_matches(dpk.clip(d, max=1.0), np.minimum(x, 1.0))
    i = to_dpk(np.array([-300, 5, 300], np.int16), device)
    assert_matches(dpk.clip(i, -200, 1000), np.array([-200, 5, 300], np.int16))
    assert_matches(dpk.where(d > 1, d, 0.0), np.where(x > 1, x, 0.0))
    assert dpk.where(d > 1, d, 2).dtype == dpk.float64
    with pytest.raises(TypeError):
        dpk.where(d > 1, 1, 2.5)  # the standard needs an array among x1 and x2


def test_promotion_matches_array_api_strict():
    xs = pytest.importorskip("array_api_strict")
    names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float32", "float64"]
    for a in names:
        for b in names:
            try:
                expected = xs.result_type(getattr(xs, a), getattr(xs, b))
            except TypeError:
                continue  # a combination the standard leaves open (dpk follows NumPy there)
            assert dpk.result_type(getattr(dpk, a), getattr(dpk, b)) == expected._np_dtype
        for scalar in (True, 1, 1.5):
            try:
                expected = xs.result_type(getattr(xs, a), scalar)
            except TypeError:
                continue
            assert dpk.result_type(getattr(dpk, a), scalar) == expected._np_dtype, (a, scalar)


def _graph_signature(node):
    """A node's graph as nested tuples: op, dtype, shape, scalar values, leaf identities."""
    if node.op == "scalar":
        return ("scalar", node.dtype.str, repr(node.value))
    if node.op == "leaf":
        return ("leaf", id(node.buffer), node.offset, node.strides, node.dtype.str, node.shape)
    return (node.op, node.dtype.str, node.shape) + tuple(_graph_signature(a) for a in node.args)


def _node_or_error(build):
    try:
        node = build()
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return (type(exc).__name__, str(exc))
    return None if node is None else _graph_signature(node)


@pytest.mark.parametrize("has_fp64", [True, False])
def test_fast_paths_build_the_general_paths_graphs(monkeypatch, has_fp64):
    """The fast paths of elementwise_node (array with array, Python or NumPy scalar; one-operand
    rows; x ** 1 and x ** 2; where) build the same graph, or raise the same error, as the
    general path (graphs only, nothing launched; device-independent), also on a device
    without float64."""
    from dpk.arrays import elementwise_ops as E
    host = dpk.select_device("host")
    if not has_fp64:
        monkeypatch.setattr(type(host), "has_fp64", property(lambda self: False))
    dtypes = [np.bool_, np.int8, np.uint8, np.int32, np.uint64, np.float32, np.float64,
              np.complex64]
    scalars = [3, -2, 2.5, True, np.int8(3), np.uint8(200), np.int64(-7), np.uint64(9),
               np.float32(1.5), np.float64(2.25), np.int16(300)]
    rows = TABLE  # name -> row
    binary = [rows[n] for n in ("add", "subtract", "multiply", "divide", "floor_divide", "less",
                                "bitwise_and", "pow", "maximum", "logical_and")]
    unary = [rows[n] for n in ("negative", "abs", "sqrt", "exp", "floor", "logical_not",
                               "bitwise_invert", "sign", "real", "isnan")]
    arrays = [dpk.asarray(np.ones(4, dt), device="host") for dt in dtypes]
    cond = dpk.asarray(np.array([True, False, True, False]), device="host")
    cases = []
    for x1 in arrays + scalars:
        cases += [(E.WHERE_ROW, (cond, x1, x2)) for x2 in arrays + scalars
                  if isinstance(x1, dpk.Array) or isinstance(x2, dpk.Array)]
    for a in arrays:
        for row in binary:
            cases += [(row, (a, s)) for s in scalars] + [(row, (s, a)) for s in scalars]
            cases += [(row, (a, b)) for b in arrays]
        cases += [(row, (a,)) for row in unary]
    fast = [_node_or_error(lambda: E.elementwise_node(row, ops)) for row, ops in cases]
    monkeypatch.setattr(E, "_binary_fast", lambda row, a, b: None)
    monkeypatch.setattr(E, "_unary_fast", lambda row, a: None)
    monkeypatch.setattr(E, "_where_fast", lambda cond, x1, x2: None)
    general = [_node_or_error(lambda: E.elementwise_node(row, ops)) for row, ops in cases]
    differ = [(row.name, ops, f, g) for (row, ops), f, g in zip(cases, fast, general) if f != g]
    assert not differ, f"{len(differ)} of {len(cases)} differ, first: {differ[0]}"
