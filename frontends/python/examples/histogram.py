"""Histogram with atomics: every work-item adds one to its value's bin."""

import numpy as np

import dpk
from dpk import kernel_api as kapi


@dpk.kernel
def histogram(item: kapi.Item, values, bins):
    i = item.get_id(0)
    b = values[i] % bins.shape[0]
    ref = kapi.AtomicRef(bins, index=b, memory_order=kapi.MemoryOrder.RELAXED,
                         memory_scope=kapi.MemoryScope.DEVICE)
    ref.fetch_add(1)


def main(n=10000, nbins=16):
    values = np.random.randint(0, 1000, size=n).astype(np.int64)
    bins = np.zeros(nbins, dtype=np.int32)
    dpk.call_kernel(histogram, dpk.Range(n), values, bins)
    return bins, np.bincount(values % nbins, minlength=nbins).astype(np.int32)


if __name__ == "__main__":
    bins, expected = main()
    print("bins match:", bool((bins == expected).all()))
