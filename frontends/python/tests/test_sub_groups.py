"""Sub-groups (NdItem.get_sub_group, group_ballot, select_from_group) compiled on every test
device and in pure Python: lanes, sizes, ballots, selections of 16-, 32- and 64-bit values, the
ranking idiom the radix sort uses, and the errors."""

import numpy as np
import pytest

import dpk
from dpk import KernelSyntaxError, KernelTypeError
from dpk import kernel_api as kapi

from conftest import run_on


def probe(it, info, ballots, wide, single, narrow):
    g = it.get_global_id(0)
    sg = it.get_sub_group()
    lane = sg.get_local_id()
    info[g, 0] = lane
    info[g, 1] = sg.get_local_range()
    info[g, 2] = sg.get_group_id()
    info[g, 3] = sg.get_group_range()
    ballots[g] = kapi.group_ballot(sg, g % 3 == 0)
    wide[g] = kapi.select_from_group(sg, g * 1000000007, lane + 1)
    single[g] = kapi.select_from_group(sg, np.float32(g) + np.float32(0.5), lane + 1)
    narrow[g] = kapi.select_from_group(sg, np.int16(g - 50), lane + 1)


def run_probe(runner, local):
    n = 3 * local
    info = np.full((n, 4), -1, dtype=np.int64)
    ballots = np.zeros(n, dtype=np.uint32)
    wide = np.zeros(n, dtype=np.int64)
    single = np.zeros(n, dtype=np.float32)
    narrow = np.zeros(n, dtype=np.int16)
    runner(probe, kapi.NdRange((n,), (local,)), info, ballots, wide, single, narrow)
    return info, ballots, wide, single, narrow


def check_probe(results, local, size):
    """The values a sub-group size of `size` implies, the unspecified selections (from a lane
    past the end of a short last sub-group) skipped."""
    info, ballots, wide, single, narrow = results
    for g in range(len(info)):
        l = g % local
        first = g - l % size
        members = min(size, local - (l - l % size))
        assert tuple(info[g]) == (l % size, size, l // size, -(-local // size)), g
        expected = sum(1 << j for j in range(members) if (first + j) % 3 == 0)
        assert ballots[g] == expected, g
        lane = (l % size + 1) % size
        if lane < members:
            src = first + lane
            assert wide[g] == src * 1000000007 and single[g] == np.float32(src) + np.float32(0.5)
            assert narrow[g] == np.int16(src - 50), g


@pytest.mark.parametrize("local", [48, 64])
def test_sub_group_ops(device, local):
    if local > device.max_work_group_size:
        pytest.skip("work-group too large for the device")
    results = run_probe(lambda *a: run_on(device, dpk.kernel(a[0]), *a[1:]), local)
    size = int(results[0][0, 1])
    assert size == device.sub_group_size and 1 <= size <= 32
    check_probe(results, local, size)


def test_sub_groups_in_pure_python():
    check_probe(run_probe(kapi.call_kernel, 48), 48, 1)


def digit_ranks(it, keys, ranks, counts):
    # the radix sort's in-warp ranking: the lanes whose 4-bit digit equals this lane's, from
    # four ballots, starting from the lanes that exist (a ballot of True); the rank is how many
    # of them come before this lane
    g = it.get_global_id(0)
    sg = it.get_sub_group()
    lane = sg.get_local_id()
    d = keys[g] & 15
    peers = kapi.group_ballot(sg, True)
    for b in range(4):
        bit = (d >> b) & 1
        votes = kapi.group_ballot(sg, bit == 1)
        if bit == 1:
            peers &= votes
        else:
            peers &= ~votes
    below = (np.uint32(1) << np.uint32(lane)) - np.uint32(1)
    ranks[g] = kapi.popcount(peers & below)
    counts[g] = kapi.popcount(peers)


def test_ballot_ranking(device):
    n, local = 256, 64
    keys = np.random.default_rng(5).integers(0, 1 << 20, n).astype(np.int32)
    ranks = np.full(n, -1, dtype=np.int32)
    counts = np.full(n, -1, dtype=np.int32)
    run_on(device, dpk.kernel(digit_ranks), kapi.NdRange((n,), (local,)), keys, ranks, counts)
    size = device.sub_group_size
    digits = keys & 15
    for g in range(n):
        first = g - g % size
        same = digits[first:first + size] == digits[g]
        assert ranks[g] == same[:g - first].sum() and counts[g] == same.sum(), g
    if size > 1:
        assert counts.max() > 1  # the test would not notice a ballot of one lane otherwise


def test_sub_group_errors(host):
    def ballot_of_group(it, out):
        out[0] = kapi.group_ballot(it.get_group(), True)

    def select_array(it, out):
        out[0] = kapi.select_from_group(it.get_sub_group(), out, 0)

    def misspelt(it, out):
        out[0] = it.get_sub_group().get_lane()

    out = np.zeros(4, dtype=np.uint32)
    for kernel, error, message in [
            (ballot_of_group, KernelTypeError, "takes the SubGroup of an NdItem"),
            (select_array, KernelTypeError, "moves a number"),
            (misspelt, KernelSyntaxError, "SubGroup has no method get_lane")]:
        with pytest.raises(error, match=message):
            run_on(host, dpk.kernel(kernel), kapi.NdRange((4,), (4,)), out)
    with pytest.raises(TypeError, match="SubGroup of an NdItem"):
        kapi.group_ballot(None, True)
