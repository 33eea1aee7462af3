"""External device code in kernels: ``dpk.declare_device`` and ``@dpk.kernel(link=[...])``
(docs/linking.md). Each device links the files it can use from one list: LLVM IR (.ll) and
bitcode (.bc, made here from the .ll with llvm-as-15) on the host, SPIR-V and CUDA; OpenCL C
(.cl) on OpenCL devices (a device that takes SPIR-V and OpenCL C gets OpenCL C when a .cl file is
linked); PTX (.ptx) and CUDA C (.cu, NVRTC) on CUDA. Errors are dpk.LinkError naming file,
symbol and device."""

import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import dpk

from conftest import run_on

DATA = pathlib.Path(__file__).resolve().parents[3] / "tests" / "data" / "link"
LL = str(DATA / "my_math.ll")
CL = str(DATA / "my_math.cl")
PTX = str(DATA / "my_math.ptx")
CU = str(DATA / "my_math.cu")

my_add = dpk.declare_device("my_add", "int32(int32, int32)")
my_scale = dpk.declare_device("my_scale", "float64(float64)")
my_fma3 = dpk.declare_device("my_fma3", "float32(float32, float32)")
twice_at = dpk.declare_device("twice_at", "void(float32[:], int64)")


def _is_cuda(device):
    return "cuda" in str(device).lower()


@pytest.fixture(scope="module")
def bitcode(tmp_path_factory):
    tool = shutil.which("llvm-as-15") or shutil.which("llvm-as")
    if tool is None:
        pytest.skip("llvm-as-15 is not installed")
    out = tmp_path_factory.mktemp("link") / "my_math.bc"
    subprocess.run([tool, LL, "-o", str(out)], check=True)
    return str(out)


def _math_kernel(link):
    @dpk.kernel(link=link)
    def math_kernel(item, x, y):
        i = item.get_id(0)
        x[i] = my_add(x[i], 7)
        y[i] = my_scale(y[i])

    return math_kernel


def _check_math(device, kernel, n=64):
    x = np.arange(n, dtype=np.int32) - 20
    y = np.linspace(-3.0, 5.0, n)
    x0, y0 = x.copy(), y.copy()
    run_on(device, kernel, dpk.Range(n), x, y)
    np.testing.assert_array_equal(x, x0 + 7)
    np.testing.assert_allclose(y, y0 * 0.5 + 1.0, rtol=1e-12)


def test_declare_device_parses_signatures():
    assert my_add.name == "my_add"
    assert my_add.restype == np.int32
    assert my_add.argtypes == ((np.dtype(np.int32), False), (np.dtype(np.int32), False))
    assert twice_at.restype is None
    assert twice_at.argtypes[0] == (np.dtype(np.float32), True)
    assert dpk.declare_device("f", "bool()").argtypes == ()
    with pytest.raises(ValueError, match="C identifier"):
        dpk.declare_device("my.add", "int32(int32)")
    with pytest.raises(ValueError, match="restype"):
        dpk.declare_device("f", "int32")
    with pytest.raises(TypeError, match="not a NumPy scalar type"):
        dpk.declare_device("f", "int32(widget)")
    with pytest.raises(TypeError, match="only be called inside a kernel"):
        my_add(1, 2)


def test_llvm_ir_and_opencl_c_from_one_list(device):
    # Every device finds its kind: LLVM IR on the host (and SPIR-V, CUDA), OpenCL C on OpenCL.
    _check_math(device, _math_kernel([CL, LL]))


def _llvm_alone(device, path):
    # Alone, so an OpenCL device that takes SPIR-V links it there (no .cl to prefer).
    try:
        _check_math(device, _math_kernel([path]))
    except dpk.LinkError as error:
        if "can serve target opencl-c" in str(error):
            pytest.skip("this OpenCL device takes OpenCL C only, not SPIR-V")
        raise


def test_llvm_ir_alone(device):
    _llvm_alone(device, LL)


def test_bitcode_alone(device, bitcode):
    _llvm_alone(device, bitcode)


def test_cuda_ptx_and_cuda_c(device):
    if not _is_cuda(device):
        pytest.skip("PTX and CUDA C link on CUDA devices only (the GPU machine runs this)")

    @dpk.kernel(link=[PTX])
    def from_ptx(item, x, y):
        i = item.get_id(0)
        x[i] = my_add(x[i], x[i])
        y[i] = my_fma3(y[i], np.float32(1.0))

    n = 32
    x = np.arange(n, dtype=np.int32)
    y = np.arange(n, dtype=np.float32)
    run_on(device, from_ptx, dpk.Range(n), x, y)
    np.testing.assert_array_equal(x, 2 * np.arange(n))
    np.testing.assert_allclose(y, 3 * np.arange(n) + 1)
    try:
        _check_math(device, _math_kernel([CU]))
    except dpk.LinkError as error:
        if "cannot be loaded" in str(error):
            pytest.skip(f"no NVRTC on this machine: {error}")
        raise


def test_device_function_calls_external(device):
    @dpk.device_func
    def add_twice(a):
        return my_add(my_add(a, a), a)

    @dpk.kernel(link=[LL, CL])
    def triple(item, x):
        i = item.get_id(0)
        x[i] = add_twice(x[i])

    x = np.arange(10, dtype=np.int32)
    run_on(device, triple, dpk.Range(10), x)
    np.testing.assert_array_equal(x, 3 * np.arange(10))


def test_array_argument(device):
    if _is_cuda(device):
        pytest.skip("no PTX of twice_at in the test data")

    @dpk.kernel(link=[str(DATA / "array_host.ll"), str(DATA / "array.cl")])
    def double_all(item, p):
        twice_at(p, item.get_id(0))

    p = np.arange(16, dtype=np.float32)
    run_on(device, double_all, dpk.Range(16), p)
    np.testing.assert_array_equal(p, 2 * np.arange(16, dtype=np.float32))


# ---- errors -------------------------------------------------------------------------------

def test_missing_symbol(device):
    # array.cl / array_host.ll define twice_at only; my_math.ptx has no my_scale.
    kernel = _math_kernel([str(DATA / "my_math.ptx")] if _is_cuda(device) else
                          [str(DATA / "array.cl"), str(DATA / "array_host.ll")])
    with pytest.raises(dpk.LinkError, match="symbol 'my_(add|scale)'") as info:
        _check_math(device, kernel)
    message = str(info.value)
    assert "not defined by" in message
    assert str(DATA) in message
    assert "compiling kernel" in message  # ... for <device> (<target>)


def test_signature_mismatch(device):
    if _is_cuda(device):
        pytest.skip("the CUDA data files have no mismatching definition")
    kernel = _math_kernel([str(DATA / "wrong_sig.cl"), str(DATA / "wrong_sig.ll")])
    with pytest.raises(dpk.LinkError) as info:
        _check_math(device, kernel)
    message = str(info.value)
    assert "symbol 'my_add'" in message
    assert "i32(i32, i32)" in message
    assert "wrong_sig." in message
    assert isinstance(info.value, dpk.CompileError)
    assert info.value.symbol == "my_add"
    assert info.value.file.startswith(str(DATA / "wrong_sig."))
    assert info.value.device == device.filter_string


def test_file_the_device_cannot_use(device):
    # PTX serves CUDA only: every other device says so, naming the file.
    if _is_cuda(device):
        pytest.skip("PTX serves CUDA devices")
    with pytest.raises(dpk.LinkError, match="no linked file can serve target") as info:
        _check_math(device, _math_kernel([PTX]))
    assert "my_math.ptx (PTX: CUDA devices)" in str(info.value)


def test_opencl_c_on_the_host_is_refused(host):
    with pytest.raises(dpk.LinkError, match="can serve target host") as info:
        _check_math(host, _math_kernel([CL]))
    assert "my_math.cl (OpenCL C source" in str(info.value)
    assert "host" in str(info.value)


def test_no_link_at_all(host):
    with pytest.raises(dpk.LinkError, match="no file is linked for target host"):
        _check_math(host, _math_kernel(None))


def test_unreadable_and_unknown_files(host, tmp_path):
    with pytest.raises(dpk.NotFoundError, match="cannot read"):
        _check_math(host, _math_kernel([str(tmp_path / "absent.ll")]))
    notes = tmp_path / "notes.txt"
    notes.write_text("int my_add(int a, int b) { return a + b; }\n")
    with pytest.raises(dpk.LinkError, match="unknown kind of file"):
        _check_math(host, _math_kernel([str(notes)]))
    with pytest.raises(TypeError, match="link takes file paths"):
        dpk.kernel(link=[3])(lambda item: None)


def test_linked_contents_join_the_cache_key(device, tmp_path, monkeypatch):
    # Same IR, same path, new contents: a new cache entry, not the old artifact.
    monkeypatch.setenv("DPK_CACHE_DIR", str(tmp_path / "cache"))
    ll, cl = tmp_path / "plus.ll", tmp_path / "plus.cl"
    results = []
    for extra in (0, 100):
        ll.write_text(f"define i32 @my_add(i32 %a, i32 %b) {{\n  %s = add i32 %a, %b\n"
                      f"  %t = add i32 %s, {extra}\n  ret i32 %t\n}}\n")
        cl.write_text(f"int my_add(int a, int b) {{ return a + b + {extra}; }}\n")
        @dpk.kernel(link=[str(ll), str(cl)])
        def plus(item, x):
            i = item.get_id(0)
            x[i] = my_add(x[i], 1)

        x = np.zeros(8, dtype=np.int32)
        run_on(device, plus, dpk.Range(8), x)
        results.append(x.copy())
    np.testing.assert_array_equal(results[0], np.ones(8))
    np.testing.assert_array_equal(results[1], np.full(8, 101))


def test_program_from_ir_with_link(core, host):
    text = """
extern func @my_add(%a: i32, %b: i32) -> i32
kernel @k(%x: ptr<global, i32>) {
  %i = global_id 0 : i64
  %a = load %x[%i] : i32
  %s = call @my_add(%a, %a) : i32
  store %x[%i], %s
}
"""
    program = core.Program.from_ir(text, "linked_ir", None, [LL])
    assert core.Kernel(program, "k").name == "k"
    with pytest.raises(dpk.NotFoundError):
        core.Program.from_ir(text, "linked_ir", None, [os.devnull + ".missing.ll"])


def test_pickled_kernel_keeps_its_link_list(host):
    import pickle

    @dpk.kernel(link=[CL, LL])
    def add_seven(item, x):
        i = item.get_id(0)
        x[i] = my_add(x[i], 7)

    copy = pickle.loads(pickle.dumps(add_seven))
    assert copy.link == add_seven.link == (CL, LL)
    x = np.arange(5, dtype=np.int32)
    run_on(host, copy, dpk.Range(5), x)
    np.testing.assert_array_equal(x, np.arange(5) + 7)


def test_jit_regions_call_declared_functions(device):
    """``@dpk.jit(link=[...])``: a prange region calls dpk.declare_device functions, linked per
    device from the same list a kernel takes (no fallback to the region's Python, which could
    not call external device code)."""
    link = [PTX] if _is_cuda(device) else [LL, CL]

    @dpk.jit(link=link, fallback="deny")
    def shifted(x, y):
        for i in dpk.prange(x.shape[0]):
            x[i] = my_add(x[i], 7)
            y[i] = my_fma3(y[i], np.float32(2.0))

    n = 100
    x = dpk.asarray(np.arange(n, dtype=np.int32) - 20, device=device)
    y = dpk.asarray(np.linspace(-3.0, 5.0, n).astype(np.float32), device=device)
    x0, y0 = x.asnumpy().copy(), y.asnumpy().copy()
    shifted(x, y)
    np.testing.assert_array_equal(x.asnumpy(), x0 + 7)
    np.testing.assert_allclose(y.asnumpy(), 3.0 * y0 + 2.0, rtol=1e-6)
    assert shifted.link == tuple(os.path.abspath(p) for p in link)
