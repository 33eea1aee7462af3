"""Black-Scholes option pricing (the classic dpbench kernel), with a device function."""

import math

import numpy as np

import dpk
from dpk import kernel_api as kapi

RISK_FREE = 0.1
VOLATILITY = 0.2


@dpk.device_func
def cnd(d):
    # Cumulative normal distribution through erf.
    return 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))


@dpk.kernel
def black_scholes(item: kapi.Item, price, strike, t, call, put):
    i = item.get_id(0)
    sig_sqrt_t = VOLATILITY * math.sqrt(t[i])
    d1 = (math.log(price[i] / strike[i]) + (RISK_FREE + 0.5 * VOLATILITY * VOLATILITY) * t[i]) \
        / sig_sqrt_t
    d2 = d1 - sig_sqrt_t
    discounted = strike[i] * math.exp(-RISK_FREE * t[i])
    call[i] = price[i] * cnd(d1) - discounted * cnd(d2)
    put[i] = discounted * cnd(-d2) - price[i] * cnd(-d1)


def reference(price, strike, t):
    from math import erf
    cndv = np.vectorize(lambda d: 0.5 * (1.0 + erf(d / math.sqrt(2.0))))
    sig_sqrt_t = VOLATILITY * np.sqrt(t)
    d1 = (np.log(price / strike) + (RISK_FREE + 0.5 * VOLATILITY ** 2) * t) / sig_sqrt_t
    d2 = d1 - sig_sqrt_t
    disc = strike * np.exp(-RISK_FREE * t)
    return price * cndv(d1) - disc * cndv(d2), disc * cndv(-d2) - price * cndv(-d1)


def main(n=4096):
    rng = np.random.default_rng(0)
    price = rng.uniform(10, 50, n)
    strike = rng.uniform(10, 50, n)
    t = rng.uniform(1, 2, n)
    call = np.zeros(n)
    put = np.zeros(n)
    dpk.call_kernel(black_scholes, dpk.Range(n), price, strike, t, call, put)
    return (call, put), reference(price, strike, t)


if __name__ == "__main__":
    (call, put), (ec, ep) = main()
    print("max abs error:", float(max(np.abs(call - ec).max(), np.abs(put - ep).max())))
