"""Distributed k-means with dpk and mpi4py: each rank owns a block of the points, assigns them
to the nearest centroid with a dpk kernel, sums its block's points per cluster, and the ranks
allreduce those partial sums into the new centroids, iteration after iteration.

    mpiexec -n 2 python examples/mpi/kmeans.py                  # 2 ranks
    python examples/mpi/kmeans.py                               # 1 process (no MPI needed)
    mpiexec -n 2 python examples/mpi/kmeans.py --device gpu     # one GPU per rank

Open MPI as root needs ``--allow-run-as-root`` and, with more ranks than cores,
``--oversubscribe``. The data are deterministic and do not depend on the number of ranks: the
points are made in fixed blocks of BLOCK points, block b from its own seed, and a rank makes
only the blocks it owns, so any number of ranks computes the same clustering (up to the order
of the float64 sums of the points' coordinates). Prints the final centroids' checksum and timings; ``--json`` prints
one JSON line instead (examples/mpi/scaling.py reads it). docs/scale-out.md describes it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

import dpk
from dpk import kernel_api as kapi
from dpk.scaleout import mpi as dpk_mpi

BLOCK = 4096        # points per generation block (the unit of the data layout)
CHUNK = 512         # points per work-item of the assignment kernel (on average)
SEED = 2024


@dpk.kernel
def assign_and_accumulate(item: kapi.Item, points, centroids, sums, counts, inertia, n):
    """Work-item w of W takes points w, w + W, w + 2W, ... (neighbouring work-items read
    neighbouring points: coalesced on GPUs, vector lanes on CPUs): assigns each to its nearest
    centroid and adds it to its own row of partial sums (sums[w, c, :], counts[w, c],
    inertia[w]), so no atomics are needed and the result does not depend on scheduling."""
    w = item.get_id(0)
    workers = item.get_range(0)
    k = centroids.shape[0]
    dims = points.shape[1]
    for c in range(k):
        counts[w, c] = 0
        for d in range(dims):
            sums[w, c, d] = 0.0
    inertia[w] = 0.0
    i = w
    while i < n:
        best = 0
        best_dist = 0.0
        for c in range(k):
            dist = 0.0
            for d in range(dims):
                diff = points[i, d] - centroids[c, d]
                dist += diff * diff
            if c == 0 or dist < best_dist:
                best = c
                best_dist = dist
        counts[w, best] += 1
        inertia[w] += best_dist
        for d in range(dims):
            sums[w, best, d] += points[i, d]
        i += workers


class SingleProcess:
    """The few communicator methods this example uses, for runs without mpi4py."""

    rank, size = 0, 1

    def Get_rank(self):
        return 0

    def Get_size(self):
        return 1

    def Barrier(self):
        pass

    def allreduce(self, value, op=None):
        return value

    def allgather(self, value):
        return [value]


def communicator():
    """COMM_WORLD when mpi4py is installed, else a one-process stand-in."""
    try:
        from mpi4py import MPI
    except ImportError:
        return SingleProcess(), None
    return MPI.COMM_WORLD, MPI


def true_centers(k, dims):
    return np.random.default_rng(SEED).uniform(-10.0, 10.0, size=(k, dims))


def make_block(b, k, dims):
    """Block b of the data set: BLOCK points around the k true centers (from its own seed)."""
    rng = np.random.default_rng([SEED, b])
    centers = true_centers(k, dims)
    labels = rng.integers(0, k, size=BLOCK)
    return (centers[labels] + rng.normal(scale=1.5, size=(BLOCK, dims))).astype(np.float32)


def my_blocks(n_blocks, rank, size):
    """The contiguous range of blocks a rank owns (the first n_blocks % size ranks get one
    more)."""
    base, extra = divmod(n_blocks, size)
    first = rank * base + min(rank, extra)
    return range(first, first + base + (1 if rank < extra else 0))


def run(points_total=1 << 20, k=8, dims=3, iterations=10, device=None, comm=None, mpi=None):
    """Runs k-means; returns (centroids as float64 NumPy, per-iteration inertia, timings: the
    slowest rank's seconds and every rank's device)."""
    if comm is None:
        comm, mpi = communicator()
    rank, size = comm.Get_rank(), comm.Get_size()
    dev = dpk.select_device(device)  # spreads the ranks of a node over the matching devices
    n_blocks = max(1, -(-points_total // BLOCK))
    blocks = my_blocks(n_blocks, rank, size)
    local = np.concatenate([make_block(b, k, dims) for b in blocks]) if len(blocks) else \
        np.empty((0, dims), dtype=np.float32)
    points = dpk.asarray(local, device=dev)
    n = local.shape[0]
    workers = max(1, -(-n // CHUNK))
    sums = dpk.zeros((workers, k, dims), dtype=dpk.float64, device=dev)
    counts = dpk.zeros((workers, k), dtype=dpk.int64, device=dev)
    inertia = dpk.zeros(workers, dtype=dpk.float64, device=dev)
    # Initial centroids: the first k points of block 0, the same on every rank.
    centroids = make_block(0, k, dims)[:k].astype(np.float64)
    history, compute_s, comm_s = [], 0.0, 0.0
    # One partial-result vector per rank: k*dims sums, k counts, the inertia.
    partial = dpk.zeros(k * dims + k + 1, dtype=dpk.float64, device=dev)
    total = dpk.zeros(k * dims + k + 1, dtype=dpk.float64, device=dev)

    # Warm-up (compiles the kernel) outside the timed loop.
    if n:
        dpk.call_kernel(assign_and_accumulate, dpk.Range(workers), points,
                        dpk.asarray(centroids.astype(np.float32), device=dev), sums, counts,
                        inertia, n)
    comm.Barrier()
    start = time.perf_counter()
    for _ in range(iterations):
        t0 = time.perf_counter()
        if n:
            c32 = dpk.asarray(centroids.astype(np.float32), device=dev)
            dpk.call_kernel(assign_and_accumulate, dpk.Range(workers), points, c32, sums,
                            counts, inertia, n)
            partial[:k * dims] = dpk.reshape(dpk.sum(sums, axis=0), (k * dims,))
            partial[k * dims:k * dims + k] = dpk.astype(dpk.sum(counts, axis=0), dpk.float64)
            partial[k * dims + k:] = dpk.reshape(dpk.sum(inertia), (1,))
        else:
            partial[...] = 0.0
        t1 = time.perf_counter()
        if mpi is not None:
            dpk_mpi.allreduce(comm, partial, out=total)
            reduced = total.asnumpy()
        else:
            reduced = partial.asnumpy()
        t2 = time.perf_counter()
        compute_s += t1 - t0
        comm_s += t2 - t1
        cluster_sums = reduced[:k * dims].reshape(k, dims)
        cluster_counts = reduced[k * dims:k * dims + k]
        history.append(float(reduced[-1]))
        nonempty = cluster_counts > 0
        centroids[nonempty] = cluster_sums[nonempty] / cluster_counts[nonempty, None]
    comm.Barrier()
    elapsed = time.perf_counter() - start
    timings = {"total_s": elapsed, "compute_s": compute_s, "allreduce_s": comm_s}
    if mpi is not None:
        timings = {name: comm.allreduce(value, op=mpi.MAX) for name, value in timings.items()}
    timings["devices"] = comm.allgather(dev.filter_string)  # rank r's device at [r]
    return centroids, history, timings


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=1 << 20,
                        help=f"points in all (rounded up to whole blocks of {BLOCK})")
    parser.add_argument("--k", type=int, default=8, help="clusters")
    parser.add_argument("--dims", type=int, default=3, help="dimensions")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--device", default=None,
                        help="dpk filter string; the ranks of a node spread over its matches")
    parser.add_argument("--json", action="store_true", help="print one JSON line (rank 0)")
    parser.add_argument("--save", default=None, help="write the final centroids (.npy)")
    args = parser.parse_args(argv)
    comm, mpi = communicator()
    centroids, history, timings = run(args.points, args.k, args.dims, args.iterations,
                                      args.device, comm, mpi)
    if comm.Get_rank() != 0:
        return 0
    if args.save:
        np.save(args.save, centroids)
    devices = timings["devices"]
    if args.json:
        print(json.dumps({"ranks": comm.Get_size(), "points": args.points, "k": args.k,
                          "dims": args.dims, "iterations": args.iterations,
                          "device": devices[0], "inertia": history[-1],
                          "checksum": float(centroids.sum()), **timings}))
        return 0
    print(f"k-means: {args.points} points, k={args.k}, {args.dims}-D, {args.iterations} "
          f"iterations on {comm.Get_size()} rank(s), on {', '.join(devices)}")
    print(f"  inertia: first {history[0]:.6g}, last {history[-1]:.6g}")
    print(f"  centroids checksum: {centroids.sum():.10g}")
    print(f"  time: {timings['total_s'] * 1e3:.1f} ms ({timings['compute_s'] * 1e3:.1f} ms "
          f"compute, {timings['allreduce_s'] * 1e3:.1f} ms allreduce; slowest rank), "
          f"{timings['total_s'] / args.iterations * 1e3:.2f} ms/iteration")
    return 0


if __name__ == "__main__":
    sys.exit(main())
