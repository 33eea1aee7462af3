"""Tiled matrix multiply: each work-group stages TILE x TILE blocks in local memory."""

import numpy as np

import dpk
from dpk import kernel_api as kapi

TILE = 8


@dpk.kernel
def matmul(it: kapi.NdItem, A, B, C, tile_a, tile_b):
    row = it.get_global_id(0)
    col = it.get_global_id(1)
    lr = it.get_local_id(0)
    lc = it.get_local_id(1)
    group = it.get_group()
    acc = C.dtype.type(0)
    for t in range(A.shape[1] // TILE):
        tile_a[lr, lc] = A[row, t * TILE + lc]
        tile_b[lr, lc] = B[t * TILE + lr, col]
        kapi.group_barrier(group)
        for k in range(TILE):
            acc += tile_a[lr, k] * tile_b[k, lc]
        kapi.group_barrier(group)
    C[row, col] = acc


def run(call_kernel, n=64):
    A = np.random.rand(n, n).astype(np.float32)
    B = np.random.rand(n, n).astype(np.float32)
    C = np.zeros((n, n), dtype=np.float32)
    call_kernel(matmul, dpk.NdRange((n, n), (TILE, TILE)), A, B, C,
                dpk.LocalAccessor((TILE, TILE), np.float32),
                dpk.LocalAccessor((TILE, TILE), np.float32))
    return C, A @ B


def main():
    return run(dpk.call_kernel)


if __name__ == "__main__":
    C, expected = main()
    print("max abs error:", float(np.abs(C - expected).max()))
