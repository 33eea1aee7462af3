"""Warm launch overhead of an empty kernel with 4 array arguments in CuPy (RawKernel) and
numba-cuda, measured the way launch_overhead.py measures dpk.call_kernel: launch, then wait for
the device, on the host clock, median of several rounds. Run on the GPU machine beside
`launch_overhead.py --device cuda`; libraries that are missing are reported and skipped.
"""

import statistics
import time


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


def numba_cuda(calls, rounds):
    import numpy as np
    from numba import cuda

    @cuda.jit
    def empty4(a, b, c, d):
        pass

    arrays = [cuda.to_device(np.zeros(16, np.float32)) for _ in range(4)]

    def launch():
        empty4[1, 16](*arrays)
        cuda.synchronize()

    launch()
    return statistics.median(per_call_us(launch, calls) for _ in range(rounds))


def main():
    for name, fn in (("cupy RawKernel", cupy_rawkernel), ("numba-cuda", numba_cuda)):
        try:
            print(f"{name:>16}: {fn(5000, 5):8.2f} us per launch+sync (4 arrays)")
        except Exception as e:  # noqa: BLE001 - report any missing library or driver problem
            print(f"{name:>16}: not run ({type(e).__name__}: {e})")


if __name__ == "__main__":
    main()
