"""Timing two functions side by side, for the Python benchmarks (bench/python,
bench/primitives): on a shared machine, alternating them in rounds lets both see the same load,
and the median of the per-round ratios is steadier than a ratio of medians."""

import statistics
import time


def paired(first, second, repeat, sync=None):
    """(median seconds of `first`, of `second`, median of the per-round ratios first/second),
    the two called alternately `repeat` times after one warm-up call each; `sync` (if given) is
    called after each, so that asynchronous device work is inside its time."""
    def run(fn):
        t = time.perf_counter()
        fn()
        if sync:
            sync()
        return time.perf_counter() - t

    run(first)
    run(second)
    a, b = [], []
    for _ in range(repeat):
        a.append(run(first))
        b.append(run(second))
    return (statistics.median(a), statistics.median(b),
            statistics.median(x / y for x, y in zip(a, b)))
