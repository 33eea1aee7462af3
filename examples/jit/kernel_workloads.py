"""The workloads of prange_workloads.py as hand-written dpk kernels: what a user writes with
``@dpk.kernel`` and ``dpk.call_kernel`` for the same algorithm (the benchmark's baseline for
the prange versions). ``run(name, args)`` takes the same arguments and returns the same
outputs as prange_workloads.run; launches go to the current device (``dpk.device_context``).
"""

import math

import numpy as np

import dpk
from dpk import kernel_api as kapi
from prange_workloads import K_NEIGHBOURS, RISK_FREE, SOFTENING, VOLATILITY, outputs

GROUP = 64


@dpk.kernel
def black_scholes_k(item: kapi.Item, price, strike, t, call, put):
    i = item.get_id(0)
    sig_sqrt_t = VOLATILITY * math.sqrt(t[i])
    d1 = (math.log(price[i] / strike[i]) + (RISK_FREE + 0.5 * VOLATILITY * VOLATILITY)
          * t[i]) / sig_sqrt_t
    d2 = d1 - sig_sqrt_t
    cnd1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    cnd2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    discounted = strike[i] * math.exp(-RISK_FREE * t[i])
    call[i] = price[i] * cnd1 - discounted * cnd2
    put[i] = discounted * (1.0 - cnd2) - price[i] * (1.0 - cnd1)


@dpk.kernel
def pairwise_k(item: kapi.Item, data, distance):
    i = item.get_id(0)
    j = item.get_id(1)
    d = 0.0
    for k in range(data.shape[1]):
        tmp = data[i, k] - data[j, k]
        d += tmp * tmp
    distance[i, j] = math.sqrt(d)


@dpk.kernel
def kmeans_assign_k(item: kapi.Item, points, centroids, labels, sums, counts):
    i = item.get_id(0)
    best = 0
    best_d = math.inf
    for c in range(centroids.shape[0]):
        d = 0.0
        for k in range(points.shape[1]):
            diff = points[i, k] - centroids[c, k]
            d += diff * diff
        if d < best_d:
            best_d = d
            best = c
    labels[i] = best
    for k in range(points.shape[1]):
        kapi.AtomicRef(sums, index=(best, k)).fetch_add(points[i, k])
    kapi.AtomicRef(counts, index=best).fetch_add(1)


@dpk.kernel
def knn_k(item: kapi.Item, train, queries, neighbours):
    q = item.get_id(0)
    best_d = kapi.PrivateArray((K_NEIGHBOURS,), np.float64)
    best_i = kapi.PrivateArray((K_NEIGHBOURS,), np.int64)
    for k in range(K_NEIGHBOURS):
        best_d[k] = math.inf
        best_i[k] = -1
    for t in range(train.shape[0]):
        d = 0.0
        for f in range(train.shape[1]):
            diff = queries[q, f] - train[t, f]
            d += diff * diff
        if d < best_d[K_NEIGHBOURS - 1]:
            k = K_NEIGHBOURS - 1
            while k > 0 and best_d[k - 1] > d:
                best_d[k] = best_d[k - 1]
                best_i[k] = best_i[k - 1]
                k -= 1
            best_d[k] = d
            best_i[k] = t
    for k in range(K_NEIGHBOURS):
        neighbours[q, k] = best_i[k]


@dpk.kernel
def nbody_k(item: kapi.Item, pos, vel, mass, dt, new_pos, new_vel):
    i = item.get_id(0)
    ax = 0.0
    ay = 0.0
    az = 0.0
    for j in range(pos.shape[0]):
        dx = pos[j, 0] - pos[i, 0]
        dy = pos[j, 1] - pos[i, 1]
        dz = pos[j, 2] - pos[i, 2]
        inv = 1.0 / math.sqrt(dx * dx + dy * dy + dz * dz + SOFTENING)
        f = mass[j] * inv * inv * inv
        ax += f * dx
        ay += f * dy
        az += f * dz
    new_vel[i, 0] = vel[i, 0] + dt * ax
    new_vel[i, 1] = vel[i, 1] + dt * ay
    new_vel[i, 2] = vel[i, 2] + dt * az
    new_pos[i, 0] = pos[i, 0] + dt * new_vel[i, 0]
    new_pos[i, 1] = pos[i, 1] + dt * new_vel[i, 1]
    new_pos[i, 2] = pos[i, 2] + dt * new_vel[i, 2]


@dpk.kernel
def stencil_k(item: kapi.Item, a, out):
    i = item.get_id(0) + 1
    j = item.get_id(1) + 1
    out[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


@dpk.kernel
def histogram_k(item: kapi.Item, x, hist, lo, hi, scale):
    i = item.get_id(0)
    bins = hist.shape[0]
    k = int((x[i] - lo) * scale)
    if k >= 0 and k < bins:
        kapi.AtomicRef(hist, index=k).fetch_add(1)
    elif x[i] == hi:
        kapi.AtomicRef(hist, index=bins - 1).fetch_add(1)


@dpk.kernel
def sum_squares_k(item: kapi.NdItem, a, chunk, partial, scratch):
    # group g sums a[g*chunk : (g+1)*chunk] tile by tile (uniform trip count, then the partial
    # last tile), then adds its items' sums as a tree in local memory
    lid = item.get_local_id(0)
    start = item.get_group_linear_id() * chunk
    end = min(start + chunk, a.shape[0])
    full = max((end - start) // GROUP, 0)
    acc = np.float64(0.0)  # as the prange version: s = 0.0 is a float64 accumulator
    for t in range(full):
        i = start + t * GROUP + lid
        acc += a[i] * a[i]
    i = start + full * GROUP + lid
    if i < end:
        acc += a[i] * a[i]
    scratch[lid] = acc
    kapi.group_barrier(item.get_group())
    w = GROUP // 2
    while w > 0:
        if lid < w:
            scratch[lid] += scratch[lid + w]
        kapi.group_barrier(item.get_group())
        w = w // 2
    if lid == 0:
        partial[item.get_group_linear_id()] = scratch[0]


@dpk.kernel
def count_inside_k(item: kapi.NdItem, x, y, chunk, partial, scratch):
    lid = item.get_local_id(0)
    start = item.get_group_linear_id() * chunk
    end = min(start + chunk, x.shape[0])
    full = max((end - start) // GROUP, 0)
    acc = 0
    for t in range(full):
        i = start + t * GROUP + lid
        if x[i] * x[i] + y[i] * y[i] <= 1.0:
            acc += 1
    i = start + full * GROUP + lid
    if i < end:
        if x[i] * x[i] + y[i] * y[i] <= 1.0:
            acc += 1
    scratch[lid] = acc
    kapi.group_barrier(item.get_group())
    w = GROUP // 2
    while w > 0:
        if lid < w:
            scratch[lid] += scratch[lid + w]
        kapi.group_barrier(item.get_group())
        w = w // 2
    if lid == 0:
        partial[item.get_group_linear_id()] = scratch[0]


def _split(n):
    """(groups, chunk): a contiguous chunk of whole tiles per group, 8 groups per core."""
    device = dpk.get_current_device()
    groups = max(1, min(-(-n // GROUP), 8 * max(device.max_compute_units, 1)))
    chunk = -(-(-(-n // groups)) // GROUP) * GROUP
    return -(-n // chunk), chunk


def run(name, args):
    call = dpk.call_kernel
    if name == "black_scholes":
        call(black_scholes_k, dpk.Range(args[0].shape[0]), *args)
        return outputs(name, args, None)
    if name == "pairwise_distance":
        n = args[0].shape[0]
        call(pairwise_k, dpk.Range(n, n), *args)
        return outputs(name, args, None)
    if name == "kmeans_step":
        points, centroids, labels = args
        sums = np.zeros_like(centroids)
        counts = np.zeros(centroids.shape[0], np.int64)
        call(kmeans_assign_k, dpk.Range(points.shape[0]), points, centroids, labels, sums,
             counts)
        return outputs(name, args, sums / np.maximum(counts, 1)[:, None])
    if name == "knn":
        call(knn_k, dpk.Range(args[1].shape[0]), *args)
        return outputs(name, args, None)
    if name == "nbody_step":
        call(nbody_k, dpk.Range(args[0].shape[0]), *args)
        return outputs(name, args, None)
    if name == "stencil2d":
        a, out = args
        call(stencil_k, dpk.Range(a.shape[0] - 2, a.shape[1] - 2), a, out)
        return outputs(name, args, None)
    if name == "histogram":
        x, bins, lo, hi = args
        hist = np.zeros(bins, np.int64)
        call(histogram_k, dpk.Range(x.shape[0]), x, hist, lo, hi, bins / (hi - lo))
        return hist
    if name == "l2_norm":
        (a,) = args
        groups, chunk = _split(a.shape[0])
        partial = np.empty(groups)
        call(sum_squares_k, dpk.NdRange(dpk.Range(groups * GROUP), dpk.Range(GROUP)), a,
             chunk, partial, dpk.LocalAccessor((GROUP,), np.float64))
        return math.sqrt(partial.sum())
    if name == "monte_carlo_pi":
        x, y = args
        groups, chunk = _split(x.shape[0])
        partial = np.empty(groups, np.int64)
        call(count_inside_k, dpk.NdRange(dpk.Range(groups * GROUP), dpk.Range(GROUP)), x, y,
             chunk, partial, dpk.LocalAccessor((GROUP,), np.int64))
        return 4.0 * partial.sum() / x.shape[0]
    raise KeyError(name)
