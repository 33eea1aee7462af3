"""Warm call_kernel overhead of an empty kernel with 0, 1, 4 and 8 array arguments.

Prints, per argument count, the median over several rounds of:
  call_kernel  the full warm launch (Python wrapper + C++ fast path + dpk_enqueue_launch + wait)
  frontend     the Python + C++ share alone (plan lookup and argument packing, no launch)
and the first-call time (compile + program creation + first launch).

    PYTHONPATH=build/python python3 frontends/python/benchmarks/launch_overhead.py [--device host]
    ... --json out.json    writes the figures as JSON as well
"""

import argparse
import json
import statistics
import time

import numpy as np

import dpk


@dpk.kernel
def empty0(item):
    pass


@dpk.kernel
def empty1(item, a):
    pass


@dpk.kernel
def empty4(item, a, b, c, d):
    pass


@dpk.kernel
def empty8(item, a, b, c, d, e, f, g, h):
    pass


KERNELS = {0: empty0, 1: empty1, 4: empty4, 8: empty8}


def per_call_us(fn, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1e6


def measure(nargs, device, calls, rounds, items=16):
    # Bound to the device, so that NumPy arrays (host) do not go to the policy's default device.
    kernel = dpk.kernel(KERNELS[nargs].py_func, device=device.filter_string)
    if device.is_host:
        arrays = [np.zeros(items, np.float32) for _ in range(nargs)]
    else:
        arrays = [dpk.zeros(items, np.float32, device=device) for _ in range(nargs)]
    rng = dpk.Range(items)
    t0 = time.perf_counter()
    dpk.call_kernel(kernel, rng, *arrays)
    first_ms = (time.perf_counter() - t0) * 1e3
    args = tuple(arrays)
    launcher = kernel._launcher
    full = [per_call_us(lambda: dpk.call_kernel(kernel, rng, *arrays), calls)
            for _ in range(rounds)]
    frontend = [per_call_us(lambda: launcher.pack_only(rng, args), calls)
                for _ in range(rounds)]
    return {"args": nargs, "first_call_ms": first_ms,
            "call_kernel_us": statistics.median(full),
            "frontend_us": statistics.median(frontend)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="host")
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--items", type=int, default=16, help="work-items of the Range (16)")
    parser.add_argument("--json")
    opts = parser.parse_args()
    device = dpk.select_device(opts.device)
    results = [measure(n, device, opts.calls, opts.rounds, opts.items) for n in (0, 1, 4, 8)]
    print(f"device: {device.filter_string} ({device.name}), Range({opts.items})")
    print(f"{'arrays':>6} {'call_kernel us':>15} {'frontend us':>12} {'first call ms':>14}")
    for r in results:
        print(f"{r['args']:>6} {r['call_kernel_us']:>15.2f} {r['frontend_us']:>12.2f} "
              f"{r['first_call_ms']:>14.1f}")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"device": device.filter_string, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
