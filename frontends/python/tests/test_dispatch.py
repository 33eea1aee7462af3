"""Specialization, caching (in process and on disk), async launches and thread safety."""

import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import dpk


def test_second_call_compiles_nothing(host):
    @dpk.kernel
    def k(item, a, s):
        a[item.get_id(0)] += s

    a = np.zeros(4)
    dpk.call_kernel(k, dpk.Range(4), a, 1.0)
    assert k.stats["compiles"] == 1
    dpk.call_kernel(k, dpk.Range(4), a, 2.0)
    dpk.call_kernel(k, dpk.Range(8), np.zeros(8), 3.0)  # same signature, other extent
    # One plan on the host; a device that needs copies adds the plan of its staged launch.
    assert k.stats["compiles"] == 1 and k.stats["plans"] <= 2
    assert (a == 3).all()
    # A new signature specializes again.
    dpk.call_kernel(k, dpk.Range(4), np.zeros(4, dtype=np.float32), 1.0)
    assert k.stats["compiles"] == 2


def test_specializations_by_dtype_rank_and_range(host):
    @dpk.kernel
    def k(item, a):
        a[0] = 1

    for dtype in (np.float32, np.float64, np.int32):
        x = np.zeros(3, dtype=dtype)
        dpk.call_kernel(k, dpk.Range(3), x)
        assert x[0] == 1
    dpk.call_kernel(k, dpk.NdRange(4, 2), np.zeros(4))   # range kind
    dpk.call_kernel(k, dpk.Range(2, 2), np.zeros(4))     # launch rank
    assert k.stats["compiles"] == 5


def test_eager_signatures(host):
    @dpk.kernel(signatures=[(dpk.Range(1), dpk.array_type(np.float32, 1), np.float32),
                            (dpk.NdRange(2, 2), dpk.array_type(np.int64, 1), int)])
    def k(item, a, v):
        a[0] = v

    assert k.stats["compiles"] == 2
    a = np.zeros(1, dtype=np.float32)
    dpk.call_kernel(k, dpk.Range(1), a, np.float32(2.5))
    b = np.zeros(1, dtype=np.int64)
    dpk.call_kernel(k, dpk.NdRange(2, 2), b, 7)
    assert a[0] == 2.5 and b[0] == 7
    assert k.stats["compiles"] == 2  # the launches compiled nothing new


def test_inspect_ir(host):
    @dpk.kernel
    def k(item, a):
        a[item.get_id(0)] = 2.0

    text = k.inspect_ir(dpk.Range(4), np.zeros(4, dtype=np.float32))
    assert "kernel @k(" in text and "view<global, f32, 1>" in text


DISK_CACHE_SCRIPT = textwrap.dedent("""
    import numpy as np
    import dpk

    @dpk.kernel
    def cached_kernel(item, a):
        a[item.get_id(0)] = a[item.get_id(0)] * 3 + 1

    with dpk.diagnostics.capture() as records:
        a = np.ones(16)
        dpk.call_kernel(cached_kernel, dpk.Range(16), a)
    assert (a == 4).all()
    events = [(r["event"], r.get("layer")) for r in records
              if r.get("event", "").startswith("cache.")]
    print("EVENTS", events)
""")


def test_second_process_hits_disk_cache(host, tmp_path):
    script = tmp_path / "cached.py"
    script.write_text(DISK_CACHE_SCRIPT)
    env = dict(os.environ, DPK_CACHE_DIR=str(tmp_path / "cache"), DPK_DIAGNOSTICS="2",
               DPK_DEVICE_SELECTOR="host")
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stdout + r.stderr
    first = [l for l in runs[0].stdout.splitlines() if l.startswith("EVENTS")][0]
    second = [l for l in runs[1].stdout.splitlines() if l.startswith("EVENTS")][0]
    assert "cache.miss" in first, first
    # The second process compiles nothing: its only cache event is a hit in the disk layer.
    assert "cache.hit" in second and "cache.miss" not in second, second
    assert "disk" in second, second


def test_call_kernel_async_and_dependencies(device):
    @dpk.kernel
    def inc(item, a):
        a[item.get_id(0)] += 1

    a = dpk.zeros(64, np.int64, device=device)
    e1 = dpk.call_kernel_async(inc, dpk.Range(64), [], a)
    e2 = dpk.call_kernel_async(inc, dpk.Range(64), [e1], a)
    e3 = dpk.call_kernel_async(inc, dpk.Range(64), [e2], a)
    e3.wait()
    assert (a.asnumpy() == 3).all()


def test_async_keeps_numpy_arguments_alive(host):
    @dpk.kernel
    def fill(item, a):
        a[item.get_id(0)] = 5

    out = np.zeros(1000)
    ev = dpk.call_kernel_async(fill, dpk.Range(1000), None, out)
    ev.wait()
    assert (out == 5).all()


def test_thread_safety(device):
    @dpk.kernel
    def scale(item, a, f):
        a[item.get_id(0)] = a[item.get_id(0)] * f

    errors = []
    results = {}

    def worker(t):
        try:
            for rep in range(20):
                dtype = np.float32 if t % 2 else np.float64
                x = dpk.asarray(np.full(128, t + 1, dtype=dtype), device=device)
                dpk.call_kernel(scale, dpk.Range(128), x, 2.0)
                results[(t, rep)] = x.asnumpy()
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for (t, _), r in results.items():
        assert (r == 2 * (t + 1)).all()
    assert scale.stats["compiles"] == 2


def test_compiler_reports_written_arrays(host):
    @dpk.device_func
    def put(arr, i, v):
        arr[i] = v

    @dpk.kernel
    def k(item, a, b, c, d, e):
        i = item.get_id(0)
        c[i] = a[i] + b[i]
        dpk.AtomicRef(d, 0).fetch_add(1)
        put(e, i, a[i])

    arr = dpk.array_type(np.float32, 1)
    ints = dpk.array_type(np.int32, 1)
    compiled = k.compile((dpk.Range(1), arr, arr, arr, ints, arr))
    # Only written arrays are copied back from devices that need copies.
    assert compiled.written == {2, 3, 4}


def test_numba_dpex_decorator_options_are_accepted(host):
    @dpk.kernel(debug=True, inline_threshold=3)
    def k(item, a):
        a[item.get_id(0)] = 1

    a = np.zeros(2)
    dpk.call_kernel(k, dpk.Range(2), a)
    assert (a == 1).all()
    with pytest.raises(TypeError, match="unexpected options"):
        dpk.kernel(nonsense=1)


def test_async_on_a_copying_device_and_read_only_inputs(device):
    @dpk.kernel(device=device.filter_string)
    def axpy(item, x, y, out):
        i = item.get_id(0)
        out[i] = 2 * x[i] + y[i]

    x = np.arange(8, dtype=np.float32)
    x.flags.writeable = False  # inputs may be read-only
    y = np.ones(8, dtype=np.float32)
    out = np.zeros(8, dtype=np.float32)
    e1 = dpk.call_kernel_async(axpy, dpk.Range(8), [], x, y, out)
    e2 = dpk.call_kernel_async(axpy, dpk.Range(8), [e1], x, y, out)
    e2.wait()
    np.testing.assert_array_equal(out, 2 * x + 1)
