"""Arguments a kernel must not write (issue 15, D and J): read-only NumPy arrays, np.broadcast_to
and other views whose elements overlap, immutable bytes, read-only buffers (a PROT_READ mmap),
read-only DLPack imports. Passing one to a parameter the kernel writes is dpk.InvalidArgumentError
naming the kernel, the parameter and why, raised before anything runs, on every device, with
nothing written; passing it to a parameter the kernel only reads is fine.
"""

import mmap
import os
import re

import numpy as np
import pytest

import dpk


@dpk.kernel
def fill_ones(item, out):
    out[item.get_id(0)] = 1


@dpk.kernel
def copy_in(item, src, dst):
    i = item.get_id(0)
    dst[i] = src[i]


@dpk.device_func
def bump(x, i):
    x[i] += 1


@dpk.device_func
def peek(x, i):
    return x[i]


@dpk.kernel
def through_functions(item, read, written):
    i = item.get_id(0)
    bump(written, i)
    written[i] += peek(read, i)


def _read_only(n=8, dtype=np.int32):
    a = np.zeros(n, dtype=dtype)
    a.flags.writeable = False
    return a


def _mapped(tmp_path, n=8):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(n)))
    fd = os.open(path, os.O_RDONLY)
    try:
        return mmap.mmap(fd, n, prot=mmap.PROT_READ)
    finally:
        os.close(fd)


CASES = {
    "read-only array": (lambda tmp: _read_only(), r"read-only \(flags.writeable is False\)"),
    "broadcast_to view": (lambda tmp: np.broadcast_to(np.zeros(1, np.int32), (8,)),
                          r"strides \(0,\).*share memory"),
    "overlapping as_strided": (
        lambda tmp: np.lib.stride_tricks.as_strided(np.zeros(16, np.int32), (8, 4), (4, 4),
                                                    writeable=True),
        r"share memory"),
    "bytes": (lambda tmp: bytes(8), "immutable bytes"),
    "read-only memoryview": (lambda tmp: memoryview(bytearray(8)).toreadonly(),
                             "buffer is read-only"),
    "PROT_READ mmap": (_mapped, "buffer is read-only"),
}


@dpk.kernel
def copy_2d(item, src, dst):
    i = item.get_id(0)
    j = item.get_id(1)
    dst[i, j] = src[i, j]


def _contents(arg):
    return np.array(arg if isinstance(arg, np.ndarray) else memoryview(arg), copy=True)


@pytest.mark.parametrize("case", list(CASES))
def test_written_parameter_refuses(device, case, tmp_path):
    make, why = CASES[case]
    arg = make(tmp_path)
    before = _contents(arg)
    shape = before.shape
    with dpk.device_context(device):
        with pytest.raises(dpk.InvalidArgumentError) as info:
            if len(shape) == 2:
                dpk.call_kernel(copy_2d, dpk.Range(*shape), np.ones(shape, before.dtype), arg)
            else:
                dpk.call_kernel(fill_ones, dpk.Range(*shape), arg)
    message = str(info.value)
    kernel, name = ("copy_2d", "dst") if len(shape) == 2 else ("fill_ones", "out")
    assert f"kernel {kernel}(): argument {len(shape)} ('{name}') is written by the kernel" \
        in message, message
    assert re.search(why, message), message
    np.testing.assert_array_equal(_contents(arg), before)  # nothing written


@pytest.mark.parametrize("case", list(CASES))
def test_read_parameter_accepts(device, case, tmp_path):
    arg = CASES[case][0](tmp_path)
    view = arg if isinstance(arg, np.ndarray) else np.asarray(memoryview(arg))
    with dpk.device_context(device):
        if view.ndim == 2:
            out = np.zeros(view.shape, view.dtype)
            dpk.call_kernel(copy_2d, dpk.Range(*view.shape), arg, out)
        else:
            out = np.zeros(view.shape, view.dtype)
            dpk.call_kernel(copy_in, dpk.Range(view.shape[0]), arg, out)
    np.testing.assert_array_equal(out, view)


def test_writes_through_device_functions_count_and_reads_do_not(device):
    read = _read_only(8, np.float64)
    written = np.zeros(8)
    with dpk.device_context(device):
        dpk.call_kernel(through_functions, dpk.Range(8), read, written)
        np.testing.assert_array_equal(written, np.ones(8))
        with pytest.raises(dpk.InvalidArgumentError, match=r"argument 2 \('written'\)"):
            dpk.call_kernel(through_functions, dpk.Range(8), written, read)
    assert not read.any()


def test_the_check_survives_the_cached_launch_plan(device):
    # A writable array first makes a cached plan; the read-only one must still be refused.
    with dpk.device_context(device):
        dpk.call_kernel(fill_ones, dpk.Range(8), np.zeros(8, np.int32))
        frozen = _read_only()
        for _ in range(2):
            with pytest.raises(dpk.InvalidArgumentError):
                dpk.call_kernel(fill_ones, dpk.Range(8), frozen)
        assert not frozen.any()
        dpk.call_kernel(fill_ones, dpk.Range(8), np.zeros(8, np.int32))


def test_read_only_dpk_arrays(device):
    source = _read_only()
    imported = dpk.from_dlpack(source)  # zero-copy on the host, read-only
    with pytest.raises(dpk.InvalidArgumentError, match="read-only dpk array"):
        dpk.call_kernel(fill_ones, dpk.Range(8), imported)
    assert not source.any()
    wrapped = dpk.asarray(source, device="host", copy=False)
    with pytest.raises(dpk.InvalidArgumentError, match="read-only"):
        dpk.call_kernel(fill_ones, dpk.Range(8), wrapped)
    out = dpk.zeros(8, dtype=np.int32, device=device)
    if device.is_host:
        dpk.call_kernel(copy_in, dpk.Range(8), imported, out)  # reading it is fine
    np.testing.assert_array_equal(out.asnumpy(), np.zeros(8))


def test_read_only_dlpack_producer_as_kernel_argument(device):
    class DLPackOnly:
        def __init__(self, source):
            self.source = source

        def __dlpack__(self, **kwargs):
            return self.source.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.source.__dlpack_device__()

    source = _read_only()

    @dpk.kernel(device=device.filter_string)
    def fill(item, out):
        out[item.get_id(0)] = 1

    with pytest.raises(dpk.InvalidArgumentError, match="read-only"):
        dpk.call_kernel(fill, dpk.Range(8), DLPackOnly(source))
    assert not source.any()
