"""Lane mapping of Range kernels (issue 18, docs/architecture.md "Index space"): dpk runs the
dimension whose accesses are contiguous on the fastest lanes. The results must not change, on
any device, with the mapping on (the default) or off (DPK_LANE_MAPPING=literal); the choice is
reported at diagnostics level 3."""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi


@dpk.kernel
def pairwise_as_written(item: kapi.Item, data, distance):
    i = item.get_id(0)
    j = item.get_id(1)
    d = 0.0
    for k in range(data.shape[1]):
        tmp = data[i, k] - data[j, k]
        d += tmp * tmp
    distance[j, i] = math.sqrt(d)


@dpk.kernel
def ids_3d(item: kapi.Item, out):
    i = item.get_id(0)
    j = item.get_id(1)
    k = item.get_id(2)
    n = item.get_range(0)
    out[k, j, i] = i + 1000 * j + 1000000 * k + n * 0


def test_remapped_kernels_compute_what_they_say(device):
    rng = np.random.default_rng(1)
    data = rng.random((37, 3), dtype=np.float32)  # sizes that divide nothing
    distance = dpk.zeros((37, 37), dtype=np.float32, device=device)
    dpk.call_kernel(pairwise_as_written, dpk.Range(37, 37), dpk.asarray(data, device=device),
                    distance)
    reference = np.sqrt(((data[:, None, :] - data[None, :, :]) ** 2).sum(-1)).T
    np.testing.assert_allclose(distance.asnumpy(), reference, rtol=1e-5, atol=1e-6)

    out = dpk.zeros((5, 6, 7), dtype=np.int64, device=device)
    dpk.call_kernel(ids_3d, dpk.Range(7, 6, 5), out)
    k, j, i = np.meshgrid(np.arange(5), np.arange(6), np.arange(7), indexing="ij")
    np.testing.assert_array_equal(out.asnumpy(), i + 1000 * j + 1000000 * k)


_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import dpk
    sys.path.insert(0, sys.argv[2])
    from test_lane_mapping import pairwise_as_written

    device = dpk.select_device(sys.argv[1])
    data = np.random.default_rng(2).random((50, 4), dtype=np.float32)
    distance = dpk.zeros((50, 50), dtype=np.float32, device=device)
    dpk.call_kernel(pairwise_as_written, dpk.Range(50, 50), dpk.asarray(data, device=device),
                    distance)
    sys.stdout.buffer.write(distance.asnumpy().tobytes())
""")


def _run(device, mapping):
    env = dict(os.environ, DPK_DIAGNOSTICS="3", DPK_LANE_MAPPING=mapping)
    run = subprocess.run([sys.executable, "-c", _SCRIPT, device.filter_string,
                          os.path.dirname(os.path.abspath(__file__))], env=env,
                         capture_output=True, timeout=300)
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout, run.stderr.decode()


def test_mapping_on_and_off_give_identical_results_and_say_why(device):
    auto_bytes, auto_log = _run(device, "auto")
    literal_bytes, literal_log = _run(device, "literal")
    assert auto_bytes == literal_bytes  # bit for bit: only the lanes change
    assert 'mapping="Range dim 0 -> lanes"' in auto_log, auto_log
    assert "the store to 'distance'" in auto_log
    assert "mapping=literal" in literal_log, literal_log
