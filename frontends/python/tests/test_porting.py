"""Code written for numba-dppy / numba-dpex <= 0.20 (OpenCL-style kernels, subscript launches,
device_context, access types) and the kapi details numba-dpex 0.23 code relies on (property
``dimensions``, row views, ``len``), on every device; kernels without source (``python -i``,
``exec``); the errors for foreign names. docs/porting.md describes what is tested here."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk
import dpk as dppy  # numba-dppy code ports by changing `import numba_dppy as dppy`
from dpk import kernel_api as kapi

from conftest import DEVICE_FILTERS

# ---- the seed examples in both styles -----------------------------------------------------------


@dppy.kernel
def vadd_ocl(a, b, c):
    i = dppy.get_global_id(0)
    c[i] = a[i] + b[i]


@dpk.kernel
def vadd_kapi(item: kapi.Item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


@dpk.device_func
def scaled(x, factor):
    return x * factor


@dppy.kernel
def axpy_ocl(a, b, c):
    i = dppy.get_global_id(0)
    c[i] = scaled(a[i], 2.0) + b[i]


@dpk.kernel
def axpy_kapi(item, a, b, c):
    i = item.get_id(0)
    c[i] = scaled(a[i], 2.0) + b[i]


@dppy.kernel
def atomic_sum_ocl(data, total):
    i = dppy.get_global_id(0)
    dppy.atomic.add(total, 0, data[i])


@dpk.kernel
def atomic_sum_kapi(item, data, total):
    ref = kapi.AtomicRef(total, 0)
    ref.fetch_add(data[item.get_id(0)])


@dppy.kernel
def group_sum_ocl(data, partial):
    lid = dppy.get_local_id(0)
    size = dppy.get_local_size(0)
    scratch = dppy.local.array(64, np.float64)
    scratch[lid] = data[dppy.get_global_id(0)]
    dppy.barrier(dppy.CLK_LOCAL_MEM_FENCE)
    stride = size // 2
    while stride > 0:
        if lid < stride:
            scratch[lid] += scratch[lid + stride]
        dppy.barrier(dppy.LOCAL_MEM_FENCE)
        stride //= 2
    if lid == 0:
        partial[dppy.get_group_id(0)] = scratch[0]


@dpk.kernel
def group_sum_kapi(nd_item: kapi.NdItem, data, partial, scratch):
    lid = nd_item.get_local_id(0)
    group = nd_item.get_group()
    size = nd_item.get_local_range(0)
    scratch[lid] = data[nd_item.get_global_id(0)]
    kapi.group_barrier(group)
    stride = size // 2
    while stride > 0:
        if lid < stride:
            scratch[lid] += scratch[lid + stride]
        kapi.group_barrier(group)
        stride //= 2
    if lid == 0:
        partial[group.get_group_id(0)] = scratch[0]


@pytest.mark.parametrize("first,second", [(DEVICE_FILTERS[0], DEVICE_FILTERS[-1])])
def test_vector_add_under_two_device_contexts(first, second):
    n = 1000
    a = np.random.rand(n).astype(np.float32)
    b = np.random.rand(n).astype(np.float32)
    for name in (first, second, first):
        with dpk.device_context(name) as device:
            assert dpk.get_current_device() is device
            c = np.zeros_like(a)
            vadd_ocl[n, dppy.DEFAULT_LOCAL_SIZE](a, b, c)
            np.testing.assert_allclose(c, a + b)
            d = np.zeros_like(a)
            dpk.call_kernel(vadd_kapi, dpk.Range(n), a, b, d)
            np.testing.assert_array_equal(c, d)
            created = dpk.zeros(4, np.float32)  # array creation follows the context
            assert created.device is device


def test_both_styles_give_the_same_ir_and_share_device_functions(core):
    a = np.zeros(8, np.float32)
    ocl = axpy_ocl.inspect_ir(dpk.Range(8), a, a, a)
    kapi_ir = axpy_kapi.inspect_ir(dpk.Range(8), a, a, a)
    import re

    def strip(text, name):
        return re.sub(r' loc\([^)]*\)', '', text).replace(name, "K")
    assert strip(ocl, "axpy_ocl") == strip(kapi_ir, "axpy_kapi")
    assert "global_id 0" in ocl and "call @scaled" in ocl


def test_seed_examples_both_styles_identical(device):
    np.random.seed(1)
    data = np.random.rand(512)
    with dpk.device_context(device):
        # axpy through a shared device function
        c1, c2 = np.zeros(512), np.zeros(512)
        axpy_ocl[512, dppy.DEFAULT_LOCAL_SIZE](data, data, c1)
        dpk.call_kernel(axpy_kapi, dpk.Range(512), data, data, c2)
        np.testing.assert_allclose(c1, 3 * data)
        np.testing.assert_array_equal(c1, c2)
        # atomic sum
        ints = np.arange(512, dtype=np.int64)
        t1, t2 = np.zeros(1, np.int64), np.zeros(1, np.int64)
        atomic_sum_ocl[512, dppy.DEFAULT_LOCAL_SIZE](ints, t1)
        dpk.call_kernel(atomic_sum_kapi, dpk.Range(512), ints, t2)
        assert t1[0] == t2[0] == ints.sum()
        # local-memory reduction with barriers
        p1, p2 = np.zeros(8), np.zeros(8)
        group_sum_ocl[512, 64](data, p1)
        dpk.call_kernel(group_sum_kapi, dpk.NdRange(512, 64), data, p2,
                        dpk.LocalAccessor(64, np.float64))
        np.testing.assert_allclose(p1, data.reshape(8, 64).sum(axis=1))
        np.testing.assert_array_equal(p1, p2)


def test_opencl_style_in_pure_python_mode():
    np.random.seed(2)
    data = np.random.rand(256)
    c = np.zeros(256)
    kapi.call_kernel(axpy_ocl, kapi.Range(256), data, data, c)
    np.testing.assert_allclose(c, 3 * data)
    total = np.zeros(1, np.int64)
    kapi.call_kernel(atomic_sum_ocl, kapi.Range(100), np.arange(100, dtype=np.int64), total)
    assert total[0] == 4950
    partial = np.zeros(4)
    kapi.call_kernel(group_sum_ocl, kapi.NdRange(256, 64), data, partial)
    np.testing.assert_allclose(partial, data.reshape(4, 64).sum(axis=1))
    with pytest.raises(RuntimeError, match="only meaningful inside a kernel"):
        dppy.get_global_id(0)


@dppy.kernel
def ids_ocl(out):
    i = dppy.get_global_id(0)
    j = dppy.get_global_id(1)
    out[i, j, 0] = dppy.get_local_id(0) * 10 + dppy.get_local_id(1)
    out[i, j, 1] = dppy.get_group_id(0) * 10 + dppy.get_group_id(1)
    out[i, j, 2] = dppy.get_local_size(0) * 10 + dppy.get_local_size(1)
    out[i, j, 3] = dppy.get_num_groups(0) * 10 + dppy.get_num_groups(1)
    out[i, j, 4] = dppy.get_global_size(0) * 10 + dppy.get_global_size(1)
    out[i, j, 5] = dppy.get_work_dim() * 100 + dppy.get_global_id(2) + dppy.get_local_size(2)
    d = i % 2
    out[i, j, 6] = dppy.get_global_id(d)  # a run-time dimension


def test_opencl_ids_compiled_and_pure_python(device):
    compiled = np.zeros((4, 6, 7), np.int64)
    simulated = np.zeros((4, 6, 7), np.int64)
    with dpk.device_context(device):
        ids_ocl[(4, 6), (2, 3)](compiled)
    kapi.call_kernel(ids_ocl, kapi.NdRange((4, 6), (2, 3)), simulated)
    np.testing.assert_array_equal(compiled, simulated)
    assert tuple(compiled[3, 4]) == (11, 11, 23, 22, 46, 201, 4)


# ---- subscript launches ---------------------------------------------------------------------------

@dppy.kernel
def fill_ocl(out):
    i = dppy.get_global_id(0)
    j = dppy.get_global_id(1)
    out[i, j] = i * 100 + j + dppy.get_local_size(0) * 0


def test_every_subscript_launch_form(device):
    expected = np.arange(4)[:, None] * 100 + np.arange(6)[None, :]
    forms = [((4, 6), dppy.DEFAULT_LOCAL_SIZE), ((4, 6), []), ((4, 6), (2, 3)), ([4, 6], [2, 2]),
             (dpk.Range(4, 6),), (dpk.NdRange((4, 6), (4, 1)),), ((4, 6), None)]
    with dpk.device_context(device):
        for form in forms:
            out = np.zeros((4, 6), np.int64)
            fill_ocl[form if len(form) == 2 else form[0]](out)
            np.testing.assert_array_equal(out, expected, err_msg=repr(form))
        launch = vadd_ocl[16]  # kept and called twice
        a = np.arange(16.0)
        for _ in range(2):
            c = np.zeros(16)
            launch(a, a, c)
            np.testing.assert_array_equal(c, 2 * a)
        c = np.zeros(16)
        vadd_ocl[16, 4](a, a, c)  # two ints: global 16, local 4 (numba-dppy's reading)
        np.testing.assert_array_equal(c, 2 * a)
    with pytest.raises(dpk.InvalidRangeError):
        vadd_ocl[10, 3]
    with pytest.raises(dpk.KernelTypeError, match="DEFAULT_LOCAL_SIZE"):
        fill_ocl[4, 6, 2]
    with pytest.raises(TypeError, match=r"vadd_ocl\[global_size"):
        vadd_ocl(a, a, c)


def test_default_local_size_for_kernels_that_need_groups():
    assert not vadd_ocl.needs_groups() and group_sum_ocl.needs_groups()
    assert isinstance(vadd_ocl[100, dpk.DEFAULT_LOCAL_SIZE].range, dpk.Range)
    chosen = group_sum_ocl[512, dpk.DEFAULT_LOCAL_SIZE].range
    assert isinstance(chosen, dpk.NdRange) and chosen.local_range == (256,)
    assert kapi.NdRange((12, 10), kapi.work_items.choose_local_size((12, 10))) \
        if hasattr(kapi, "work_items") else True


# ---- kapi details -----------------------------------------------------------------------------------

@dpk.kernel
def dims_kernel(nd_item, out):
    g = nd_item.get_group()
    out[nd_item.get_global_linear_id()] = nd_item.dimensions * 100 + g.dimensions * 10


@dpk.kernel
def dims_item(item, out):
    out[item.get_linear_id()] = item.dimensions


def test_dimensions_is_a_property(device):
    out = np.zeros(12, np.int64)
    with dpk.device_context(device):
        dpk.call_kernel(dims_kernel, dpk.NdRange((3, 4), (1, 2)), out)
    assert (out == 220).all()
    kapi.call_kernel(dims_item, kapi.Range(2, 3, 2), out)
    assert (out == 3).all()


@dpk.device_func
def row_sum(row):
    s = row.dtype.type(0)
    for k in range(row.shape[0]):
        s += row[k]
    return s


@dpk.kernel
def row_views(item, m, out):
    i = item.get_id(0)
    row = m[i]
    out[i, 0] = row_sum(row)
    out[i, 1] = row_sum(m[i, :])
    out[i, 2] = row_sum(m[:, 1]) + len(row) * 1000
    out[i, 3] = row_sum(m[i, 1:4]) + m[i, 1:4].shape[0] * 1000
    out[i, 4] = row_sum(m[i][::-2]) + m[i][-1] * 1000
    view = m[1:, 2:]
    out[i, 5] = view[0, 0] + view.shape[0] * 100 + view.shape[1] * 1000
    part = out[i]
    part[6] = m[i][2]  # a store through a row view


def test_row_and_slice_views(device):
    m = np.arange(15, dtype=np.float64).reshape(3, 5)
    out = np.zeros((3, 7))
    with dpk.device_context(device):
        dpk.call_kernel(row_views, dpk.Range(3), m, out)
    reference = np.zeros((3, 7))
    kapi.call_kernel(row_views, kapi.Range(3), m, reference)
    np.testing.assert_array_equal(out, reference)
    np.testing.assert_array_equal(out[:, 0], m.sum(axis=1))
    np.testing.assert_array_equal(out[:, 3], m[:, 1:4].sum(axis=1) + 3000)
    np.testing.assert_array_equal(out[:, 6], m[:, 2])


@dppy.kernel
def local_rows(out):
    lid = dppy.get_local_id(0)
    tile = dppy.local.array((4, 3), np.int64)
    row = tile[lid]
    for j in range(3):
        row[j] = lid * 10 + j
    dppy.barrier(dppy.LOCAL_MEM_FENCE)
    out[dppy.get_global_id(0)] = tile[3 - lid][2] + dppy.atomic.max(tile[0], 1, 0) * 0


def test_row_views_of_local_memory(device):
    out = np.zeros(8, np.int64)
    with dpk.device_context(device):
        local_rows[8, 4](out)
    np.testing.assert_array_equal(out, [32, 22, 12, 2] * 2)


# ---- access types -------------------------------------------------------------------------------

ACCESS_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import dpk

    def body(a, b, c):
        i = dpk.get_global_id(0)
        c[i] = a[i] + b[i]

    plain = dpk.kernel(body)
    typed = dpk.kernel(access_types={"read_only": ["a", "b"], "write_only": ["c"]})(body)
    spelt = dpk.kernel(access_type={"read_only": ["a", "b"], "write_only": ["c"]})(body)
    out = {}
    a = np.arange(256, dtype=np.float32)
    for name, k in (("plain", plain), ("typed", typed), ("spelt", spelt)):
        c = np.full(256, -1, dtype=np.float32)
        with dpk.diagnostics.capture() as records:
            k[256, dpk.DEFAULT_LOCAL_SIZE](a, a, c)
        copies = [r["direction"] for r in records if r.get("event") == "transfer"]
        out[name] = {"h2d": copies.count("h2d"), "d2h": copies.count("d2h"),
                     "ok": bool((c == 2 * a).all())}
    print("RESULT", json.dumps(out))
""")


@pytest.mark.skipif("opencl:cpu" not in DEVICE_FILTERS, reason="needs a non-host device")
def test_access_types_skip_needless_copies(tmp_path):
    script = tmp_path / "access.py"
    script.write_text(ACCESS_SCRIPT)
    env = dict(os.environ, DPK_DIAGNOSTICS="3", DPK_DEVICE_SELECTOR="opencl:cpu",
               DPK_CACHE_DIR=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    import json
    result = json.loads(run.stdout.split("RESULT", 1)[1])
    # Without access types: a (passed twice, copied once) and c copied in, c copied back (the
    # only array written; dpk never copies back what the kernel cannot write).
    assert result["plain"] == {"h2d": 2, "d2h": 1, "ok": True}
    # write_only c is not copied in.
    assert result["typed"] == {"h2d": 1, "d2h": 1, "ok": True}
    assert result["spelt"] == result["typed"]


def test_access_types_are_checked():
    with pytest.warns(UserWarning, match="no parameter 'nope'"):
        dpk.kernel(access_types={"read_only": ["nope"]})(vadd_ocl.py_func)
    with pytest.warns(UserWarning, match="not an access type"):
        dpk.kernel(access_types={"read_twice": ["a"]})(vadd_ocl.py_func)
    # numba signatures are accepted (dpk compiles per argument types at the first launch)
    k = dpk.kernel("void(float32[:], float32[:], float32[:])")(vadd_ocl.py_func)
    assert isinstance(k, dpk.KernelDispatcher)


# ---- device_context ------------------------------------------------------------------------------

def test_device_context_nests_and_is_thread_local(core):
    import threading
    outer, inner = DEVICE_FILTERS[-1], DEVICE_FILTERS[0]
    seen = {}
    with dpk.device_context(outer) as d1:
        with dpk.device_context(inner) as d2:
            assert dpk.get_current_device() is d2
            worker = threading.Thread(
                target=lambda: seen.setdefault("thread", dpk.get_current_device()))
            worker.start()
            worker.join()
        assert dpk.get_current_device() is d1
    assert dpk.get_current_device() is dpk.default_device()
    assert seen["thread"] is dpk.default_device()
    with dpk.device_context(inner):  # dpk arrays still place a launch on their device
        a = dpk.asarray(np.arange(4.0), device=outer)
        dpk.call_kernel(vadd_kapi, dpk.Range(4), a, a, a)
        assert a.device is dpk.select_device(outer)
        np.testing.assert_array_equal(a.asnumpy(), [0, 2, 4, 6])


# ---- errors ---------------------------------------------------------------------------------------

def test_foreign_names_say_what_to_use():
    with pytest.raises(dpk.ForeignNameError, match="get_local_id"):
        dpk.threadIdx
    with pytest.raises(AttributeError, match="dpjit"):
        dpk.dpjit
    assert not hasattr(dpk, "syncthreads")
    with pytest.raises(AttributeError):
        dpk.no_such_name_anywhere

    @dpk.kernel
    def cuda_style(a):
        a[dpk.threadIdx.x] = 1

    with pytest.raises(dpk.KernelSyntaxError) as info:
        kapi_free = np.zeros(4)
        dpk.call_kernel(cuda_style, dpk.Range(4), kapi_free)
    assert "get_local_id" in info.value.hint


def test_forgotten_item_parameter_is_explained(core):
    @dpk.kernel
    def scale(a, factor, out):
        i = dpk.get_global_id(0)
        out[i] = a[i] * factor

    with pytest.raises(dpk.KernelTypeError) as info:  # the launch forgot `factor`
        dpk.call_kernel(scale, dpk.Range(4), np.ones(4), np.zeros(4))
    assert "first parameter 'a' is taken as the work-item" in str(info.value)

    @dpk.kernel
    def forgot(a, b):
        b[item.get_id(0)] = a[0]  # noqa: F821 - the item parameter is missing

    with pytest.raises(dpk.KernelSyntaxError, match="make it the kernel's first parameter"):
        dpk.call_kernel(forgot, dpk.Range(4), np.ones(4), np.zeros(4))


# ---- kernels without source -------------------------------------------------------------------------

REPL_INPUT = """\
import numpy as np
import dpk
@dpk.kernel
def vadd(a, b, c):
    i = dpk.get_global_id(0)
    if i < a.shape[0] and i >= 0:
        c[i] = a[i] + b[i]
    else:
        c[0] = -1

@dpk.kernel
def loops(item, x):
    i = item.get_id(0)
    s = 0
    for k in range(4):
        if k == 2:
            continue
        s += k
    while s > 0:
        s -= 1
        x[i] += 1
    x[i] = x[i] * 2 if i % 2 else x[i]

a = np.arange(8.0); c = np.zeros(8)
with dpk.device_context(DEVICE):
    vadd[8, dpk.DEFAULT_LOCAL_SIZE](a, a, c)

x = np.zeros(4)
with dpk.device_context(DEVICE):
    dpk.call_kernel(loops, dpk.Range(4), x)

print("RESULT", c.tolist(), x.tolist())
"""


def _run_python(args, stdin, tmp_path):
    env = dict(os.environ, DPK_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("PYTHONSTARTUP", None)
    return subprocess.run([sys.executable, *args], input=stdin, env=env, capture_output=True,
                          text=True, timeout=300, cwd=str(tmp_path))


def _result(run):
    assert run.returncode == 0, run.stdout + run.stderr
    line = [l for l in run.stdout.splitlines() if "RESULT" in l][0]
    return line.split("RESULT", 1)[1].strip()


def test_kernel_typed_into_an_interactive_session(device, tmp_path):
    run = _run_python(["-i"], REPL_INPUT.replace("DEVICE", repr(device.filter_string)), tmp_path)
    assert _result(run) == str([2.0 * i for i in range(8)]) + " " + str([4.0, 8.0, 4.0, 8.0])


def test_kernel_defined_by_exec(device, tmp_path):
    script = "src = " + repr(REPL_INPUT.replace("DEVICE", repr(device.filter_string))) + \
        "\nexec(src)\n"
    run = _run_python(["-c", script], None, tmp_path)
    assert _result(run).startswith("[0.0, 2.0")


def test_source_less_kernel_that_cannot_be_read_back(core, tmp_path):
    script = textwrap.dedent("""
        import numpy as np
        import dpk
        src = '''
        @dpk.kernel
        def odd(item, a):
            i = item.get_id(0)
            a[i] = 1 if (i > 2 and i < 5) or i == 0 else 0
        '''
        exec(src)
        try:
            dpk.call_kernel(odd, dpk.Range(8), np.zeros(8))
        except dpk.KernelSourceError as exc:
            print("TYPED", "notebook cell" in exc.hint)
        else:
            print("TYPED ran")
    """)
    run = _run_python(["-c", script], None, tmp_path)
    out = run.stdout + run.stderr
    assert "TYPED True" in out or "TYPED ran" in out, out
