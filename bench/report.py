#!/usr/bin/env python3
"""Turns dpk_bench's Google Benchmark JSON into a Markdown report and a PNG plot.

usage: report.py RESULTS.json [MORE.json ...] OUT_DIR

Several result files (say dpk_bench's and the CUDA baselines' from one session on the GPU
machine) are merged into one table. With --benchmark_repetitions the median is used.

Benchmarks are named workload/size/backend. Backends named dpk:* are dpk devices; the rest
(tbb, opencl-raw:*, cuda-nvcc, ...) are hand-written baselines. For every dpk figure the table
gives its ratio to the best (fastest) baseline of the same workload and size: 1.0 is parity,
above 1.0 dpk is faster.
"""
import json
import os
import platform
import subprocess
import sys
from collections import defaultdict


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def gpu_model():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def load(paths):
    rows = defaultdict(dict)  # (workload, size) -> backend -> entry
    errors = []
    context = {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        context = context or data.get("context", {})
        load_benchmarks(data, rows, errors)
    return context, rows, errors


def load_benchmarks(data, rows, errors):
    benchmarks = data.get("benchmarks", [])
    has_aggregates = any(b.get("run_type") == "aggregate" for b in benchmarks)
    for b in benchmarks:
        if has_aggregates and b.get("aggregate_name") != "median":
            continue
        name = b["name"]
        if has_aggregates:
            name = name[: -len("_median")] if name.endswith("_median") else name
        parts = [p for p in name.split("/") if not p.startswith(("min_time:", "real_time", "manual_time",
                                                                  "repeats:", "iterations:"))]
        if len(parts) < 3:
            continue
        workload, size, backend = parts[0], parts[1], "/".join(parts[2:])
        if b.get("error_occurred"):
            errors.append((workload, size, backend, b.get("error_message", "")))
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
        rows[(workload, size)][backend] = {
            "ms": b["real_time"] * scale,
            "gbs": b.get("bytes_per_second", 0) / 1e9,
            "gflops": b.get("flops", 0) / 1e9,
        }


def is_baseline(backend):
    return not backend.startswith("dpk:")


def fmt(x, digits=3):
    return f"{x:.{digits}g}" if x else ""


def write_markdown(context, rows, errors, out_dir):
    lines = ["# dpk benchmark results", ""]
    cpu = context.get("cpu_model") or cpu_model()
    lines.append(f"- CPU: {cpu} ({context.get('num_cpus', '?')} logical CPUs visible)")
    gpu = context.get("gpu_model") or gpu_model()
    if gpu:
        lines.append(f"- GPU: {gpu}")
    lines.append(f"- dpk devices and baselines: {context.get('dpk_backends', '?')}")
    lines.append(f"- date: {context.get('date', '?')}")
    lines += ["", "Ratio = best baseline time / this time (above 1: faster than the best baseline).", "",
              "| workload | size | backend | time (ms) | GB/s | GFLOP/s | vs best baseline |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    ratios = []
    for (workload, size), backends in rows.items():
        baselines = {b: e for b, e in backends.items() if is_baseline(b)}
        best_name, best = min(baselines.items(), key=lambda kv: kv[1]["ms"]) if baselines else (None, None)
        for backend, e in sorted(backends.items(), key=lambda kv: (is_baseline(kv[0]), kv[0])):
            ratio = ""
            if best and not is_baseline(backend):
                r = best["ms"] / e["ms"]
                ratio = f"{r:.2f} ({best_name})"
                ratios.append((workload, size, backend, r))
            lines.append(f"| {workload} | {size} | {backend} | {e['ms']:.4g} | {fmt(e['gbs'])} | {fmt(e['gflops'])} | {ratio} |")
    if errors:
        lines += ["", "Not timed (failed their check or could not run):", ""]
        lines += [f"- {w} {s} on {b}: {m}" for w, s, b, m in errors]
    path = os.path.join(out_dir, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path, ratios


def write_plot(ratios, out_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    # One bar per (workload at its largest timed size, dpk backend).
    largest = {}
    for workload, size, backend, r in ratios:
        largest[(workload, backend)] = (size, r)
    labels = [f"{w}\n{b[4:]}" for (w, b) in largest]
    values = [v[1] for v in largest.values()]
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(values)), 5))
    ax.bar(range(len(values)), values, color=["tab:green" if v >= 0.9 else "tab:red" for v in values])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.9, color="gray", linewidth=0.6, linestyle="--")
    ax.set_xticks(range(len(values)))
    ax.set_xticklabels(labels, rotation=70, ha="right", fontsize=7)
    ax.set_ylabel("best baseline time / dpk time")
    ax.set_title("dpk vs best hand-written baseline (largest size per workload)")
    fig.tight_layout()
    path = os.path.join(out_dir, "ratios.png")
    fig.savefig(path, dpi=110)
    return path


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out_dir = sys.argv[-1]
    context, rows, errors = load(sys.argv[1:-1])
    # Results made on another machine (the GPU machine) name it here: DPK_BENCH_CPU, DPK_BENCH_GPU.
    context.setdefault("cpu_model", os.environ.get("DPK_BENCH_CPU"))
    context.setdefault("gpu_model", os.environ.get("DPK_BENCH_GPU"))
    os.makedirs(out_dir, exist_ok=True)
    md, ratios = write_markdown(context, rows, errors, out_dir)
    png = write_plot(ratios, out_dir)
    print(f"report: {md}")
    print(f"plot:   {png or 'not drawn (matplotlib missing)'}")


if __name__ == "__main__":
    main()
