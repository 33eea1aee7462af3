"""Pairwise distance, as in numba-dpex's overview, with only the imports changed.

numba-dpex original imports:
    import numba_dpex as dpex
    from numba_dpex import kernel_api as kapi
    import dpctl.tensor as dpt
"""

import math

import numpy as np

import dpk as dpex
from dpk import kernel_api as kapi
import dpk as dpt


# Data parallel kernel implementing pairwise distance
@dpex.kernel
def pairwise_distance_kernel(item: kapi.Item, data, distance):
    i = item.get_id(0)
    j = item.get_id(1)

    data_dims = data.shape[1]

    d = data.dtype.type(0.0)
    for k in range(data_dims):
        tmp = data[i, k] - data[j, k]
        d += tmp * tmp

    distance[j, i] = math.sqrt(d)


def main(n=512, device="gpu"):
    # As in the overview: the arrays go to a GPU; without one, the policy falls back to the host
    # and says so (DPK_FALLBACK=deny turns that into an error).
    # Create some random input data
    data = np.random.ranf((n, 3)).astype(np.float32)
    distance = np.empty(shape=(data.shape[0], data.shape[0]), dtype=np.float32)
    dev_data = dpt.asarray(data, device=device)
    dev_distance = dpt.asarray(distance, device=device)
    dpex.call_kernel(pairwise_distance_kernel, dpex.Range(data.shape[0], data.shape[0]),
                     dev_data, dev_distance)
    result = dev_distance.asnumpy()
    expected = np.sqrt(((data[None, :, :] - data[:, None, :]) ** 2).sum(axis=-1))
    return result, expected


if __name__ == "__main__":
    result, expected = main()
    print("max abs error:", float(np.abs(result - expected).max()))
