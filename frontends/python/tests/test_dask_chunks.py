"""dpk arrays as Dask array chunks (dpk/scaleout/dask_chunks.py, docs/scale-out.md): Dask
arrays over dpk chunks built with from_dpk / the "dpk" backend, map_blocks of dpk array
expressions and of a dpk kernel, the dpk-aware reductions and matmul, and compute() giving a
dpk array (or NumPy through to_numpy), on the host device, with the local threaded and
synchronous schedulers and a distributed Client in this process's threads and in worker
processes; every result is checked against NumPy."""

import numpy as np
import pytest

import dpk
from dpk import kernel_api as kapi

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
from dpk.scaleout import dask_chunks as dc  # noqa: E402

DATA = np.arange(96, dtype=np.float64).reshape(12, 8) / 7.0


@dpk.kernel
def axpy(item: kapi.Item, x, y, alpha, out):
    i = item.get_id(0)
    j = item.get_id(1)
    out[i, j] = alpha * x[i, j] + y[i, j]


def _sine_step(block):
    """An array expression on one dpk chunk."""
    return dpk.sin(block) * 2.0 + block


def _kernel_block(block):
    """A function launching a kernel on one dpk chunk (its own output)."""
    out = dpk.empty(block.shape, dtype=block.dtype, device=block.device)
    dpk.call_kernel(axpy, dpk.Range(*block.shape), block, block, 3.0, out)
    return out


@pytest.fixture
def chunked(host):
    return dc.from_dpk(dpk.asarray(DATA, device=host), chunks=(5, 3))


def test_chunks_are_dpk_arrays_and_compute_gives_dpk(chunked, host):
    assert isinstance(chunked._meta, dpk.Array) and chunked.numblocks == (3, 3)
    block = chunked.blocks[1, 2].compute(scheduler="threads")
    assert isinstance(block, dpk.Array) and block.device is host
    np.testing.assert_array_equal(block.asnumpy(), DATA[5:10, 6:])
    whole = chunked.compute(scheduler="threads")
    assert isinstance(whole, dpk.Array) and whole.device is host
    np.testing.assert_array_equal(whole.asnumpy(), DATA)
    as_numpy = dc.to_numpy(chunked).compute(scheduler="threads")
    assert type(as_numpy) is np.ndarray
    np.testing.assert_array_equal(as_numpy, DATA)
    # da.from_array with asarray=False keeps dpk chunks too (from_dpk adds the meta).
    plain = da.from_array(dpk.asarray(DATA), chunks=4, asarray=False)
    assert isinstance(plain.blocks[0, 0].compute(scheduler="threads"), dpk.Array)


def test_operators_slicing_rechunk_and_concatenate(chunked):
    expr = (chunked * 2 - 1)[2:11:2, 1:] / 3
    got = expr.compute(scheduler="threads")
    assert isinstance(got, dpk.Array)
    np.testing.assert_allclose(got.asnumpy(), (DATA * 2 - 1)[2:11:2, 1:] / 3, rtol=1e-15)
    stacked = da.concatenate([chunked, chunked.rechunk((6, 8))], axis=0)
    np.testing.assert_array_equal(stacked.compute(scheduler="threads").asnumpy(),
                                  np.concatenate([DATA, DATA]))
    picked = chunked[[0, 7, 3]].compute(scheduler="threads")  # take
    np.testing.assert_array_equal(picked.asnumpy(), DATA[[0, 7, 3]])


@pytest.mark.parametrize("scheduler", ["threads", "sync"])
def test_map_blocks_of_an_array_expression_and_a_kernel(chunked, scheduler):
    expr = dc.map_blocks(_sine_step, chunked).compute(scheduler=scheduler)
    np.testing.assert_allclose(expr.asnumpy(), np.sin(DATA) * 2.0 + DATA, rtol=1e-12)
    kern = dc.map_blocks(_kernel_block, chunked).compute(scheduler=scheduler)
    np.testing.assert_allclose(kern.asnumpy(), 4.0 * DATA, rtol=1e-15)
    y = chunked + 1
    mapped = dc.map_kernel(axpy, chunked, y, 0.5).compute(scheduler=scheduler)
    np.testing.assert_allclose(mapped.asnumpy(), 0.5 * DATA + DATA + 1, rtol=1e-15)
    # Dask's own map_blocks works as well when given the meta (an empty dpk array).
    direct = da.map_blocks(_sine_step, chunked, meta=dpk.empty((0, 0))).compute(
        scheduler=scheduler)
    np.testing.assert_allclose(direct.asnumpy(), np.sin(DATA) * 2.0 + DATA, rtol=1e-12)


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_reductions_match_numpy(chunked, op, axis):
    got = dc.reduce(chunked / 10 + 1, op, axis=axis).compute(scheduler="threads")
    expected = getattr(np, op)(DATA / 10 + 1, axis=axis)
    np.testing.assert_allclose(np.asarray(got.asnumpy()), expected, rtol=1e-12)
    kept = dc.reduce(chunked, op, axis=axis, keepdims=True).compute(scheduler="threads")
    assert kept.shape == getattr(np, op)(DATA, axis=axis, keepdims=True).shape


def test_matmul_and_tensordot_dispatch(chunked):
    other = dc.from_dpk(dpk.asarray(DATA.T.copy()), chunks=(4, 5))  # rechunked to match
    got = dc.matmul(chunked, other).compute(scheduler="threads")
    np.testing.assert_allclose(got.asnumpy(), DATA @ DATA.T, rtol=1e-12)
    # Single-block contraction: Dask's tensordot calls the registered dpk.tensordot.
    one = dc.from_dpk(dpk.asarray(DATA), chunks=(12, 8))
    assert isinstance(one.blocks[0, 0].compute(), dpk.Array)


def test_dpk_backend_creation_and_to_backend(host):
    with dask.config.set({"array.backend": "dpk"}):
        dc.register()
        ones = da.ones((7, 5), chunks=3, dtype=np.float32)
        ramp = da.arange(10, chunks=4)
    for x, expected in ((ones, np.ones((7, 5), np.float32)), (ramp, np.arange(10))):
        got = x.compute(scheduler="threads")
        assert isinstance(got, dpk.Array)
        np.testing.assert_array_equal(got.asnumpy(), expected)
    moved = da.from_array(DATA, chunks=5).to_backend("dpk")
    assert isinstance(moved._meta, dpk.Array)
    np.testing.assert_array_equal(moved.compute(scheduler="threads").asnumpy(), DATA)
    back = moved.to_backend("numpy").compute(scheduler="threads")
    assert type(back) is np.ndarray


@pytest.fixture(scope="module", params=[False, True], ids=["threads", "processes"])
def client(request):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1 if not request.param else 2,
                                  threads_per_worker=2 if not request.param else 1,
                                  processes=request.param, dashboard_address=None,
                                  worker_dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        dc.register(c)  # the workers concatenate and reduce chunks too
        yield c


def test_distributed_client_runs_dpk_chunks(client, host):
    chunked = dc.from_dpk(dpk.asarray(DATA, device=host), chunks=(6, 4))
    expr = dc.map_blocks(_sine_step, chunked)
    kern = dc.map_kernel(axpy, chunked, chunked, 2.0)
    total = dc.reduce(kern, "sum", axis=0)
    got_expr, got_kern, got_total = client.compute([expr, kern, total], sync=True)
    assert isinstance(got_expr, dpk.Array) and isinstance(got_kern, dpk.Array)
    np.testing.assert_allclose(got_expr.asnumpy(), np.sin(DATA) * 2.0 + DATA, rtol=1e-12)
    np.testing.assert_allclose(got_kern.asnumpy(), 3.0 * DATA, rtol=1e-15)
    np.testing.assert_allclose(got_total.asnumpy(), (3.0 * DATA).sum(axis=0), rtol=1e-12)
    as_numpy = client.compute(dc.to_numpy(expr), sync=True)
    assert type(as_numpy) is np.ndarray


def test_processes_scheduler_with_the_registering_initializer(chunked):
    """Dask's multiprocessing scheduler: the pool's processes register dpk through
    ``initializer`` (they run the final concatenation too)."""
    kern = dc.map_kernel(axpy, chunked, chunked, 2.0)
    got = kern.compute(scheduler="processes", num_workers=2, initializer=dc.register)
    assert isinstance(got, dpk.Array)
    np.testing.assert_allclose(got.asnumpy(), 3.0 * DATA, rtol=1e-15)


@pytest.mark.parametrize("name", ["sum", "mean0", "std", "max1", "sin", "matmul", "cumsum",
                                  "where"])
def test_dask_numpy_methods_run_on_dpk_chunks(chunked, name):
    # Dask's own methods apply NumPy functions and ndarray methods to the chunks; the NumPy
    # protocols (arrays/numpy_protocol.py) make them dpk operations.
    x = chunked
    cases = {"sum": (lambda: x.sum(), DATA.sum()),
             "mean0": (lambda: x.mean(axis=0), DATA.mean(axis=0)),
             "std": (lambda: x.std(), DATA.std()),
             "max1": (lambda: x.max(axis=1), DATA.max(axis=1)),
             "sin": (lambda: np.sin(x) * 2 + 1, np.sin(DATA) * 2 + 1),
             "matmul": (lambda: x @ x.T, DATA @ DATA.T),
             "cumsum": (lambda: x.cumsum(axis=0), DATA.cumsum(axis=0)),
             "where": (lambda: da.where(x > 5, x, 0.0), np.where(DATA > 5, DATA, 0.0))}
    expr, ref = cases[name]
    with dask.config.set(scheduler="threads"):
        got = expr().compute()
    assert isinstance(got, dpk.Array)
    np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-12)
