"""Devices by filter string (issue 15, E and explicit selection): ``dpk.has_device`` reads filters
with the runtime's own parser, and naming a device that does not exist is NoDeviceError listing
the devices present, whatever the fallback mode (fallback governs where work runs, not which
devices exist). Filters holding a NUL character are refused instead of being cut short.
"""

import os
import subprocess
import sys
import textwrap

import pytest

import dpk


def test_has_device_uses_the_runtime_grammar(core):
    devices = dpk.get_devices()
    types = {d.device_type for d in devices}
    assert dpk.has_device("gpu,cpu") == bool(types & {"gpu", "cpu"})
    assert dpk.has_device("HOST") == any(d.is_host for d in devices)
    assert dpk.has_device("Host:CPU") == any(d.is_host for d in devices)
    assert dpk.has_device("") and dpk.has_device(None)
    assert dpk.has_device("*")
    for d in devices:
        assert dpk.has_device(d.filter_string)
        # The index counts the devices of one backend and type: one past the last is absent.
        backend, kind, index = d.filter_string.split(":")
        count = sum(1 for e in devices if e.filter_string.startswith(f"{backend}:{kind}:"))
        assert not dpk.has_device(f"{backend}:{kind}:{count}")
    assert not dpk.has_device("opencl:cpu:5") or \
        sum(d.filter_string.startswith("opencl:cpu:") for d in devices) > 5
    assert not dpk.has_device("accelerator")
    assert dpk.has_device("!opencl:*") == any(d.backend != "opencl" for d in devices)


def test_has_device_reports_malformed_filters(core):
    with pytest.raises(dpk.ParseError, match=r"did you mean 'opencl'"):
        dpk.has_device("opecl")
    with pytest.raises(dpk.ParseError, match="column"):
        dpk.has_device("opencl:cpu:x:y")
    with pytest.raises(TypeError):
        dpk.has_device(3)


@pytest.mark.parametrize("filter_string", ["accelerator", "opencl:cpu:5", "host:cpu:1",
                                           "cuda:gpu:7", "level_zero:gpu"])
def test_selecting_a_missing_device_is_no_device_error(core, filter_string):
    with pytest.raises(dpk.NoDeviceError) as info:
        dpk.select_device(filter_string)
    message = str(info.value)
    assert f"no device matches '{filter_string}'" in message or "was not loaded" in message or \
        "no devices" in message, message
    if "no device matches" in message:
        for d in dpk.get_devices():
            assert d.filter_string in message  # the devices present, as dpctl lists them
    with pytest.raises(dpk.NoDeviceError):
        dpk.asarray([1.0, 2.0], device=filter_string)
    with pytest.raises(dpk.NoDeviceError):
        dpk.zeros(3, device=filter_string)


def test_filters_with_a_nul_character_are_refused(core):
    for bad in ("host\x00garbage", "\x00", "opencl:cpu\x00"):
        with pytest.raises(dpk.ParseError, match="NUL"):
            dpk.select_device(bad)
        with pytest.raises(dpk.ParseError, match="NUL"):
            dpk.has_device(bad)
        with pytest.raises(dpk.ParseError, match="NUL"):
            dpk.asarray([1], device=bad)


def _run(code, **env):
    full = dict(os.environ)
    for name in ("DPK_FALLBACK", "DPK_DEVICE_SELECTOR", "DPK_CONFIG"):
        full.pop(name, None)
    full.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=full,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("mode", ["warn", "allow", "deny"])
def test_explicit_selection_ignores_fallback_but_work_still_falls_back(core, mode):
    run = _run("""
        import numpy as np
        import dpk
        try:
            dpk.select_device("accelerator")
        except dpk.NoDeviceError as exc:
            print("no device:", exc)
        else:
            raise SystemExit("select_device returned a device")

        @dpk.kernel
        def twice(item, a):
            a[item.get_id(0)] *= 2

        # Work selected by default (the policy's selector matches nothing here) still follows
        # the fallback policy.
        a = np.ones(4)
        try:
            dpk.call_kernel(twice, dpk.Range(4), a)
            print("ran:", a.tolist())
        except dpk.NoDeviceError as exc:
            print("refused:", exc)
    """, DPK_FALLBACK=mode, DPK_DEVICE_SELECTOR="accelerator")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no device: " in run.stdout
    assert "(device selection)" not in run.stderr + run.stdout
    if mode == "deny":
        assert "refused:" in run.stdout, run.stdout
    else:
        assert "ran: [2.0, 2.0, 2.0, 2.0]" in run.stdout, run.stdout + run.stderr
    warnings = run.stderr.count("dpk warning:")
    assert warnings == (1 if mode == "warn" else 0), run.stderr


def test_a_kernel_bound_to_a_missing_device_follows_the_fallback_policy(core):
    code = """
        import numpy as np
        import dpk

        @dpk.kernel(device="accelerator")
        def twice(item, a):
            a[item.get_id(0)] *= 2

        a = np.ones(4)
        try:
            dpk.call_kernel(twice, dpk.Range(4), a)
            print("ran:", a.tolist())
        except dpk.NoDeviceError as exc:
            print("refused:", exc)
    """
    warn = _run(code, DPK_FALLBACK="warn")
    assert "ran: [2.0, 2.0, 2.0, 2.0]" in warn.stdout, warn.stdout + warn.stderr
    assert "kernel 'twice' could not run" in warn.stderr, warn.stderr
    deny = _run(code, DPK_FALLBACK="deny")
    assert "refused: kernel 'twice' cannot run" in deny.stdout, deny.stdout + deny.stderr
