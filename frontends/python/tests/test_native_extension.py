"""The native-extension interface (docs/extensions.md): examples/extension/ built with CMake and
nanobind against this dpk (find_package(dpk) through dpk.get_cmake_dir()), then called with dpk
arrays on the host and on every OpenCL CPU device, checked against NumPy and for its ordering
with dpk's own kernels before and after it; on CUDA devices (the GPU machine), a memset on dpk's
stream. The build folder is cached between runs (DPK_EXTENSION_BUILD_DIR overrides where), so a
rerun only relinks what changed.
"""

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpk

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "extension"


def _build_dir():
    explicit = os.environ.get("DPK_EXTENSION_BUILD_DIR")
    if explicit:
        return Path(explicit)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    key = hashlib.sha1(f"{sys.executable}\0{REPO}".encode()).hexdigest()[:12]
    return cache / "dpk" / "extension-example" / key


@pytest.fixture(scope="module")
def ext():
    """The example extension, built (or brought up to date) and imported."""
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("cmake is not installed")
    try:
        import nanobind
    except ImportError:
        pytest.skip("nanobind is not installed")
    build = _build_dir()
    build.mkdir(parents=True, exist_ok=True)
    if not (build / "CMakeCache.txt").exists():
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        subprocess.run([cmake, "-S", str(EXAMPLE), "-B", str(build), *generator,
                        "-DCMAKE_BUILD_TYPE=Release", f"-DPython_EXECUTABLE={sys.executable}",
                        f"-Ddpk_DIR={dpk.get_cmake_dir()}",
                        f"-Dnanobind_DIR={nanobind.cmake_dir()}"],
                       check=True, capture_output=True, text=True)
    built = subprocess.run([cmake, "--build", str(build), "-j", "2"], capture_output=True,
                           text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    [library] = list(build.glob("dpk_blas_ext*.so"))
    spec = importlib.util.spec_from_file_location("dpk_blas_ext", library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _opencl_cpus():
    return [d.filter_string for d in dpk.get_devices(backend="opencl", device_type="cpu")]


OPENCL_CPUS = _opencl_cpus()


# ---- the build kit ---------------------------------------------------------------------------

def test_include_and_cmake_dirs_hold_the_kit():
    include = Path(dpk.get_include())
    assert (include / "dpk" / "extension.hpp").is_file()
    assert (include / "dpk" / "extension.h").is_file()
    dirs = [Path(d) for d in dpk.get_include_dirs()]
    assert any((d / "dpk" / "dpk.h").is_file() for d in dirs)
    assert any((d / "dpk" / "dpk_types.h").is_file() for d in dirs)
    assert (Path(dpk.get_cmake_dir()) / "dpkConfig.cmake").is_file()


def test_capsule_is_exported(core):
    assert type(core._C_API).__name__ == "PyCapsule"
    assert "dpk._core._C_API" in repr(core._C_API)


# ---- host --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gemv_on_host_matches_numpy(ext, dtype):
    rng = np.random.default_rng(1)
    a_np = rng.standard_normal((37, 23)).astype(dtype)
    x_np = rng.standard_normal(23).astype(dtype)
    a = dpk.asarray(a_np, device="host")
    x = dpk.asarray(x_np, device="host")
    y = ext.gemv(a, x, 2.0)
    assert isinstance(y, dpk.Array)
    assert y.device == a.device and y.shape == (37,) and y.dtype == np.dtype(dtype)
    tol = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(dpk.asnumpy(y), 2.0 * a_np @ x_np, rtol=tol, atol=tol)


def test_gemv_reads_strided_views(ext):
    a_np = np.arange(60, dtype=np.float64).reshape(6, 10)
    a = dpk.asarray(a_np, device="host")
    x = dpk.asarray(np.linspace(0, 1, 12), device="host")
    # a transposed, every other column; x every other element, reversed
    y = ext.gemv(a.T[::2], x[::-2][:6])
    np.testing.assert_allclose(dpk.asnumpy(y), a_np.T[::2] @ np.linspace(0, 1, 12)[::-2][:6])


def test_host_work_is_ordered_with_dpk_kernels(ext):
    n = 1 << 16
    x = dpk.arange(n, dtype=dpk.float64, device="host")
    y = x * 3.0 + 1.0           # a dpk kernel before the extension (lazy until it is read)
    out = ext.axpy(2.0, x, y)   # host code: waits for dpk's earlier work
    z = out - x                 # a dpk kernel after it, reading its result
    ref = np.arange(n, dtype=np.float64)
    np.testing.assert_array_equal(dpk.asnumpy(z), 2.0 * ref + (3.0 * ref + 1.0) - ref)


def test_arguments_are_checked(ext):
    a = dpk.ones((3, 4), dtype=dpk.float64, device="host")
    with pytest.raises(TypeError):
        ext.gemv(np.ones((3, 4)), np.ones(4))      # NumPy arrays are no dpk.Array
    with pytest.raises(ValueError, match="gemv needs"):
        ext.gemv(a, dpk.ones(5, dtype=dpk.float64, device="host"))
    with pytest.raises(TypeError, match="float32 or float64"):
        ext.gemv(dpk.ones((3, 4), dtype=dpk.int32, device="host"), dpk.ones(4, dtype=dpk.int32,
                                                                          device="host"))
    assert ext.is_dpk_array(a) and not ext.is_dpk_array(np.ones(3))


def test_native_info_of_the_host(ext):
    info = ext.native_info("host")
    assert info["api"] == "host" and info["device_filter"] == "host:cpu:0"
    assert info["queue"] == 0 and info["arena"] != 0
    assert ext.native_info(dpk.select_device("host")) == info
    assert ext.native_info(dpk.ones(2, device="host")) == info
    q = dpk.Queue("host")
    assert ext.native_info(q)["api"] == "host"
    with pytest.raises(TypeError):
        ext.native_info(42)


def test_fill_u32_on_host(ext):
    x = dpk.zeros(100, dtype=dpk.uint32, device="host")
    ext.fill_u32(x, 0xDEADBEEF)
    assert (dpk.asnumpy(x) == 0xDEADBEEF).all()


# ---- OpenCL: a kernel built with clBuildProgram, enqueued on dpk's own queue --------------------

@pytest.fixture(params=OPENCL_CPUS or [pytest.param(None, marks=pytest.mark.skip(
    reason="no OpenCL CPU device"))])
def opencl_cpu(request):
    return dpk.select_device(request.param)


def _opencl_memory(ext, device):
    info = ext.native_info(device)
    assert info["api"] == "opencl"
    assert info["queue"] and info["context"] and info["device"] and info["platform"]
    return info["memory"]


CL_BUFFER = 5  # DPK_NATIVE_MEMORY_CL_BUFFER


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_opencl_axpy_returns_a_new_array(ext, opencl_cpu, dtype):
    if _opencl_memory(ext, opencl_cpu) == CL_BUFFER:
        pytest.skip("buffer memory strategy: addresses are no kernel arguments")
    rng = np.random.default_rng(2)
    x_np = rng.standard_normal(1000).astype(dtype)
    y_np = rng.standard_normal(1000).astype(dtype)
    x = dpk.asarray(x_np, device=opencl_cpu)
    y = dpk.asarray(y_np, device=opencl_cpu)
    out = ext.axpy(0.5, x, y)
    assert isinstance(out, dpk.Array) and out.device == opencl_cpu and out.dtype == x.dtype
    np.testing.assert_allclose(dpk.asnumpy(out), 0.5 * x_np + y_np, rtol=1e-6)
    # strided views pass as (address, stride)
    out = ext.axpy(2.0, x[::2], y[::-2])
    np.testing.assert_allclose(dpk.asnumpy(out), 2.0 * x_np[::2] + y_np[::-2], rtol=1e-6)


def test_opencl_kernel_is_ordered_between_dpk_kernels(ext, opencl_cpu):
    if _opencl_memory(ext, opencl_cpu) == CL_BUFFER:
        pytest.skip("buffer memory strategy: addresses are no kernel arguments")
    n = 1 << 18
    ref = np.arange(n, dtype=np.float32)
    for _ in range(3):  # asynchronous all the way: any reordering shows in some round
        x = dpk.arange(n, dtype=dpk.float32, device=opencl_cpu)
        y = x * 2.0 + 1.0           # dpk kernel before
        ext.scale(y, 3.0)           # the extension's OpenCL kernel, in place, not waited for
        z = y - 1.0                 # dpk kernel after, reading what the extension wrote
        w = ext.axpy(1.0, z, y)     # the extension again, reading both
        got = dpk.asnumpy(w)
        expected_y = (ref * 2.0 + 1.0) * 3.0
        np.testing.assert_allclose(got, (expected_y - 1.0) + expected_y, rtol=1e-6)


def test_opencl_queue_of_a_device_is_its_arrays_queue(ext, opencl_cpu):
    x = dpk.ones(4, device=opencl_cpu)
    assert ext.native_info(x)["queue"] == ext.native_info(opencl_cpu)["queue"]
    assert ext.native_info(x)["device_filter"] == opencl_cpu.filter_string
    other = dpk.Queue(opencl_cpu)
    info = ext.native_info(other)
    assert info["context"] == ext.native_info(opencl_cpu)["context"]
    assert info["queue"] != ext.native_info(opencl_cpu)["queue"]


def test_host_only_operations_refuse_device_memory(ext, opencl_cpu):
    a = dpk.ones((2, 2), dtype=dpk.float64, device=opencl_cpu)
    x = dpk.ones(2, dtype=dpk.float64, device=opencl_cpu)
    with pytest.raises(ValueError, match="host device only"):
        ext.gemv(a, x)


# ---- CUDA: the driver API on dpk's stream (the GPU machine) ------------------------------------

@pytest.mark.skipif(not dpk.has_device("cuda:gpu"), reason="no CUDA device")
def test_cuda_memset_on_dpks_stream_is_ordered(ext):
    gpu = dpk.select_device("cuda:gpu")
    info = ext.native_info(gpu)
    assert info["api"] == "cuda" and info["queue"] and info["context"]
    n = 1 << 20
    x = dpk.arange(n, dtype=dpk.uint32, device=gpu) + 5   # dpk kernel before
    ext.fill_u32(x, 7)                                     # cuMemsetD32Async on dpk's stream
    y = x * 3                                              # dpk kernel after
    assert (dpk.asnumpy(y) == 21).all()
