"""Tuning lab for the generated reductions: times ``sum`` and ``sum((a-b)**2)`` of float32 under
variants of the reduction's launch shape, alternating the variants round by round in one process
(docs/arrays.md records what it found).

    python3 bench/arrays/reduction_sweep.py [--device cuda:gpu] [--log2n 26] [--rounds 7]
        [--calls 20] [--cupy]

A variant sets ``reduction.UNROLL`` (steps whose loads an item issues together), the work-group
size of inner reductions and the number of groups per compute unit. Each timing is per call
with the result read back (``float(dpk.sum(a))``, as an application reads a sum), and back to
back (``--calls`` sums, one read at the end). --cupy adds CuPy's ``float(cupy.sum(a))``.
"""

import argparse
import itertools
import statistics
import time

import numpy as np

import dpk
from dpk.arrays import reduction


def variants(args):
    for unroll, wg, per_cu in itertools.product(args.unroll, args.wg, args.groups_per_cu):
        yield {"unroll": unroll, "wg": wg, "groups_per_cu": per_cu}


def apply(variant, device):
    reduction.UNROLL = variant["unroll"]
    wg, per_cu = variant["wg"], variant["groups_per_cu"]
    reduction._workgroup_size = lambda dev, L=None: wg if dev.device_type != "cpu" else 64
    cores = max(device._dev.compute_units, 1)
    reduction._target_parallelism = lambda dev: (per_cu * cores, 64 * 1024)


def per_call(fn, calls):
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda:gpu")
    ap.add_argument("--log2n", type=int, default=26)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--unroll", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--wg", type=int, nargs="+", default=[256, 512])
    ap.add_argument("--groups-per-cu", type=int, nargs="+", default=[8, 32])
    ap.add_argument("--cupy", action="store_true")
    args = ap.parse_args()
    device = dpk.select_device(args.device)
    n = 1 << args.log2n
    rng = np.random.default_rng(0)
    ha, hb = (rng.standard_normal(n, dtype=np.float32) for _ in range(2))
    a, b = dpk.asarray(ha, device=device), dpk.asarray(hb, device=device)
    work = {"sum": lambda: float(dpk.sum(a)),
            "sum((a-b)**2)": lambda: float(dpk.sum((a - b) ** 2))}
    back_to_back = {"sum": lambda: dpk.sum(a), "sum((a-b)**2)": lambda: dpk.sum((a - b) ** 2)}
    runs = list(variants(args))
    if args.cupy:
        import cupy as cp
        ca, cb = cp.asarray(ha), cp.asarray(hb)
        cupy_work = {"sum": lambda: float(cp.sum(ca)),
                     "sum((a-b)**2)": lambda: float(cp.sum((ca - cb) ** 2))}
    expected = {"sum": float(np.sum(ha, dtype=np.float64)),
                "sum((a-b)**2)": float(np.sum((ha.astype(np.float64) - hb) ** 2))}
    times = {}
    for r in range(args.rounds + 1):  # round 0 builds the kernels and checks the results
        for v in runs:
            apply(v, device)
            label = "unroll {unroll}, wg {wg}, {groups_per_cu} groups/CU".format(**v)
            for name, fn in work.items():
                if r == 0:
                    got = fn()
                    assert abs(got - expected[name]) <= 1e-3 * max(1.0, abs(expected[name])), \
                        (label, name, got, expected[name])
                    continue
                times.setdefault((label, name, "per call"), []).append(per_call(fn, 5))
                bb = back_to_back[name]

                def burst():
                    for _ in range(args.calls):
                        s = bb()
                    float(s)
                times.setdefault((label, name, "back to back"), []).append(
                    per_call(burst, 1) / args.calls)
        if args.cupy and r > 0:
            for name, fn in cupy_work.items():
                fn()
                times.setdefault(("CuPy", name, "per call"), []).append(per_call(fn, 5))
    print(f"device: {device}; n = 2^{args.log2n} float32; median of {args.rounds} rounds")
    print("| variant | workload | per call | back to back |")
    print("|---|---|---|---|")
    labels = dict.fromkeys(k[0] for k in times)
    for label in labels:
        for name in work:
            pc = times.get((label, name, "per call"))
            bb = times.get((label, name, "back to back"))
            if pc is None:
                continue
            bb_text = f"{statistics.median(bb) * 1e6:.1f} us" if bb else "-"
            print(f"| {label} | {name} | {statistics.median(pc) * 1e6:.1f} us | {bb_text} |")


if __name__ == "__main__":
    main()
