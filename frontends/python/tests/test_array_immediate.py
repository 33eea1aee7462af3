"""Immediate operations (dpk/arrays/immediate.py): elementwise operations on small materialized
arrays run at once in one native call, on every device. Their results must be the general
path's, bit for bit, with its errors; anything the native side does not handle must stay on the
graph."""

import os
import pickle
import subprocess
import sys
import weakref

import numpy as np
import pytest

import dpk
from dpk import _core_loader
from dpk.arrays import generated, immediate
from dpk.arrays.elementwise_table import TABLE

from array_helpers import SWEEP, assert_matches, sample, to_dpk
from conftest import DEVICE_FILTERS


def _small_block():
    return _core_loader.core().SmallBlock


def _is_immediate(result):
    return isinstance(result, dpk.Array) and result._node is None and \
        isinstance(result._base, _small_block())


def _outcome(fn):
    """(dtype, values) of fn(), or (exception type, message)."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raised", type(e), str(e)), None
    if r is NotImplemented:
        return ("NotImplemented",), None
    return ("value", r.dtype, r.shape), r.asnumpy()


def _both_paths(fn):
    """fn() run immediately (when it qualifies) and through the graph; ((key, values), ...)"""
    first = _outcome(fn)
    limit = immediate.max_elements()
    immediate.set_max_elements(0)
    try:
        second = _outcome(fn)
    finally:
        immediate.set_max_elements(limit)
    return first, second


def _assert_same(first, second, what):
    assert first[0] == second[0], (what, first[0], second[0])
    if first[1] is not None:
        np.testing.assert_array_equal(first[1], second[1], err_msg=str(what), strict=True)


_BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow",
           "less", "greater_equal", "equal", "logical_and", "bitwise_xor", "bitwise_left_shift",
           "maximum", "atan2", "hypot", "copysign"]
_UNARY = ["negative", "abs", "sqrt", "exp", "isnan", "sign", "round", "floor", "logical_not",
          "bitwise_invert", "square", "reciprocal"]
_DTYPES = ["float32", "int64", "uint8", "bool"] if not SWEEP else \
    ["float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
     "uint64", "bool"]
if SWEEP:
    _BINARY = [name for name, row in TABLE.items() if row.arity == 2]
    _UNARY = [name for name, row in TABLE.items() if row.arity == 1]
# Devices other than the host run the same kernels as the host's general path does for them, so
# by default they check a few operations and dtypes (each is a kernel build there, PoCL's a few
# tenths of a second on a fresh cache); DPK_ARRAY_SWEEP=1 runs every case on every device.
_OTHER_DEVICE_OPS = {"add", "subtract", "divide", "floor_divide", "less", "logical_and",
                     "bitwise_xor", "maximum", "negative", "sqrt", "isnan", "floor",
                     "logical_not"}
_OTHER_DEVICE_DTYPES = {"float32", "int64"}


def _cases(names, dtypes):
    """(device filter, name, dtype) of every case to run: all of them on the host, the few
    above elsewhere (all with the sweep)."""
    return [(where, name, dtype) for where in DEVICE_FILTERS for name in names for dtype in dtypes
            if where == "host" or SWEEP or
            (name in _OTHER_DEVICE_OPS and dtype in _OTHER_DEVICE_DTYPES)]


@pytest.mark.parametrize("where,name,dtype", _cases(_BINARY, _DTYPES))
def test_binary_results_and_errors_are_the_graphs(core, where, name, dtype):
    device = dpk.select_device(where)
    fn = getattr(dpk, name)
    a = to_dpk(sample(dtype, seed=1), device)
    b = to_dpk(sample(dtype, seed=2), device)
    cases = [("array, array", lambda: fn(a, b)), ("array, itself", lambda: fn(a, a)),
             ("array, view of itself", lambda: fn(a, a[...])),
             ("array, int", lambda: fn(a, 3)), ("int, array", lambda: fn(5, a)),
             ("array, float", lambda: fn(a, 1.5)), ("float, array", lambda: fn(-2.5, a)),
             ("array, bool", lambda: fn(a, True)),
             ("0-D, 0-D", lambda: fn(a[2], b[3])),
             ("2-D, int", lambda: fn(a[:20].reshape(4, 5), 2))]
    eligible = ran_immediately = 0
    for label, case in cases:
        first, second = _both_paths(case)
        _assert_same(first, second, (name, dtype, label))
        scalar = any(word in label for word in ("int", "float", "bool"))
        if first[0][0] == "value" and not (name == "pow" and scalar):  # (x ** 2: graph)
            eligible += 1
            ran_immediately += _is_immediate(case())
    assert ran_immediately == eligible, (name, dtype)


@pytest.mark.parametrize("where,name,dtype", _cases(_UNARY, _DTYPES))
def test_unary_results_and_errors_are_the_graphs(core, where, name, dtype):
    device = dpk.select_device(where)
    fn = getattr(dpk, name)
    a = to_dpk(sample(dtype, seed=3), device)
    for label, case in (("1-D", lambda: fn(a)), ("0-D", lambda: fn(a[4])),
                        ("2-D", lambda: fn(a[:20].reshape(5, 4)))):
        first, second = _both_paths(case)
        _assert_same(first, second, (name, dtype, label))
        if first[0][0] == "value":
            assert _is_immediate(case()), (name, dtype, label)


def test_operators_run_at_once_and_a_loop_builds_nothing(device):
    x = to_dpk(np.ones(1, np.float32), device)
    before = immediate.launch_count()
    y = x + 1
    assert _is_immediate(y) and immediate.launch_count() - before == 1
    assert y.shape == (1,) and y.dtype == dpk.float32 and y.device == device
    assert_matches(y, np.full(1, 2, np.float32))
    before = immediate.launch_count()
    z = -(y * 2 - x) / 4  # four operations, four launches, no graph
    assert _is_immediate(z) and immediate.launch_count() - before == 4
    assert_matches(z, np.full(1, -0.75, np.float32))
    float(x + 1), float(1 - x)  # the loop's two combinations are known from here on
    builds, entries = generated.STATS["builds"], immediate.OPS.entry_count
    for i in range(50):
        assert float(x + i) == 1 + i
        assert float(i - x) == i - 1
    assert generated.STATS["builds"] == builds and immediate.OPS.entry_count == entries


def test_what_stays_on_the_graph(device):
    """Everything but small materialized C-order arrays and Python scalars: lazy results."""
    n = 6
    x = to_dpk(np.arange(n, dtype=np.float32), device)
    m = to_dpk(np.arange(9, dtype=np.float32).reshape(3, 3), device)
    big = to_dpk(np.ones(immediate.max_elements() + 1, np.float32), device)
    cases = {
        "a strided view": lambda: x[::2] + 1,
        "a transposed matrix": lambda: m.T + 1,
        "broadcasting": lambda: m + x[:3],
        "more than max_elements": lambda: big + 1,
        "a NumPy scalar": lambda: x + np.float32(2),
        "a complex scalar": lambda: x + 1j,
        "x ** 2": lambda: x ** 2,
        "a lazy operand": lambda: (x[::2] + 1) * 2,
    }
    for label, case in cases.items():
        assert case()._node is not None, label
    assert _is_immediate(x + 1) and _is_immediate(m * m)


def test_integer_scalars_out_of_range_take_the_general_path(device):
    a = to_dpk(np.array([1, 2, 3], np.int8), device)
    first, second = _both_paths(lambda: a + 1000)
    _assert_same(first, second, "int8 + 1000")
    assert first[0][0] == "raised" and first[0][1] is OverflowError
    u = to_dpk(np.array([1, 2, 3], np.uint64), device)
    r = u + (1 << 63)  # beyond int64: the general path's carrier
    assert_matches(r, np.array([1, 2, 3], np.uint64) + np.uint64(1 << 63))
    assert _is_immediate(a + 100) and _is_immediate(u + 5)


def test_results_are_ordinary_arrays(device):
    x = to_dpk(np.arange(4, dtype=np.float64), device)
    y = x * 3
    assert _is_immediate(y)
    y += 1  # in-place writes into the pooled block
    y[0] = -5
    assert_matches(y, np.array([-5, 4, 7, 10], np.float64))
    assert_matches(dpk.sum(y), np.float64(16))
    if device.is_host:  # (NumPy imports host memory only)
        np.testing.assert_array_equal(np.from_dlpack(y), [-5, 4, 7, 10])
    np.testing.assert_array_equal(np.asarray(y), [-5, 4, 7, 10])
    assert_matches(pickle.loads(pickle.dumps(y)), np.array([-5, 4, 7, 10], np.float64))
    ref = weakref.ref(y)
    pooled = _core_loader.core().small_block_pooled_bytes()
    del y
    assert ref() is None
    assert _core_loader.core().small_block_pooled_bytes() > pooled  # the block went back
    z = x + 1  # and serves the next result
    assert_matches(z, np.arange(4) + 1.0)


def test_the_block_pool_is_bounded_and_frees_past_it(device):
    # 700 results of 8 KiB outgrow the pool's 4 MiB: the blocks past it are really freed (on
    # devices with asynchronous launches after a wait for the queue), the others serve again.
    x = to_dpk(np.arange(1024, dtype=np.float64), device)
    results = [x + i for i in range(700)]
    assert all(_is_immediate(r) for r in results[:3])
    assert_matches(results[699], np.arange(1024) + 699.0)
    del results
    assert _core_loader.core().small_block_pooled_bytes() <= 4 << 20
    again = [x * i for i in range(3)]
    for i, r in enumerate(again):
        assert_matches(r, np.arange(1024) * float(i))


def test_a_lazy_reader_of_an_immediate_result_sees_its_value_then(device):
    x = to_dpk(np.arange(6, dtype=np.int64), device)
    y = x + 1  # immediate
    limit = immediate.max_elements()
    immediate.set_max_elements(0)
    try:
        lazy = y * 10  # a graph reading y's block
    finally:
        immediate.set_max_elements(limit)
    y[...] = 0  # a write to y: the lazy reader is computed first
    assert_matches(lazy, (np.arange(6) + 1) * 10)
    assert_matches(y, np.zeros(6, np.int64))


def test_diagnostics_level_2_keeps_every_operation_on_the_graph(tmp_path):
    script = ("import numpy as np, dpk\n"
              "x = dpk.asarray(np.ones(4, np.float32), device='host')\n"
              "print('LAZY', (x + 1)._node is not None)\n")
    env = dict(os.environ, DPK_DIAGNOSTICS="2", DPK_CACHE_DIR=str(tmp_path / "c"))
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "LAZY True" in run.stdout, run.stdout


def test_threads_share_the_table_and_the_queue(device):
    import threading
    x = to_dpk(np.arange(8, dtype=np.int64), device)
    wrong = []

    def work(k):
        for i in range(300):
            got = (x * k + i).asnumpy()
            if not np.array_equal(got, np.arange(8) * k + i):
                wrong.append((k, i, got))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong, wrong[:3]


def test_read_only_and_borrowed_inputs(host):
    data = np.arange(5, dtype=np.float32)
    data.setflags(write=False)
    x = dpk.asarray(data, device=host, copy=False)  # NumPy's memory, read-only
    y = x * 2
    assert _is_immediate(y)
    y[0] = 7  # the result is dpk's own, writable memory
    assert_matches(y, np.array([7, 2, 4, 6, 8], np.float32))
    np.testing.assert_array_equal(data, np.arange(5))


_INPLACE = ["__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
            "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"]


def _inplace_outcome(dtype, name, make_other, device):
    x = to_dpk(sample(dtype, seed=4), device)
    base = x._base
    try:
        r = getattr(x, name)(make_other(x))
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return ("raised", type(e), str(e)), None, None
    if r is NotImplemented:
        return ("NotImplemented",), None, None
    assert r is x and x._base is base  # in place: the same array, the same memory
    return ("value", x.dtype, x.shape), x.asnumpy(), None


_OTHER_DEVICE_OPS |= {"__iadd__", "__imul__", "__itruediv__", "__imod__", "__ixor__"}


@pytest.mark.parametrize("where,name,dtype", _cases(_INPLACE, _DTYPES))
def test_inplace_operators_are_the_graphs(core, where, name, dtype):
    device = dpk.select_device(where)
    others = {"array": lambda x: to_dpk(sample(dtype, seed=5), device), "itself": lambda x: x,
              "int": lambda x: 3, "float": lambda x: 1.5, "bool": lambda x: True}
    for label, make in others.items():
        first = _inplace_outcome(dtype, name, make, device)
        limit = immediate.max_elements()
        immediate.set_max_elements(0)
        try:
            second = _inplace_outcome(dtype, name, make, device)
        finally:
            immediate.set_max_elements(limit)
        _assert_same(first, second, (name, dtype, label))


def test_inplace_runs_at_once_and_keeps_the_general_rules(device):
    x = to_dpk(np.arange(6, dtype=np.float32), device)
    before = immediate.launch_count()
    x += 1
    x *= 2
    assert immediate.launch_count() - before == 2
    assert_matches(x, (np.arange(6) + 1.0) * 2)
    # a lazy result reading x's memory: computed before the write (general path)
    lazy = x[::2] * 10
    assert lazy._node is not None
    x += 100
    assert_matches(lazy, ((np.arange(6) + 1.0) * 2)[::2] * 10)
    # overlapping views of one memory: the general path reads a private copy, as NumPy does
    a = np.arange(8, dtype=np.int64)
    y = to_dpk(a, device)
    y[1:] += y[:-1]
    a[1:] += a[:-1].copy()
    assert_matches(y, a)
    # a result dtype x cannot hold, and read-only memory: the general path's errors
    i = to_dpk(np.arange(3, dtype=np.int32), device)
    with pytest.raises(dpk.DTypeError):
        i += 2.5
    if not device.is_host:
        return  # (read-only arrays are borrowed NumPy memory: the host device's)
    data = np.arange(3, dtype=np.float32)
    data.setflags(write=False)
    r = dpk.asarray(data, device=device, copy=False)
    limit = immediate.max_elements()
    immediate.set_max_elements(0)
    try:
        with pytest.raises(Exception) as general:
            r += 1
    finally:
        immediate.set_max_elements(limit)
    with pytest.raises(type(general.value), match="read"):
        r += 1
    np.testing.assert_array_equal(data, np.arange(3))
