#!/usr/bin/env python3
"""The jit workloads (examples/jit/prange_workloads.py: prange loops in @dpk.jit functions)
against the same algorithm as a hand-written dpk kernel (examples/jit/kernel_workloads.py),
against NumPy, and against Numba ``njit(parallel=True)`` when numba is importable (the same
source with its imports changed back: ``from numba import prange``, ``@numba.njit(parallel=
True)``), side by side in one run on one device.

Each figure is the median of ``--repeat`` warm calls (a first call compiles; the prange and
kernel versions are checked against the NumPy reference before timing). ``ratio`` is prange /
hand kernel (issue 20's target: at most 1.15), the median of per-round ratios of the two
timed alternately. Also printed: the first call of a new jit
function in a child process with an empty kernel cache (compile + launch), and the warm
overhead of one region (a 1-iteration prange) per call.

    python bench/python/jit_workloads.py                        # host, small sizes
    python bench/python/jit_workloads.py --sizes issue      # L2 2^27 f32, Black-Scholes 2^24 f64
    python bench/python/jit_workloads.py --device cuda:gpu --workloads l2_norm,black_scholes
    python bench/python/jit_workloads.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, os.pardir, os.pardir, "examples", "jit")
sys.path.insert(0, EXAMPLES)
sys.path.insert(0, os.path.join(HERE, os.pardir))
from pairing import paired  # noqa: E402

import dpk  # noqa: E402
import kernel_workloads as K  # noqa: E402
import prange_workloads as W  # noqa: E402

# (n, dtype) per workload; "issue" = the sizes of issue 20's Numba figures where it gives them
SIZES = {
    "small": {"black_scholes": (1 << 20, np.float64), "pairwise_distance": (1024, np.float32),
              "kmeans_step": (1 << 20, np.float64), "knn": (4096, np.float64),
              "nbody_step": (2048, np.float64), "stencil2d": (2048, np.float64),
              "histogram": (1 << 22, np.float64), "l2_norm": (1 << 22, np.float32),
              "monte_carlo_pi": (1 << 22, np.float64)},
    "issue": {"black_scholes": (1 << 24, np.float64), "pairwise_distance": (4096, np.float32),
              "kmeans_step": (1 << 22, np.float64), "knn": (16384, np.float64),
              "nbody_step": (8192, np.float64), "stencil2d": (8192, np.float64),
              "histogram": (1 << 26, np.float64), "l2_norm": (1 << 27, np.float32),
              "monte_carlo_pi": (1 << 26, np.float64)},
}


def median_ms(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def paired_ms(first, second, repeat):
    """paired() in milliseconds: both medians and the median per-round ratio first/second."""
    ta, tb, ratio = paired(first, second, repeat)
    return ta * 1e3, tb * 1e3, ratio


def numpy_versions():
    """NumPy's way of computing each workload (Black-Scholes with scipy's erf if importable)."""
    refs = dict(W.REFERENCES)
    try:
        from scipy.special import erf
    except ImportError:
        return refs

    def bs(price, strike, t, call, put):
        sig = W.VOLATILITY * np.sqrt(t)
        d1 = (np.log(price / strike) + (W.RISK_FREE + 0.5 * W.VOLATILITY ** 2) * t) / sig
        d2 = d1 - sig
        c1, c2 = 0.5 * (1 + erf(d1 / np.sqrt(2))), 0.5 * (1 + erf(d2 / np.sqrt(2)))
        disc = strike * np.exp(-W.RISK_FREE * t)
        return price * c1 - disc * c2, disc * (1 - c2) - price * (1 - c1)
    refs["black_scholes"] = bs
    return refs


def numba_versions():
    """The workloads compiled by Numba parallel=True from the same source, or None."""
    try:
        import numba  # noqa: F401  (the exec'd source imports it again)
    except ImportError:
        return None
    path = os.path.join(EXAMPLES, "prange_workloads.py")
    text = open(path).read()
    text = text.replace("from dpk import prange", "from numba import prange\nimport numba")
    text = text.replace("@dpk.jit", "@numba.njit(parallel=True)")
    module = types.ModuleType("numba_workloads")
    module.__file__ = path
    exec(compile(text, path, "exec"), module.__dict__)
    return module


def _host(value):
    if isinstance(value, dpk.Array):
        return dpk.asnumpy(value)
    if isinstance(value, tuple):
        return tuple(_host(v) for v in value)
    return value


def check(name, got, args):
    expect = W.REFERENCES[name](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = _host(got)
    if isinstance(expect, tuple):
        ok = all(np.allclose(g, e, rtol=1e-4, atol=1e-6) for g, e in zip(got, expect))
    else:
        ok = np.allclose(got, expect, rtol=1e-4, atol=1e-6)
    if not ok:
        raise SystemExit(f"{name}: result differs from the NumPy reference")


FIRST_CALL = textwrap.dedent("""
    import time, numpy as np, dpk
    from dpk import prange
    a = np.random.default_rng(0).random(1 << 16).astype(np.float32)
    t0 = time.perf_counter()
    @dpk.jit
    def l2_first(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i] * a[i]
        return s
    with dpk.device_context(DEVICE):
        l2_first(a)
    print((time.perf_counter() - t0) * 1e3)
""")


def first_call_ms(device):
    with tempfile.TemporaryDirectory() as cache:
        # an empty disk cache, and no cache at all (docs/policy.md: DPK_CACHE_MODE)
        env = dict(os.environ, DPK_CACHE_DIR=cache, DPK_CACHE_MODE="off")
        code = FIRST_CALL.replace("DEVICE", repr(device))
        python = [sys.executable] + (["-S"] if sys.flags.no_site else [])
        run = subprocess.run(python + ["-c", code], env=env, capture_output=True,
                             text=True, timeout=600)
        if run.returncode:
            return float("nan")
        return float(run.stdout.strip().splitlines()[-1])


@dpk.jit
def _one_iteration(out):
    for i in dpk.prange(1):
        out[i] = 1.0


def region_overhead_us(calls=10000, device="host"):
    """Per call of a jit function with one 1-iteration region on `device` (NumPy argument):
    named explicitly, since the policy's default device may be a GPU, where each call would
    also copy the argument there and back."""
    out = np.zeros(1)
    with dpk.device_context(device):
        _one_iteration(out)
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(calls):
                _one_iteration(out)
            best = min(best, (time.perf_counter() - t) / calls)
    return best * 1e6


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="host")
    parser.add_argument("--sizes", choices=sorted(SIZES), default="small")
    parser.add_argument("--workloads", default=",".join(SIZES["small"]))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-numba", action="store_true")
    parser.add_argument("--arrays", choices=("auto", "numpy", "dpk"), default="auto",
                        help="what the prange and kernel versions get: NumPy arrays (staged to "
                             "the device per launch) or dpk arrays on the device (auto: NumPy "
                             "on the host device, dpk elsewhere)")
    parser.add_argument("--json", help="write the rows to this file as JSON")
    args = parser.parse_args(argv)
    device = dpk.select_device(args.device)
    numpy_ref = numpy_versions()
    nb = None if args.no_numba else numba_versions()
    rows = []
    use_dpk = args.arrays == "dpk" or (args.arrays == "auto" and not device.is_host)
    print(f"device: {device.filter_string} ({device.name}); sizes: {args.sizes}; "
          f"{'dpk' if use_dpk else 'NumPy'} arrays; median of {args.repeat} warm calls")
    header = f"{'workload':<18} {'n':>10} {'dtype':>8} {'prange ms':>10} {'kernel ms':>10} " \
             f"{'ratio':>6} {'numpy ms':>10}" + (f" {'numba ms':>10}" if nb else "")
    print(header)
    print("-" * len(header))
    for name in args.workloads.split(","):
        n, dtype = SIZES[args.sizes][name]
        data = W.inputs(name, n, dtype)
        # the arrays the dpk versions get; `data` stays NumPy for the references
        run_data = tuple(dpk.asarray(a, device=device) if use_dpk and isinstance(a, np.ndarray)
                         and a.ndim else a for a in data)
        with dpk.device_context(device):
            check(name, W.run(name, run_data), data)
            check(name, K.run(name, run_data), data)
            t_prange, t_kernel, ratio = paired_ms(lambda: W.FUNCTIONS[name](*run_data),
                                                  lambda: K.run(name, run_data), args.repeat)
        t_numpy = median_ms(lambda: numpy_ref[name](*data), max(1, args.repeat // 2))
        row = {"workload": name, "n": n, "dtype": np.dtype(dtype).name, "device":
               device.filter_string, "arrays": "dpk" if use_dpk else "numpy",
               "prange_ms": t_prange, "kernel_ms": t_kernel,
               "ratio": ratio, "numpy_ms": t_numpy}
        line = f"{name:<18} {n:>10} {row['dtype']:>8} {t_prange:>10.3f} {t_kernel:>10.3f} " \
               f"{row['ratio']:>6.2f} {t_numpy:>10.3f}"
        if nb:
            fn = getattr(nb, name)
            row["numba_ms"] = median_ms(lambda: fn(*data), args.repeat)
            line += f" {row['numba_ms']:>10.3f}"
        rows.append(row)
        print(line, flush=True)
    overhead = region_overhead_us()
    first = first_call_ms(args.device)
    print(f"\nwarm overhead of one region (1-iteration prange, NumPy argument, host): "
          f"{overhead:.1f} us per call")
    print(f"first call of a new jit function (L2, empty kernel cache, {args.device}): "
          f"{first:.0f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "region_overhead_us": overhead, "first_call_ms": first},
                      f, indent=1)


if __name__ == "__main__":
    main()
