"""Classic workloads as @dpk.jit functions with prange loops, each with a NumPy reference.

Every function mutates or returns what numba's ``parallel=True`` version would; ``inputs(name,
n)`` makes its arguments (NumPy arrays, so the same call runs under ``dpk.device_context`` on any
device), ``run(name, args)`` calls it and returns the result to compare, ``REFERENCES[name]``
computes the same with NumPy.
"""

import math

import numpy as np

import dpk
from dpk import prange

RISK_FREE = 0.1
VOLATILITY = 0.2
SOFTENING = 1e-3
K_NEIGHBOURS = 4


@dpk.jit
def black_scholes(price, strike, t, call, put):
    for i in prange(price.shape[0]):
        sig_sqrt_t = VOLATILITY * math.sqrt(t[i])
        d1 = (math.log(price[i] / strike[i]) + (RISK_FREE + 0.5 * VOLATILITY * VOLATILITY)
              * t[i]) / sig_sqrt_t
        d2 = d1 - sig_sqrt_t
        cnd1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
        cnd2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
        discounted = strike[i] * math.exp(-RISK_FREE * t[i])
        call[i] = price[i] * cnd1 - discounted * cnd2
        put[i] = discounted * (1.0 - cnd2) - price[i] * (1.0 - cnd1)


@dpk.jit
def pairwise_distance(data, distance):
    for i in prange(data.shape[0]):
        for j in prange(data.shape[0]):
            d = 0.0
            for k in range(data.shape[1]):
                tmp = data[i, k] - data[j, k]
                d += tmp * tmp
            distance[i, j] = math.sqrt(d)


@dpk.jit
def kmeans_step(points, centroids, labels):
    """One Lloyd iteration: assign each point to its nearest centroid, then move every
    centroid to the mean of its points. Returns the new centroids."""
    nc = centroids.shape[0]
    sums = np.zeros((nc, points.shape[1]))
    counts = np.zeros(nc, np.int64)
    for i in prange(points.shape[0]):
        best = 0
        best_d = np.inf
        for c in range(nc):
            d = 0.0
            for k in range(points.shape[1]):
                diff = points[i, k] - centroids[c, k]
                d += diff * diff
            if d < best_d:
                best_d = d
                best = c
        labels[i] = best
        for k in range(points.shape[1]):
            sums[best, k] += points[i, k]
        counts[best] += 1
    return sums / np.maximum(counts, 1).reshape(nc, 1)


@dpk.jit
def knn(train, queries, neighbours):
    """The indices of the K_NEIGHBOURS nearest training points of each query, nearest first."""
    for q in prange(queries.shape[0]):
        best_d = np.empty(K_NEIGHBOURS)
        best_i = np.empty(K_NEIGHBOURS, np.int64)
        for k in range(K_NEIGHBOURS):
            best_d[k] = np.inf
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


@dpk.jit
def nbody_step(pos, vel, mass, dt, new_pos, new_vel):
    for i in prange(pos.shape[0]):
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


@dpk.jit
def stencil2d(a, out):
    for i in prange(1, a.shape[0] - 1):
        for j in prange(1, a.shape[1] - 1):
            out[i, j] = 0.2 * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])


@dpk.jit
def histogram(x, bins, lo, hi):
    hist = np.zeros(bins, np.int64)
    scale = bins / (hi - lo)
    for i in prange(x.shape[0]):
        k = int((x[i] - lo) * scale)
        if k >= 0 and k < bins:
            hist[k] += 1
        elif x[i] == hi:
            hist[bins - 1] += 1
    return hist


@dpk.jit
def l2_norm(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i] * a[i]
    return math.sqrt(s)


@dpk.jit
def monte_carlo_pi(x, y):
    inside = 0
    for i in prange(x.shape[0]):
        if x[i] * x[i] + y[i] * y[i] <= 1.0:
            inside += 1
    return 4.0 * inside / x.shape[0]


# ---- references and inputs -----------------------------------------------------------------

def _bs_reference(price, strike, t, call, put):
    erf = np.vectorize(math.erf)
    sig = VOLATILITY * np.sqrt(t)
    d1 = (np.log(price / strike) + (RISK_FREE + 0.5 * VOLATILITY ** 2) * t) / sig
    d2 = d1 - sig
    c1, c2 = 0.5 * (1 + erf(d1 / math.sqrt(2))), 0.5 * (1 + erf(d2 / math.sqrt(2)))
    disc = strike * np.exp(-RISK_FREE * t)
    return price * c1 - disc * c2, disc * (1 - c2) - price * (1 - c1)


def _pairwise_reference(data, distance):
    diff = data[:, None, :] - data[None, :, :]
    return np.sqrt((diff * diff).sum(axis=2))


def _kmeans_reference(points, centroids, labels):
    d = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    lab = d.argmin(axis=1)
    sums = np.zeros_like(centroids)
    np.add.at(sums, lab, points)
    counts = np.bincount(lab, minlength=len(centroids))
    return sums / np.maximum(counts, 1)[:, None], lab


def _knn_reference(train, queries, neighbours):
    d = ((queries[:, None, :] - train[None, :, :]) ** 2).sum(axis=2)
    return np.argsort(d, axis=1, kind="stable")[:, :K_NEIGHBOURS]


def _nbody_reference(pos, vel, mass, dt, new_pos, new_vel):
    diff = pos[None, :, :] - pos[:, None, :]
    inv = 1.0 / np.sqrt((diff * diff).sum(axis=2) + SOFTENING)
    acc = (diff * (mass[None, :] * inv ** 3)[:, :, None]).sum(axis=1)
    nv = vel + dt * acc
    return pos + dt * nv, nv


def _stencil_reference(a, out):
    ref = out.copy()
    ref[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2]
                             + a[1:-1, 2:])
    return ref


REFERENCES = {
    "black_scholes": _bs_reference,
    "pairwise_distance": _pairwise_reference,
    "kmeans_step": _kmeans_reference,
    "knn": _knn_reference,
    "nbody_step": _nbody_reference,
    "stencil2d": _stencil_reference,
    "histogram": lambda x, bins, lo, hi: np.histogram(x, bins, (lo, hi))[0],
    "l2_norm": lambda a: float(np.sqrt(np.sum(a.astype(np.float64) ** 2))),
    "monte_carlo_pi": lambda x, y: 4.0 * np.count_nonzero(x * x + y * y <= 1.0) / x.shape[0],
}

FUNCTIONS = {name: globals()[name] for name in REFERENCES}


def inputs(name, n, dtype=np.float64, seed=0):
    """Arguments of workload `name` at problem size n (elements, points or grid side)."""
    rng = np.random.default_rng(seed)
    f = lambda *shape: rng.random(shape).astype(dtype)  # noqa: E731
    if name == "black_scholes":
        return (rng.uniform(10, 50, n).astype(dtype), rng.uniform(10, 50, n).astype(dtype),
                rng.uniform(1, 2, n).astype(dtype), np.zeros(n, dtype), np.zeros(n, dtype))
    if name == "pairwise_distance":
        return f(n, 3), np.zeros((n, n), dtype)
    if name == "kmeans_step":
        points = f(n, 2)
        return points, points[:8].copy(), np.zeros(n, np.int64)
    if name == "knn":
        return f(n, 4), f(max(n // 8, 1), 4), np.zeros((max(n // 8, 1), K_NEIGHBOURS), np.int64)
    if name == "nbody_step":
        return (f(n, 3), f(n, 3) * 0.01, f(n) + 0.5, dtype(0.01), np.zeros((n, 3), dtype),
                np.zeros((n, 3), dtype))
    if name == "stencil2d":
        return f(n, n), np.zeros((n, n), dtype)
    if name == "histogram":
        return f(n), 32, 0.0, 1.0
    if name == "l2_norm":
        return (f(n),)
    if name == "monte_carlo_pi":
        return f(n), f(n)
    raise KeyError(name)


def outputs(name, args, returned):
    """What a run of workload `name` produced, in the shape its reference returns."""
    if name == "black_scholes":
        return args[3], args[4]
    if name in ("pairwise_distance", "stencil2d"):
        return args[1]
    if name == "kmeans_step":
        return returned, args[2]
    if name == "knn":
        return args[2]
    if name == "nbody_step":
        return args[4], args[5]
    return returned


def run(name, args):
    """Runs workload `name` on `args`; returns what to compare with REFERENCES[name]."""
    return outputs(name, args, FUNCTIONS[name](*args))
