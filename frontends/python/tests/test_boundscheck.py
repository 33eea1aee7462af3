"""Bounds-check mode (issue 15, F): out-of-bounds accesses of compiled kernels crashed the
interpreter (SIGSEGV on the host and PoCL). With ``@dpk.kernel(boundscheck=True)``,
``DPK_BOUNDSCHECK=1`` or the policy's ``boundscheck: true`` such an access raises IndexError
(dpk.BoundsError) naming the kernel, its file:line, the array, the index and the shape; the access
is skipped (nothing is written out of bounds, a load yields 0) and the interpreter lives on.
Default kernels compile no check code at all. Runs on every device the suite sweeps.
"""

import glob
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi

HERE = os.path.basename(__file__)


def line_of(marker):
    """The line of this file that carries the comment `# <marker>`."""
    with open(__file__, encoding="utf-8") as source:
        for number, text in enumerate(source, 1):
            if text.rstrip().endswith("# " + marker):
                return number
    raise AssertionError(marker)


@dpk.kernel(boundscheck=True)
def shift_right(item, a):
    i = item.get_id(0)
    a[i + 1] = a[i]  # write-past-end


@dpk.kernel(boundscheck=True)
def read_past(item, a, out):
    i = item.get_id(0)
    out[i] = a[i + 1]  # read-past-end


@dpk.kernel(boundscheck=True)
def column_past(item, a):
    i = item.get_id(0)
    j = item.get_id(1)
    a[i, j + 1] = 1.0  # column-past-end


@dpk.device_func
def fetch(v, j):
    return v[j]  # device-function-read


@dpk.kernel(boundscheck=True)
def through_device_function(item, a, out):
    i = item.get_id(0)
    out[i] = fetch(a, i + 1)


@dpk.kernel(boundscheck=True)
def private_past(item, out):
    i = item.get_id(0)
    p = kapi.PrivateArray(4, np.int64, fill_zeros=True)
    p[i] = 1  # private-past-end
    out[i] = p[0]


@dpk.kernel(boundscheck=True)
def local_past(it, out, scratch):
    i = it.get_local_id(0)
    scratch[i + 4] = i  # local-past-end
    kapi.group_barrier(it.get_group())
    out[it.get_global_id(0)] = scratch[0]


@dpk.kernel(boundscheck=True)
def atomic_past(item, counts):
    kapi.AtomicRef(counts, item.get_id(0)).fetch_add(1)  # atomic-past-end


def on(device, array):
    return dpk.asarray(array, device=device)


def expect_bounds_error(call, kernel, marker, array, index, shape, axis=0):
    with pytest.raises(IndexError) as info:
        call()
    assert isinstance(info.value, dpk.BoundsError)
    message = str(info.value)
    assert f"kernel '{kernel}'" in message, message
    assert f"{HERE}:{line_of(marker)}" in message, message
    assert array in message, message
    if shape is not None:  # an array argument: NumPy's wording, with the axis and shape
        assert f"index {index} is out of bounds for axis {axis}" in message, message
        assert f"shape {shape}" in message, message
    else:  # a private or local array: its linear index and element count
        assert f"index {index} is out of bounds for" in message, message
        assert "elements" in message, message
    return message


def test_write_past_the_end(device):
    buffer = np.arange(11, dtype=np.float32)
    buffer[10] = -42.0
    whole = on(device, buffer)
    expect_bounds_error(lambda: dpk.call_kernel(shift_right, dpk.Range(10), whole[:10]),
                        "shift_right", "write-past-end", "array 'a'", 10, (10,))
    assert whole.asnumpy()[10] == -42.0, "a store past the end was not skipped"
    # The interpreter, the device and the kernel are fine: an in-bounds launch works. One
    # work-item, so the result does not depend on the order work-items run in (over a larger
    # range, a[i + 1] = a[i] races with the neighbour's write: on a GPU the H100 run showed it).
    before = whole.asnumpy().copy()
    dpk.call_kernel(shift_right, dpk.Range(1), whole)
    after = whole.asnumpy()
    assert after[1] == before[0]
    np.testing.assert_array_equal(np.delete(after, 1), np.delete(before, 1))


def test_read_past_the_end(device):
    whole = on(device, np.arange(11, dtype=np.float64))
    out = on(device, np.full(10, -1.0))
    expect_bounds_error(lambda: dpk.call_kernel(read_past, dpk.Range(10), whole[:10], out),
                        "read_past", "read-past-end", "array 'a'", 10, (10,))
    result = out.asnumpy()
    assert result[9] == 0.0, "a load past the end must yield 0, not the element beyond"
    np.testing.assert_array_equal(result[:9], np.arange(1.0, 10.0))


def test_numpy_arguments(device):
    # NumPy arrays go zero-copy to the host and through copies elsewhere: same error.
    a = np.zeros(6, dtype=np.int32)
    with dpk.device_context(device):
        expect_bounds_error(lambda: dpk.call_kernel(shift_right, dpk.Range(6), a),
                            "shift_right", "write-past-end", "array 'a'", 6, (6,))


def test_two_dimensions_name_the_axis(device):
    a = on(device, np.zeros((4, 5), dtype=np.float32))
    expect_bounds_error(lambda: dpk.call_kernel(column_past, dpk.Range(4, 5), a),
                        "column_past", "column-past-end", "array 'a'", 5, (4, 5), axis=1)


def test_device_function(device):
    a = on(device, np.arange(8, dtype=np.float32))
    out = on(device, np.zeros(8, dtype=np.float32))
    message = expect_bounds_error(
        lambda: dpk.call_kernel(through_device_function, dpk.Range(8), a, out),
        "through_device_function", "device-function-read", "array 'v'", 8, (8,))
    assert "device function" in message, message


def test_private_array(device):
    out = on(device, np.zeros(8, dtype=np.int64))
    expect_bounds_error(lambda: dpk.call_kernel(private_past, dpk.Range(8), out),
                        "private_past", "private-past-end", "private array", 4, None)


def test_local_accessor(device):
    out = on(device, np.zeros(8, dtype=np.int64))
    expect_bounds_error(lambda: dpk.call_kernel(local_past, dpk.NdRange(8, 8), out,
                                                dpk.LocalAccessor(8, np.int64)),
                        "local_past", "local-past-end", "local array", 8, None)


def test_atomic_ref(device):
    counts = on(device, np.zeros(5, dtype=np.int32))
    expect_bounds_error(lambda: dpk.call_kernel(atomic_past, dpk.Range(6), counts),
                        "atomic_past", "atomic-past-end", "array 'counts'", 5, (5,))
    np.testing.assert_array_equal(counts.asnumpy(), np.ones(5, dtype=np.int32))


def test_async_launch_raises_at_the_call(device):
    a = on(device, np.zeros(4, dtype=np.float32))
    with pytest.raises(IndexError):
        dpk.call_kernel_async(shift_right, dpk.Range(4), [], a)


def test_in_bounds_kernels_run_unchanged(device):
    a = on(device, np.arange(12, dtype=np.float32))
    out = on(device, np.zeros(11, dtype=np.float32))
    dpk.call_kernel(read_past, dpk.Range(11), a, out)
    np.testing.assert_array_equal(out.asnumpy(), np.arange(1, 12, dtype=np.float32))


def plain_shift(item, a):
    i = item.get_id(0)
    a[i + 1] = a[i]  # plain-shift


def test_the_mode_is_part_of_the_cache_key(device):
    # The same function, hence the same IR: the checked build must not reuse the default one.
    unchecked = dpk.kernel(plain_shift)
    checked = dpk.kernel(boundscheck=True)(plain_shift)
    a = on(device, np.zeros(9, dtype=np.float32))
    dpk.call_kernel(unchecked, dpk.Range(8), a)
    expect_bounds_error(lambda: dpk.call_kernel(checked, dpk.Range(9), a),
                        "plain_shift", "plain-shift", "array 'a'", 9, (9,))


def test_boundscheck_must_be_a_bool():
    with pytest.raises(TypeError, match="boundscheck"):
        dpk.kernel(boundscheck="yes")(plain_shift)


# ---- precedence and the absence of check code (child processes: the policy is per process) ---

CHILD = textwrap.dedent("""
    import glob, sys
    import numpy as np
    import dpk

    def body(item, a):
        i = item.get_id(0)
        a[i] = a[i] + 1.0

    mode = {"default": None, "on": True, "off": False}[sys.argv[1]]
    kernel = dpk.kernel(body) if mode is None else dpk.kernel(boundscheck=mode)(body)
    device = dpk.select_device(sys.argv[2])
    a = dpk.asarray(np.zeros(8, dtype=np.float32), device=device)
    dpk.call_kernel(kernel, dpk.Range(8), a)
    try:
        dpk.call_kernel(kernel, dpk.Range(9), a[:8])
        print("unchecked")
    except IndexError as exc:
        print("checked:", exc)
""")

# The out-of-bounds launch in CHILD reads and writes a[8] of a 9-element view, so it stays inside
# the allocation even without checks: the view is a[:8] of 8 elements, launched over 9 items.
CHILD = CHILD.replace("np.zeros(8,", "np.zeros(16,")


def run_child(tmp_path, mode, device, **env_vars):
    env = dict(os.environ)
    for name in ("DPK_BOUNDSCHECK", "DPK_CONFIG", "DPK_DIAGNOSTICS", "DPK_DUMP_DIR"):
        env.pop(name, None)
    dumps = tmp_path / f"dumps-{mode}"
    env.update({"DPK_DIAGNOSTICS": "4", "DPK_DUMP_DIR": str(dumps),
                "DPK_CACHE_DIR": str(tmp_path / "cache")})
    env.update(env_vars)
    run = subprocess.run([sys.executable, "-c", CHILD, mode, device], env=env,
                         capture_output=True, text=True, timeout=300)
    stages = ""
    for path in glob.glob(str(dumps / "**" / "*"), recursive=True):
        if path.endswith((".ll", ".cl")):
            with open(path, encoding="utf-8", errors="replace") as stage:
                stages += stage.read()
    return run, stages


def has_check_code(stages):
    return "cmpxchg" in stages or "dpk_status" in stages


@pytest.mark.parametrize("mode,env,expect", [
    ("default", {}, False),
    ("on", {}, True),
    ("default", {"DPK_BOUNDSCHECK": "1"}, True),
    ("off", {"DPK_BOUNDSCHECK": "1"}, False),       # the decorator wins over the variable
    ("default", {"policy": "true"}, True),
    ("default", {"policy": "true", "DPK_BOUNDSCHECK": "0"}, False),  # the variable wins
    ("on", {"policy": "false", "DPK_BOUNDSCHECK": "0"}, True),
])
def test_precedence_and_no_check_code_by_default(tmp_path, device, mode, env, expect):
    env = dict(env)
    policy = env.pop("policy", None)
    if policy is not None:
        path = tmp_path / "policy.yaml"
        path.write_text(f"version: 1\nboundscheck: {policy}\n")
        env["DPK_CONFIG"] = str(path)
    run, stages = run_child(tmp_path, mode, device.filter_string, **env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert stages, "no compile stage was dumped: " + run.stderr[-2000:]
    if expect:
        assert "checked: " in run.stdout and "kernel 'body'" in run.stdout, run.stdout
        assert has_check_code(stages)
    else:
        assert "unchecked" in run.stdout, run.stdout
        assert not has_check_code(stages), "check code in a default build"


def test_bad_variable_is_a_policy_error(tmp_path):
    env = dict(os.environ, DPK_BOUNDSCHECK="maybe")
    env.pop("DPK_CONFIG", None)
    code = "import dpk\ntry:\n    dpk.select_device('host')\nexcept dpk.PolicyError as e:\n" \
           "    print('policy', e)\n"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert "policy" in run.stdout and "DPK_BOUNDSCHECK" in run.stdout, run.stdout + run.stderr


def test_bad_policy_value_names_the_line(tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text("version: 1\nboundscheck: sometimes\n")
    env = dict(os.environ, DPK_CONFIG=str(path))
    env.pop("DPK_BOUNDSCHECK", None)
    code = "import dpk\ntry:\n    dpk.select_device('host')\nexcept dpk.PolicyError as e:\n" \
           "    print('policy', e)\n"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert "policy.yaml:2:14" in run.stdout and "boundscheck" in run.stdout, \
        run.stdout + run.stderr
