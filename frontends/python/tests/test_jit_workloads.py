"""The classic workloads of examples/jit/prange_workloads.py (prange style, @dpk.jit) on every
device, each checked against its NumPy reference; and the hand-written kernels the benchmark
compares them with (examples/jit/kernel_workloads.py), checked the same way."""

import os
import sys

import numpy as np
import pytest

import dpk

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir,
                                "examples", "jit"))
import kernel_workloads  # noqa: E402
import prange_workloads as W  # noqa: E402

SIZES = {"black_scholes": 1000, "pairwise_distance": 64, "kmeans_step": 500, "knn": 256,
         "nbody_step": 128, "stencil2d": 40, "histogram": 5000, "l2_norm": 10001,
         "monte_carlo_pi": 10000}


def _check(name, got, expect):
    if name == "kmeans_step":
        np.testing.assert_allclose(got[0], expect[0], rtol=1e-9)
        np.testing.assert_array_equal(got[1], expect[1])
    elif name in ("histogram", "knn"):
        np.testing.assert_array_equal(got, expect)
    elif isinstance(expect, tuple):
        for g, e in zip(got, expect):
            np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_allclose(got, expect, rtol=1e-9)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_prange_workload_matches_numpy(device, name):
    args = W.inputs(name, SIZES[name])
    expect = W.REFERENCES[name](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    with dpk.device_context(device):
        got = W.run(name, args)
    _check(name, got, expect)
    for info in W.FUNCTIONS[name].inspect_regions():
        assert not info["last_run"].get("fallback"), info["last_run"]


@pytest.mark.parametrize("name", sorted(SIZES))
def test_hand_kernel_matches_numpy(device, name):
    args = W.inputs(name, SIZES[name])
    expect = W.REFERENCES[name](*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    with dpk.device_context(device):
        got = kernel_workloads.run(name, args)
    _check(name, got, expect)
