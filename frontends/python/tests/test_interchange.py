"""DLPack 1.0, the buffer protocol and NumPy's conversion protocol of dpk arrays (issue 15, B):
versioned capsules with the read-only flag, ``copy`` and ``dl_device`` as the Array API standard
specifies them, honest device types, ``dpk.from_dlpack``, ``memoryview(a)``, and
``np.asarray(a, copy=False)`` refusing to copy. Device memory no DLPack consumer can address
(OpenCL, Level Zero) is exported only as a host copy, on request.
"""

import ctypes
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk

KDL_CPU, KDL_CUDA, KDL_OPENCL = 1, 2, 4

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


class Consumer:
    """Hands a prepared capsule to NumPy's from_dlpack (which would otherwise ask for a
    versioned one itself)."""

    def __init__(self, capsule, device=(KDL_CPU, 0)):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def host_array(values, host):
    return dpk.asarray(np.asarray(values), device=host)


# ---- export ------------------------------------------------------------------------------------

def test_capsule_version_follows_the_consumers_max_version(host):
    a = host_array(np.arange(6.0).reshape(2, 3), host)
    assert _capsule_name(a.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
    assert _capsule_name(a.__dlpack__(max_version=(1, 3))) == b"dltensor_versioned"
    assert _capsule_name(a.__dlpack__(max_version=(0, 8))) == b"dltensor"
    assert _capsule_name(a.__dlpack__()) == b"dltensor"
    with pytest.raises(dpk.InvalidArgumentError, match="max_version"):
        a.__dlpack__(max_version="1.0")


def test_numpy_from_dlpack_is_writeable_and_shares_memory(host):
    a = host_array(np.arange(6.0).reshape(2, 3), host)
    x = np.from_dlpack(a)
    assert x.flags.writeable
    x[1, 2] = 42
    assert a.asnumpy()[1, 2] == 42
    assert x.ctypes.data == np.asarray(a).ctypes.data


def test_read_only_arrays_export_the_flag(host):
    source = np.arange(4.0)
    source.flags.writeable = False
    a = dpk.from_dlpack(source)
    assert a.device == host
    view = np.from_dlpack(a)  # versioned: the flag travels
    assert not view.flags.writeable and view.ctypes.data == source.ctypes.data
    # A legacy capsule cannot carry the flag: a copy goes out, or nothing with copy=False.
    legacy = np.from_dlpack(Consumer(a.__dlpack__()))
    assert legacy.ctypes.data != source.ctypes.data
    np.testing.assert_array_equal(legacy, source)
    with pytest.raises(BufferError, match="read-only"):
        a.__dlpack__(copy=False)


def test_copy_argument(host):
    a = host_array(np.arange(4, dtype=np.int32), host)
    copied = np.from_dlpack(a, copy=True)
    assert copied.ctypes.data != np.asarray(a).ctypes.data
    copied[0] = 7
    assert a.asnumpy()[0] == 0
    shared = np.from_dlpack(a, copy=False)
    assert shared.ctypes.data == np.asarray(a).ctypes.data
    with pytest.raises(dpk.InvalidArgumentError, match="copy"):
        a.__dlpack__(copy="yes")


def test_device_types_are_honest(device):
    a = dpk.asarray(np.arange(5, dtype=np.float32), device=device)
    kind, ident = a.__dlpack_device__()
    if device.is_host:
        assert (kind, ident) == (KDL_CPU, 0)
        np.testing.assert_array_equal(np.from_dlpack(a), np.arange(5))
        return
    if device.backend == "cuda":
        assert (kind, ident) == (KDL_CUDA, device.ordinal)
        return
    # Device memory of other backends is not host memory and no DLPack consumer addresses it.
    assert kind != KDL_CPU
    if device.backend == "opencl":
        assert (kind, ident) == (KDL_OPENCL, device.ordinal)
    with pytest.raises(BufferError, match="dl_device"):
        np.from_dlpack(a)
    with pytest.raises(dpk.BufferExportError, match="copy=False"):
        a.__dlpack__(dl_device=(KDL_CPU, 0), copy=False)
    # Asked for a host copy, it gives one (flagged as a copy).
    host_copy = np.from_dlpack(a, device="cpu")
    np.testing.assert_array_equal(host_copy, np.arange(5))
    assert host_copy.flags.writeable


def test_stream_argument(device):
    a = dpk.zeros(3, dtype=np.float32, device=device)
    target = {} if device.is_host or device.backend == "cuda" else {"dl_device": (KDL_CPU, 0)}
    a.__dlpack__(stream=None, **target)
    with pytest.raises(dpk.InvalidArgumentError, match="stream"):
        a.__dlpack__(stream="default", **target)
    if device.backend == "cuda":
        with pytest.raises(dpk.InvalidArgumentError, match="ambiguous"):
            a.__dlpack__(stream=0)
    else:
        with pytest.raises(BufferError, match="stream"):
            a.__dlpack__(stream=5, **target)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_arrays_travel_as_dlpack_complex(device, dtype):
    """kDLComplex both ways: complex arrays export without a copy wherever real ones do (the
    host, CUDA memory) and a complex producer is wrapped, not copied."""
    if dtype == np.complex128 and not device.has_fp64:
        pytest.skip(f"{device.filter_string} has no float64")
    values = (np.arange(6) + 1j * np.arange(6)[::-1]).astype(dtype)
    a = dpk.asarray(values, device=device)
    if device.is_host:
        x = np.from_dlpack(a)
        assert x.dtype == dtype and x.ctypes.data == np.asarray(a).ctypes.data
        np.testing.assert_array_equal(x, values)
        back = dpk.from_dlpack(values)  # NumPy's complex capsule: wrapped in place
        assert back.dtype == dtype and np.asarray(back).ctypes.data == values.ctypes.data
    elif device.backend == "cuda":
        capsule_owner = dpk.from_dlpack(a)  # a dpk array itself: as asarray
        assert capsule_owner is a
        again = dpk.from_dlpack(Consumer(a.__dlpack__(max_version=(1, 0)),
                                         a.__dlpack_device__()))
        assert again.dtype == dtype and again.device == device
        assert again._ptr == a._ptr  # the same CUDA memory, no copy
        np.testing.assert_array_equal(again.asnumpy(), values)
    host_copy = np.from_dlpack(a, device="cpu", copy=True)
    assert host_copy.dtype == dtype
    np.testing.assert_array_equal(host_copy, values)


# ---- dpk.from_dlpack ---------------------------------------------------------------------------

def test_from_dlpack_wraps_host_memory_without_a_copy(host):
    source = np.arange(12, dtype=np.int64).reshape(3, 4)
    a = dpk.from_dlpack(source)
    assert a.device == host and a.shape == (3, 4) and a.dtype == np.int64
    assert np.asarray(a).ctypes.data == source.ctypes.data
    source[0, 0] = 99
    assert a.asnumpy()[0, 0] == 99
    strided = dpk.from_dlpack(source[:, ::2])
    np.testing.assert_array_equal(strided.asnumpy(), source[:, ::2])
    zero_d = dpk.from_dlpack(np.array(3.5))
    assert zero_d.shape == () and float(zero_d) == 3.5


def test_from_dlpack_copy_and_device(device):
    source = np.arange(8, dtype=np.float32)
    copied = dpk.from_dlpack(source, device=device, copy=True)
    assert copied.device == device
    np.testing.assert_array_equal(copied.asnumpy(), source)
    if device.is_host:
        assert np.asarray(copied).ctypes.data != source.ctypes.data
        assert np.asarray(dpk.from_dlpack(source, copy=False)).ctypes.data == source.ctypes.data
    else:
        with pytest.raises(BufferError, match="copy"):
            dpk.from_dlpack(source, device=device, copy=False)
        moved = dpk.from_dlpack(source, device=device)
        np.testing.assert_array_equal(moved.asnumpy(), source)
    # A dpk array itself: as asarray.
    again = dpk.from_dlpack(copied)
    assert again is copied
    with pytest.raises(dpk.UnsupportedError, match="__dlpack__"):
        dpk.from_dlpack(object())


def test_from_dlpack_of_a_read_only_producer_is_read_only(device):
    source = np.arange(4.0)
    source.flags.writeable = False
    a = dpk.from_dlpack(source)
    assert not np.asarray(a).flags.writeable
    with pytest.raises(TypeError):  # memoryview refuses a writable request
        memoryview(a).cast("B")[0:1] = b"x"

    @dpk.kernel
    def scale(item, x):
        x[item.get_id(0)] *= 2

    with pytest.raises(dpk.InvalidArgumentError, match=r"argument 1 \('x'\).*read-only"):
        dpk.call_kernel(scale, dpk.Range(4), a)
    np.testing.assert_array_equal(source, np.arange(4.0))
    # Copied to another device, the data is the caller's own: writable.
    if not device.is_host:
        moved = dpk.from_dlpack(source, device=device)
        dpk.call_kernel(scale, dpk.Range(4), moved)
        np.testing.assert_array_equal(moved.asnumpy(), 2 * np.arange(4.0))


# ---- the buffer protocol and NumPy's __array__ ------------------------------------------------

def test_buffer_protocol_of_host_arrays(host):
    a = host_array(np.arange(6, dtype=np.int16).reshape(2, 3), host)
    view = memoryview(a)
    assert view.shape == (2, 3) and view.format == "h" and not view.readonly
    view[1, 1] = -5
    assert a.asnumpy()[1, 1] == -5
    assert bytes(a) == a.asnumpy().tobytes()
    assert np.frombuffer(a, dtype=np.int16).tolist() == [0, 1, 2, 3, -5, 5]


def test_buffer_protocol_refused_off_the_host(device):
    if device.is_host:
        pytest.skip("host arrays have the buffer protocol")
    a = dpk.zeros(4, dtype=np.float32, device=device)
    with pytest.raises(BufferError, match="asnumpy"):
        memoryview(a)


def test_np_asarray_copy_false_raises_when_a_copy_is_needed(device):
    a = dpk.asarray(np.arange(4.0), device=device)
    if device.is_host:
        assert np.asarray(a, copy=False).ctypes.data == np.asarray(a).ctypes.data
        with pytest.raises(ValueError):
            np.asarray(a, dtype=np.float32, copy=False)
    else:
        with pytest.raises(ValueError, match="copy"):
            np.asarray(a, copy=False)
    copied = np.asarray(a, copy=True)
    copied[0] = 5
    assert a.asnumpy()[0] == 0
    np.testing.assert_array_equal(np.asarray(a), np.arange(4.0))


# ---- mpi4py (buffers and DLPack capsules as MPI sees them) ---------------------------------------

def test_mpi4py_takes_host_arrays_through_buffers_and_dlpack(host, tmp_path):
    """Runs where mpi4py and an MPI library are installed (pip install mpi4py mpich); in a
    child process, which initializes MPI as a singleton."""
    pytest.importorskip("mpi4py")
    script = tmp_path / "mpi_child.py"
    script.write_text(textwrap.dedent("""
        from mpi4py import MPI
        import numpy as np
        import dpk

        class DLPackOnly:
            def __init__(self, a):
                self.a = a
            def __dlpack__(self, **kwargs):
                return self.a.__dlpack__(**kwargs)
            def __dlpack_device__(self):
                return self.a.__dlpack_device__()

        comm = MPI.COMM_SELF
        a = dpk.asarray(np.arange(8.0), device="host")
        for wrap in (lambda x: x, DLPackOnly):
            b = dpk.zeros(8, dtype=np.float64, device="host")
            comm.Sendrecv(wrap(a), dest=0, recvbuf=wrap(b), source=0)
            assert (b.asnumpy() == np.arange(8.0)).all()
        source = np.arange(4.0)
        source.flags.writeable = False
        try:
            comm.Recv(dpk.from_dlpack(source), source=0)
        except BufferError as exc:
            assert "writ" in str(exc), exc
        else:
            raise AssertionError("a read-only array was accepted as a receive buffer")
        print("mpi ok")
    """))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert run.returncode == 0 and "mpi ok" in run.stdout, run.stdout + run.stderr
