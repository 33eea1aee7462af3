"""@dpk.jit's per-region fallback (warn / allow / deny, from the decorator and from the policy)
and its offload diagnostics at each level (docs/jit.md). Failures are forced with the
execution module's test hooks (FORCED_FAILURES, SIMULATED_NO_FP64) or with constructs the
kernel compiler refuses."""

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import dpk
from dpk import prange
from dpk.autopar import execution
from dpk.autopar import JitFallbackWarning


def scale_into(a, out):
    for i in prange(a.shape[0]):  # REGION-LINE
        out[i] = a[i] * 2


def total_of(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


def python_only(x):
    return x + 1


def uses_plain_python_call(a, out):
    for i in prange(a.shape[0]):
        out[i] = python_only(a[i])  # NOT-A-DEVICE-FUNCTION


def reads_a_list(a, weights, out):
    for i in prange(a.shape[0]):
        out[i] = a[i] * weights[i % 2]


REGION_LINE = next(i for i, line in enumerate(open(__file__), 1) if "# REGION-LINE" in line)
CALL_LINE = next(i for i, line in enumerate(open(__file__), 1)
                 if "# NOT-A-DEVICE-FUNCTION" in line)


@pytest.fixture
def forced(device):
    """Makes every region fail on `device` (and records the hook for cleanup)."""
    execution.FORCED_FAILURES[device.filter_string] = "injected failure"
    yield device
    execution.FORCED_FAILURES.clear()
    execution.SIMULATED_NO_FP64.clear()


def run(fn, device, *args):
    with dpk.device_context(device):
        return fn(*args)


def test_warn_runs_on_host_with_a_warning(forced):
    f = dpk.jit(fallback="warn")(scale_into)
    a, out = np.arange(10.0), np.zeros(10)
    with pytest.warns(JitFallbackWarning) as caught:
        run(f, forced, a, out)
    np.testing.assert_allclose(out, 2 * a)
    message = str(caught[0].message)
    assert "scale_into() region 0" in message
    assert f"{__file__}:{REGION_LINE}-{REGION_LINE + 1}" in message
    assert f"could not run on {forced.filter_string} (injected failure)" in message
    last = f.inspect_regions()[0]["last_run"]
    assert last["fallback"] and last["reason"] == "injected failure"
    # the host backend when the device was not the host, else the region's own Python
    assert last["device"] == "host:cpu:0"
    assert last["how"] == ("python" if forced.is_host else "kernel")


def test_allow_is_silent(forced):
    f = dpk.jit(fallback="allow")(total_of)
    a = np.arange(100.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert run(f, forced, a) == a.sum()
    assert f.inspect_regions()[0]["last_run"]["fallback"]


def test_deny_raises_and_writes_nothing(forced):
    f = dpk.jit(fallback="deny")(scale_into)
    a, out = np.arange(10.0), np.zeros(10)
    with pytest.raises(dpk.CompileError, match=r"scale_into\(\) region 0 .* cannot run on "
                       rf"{forced.filter_string}: injected failure .*fallback='deny'"):
        run(f, forced, a, out)
    assert not out.any()


def test_host_failure_too_runs_the_python(forced):
    execution.FORCED_FAILURES["host:cpu:0"] = "host refused"
    f = dpk.jit(fallback="allow")(total_of)
    a = np.arange(50.0)
    assert run(f, forced, a) == a.sum()
    assert f.inspect_regions()[0]["last_run"]["how"] == "python"


def test_missing_fp64(device):
    if device.is_host:
        pytest.skip("the host is where regions fall back to")
    execution.SIMULATED_NO_FP64.add(device.filter_string)
    try:
        f = dpk.jit(fallback="warn")(total_of)
        with pytest.warns(JitFallbackWarning, match="float64 and .* has no fp64"):
            assert run(f, device, np.arange(10.0)) == 45.0
        g = dpk.jit(fallback="warn")(scale_into)
        a, out = np.arange(10, dtype=np.float32), np.zeros(10, np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # float32 data runs on the device
            run(g, device, a, out)
        np.testing.assert_allclose(out, 2 * a)
        assert not g.inspect_regions()[0]["last_run"]["fallback"]
    finally:
        execution.SIMULATED_NO_FP64.clear()


def test_construct_the_compiler_refuses_runs_as_python(device):
    f = dpk.jit(fallback="warn")(uses_plain_python_call)
    a, out = np.arange(5.0), np.zeros(5)
    with pytest.warns(JitFallbackWarning, match=rf"{__file__}:{CALL_LINE}: .*python_only"):
        run(f, device, a, out)
    np.testing.assert_allclose(out, a + 1)
    assert f.inspect_regions()[0]["last_run"]["how"] == "python"
    g = dpk.jit(fallback="deny")(uses_plain_python_call)
    with pytest.raises(dpk.CompileError, match=rf"{__file__}:{CALL_LINE}"):
        run(g, device, a, np.zeros(5))


def test_value_a_kernel_cannot_take(device):
    f = dpk.jit(fallback="warn")(reads_a_list)
    a, out = np.arange(4.0), np.zeros(4)
    with pytest.warns(JitFallbackWarning, match="'weights' is a list"):
        run(f, device, a, [1.0, 10.0], out)
    np.testing.assert_allclose(out, a * [1, 10, 1, 10])


def test_dpk_arrays_fall_back_and_keep_their_results(forced):
    f = dpk.jit(fallback="allow")(scale_into)
    a = dpk.asarray(np.arange(8.0), device=forced)
    out = dpk.zeros(8, dtype=dpk.float64, device=forced)
    f(a, out)
    np.testing.assert_allclose(out.asnumpy(), 2 * np.arange(8.0))
    assert out.device == forced


def test_bad_mode():
    with pytest.raises(ValueError, match="fallback='sometimes'"):
        dpk.jit(fallback="sometimes")(total_of)


# ---- the policy's mode (DPK_FALLBACK), in child processes -------------------------------------

POLICY_SCRIPT = textwrap.dedent("""
    import sys, numpy as np, dpk
    from dpk import prange
    from dpk.autopar import execution

    @dpk.jit
    def doubled(a, out):
        for i in prange(a.shape[0]):
            out[i] = a[i] * 2

    device = dpk.select_device(sys.argv[1])
    execution.FORCED_FAILURES[device.filter_string] = "injected failure"
    a, out = np.arange(6.0), np.zeros(6)
    try:
        with dpk.device_context(device):
            doubled(a, out)
            doubled(a, out)
    except dpk.DpkError as exc:
        print("ERROR", type(exc).__name__, exc, "SUM", out.sum())
    else:
        print("SUM", out.sum())
""")


def _child(tmp_path, code, env, *args):
    script = tmp_path / "child.py"
    script.write_text(code)
    # level 4 dumps compile stages: into the test's folder, not the working directory
    full = dict(os.environ, DPK_CACHE_DIR=str(tmp_path / "cache"),
                DPK_DUMP_DIR=str(tmp_path / "dump"), **env)
    for name in ("DPK_DIAGNOSTICS", "DPK_OFFLOAD_DIAGNOSTICS", "DPK_CONFIG"):
        if name not in env:
            full.pop(name, None)
    # -S when this interpreter runs without site (a copy of the package on PYTHONPATH)
    python = [sys.executable] + (["-S"] if sys.flags.no_site else [])
    return subprocess.run(python + [str(script), *args], env=full, capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)


@pytest.mark.parametrize("mode", ["warn", "allow", "deny"])
def test_policy_fallback_modes(tmp_path, mode):
    target = "opencl:cpu" if dpk.has_device("opencl:cpu") else "host"
    run_ = _child(tmp_path, POLICY_SCRIPT, {"DPK_FALLBACK": mode}, target)
    assert run_.returncode == 0, run_.stderr
    warnings_ = [line for line in run_.stderr.splitlines() if line.startswith("dpk warning")]
    if mode == "deny":
        assert run_.stdout.startswith("ERROR CompileError")
        assert "region 0 at" in run_.stdout and "injected failure" in run_.stdout
        assert "SUM 0.0" in run_.stdout
        assert not warnings_
        return
    assert "SUM 30.0" in run_.stdout
    if mode == "allow":
        assert not warnings_
    else:
        # the runtime's own warning, once per function, device and reason
        assert len(warnings_) == 1, run_.stderr
        assert "kernel 'doubled' could not run on" in warnings_[0]
        assert "region 0 at" in warnings_[0] and "injected failure" in warnings_[0]


# ---- offload diagnostics at each level -----------------------------------------------------------

DIAG_SCRIPT = textwrap.dedent("""
    import numpy as np, dpk
    from dpk import prange

    @dpk.jit
    def work(x, bins):
        hist = np.zeros(bins, np.int64)
        s = 0.0
        m = 0.0
        for i in prange(x.shape[0]):
            tmp = np.empty(2)
            tmp[0] = x[i]
            tmp[1] = x[i] * x[i]
            s += tmp[1]
            m = max(m, tmp[0])
            hist[int(x[i] * bins) % bins] += 1
        y = (x * 2 + 1) * 3
        return hist, s, m, dpk.sum(y)

    x = dpk.asarray(np.linspace(0, 0.99, 1000), device="host")
    hist, s, m, total = work(x, 4)
    print("RESULT", int(hist.sum()), round(float(s), 3), float(m))
""")


def _records(stderr):
    out = []
    for line in stderr.splitlines():
        if line.startswith("{"):
            out.append(json.loads(line))
    return out


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_diagnostics_levels(tmp_path, level):
    run_ = _child(tmp_path, DIAG_SCRIPT, {"DPK_DIAGNOSTICS": f"{level},json"})
    assert run_.returncode == 0, run_.stderr
    assert "RESULT 1000" in run_.stdout
    records = _records(run_.stderr)
    events = {r["event"] for r in records}
    ran = [r for r in records if r["event"] == "jit.region"]
    assert ran and ran[0]["device"] == "host:cpu:0" and ran[0]["how"] == "kernel"
    assert ran[0]["function"] == "work" and ran[0]["lines"]
    assert ("jit.regions" in events) == (level >= 2)
    assert ("jit.launch" in events) == (level >= 3)
    assert ("jit.kernel" in events) == (level >= 4)
    if level >= 2:
        found = next(r for r in records if r["event"] == "jit.regions")
        assert found["loop_variables"] == "i" and found["collapsed_dims"] == 1
        assert found["reductions"] == "s:+,m:max"
        assert found["atomics"] == "hist[int(x[i] * bins) % bins]:fetch_add"
        assert found["arrays_read"] == "x" and found["arrays_written"] == "hist"
        assert found["private_arrays"] == "tmp2"
        assert "arrays.fusion" in events  # the fusion group of the expression after the loop
    if level >= 3:
        launch = next(r for r in records if r["event"] == "jit.launch")
        assert launch["range"] == "nd_range" and int(launch["groups"]) >= 1
        assert int(launch["global"]) == int(launch["groups"]) * int(launch["local"])
        assert launch["time_ms"] >= 0
    if level >= 4:
        kernel = next(r for r in records if r["event"] == "jit.kernel")
        assert "def work_region0(__item" in kernel["source"]
        assert "__dpk_group_barrier" in kernel["source"]
        assert "kernel @work_region0" in kernel["ir"]


def test_offload_diagnostics_alias_and_text_format(tmp_path):
    run_ = _child(tmp_path, DIAG_SCRIPT, {"DPK_OFFLOAD_DIAGNOSTICS": "2"})
    assert run_.returncode == 0, run_.stderr
    lines = run_.stderr.splitlines()
    assert any(line.startswith("dpk[2] jit.regions:") and "reductions=s:+,m:max" in line
               for line in lines), run_.stderr
    assert any(line.startswith("dpk[1] jit.region:") and "device=host:cpu:0" in line
               for line in lines), run_.stderr


def test_fallback_record_at_level_1(tmp_path):
    code = POLICY_SCRIPT.replace("import sys,", "import sys, os,")
    run_ = _child(tmp_path, code, {"DPK_FALLBACK": "allow", "DPK_DIAGNOSTICS": "1,json"},
                  "host")
    records = _records(run_.stderr)
    fallback = [r for r in records if r["event"] == "jit.fallback"]
    assert fallback and fallback[0]["reason"] == "injected failure"
    assert fallback[0]["mode"] == "policy" and fallback[0]["from"] == "host:cpu:0"
    ran = [r for r in records if r["event"] == "jit.region"]
    assert ran[0]["how"] == "python" and ran[0]["fallback_from"] == "host:cpu:0"


def whole_array_reduction(x):
    y = np.zeros(4)
    for i in prange(x.shape[0]):
        y += x[i]
    return y


def slice_update(x):
    y = np.zeros(4)
    for i in prange(x.shape[0]):
        y[:] += x[i]
    return y


def whole_array_min(x):
    y = np.full(4, np.inf)
    for i in prange(x.shape[0]):
        y = np.minimum(y, x[i])
    return y


def test_array_valued_updates_run_as_python(device):
    """An array reduction without an atomic form (``y = np.minimum(y, x[i])`` into a local
    array: not kernel code here): the region runs as its Python, correctly, after the
    warning."""
    f = dpk.jit(fallback="warn")(whole_array_min)
    x = np.arange(40.0).reshape(10, 4)[::-1].copy()
    with pytest.warns(JitFallbackWarning, match="region 0"):
        got = run(f, device, x)
    np.testing.assert_allclose(got, x.min(axis=0))
    assert f.inspect_regions()[0]["last_run"]["how"] == "python"


@pytest.mark.parametrize("fn", [whole_array_reduction, slice_update])
def test_array_updates_run_as_kernels(device, fn):
    """Numba's documentation examples of array-valued updates in a prange: ``y += x[i]`` into
    a local array (an array reduction) and ``y[:] += x[i]``: atomic updates per element."""
    f = dpk.jit(fallback="deny")(fn)
    x = np.arange(40.0).reshape(10, 4)
    got = run(f, device, x)
    np.testing.assert_allclose(got, x.sum(axis=0))
    assert f.inspect_regions()[0]["last_run"]["how"] == "kernel"
