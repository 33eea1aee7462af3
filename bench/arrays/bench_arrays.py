#!/usr/bin/env python3
"""Array-programming benchmark: dpk's array namespace against NumPy (and CuPy when importable),
side by side in one run.

Workloads (float32): the 5-array chain ``a*b + c*d - e``, ``sum(a)``, ``sum((a-b)**2)``,
``sum(M, axis=0)`` and ``sum(M, axis=1)`` of a square matrix, ``cumulative_sum(a)``,
``matmul`` of two square matrices, and ``x + 1`` on a one-element array (launch-bound), plus a
triad ``b + s*c`` as the bandwidth baseline. Each workload is timed as users write it (results
materialized, reductions converted to Python numbers) after a warm-up run that builds the
kernels; the figure is the median of ``--repeat`` runs. Bandwidth counts the bytes a workload
must move (each input read once, each output written once).

    python bench/arrays/bench_arrays.py                      # host, 2^26 elements
    python bench/arrays/bench_arrays.py --device cuda:gpu --cupy
    python bench/arrays/bench_arrays.py --log2n 24 --matrix 2048 --markdown out.md

``matmul`` runs the device's vendor BLAS where it has one (docs/arrays.md); a second row,
``matmul (generated kernel)``, then times dpk's own kernel on the same operands in the same run
(``DPK_VENDOR_BLAS=0`` leaves only the kernel, in the ``matmul`` row).

With ``--cupy`` (and CuPy importable) CuPy's default path and ``cupy.fuse`` run too, and a
device-to-device copy gives the bandwidth reference.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

import dpk
from dpk.arrays import blas


def median_time(fn, repeat, sync=None, min_time=0.0):
    fn()
    if sync:
        sync()
    times = []
    start_all = time.perf_counter()
    while len(times) < repeat or time.perf_counter() - start_all < min_time:
        t = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append(time.perf_counter() - t)
        if len(times) >= 10 * repeat:
            break
    return statistics.median(times)


def launch_bound_time(fn, calls, sync=None):
    """Per-call time of `calls` back-to-back calls (best of 5 rounds)."""
    fn()
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        if sync:
            sync()
        best = min(best, (time.perf_counter() - t) / calls)
    return best


def run(args):
    dev = dpk.select_device(args.device)
    n = 1 << args.log2n
    m = args.matrix
    mm = args.matmul
    rng = np.random.default_rng(0)
    host = [rng.standard_normal(n, dtype=np.float32) for _ in range(5)]
    hm = rng.standard_normal((m, m), dtype=np.float32)
    ha = rng.standard_normal((mm, mm), dtype=np.float32)
    hb = rng.standard_normal((mm, mm), dtype=np.float32)
    a, b, c, d, e = (dpk.asarray(h, device=dev) for h in host)
    M = dpk.asarray(hm, device=dev)
    A, B = dpk.asarray(ha, device=dev), dpk.asarray(hb, device=dev)
    one = dpk.asarray(np.ones(1, np.float32), device=dev)
    na, nb, nc, nd, ne = host

    def done(x):
        return x._materialize()

    rows = []
    isz = 4

    def add(name, nbytes, np_fn, dpk_fn, cupy=None, launch=False, flops=None):
        row = {"workload": name, "bytes": nbytes}
        if launch:
            row["numpy_s"] = launch_bound_time(np_fn, args.calls)
            row["dpk_s"] = launch_bound_time(dpk_fn, args.calls, dev.synchronize)
        else:
            row["numpy_s"] = median_time(np_fn, args.numpy_repeat or args.repeat,
                                         min_time=args.min_time)
            row["dpk_s"] = median_time(dpk_fn, args.repeat, dev.synchronize, args.min_time)
        if cupy:
            for label, fn in cupy.items():
                row[label] = (launch_bound_time(fn, args.calls, _cupy_sync) if launch else
                              median_time(fn, args.repeat, _cupy_sync, args.min_time))
        if flops:
            row["flops"] = flops
        rows.append(row)
        print(_line(row), flush=True)

    cp = _cupy(args)
    cupy_rows = {}
    if cp is not None:
        ca, cb, cc, cd_, ce = (cp.asarray(h) for h in host)
        cM, cA, cB = cp.asarray(hm), cp.asarray(ha), cp.asarray(hb)
        cone = cp.ones(1, cp.float32)
        # cupy.fuse names its kernel after the function: a lambda's "<lambda>" does not compile
        def chain(x, y, z, w, v):
            return x * y + z * w - v

        def sum_of_squares(x, y):
            return cp.sum((x - y) ** 2)

        chain_f = cp.fuse(chain)
        sumsq_f = cp.fuse(sum_of_squares)
        scratch = cp.empty_like(ca)
        cupy_rows = {
            "triad": {"cupy_s": lambda: cb + 3.0 * cc,
                      "cupy_copy_s": lambda: scratch.__setitem__(Ellipsis, ca)},
            "chain": {"cupy_s": lambda: ca * cb + cc * cd_ - ce,
                      "cupy_fuse_s": lambda: chain_f(ca, cb, cc, cd_, ce)},
            "sum": {"cupy_s": lambda: float(cp.sum(ca))},
            "sum((a-b)**2)": {"cupy_s": lambda: float(cp.sum((ca - cb) ** 2)),
                              "cupy_fuse_s": lambda: float(sumsq_f(ca, cb))},
            "sum(axis=0)": {"cupy_s": lambda: cp.sum(cM, axis=0)},
            "sum(axis=1)": {"cupy_s": lambda: cp.sum(cM, axis=1)},
            "cumulative_sum": {"cupy_s": lambda: cp.cumsum(ca)},
            "matmul": {"cupy_s": lambda: cA @ cB},
            "x + 1 (1 element)": {"cupy_s": lambda: cone + 1},
        }

    add("triad", 3 * n * isz, lambda: nb + 3.0 * nc, lambda: done(b + 3.0 * c),
        cupy_rows.get("triad"))
    add("chain", 6 * n * isz, lambda: na * nb + nc * nd - ne,
        lambda: done(a * b + c * d - e), cupy_rows.get("chain"))
    add("sum", n * isz, lambda: float(na.sum()), lambda: float(dpk.sum(a)),
        cupy_rows.get("sum"))
    add("sum((a-b)**2)", 2 * n * isz, lambda: float(((na - nb) ** 2).sum()),
        lambda: float(dpk.sum((a - b) ** 2)), cupy_rows.get("sum((a-b)**2)"))
    add("sum(axis=0)", m * m * isz, lambda: hm.sum(axis=0),
        lambda: done(dpk.sum(M, axis=0)), cupy_rows.get("sum(axis=0)"))
    add("sum(axis=1)", m * m * isz, lambda: hm.sum(axis=1),
        lambda: done(dpk.sum(M, axis=1)), cupy_rows.get("sum(axis=1)"))
    add("cumulative_sum", 2 * n * isz, lambda: np.cumsum(na),
        lambda: done(dpk.cumulative_sum(a)), cupy_rows.get("cumulative_sum"))
    if not args.no_matmul:
        add("matmul", 3 * mm * mm * isz, lambda: ha @ hb, lambda: done(A @ B),
            cupy_rows.get("matmul"), flops=2 * mm ** 3)
        if blas.enabled():
            def generated():  # the same product with the vendor BLAS switched off
                blas.set_enabled(False)
                try:
                    return done(A @ B)
                finally:
                    blas.set_enabled(True)

            add("matmul (generated kernel)", 3 * mm * mm * isz, lambda: ha @ hb, generated,
                flops=2 * mm ** 3)
    add("x + 1 (1 element)", 2 * isz, lambda: np.ones(1, np.float32) + 1,
        lambda: done(one + 1), cupy_rows.get("x + 1 (1 element)"), launch=True)
    return dev, rows


_CP = None


def _cupy(args):
    global _CP
    if not args.cupy:
        return None
    try:
        import cupy  # noqa: PLC0415 - optional
    except ImportError:
        print("CuPy is not importable: its columns are left out", file=sys.stderr)
        return None
    _CP = cupy
    return cupy


def _cupy_sync():
    _CP.cuda.Device().synchronize()


def _fmt(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.2f} ms"


def _line(row):
    extra = "".join(f"  {k[:-2]} {_fmt(v)}" for k, v in row.items()
                    if k.startswith("cupy") and k.endswith("_s"))
    return (f"{row['workload']:<20} numpy {_fmt(row['numpy_s']):>10}  dpk {_fmt(row['dpk_s']):>10}"
            f"  x{row['numpy_s'] / row['dpk_s']:.2f}{extra}")


def markdown(dev, rows, args):
    triad = next(r for r in rows if r["workload"] == "triad")
    triad_bw = triad["bytes"] / triad["dpk_s"]
    cupy_cols = sorted({k for r in rows for k in r if k.startswith("cupy") and k.endswith("_s")})
    head = ["workload", "NumPy", "dpk", "NumPy/dpk", "dpk GB/s", "of triad BW"]
    head += [c[:-2].replace("_", " ") for c in cupy_cols]
    out = [f"Device: {dev.filter_string} ({dev.name}); n = 2^{args.log2n} float32, "
           f"matrix {args.matrix}², matmul {args.matmul}²; median of {args.repeat}.", "",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        bw = r["bytes"] / r["dpk_s"] / 1e9
        frac = (r["bytes"] / r["dpk_s"]) / triad_bw
        cells = [r["workload"], _fmt(r["numpy_s"]), _fmt(r["dpk_s"]),
                 f"{r['numpy_s'] / r['dpk_s']:.2f}", f"{bw:.1f}",
                 "-" if r["workload"].startswith(("x + 1", "matmul")) else f"{frac:.2f}"]
        if "flops" in r:
            cells[4] = f"{r['flops'] / r['dpk_s'] / 1e9:.0f} GFLOP/s"
        cells += [_fmt(r.get(c)) for c in cupy_cols]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="host", help="dpk filter string (default: host)")
    p.add_argument("--log2n", type=int, default=26, help="vector length 2^N (default 26)")
    p.add_argument("--matrix", type=int, default=4096, help="side of the summed matrix")
    p.add_argument("--matmul", type=int, default=2048, help="side of the matmul operands")
    p.add_argument("--no-matmul", action="store_true")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--numpy-repeat", type=int, default=None,
                   help="repeats of NumPy's side (default: --repeat). A GPU's per-call medians "
                        "want 200 repeats, and NumPy's side of 2^26 elements then takes minutes")
    p.add_argument("--min-time", type=float, default=0.0, help="keep repeating for seconds")
    p.add_argument("--calls", type=int, default=2000, help="calls per round of x + 1")
    p.add_argument("--cupy", action="store_true", help="add CuPy (default and cupy.fuse)")
    p.add_argument("--markdown", help="write the table to this file")
    p.add_argument("--json", help="write the raw figures to this file")
    args = p.parse_args(argv)
    dev, rows = run(args)
    table = markdown(dev, rows, args)
    print()
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev.filter_string, "args": vars(args), "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
