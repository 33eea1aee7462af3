"""The examples in frontends/python/examples, each run and checked against NumPy; the barrier
examples also under kernel_api.call_kernel (pure Python), which must agree with the compiled
run."""

import importlib.util
import os

import numpy as np
import pytest

from dpk import kernel_api as kapi
import dpk

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, "examples")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(EXAMPLES, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pairwise_distance(device):
    # The numba-dpex overview kernel with only its imports changed, on dpk arrays of `device`.
    result, expected = load("pairwise_distance").main(n=128, device=device)
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)


def test_vector_add(host):
    c, expected = load("vector_add").main()
    np.testing.assert_allclose(c, expected, rtol=1e-6)


def test_black_scholes(host):
    (call, put), (ec, ep) = load("black_scholes").main(n=1024)
    np.testing.assert_allclose(call, ec, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(put, ep, rtol=1e-9, atol=1e-9)


def test_histogram(host):
    bins, expected = load("histogram").main()
    np.testing.assert_array_equal(bins, expected)


@pytest.mark.parametrize("name,kwargs", [("reduction", {"n": 512, "wg": 64}),
                                          ("matmul_tiled", {"n": 32})])
def test_barrier_examples_compiled_and_pure_python(host, name, kwargs):
    module = load(name)
    np.random.seed(0)
    compiled, expected = module.run(dpk.call_kernel, **kwargs)
    np.random.seed(0)
    simulated, expected2 = module.run(kapi.call_kernel, **kwargs)
    np.testing.assert_allclose(compiled, expected, rtol=1e-5)
    np.testing.assert_allclose(simulated, expected2, rtol=1e-5)
    np.testing.assert_allclose(compiled, simulated, rtol=1e-5)


@pytest.mark.parametrize("name", ["reduction", "matmul_tiled", "histogram"])
def test_examples_on_every_device(device, name):
    module = load(name)
    if name == "histogram":
        # The example's kernel itself, placed on `device` by its dpk arrays.
        values = np.random.randint(0, 1000, size=2000).astype(np.int64)
        bins = dpk.zeros(16, np.int32, device=device)
        dpk.call_kernel(module.histogram, dpk.Range(2000), dpk.asarray(values, device=device),
                        bins)
        np.testing.assert_array_equal(bins.asnumpy(), np.bincount(values % 16, minlength=16))
        return

    def on_device(kernel, rng, *args):
        staged = [dpk.asarray(a, device=device) if isinstance(a, np.ndarray) else a
                  for a in args]
        dpk.call_kernel(kernel, rng, *staged)
        for a, s in zip(args, staged):
            if isinstance(a, np.ndarray):
                a[...] = s.asnumpy()

    got, expected = module.run(on_device)
    np.testing.assert_allclose(got, expected, rtol=1e-4)
