"""Parallel primitives against NumPy, side by side in one run (docs/primitives.md).

    build/venv/bin/python bench/primitives/bench_primitives.py [--device host] [--repeat 5]
        [--sort-log2n 24] [--big-log2n 26] [--shape auto|cpu|gpu] [--only sort,bincount]

Workloads (the issue's): sort and argsort of float32 2^24, cumulative_sum of float32 2^26, top-k
k=100 of float32 2^24, bincount of 2^26 int32 into 1024 bins, random.normal of 2^26 float32.
dpk results stay on the device (a NumPy copy would time the transfer); each dpk timing waits
for the device (``Device.synchronize``). Median of --repeat runs after one warm-up run that
builds the kernels. --shape picks the sort and bincount kernels' shape (docs/primitives.md:
auto is the device's own, CPU-shaped on CPUs and GPU-shaped on GPUs; cpu or gpu forces one
through DPK_PRIMITIVES_SHAPE, to compare both on one device). --only runs the workloads whose
name contains one of the comma-separated words.
"""

import argparse
import os
import statistics
import time

import numpy as np

import dpk


def timed(fn, repeat, sync=None):
    fn()
    if sync:
        sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="host")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sort-log2n", type=int, default=24)
    ap.add_argument("--big-log2n", type=int, default=26)
    ap.add_argument("--shape", choices=["auto", "cpu", "gpu"], default="auto")
    ap.add_argument("--only", default="")
    ap.add_argument("--check", action="store_true",
                    help="also compare the sort, argsort, top-k and bincount results with NumPy's")
    args = ap.parse_args()
    os.environ["DPK_PRIMITIVES_SHAPE"] = args.shape
    dev = dpk.select_device(args.device)
    sync = dev.synchronize
    rng = np.random.default_rng(0)
    ns, nb = 1 << args.sort_log2n, 1 << args.big_log2n
    xs = rng.random(ns, dtype=np.float32)
    xb = rng.random(nb, dtype=np.float32)
    bins = rng.integers(0, 1024, nb, dtype=np.int32)
    ds, db, dbins = (dpk.asarray(a, device=dev) for a in (xs, xb, bins))
    g = dpk.random.default_rng(1, device=dev)
    nprng = np.random.default_rng(1)

    def np_topk():
        part = np.argpartition(xs, ns - 100)[ns - 100:]
        return part[np.argsort(-xs[part], kind="stable")]

    rows = [
        (f"sort f32 2^{args.sort_log2n}", lambda: np.sort(xs), lambda: dpk.sort(ds)),
        (f"argsort f32 2^{args.sort_log2n}", lambda: np.argsort(xs, kind="stable"),
         lambda: dpk.argsort(ds)),
        (f"cumulative_sum f32 2^{args.big_log2n}", lambda: np.cumsum(xb),
         lambda: dpk.cumulative_sum(db)),
        (f"topk k=100 of 2^{args.sort_log2n}", np_topk, lambda: dpk.topk(ds, 100)),
        (f"bincount 2^{args.big_log2n} -> 1024", lambda: np.bincount(bins, minlength=1024),
         lambda: dpk.bincount(dbins, minlength=1024)),
        (f"random.normal f32 2^{args.big_log2n}",
         lambda: nprng.standard_normal(nb, dtype=np.float32),
         lambda: g.normal(size=nb, dtype=np.float32)),
    ]
    from dpk.primitives.common import kernel_shape
    only = [w for w in args.only.split(",") if w]
    rows = [r for r in rows if not only or any(w in r[0] for w in only)]
    print(f"device: {dev}; sort/bincount kernels: {kernel_shape(dev)}-shaped; "
          f"median of {args.repeat}")
    if args.check:
        checks = {"sort": lambda: np.array_equal(np.asarray(dpk.sort(ds)), np.sort(xs)),
                  "argsort": lambda: np.array_equal(np.asarray(dpk.argsort(ds)),
                                                    np.argsort(xs, kind="stable")),
                  # ties (float32 in [0, 1) has duplicates) go to the lower index first
                  "topk": lambda: np.array_equal(np.asarray(dpk.topk(ds, 100)[1]),
                                                 np.argsort(-xs, kind="stable")[:100]),
                  "bincount": lambda: np.array_equal(
                      np.asarray(dpk.bincount(dbins, minlength=1024)),
                      np.bincount(bins, minlength=1024))}
        print("check against NumPy: " + ", ".join(
            f"{name} {'ok' if fn() else 'WRONG'}" for name, fn in checks.items()
            if not only or any(w in name for w in only)))
    print("| workload | NumPy | dpk | NumPy/dpk |")
    print("|---|---|---|---|")
    for name, np_fn, dpk_fn in rows:
        t_np = timed(np_fn, args.repeat)
        t_dpk = timed(dpk_fn, args.repeat, sync)
        print(f"| {name} | {t_np * 1e3:.1f} ms | {t_dpk * 1e3:.1f} ms | {t_np / t_dpk:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
