"""Vector addition on NumPy arrays (zero-copy on the host device)."""

import numpy as np

import dpk
from dpk import kernel_api as kapi


@dpk.kernel
def vecadd(item: kapi.Item, a, b, c):
    i = item.get_id(0)
    c[i] = a[i] + b[i]


def main(n=1 << 16):
    a = np.random.rand(n).astype(np.float32)
    b = np.random.rand(n).astype(np.float32)
    c = np.empty_like(a)
    dpk.call_kernel(vecadd, dpk.Range(n), a, b, c)
    return c, a + b


if __name__ == "__main__":
    c, expected = main()
    print("max abs error:", float(np.abs(c - expected).max()))
