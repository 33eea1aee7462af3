"""matmul with the vendor GEMM (arrays/blas.py) on and off, on every device: the same results
as NumPy either way, for the layouts the vendor path takes (row-major, transposed, batched with
even or broadcast strides, batches of uneven spacing) and those it leaves to the generated
kernel (strided, mixed types, integers). Where the device has no BLAS (OpenCL) or it is switched
off, the kernel runs; diagnostics level 3 says which path each matmul took."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk
from dpk.arrays import blas

from array_helpers import assert_matches, to_dpk


@pytest.fixture(params=[True, False], ids=["vendor", "generated"])
def vendor(request):
    was = blas.enabled()
    blas.set_enabled(request.param)
    yield request.param
    blas.set_enabled(was)


def _data(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _tolerance(dtype, k):
    return (1e-4, 1e-4 * max(k, 1) ** 0.5) if dtype == np.float32 else (1e-11, 1e-11 * k)


def _types(device):
    return ["float32", "float64"] if device.has_aspect_fp64 else ["float32"]


SHAPES = [((64, 64), (64, 64)), ((37, 130), (130, 21)), ((50, 1), (1, 40)), ((1, 77), (77, 45)),
          ((45, 77), (77, 1)), ((200, 150), (150, 96)), ((3, 4), (4,)), ((6,), (6, 5)),
          ((9, 0), (0, 4))]


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: "x".join(map(str, s[0] + s[1])))
def test_matches_numpy(device, vendor, shapes):
    for dtype in _types(device):
        a, b = _data(shapes[0], dtype, 1), _data(shapes[1], dtype, 2)
        rtol, atol = _tolerance(np.dtype(dtype), shapes[0][-1])
        assert_matches(to_dpk(a, device) @ to_dpk(b, device), a @ b, rtol=rtol, atol=atol)


def test_transposed_operands(device, vendor):
    for dtype in _types(device):
        a, b = _data((40, 30), dtype, 3), _data((50, 40), dtype, 4)
        da, db = to_dpk(a, device), to_dpk(b, device)
        rtol, atol = _tolerance(np.dtype(dtype), 40)
        assert_matches(da.mT @ db.mT, a.T @ b.T, rtol=rtol, atol=atol)
        assert_matches(da.mT @ da, a.T @ a, rtol=rtol, atol=atol)
        # a sub-matrix: a leading dimension longer than its rows
        assert_matches(da[5:25, 3:20] @ db[:17, 2:9], a[5:25, 3:20] @ b[:17, 2:9], rtol=rtol,
                       atol=atol)


def test_batches(device, vendor):
    for dtype in _types(device):
        rtol, atol = _tolerance(np.dtype(dtype), 16)
        a, b = _data((4, 3, 12, 16), dtype, 5), _data((4, 3, 16, 10), dtype, 6)
        da, db = to_dpk(a, device), to_dpk(b, device)
        assert_matches(da @ db, a @ b, rtol=rtol, atol=atol)           # evenly spaced
        one = _data((16, 10), dtype, 7)
        assert_matches(da @ to_dpk(one, device), a @ one, rtol=rtol, atol=atol)  # broadcast B
        # every other entry of a batch axis, and a batch axis broadcast against another: the
        # entries are not one stride apart (a call per entry)
        assert_matches(da[:, ::2] @ db[:, ::2], a[:, ::2] @ b[:, ::2], rtol=rtol, atol=atol)
        c = _data((4, 1, 16, 10), dtype, 8)
        assert_matches(da @ to_dpk(c, device), a @ c, rtol=rtol, atol=atol)


def test_layouts_the_vendor_path_leaves_to_the_kernel(device, vendor):
    a, b = _data((20, 24), "float32", 9), _data((12, 18), "float32", 10)
    da, db = to_dpk(a, device), to_dpk(b, device)
    assert_matches(da[:, ::2] @ db, a[:, ::2] @ b, rtol=1e-4, atol=1e-4)  # no contiguous axis
    i = np.arange(24, dtype=np.int32).reshape(4, 6)
    assert_matches(to_dpk(i, device) @ to_dpk(i.T.copy(), device), i @ i.T)
    if device.has_aspect_fp64:
        d = _data((18, 7), "float64", 11)
        assert_matches(db @ to_dpk(d, device), b @ d, rtol=1e-5, atol=1e-5)  # mixed types


SCRIPT = textwrap.dedent("""
    import numpy as np
    import dpk
    with dpk.diagnostics.capture() as records:
        a = dpk.asarray(np.ones((8, 8), np.float32), device="host")
        (a @ a)._materialize()
        (a[:, ::2] @ a[::2])._materialize()
    print("PATHS", [(r["path"], r["reason"]) for r in records if r.get("event") == "arrays.matmul"])
""")


def _paths(tmp_path, **env):
    script = tmp_path / "paths.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, DPK_DIAGNOSTICS="3", DPK_CACHE_DIR=str(tmp_path / "c"), **env)
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    return [l for l in run.stdout.splitlines() if l.startswith("PATHS")][0]


def test_diagnostics_say_which_path(tmp_path, core):
    switched_off = _paths(tmp_path, DPK_VENDOR_BLAS="0")
    assert switched_off.count("'generated'") == 2 and "DPK_VENDOR_BLAS=0" in switched_off, \
        switched_off
    default = _paths(tmp_path)
    assert "neither row- nor column-contiguous" in default, default  # the strided one
    no_library = _paths(tmp_path, DPK_HOST_BLAS="none")
    assert "no vendor BLAS" in no_library and "DPK_HOST_BLAS=none" in no_library, no_library
    if "'vendor'" not in default:
        pytest.skip(f"no host BLAS on this machine: {default}")
    assert default.startswith("PATHS [('vendor', '')"), default
