"""Automatic fusion: how many kernels a chain launches, kernel-cache hits in a loop, results
equal to the unfused path, lazy results never observing later writes, the disk cache in a new
process, diagnostics of fusion groups.

These tests are about the graph: operations on small arrays, which run at once
(dpk/arrays/immediate.py, tested in test_array_immediate.py), are switched off here."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk
from dpk.arrays import fusion, immediate
from dpk.arrays.generated import STATS
from dpk.arrays.immediate import launch_count

from array_helpers import assert_matches, to_dpk


@pytest.fixture(autouse=True)
def graph_only():
    limit = immediate.max_elements()
    immediate.set_max_elements(0)
    yield
    immediate.set_max_elements(limit)


@pytest.fixture
def unfused():
    fusion.set_enabled(False)
    yield
    fusion.set_enabled(True)


def _launches(fn):
    before = launch_count()
    result = fn()
    if isinstance(result, dpk.Array):
        result._materialize()
    return launch_count() - before, result


def _operands(device, n=1000, dtype=np.float32):
    rng = np.random.default_rng(7)
    host = [rng.standard_normal(n).astype(dtype) for _ in range(5)]
    return host, [to_dpk(h, device) for h in host]


def test_chain_is_one_kernel(device):
    (a, b, c, d, e), (da, db, dc, dd, de) = _operands(device)
    count, r = _launches(lambda: da * db + dc * dd - de)
    assert count == 1
    # a * b + c * d may become one FMA: within an ulp of the products' magnitude
    assert_matches(r, a * b + c * d - e, rtol=1e-6, atol=1e-6)


def test_unfused_chain_is_one_kernel_per_op(device, unfused):
    (a, b, c, d, e), (da, db, dc, dd, de) = _operands(device)
    count, r = _launches(lambda: da * db + dc * dd - de)
    assert count == 4
    assert_matches(r, a * b + c * d - e, rtol=1e-6)


def test_fused_and_unfused_agree_bitwise_for_integers(device):
    x = to_dpk(np.arange(-50, 50, dtype=np.int32), device)

    def expr():
        return ((x * 7 + 3) // 5 - x % 4) ** 2 ^ (x << 2)
    fused = expr().asnumpy()
    fusion.set_enabled(False)
    try:
        unfused_ = expr().asnumpy()
    finally:
        fusion.set_enabled(True)
    np.testing.assert_array_equal(fused, unfused_)


def test_reduction_consumes_its_producer(device):
    (a, b, *_), (da, db, *_) = _operands(device, n=1 << 16)
    count, s = _launches(lambda: dpk.sum((da - db) ** 2))
    fusion.set_enabled(False)
    try:
        unfused_count, s2 = _launches(lambda: dpk.sum((da - db) ** 2))
    finally:
        fusion.set_enabled(True)
    assert count == unfused_count - 2  # subtract and square run inside the reduction
    ref = float(((a.astype(np.float64) - b) ** 2).sum())
    assert abs(float(s) - ref) < 1e-4 * ref and abs(float(s2) - ref) < 1e-4 * ref


def test_loop_builds_each_kernel_once(device):
    x = to_dpk(np.arange(100, dtype=np.float64), device)
    (x * 1.5 + 1.0)._materialize()  # warm
    builds = STATS["builds"]
    for i in range(20):
        y = to_dpk(np.arange(10 + i, dtype=np.float64), device)
        (y * float(i) + 2.0)._materialize()  # new sizes and scalar values, same graph
    assert STATS["builds"] == builds


def test_elementwise_launches_of_one_shape_reuse_their_recipe(device):
    # fusion._recipes: a graph of one shape is planned once; each call's memory and scalars
    x, y = (to_dpk(np.arange(40, dtype=np.int64) * k, device) for k in (1, 3))
    assert_matches(x * 2 + 1, np.arange(40) * 2 + 1)
    recipes = len(fusion._recipes)
    for i in range(5):
        assert_matches(y * i + x, np.arange(40) * 3 * i + np.arange(40))
        assert_matches(x * (i + 7) + 1, np.arange(40) * (i + 7) + 1)
    assert len(fusion._recipes) == recipes + 1  # y * i + x; x * c + 1 was planned before
    assert_matches(x[::2] * 2 + 1, np.arange(0, 40, 2) * 2 + 1)  # a strided view: a new one
    assert len(fusion._recipes) == recipes + 2


def test_reductions_of_one_shape_reuse_their_recipe(device):
    # A reduction's geometry and kernels are computed once per shape (reduction._recipes); the
    # memory, scalar values and results are each call's own.
    from dpk.arrays import reduction
    rng = np.random.default_rng(5)
    hosts = [rng.integers(-50, 50, (300, 70)).astype(np.int64) for _ in range(3)]
    arrays = [to_dpk(h, device) for h in hosts]
    assert_matches(dpk.sum(arrays[0] * 2, axis=1), np.sum(hosts[0] * 2, axis=1))
    recipes = len(reduction._recipes)
    for i, (h, a) in enumerate(zip(hosts, arrays)):
        assert_matches(dpk.sum(a * (i + 2), axis=1), np.sum(h * (i + 2), axis=1))
        assert int(dpk.sum(a - i)) == int(np.sum(h - i))
    assert len(reduction._recipes) == recipes + 1  # the full sum's, once
    assert_matches(dpk.sum(arrays[0][:, :35] * 2, axis=1), np.sum(hosts[0][:, :35] * 2, axis=1))
    assert len(reduction._recipes) == recipes + 2  # another shape, another recipe


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "float32", "float64",
                                   "complex64"])
def test_whole_array_reductions_take_the_leaf_shortcut(device, dtype, monkeypatch):
    # A materialized array's second sum/prod/min/max over every axis comes straight from its
    # leaf's memo (statistical_functions._whole): the same dtype, shape and bits as the general
    # path, the array's current values, and the general path whenever the memo does not apply.
    from dpk.arrays import reduction, statistical_functions as SF
    host = np.resize(np.array([3, 0, 7, 1, 5, 2], dtype=dtype), 2000)
    x = to_dpk(host, device)
    # (complex prod is a tree of multiplications, not a reduction kernel: no memo to take)
    names = ["sum"] if dtype == "complex64" else ["sum", "prod", "min", "max"]
    if dtype == "bool":
        names.remove("prod")
    assert SF._whole(x, "sum", SF._sum_dtype(x, None)) is None  # nothing memoized yet
    for name in names:
        fn = getattr(dpk, name)
        acc = SF._sum_dtype(x, None) if name in ("sum", "prod") else x.dtype
        general = fn(x, axis=tuple(range(x.ndim)))     # an explicit axis: the general path
        first = fn(x)                                  # memoizes (the general path again)
        taken = SF._whole(x, name, acc)
        assert taken is not None, f"{name}: no shortcut after a first call"
        for got in (first, taken, fn(x)):
            assert got.shape == () and got.dtype == general.dtype and got.device is device
            assert got.asnumpy().tobytes() == general.asnumpy().tobytes(), name
    x[0] = 9 if dtype != "bool" else False              # the memo holds the address, not values
    host = host.copy()
    host[0] = 9 if dtype != "bool" else False
    assert_matches(dpk.sum(x), np.sum(host, dtype=SF._sum_dtype(x, None)))
    # what the memo does not cover takes the general path
    monkeypatch.setattr(reduction, "UNROLL", 8)          # a knob the recipes depend on
    assert SF._whole(x, "sum", SF._sum_dtype(x, None)) is None
    assert_matches(dpk.sum(x), np.sum(host, dtype=SF._sum_dtype(x, None)))
    lazy = x + x if dtype != "bool" else x & x
    assert SF._whole(lazy, "sum", SF._sum_dtype(x, None)) is None
    assert SF._whole(x[::2], "sum", SF._sum_dtype(x, None)) is None  # a view: its own leaf


def test_whole_array_reductions_report_at_level_2(device, tmp_path):
    # The shortcut reports nothing, so diagnostics at level 2 take the general path, which lists
    # each reduction's fusion group: two sums of one array, two records.
    code = textwrap.dedent(f"""
        import numpy as np, dpk
        x = dpk.asarray(np.arange(100.0), device=dpk.select_device({device.filter_string!r}))
        with dpk.diagnostics.capture() as records:
            float(dpk.sum(x)); float(dpk.sum(x))
        print("OPS", [r["ops"] for r in records if r.get("event") == "arrays.fusion"])
    """)
    env = dict(os.environ, DPK_DIAGNOSTICS="2", DPK_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "OPS ['sum(copy)', 'sum(copy)']" in out.stdout, out.stdout + out.stderr


def test_lazy_results_do_not_see_later_writes(device):
    x = to_dpk(np.arange(6, dtype=np.int64), device)
    y = x + 1                      # lazy, reads x
    z = x[::2] * 10                # lazy, reads a view of x
    x[0] = 100                     # setitem: y and z are computed first
    x += 5                         # in-place write
    assert_matches(y, np.arange(6) + 1)
    assert_matches(z, np.arange(0, 6, 2) * 10)
    assert_matches(x, np.array([105, 6, 7, 8, 9, 10]))


def test_lazy_results_do_not_see_kernel_writes(device):
    @dpk.kernel
    def bump(item, a):
        a[item.get_id(0)] += 1

    x = to_dpk(np.zeros(4, np.int32), device)
    y = x * 3 + 1
    dpk.call_kernel(bump, dpk.Range(4), x)
    assert_matches(y, np.ones(4, np.int32))
    assert_matches(x, np.ones(4, np.int32))


def test_inplace_with_a_lazy_value_reading_itself(device):
    x = to_dpk(np.arange(5, dtype=np.float64), device)
    y = x * 2
    x += y
    assert_matches(x, np.arange(5) * 3.0)
    assert_matches(y, np.arange(5) * 2.0)


def test_shared_subexpression_computed_once(device):
    x = to_dpk(np.arange(8, dtype=np.float32), device)
    t = x * 2 + 1
    count, (u, v) = _launches(lambda: (t._materialize(), (t + 1, t * 3)))[0], (t + 1, t * 3)
    assert count == 1
    assert _launches(lambda: u)[0] == 1 and _launches(lambda: v)[0] == 1  # t is a leaf now


def test_graph_size_is_bounded(device):
    x = to_dpk(np.ones(16, np.float64), device)
    y = x
    for _ in range(200):
        y = y + x
    assert y._node.count <= fusion.MAX_NODES
    assert float(dpk.sum(y)) == 16 * 201


def test_fusion_diagnostics_name_the_source_line(tmp_path):
    script = tmp_path / "fused.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import dpk
        with dpk.diagnostics.capture() as records:
            a = dpk.asarray(np.ones(8, np.float32), device="host")
            b = a * 2 + 1  # LINE-B
            b._materialize()
            c = a + np.ones(8, np.float32)  # a NumPy operand: copied to a's device
            c._materialize()
        fusion = [r for r in records if r.get("event") == "arrays.fusion"][:1]
        copies = [r for r in records if r.get("event") == "arrays.implicit_copy"]
        print("FUSION", fusion)
        print("COPIES", copies)
    """))
    env = dict(os.environ, DPK_DIAGNOSTICS="3", DPK_CACHE_DIR=str(tmp_path / "c"))
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    line = [l for l in run.stdout.splitlines() if l.startswith("FUSION")][0]
    assert "multiply add" in line and "fused.py:6" in line, line
    copies = [l for l in run.stdout.splitlines() if l.startswith("COPIES")][0]
    assert "'bytes': 32" in copies and "host" in copies, copies
    # DPK_FUSION=0: one kernel per operation
    env["DPK_FUSION"] = "0"
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    line = [l for l in run.stdout.splitlines() if l.startswith("FUSION")][0]
    assert "multiply add" not in line and "'ops': 'multiply'" in line, line
    # The policy file's arrays.fusion: false does the same; DPK_FUSION=1 wins over it.
    del env["DPK_FUSION"]
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\narrays:\n  fusion: false\n")
    env["DPK_CONFIG"] = str(policy)
    for variable, fused in ((None, False), ("1", True)):
        if variable is not None:
            env["DPK_FUSION"] = variable
        run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        line = [l for l in run.stdout.splitlines() if l.startswith("FUSION")][0]
        assert ("multiply add" in line) == fused, (variable, line)


def test_bad_fusion_setting_is_a_policy_error(tmp_path):
    env = dict(os.environ, DPK_FUSION="sometimes", DPK_CACHE_DIR=str(tmp_path / "c"))
    script = "import dpk, numpy as np\nprint(dpk.asarray(np.ones(2), device='host') + 1)\n"
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode != 0
    assert "DPK_FUSION" in run.stderr and "sometimes" in run.stderr, run.stderr


DISK_SCRIPT = textwrap.dedent("""
    import numpy as np
    import dpk
    with dpk.diagnostics.capture() as records:
        a = dpk.asarray(np.arange(64, dtype=np.float32), device="host")
        print("SUM", float(dpk.sum(dpk.sqrt(a) * 3 - 1)))
    print("EVENTS", [(r["event"], r.get("layer")) for r in records
                     if r.get("event", "").startswith("cache.")])
""")


def test_second_process_finds_array_kernels_on_disk(tmp_path):
    script = tmp_path / "disk.py"
    script.write_text(DISK_SCRIPT)
    env = dict(os.environ, DPK_CACHE_DIR=str(tmp_path / "cache"), DPK_DIAGNOSTICS="2")
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    second = [l for l in runs[1].stdout.splitlines() if l.startswith("EVENTS")][0]
    assert "cache.hit" in second and "cache.miss" not in second, second


def test_gpu_launch_shapes_on_every_device(device, monkeypatch):
    # The flat, padded launches GPUs get (fusion.LaunchShape), run here on any device.
    monkeypatch.setattr(fusion, "FLAT_LAUNCHES", True)
    x = np.arange(2 * 3 * 5 * 7, dtype=np.float64).reshape(2, 3, 5, 7)
    d = to_dpk(x, device)
    assert_matches(d[:, ::2, :, ::-1] * 2 + 1, x[:, ::2, :, ::-1] * 2 + 1)
    assert_matches(dpk.sum(d, axis=(0, 2)), x.sum(axis=(0, 2)), rtol=1e-12)
    assert_matches(dpk.cumulative_sum(d, axis=1), np.cumsum(x, axis=1))
    assert_matches(d[d > 100], x[x > 100])
    idx = to_dpk(np.array([1, 0, 1]), device)
    assert_matches(d[idx, 2], x[[1, 0, 1], 2])
    assert_matches(dpk.searchsorted(d[0, 0, 0], to_dpk(np.array([3.5, 100.0]), device)),
                   np.searchsorted(x[0, 0, 0], [3.5, 100.0]))


def test_gpu_work_group_scans_on_every_device(device, monkeypatch):
    # The work-group scan GPUs use (scan.py), run here on any device.
    from dpk.arrays import reduction, scan
    monkeypatch.setattr(scan, "GROUP_SCANS", True)
    for n in (1, 63, 64, 65, 5000, 300_001):
        x = np.random.default_rng(n).integers(-9, 9, n).astype(np.int64)
        assert_matches(dpk.cumulative_sum(to_dpk(x, device)), np.cumsum(x))
    # items scanning 3 elements a tile: tiles not a power of two, and the part totals' own
    # exclusive scan spanning several tiles
    monkeypatch.setattr(scan, "GROUP_SCAN_ITEMS", 3)
    monkeypatch.setattr(reduction, "_target_parallelism", lambda device: (4096, 4096))
    x = np.random.default_rng(7).integers(-9, 9, 1_000_003).astype(np.int32)
    assert_matches(dpk.cumulative_sum(to_dpk(x, device) + 1, dtype=dpk.int64),
                   np.cumsum(x.astype(np.int64) + 1))
    m = np.arange(35, dtype=np.float64).reshape(5, 7) % 4 + 1
    dm = to_dpk(m, device)
    assert_matches(dpk.cumulative_prod(dm, axis=1, include_initial=True),
                   np.concatenate([np.ones((5, 1)), np.cumprod(m, axis=1)], axis=1))
    mask = (np.arange(1000) % 7) == 3
    assert_matches(dpk.nonzero(to_dpk(mask, device))[0], np.nonzero(mask)[0])


def test_chained_single_pass_scans_on_cpu_devices(device, monkeypatch):
    # CPUs scan long contiguous rows in one pass, chunk after chunk (scan.py's chained scan);
    # short chunks here make every row many chunks, and a row's last chunk a partial one.
    if device.device_type != "cpu":
        pytest.skip("the chained scan is the CPU devices' path (scan.py)")
    from dpk.arrays import generated, scan
    monkeypatch.setattr(scan, "CHAIN_CHUNK", 64)
    rng = np.random.default_rng(12)
    for n in (65, 128, 1000, 5003):
        x = rng.integers(-9, 9, n).astype(np.int64)
        dx = to_dpk(x, device)
        assert_matches(dpk.cumulative_sum(dx), np.cumsum(x))
        assert_matches(dpk.cumulative_sum(dx * 2 + 1, include_initial=True),
                       np.concatenate([[0], np.cumsum(x * 2 + 1)]))
    assert any(k[0] == "cscan" for k in generated._cache), "long rows did not take the chain"
    # rows of a matrix (one chain per row), the producer fused, a broadcast operand
    m = rng.integers(0, 5, (6, 333)).astype(np.int32)
    col = rng.integers(0, 3, (6, 1)).astype(np.int32)
    dm, dcol = to_dpk(m, device), to_dpk(col, device)
    assert_matches(dpk.cumulative_sum(dm, axis=1), np.cumsum(m, axis=1))
    assert_matches(dpk.cumulative_sum(dm - dcol, axis=1), np.cumsum(m - col, axis=1))
    assert_matches(dpk.cumulative_prod(dm % 2 + 1, axis=1, dtype=dpk.int64),
                   np.cumprod(m % 2 + 1, axis=1, dtype=np.int64))
    assert_matches(dpk.cumulative_sum(dm, axis=0), np.cumsum(m, axis=0))  # not contiguous
    mask = (np.arange(7000) % 7) == 3
    assert_matches(dpk.nonzero(to_dpk(mask, device))[0], np.nonzero(mask)[0])
    # floats: the grouping fixes the order of every sum, so repeated runs agree bit for bit,
    # and nontemporal stores (large results) write the same values
    f = rng.standard_normal(4099).astype(np.float32)
    df = to_dpk(f, device)
    first = dpk.asnumpy(dpk.cumulative_sum(df))
    for _ in range(3):
        np.testing.assert_array_equal(dpk.asnumpy(dpk.cumulative_sum(df)), first)
    np.testing.assert_allclose(first, np.cumsum(f.astype(np.float64)), rtol=1e-4, atol=1e-3)
    monkeypatch.setattr(scan, "NONTEMPORAL_BYTES", 0)
    np.testing.assert_array_equal(dpk.asnumpy(dpk.cumulative_sum(df)), first)
    assert_matches(dpk.cumulative_sum(dm, axis=1), np.cumsum(m, axis=1))
    assert any(k[0] == "cscan" and k[-1] for k in generated._cache), "no nontemporal scan built"


def test_gpu_matmul_kernel_on_every_device(device, monkeypatch):
    # The local-memory tiled matmul GPUs use (16 x 16 items, 4 x 4 elements each), run here.
    from dpk.arrays import matmul
    monkeypatch.setattr(matmul, "CPU_PANELS", False)
    monkeypatch.setattr(matmul, "_config", lambda dev, dtype: (16, 4))
    rng = np.random.default_rng(9)
    for sa, sb in (((70, 33), (33, 130)), ((2, 5, 64), (64, 3)), ((1, 1), (1, 1))):
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        assert_matches(to_dpk(a, device) @ to_dpk(b, device), a @ b, rtol=1e-4, atol=1e-5)
    i = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert_matches(to_dpk(i, device) @ to_dpk(i.T.copy(), device), i @ i.T)


def test_gpu_reduction_trees_on_every_device(device, monkeypatch):
    from dpk.arrays import reduction
    monkeypatch.setattr(reduction, "TREE_REDUCTIONS", True)
    x = np.random.default_rng(10).standard_normal((37, 1000))
    d = to_dpk(x, device)
    assert_matches(dpk.sum(d, axis=1), x.sum(axis=1), rtol=1e-12)
    assert_matches(dpk.sum(d), np.array(x.sum()), rtol=1e-12)
    assert_matches(dpk.argmax(d, axis=1), np.argmax(x, axis=1))
    assert_matches(dpk.min(d[:, ::3], axis=1), x[:, ::3].min(axis=1))


@pytest.mark.parametrize("unroll", [2, 4])
def test_unrolled_reduction_loops_fold_in_the_same_order(device, monkeypatch, unroll):
    """GPUs issue several steps' loads at once (reduction.UNROLL); the fold keeps its order, so
    integer, min/max and arg results are the same bits as one step at a time, on every
    layout (inner tiles, exact and ragged outer parts, several reduced axes)."""
    from dpk.arrays import reduction
    rng = np.random.default_rng(11)
    cases = [((1 << 16) + 37, None), ((333, 517), 0), ((333, 517), 1), ((5, 7, 300), (0, 2)),
             ((4096, 3), 0)]
    results = {}
    for setting in (1, unroll):
        monkeypatch.setattr(reduction, "UNROLL", setting)
        got = []
        for shape, axis in cases:
            ints = to_dpk(rng.integers(-1000, 1000, shape).astype(np.int64), device)
            floats = to_dpk(rng.standard_normal(shape).astype(np.float32), device)
            got.append(dpk.asnumpy(dpk.sum(ints * 3 - 1, axis=axis)))
            got.append(dpk.asnumpy(dpk.max(floats, axis=axis)))
            if axis is None or isinstance(axis, int):
                got.append(dpk.asnumpy(dpk.argmin(floats, axis=axis)))
            got.append(dpk.asnumpy(dpk.sum(floats, axis=axis)))
        results[setting] = got
        rng = np.random.default_rng(11)
    for one, many in zip(results[1], results[unroll]):
        if one.dtype.kind == "f":  # the host compiler may contract a * b + acc differently
            np.testing.assert_allclose(many, one, rtol=1e-5, atol=1e-4)
        else:
            np.testing.assert_array_equal(many, one)


def _newest_recipe(recipes):
    return list(recipes.values())[-1]


def test_vector_layout_reductions_on_every_device(device, monkeypatch):
    """GPUs' inner reductions give each item neighbouring elements and read them with vector
    loads where addresses allow (reduction.VECTOR_LAYOUT), run here on any device: results
    match NumPy, and an unaligned view sums to the same bits as its aligned copy (the layout,
    hence the fold order, does not depend on addresses)."""
    from dpk.arrays import reduction
    monkeypatch.setattr(reduction, "VECTOR_LAYOUT", True)
    rng = np.random.default_rng(5)
    for n in (1, 5, 1023, 4096 + 3, (1 << 16) + 37):
        x = rng.standard_normal(n + 1).astype(np.float32)
        d = to_dpk(x, device)
        view = d[1:]
        copy = to_dpk(np.ascontiguousarray(x[1:]), device)
        np.testing.assert_array_equal(dpk.asnumpy(dpk.sum(view)), dpk.asnumpy(dpk.sum(copy)))
        assert_matches(dpk.sum(view), np.array(x[1:].sum(dtype=np.float64)), rtol=1e-4)
        ints = rng.integers(-1000, 1000, n + 1).astype(np.int32)
        di = to_dpk(ints, device)
        assert_matches(dpk.sum(di[1:]), np.array(ints[1:].sum()))
        assert_matches(dpk.max(d), np.array(x.max()))
        a = rng.standard_normal(n + 1)
        assert_matches(dpk.sum((to_dpk(a, device)[1:] - d[:-1]) ** 2),
                       np.array(((a[1:] - x[:-1]) ** 2).sum()), rtol=1e-5)
    for cols in (64, 67):  # rows that start aligned, and rows that do not
        m = rng.standard_normal((9, cols)).astype(np.float32)
        assert_matches(dpk.sum(to_dpk(m, device), axis=1), m.sum(axis=1), rtol=1e-5)
        assert_matches(dpk.argmax(to_dpk(m, device), axis=1), np.argmax(m, axis=1))


def test_vector_loads_promise_alignment_only_where_addresses_allow(device, monkeypatch):
    from dpk.arrays import reduction
    monkeypatch.setattr(reduction, "VECTOR_LAYOUT", True)
    d = to_dpk(np.ones(1 << 16, dtype=np.float32), device)
    dpk.sum(d)
    assert "load aligned 16" in _newest_recipe(reduction._recipes).steps[0].kernel.ir
    dpk.sum(d[1:])
    assert "aligned" not in _newest_recipe(reduction._recipes).steps[0].kernel.ir
    m = to_dpk(np.ones((8, 66), dtype=np.float32), device)  # rows 264 bytes apart
    dpk.sum(m, axis=1)
    assert "aligned" not in _newest_recipe(reduction._recipes).steps[0].kernel.ir


def test_vector_elementwise_on_every_device(device, monkeypatch):
    """GPUs give each item of a long contiguous elementwise launch neighbouring elements,
    loaded and stored as vectors where addresses allow (fusion.VECTOR_ELEMENTWISE), run here
    on any device: every tail length, unaligned views, an output that is also an input,
    complex, bool and mixed dtypes match NumPy."""
    monkeypatch.setattr(fusion, "VECTOR_ELEMENTWISE", True)
    monkeypatch.setattr(fusion, "FLAT_LAUNCHES", True)
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 4, 5, 7, 8, 9, 1027):
        a = rng.standard_normal(n + 1).astype(np.float32)
        b = rng.standard_normal(n + 1)
        da, db = to_dpk(a, device), to_dpk(b, device)
        assert_matches(da * 2 + db, a * 2 + b)
        assert_matches(da[1:] * 2 + db[:-1], a[1:] * 2 + b[:-1])
        assert_matches(da > 0, a > 0)
        c = rng.standard_normal(n) + 1j * rng.standard_normal(n)
        assert_matches(to_dpk(c, device) * 2, c * 2)
        inplace = to_dpk(a, device)
        inplace[1:] += inplace[1:]
        expected = a.copy()
        expected[1:] += expected[1:]
        assert_matches(inplace, expected)
    d = to_dpk(np.ones(1 << 10, dtype=np.float32), device)
    out = d * 3
    out._materialize()
    kernels = list(_newest_recipe(fusion._recipes).kernels.values())
    assert any("load aligned 16" in k.ir and "store aligned 16" in k.ir for k in kernels)


@pytest.mark.parametrize("tree", [True, False])
def test_single_pass_reductions_on_every_device(device, monkeypatch, tree):
    """GPU reductions in parts finish in one launch, the last group of each output element
    combining its partials (reduction.SINGLE_PASS), run here on any device with both group
    folds: one launch per reduction, the two-pass results (bit for bit where exact), the same
    bits on every repeat (the counters are reset for the next launch), and NumPy's answers."""
    from dpk.arrays import reduction
    monkeypatch.setattr(reduction, "TREE_REDUCTIONS", tree)
    monkeypatch.setattr(reduction, "CPU_MIN_PART", 64)  # many parts of small inputs
    rng = np.random.default_rng(23)
    x = rng.standard_normal(50_000).astype(np.float32)
    m = rng.standard_normal((3, 20_001)).astype(np.float32)
    ints = rng.integers(-1000, 1000, 40_000).astype(np.int64)
    flags = x > 2.5
    z = (x[:4000] + 1j * x[4000:8000]).astype(np.complex64)
    dx, dm, di, dflags, dz = (to_dpk(h, device) for h in (x, m, ints, flags, z))
    cases = [
        (lambda: dpk.sum(dx), np.array(x.sum(dtype=np.float64)), 1e-4),
        (lambda: dpk.sum((dx - 1) ** 2), np.array(((x - 1.0) ** 2).sum(dtype=np.float64)), 1e-5),
        (lambda: dpk.sum(dm, axis=1), m.sum(axis=1, dtype=np.float64), 1e-4),
        (lambda: dpk.max(dx), np.array(x.max()), 0),
        (lambda: dpk.argmin(dm, axis=1), np.argmin(m, axis=1), 0),
        (lambda: dpk.sum(di), np.array(ints.sum()), 0),
        (lambda: dpk.any(dflags), np.array(flags.any()), 0),
        (lambda: dpk.all(dflags), np.array(flags.all()), 0),
        (lambda: dpk.sum(dz), np.array(z.sum(dtype=np.complex128)), 1e-4),
    ]
    for fn, want, rtol in cases:
        monkeypatch.setattr(reduction, "SINGLE_PASS", False)
        two_pass = dpk.asnumpy(fn())
        monkeypatch.setattr(reduction, "SINGLE_PASS", True)
        launches, result = _launches(fn)
        assert launches == 1
        assert _newest_recipe(reduction._recipes).single  # in parts, finished in one launch
        first = dpk.asnumpy(result)
        for _ in range(3):
            np.testing.assert_array_equal(dpk.asnumpy(fn()), first)
        if rtol:
            np.testing.assert_allclose(first, two_pass, rtol=1e-5)
            assert_matches(result, want, rtol=rtol)
        else:
            np.testing.assert_array_equal(first, two_pass)
            assert_matches(result, want)
    counters = reduction._counter_buffers[device]
    view = dpk.Array._view(counters, 0, (reduction.COUNTER_SLOTS,), (1,), np.dtype(np.int32),
                           device)
    np.testing.assert_array_equal(dpk.asnumpy(view), 0)
