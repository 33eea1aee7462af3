"""Pickling @dpk.jit functions (docs/jit.md, "Pickling"): by reference when importable, by
source (with the decorator's options) when defined in __main__ or locally; a spawn Pool calling
one in its workers."""

import multiprocessing
import pickle
import subprocess
import sys
import textwrap

import numpy as np

import dpk
from dpk import prange
from dpk.autopar import JitFunction

BIAS = 0.5


@dpk.jit
def l2(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i] * a[i]
    return s


@dpk.jit
def shifted(a, out):
    for i in prange(a.shape[0]):
        out[i] = a[i] + BIAS
    return out.sum()


def _local_jit():
    scale = 3.0

    @dpk.jit(fallback="deny")
    def local_scaled(a, out):
        for i in prange(a.shape[0]):
            out[i] = a[i] * scale + BIAS
        return out

    return local_scaled


def _roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


def _task(fn, chunk, filter_string):
    with dpk.device_context(filter_string):
        return fn(chunk, np.zeros_like(chunk))


def test_importable_jit_goes_by_reference():
    assert _roundtrip(l2) is l2
    assert _roundtrip(shifted) is shifted


def test_local_jit_goes_by_source_with_its_options(device):
    f = _local_jit()
    blob = pickle.dumps(f)
    assert b"def local_scaled" in blob
    g = pickle.loads(blob)
    assert isinstance(g, JitFunction) and g is not f and g.fallback == "deny"
    assert pickle.loads(blob) is g  # loaded twice in one process: the same object
    a = np.arange(10.0)
    with dpk.device_context(device):
        out = g(a, np.zeros(10))
    np.testing.assert_allclose(out, a * 3 + BIAS)
    assert g.inspect_regions()[0]["last_run"]["how"] == "kernel"


def test_spawn_pool_calls_jit_functions(device):
    data = np.arange(32.0)
    chunks = np.array_split(data, 4)
    ctx = multiprocessing.get_context("spawn")
    local = _local_jit()
    with ctx.Pool(2) as pool:
        by_ref = pool.starmap(_task, [(shifted, c, device.filter_string) for c in chunks])
        by_source = pool.starmap(_task, [(local, c, device.filter_string) for c in chunks])
    assert np.isclose(sum(by_ref), (data + BIAS).sum())
    np.testing.assert_allclose(np.concatenate(by_source), data * 3 + BIAS)


MAIN = """
import multiprocessing, pickle
import numpy as np
import dpk
from dpk import prange

@dpk.jit
def main_norm(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i] * a[i]
    return s

def task(fn, chunk):
    return fn(chunk)

if __name__ == "__main__":
    assert b"def main_norm" in pickle.dumps(main_norm)  # __main__: by source
    data = np.arange(40.0)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        parts = pool.starmap(task, [(main_norm, c) for c in np.array_split(data, 4)])
    assert np.isclose(sum(parts), (data * data).sum()), parts
    print("ok")
"""


def test_main_module_jit_in_a_spawn_pool(tmp_path):
    path = tmp_path / "main_jit.py"
    path.write_text(textwrap.dedent(MAIN))
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok" in proc.stdout
