"""Launches whose dpk arrays live on different devices: placement.mixed_devices error | migrate.

The policy is read once per process, so `migrate` and the policy-file cases run in a fresh
interpreter; `error` (the default) is checked in this one. They need two real devices: the host
and an OpenCL CPU device (PoCL), which the build machine has.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk

needs_two_devices = pytest.mark.skipif(not dpk.has_device("opencl:cpu"),
                                       reason="needs the host and an opencl:cpu device")


def _run(script, tmp_path, **env):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(script))
    full_env = dict(os.environ, DPK_CACHE_DIR=str(tmp_path / "cache"), **env)
    for name in ("DPK_MIXED_DEVICES", "DPK_CONFIG", "DPK_DEVICE_SELECTOR"):
        if name not in env:
            full_env.pop(name, None)
    return subprocess.run([sys.executable, str(path)], env=full_env, capture_output=True,
                          text=True, timeout=300)


@needs_two_devices
def test_error_mode_raises_placement_error_naming_both_devices(host):
    mode, _ = dpk._core_loader.core().placement_policy()
    if mode != "error":
        pytest.skip(f"this process runs with placement.mixed_devices={mode}")
    cl = dpk.select_device("opencl:cpu")
    a = dpk.asarray(np.arange(4, dtype=np.float32), device=host)
    b = dpk.zeros(4, np.float32, device=cl)

    @dpk.kernel
    def copy(item, x, y):
        y[item.get_id(0)] = x[item.get_id(0)]

    with pytest.raises(dpk.PlacementError) as info:
        dpk.call_kernel(copy, dpk.Range(4), a, b)
    message = str(info.value)
    assert host.filter_string in message and cl.filter_string in message, message
    assert "placement.mixed_devices" in message and "DPK_MIXED_DEVICES=migrate" in message
    assert (b.asnumpy() == 0).all()  # nothing ran


@needs_two_devices
def test_error_mode_bound_kernel_rejects_arrays_elsewhere(host):
    mode, _ = dpk._core_loader.core().placement_policy()
    if mode != "error":
        pytest.skip(f"this process runs with placement.mixed_devices={mode}")

    @dpk.kernel(device="opencl:cpu")
    def inc(item, a):
        a[item.get_id(0)] += 1

    a = dpk.zeros(4, np.float32, device=host)
    with pytest.raises(dpk.DpkError, match="is bound to opencl:cpu.*live on host:cpu:0"):
        dpk.call_kernel(inc, dpk.Range(4), a)
    assert (a.asnumpy() == 0).all()


MIGRATE_SCRIPT = """
    import json
    import numpy as np
    import dpk

    host, cl = dpk.select_device("host"), dpk.select_device("opencl:cpu")
    out = {"mode": list(dpk._core_loader.core().placement_policy())}

    @dpk.kernel
    def axpy(item, x, y, res):
        i = item.get_id(0)
        res[i] = 2 * x[i] + y[i]

    x = dpk.asarray(np.arange(8, dtype=np.float32), device=host)
    y = dpk.asarray(np.ones(8, dtype=np.float32), device=cl)
    res = dpk.zeros(8, np.float32, device=cl)
    with dpk.diagnostics.capture() as records:
        dpk.call_kernel(axpy, dpk.Range(8), x, y, res)
    out["res"] = res.asnumpy().tolist()
    out["res_device"] = res.device.filter_string
    out["y"] = y.asnumpy().tolist()
    out["migrations"] = [[r["argument"], r["from"], r["to"], r["direction"], r["bytes"]]
                         for r in records if r.get("event") == "placement.migrate"]

    # The cached plan of the second launch migrates again (new data, same signature).
    y2 = dpk.asarray(np.full(8, 10, dtype=np.float32), device=cl)
    dpk.call_kernel(axpy, dpk.Range(8), x, y2, res)
    out["res2"] = res.asnumpy().tolist()
    out["plans"] = axpy.stats["plans"]

    # A kernel bound to a device: host arrays and NumPy arrays go there and come back.
    @dpk.kernel(device="opencl:cpu")
    def inc(item, a, b):
        i = item.get_id(0)
        a[i] += b[i]

    a = dpk.asarray(np.arange(4, dtype=np.int64), device=host)
    b = np.full(4, 5, dtype=np.int64)
    with dpk.diagnostics.capture() as records:
        dpk.call_kernel(inc, dpk.Range(4), a, b)
    out["bound"] = a.asnumpy().tolist()
    out["bound_migrations"] = [[r["argument"], r["to"], r["direction"]]
                               for r in records if r.get("event") == "placement.migrate"]

    # One array passed twice is copied once: the kernel sees a single array, as without
    # migration, and one copy goes back.
    @dpk.kernel
    def accumulate(item, src, dst, same_as_dst):
        i = item.get_id(0)
        dst[i] = same_as_dst[i] + src[i]

    acc = dpk.asarray(np.full(4, 3, dtype=np.float32), device=cl)
    src = dpk.asarray(np.ones(4, dtype=np.float32), device=host)
    with dpk.diagnostics.capture() as records:
        dpk.call_kernel(accumulate, dpk.Range(4), src, acc, acc)
    out["alias"] = acc.asnumpy().tolist()
    out["alias_migrations"] = [[r["argument"], r["direction"]]
                               for r in records if r.get("event") == "placement.migrate"]

    # Async launches migrate too; the event is already complete.
    ev = dpk.call_kernel_async(inc, dpk.Range(4), [], a, b)
    ev.wait()
    out["async"] = a.asnumpy().tolist()
    print("RESULT", json.dumps(out))
"""


@needs_two_devices
def test_migrate_runs_on_the_highest_ranked_device_and_copies_results_back(tmp_path):
    run = _run(MIGRATE_SCRIPT, tmp_path, DPK_MIXED_DEVICES="migrate", DPK_DIAGNOSTICS="3")
    assert run.returncode == 0, run.stdout + run.stderr
    line = next(l for l in run.stdout.splitlines() if l.startswith("RESULT "))
    out = json.loads(line[len("RESULT "):])
    assert out["mode"] == ["migrate", "DPK_MIXED_DEVICES"]
    expected = [2 * i + 1 for i in range(8)]
    assert out["res"] == expected
    assert out["res_device"].startswith("opencl:cpu")  # the original array stays where it was
    assert out["y"] == [1] * 8
    # host ranks before opencl:cpu in the default policy: y and res go to the host, and only
    # res (written by the kernel) comes back.
    cl = out["res_device"]
    assert out["migrations"] == [[2, cl, "host:cpu:0", "to_target", 32],
                                 [3, cl, "host:cpu:0", "to_target", 32],
                                 [3, "host:cpu:0", cl, "back", 32]]
    assert out["res2"] == [2 * i + 10 for i in range(8)]
    # Two plans, made by the first launch: the migrating one and the all-on-host one it
    # launches through; the second launch reuses both.
    assert out["plans"] == 2
    assert out["bound"] == [5, 6, 7, 8]
    assert out["bound_migrations"] == [[1, cl, "to_target"], [1, "host:cpu:0", "back"]]
    assert out["async"] == [10, 11, 12, 13]
    assert out["alias"] == [4, 4, 4, 4]
    assert out["alias_migrations"] == [[2, "to_target"], [2, "back"]]
    # Diagnostics level 3 also prints each migration on stderr.
    assert (f"dpk[3] placement.migrate: axpy: argument 2 to_target {cl} -> host:cpu:0 "
            "(32 bytes)") in run.stderr, run.stderr


@needs_two_devices
def test_policy_file_selects_migrate_and_error_keeps_raising(tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nplacement:\n  mixed_devices: migrate\n")
    script = """
        import numpy as np
        import dpk
        print("MODE", *dpk._core_loader.core().placement_policy())

        @dpk.kernel
        def copy(item, x, y):
            y[item.get_id(0)] = x[item.get_id(0)]

        a = dpk.asarray(np.arange(4, dtype=np.float32), device="host")
        b = dpk.zeros(4, np.float32, device="opencl:cpu")
        try:
            dpk.call_kernel(copy, dpk.Range(4), a, b)
            print("RAN", b.asnumpy().tolist())
        except dpk.PlacementError as exc:
            print("PLACEMENT", exc)
    """
    migrate = _run(script, tmp_path, DPK_CONFIG=str(policy))
    assert migrate.returncode == 0, migrate.stdout + migrate.stderr
    assert f"MODE migrate {policy}:3:18" in migrate.stdout
    assert "RAN [0.0, 1.0, 2.0, 3.0]" in migrate.stdout
    # The environment wins over the file.
    error = _run(script, tmp_path, DPK_CONFIG=str(policy), DPK_MIXED_DEVICES="error")
    assert error.returncode == 0, error.stdout + error.stderr
    assert "MODE error DPK_MIXED_DEVICES" in error.stdout
    assert "PLACEMENT" in error.stdout and "opencl:cpu" in error.stdout


def test_bad_mixed_devices_value_is_a_policy_error(tmp_path):
    script = """
        import dpk
        try:
            dpk.get_devices()
        except dpk.PolicyError as exc:
            print("POLICY", exc)
    """
    run = _run(script, tmp_path, DPK_MIXED_DEVICES="migrat")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("POLICY "), run.stdout
    assert ("DPK_MIXED_DEVICES='migrat': bad value; allowed values: error, migrate"
            in run.stdout), run.stdout
