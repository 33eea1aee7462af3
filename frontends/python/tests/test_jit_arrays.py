"""@dpk.jit with NumPy arguments (docs/jit.md, "NumPy arguments"): converted once at entry to
dpk arrays on the function's device, the body (regions and the array expressions between them)
on dpk arrays, the arguments it writes copied back, NumPy results; and array expressions inside
regions (row slices lowered to loops in the kernel)."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk
from dpk import prange
from dpk.autopar import JitFunction

RNG = np.random.default_rng(11)


@dpk.jit
def between(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i] * 2
    c = np.sqrt(b) + a          # between regions: a fused dpk expression on the device
    s = 0.0
    for i in prange(a.shape[0]):
        s += c[i]
    return c, s, type(c) is dpk.Array, c.device.filter_string


@dpk.jit
def reads_and_writes(a, b, out):
    for i in prange(a.shape[0]):
        out[i] = a[i] + b[i]


@dpk.jit
def totals(a):
    return np.sum(a), a.sum() * 2, a


@dpk.jit
def scale_in_place(u, k):
    u[:] = u * k                 # between regions: a dpk assignment into the argument
    for i in prange(u.shape[0]):
        u[i] += 1
    return u


@dpk.jit
def first_elem_init(a):
    lo = a[0]                   # a 0-d dpk array: the region takes its number
    for i in prange(a.shape[0]):
        lo = min(lo, a[i])
    return lo


@dpk.jit(fallback="allow")
def python_region_sees_dpk_data(a, out):
    w = [3.0]                   # a list: the region cannot be a kernel, its Python runs
    b = np.sqrt(a) + 1
    for i in prange(a.shape[0]):
        out[i] = b[i] * w[0]
    return b


@dpk.jit
def strided_pair(x, y):
    for i in prange(x.shape[0]):
        y[i] = x[i] * 2


@dpk.jit
def plain_expression(a, b):
    return np.exp(a) * b + 1


def test_expression_between_regions_runs_on_dpk_arrays(device):
    a = RNG.random(300)
    b = np.zeros(300)
    with dpk.device_context(device):
        c, s, was_dpk, where = between(a, b)
    assert was_dpk and where == device.filter_string
    assert isinstance(c, np.ndarray)
    np.testing.assert_allclose(b, 2 * a)                     # written argument copied back
    np.testing.assert_allclose(c, np.sqrt(2 * a) + a)
    assert np.isclose(s, (np.sqrt(2 * a) + a).sum())
    assert not between.inspect_regions()[1]["last_run"]["fallback"]


def test_only_written_arguments_are_copied_back():
    for f in (reads_and_writes, scale_in_place, totals, python_region_sees_dpk_data):
        f.inspect_regions()  # parses the function
    assert reads_and_writes._may_write == {"out"}
    assert scale_in_place._may_write == {"u"}
    assert totals._may_write == set()
    assert python_region_sees_dpk_data._may_write == {"out"}


def test_same_array_twice_and_read_only_inputs(device):
    a = RNG.random(100)
    expect = 2 * a
    ro = a.copy()
    ro.flags.writeable = False
    out = np.zeros(100)
    with dpk.device_context(device):
        reads_and_writes(a, a, a)                # one dpk array for the three names
        reads_and_writes(ro, ro, out)            # a read-only input is only read
    np.testing.assert_allclose(a, expect)
    np.testing.assert_allclose(out, 2 * ro)


def test_keyword_arguments_and_exceptions(device):
    a, b = RNG.random(40), RNG.random(40)
    out = np.zeros(40)
    with dpk.device_context(device):
        reads_and_writes(a, b=b, out=out)
        np.testing.assert_allclose(out, a + b)
        u = np.arange(4.0)
        with pytest.raises(TypeError):
            scale_in_place(u, "x")               # fails between regions, after u[:] = ...
    np.testing.assert_allclose(u, np.arange(4.0))  # the caller's array is still whole


def test_field_of_a_structured_array(device):
    s = np.zeros(8, dtype=[("x", "f8"), ("y", "i4")])
    s["x"] = np.arange(8.0)
    x = s["x"]                                   # strides of 12 bytes: not whole elements
    out = np.zeros(8)
    with dpk.device_context(device):
        c, _, _, _ = between(x, out)
    np.testing.assert_allclose(out, 2 * np.arange(8.0))
    np.testing.assert_allclose(c, np.sqrt(out) + np.arange(8.0))


def test_overlapping_views_stay_numpy(device):
    buf = RNG.random(40)
    x, y = buf[0::2], buf[1::2]                  # interleaved: distinct arrays, shared memory
    xs = x.copy()
    with dpk.device_context(device):
        strided_pair(x, y)
    np.testing.assert_allclose(buf[1::2], 2 * xs)
    np.testing.assert_allclose(buf[0::2], xs)


def test_zero_d_and_tuple_results_and_returned_argument(device):
    a = RNG.random(50)
    with dpk.device_context(device):
        s, t, same = totals(a)
        u = np.arange(6.0)
        got = scale_in_place(u, 3.0)
    assert isinstance(s, np.generic) and not isinstance(s, np.ndarray)
    assert np.isclose(s, a.sum()) and np.isclose(t, 2 * a.sum())
    assert same is a                             # a returned argument is the caller's array
    assert got is u
    np.testing.assert_allclose(u, np.arange(6.0) * 3 + 1)


def test_zero_d_dpk_value_as_reduction_start(device):
    a = RNG.random(77) - 0.5
    with dpk.device_context(device):
        assert first_elem_init(a) == a.min()


def test_python_fallback_region_sees_the_same_data(device):
    a = RNG.random(64)
    out = np.zeros(64)
    with dpk.device_context(device):
        b = python_region_sees_dpk_data(a, out)
    np.testing.assert_allclose(out, (np.sqrt(a) + 1) * 3)
    np.testing.assert_allclose(b, np.sqrt(a) + 1)
    assert python_region_sees_dpk_data.inspect_regions()[0]["last_run"]["how"] == "python"


def test_function_without_regions(device):
    a, b = RNG.random(20), RNG.random(20)
    with dpk.device_context(device):
        got = plain_expression(a, b)
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, np.exp(a) * b + 1)


def test_mixed_arguments_give_dpk_results(device):
    a = dpk.asarray(RNG.random(30), device=device)
    b = np.zeros(30)
    c, s, was_dpk, where = between(a, b)         # NumPy b goes to a's device
    assert isinstance(c, dpk.Array) and c.device == device and was_dpk
    np.testing.assert_allclose(b, 2 * a.asnumpy())


def test_generators_are_not_converted():
    @dpk.jit
    def gen(a):
        for i in prange(a.shape[0]):
            a[i] = i
        yield type(a) is np.ndarray
    assert list(gen(np.zeros(3))) == [True]


# ---- array statements inside a region ------------------------------------------------------

@dpk.jit
def row_expr(a, b, out):
    for i in prange(a.shape[0]):
        out[i, :] = a[i, :] * 2 + b[i] - np.sqrt(a[i])


@dpk.jit
def accumulate_rows(x, y):
    for i in prange(x.shape[0]):
        y[:] += x[i]             # every iteration updates all of y: atomic per element


@dpk.jit
def through_view(a, out, k):
    for i in prange(a.shape[0]):
        row = out[i]
        row[:] = a[i] * k
        row[0] += 1


@dpk.jit
def planes(a, out):
    for i in prange(a.shape[0]):
        out[i, :, :] = a[i] + i


@dpk.jit
def with_private(a, out):
    for i in prange(a.shape[0]):
        tmp = np.empty(4)
        tmp[:] = a[i, :]
        out[i] = tmp[0] + tmp[3]


@dpk.jit(fallback="allow")
def partial_slice(a, out):
    for i in prange(a.shape[0]):
        out[i, 1:] = a[i, 1:] * 2   # not a whole dimension: the region's Python runs it


@dpk.jit
def array_reductions(x, acc):
    y = np.zeros(x.shape[1])
    s = 0.0
    for i in prange(x.shape[0]):
        y += x[i]                # Numba's array reduction: atomics per element
        acc = acc + x[i] * 2     # the assignment form, into an argument
        s += x[i, 0]
    return y, s, acc


def test_array_reductions(device):
    x = RNG.random((300, 5))
    acc = np.ones(5)
    with dpk.device_context(device):
        y, s, got = array_reductions(x, acc)
    np.testing.assert_allclose(y, x.sum(axis=0))
    np.testing.assert_allclose(acc, 1 + 2 * x.sum(axis=0))   # updated in place (docs/jit.md)
    assert got is acc and np.isclose(s, x[:, 0].sum())
    info = array_reductions.inspect_regions()[0]
    assert info["last_run"]["how"] == "kernel" and "fetch_add" in info["kernel_source"]


def test_row_expressions_lowered(device):
    a, b = RNG.random((9, 5)), RNG.random(9)
    out = np.zeros((9, 5))
    with dpk.device_context(device):
        row_expr(a, b, out)
    np.testing.assert_allclose(out, a * 2 + b[:, None] - np.sqrt(a))
    info = row_expr.inspect_regions()[0]
    assert "__e0_0" in info["kernel_source"] and info["last_run"]["how"] == "kernel"


def test_whole_array_updates_become_atomics(device):
    x1, x2 = RNG.random(200), RNG.random((200, 3))
    y1, y2 = np.zeros(3), np.zeros(3)
    with dpk.device_context(device):
        accumulate_rows(x1, y1)                  # x[i] a number: added to every element
        accumulate_rows(x2, y2)                  # x[i] a row
    np.testing.assert_allclose(y1, np.full(3, x1.sum()))
    np.testing.assert_allclose(y2, x2.sum(axis=0))
    assert "fetch_add" in accumulate_rows.inspect_regions()[0]["kernel_source"]


def test_row_view_private_array_and_planes(device):
    a = RNG.random((6, 4))
    out = np.zeros((6, 4))
    a3 = RNG.random((3, 2, 5))
    out3 = np.zeros((3, 2, 5))
    out1 = np.zeros(6)
    with dpk.device_context(device):
        through_view(a, out, 3.0)
        planes(a3, out3)
        with_private(a, out1)
    expect = a * 3
    expect[:, 0] += 1
    np.testing.assert_allclose(out, expect)
    np.testing.assert_allclose(out3, a3 + np.arange(3)[:, None, None])
    np.testing.assert_allclose(out1, a[:, 0] + a[:, 3])


def test_array_statement_not_lowered_falls_back(device):
    a = RNG.random((5, 4))
    out = np.zeros((5, 4))
    with dpk.device_context(device):
        partial_slice(a, out)
    expect = np.zeros((5, 4))
    expect[:, 1:] = a[:, 1:] * 2
    np.testing.assert_allclose(out, expect)
    assert partial_slice.inspect_regions()[0]["last_run"]["how"] == "python"


DIAG = textwrap.dedent("""
    import numpy as np, dpk
    from dpk import prange

    @dpk.jit
    def f(a, b):
        for i in prange(a.shape[0]):
            b[i] = a[i] * 2
        c = np.sqrt(b) + a
        return c

    a = np.linspace(0, 1, 1000)
    with dpk.device_context(DEVICE):
        c = f(a, np.zeros(1000))
    print("OK", float(c[-1]))
""")


def test_expression_between_regions_is_a_fused_kernel_on_the_device(tmp_path):
    target = "opencl:cpu" if dpk.has_device("opencl:cpu") else "host"
    script = tmp_path / "diag.py"
    script.write_text(DIAG.replace("DEVICE", repr(target)))
    env = dict(os.environ, DPK_DIAGNOSTICS="3,json", DPK_CACHE_DIR=str(tmp_path / "cache"))
    python = [sys.executable] + (["-S"] if sys.flags.no_site else [])
    run = subprocess.run(python + [str(script)], env=env, capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "OK 2.41421" in run.stdout
    records = []
    for line in (run.stdout + run.stderr).splitlines():
        start = line.find("{")
        if start >= 0:
            try:
                records.append(json.loads(line[start:]))
            except ValueError:
                pass
    device = dpk.select_device(target).filter_string
    fused = [r for r in records if r.get("event") == "arrays.fusion"]
    assert any("sqrt" in r.get("ops", "") and r.get("device") == device for r in fused), fused
    regions = [r for r in records if r.get("event") == "jit.region"]
    assert regions and regions[0]["device"] == device and regions[0]["how"] == "kernel"
    moved = [r for r in records if r.get("event") == "jit.arguments"]
    if target == "host":
        assert not moved  # zero-copy: nothing to report
    else:  # a and b copied in, only b (written) copied back
        assert len(moved) == 1 and moved[0]["converted"] == 2, moved
        assert moved[0]["copied_back"] == 1 and moved[0]["copied_back_bytes"] == 8000


@pytest.fixture(autouse=True)
def no_unexpected_fallback():
    yield
    for value in list(globals().values()):
        if isinstance(value, JitFunction) and value._runners and \
                value not in (python_region_sees_dpk_data, partial_slice):
            for runner in value._runners:
                assert not runner.last.get("fallback"), (value.__name__, runner.last)
