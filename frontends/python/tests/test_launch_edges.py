"""Launch and creation edge cases (issue 15, M, P and the smaller items): empty ranges are no-op
launches, a bare tuple or None is not an index space, impossible shapes and sizes are dpk's
typed errors, an event of a queue without profiling has no time, and running out of device
memory while staging NumPy arguments follows the policy's out_of_memory fallback.
"""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi


@dpk.kernel
def mark(item, out):
    out[item.get_id(0)] = 7


@dpk.kernel
def mark_2d(item, out):
    out[item.get_id(0), item.get_id(1)] = 7


@dpk.kernel
def mark_groups(nd_item: kapi.NdItem, out):
    out[nd_item.get_global_id(0)] = nd_item.get_group().get_group_id(0)


# ---- empty ranges ------------------------------------------------------------------------------

def test_empty_ranges_run_nothing(device):
    out = np.full(8, -1, dtype=np.int32)
    grid = np.full((4, 4), -1, dtype=np.int32)
    on_device = dpk.asarray(out, device=device)
    with dpk.device_context(device):
        dpk.call_kernel(mark, dpk.Range(0), out)
        dpk.call_kernel(mark, dpk.Range(0), on_device)
        dpk.call_kernel(mark_2d, dpk.Range(0, 4), grid)
        dpk.call_kernel(mark_2d, dpk.Range(4, 0), grid)
        dpk.call_kernel(mark_groups, dpk.NdRange(dpk.Range(0), dpk.Range(4)), out)
        dpk.call_kernel_async(mark, dpk.Range(0), [], out).wait()
        mark[0](out)  # numba-dppy's launch syntax
    assert (out == -1).all() and (grid == -1).all()
    assert (on_device.asnumpy() == -1).all()
    # The pure-Python mode agrees.
    kapi.call_kernel(mark, kapi.Range(0), out)
    assert (out == -1).all()


def test_range_extents_are_checked():
    assert dpk.Range(0).size() == 0
    with pytest.raises(dpk.InvalidRangeError, match="negative"):
        dpk.Range(-1)
    with pytest.raises(dpk.InvalidRangeError, match="local size"):
        dpk.NdRange(dpk.Range(4), dpk.Range(0))


# ---- what is not an index space ----------------------------------------------------------------

def test_a_tuple_is_not_an_index_space(host):
    # numba-dpex's kapi call_kernel takes a Range or an NdRange only; kernel[...] takes sizes.
    out = np.zeros(4, dtype=np.int32)
    with pytest.raises(dpk.KernelTypeError, match=r"not the tuple \(4,\).*dpk\.Range\(4\)"):
        dpk.call_kernel(mark, (4,), out)
    with pytest.raises(dpk.KernelTypeError, match="dpk.Range"):
        dpk.call_kernel_async(mark, (4,), [], out)
    assert not out.any()
    mark[(4,)](out)  # plain sizes are kernel[...]'s syntax
    assert (out == 7).all()


def test_none_or_junk_as_index_space_is_a_typed_error(host):
    out = np.zeros(4, dtype=np.int32)
    for junk in (None, "4", 4.0, [4]):
        with pytest.raises(dpk.KernelTypeError, match="Range"):
            dpk.call_kernel(mark, junk, out)


# ---- creation functions --------------------------------------------------------------------------

def test_impossible_shapes_and_sizes_are_typed_errors(device):
    with pytest.raises(dpk.DpkError, match="negative"):
        dpk.empty(-1, device=device)
    with pytest.raises(dpk.DpkError, match="negative"):
        dpk.zeros((2, -3), device=device)
    with pytest.raises(dpk.OutOfMemoryError, match="address space"):
        dpk.zeros(2 ** 62, device=device)
    with pytest.raises(dpk.OutOfMemoryError, match="address space"):
        dpk.empty((2 ** 40, 2 ** 30), dtype=np.int8, device=device)


# ---- events ------------------------------------------------------------------------------------

def test_event_time_needs_a_profiling_queue(device):
    out = np.zeros(4, dtype=np.int32)
    with dpk.device_context(device):
        event = dpk.call_kernel_async(mark, dpk.Range(4), [], dpk.asarray(out, device=device))
    event.wait()
    with pytest.raises(dpk.UnsupportedError, match="profiling"):
        event.elapsed_ns()


# ---- out of memory while staging NumPy arguments -------------------------------------------------

def _test_plugin_dir():
    """The folder of the test plugins (the fault plugin) next to the libdpk.so in use."""
    candidates = []
    if os.environ.get("DPK_TEST_PLUGIN_DIR"):
        candidates.append(os.environ["DPK_TEST_PLUGIN_DIR"])
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            path = line.split()[-1]
            if path.endswith("/libdpk.so"):
                candidates.append(os.path.join(os.path.dirname(path), "dpk", "testplugins"))
    candidates.append(os.path.join(os.getcwd(), "lib", "dpk", "testplugins"))  # scripts/test.sh
    for folder in candidates:
        if os.path.exists(os.path.join(folder, "libdpk_backend_fault.so")):
            return folder
    return None


@pytest.mark.parametrize("mode", ["warn", "deny"])
def test_staging_out_of_memory_follows_the_fallback_policy(core, mode):
    folder = _test_plugin_dir()
    if folder is None:
        pytest.skip("the fault test plugin is not built here (a CMake build has it)")
    env = dict(os.environ, DPK_PLUGIN_PATH=folder, DPK_DEVICE_SELECTOR="fault:gpu",
               DPK_FAULT_INJECT="oom", DPK_FALLBACK=mode)
    env.pop("DPK_CONFIG", None)
    code = textwrap.dedent("""
        import numpy as np
        import dpk

        @dpk.kernel
        def vadd(item, a, b, c):
            i = item.get_id(0)
            c[i] = a[i] + b[i]

        assert dpk.default_device().backend == "fault"
        a, b, c = np.arange(8.0), np.ones(8), np.zeros(8)
        try:
            dpk.call_kernel(vadd, dpk.Range(8), a, b, c)
            print("result", c.tolist())
        except dpk.OutOfDeviceMemoryError as exc:
            print("refused", exc)
            print("untouched", a.tolist(), b.tolist(), c.tolist())
    """)
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    if mode == "warn":
        assert "result [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]" in run.stdout, run.stdout
        warnings = re.findall(r"dpk warning: kernel 'vadd' could not run on fault:gpu:0 "
                              r"\(out of device memory.*running it on the host instead",
                              run.stderr)
        assert len(warnings) == 1, run.stderr
    else:
        assert "refused kernel 'vadd' cannot run on fault:gpu:0: out of device memory" in \
            run.stdout, run.stdout + run.stderr
        assert "untouched [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0] [1.0" in run.stdout
        assert "dpk warning" not in run.stderr


# ---- arrays on a device that is not the host (the fault plugin's GPU-typed device) ----------

def test_arrays_on_an_asynchronous_device_and_a_failure_after_the_launch(core):
    """The array layer's GPU paths (launches without events, single-pass reductions, vector
    layouts) on the fault plugin's GPU-typed device, which runs them on this machine: results
    match NumPy; a kernel that fails after its launch returned (DPK_FAULT_INJECT=async) is
    raised as a DeviceError naming it by the next operation that waits, and never before."""
    folder = _test_plugin_dir()
    if folder is None:
        pytest.skip("the fault test plugin is not built here (a CMake build has it)")
    env = dict(os.environ, DPK_PLUGIN_PATH=folder, DPK_DEVICE_SELECTOR="fault:gpu")
    env.pop("DPK_CONFIG", None)
    env.pop("DPK_FAULT_INJECT", None)
    code = textwrap.dedent("""
        import os
        import numpy as np
        import dpk
        from dpk.arrays import reduction

        dev = dpk.default_device()
        assert dev.backend == "fault" and dev.device_type == "gpu"
        rng = np.random.default_rng(3)
        x = rng.standard_normal(70_000).astype(np.float32)
        m = rng.standard_normal((3, 9_000)).astype(np.float32)
        dx, dm = dpk.asarray(x, device=dev), dpk.asarray(m, device=dev)
        np.testing.assert_allclose(float(dpk.sum(dx)), x.sum(dtype=np.float64), rtol=1e-4)
        assert list(reduction._recipes.values())[-1].single
        np.testing.assert_allclose(dpk.asnumpy(dpk.sum(dm, axis=1)),
                                   m.sum(axis=1, dtype=np.float64), rtol=1e-4)
        assert int(dpk.argmax(dx)) == int(np.argmax(x))
        np.testing.assert_allclose(dpk.asnumpy(dx * 2 + 1), x * 2 + 1, rtol=1e-6)
        print("results ok")

        os.environ["DPK_FAULT_INJECT"] = "async"
        y = dx + 3
        y._materialize()  # launched: the failure is not known yet
        print("launched")
        os.environ["DPK_FAULT_INJECT"] = "none"
        try:
            dpk.asnumpy(y)
        except dpk.DeviceError as exc:
            print("raised", exc)
    """)
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "results ok" in run.stdout and "launched" in run.stdout, run.stdout + run.stderr
    raised = [line for line in run.stdout.splitlines() if line.startswith("raised")]
    assert raised and "injected asynchronous device error" in raised[0], run.stdout
