"""Warm launch overhead of an empty kernel with 4 array arguments in CuPy (RawKernel) and
numba-cuda, measured the way launch_overhead.py measures dpk.call_kernel: launch, then wait for
the device, on the host clock, median of several rounds. Run on the GPU machine beside
`launch_overhead.py --device cuda`.

Each library is first probed in a child process: import it, see a GPU, compile and launch one
empty kernel. A library that is missing or unusable there (no driver, a version that does not
work with the installed NumPy, even a crash inside its import) is reported with the reason and
skipped; the benchmark itself never crashes because of it.

numba-cuda and NumPy: NumPy 2.5 removed `numpy.row_stack`, and numba-cuda registers an overload
for it whenever NumPy is 2.0 or newer, so with NumPy >= 2.5 its import fails with "module 'numpy'
has no attribute 'row_stack'". No numba-cuda release on PyPI supports NumPy 2.5: the newest,
0.30.4 (checked), still has the unguarded overload, and the project is in maintenance mode
(NVIDIA/numba-cuda#907). numba-cuda works with NumPy 2.0-2.4 (`pip install "numpy<2.5"`).
Its successor numba-cuda-mlir guards the overload (0.6.0 checked: `(2, 0) <= numpy < (2, 5)`;
fixed since 0.4.1) and works with NumPy 2.5; this script measures it too, as "numba-cuda-mlir",
when it is importable (`pip install numba-cuda-mlir[cu12]`).
"""

import json
import statistics
import subprocess
import sys
import time

CALLS, ROUNDS = 5000, 5


def per_call_us(fn, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1e6


def cupy_rawkernel(calls, rounds):
    import cupy
    kernel = cupy.RawKernel(r'extern "C" __global__ void empty4(float *a, float *b, float *c, float *d) {}',
                            "empty4")
    arrays = [cupy.zeros(16, cupy.float32) for _ in range(4)]
    stream = cupy.cuda.get_current_stream()

    def launch():
        kernel((1,), (16,), tuple(arrays))
        stream.synchronize()

    launch()
    return statistics.median(per_call_us(launch, calls) for _ in range(rounds))


def _numba_style(cuda, calls, rounds):
    """The same measurement for numba-cuda and numba-cuda-mlir (same `cuda` API)."""
    import numpy as np

    if not cuda.is_available():
        raise RuntimeError("the library sees no CUDA GPU")

    @cuda.jit
    def empty4(a, b, c, d):
        pass

    arrays = [cuda.to_device(np.zeros(16, np.float32)) for _ in range(4)]

    def launch():
        empty4[1, 16](*arrays)
        cuda.synchronize()

    launch()  # compiles; a NumPy incompatibility shows here at the latest
    return statistics.median(per_call_us(launch, calls) for _ in range(rounds))


def numba_cuda(calls, rounds):
    from numba import cuda
    return _numba_style(cuda, calls, rounds)


def numba_cuda_mlir(calls, rounds):
    from numba_cuda_mlir import cuda
    return _numba_style(cuda, calls, rounds)


LIBRARIES = {
    "cupy RawKernel": cupy_rawkernel,
    "numba-cuda": numba_cuda,
    "numba-cuda-mlir": numba_cuda_mlir,
}


def _child(name, calls, rounds):
    """Runs one library's measurement in this (child) process; prints one JSON line."""
    try:
        print(json.dumps({"us": LIBRARIES[name](calls, rounds)}))
    except BaseException as e:  # noqa: BLE001 - the parent reports any failure as a skip
        print(json.dumps({"skip": f"{type(e).__name__}: {e}"}))


def _skip_reason(run):
    """Why a child run produced no measurement: its own report, else its last error line."""
    for line in reversed(run.stdout.splitlines()):
        try:
            report = json.loads(line)
        except ValueError:
            continue
        if "skip" in report:
            return report["skip"]
    lines = [l for l in (run.stderr or "").splitlines() if l.strip()]
    tail = lines[-1].strip() if lines else "no output"
    if run.returncode < 0:
        return f"crashed with signal {-run.returncode} ({tail})"
    return f"exited with status {run.returncode} ({tail})"


def measure(name, calls=CALLS, rounds=ROUNDS, timeout=600):
    """(microseconds per launch, None) or (None, reason it was skipped)."""
    try:
        run = subprocess.run([sys.executable, __file__, "--child", name, str(calls), str(rounds)],
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"did not finish within {timeout} s"
    for line in reversed(run.stdout.splitlines()):
        try:
            report = json.loads(line)
        except ValueError:
            continue
        if "us" in report:
            return report["us"], None
    return None, _skip_reason(run)


def main():
    for name in LIBRARIES:
        us, reason = measure(name)
        if us is None:
            print(f"{name:>16}: skipped: {reason}")
        else:
            print(f"{name:>16}: {us:8.2f} us per launch+sync (4 arrays)")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
