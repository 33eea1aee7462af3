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

--cupy (CUDA devices, CuPy importable) times CuPy's equivalents in the same run: cupy.sort,
argsort, cumsum, argpartition + sort of the k, bincount and cupy.random's standard_normal.
--json PATH writes the rows (seconds) for bench/primitives/plot_primitives.py, which draws the
report and plot in docs/results/primitives/.

--tbb (host device) times dpk against oneTBB's own algorithms instead of NumPy, alternately in
rounds in this one process (median of the per-round ratios): ``tbb::parallel_sort`` on a fresh
copy of the keys, ``parallel_scan`` and ``parallel_reduce`` on float32, and a ``parallel_for``
triad (a = b + s * c), whose bandwidth is the bar for scan and reduce. The baselines are
bench/primitives/tbb_baselines.cpp, built as build/lib/libdpk_tbb_baselines.so (--tbb-lib).
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import numpy as np

import dpk

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
from pairing import paired  # noqa: E402


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
    ap.add_argument("--ranking", choices=["auto", "warps", "masks"], default="auto",
                    help="GPU-shaped radix scatter: by sub-group ballots (warps), by bit masks "
                         "in local memory (masks), or as the device's sub-group size picks")
    ap.add_argument("--only", default="")
    ap.add_argument("--check", action="store_true",
                    help="also compare the sort, argsort, top-k and bincount results with NumPy's")
    ap.add_argument("--tbb", action="store_true",
                    help="compare with oneTBB's algorithms (host device) instead of NumPy")
    ap.add_argument("--cupy", action="store_true", help="time CuPy too (CUDA devices)")
    ap.add_argument("--json", default="", help="write the rows here (seconds)")
    ap.add_argument("--tbb-lib", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "build", "lib", "libdpk_tbb_baselines.so"))
    args = ap.parse_args()
    os.environ["DPK_PRIMITIVES_SHAPE"] = args.shape
    from dpk.primitives import radix_sort
    radix_sort.WARP_RANKING = {"auto": None, "warps": True, "masks": False}[args.ranking]
    if args.tbb:
        return against_tbb(args)
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
    print(f"device: {dev}; sort/bincount kernels: {kernel_shape(dev)}-shaped; radix ranking: "
          f"{args.ranking}; median of {args.repeat}")
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
    peers = _cupy_rows(args, xs, xb, bins) if args.cupy else {}
    print("| workload | NumPy | dpk | NumPy/dpk |" + (" CuPy | CuPy/dpk |" if peers else ""))
    print("|---|---|---|---|" + ("---|---|" if peers else ""))
    out = []
    for name, np_fn, dpk_fn in rows:
        t_np = timed(np_fn, args.repeat)
        t_dpk = timed(dpk_fn, args.repeat, sync)
        line = f"| {name} | {t_np * 1e3:.1f} ms | {t_dpk * 1e3:.3f} ms | {t_np / t_dpk:.2f} |"
        row = {"workload": name, "numpy_s": t_np, "dpk_s": t_dpk}
        peer = peers.get(name.split()[0])
        if peer is not None:
            t_cp = timed(peer[0], args.repeat, peer[1])
            row["cupy_s"] = t_cp
            line += f" {t_cp * 1e3:.3f} ms | {t_cp / t_dpk:.2f} |"
        print(line, flush=True)
        out.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": str(dev), "repeat": args.repeat, "rows": out}, f, indent=1)


def _cupy_rows(args, xs, xb, bins):
    """{workload's first word: (CuPy function, its synchronize)}, or {} without CuPy."""
    try:
        import cupy as cp
    except ImportError:
        print("CuPy is not importable: no CuPy column")
        return {}
    cs, cb, cbins = cp.asarray(xs), cp.asarray(xb), cp.asarray(bins)
    ns = cs.size
    rng = cp.random.default_rng(1)

    def topk():
        part = cp.argpartition(cs, ns - 100)[ns - 100:]
        return part[cp.argsort(-cs[part])]

    return {name: (fn, cp.cuda.Device().synchronize) for name, fn in [
        ("sort", lambda: cp.sort(cs)), ("argsort", lambda: cp.argsort(cs)),
        ("cumulative_sum", lambda: cp.cumsum(cb)), ("topk", topk),
        ("bincount", lambda: cp.bincount(cbins, minlength=1024)),
        ("random.normal", lambda: rng.standard_normal(cb.size, dtype=cp.float32))]}


def against_tbb(args):
    dev = dpk.select_device(args.device)
    if dev.backend != "host":
        raise SystemExit("--tbb compares on the host device (oneTBB runs on the host CPU)")
    lib = ctypes.CDLL(os.path.abspath(args.tbb_lib))
    f32p, size = ctypes.POINTER(ctypes.c_float), ctypes.c_size_t
    lib.dpk_tbb_sort_f32.argtypes = [f32p, size]
    lib.dpk_tbb_inclusive_scan_f32.argtypes = [f32p, f32p, size]
    lib.dpk_tbb_sum_f32.argtypes = [f32p, size]
    lib.dpk_tbb_sum_f32.restype = ctypes.c_double
    lib.dpk_tbb_triad_f32.argtypes = [f32p, f32p, f32p, ctypes.c_float, size]

    def ptr(a):
        return a.ctypes.data_as(f32p)

    rng = np.random.default_rng(0)
    ns, nb = 1 << args.sort_log2n, 1 << args.big_log2n
    keys = rng.random(ns, dtype=np.float32)
    work = np.empty_like(keys)
    b, c = rng.random(nb, dtype=np.float32), rng.random(nb, dtype=np.float32)
    a, out = np.empty_like(b), np.empty_like(b)
    dkeys, db, dc = (dpk.asarray(x, device=dev) for x in (keys, b, c))
    sync = dev.synchronize

    def tbb_sort():
        work[...] = keys  # outside the sort's time would flatter TBB; dpk.sort copies too
        lib.dpk_tbb_sort_f32(ptr(work), ns)

    rows = [(f"sort f32 2^{args.sort_log2n}", lambda: dpk.sort(dkeys), tbb_sort, None),
            (f"cumulative_sum f32 2^{args.big_log2n}", lambda: dpk.cumulative_sum(db),
             lambda: lib.dpk_tbb_inclusive_scan_f32(ptr(b), ptr(out), nb), 8 * nb),
            (f"sum f32 2^{args.big_log2n}", lambda: dpk.sum(db),
             lambda: lib.dpk_tbb_sum_f32(ptr(b), nb), 4 * nb),
            (f"triad f32 2^{args.big_log2n}", lambda: db + np.float32(3) * dc,
             lambda: lib.dpk_tbb_triad_f32(ptr(a), ptr(b), ptr(c), 3.0, nb), 12 * nb)]
    print(f"device: {dev}; dpk against oneTBB, alternately, median of {args.repeat} rounds")
    print("| workload | oneTBB | dpk | oneTBB/dpk (per round) | dpk GB/s | oneTBB GB/s |")
    print("|---|---|---|---|---|---|")
    results = {}
    for name, dpk_fn, tbb_fn, nbytes in rows:
        def dpk_run(fn=dpk_fn):
            r = fn()
            if isinstance(r, dpk.Array):
                r._materialize()  # the triad is a lazy expression until asked
        t_tbb, t_dpk, ratio = paired(tbb_fn, dpk_run, args.repeat, sync)  # oneTBB/dpk
        gbs = (lambda t: f"{nbytes / t / 1e9:.1f}") if nbytes else (lambda t: "")
        results[name.split()[0]] = (t_dpk, t_tbb, nbytes)
        print(f"| {name} | {t_tbb * 1e3:.1f} ms | {t_dpk * 1e3:.1f} ms | {ratio:.2f} | "
              f"{gbs(t_dpk)} | {gbs(t_tbb)} |", flush=True)
    triad_bw = results["triad"][2] / results["triad"][1]
    for name in ("cumulative_sum", "sum"):
        t_dpk, _, nbytes = results[name]
        print(f"{name}: dpk bandwidth {nbytes / t_dpk / triad_bw:.2f}x the oneTBB triad's")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": str(dev), "repeat": args.repeat, "against": "oneTBB",
                       "rows": [{"workload": k, "dpk_s": v[0], "tbb_s": v[1], "bytes": v[2]}
                                for k, v in results.items()]}, f, indent=1)


if __name__ == "__main__":
    main()
