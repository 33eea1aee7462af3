"""`@dpk.kernel(min_groups_per_cu=N)`: the occupancy request reaches the IR (and, where the group
size is known, CUDA's PTX as `.maxntid`/`.minnctapersm`, tested in DeviceArtifactTest), the
kernel computes the same on every device, bad values are TypeErrors, and pickling keeps it."""

import pickle

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi

from conftest import run_on


@dpk.kernel(min_groups_per_cu=3)
def group_sums(it: kapi.NdItem, x, out, tmp):
    lid = it.get_local_id(0)
    g = it.get_group().get_group_id(0)
    tmp[lid] = x[it.get_global_id(0)]
    kapi.group_barrier(it.get_group())
    if lid == 0:
        s = x.dtype.type(0)
        for j in range(it.get_local_range(0)):
            s += tmp[j]
        out[g] = s


def test_kernel_with_an_occupancy_request_runs_everywhere(device):
    x = np.arange(4 * 64, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    run_on(device, group_sums, kapi.NdRange((256,), (64,)), x, out,
           kapi.LocalAccessor(64, np.float32))
    np.testing.assert_array_equal(out, x.reshape(4, 64).sum(axis=1))


def test_the_request_is_in_the_kernel_ir(host):
    x = np.zeros(64, dtype=np.float32)
    ir = group_sums.inspect_ir(kapi.NdRange((64,), (64,)), x, np.zeros(1, np.float32),
                               kapi.LocalAccessor(64, np.float32))
    assert "min_groups_per_cu(3)" in ir
    plain = dpk.kernel(group_sums.py_func)
    assert "min_groups_per_cu" not in plain.inspect_ir(
        kapi.NdRange((64,), (64,)), x, np.zeros(1, np.float32), kapi.LocalAccessor(64, np.float32))


@pytest.mark.parametrize("bad", [-1, 65, 2.0, True, "3"])
def test_bad_requests_are_type_errors(bad):
    with pytest.raises(TypeError, match="min_groups_per_cu must be an int from 0 to 64"):
        dpk.kernel(min_groups_per_cu=bad)(group_sums.py_func)


def test_pickled_kernel_keeps_its_request():
    assert pickle.loads(pickle.dumps(group_sums)) is group_sums  # by reference

    @dpk.kernel(min_groups_per_cu=2)
    def local_copy(it: kapi.NdItem, x, y):
        y[it.get_global_id(0)] = x[it.get_global_id(0)]

    blob = pickle.dumps(local_copy)
    assert b"def local_copy" in blob  # by source, with its options
    assert pickle.loads(blob).min_groups_per_cu == 2
