#!/usr/bin/env python3
"""Launch cost when the global size changes from launch to launch, against the same launches at
one repeated size, per device, side by side in one run (issue 15, item Q).

OpenCL implementations compile a work-group function per work-group size; given no local size
they pick one per global size, and PoCL then compiled a new binary for each new size of a Range
launch (~60 ms each). dpk now gives every Range launch on an OpenCL device a fixed work-group shape
and runs it as whole work-groups plus a guarded remainder (core/compiler/RangeGuard.h), so two
binaries serve every size. This script times a small kernel (``a[i] = 2 * a[i] + 1``) over ``--count`` launches:

  repeated   Range(base) every time (after warm-up launches that build the kernel);
  varying    Range(base + 1), Range(base + 2), ...: each size new to this process.

Every launch is waited for (``dpk.call_kernel``). PoCL also caches the binaries it compiles on
disk, so a second run would find the sizes of the first: unless ``--keep-pocl-cache`` is given,
the script points ``POCL_CACHE_DIR`` at a fresh temporary folder before dpk starts. The results
of the last varying launch are checked.

    python bench/launch_sizes.py                        # every device, base 1000, 40 launches
    python bench/launch_sizes.py --devices opencl:cpu:1 --base 100000 --count 20
    python bench/launch_sizes.py --markdown out.md --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", default="",
                        help="comma-separated dpk filter strings (default: every device)")
    parser.add_argument("--base", type=int, default=1000, help="the repeated size (default 1000)")
    parser.add_argument("--count", type=int, default=40, help="launches per side (default 40)")
    parser.add_argument("--keep-pocl-cache", action="store_true",
                        help="use PoCL's usual kernel cache instead of a fresh one")
    parser.add_argument("--markdown", help="also write the table to this file")
    parser.add_argument("--json", help="also write the figures as JSON to this file")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not args.keep_pocl_cache:
        os.environ["POCL_CACHE_DIR"] = tempfile.mkdtemp(prefix="dpk-bench-pocl-")

    import numpy as np  # after the environment is set: dpk starts PoCL on import of a device

    import dpk

    @dpk.kernel
    def scale(item, a):
        i = item.get_id(0)
        a[i] = 2.0 * a[i] + 1.0

    if args.devices:
        devices = [dpk.select_device(f) for f in args.devices.split(",") if f]
    else:
        devices = dpk.get_devices()

    capacity = args.base + args.count + 1
    rows = []
    for device in devices:
        a = dpk.asarray(np.zeros(capacity, dtype=np.float32), device=device)
        # Compile and warm up. A Range launch on an OpenCL device runs as whole work-groups plus
        # a guarded remainder, two builds of the kernel made once (compiler/RangeGuard.h): a
        # size that is not a multiple of any work-group shape needs both.
        warm = dpk.asarray(np.zeros(3 * args.base + 1, dtype=np.float32), device=device)
        dpk.call_kernel(scale, dpk.Range(args.base), a)
        dpk.call_kernel(scale, dpk.Range(3 * args.base + 1), warm)

        start = time.perf_counter()
        for _ in range(args.count):
            dpk.call_kernel(scale, dpk.Range(args.base), a)
        repeated = (time.perf_counter() - start) / args.count

        start = time.perf_counter()
        for k in range(1, args.count + 1):
            dpk.call_kernel(scale, dpk.Range(args.base + k), a)
        varying = (time.perf_counter() - start) / args.count

        # Check the last varying launch: a fresh array, one more new size.
        n = args.base + args.count + 1
        check = dpk.asarray(np.arange(n, dtype=np.float32), device=device)
        dpk.call_kernel(scale, dpk.Range(n), check)
        expected = 2.0 * np.arange(n, dtype=np.float32) + 1.0
        if not np.array_equal(check.asnumpy(), expected):
            raise SystemExit(f"{device.filter_string}: wrong result for Range({n})")

        rows.append({
            "device": device.filter_string,
            "name": device.name,
            "repeated_ms": repeated * 1e3,
            "varying_ms": varying * 1e3,
            "launches_per_s_varying": 1.0 / varying,
        })

    header = (f"| device | repeated size: ms/launch | varying size: ms/launch | varying / "
              f"repeated | varying launches/s |\n|---|---:|---:|---:|---:|")
    lines = [header]
    for row in rows:
        lines.append(f"| {row['device']} ({row['name']}) | {row['repeated_ms']:.3f} | "
                     f"{row['varying_ms']:.3f} | {row['varying_ms'] / row['repeated_ms']:.1f} | "
                     f"{row['launches_per_s_varying']:.0f} |")
    table = "\n".join(lines)
    print(f"Range(base={args.base}) repeated vs Range(base+1 .. base+{args.count}), "
          f"{args.count} launches each, each waited for")
    print(table)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(table + "\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"base": args.base, "count": args.count, "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main()
