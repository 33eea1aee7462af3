"""Pickling of dpk's objects: devices (by filter string), arrays (data + device), kernels,
device functions and vectorize objects (by reference when importable, by source otherwise), and
the process pools that depend on it: multiprocessing (spawn), Dask's processes scheduler and a
distributed LocalCluster."""

import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi

OFFSET = 3


@dpk.device_func
def twice(x):
    return x * 2


@dpk.kernel
def affine(item: kapi.Item, a, b):
    i = item.get_id(0)
    b[i] = twice(a[i]) + OFFSET


@dpk.vectorize
def fma1(x, y):
    return x * y + 1


def _roundtrip(obj):
    return pickle.loads(pickle.dumps(obj))


def _run(kernel, device, data):
    """The kernel over `data` on `device`, as a NumPy array."""
    a = dpk.asarray(data, device=device)
    b = dpk.zeros(data.shape, dtype=data.dtype, device=device)
    dpk.call_kernel(kernel, dpk.Range(data.shape[0]), a, b)
    return b.asnumpy()


def _chunk_task(kernel, filter_string, chunk):
    """A Pool task: the kernel over one chunk on the named device, in the worker process."""
    return _run(kernel, dpk.select_device(filter_string), chunk)


def _local_kernel():
    scale = 5.0  # a closure value travels with the source

    @dpk.device_func
    def plus_one(x):
        return x + 1

    @dpk.kernel
    def local_scale(item: kapi.Item, a, b):
        i = item.get_id(0)
        b[i] = plus_one(a[i]) * scale

    return local_scale


# ---- devices and arrays ----------------------------------------------------------------------

def test_device_roundtrip_is_the_same_device(device):
    assert _roundtrip(device) is device


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2), ()])
def test_array_roundtrip_keeps_data_dtype_and_device(device, shape):
    data = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape) - 2
    x = dpk.asarray(data, device=device)
    y = _roundtrip(x)
    assert y is not x and y.device is device
    assert y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(y.asnumpy(), data)


def test_array_view_pickles_as_a_contiguous_copy(device):
    x = dpk.asarray(np.arange(12.0).reshape(3, 4), device=device)
    view = x[:, ::2]
    y = _roundtrip(view)
    np.testing.assert_array_equal(y.asnumpy(), np.arange(12.0).reshape(3, 4)[:, ::2])
    y[0, 0] = 99.0  # its own memory
    assert x.asnumpy()[0, 0] == 0.0


def test_lazy_array_result_pickles_its_value(device):
    x = dpk.asarray(np.arange(5.0), device=device)
    np.testing.assert_array_equal(_roundtrip(x * 2 + 1).asnumpy(), np.arange(5.0) * 2 + 1)


def _forge_filter(blob, old, new):
    assert len(old) == len(new) and old.encode() in blob
    return blob.replace(old.encode(), new.encode())


def test_unpickling_on_a_missing_device_names_the_filter(host):
    """A process without the device gets NoDeviceError naming its filter string (the pickle is
    edited to name a CUDA device no machine has)."""
    blob = _forge_filter(pickle.dumps(host), host.filter_string, "cuda:gpu:9")
    with pytest.raises(dpk.NoDeviceError, match=r"cannot unpickle dpk.Device 'cuda:gpu:9'"):
        pickle.loads(blob)
    array_blob = _forge_filter(pickle.dumps(dpk.ones(3, device=host)), host.filter_string,
                               "cuda:gpu:9")
    with pytest.raises(dpk.NoDeviceError, match="cuda:gpu:9"):
        pickle.loads(array_blob)


# ---- kernels, device functions, vectorize --------------------------------------------------

def test_importable_kernel_goes_by_reference():
    assert _roundtrip(affine) is affine
    assert _roundtrip(twice) is twice
    assert _roundtrip(fma1) is fma1
    assert b"_load_reference" in pickle.dumps(affine)
    assert b"def affine" not in pickle.dumps(affine)


def test_local_kernel_goes_by_source_and_runs(device):
    k = _local_kernel()
    blob = pickle.dumps(k)
    assert b"def local_scale" in blob and b"def plus_one" in blob
    k2 = pickle.loads(blob)
    assert k2 is not k and isinstance(k2, dpk.KernelDispatcher)
    assert pickle.loads(blob) is k2  # one object per process: compiled once
    data = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(_run(k2, device, data), (data + 1) * 5)
    assert "local_scale" in k2.inspect_ir(dpk.Range(6), data, data)


def test_kernel_options_travel(host):
    @dpk.kernel(device="host", access_types={"read_only": ["a"], "write_only": ["b"]})
    def with_options(item: kapi.Item, a, b):
        b[item.get_id(0)] = a[item.get_id(0)]

    k2 = _roundtrip(with_options)
    assert k2._device == "host" and k2._access == {"a": "read_only", "b": "write_only"}
    data = np.arange(4.0)
    out = np.zeros(4)
    dpk.call_kernel(k2, dpk.Range(4), data, out)
    np.testing.assert_array_equal(out, data)


def test_by_source_errors_point_at_the_original_lines():
    @dpk.kernel
    def broken(item: kapi.Item, a):
        a[item.get_id(0)] = [1, 2]  # lists are not supported in kernels

    line = broken.py_func.__code__.co_firstlineno + 2
    k2 = _roundtrip(broken)
    with pytest.raises(dpk.KernelSyntaxError) as info:
        dpk.call_kernel(k2, dpk.Range(2), np.zeros(2))
    assert info.value.lineno == line
    assert "[1, 2]" in (info.value.source_line or "")
    assert os.path.basename(__file__) in str(info.value.filename)


def test_sourceless_kernel_pickles_from_its_bytecode(host):
    """A kernel made by exec (no source file) is read back from bytecode, as for compiling."""
    namespace = {"dpk": dpk}
    exec("@dpk.kernel\ndef made(a, b):\n    i = dpk.get_global_id(0)\n    b[i] = a[i] - 1\n",
         namespace)
    k2 = _roundtrip(namespace["made"])
    data = np.arange(5, dtype=np.int64)
    out = np.zeros_like(data)
    dpk.call_kernel(k2, dpk.Range(5), data, out)
    np.testing.assert_array_equal(out, data - 1)


def test_vectorize_by_source_keeps_signatures(device):
    @dpk.vectorize(["float64(float64, float64)"])
    def hyp(x, y):
        return (x * x + y * y) ** 0.5

    v2 = _roundtrip(hyp)
    assert v2 is not hyp and v2.types == hyp.types == ["dd->d"]
    x = dpk.asarray(np.array([3.0, 5.0]), device=device)
    y = dpk.asarray(np.array([4.0, 12.0]), device=device)
    np.testing.assert_allclose(v2(x, y).asnumpy(), [5.0, 13.0])


# ---- process pools ---------------------------------------------------------------------------

def test_multiprocessing_spawn_pool_maps_a_kernel_over_chunks(device):
    data = np.arange(64, dtype=np.float32)
    chunks = np.array_split(data, 4)
    ctx = multiprocessing.get_context("spawn")
    local = _local_kernel()
    with ctx.Pool(2) as pool:
        by_ref = pool.starmap(_chunk_task, [(affine, device.filter_string, c) for c in chunks])
        by_source = pool.starmap(_chunk_task, [(local, device.filter_string, c) for c in chunks])
    np.testing.assert_array_equal(np.concatenate(by_ref), data * 2 + OFFSET)
    np.testing.assert_array_equal(np.concatenate(by_source), (data + 1) * 5)


def _script(tmp_path, body, *, timeout=240):
    """Runs `body` as a __main__ script file (kernels defined there go by source; spawned
    workers import the file as __mp_main__ for its plain functions)."""
    path = tmp_path / "main_script.py"
    path.write_text(textwrap.dedent(body))
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


_MAIN_PRELUDE = """
import numpy as np
import dpk
from dpk import kernel_api as kapi

SHIFT = 7

@dpk.device_func
def square(x):
    return x * x

@dpk.kernel
def main_kernel(item: kapi.Item, a, b):
    i = item.get_id(0)
    b[i] = square(a[i]) + SHIFT

def task(kernel, chunk, filter_string):
    device = dpk.select_device(filter_string)
    a = dpk.asarray(chunk, device=device)
    b = dpk.zeros_like(a)
    dpk.call_kernel(kernel, dpk.Range(chunk.shape[0]), a, b)
    return b

def check(results, data):
    out = np.concatenate([r.asnumpy() for r in results])
    assert np.array_equal(out, data * data + SHIFT), out
    print("ok", len(results))
"""


def test_main_module_kernel_in_a_spawn_pool(device, tmp_path):
    out = _script(tmp_path, _MAIN_PRELUDE + f"""
import multiprocessing, pickle
if __name__ == "__main__":
    assert b"def main_kernel" in pickle.dumps(main_kernel)  # __main__ goes by source
    data = np.arange(40, dtype=np.float32)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.starmap(task, [(main_kernel, c, {device.filter_string!r})
                                      for c in np.array_split(data, 4)])
    check(results, data)
""")
    assert "ok 4" in out


def test_dask_processes_scheduler(device, tmp_path):
    pytest.importorskip("dask")
    out = _script(tmp_path, _MAIN_PRELUDE + f"""
import dask
if __name__ == "__main__":
    data = np.arange(48, dtype=np.float32)
    tasks = [dask.delayed(task)(main_kernel, c, {device.filter_string!r}) for c in np.array_split(data, 6)]
    results = dask.compute(*tasks, scheduler="processes", num_workers=2)
    check(results, data)
""")
    assert "ok 6" in out


def test_dask_distributed_local_cluster(device, tmp_path):
    pytest.importorskip("distributed")
    out = _script(tmp_path, _MAIN_PRELUDE + f"""
from distributed import Client, LocalCluster
if __name__ == "__main__":
    data = np.arange(48, dtype=np.float32)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        chunks = np.array_split(data, 6)
        futures = client.map(task, [main_kernel] * 6, chunks, [{device.filter_string!r}] * 6)
        results = client.gather(futures)
        assert len(set(client.run(lambda: __import__("os").getpid()).values())) == 2
    check(results, data)
""", timeout=300)
    assert "ok 6" in out
