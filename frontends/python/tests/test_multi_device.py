"""Several devices in one process: the Data Parallel Essentials example as written (`X1` on the
second device, `X2` on the first, `X1 + X2` is the device-mismatch error, `X1.to_device(...)`
moves the data), and kernels plus array expressions running on each device at once from
threads of one Python process.

The pairs come from what the machine has: two GPUs of one backend where they exist (`gpu:1`
and `gpu:0`, the example's own filters, on the two-GPU machine), else two CPU devices of
different backends (the host backend and an OpenCL CPU runtime here). A machine with a single
device has no pair: the tests skip and say so."""

import threading

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi


def _device_pairs():
    """(first, second) filter-string pairs of distinct devices: the example's `gpu:0`/`gpu:1`
    where there are two GPUs, two devices of one backend and type (two OpenCL CPU runtimes, two
    CUDA GPUs), and two devices of different backends."""
    pairs = [("gpu:0", "gpu:1")] if dpk.has_device("gpu:1") else []
    devices = [d.filter_string for d in dpk.get_devices()]
    by_kind = {}
    for f in devices:
        by_kind.setdefault(f.rsplit(":", 1)[0], []).append(f)
    pairs += [(fs[0], fs[1]) for fs in by_kind.values() if len(fs) >= 2]
    if len(by_kind) >= 2:
        first, second = list(by_kind.values())[:2]
        pairs.append((first[0], second[0]))
    return pairs or [pytest.param(None, None, marks=pytest.mark.skip(
        reason="this machine has one device; several devices need two"))]


PAIRS = _device_pairs()


@dpk.kernel
def saxpy(item: kapi.Item, a, x, y, out):
    i = item.get_id(0)
    out[i] = a * x[i] + y[i]


@pytest.mark.parametrize("first,second", PAIRS)
def test_data_parallel_essentials_example(first, second):
    # As the example writes it: X1 on the second device, X2 on the first.
    x1 = dpk.asarray([1.0, 2.0, 3.0], device=second)
    x2 = dpk.asarray([10.0, 20.0, 30.0], device=first)
    assert x1.device is dpk.select_device(second)
    assert x2.device is dpk.select_device(first)
    assert x1.device is not x2.device

    with pytest.raises(dpk.DeviceMismatchError) as err:
        x1 + x2
    message = str(err.value)
    assert x1.device.filter_string in message and x2.device.filter_string in message
    assert "to_device" in message

    moved = x1.to_device(x2.device)
    assert moved.device is x2.device and x1.device is dpk.select_device(second)
    total = moved + x2
    assert total.device is x2.device
    np.testing.assert_array_equal(total.asnumpy(), [11.0, 22.0, 33.0])
    # The source is untouched by the move.
    np.testing.assert_array_equal(x1.asnumpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("first,second", PAIRS)
def test_kernels_and_expressions_run_on_each_device_at_once(first, second):
    n, rounds = 1 << 16, 20
    rng = np.random.default_rng(7)
    x_host = rng.random(n, dtype=np.float32)
    y_host = rng.random(n, dtype=np.float32)
    results, errors = {}, []
    start = threading.Barrier(2)

    def work(filter_string, a):
        try:
            dev = dpk.select_device(filter_string)
            x = dpk.asarray(x_host, device=dev)
            y = dpk.asarray(y_host, device=dev)
            out = dpk.empty(n, dtype=dpk.float32, device=dev)
            start.wait()
            for _ in range(rounds):
                dpk.call_kernel(saxpy, dpk.Range(n), np.float32(a), x, y, out)
                y = dpk.sqrt(out * out) - x  # an array expression on the same device
            assert out.device is dev and y.device is dev
            results[filter_string] = (y.asnumpy(), float(dpk.sum(out)))
        except BaseException as exc:  # reported by the main thread
            errors.append((filter_string, exc))

    threads = [threading.Thread(target=work, args=(first, 2.0)),
               threading.Thread(target=work, args=(second, 3.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors

    for filter_string, a in ((first, 2.0), (second, 3.0)):
        y = y_host.astype(np.float32)
        for _ in range(rounds):
            out = np.float32(a) * x_host + y
            y = np.sqrt(out * out) - x_host
        got_y, got_sum = results[filter_string]
        np.testing.assert_allclose(got_y, y, rtol=1e-4, atol=1e-4)
        assert got_sum == pytest.approx(float(out.sum(dtype=np.float64)), rel=1e-4)


PEER_SCRIPT = """
import json
import numpy as np
import dpk
a = dpk.asarray(np.arange(1 << 20, dtype=np.float32), device="cuda:gpu:1")
with dpk.diagnostics.capture() as records:
    b = a.to_device("cuda:gpu:0")
copies = [r for r in records if r.get("event") == "transfer"]
print("RESULT", json.dumps({"copies": [[r["direction"], r["staged"]] for r in copies],
                            "equal": bool(np.array_equal(a.asnumpy(), b.asnumpy()))}))
"""


@pytest.mark.skipif(not dpk.has_device("cuda:gpu:1"), reason="needs two CUDA GPUs")
def test_to_device_between_cuda_gpus_copies_device_to_device():
    """Both ends are CUDA device memory: one copy, GPU to GPU, not staged through the host
    (which ran at about 1 GiB/s for 256 MiB on two H200s)."""
    import json
    import os
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", PEER_SCRIPT], capture_output=True, text=True,
                          env=dict(os.environ, DPK_DIAGNOSTICS="3"), timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.split("RESULT", 1)[1])
    assert result["equal"]
    assert result["copies"] == [["d2d", False]]
