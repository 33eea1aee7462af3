"""Lane mapping of Range kernels (issue 18): kernels as people write them, with dpk's mapping
on and off, beside the same kernel with its dimensions swapped by hand.

Cases (each on every device given):
  pairwise_as_written   numba-dpex's overview pairwise distance, as its docs write it
                        (docs/source/overview.rst: `d = data.dtype.type(0.0)`, so the sum is
                        in the data's precision): Range(n, n), stores distance[j, i] with
                        i = get_id(0) (strided between neighbouring lanes under the literal
                        mapping)
  pairwise_swapped      the same with distance[i, j] (the hand-fixed version)
  stencil_col / stencil_row
                        a 5-point stencil over a 2-D grid, indexed grid[j, i] and grid[i, j]

The mapping is chosen when the runtime starts (DPK_LANE_MAPPING=auto|literal), so the script
runs itself once per setting and prints one table with the ratios side by side:

    python3 bench/lanes/bench_lanes.py --devices host,cuda:gpu --n 4096 [--json out.json]
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def kernels():
    import dpk
    from dpk import kernel_api as kapi

    @dpk.kernel
    def pairwise_as_written(item: kapi.Item, data, distance):
        i = item.get_id(0)
        j = item.get_id(1)
        d = data.dtype.type(0.0)
        for k in range(data.shape[1]):
            tmp = data[i, k] - data[j, k]
            d += tmp * tmp
        distance[j, i] = math.sqrt(d)

    @dpk.kernel
    def pairwise_swapped(item: kapi.Item, data, distance):
        i = item.get_id(0)
        j = item.get_id(1)
        d = data.dtype.type(0.0)
        for k in range(data.shape[1]):
            tmp = data[i, k] - data[j, k]
            d += tmp * tmp
        distance[i, j] = math.sqrt(d)

    @dpk.kernel
    def stencil_col(item: kapi.Item, grid, out):
        i = item.get_id(0) + 1
        j = item.get_id(1) + 1
        out[j, i] = 0.2 * (grid[j, i] + grid[j - 1, i] + grid[j + 1, i] + grid[j, i - 1]
                           + grid[j, i + 1])

    @dpk.kernel
    def stencil_row(item: kapi.Item, grid, out):
        i = item.get_id(0) + 1
        j = item.get_id(1) + 1
        out[i, j] = 0.2 * (grid[i, j] + grid[i - 1, j] + grid[i + 1, j] + grid[i, j - 1]
                           + grid[i, j + 1])

    return {"pairwise_as_written": pairwise_as_written, "pairwise_swapped": pairwise_swapped,
            "stencil_col": stencil_col, "stencil_row": stencil_row}


def median_ms(fn, repeats):
    fn()  # compile and warm
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def measure(devices, n, dims, repeats):
    """Times every case on every device in this process (one mapping setting)."""
    import dpk
    ks = kernels()
    rng = np.random.default_rng(0)
    data = rng.random((n, dims), dtype=np.float32)
    grid = rng.random((n + 2, n + 2), dtype=np.float32)
    results = {}
    for filt in devices:
        if not dpk.has_device(filt):
            continue
        device = dpk.select_device(filt)
        d_data = dpk.asarray(data, device=device)
        d_dist = dpk.zeros((n, n), dtype=np.float32, device=device)
        d_grid = dpk.asarray(grid, device=device)
        d_out = dpk.zeros((n + 2, n + 2), dtype=np.float32, device=device)
        cases = {
            "pairwise_as_written": (dpk.Range(n, n), (d_data, d_dist)),
            "pairwise_swapped": (dpk.Range(n, n), (d_data, d_dist)),
            "stencil_col": (dpk.Range(n, n), (d_grid, d_out)),
            "stencil_row": (dpk.Range(n, n), (d_grid, d_out)),
        }
        for name, (index_range, args) in cases.items():
            kernel = ks[name]
            results[f"{filt} {name}"] = median_ms(
                lambda: dpk.call_kernel(kernel, index_range, *args), repeats)
        # The results of the two pairwise forms agree (transposed), whatever the mapping.
        dpk.call_kernel(ks["pairwise_as_written"], dpk.Range(n, n), d_data, d_dist)
        a = d_dist.asnumpy().copy()
        dpk.call_kernel(ks["pairwise_swapped"], dpk.Range(n, n), d_data, d_dist)
        assert np.allclose(a, d_dist.asnumpy().T, rtol=1e-5, atol=1e-5)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="host")
    parser.add_argument("--n", type=int, default=2048)
    parser.add_argument("--dims", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    devices = [d for d in args.devices.split(",") if d]
    if args.child:
        print(json.dumps(measure(devices, args.n, args.dims, args.repeats)))
        return
    # The settings alternate over several child runs (a shared machine's slow minute then
    # falls on both), and each case's figure is the median over the runs.
    samples = {"literal": {}, "auto": {}}
    for _ in range(args.rounds):
        for mode in ("literal", "auto"):
            env = dict(os.environ, DPK_LANE_MAPPING=mode)
            run = subprocess.run([sys.executable, __file__, "--child", "--devices", args.devices,
                                  "--n", str(args.n), "--dims", str(args.dims),
                                  "--repeats", str(args.repeats)],
                                 env=env, capture_output=True, text=True, check=True)
            for case, ms in json.loads(run.stdout.strip().splitlines()[-1]).items():
                samples[mode].setdefault(case, []).append(ms)
    by_mode = {mode: {case: statistics.median(v) for case, v in cases.items()}
               for mode, cases in samples.items()}
    print(f"n={args.n} (Range(n, n)), f32, median of {args.rounds} runs x {args.repeats} (ms)")
    print(f"{'case':44s} {'literal':>9s} {'auto':>9s} {'literal/auto':>13s}")
    for case, literal in by_mode["literal"].items():
        auto = by_mode["auto"][case]
        print(f"{case:44s} {literal:9.3f} {auto:9.3f} {literal / auto:13.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"n": args.n, "results": by_mode}, out, indent=1)


if __name__ == "__main__":
    main()
