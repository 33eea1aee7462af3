"""dpk queues on CUDA streams of other libraries (Queue.from_cuda_stream), dpk's stream for them
(the __cuda_stream__ protocol), and the CUDA Array Interface's stream field on input. The CUDA
cases need a CUDA device (and CuPy for the cross-library ones): they skip elsewhere and run on
the GPU machine. The ordering tests put a kernel that spins for about 100 ms before it writes on
the producer's stream, so a consumer that were not ordered after it would read the old data."""

import pickle

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi

HAS_CUDA = dpk.has_device("cuda:gpu")
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device (the GPU machine)")

SPIN_FILL = r"""
extern "C" __global__ void spin_fill(int *x, int n, int value, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}
"""
CYCLES = 200_000_000  # about 0.1 s at the H100's clock


@dpk.kernel
def copy_kernel(item: kapi.Item, src, dst):
    i = item.get_id(0)
    dst[i] = src[i]


@dpk.kernel
def add_kernel(item: kapi.Item, x, value):
    i = item.get_id(0)
    x[i] += value


def test_stream_objects_are_checked():
    with pytest.raises(TypeError, match="not a CUDA stream"):
        dpk.Queue.from_cuda_stream(object())
    with pytest.raises(TypeError, match="not a bool"):
        dpk.Queue.from_cuda_stream(True)
    with pytest.raises(dpk.InvalidArgumentError, match="legacy default stream"):
        dpk.Queue.from_cuda_stream(0)

    class Protocol:
        def __cuda_stream__(self):
            return (1, 1234)  # an unknown protocol version
    with pytest.raises(TypeError, match=r"not \(0, handle\)"):
        dpk.Queue.from_cuda_stream(Protocol())
    with pytest.raises(dpk.InvalidArgumentError, match="not a CUDA device"):
        dpk.Queue.from_cuda_stream(1234, device="host")


def test_native_handles_and_the_stream_protocol_elsewhere(device):
    q = dpk.Queue(device)
    handles = q.native_handles()
    assert handles["api"] == {"host": 1, "opencl": 2, "level_zero": 3, "cuda": 4}[device.backend]
    if device.backend == "host":
        assert handles["queue"] == 0 and handles["arena"] != 0
    else:
        assert handles["queue"] != 0
    assert hasattr(q, "__cuda_stream__") == (device.backend == "cuda")
    assert pickle.loads(pickle.dumps(q)).device is device


@needs_cuda
def test_a_second_queue_on_dpk_s_own_stream():
    q = dpk.Queue("cuda:gpu")
    version, handle = q.__cuda_stream__()
    assert version == 0 and handle == q.native_handles()["queue"]
    adopted = dpk.Queue.from_cuda_stream(handle)
    assert adopted.native_handles()["queue"] == handle and adopted.device is q.device
    x = dpk.zeros(1 << 20, dtype=dpk.int32, device=q.device)
    for _ in range(3):  # alternating queues, no events: the stream orders them
        dpk.call_kernel_async(add_kernel, dpk.Range(x.shape[0]), [], x, 1, queue=q)
        dpk.call_kernel_async(add_kernel, dpk.Range(x.shape[0]), [], x, 10, queue=adopted)
    adopted.synchronize()
    np.testing.assert_array_equal(x.asnumpy(), np.full(x.shape, 33))
    del adopted  # borrowed: q's stream lives on
    dpk.call_kernel(add_kernel, dpk.Range(x.shape[0]), x, 1, queue=q)
    np.testing.assert_array_equal(x.asnumpy(), np.full(x.shape, 34))
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(dpk.Queue.from_cuda_stream(handle))


@pytest.fixture
def cupy():
    if not HAS_CUDA:
        pytest.skip("needs a CUDA device (the GPU machine)")
    return pytest.importorskip("cupy")


def _spin_fill(cupy):
    return cupy.RawKernel(SPIN_FILL, "spin_fill")


def test_dpk_launch_ordered_after_cupy_work_on_a_cupy_stream(cupy):
    n = 1 << 20
    x = cupy.zeros(n, dtype=cupy.int32)
    dx = dpk.asarray(x)  # zero-copy, made before the producer's kernel is enqueued
    out = dpk.zeros(n, dtype=dpk.int32, device=dx.device)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        _spin_fill(cupy)(((n + 255) // 256,), (256,), (x, np.int32(n), np.int32(7),
                                                       np.int64(CYCLES)))
    q = dpk.Queue.from_cuda_stream(s)
    assert q.native_handles()["queue"] == s.ptr
    dpk.call_kernel_async(copy_kernel, dpk.Range(n), [], dx, out, queue=q)
    s.synchronize()
    np.testing.assert_array_equal(out.asnumpy(), np.full(n, 7))


def test_cupy_work_ordered_after_dpk_work_on_dpk_s_stream(cupy):
    n = 1 << 20
    q = dpk.Queue("cuda:gpu")
    x = cupy.zeros(n, dtype=cupy.int32)
    dx = dpk.asarray(x)
    theirs = cupy.cuda.ExternalStream(q.__cuda_stream__()[1])
    # dpk's work: a CuPy spin kernel enqueued on dpk's stream stands for a long dpk kernel, then
    # a dpk kernel on the queue.
    with theirs:
        _spin_fill(cupy)(((n + 255) // 256,), (256,), (x, np.int32(n), np.int32(5),
                                                       np.int64(CYCLES)))
    dpk.call_kernel_async(add_kernel, dpk.Range(n), [], dx, 1, queue=q)
    with theirs:
        y = x * 2  # CuPy reads on dpk's stream: after both
    theirs.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(y), np.full(n, 12))


def test_cuda_array_interface_stream_is_waited_for(cupy):
    n = 1 << 20
    x = cupy.zeros(n, dtype=cupy.int32)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        _spin_fill(cupy)(((n + 255) // 256,), (256,), (x, np.int32(n), np.int32(3),
                                                       np.int64(CYCLES)))

    class OnlyCai:  # the interface alone (CuPy's arrays also offer DLPack, which dpk prefers)
        __cuda_array_interface__ = dict(x.__cuda_array_interface__, stream=s.ptr)
        keep = x
    dx = dpk.asarray(OnlyCai())  # waits for s: the data is complete when dpk reads it
    out = dpk.zeros(n, dtype=dpk.int32, device=dx.device)
    dpk.call_kernel(copy_kernel, dpk.Range(n), dx, out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(n, 3))
    with pytest.raises(dpk.InvalidArgumentError, match="0 is disallowed"):
        class ZeroStream:
            __cuda_array_interface__ = dict(x.__cuda_array_interface__, stream=0)
            keep = x
        dpk.asarray(ZeroStream())


def test_dlpack_import_orders_the_producer_s_stream_before_dpk(cupy):
    n = 1 << 20
    x = cupy.zeros(n, dtype=cupy.int32)
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        _spin_fill(cupy)(((n + 255) // 256,), (256,), (x, np.int32(n), np.int32(9),
                                                       np.int64(CYCLES)))
        dx = dpk.from_dlpack(x)  # dpk passes its stream; CuPy makes it wait for s
    out = dpk.zeros(n, dtype=dpk.int32, device=dx.device)
    dpk.call_kernel(copy_kernel, dpk.Range(n), dx, out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(n, 9))


def test_dpk_launch_ordered_after_pytorch_work_on_a_pytorch_stream():
    if not HAS_CUDA:
        pytest.skip("needs a CUDA device (the GPU machine)")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("this PyTorch has no CUDA")
    n = 1 << 20
    x = torch.zeros(n, dtype=torch.int32, device="cuda")
    dx = dpk.asarray(x)  # zero-copy (DLPack), made before PyTorch's work is enqueued
    out = dpk.zeros(n, dtype=dpk.int32, device=dx.device)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(CYCLES)  # PyTorch's own spinning kernel
        x.fill_(4)
    q = dpk.Queue.from_cuda_stream(s)  # a torch.cuda.Stream (.cuda_stream)
    assert q.native_handles()["queue"] == s.cuda_stream
    dpk.call_kernel_async(copy_kernel, dpk.Range(n), [], dx, out, queue=q)
    s.synchronize()
    np.testing.assert_array_equal(out.asnumpy(), np.full(n, 4))
