"""Each error class: unsupported syntax, type errors, argument counts, ranges, local memory with
a Range, return values, mixed devices, and the status -> exception table."""

import inspect
import os

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi

THIS_FILE = os.path.abspath(__file__)


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    for offset, line in enumerate(lines):
        if text in line:
            return first + offset
    raise AssertionError(text)


def test_error_hierarchy():
    assert issubclass(dpk.InvalidRangeError, ValueError)
    assert issubclass(dpk.KernelTypeError, TypeError)
    assert issubclass(dpk.PlacementError, ValueError)
    assert issubclass(dpk.KernelSyntaxError, dpk.CompileError)
    for cls in (dpk.InvalidRangeError, dpk.KernelTypeError, dpk.PlacementError,
                dpk.CompileError, dpk.NoDeviceError, dpk.ParseError, dpk.VerifyError):
        assert issubclass(cls, dpk.DpkError)


@pytest.mark.parametrize("status,cls", [
    (-2, dpk.InvalidArgumentError), (-3, dpk.InvalidRangeError), (-4, dpk.NotFoundError),
    (-5, dpk.UnsupportedError), (-8, dpk.CompileError), (-9, dpk.LaunchError),
    (-14, dpk.ParseError), (-15, dpk.VerifyError), (-16, dpk.NoDeviceError),
    (-17, dpk.PlacementError), (-1, dpk.DpkError), (-99, dpk.DpkError)])
def test_status_translation(core, status, cls):
    with pytest.raises(cls, match="the message") as info:
        core._raise_status(status, "the message")
    assert type(info.value) is cls


def uses_with(item, a):
    i = item.get_id(0)
    with open("x") as f:  # unsupported
        a[i] = 1


def uses_list_comprehension(item, a):
    a[0] = sum([j for j in range(3)])


def uses_slice(item, a):
    a[0:2] = 1


def returns_value(item, a):
    a[0] = 1
    return 5


def iterates_array(item, a):
    for x in a:
        a[0] = x


def calls_print(item, a):
    print(a)


def uses_global_array(item, a):
    a[0] = GLOBAL_ARRAY[0]


GLOBAL_ARRAY = np.zeros(3)


@pytest.mark.parametrize("fn,needle,message,hint", [
    (uses_with, "with open", "With statements are not supported", "for ... in range"),
    (uses_list_comprehension, "sum([", "ListComp expressions are not supported", "calls"),
    (uses_slice, "a[0:2]", "assigning to a slice of an array is not supported",
     "one element at a time"),
    (returns_value, "return 5", "a kernel cannot return a value", "array argument"),
    (iterates_array, "for x in a", "can only loop over range", "range(n)"),
    (calls_print, "print(a)", "calling print is not supported", "device_func"),
    (uses_global_array, "GLOBAL_ARRAY[0]", "global NumPy arrays cannot be used",
     "kernel argument"),
])
def test_unsupported_python_names_file_line_and_source(host, fn, needle, message, hint):
    k = dpk.kernel(fn)
    with pytest.raises(dpk.KernelSyntaxError) as info:
        dpk.call_kernel(k, dpk.Range(2), np.zeros(4))
    err = info.value
    text = str(err)
    assert message in text
    assert err.filename == THIS_FILE
    assert err.lineno == line_of(fn, needle)
    assert needle in err.source_line
    if hint:
        assert hint in err.hint
    # The traceback holds no frame from inside dpk's compiler.
    frames = [f.filename for f in __import__("traceback").extract_tb(info.tb)]
    assert not any("compiler" in f for f in frames), frames


def test_type_errors(host):
    @dpk.kernel
    def k(item, a, b):
        a[item.get_id(0)] = b

    with pytest.raises(dpk.KernelTypeError, match="argument 2"):
        dpk.call_kernel(k, dpk.Range(2), np.zeros(2), "text")
    with pytest.raises(dpk.KernelTypeError, match="not supported"):
        dpk.call_kernel(k, dpk.Range(2), np.zeros(2, dtype=np.complex64), 1.0)
    with pytest.raises(dpk.KernelTypeError, match="1 to 3 dimensions"):
        dpk.call_kernel(k, dpk.Range(2), np.zeros((1, 1, 1, 2)), 1.0)

    @dpk.kernel
    def indexes_scalar(item, a, x):
        a[0] = x[0]

    with pytest.raises(dpk.KernelTypeError, match="cannot be indexed"):
        dpk.call_kernel(indexes_scalar, dpk.Range(1), np.zeros(2), 3)

    @dpk.kernel
    def float_index(item, a):
        a[0.5] = 1

    with pytest.raises(dpk.KernelTypeError, match="indices must be integers"):
        dpk.call_kernel(float_index, dpk.Range(1), np.zeros(2))


def test_python_integers_out_of_bounds_raise_as_numpy_does(host):
    """NumPy 2 (NEP 50): a Python integer takes the dtype of the array or number it meets, and
    one that does not fit raises OverflowError; a kernel says so at compile time, naming the
    line, where it once compiled a constant that failed IR verification. In range, and as a
    NumPy scalar of a wider type, the same expressions compile."""
    @dpk.kernel
    def adds(item, a, b):
        a[0] = b[0] + (1 << 62)  # b is int32

    @dpk.kernel
    def stores(item, a):
        a[0] = 300  # a is int8

    @dpk.kernel
    def negative_unsigned(item, a):
        a[0] = a[0] + -1  # a is uint32

    for kernel, args, message in [
            (adds, (np.zeros(1, np.int64), np.zeros(1, np.int32)), "4611686018427387904 out of "
             "bounds for int32"),
            (stores, (np.zeros(1, np.int8),), "300 out of bounds for int8"),
            (negative_unsigned, (np.zeros(1, np.uint32),), "-1 out of bounds for uint32")]:
        with pytest.raises(dpk.KernelTypeError, match=message) as info:
            dpk.call_kernel(kernel, dpk.Range(1), *args)
        assert "test_errors.py" in str(info.value)
        with pytest.raises(OverflowError):  # NumPy's own verdict on the same expression
            kapi.call_kernel(kernel, dpk.Range(1), *args)

    @dpk.kernel
    def widened(item, a, b):
        a[0] = b[0] + np.int64(1 << 40)

    a = np.zeros(1, np.int64)
    dpk.call_kernel(widened, dpk.Range(1), a, np.full(1, 5, np.int32))
    assert a[0] == 5 + (1 << 40)


def test_wrong_argument_count(host):
    @dpk.kernel
    def k(item, a, b):
        a[item.get_id(0)] = b[0]

    with pytest.raises(dpk.KernelTypeError, match="takes 2 argument"):
        dpk.call_kernel(k, dpk.Range(2), np.zeros(2))
    with pytest.raises(TypeError):
        dpk.call_kernel(k, dpk.Range(2), np.zeros(2), np.zeros(2), np.zeros(2))


def test_non_dividing_nd_range():
    with pytest.raises(dpk.InvalidRangeError, match="does not divide"):
        dpk.NdRange((10, 10), (3, 5))


def test_local_accessor_with_plain_range(host):
    @dpk.kernel
    def k(item, a, scratch):
        pass

    with pytest.raises(dpk.KernelTypeError, match="NdRange"):
        dpk.call_kernel(k, dpk.Range(8), np.zeros(8), dpk.LocalAccessor(8, np.float32))


def test_range_kind_mismatch(host):
    @dpk.kernel
    def wants_nd(it: kapi.NdItem, a):
        a[it.get_global_id(0)] = 1

    with pytest.raises(dpk.KernelTypeError, match="NdRange"):
        dpk.call_kernel(wants_nd, dpk.Range(4), np.zeros(4))

    @dpk.kernel
    def item_method_on_nd(it, a):
        a[it.get_id(0)] = 1

    with pytest.raises(dpk.KernelSyntaxError, match="NdItem has no method get_id"):
        dpk.call_kernel(item_method_on_nd, dpk.NdRange(4, 2), np.zeros(4))

    @dpk.kernel
    def bad_dim(it, a):
        a[0] = it.get_id(1)

    with pytest.raises(dpk.KernelTypeError, match="out of range"):
        dpk.call_kernel(bad_dim, dpk.Range(4), np.zeros(4))


def test_not_a_kernel_or_range(host):
    def plain(item, a):
        pass

    with pytest.raises(dpk.KernelTypeError, match="@dpk.kernel"):
        dpk.call_kernel(plain, dpk.Range(2), np.zeros(2))

    @dpk.kernel
    def k(item, a):
        pass

    with pytest.raises(dpk.KernelTypeError, match="Range or an NdRange"):
        dpk.call_kernel(k, 4, np.zeros(2))
    with pytest.raises(TypeError, match="call_kernel"):
        k(None, np.zeros(2))


def test_mixed_device_arrays_raise_placement_error(host):
    # Two dpk Device objects for distinct devices; a second wrapper of the host device stands
    # in for another device when the machine has only one.
    devices = dpk.get_devices()
    other = next((d for d in devices if d is not host), None)
    if other is None:
        other = dpk.Device(host._dev)  # distinct object, same hardware
    a = dpk.zeros(4, np.float32, device=host)
    b = dpk.Array((4,), np.float32, device=other)

    @dpk.kernel
    def k(item, x, y):
        y[item.get_id(0)] = x[item.get_id(0)]

    with pytest.raises(dpk.PlacementError, match="different devices"):
        dpk.call_kernel(k, dpk.Range(4), a, b)


def test_bad_device_filter(core):
    with pytest.raises(dpk.ParseError, match="column 1"):
        dpk.select_device("@@@")
    assert not dpk.has_device("nosuchbackend:gpu")


def test_no_device_without_fallback(core, tmp_path):
    # With fallback denied, a filter nothing matches is NoDeviceError (a fresh process: the
    # policy is read once per process).
    import subprocess
    import sys
    script = tmp_path / "nodev.py"
    script.write_text("import dpk\n"
                      "try:\n    dpk.select_device('level_zero:accelerator:7')\n"
                      "except dpk.NoDeviceError as e:\n    print('NoDeviceError', e)\n")
    env = dict(os.environ, DPK_FALLBACK="deny")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert "NoDeviceError" in out.stdout, out.stdout + out.stderr


def test_device_function_errors(host):
    @dpk.device_func
    def recurse(x):
        return recurse(x - 1)

    @dpk.kernel
    def k(item, a):
        a[0] = recurse(3)

    with pytest.raises(dpk.KernelSyntaxError, match="recursion"):
        dpk.call_kernel(k, dpk.Range(1), np.zeros(1))

    @dpk.kernel
    def calls_kernel(item, a):
        k(item, a)

    with pytest.raises(dpk.KernelSyntaxError, match="cannot call another kernel"):
        dpk.call_kernel(calls_kernel, dpk.Range(1), np.zeros(1))
