"""Work-group sum reduction with local memory and barriers (a tree inside each work-group)."""

import numpy as np

import dpk
from dpk import kernel_api as kapi


@dpk.kernel
def group_sum(nd_item: kapi.NdItem, data, partial, scratch):
    lid = nd_item.get_local_id(0)
    gid = nd_item.get_global_id(0)
    group = nd_item.get_group()
    size = nd_item.get_local_range(0)
    scratch[lid] = data[gid]
    kapi.group_barrier(group)
    stride = size // 2
    while stride > 0:
        if lid < stride:
            scratch[lid] += scratch[lid + stride]
        kapi.group_barrier(group)
        stride //= 2
    if lid == 0:
        partial[group.get_group_id(0)] = scratch[0]


def run(call_kernel, n=4096, wg=64):
    data = np.arange(n, dtype=np.float64) % 17
    partial = np.zeros(n // wg, dtype=np.float64)
    call_kernel(group_sum, dpk.NdRange(dpk.Range(n), dpk.Range(wg)), data, partial,
                dpk.LocalAccessor(wg, np.float64))
    return partial, data.reshape(-1, wg).sum(axis=1)


def main():
    return run(dpk.call_kernel)


if __name__ == "__main__":
    partial, expected = main()
    print("max abs error:", float(np.abs(partial - expected).max()))
