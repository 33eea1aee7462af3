"""LSD radix sort of unsigned keys with values carried along (radix_sort_pairs), 8 bits a pass.

Each pass: each of B blocks counts its digits, an exclusive scan over the (digit, block) table
gives every block's first slot per digit, and each block moves its elements there in order.
Blocks keep their order and each keeps its own, so every pass, and the sort, is stable.

The passes come in three shapes (docs/primitives.md, "What runs where, and why"):
  - CPU-shaped (common.kernel_shape "cpu"): one work-item walks each block serially; a count
    kernel, cumulative_sum over the table, a scatter kernel.
  - GPU-shaped where sub-groups are warps of 32 (CUDA; Device.sub_group_size): one kernel a
    pass (_radix_onesweep: warps rank their keys by ballots, tiles find their offsets by a
    decoupled look-back), after one count of every pass's digits; it may sort keys alone.
  - GPU-shaped otherwise: a count kernel, a scan kernel and a scatter that ranks each round of
    256 keys with bit masks in local memory and popcounts (_radix_scatter_groups).
"""

from __future__ import annotations

import builtins

import numpy as np

from ..arrays import dtypes as D
from ..arrays.array_object import empty, zeros
from ..arrays.statistical_functions import cumulative_sum
from ..kernels.dispatcher import device_func, kernel, launch_in_order
from ..kernels.kapi import (AddressSpace, AtomicRef, LocalAccessor, MemoryScope, NdItem,
                           NdRange, PrivateArray, group_ballot, group_barrier, popcount,
                           select_from_group)
from .common import BINS, GROUP, RADIX_BITS, kernel_shape, serial_walkers
from .float_keys import float_key, float_of_key, float_special

# ---- radix sort -------------------------------------------------------------------------------

@kernel
def _radix_histogram(item: NdItem, keys, counts, n, nblocks, block, shift):
    # block b counts the digits of its elements into counts[digit * nblocks + b]
    b = item.get_global_id(0)
    h = PrivateArray(BINS, np.int64, fill_zeros=True)
    start = b * block
    end = min(start + block, n)
    for i in range(start, end):
        h[(keys[i] >> shift) & (BINS - 1)] += 1
    for d in range(BINS):
        counts[d * nblocks + b] = h[d]


@kernel
def _radix_scatter(item: NdItem, keys, values, keys_out, values_out, offsets, n, nblocks, block,
                   shift):
    # block b moves its elements, in order, to the slots the scan of the counts gave it
    b = item.get_global_id(0)
    slot = PrivateArray(BINS, np.int64)
    for d in range(BINS):
        slot[d] = offsets[d * nblocks + b]
    start = b * block
    end = min(start + block, n)
    for i in range(start, end):
        k = keys[i]
        d = (k >> shift) & (BINS - 1)
        p = slot[d]
        slot[d] = p + 1
        keys_out[p] = k
        values_out[p] = values[i]


def _blocks(n, device):
    cores = max(device._dev.compute_units, 1)
    target = 4 * cores if device.device_type == "cpu" else 64 * cores
    nblocks = builtins.max(1, builtins.min(target, -(-n // 4096)))
    block = -(-n // nblocks)
    return -(-n // block), block


# GPU shape: a block is a tile of GROUP * rounds keys, one work-group per tile. In round r
# work-item l holds key tile_start + r * GROUP + l (coalesced loads), so (r, l) is the keys'
# order within the tile.

MASK_WORDS = GROUP // 32  # a bit per work-item, per digit


@kernel
def _radix_histogram_groups(it: NdItem, keys, counts, n, nblocks, rounds, shift, hist):
    # work-group g counts the digits of its tile in local memory (local atomics); work-item d
    # stores digit d's count at counts[d * nblocks + g]
    lid = it.get_local_id(0)
    group = it.get_group()
    g = group.get_group_id(0)
    hist[lid] = 0
    group_barrier(group)
    start = g * rounds * GROUP
    for r in range(rounds):
        i = start + r * GROUP + lid
        if i < n:
            AtomicRef(hist, (keys[i] >> shift) & (BINS - 1), memory_scope=MemoryScope.WORK_GROUP,
                      address_space=AddressSpace.LOCAL).fetch_add(1)
    group_barrier(group)
    counts[lid * nblocks + g] = hist[lid]


@kernel
def _radix_offsets_groups(it: NdItem, counts, offsets, totals, nblocks, chunk, scan):
    # work-group d scans row d of the (digit, tile) count table: offsets[d * nblocks + b] is
    # the number of keys of digit d in tiles before b; totals[d] is the row's sum. Work-item l
    # sums its chunk of the row, a Hillis-Steele scan of the chunk sums gives its carry.
    lid = it.get_local_id(0)
    group = it.get_group()
    row = group.get_group_id(0) * nblocks
    lo = min(lid * chunk, nblocks)
    hi = min(lo + chunk, nblocks)
    own = 0
    for b in range(lo, hi):
        own += counts[row + b]
    scan[lid] = own
    group_barrier(group)
    src = 0
    step = 1
    while step < GROUP:
        v = scan[src + lid]
        if lid >= step:
            v += scan[src + lid - step]
        scan[GROUP - src + lid] = v
        group_barrier(group)
        src = GROUP - src
        step *= 2
    acc = scan[src + lid] - own
    for b in range(lo, hi):
        c = counts[row + b]
        offsets[row + b] = acc
        acc += c
    if lid == GROUP - 1:
        totals[group.get_group_id(0)] = acc


@kernel
def _radix_scatter_groups(it: NdItem, keys, values, keys_out, values_out, counts, offsets,
                          totals, n, nblocks, rounds, shift, masks, tally, base, scan, gbase,
                          perm):
    # Stable within the tile, in three steps.
    # (1) start[d], the tile's first local slot of digit d: a work-group scan (Hillis-Steele,
    #     in `scan`) of the tile's digit counts; with it, of the digits' totals (the keys of
    #     smaller digits); gbase[d] = that + offsets[d, tile] - start[d].
    # (2) Each round, every work-item sets its bit in its digit's mask (local atomic or) and
    #     counts the digit in tally (local atomic add); its rank among the round's keys of that
    #     digit is the number of bits below its own, and its key's tile offset goes to
    #     perm[base[d] + rank], base[d] being the digit's next free local slot (start[d],
    #     advanced by each round's tally). masks, tally and base are double-buffered by round
    #     parity (two barriers a round); a work-item clears the mask word it set the round
    #     before.
    # (3) perm lists the tile's keys sorted by digit, stably: slot q goes to gbase[d] + q, so
    #     consecutive work-items store to consecutive addresses within each digit's run.
    lid = it.get_local_id(0)
    group = it.get_group()
    g = group.get_group_id(0)
    start = g * rounds * GROUP
    c = counts[lid * nblocks + g]
    t = totals[lid]
    scan[lid] = c
    scan[2 * BINS + lid] = t
    for w in range(2 * MASK_WORDS):
        masks[lid * 2 * MASK_WORDS + w] = np.uint32(0)
    tally[lid] = 0
    tally[BINS + lid] = 0
    group_barrier(group)
    src = 0
    step = 1
    while step < BINS:
        v = scan[src + lid]
        u = scan[2 * BINS + src + lid]
        if lid >= step:
            v += scan[src + lid - step]
            u += scan[2 * BINS + src + lid - step]
        scan[BINS - src + lid] = v
        scan[3 * BINS - src + lid] = u
        group_barrier(group)
        src = BINS - src
        step *= 2
    first = scan[src + lid] - c
    base[lid] = first
    gbase[lid] = scan[2 * BINS + src + lid] - t + offsets[lid * nblocks + g] - first
    group_barrier(group)
    half = BINS * MASK_WORDS
    word = lid >> 5
    bit = np.uint32(1) << np.uint32(lid & 31)
    below = bit - np.uint32(1)
    mine = -1  # the mask word this work-item set in the round before
    for r in range(rounds):
        cur_base = (r & 1) * BINS
        nxt_base = BINS - cur_base
        i = start + r * GROUP + lid
        d = (keys[min(i, n - 1)] >> shift) & (BINS - 1)
        row = (r & 1) * half + d * MASK_WORDS
        if i < n:
            AtomicRef(masks, row + word, memory_scope=MemoryScope.WORK_GROUP,
                      address_space=AddressSpace.LOCAL).fetch_or(bit)
            AtomicRef(tally, cur_base + d, memory_scope=MemoryScope.WORK_GROUP,
                      address_space=AddressSpace.LOCAL).fetch_add(1)
        group_barrier(group)
        if mine >= 0:
            masks[mine] = np.uint32(0)
            mine = -1
        if i < n:
            rank = int(popcount(masks[row + word] & below))
            for w in range(word):
                rank += int(popcount(masks[row + w]))
            perm[base[cur_base + d] + rank] = np.int32(r * GROUP + lid)
            mine = row + word
        # work-item lid, as digit lid: the next round's slot and tally
        base[nxt_base + lid] = base[cur_base + lid] + tally[cur_base + lid]
        tally[nxt_base + lid] = 0
        group_barrier(group)
    size = min(rounds * GROUP, n - start)
    for r in range(rounds):
        q = r * GROUP + lid
        if q < size:
            j = start + perm[q]
            k = keys[j]
            p = gbase[(k >> shift) & (BINS - 1)] + q
            keys_out[p] = k
            values_out[p] = values[j]


MAX_ROUNDS = 8  # H100, 2^24 keys: 8 rounds 1.07 ms per scatter pass, 16 rounds 1.5, 32 1.75


def _tiles(n, device):
    """(tiles, rounds) of the GPU-shaped passes: about 8 work-groups per compute unit, at most
    MAX_ROUNDS keys per work-item (fewer rounds, more work-groups: the scatter's barriers and
    scattered stores are latency that more groups in flight hide)."""
    cores = max(device._dev.compute_units, 1)
    rounds = builtins.max(1, builtins.min(MAX_ROUNDS, -(-n // (GROUP * 8 * cores))))
    return -(-n // (GROUP * rounds)), rounds


# GPU shape with sub-groups, one kernel a pass (as CUB's "onesweep" sort): the digit counts of
# every pass come from one read of the keys before the first pass (_radix_digit_counts), and each
# tile learns how many keys of each digit the tiles before it hold by looking back at what they
# publish (a decoupled look-back), instead of a count kernel and a scan kernel per pass.
#
# A tile is WARP_ROUNDS * GROUP keys; sub-group w of the work-group ranks the w-th run of
# WARP_ROUNDS * S keys of the tile (S = the sub-group size), S consecutive keys a round, so
# (w, round, lane) is the keys' order within the tile. Where S is 32 (CUDA) that is 8 warps of a
# 256-wide group. The rounds are a compile-time constant so that their loops unroll: every
# round's loads are in flight together and the per-round state lives in registers.
# H100, 2^24 (u32, f32) pairs, 4 passes: 12 rounds 1.37-1.78 ms, 16 1.26-1.77, 24 1.83-2.31
WARP_ROUNDS = 16
# Status words of the look-back: a tile's count of a digit with two flags above it (the tile's
# own count is published, or its count with every tile before it). 32 bits where counts fit in
# 30 (inputs of fewer than 2^30 keys: half the status traffic and memset), else 64.
_STATUS32 = (np.dtype(np.uint32), np.uint32(1 << 30), np.uint32(1 << 31), np.uint32((1 << 30) - 1))
_STATUS64 = (np.dtype(np.uint64), np.uint64(1 << 62), np.uint64(1 << 63), np.uint64((1 << 62) - 1))
STATUS32_LIMIT = 1 << 30  # inputs shorter than this get 32-bit status words (tests lower it)
LOOK_BACK = 8  # tiles whose status a look-back step reads together
# Work-groups of the pass that must fit on one compute unit (the kernel's min_groups_per_cu):
# ptxas then keeps to 65536 / (4 * 256) = 64 registers a work-item, spilling some. H100, one
# pass of 2^24 float32 keys (ncu, GPU time): 2 groups (128 registers) 221-230 us, 3 (80)
# 209-216 us, 4 (64) 194-201 us.
ONESWEEP_GROUPS_PER_CU = 4


@kernel
def _radix_digit_counts(it: NdItem, keys, counts, n, passes, chunk, hist, to_key, sign, infinity,
                        largest, flip, canonical):
    # counts[p * BINS + d] += the keys of this group's chunk whose digit of pass p is d; with
    # to_key, `keys` are float bits and their keys are counted (float_keys.py), and
    # counts[passes * BINS] counts the inputs the keys do not give back
    lid = it.get_local_id(0)
    group = it.get_group()
    for e in range(lid, passes * BINS, GROUP):
        hist[e] = 0
    group_barrier(group)
    start = group.get_group_id(0) * chunk
    end = min(start + chunk, n)
    for i in range(start + lid, end, GROUP):
        k = keys[i]
        if to_key:
            if float_special(k, sign, infinity, canonical):
                AtomicRef(counts, passes * BINS).fetch_add(1)
            k = float_key(k, sign, infinity, largest, flip)
        for p in range(passes):
            AtomicRef(hist, p * BINS + ((k >> (p * RADIX_BITS)) & (BINS - 1)),
                      memory_scope=MemoryScope.WORK_GROUP,
                      address_space=AddressSpace.LOCAL).fetch_add(1)
    group_barrier(group)
    for e in range(lid, passes * BINS, GROUP):
        c = hist[e]
        if c != 0:
            AtomicRef(counts, e).fetch_add(c)


@device_func
def _sub_group_inclusive_sum(sg, x):
    # the sum of x over this lane and the lanes below it (Hillis-Steele by selection)
    lane = sg.get_local_id()
    step = 1
    while step < sg.get_local_range():
        below = select_from_group(sg, x, lane - step)
        if lane >= step:
            x += below
        step *= 2
    return x


@kernel(min_groups_per_cu=ONESWEEP_GROUPS_PER_CU)
def _radix_onesweep(it: NdItem, keys, values, keys_out, values_out, counts, status, row,
                    ticket_at, n, pass_index, shift, carry, map_in, map_out, sign, infinity, largest, flip,
                    canonical, aggregate, inclusive, count_mask, hist, tile_first, digit_base,
                    sums, starts, taken, staged_keys, staged_values):
    # (0) Tiles are taken in the order work-groups start (ticket), so a tile only ever waits
    #     for tiles whose work-groups are already running. With map_in (a float sort's first
    #     pass) `keys` are float bits, turned into their keys as they are read; with map_out
    #     (its last pass) the sorted keys are stored as float bits (float_keys.py).
    # (1) Each round, the lanes of a sub-group that hold the same digit find each other with
    #     RADIX_BITS ballots (peers); a key's rank in the round is the number of its peers on
    #     lower lanes. The lowest peer adds the round's count to the sub-group's histogram
    #     (hist[w * BINS + d], a local atomic: only that lane touches the entry this round) and
    #     hands the old count to its peers (select_from_group): pos[r] = old + rank is the key's
    #     place among the sub-group's keys of digit d.
    # (2) Work-item d turns column d of the histograms into exclusive prefixes over sub-groups,
    #     publishes the tile's count of digit d as an aggregate and scans the tile's digit
    #     counts (sub-group scans by selection, then the sub-group sums): tile_first[d] is the
    #     tile's first local slot of digit d.
    # (3) Keys and values go to their local slots tile_first[d] + hist[w, d] + pos[r]: the tile
    #     sorted by digit, stably. Only then does work-item d look back over the tiles before
    #     this one for their counts of digit d (adding aggregates until one publishes an
    #     inclusive count) and publish its own inclusive count, and the group scans the whole
    #     input's digit counts (`counts`, _radix_digit_counts) for digit d's first slot in the
    #     output: the keys held in registers are staged by then, so the registers of the
    #     look-back and the scan are not needed alongside them.
    #     digit_base[d] + q is the global slot of local slot q.
    # (4) Work-item l stores local slots l, l + GROUP, ...: consecutive addresses within each
    #     digit's run (coalesced).
    lid = it.get_local_id(0)
    group = it.get_group()
    sg = it.get_sub_group()
    lane = sg.get_local_id()
    size = sg.get_local_range()
    w = sg.get_group_id()
    warps = sg.get_group_range()
    # this pass's row of `status` starts at `row`: a word per (tile, digit), then the ticket
    # counter at `ticket_at`
    if lid == 0:
        taken[0] = np.int32(AtomicRef(status, ticket_at).fetch_add(1))
    for e in range(lid, warps * BINS, GROUP):
        hist[e] = 0
    group_barrier(group)
    tile = taken[0]
    start = tile * WARP_ROUNDS * GROUP
    run = WARP_ROUNDS * size
    base = start + w * run + lane           # this lane's key of round 0; round r: + r * size
    left = np.int32(min(max(n - base, 0), run))  # rounds r with r * size < left hold a key
    below = (np.uint32(1) << np.uint32(lane)) - np.uint32(1)
    pos = PrivateArray(WARP_ROUNDS, np.int32)
    held = PrivateArray(WARP_ROUNDS, keys.dtype)  # (the keys' own width: 32-bit keys in one
    for r in range(WARP_ROUNDS):                  # register each; every load issued before
        held[r] = keys[min(base + r * size, n - 1)]  # any is used)
    if map_in:
        for r in range(WARP_ROUNDS):
            held[r] = float_key(held[r], sign, infinity, largest, flip)
    for r in range(WARP_ROUNDS):
        valid = np.int32(r * size) < left
        d = np.uint32((held[r] >> shift) & (BINS - 1))
        peers = group_ballot(sg, valid)
        for b in range(RADIX_BITS):
            bit = (d >> np.uint32(b)) & np.uint32(1)
            # the lanes whose bit b equals this lane's: the ballot, inverted where it is 0
            peers &= group_ballot(sg, bit == np.uint32(1)) ^ (bit - np.uint32(1))
        rank = np.int32(popcount(peers & below))
        lowest = np.int32(popcount((peers & (~peers + np.uint32(1))) - np.uint32(1)))
        old = np.int32(0)
        if valid and rank == 0:
            old = AtomicRef(hist, w * BINS + d, memory_scope=MemoryScope.WORK_GROUP,
                            address_space=AddressSpace.LOCAL).fetch_add(
                                np.int32(popcount(peers)))
        pos[r] = select_from_group(sg, old, lowest) + rank
    group_barrier(group)
    count = np.int32(0)
    for v in range(warps):
        c = hist[v * BINS + lid]
        hist[v * BINS + lid] = count
        count += c
    column = row + lid  # digit lid's status words: column + t * BINS for tile t
    mine = column + tile * BINS
    if tile != 0:  # the tile's own counts, for the tiles after it to look back at, early
        AtomicRef(status, mine).store(aggregate | np.uint64(count))
    x = _sub_group_inclusive_sum(sg, count)  # of the tile's digit counts, over the digits
    if lane == size - 1:
        sums[w] = x
    group_barrier(group)
    for v in range(w):
        x += sums[v]
    first = x - count
    tile_first[lid] = first
    group_barrier(group)
    for r in range(WARP_ROUNDS):
        if np.int32(r * size) < left:
            d = np.uint32((held[r] >> shift) & (BINS - 1))
            slot = tile_first[d] + hist[w * BINS + d] + pos[r]
            staged_keys[slot] = held[r]
            if carry:
                staged_values[slot] = values[base + r * size]
    # digit d's first slot in the output: an exclusive scan of the whole input's digit counts
    # (here, with the held keys staged, where registers are free)
    total = counts[pass_index * BINS + lid]
    y = _sub_group_inclusive_sum(sg, total)
    if lane == size - 1:
        starts[w] = y
    group_barrier(group)
    for v in range(w):
        y += starts[v]
    digit_start = y - total
    before = np.int64(0)
    if tile == 0:
        AtomicRef(status, mine).store(inclusive | np.uint64(count))
    else:
        # Walk back over the tiles before this one, adding their counts up to the nearest
        # that publishes an inclusive count. A tile that has published nothing yet is spun on
        # alone (one load a try); past it, LOOK_BACK tiles are read together (their loads in
        # flight at once). Relaxed loads: the status words carry the counts themselves.
        seen = PrivateArray(LOOK_BACK, status.dtype)
        j = tile - 1
        while j >= 0:
            f = AtomicRef(status, column + j * BINS).load()
            if f == 0:
                continue
            before += np.int64(f & count_mask)
            if f >= inclusive:
                break
            j -= 1
            for u in range(LOOK_BACK):
                if j - u >= 0:
                    seen[u] = AtomicRef(status, column + (j - u) * BINS).load()
                else:
                    seen[u] = inclusive  # before the first tile: nothing
            done = False
            waiting = False
            for u in range(LOOK_BACK):
                if not done and not waiting:
                    f = seen[u]
                    if f == 0:
                        waiting = True
                    else:
                        before += np.int64(f & count_mask)
                        j -= 1
                        done = f >= inclusive
            if done:
                break
        AtomicRef(status, mine).store(inclusive | np.uint64(before + count))
    digit_base[lid] = digit_start + before - first
    group_barrier(group)
    stored = min(WARP_ROUNDS * GROUP, n - start)
    for r in range(WARP_ROUNDS):
        q = r * GROUP + lid
        if q < stored:
            k = staged_keys[q]
            p = digit_base[np.uint32((k >> shift) & (BINS - 1))] + q
            if map_out:
                keys_out[p] = float_of_key(k, sign, largest, flip, canonical)
            else:
                keys_out[p] = k
            if carry:
                values_out[p] = staged_values[q]


class _OnesweepPlan:
    """What the sub-group passes over n keys launch with, apart from the data: sizes, ranges,
    the local-memory scratch and the status word constants (made once per shape: a sort's
    Python before its first pass leaves the device idle)."""

    def __init__(self, device, n, kdt, vdt, carry, bits):
        self.passes = passes = -(-bits // RADIX_BITS)
        tiles = -(-n // (GROUP * WARP_ROUNDS))
        groups = builtins.max(1, builtins.min(-(-n // (GROUP * 16)), 8 * device.compute_units))
        self.chunk = -(-n // groups)
        self.count_range = NdRange(groups * GROUP, GROUP)
        self.count_scratch = LocalAccessor(passes * BINS, np.int32)
        self.pass_range = NdRange(tiles * GROUP, GROUP)
        # a row per pass: one status word per (tile, digit), then the tile ticket counter
        self.row_words = tiles * BINS + 1
        self.state_words = passes * self.row_words
        self.status = _STATUS32 if n < STATUS32_LIMIT else _STATUS64
        warps = GROUP // device.sub_group_size
        self.scratch = (LocalAccessor(warps * BINS, np.int32), LocalAccessor(BINS, np.int32),
                        LocalAccessor(BINS, np.int64), LocalAccessor(warps, np.int32),
                        LocalAccessor(warps, np.int64), LocalAccessor(1, np.int32),
                        LocalAccessor(WARP_ROUNDS * GROUP, kdt),
                        LocalAccessor(WARP_ROUNDS * GROUP if carry else 1, vdt))


_plans = {}


def _onesweep_plan(device, n, kdt, vdt, carry, bits):
    key = (device, n, kdt, vdt, carry, bits, STATUS32_LIMIT, WARP_ROUNDS)
    plan = _plans.get(key)
    if plan is None:
        if len(_plans) > 64:
            _plans.clear()
        plan = _plans[key] = _OnesweepPlan(device, n, kdt, vdt, carry, bits)
    return plan


def _onesweep_passes(keys, values, bits, floats=None):
    """radix_sort_pairs' passes on a device whose sub-groups rank (_radix_onesweep); values
    None: the keys alone (the result's values are then None too). `floats`: `keys` are the
    bits of floats and `floats` their key constants (float_keys.key_constants): the passes sort
    by their keys and give back float bits, and the third result counts (on the device, in its
    last element) the inputs whose keys do not give them back. Returns (keys, values, that
    array or None)."""
    n = keys.size
    device = keys.device
    carry = values is not None
    kdt = keys.dtype
    if not carry:  # the kernel's value arguments, never touched
        values = empty((1,), dtype=D.int32, device=device)
    plan = _onesweep_plan(device, n, kdt, values.dtype, carry, bits)
    passes = plan.passes
    # every pass's digit counts, then (floats) the count of inputs the keys do not give back
    counts = zeros((passes * BINS + 1,), dtype=D.int64, device=device)
    if floats is None:
        const = (kdt.type(0),) * 5
    else:
        const = (floats["sign"], floats["infinity"], floats["largest"], floats["flip"],
                 floats["canonical"])
    launch_in_order(_radix_digit_counts, plan.count_range, keys, counts, n, passes, plan.chunk,
                    plan.count_scratch, floats is not None, *const)
    # the passes alternate between two buffers of their own: the inputs are only read
    keys_tmp = (empty((n,), dtype=kdt, device=device), empty((n,), dtype=kdt, device=device))
    values_tmp = (empty((n,), dtype=values.dtype, device=device),
                  empty((n,), dtype=values.dtype, device=device)) if carry else (values, values)
    sdt, aggregate, inclusive, count_mask = plan.status
    state = zeros((plan.state_words,), dtype=sdt, device=device)
    for p in range(passes):
        out_keys, out_values = keys_tmp[p % 2], values_tmp[p % 2]
        launch_in_order(_radix_onesweep, plan.pass_range, keys, values, out_keys, out_values,
                        counts, state, p * plan.row_words, (p + 1) * plan.row_words - 1, n, p,
                        np.uint32(p * RADIX_BITS), carry,
                        floats is not None and p == 0, floats is not None and p == passes - 1,
                        *const, aggregate, inclusive, count_mask, *plan.scratch)
        keys, values = out_keys, out_values
    return keys, values if carry else None, counts if floats else None


def sort_float_bits(bits, floats):
    """The float bits `bits` (unsigned, 1-D, contiguous) sorted in their keys' order by the
    sub-group passes (keys_only_sorts), which make the keys as they read the first pass and
    turn them back as they write the last. Returns (sorted bits, a one-element device array
    counting the inputs whose keys do not give them back: -0.0 and non-canonical NaNs)."""
    keys, _, specials = _onesweep_passes(bits, None, floats["width"], floats)
    return keys, specials


#: Whether the GPU-shaped passes rank by sub-groups: None (the default) where the device's
#: sub-groups are warps of 32 (a 256-wide group has 8), True or False to force it (tests run the
#: sub-group kernel on devices whose sub-groups are single work-items, where it is correct but
#: needs a histogram per work-item).
WARP_RANKING = None


def _warp_ranking(device):
    if WARP_RANKING is not None:
        return WARP_RANKING
    return device.sub_group_size == 32


def keys_only_sorts(device):
    """Whether radix_sort_pairs runs the sub-group passes on `device`, which also sort keys
    without values (values None)."""
    return kernel_shape(device) == "gpu" and _warp_ranking(device)


def radix_sort_pairs(keys, values, bits):
    """Sorts the 1-D unsigned `keys` (their low `bits` bits) stably, moving `values` along;
    returns (sorted keys, values). Per pass of 8 bits: the digit counts of every block, an
    exclusive scan of the (digit, block) table, a stable scatter, in a CPU shape or a GPU shape
    (kernel_shape). CPU: cumulative_sum scans the table. GPU: a work-group per digit scans its
    row and the scatter adds the scan of the 256 row totals (cumulative_sum costs about 0.27
    ms a pass on an H100, mostly launches, against 0.09 ms for the histogram). GPU with
    sub-groups that rank (_warp_ranking): one kernel a pass (_radix_onesweep)."""
    n = keys.size
    device = keys.device
    if keys_only_sorts(device):  # the sub-group passes
        keys, values, _ = _onesweep_passes(keys, values, bits)
        return keys, values
    if values is None:
        raise ValueError("radix_sort_pairs: the keys alone are sorted only by the sub-group "
                         "passes (keys_only_sorts)")
    gpu = kernel_shape(device) == "gpu"
    # the passes alternate between two buffers of their own: the inputs are only read
    keys_tmp = [empty((n,), dtype=keys.dtype, device=device) for _ in range(2)]
    values_tmp = [empty((n,), dtype=values.dtype, device=device) for _ in range(2)]
    if gpu:
        nblocks, rounds = _tiles(n, device)
        launch = NdRange(nblocks * GROUP, GROUP)
    else:
        nblocks, block = _blocks(n, device)
        launch = serial_walkers(nblocks)
    counts = empty((BINS * nblocks,), dtype=D.int32 if gpu else D.int64, device=device)
    if gpu:  # the count table's scan, per digit row, and the rows' totals
        offsets = empty((BINS * nblocks,), dtype=D.int64, device=device)
        totals = empty((BINS,), dtype=D.int64, device=device)
    run = launch_in_order  # queued in order, not waited for (GPUs; the host runs at once)
    for step, shift in enumerate(range(0, bits, RADIX_BITS)):
        out = (keys_tmp[step % 2], values_tmp[step % 2])
        if gpu:
            run(_radix_histogram_groups, launch, keys, counts, n, nblocks, rounds, shift,
                LocalAccessor(GROUP, np.int32))
            run(_radix_offsets_groups, NdRange(BINS * GROUP, GROUP), counts, offsets, totals,
                nblocks, -(-nblocks // GROUP), LocalAccessor(2 * GROUP, np.int64))
            run(_radix_scatter_groups, launch, keys, values, *out, counts, offsets, totals, n,
                nblocks, rounds, shift, LocalAccessor(2 * BINS * MASK_WORDS, np.uint32),
                LocalAccessor(2 * BINS, np.int32), LocalAccessor(2 * BINS, np.int32),
                LocalAccessor(4 * BINS, np.int64), LocalAccessor(BINS, np.int64),
                LocalAccessor(MAX_ROUNDS * GROUP, np.int32))
        else:
            run(_radix_histogram, launch, keys, counts, n, nblocks, block, shift)
            offsets = cumulative_sum(counts, include_initial=True)
            run(_radix_scatter, launch, keys, values, *out, offsets, n, nblocks, block, shift)
        keys, values = out
    return keys, values
