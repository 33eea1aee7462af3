"""Report and plot of bench_primitives.py --json runs (docs/results/primitives/).

    python bench/primitives/plot_primitives.py OUT_DIR RUN.json [RUN.json ...]

Writes OUT_DIR/report.md (a table per run: each peer's time over dpk's, above 1 where dpk is
faster) and, with matplotlib importable, OUT_DIR/primitives.png (one panel per run, a bar per
workload and peer, a line at 1).
"""

import json
import os
import sys

PEERS = (("numpy_s", "NumPy"), ("cupy_s", "CuPy"), ("tbb_s", "oneTBB"))


def ratios(run):
    """[(workload, peer, peer time / dpk time)] of one run."""
    out = []
    for row in run["rows"]:
        for key, peer in PEERS:
            if row.get(key):
                out.append((row["workload"], peer, row[key] / row["dpk_s"]))
    return out


def markdown(runs):
    lines = ["# Parallel primitives: peer time / dpk time (above 1: dpk is faster)", ""]
    for name, run in runs:
        lines += [f"## {name}: {run['device']}, median of {run['repeat']}", "",
                  "| workload | dpk | " + " | ".join(p for k, p in PEERS
                                                     if any(k in r for r in run["rows"])) + " |"]
        keys = [k for k, _ in PEERS if any(k in r for r in run["rows"])]
        lines.append("|---|---|" + "---|" * len(keys))
        for row in run["rows"]:
            cells = [f"{row[k] * 1e3:.3f} ms ({row[k] / row['dpk_s']:.2f}x)" if row.get(k)
                     else "" for k in keys]
            lines.append(f"| {row['workload']} | {row['dpk_s'] * 1e3:.3f} ms | "
                         + " | ".join(cells) + " |")
        lines.append("")
        triad = next((r for r in run["rows"] if r["workload"] == "triad"), None)
        if triad and triad.get("tbb_s"):
            bar = triad["bytes"] / triad["tbb_s"]  # the oneTBB triad's bandwidth: the bar
            for row in run["rows"]:
                if row["workload"] in ("cumulative_sum", "sum"):
                    lines.append(f"- {row['workload']}: dpk moves its {row['bytes']} bytes at "
                                 f"{row['bytes'] / row['dpk_s'] / bar:.2f}x the oneTBB "
                                 f"triad's bandwidth")
            lines.append("")
    return "\n".join(lines)


def plot(runs, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, len(runs), figsize=(6 * len(runs), 4.5), squeeze=False)
    for ax, (name, run) in zip(axes[0], runs):
        bars = ratios(run)
        ax.bar(range(len(bars)), [r for _, _, r in bars],
               color=["tab:green" if r >= 1 else "tab:red" for _, _, r in bars])
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(bars)))
        ax.set_xticklabels([f"{w}\nvs {p}" for w, p, _ in bars], rotation=70, ha="right",
                           fontsize=7)
        ax.set_ylabel("peer time / dpk time")
        ax.set_title(f"{name}: {run['device']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    runs = []
    for path in argv[2:]:
        with open(path) as f:
            runs.append((os.path.splitext(os.path.basename(path))[0], json.load(f)))
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write(markdown(runs))
    png = plot(runs, os.path.join(out_dir, "primitives.png"))
    print(f"report: {os.path.join(out_dir, 'report.md')}; plot: {png or 'not drawn (no matplotlib)'}")


if __name__ == "__main__":
    main(sys.argv)
