"""dpk arrays as the chunks of Dask arrays.

``register()`` (idempotent; every helper here calls it) tells Dask about ``dpk.Array``:

  - ``dask.array.register_chunk_type``: Dask arrays wrap dpk chunks and do not defer to them
    in arithmetic (``dask_array + dpk_array`` is a Dask array);
  - Dask's per-chunk-type dispatch tables, as CuPy's integration fills them:
    ``concatenate`` (``dpk.concat``: computing or rechunking an array of several chunks gives
    one dpk array on the chunks' device), ``tensordot`` (``dpk.tensordot``: ``da.tensordot``,
    ``@``), ``take`` (``dpk.take``), ``empty``, ``numel``/``nannumel`` (what ``mean``/``var``
    count), ``divide``, and ``to_numpy_dispatch`` (``x.to_backend("numpy")``);
  - an array backend named "dpk" (``x.to_backend("dpk")`` moves NumPy chunks to dpk arrays on
    the current device; under ``dask.config.set({"array.backend": "dpk"})`` ``da.ones``,
    ``zeros``, ``empty``, ``full`` and ``arange`` make dpk chunks).

What ``compute()`` returns follows the chunks: a Dask array of dpk chunks computes to one dpk
array (on the chunks' device); ``x.to_backend("numpy").compute()`` or ``to_numpy(x)`` gives
NumPy. ``from_dpk(a, chunks)`` is ``da.from_array`` for a dpk array (chunks are dpk views of
it, ``asarray=False``), ``map_blocks`` of a dpk kernel or array expression runs it per chunk
(``map_kernel`` wraps a kernel that writes its output argument).

Chunks travel to processes and distributed workers by pickling (dpk/_serialization.py):
arrays as their data and device, kernels by reference or by source.
"""

from __future__ import annotations

import threading

import numpy as np

from ..arrays.array_object import Array, asarray, asnumpy
from ..arrays.creation_functions import empty, full, ones, zeros
from ..arrays.data_type_functions import astype
from ..arrays.indexing_functions import take
from ..arrays.linear_algebra_functions import tensordot
from ..arrays.linear_algebra_functions import matmul as dpk_matmul
from ..arrays.manipulation_functions import concat, reshape
from ..arrays.statistical_functions import max as dpk_max
from ..arrays.statistical_functions import min as dpk_min
from ..arrays.statistical_functions import prod as dpk_prod
from ..arrays.statistical_functions import sum as dpk_sum
from .._runtime.devices import get_current_device
from ..kernels.dispatcher import call_kernel
from ..kernels.kapi import Range

_lock = threading.Lock()
_registered = False


def _concatenate(arrays, axis=0):
    return concat([a if isinstance(a, Array) else asarray(a) for a in arrays], axis=axis)


def _tensordot(a, b, axes=2):
    return tensordot(a if isinstance(a, Array) else asarray(a),
                     b if isinstance(b, Array) else asarray(b), axes=axes)


def _take(a, indices, axis=None):
    """``np.take`` of a dpk chunk (Dask's fancy indexing along one axis)."""
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    return take(a, asarray(np.asarray(indices, dtype=np.int64), device=a.device), axis=axis)


def _empty(shape, dtype=None, **kwargs):
    return empty(shape, dtype=dtype)


def _numel(x, **kwargs):
    """Dask's numel: the element count of `x` reduced as `axis` and `keepdims` say (NumPy;
    Dask sums the counts of the chunks)."""
    return _count(x.shape, kwargs.get("axis"), kwargs.get("keepdims", False),
                  kwargs.get("dtype", np.float64))


def _count(shape, axis, keepdims, dtype):
    if axis is None:
        total = np.prod(shape, dtype=np.int64)
        if keepdims:
            return np.full((1,) * len(shape), total, dtype=dtype)
        return np.asarray(total, dtype=dtype)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(a % len(shape) for a in axes)
    count = np.prod([shape[a] for a in axes], dtype=np.int64)
    out_shape = tuple(1 if i in axes else n for i, n in enumerate(shape)) if keepdims else \
        tuple(n for i, n in enumerate(shape) if i not in axes)
    return np.full(out_shape, count, dtype=dtype)


def _nannumel(x, **kwargs):
    """The count of non-NaN elements (Dask's nanmean/nanvar)."""
    return np.sum(~np.isnan(asnumpy(x)), axis=kwargs.get("axis"),
                  keepdims=kwargs.get("keepdims", False), dtype=kwargs.get("dtype", np.float64))


def _divide(a, b, dtype=None):
    """Dask's mean and var divide sums by counts (a dpk sum by a NumPy count)."""
    out = a / (asarray(b, device=a.device) if isinstance(b, np.ndarray) else b)
    return out if dtype is None else astype(out, dtype)


def _to_numpy(data, **kwargs):
    return asnumpy(data)


def _to_dpk(data, **kwargs):
    """A chunk as a dpk array (on the current device; dpk arrays stay where they are)."""
    if isinstance(data, Array):
        return data
    return asarray(np.asarray(data), device=kwargs.get("device"))


def register(client=None):
    """Registers dpk.Array with Dask (see the module's docstring) in this process; safe to call
    again. With a ``distributed.Client``, also on its workers, present and future (a worker
    plugin): workers run the tasks that concatenate or reduce chunks, and without the
    registration they would concatenate dpk chunks into NumPy arrays. (Dask's ``processes``
    scheduler: pass ``initializer=register`` to ``compute``.) Returns dask.array."""
    global _registered
    import dask.array as da
    if client is not None:
        client.register_plugin(_worker_plugin())
    if _registered:
        return da
    with _lock:
        if _registered:
            return da
        from dask.array import backends, chunk_types, dispatch
        chunk_types.register_chunk_type(Array)
        dispatch.concatenate_lookup.register(Array, _concatenate)
        dispatch.tensordot_lookup.register(Array, _tensordot)
        dispatch.take_lookup.register(Array, _take)
        dispatch.empty_lookup.register(Array, _empty)
        dispatch.numel_lookup.register(Array, _numel)
        dispatch.nannumel_lookup.register(Array, _nannumel)
        dispatch.divide_lookup.register(Array, _divide)
        dispatch.to_numpy_dispatch.register(Array, _to_numpy)
        backends.array_creation_dispatch.register_backend("dpk", _dpk_backend())
        _registered = True
    return da


def _setup_worker(self, worker):
    register()


def _worker_plugin():
    """A distributed WorkerPlugin that calls register() on each worker (idempotent: one per
    cluster however often it is installed). Its class is made here, as distributed is
    imported only when a client is given; cloudpickle sends it by value."""
    from distributed.diagnostics.plugin import WorkerPlugin
    cls = type("DpkDaskChunks", (WorkerPlugin,), {
        "name": "dpk-dask-chunks", "idempotent": True, "setup": _setup_worker,
        "__module__": __name__, "__doc__": "Registers dpk.Array as a Dask chunk type."})
    return cls()


def _dpk_backend():
    """Dask's array backend "dpk" (``dask.config.set({"array.backend": "dpk"})`` and
    ``x.to_backend("dpk")``): creation functions whose chunks are dpk arrays on the current
    device. Its class derives from Dask's, so it is made when Dask is imported."""
    from dask.array.backends import ArrayBackendEntrypoint

    class DpkBackendEntrypoint(ArrayBackendEntrypoint):
        @classmethod
        def to_backend_dispatch(cls):
            return _to_dpk

        @classmethod
        def to_backend(cls, data, **kwargs):
            if isinstance(data._meta, Array):
                return data
            meta = empty((0,) * data.ndim, dtype=data.dtype)
            return data.map_blocks(_to_dpk, meta=meta, **kwargs)

        @property
        def RandomState(self):
            return np.random.RandomState  # Dask's random arrays stay NumPy chunks

        @property
        def default_bit_generator(self):
            return np.random.PCG64

        @staticmethod
        def ones(shape, *, dtype=None, meta=None, **kwargs):
            return _blockwise_creation(ones, shape, dtype, **kwargs)

        @staticmethod
        def zeros(shape, *, dtype=None, meta=None, **kwargs):
            return _blockwise_creation(zeros, shape, dtype, **kwargs)

        @staticmethod
        def empty(shape, *, dtype=None, meta=None, **kwargs):
            return _blockwise_creation(empty, shape, dtype, **kwargs)

        @staticmethod
        def full(shape, fill_value, *, dtype=None, meta=None, **kwargs):
            if dtype is None:
                dtype = np.asarray(fill_value).dtype

            def filled(chunk_shape, dtype=None):
                return full(chunk_shape, fill_value, dtype=dtype)

            return _blockwise_creation(filled, shape, dtype, **kwargs)

        @staticmethod
        def arange(start, /, stop=None, step=1, *, dtype=None, meta=None, **kwargs):
            import dask
            from dask.array.creation import arange as dask_arange
            with dask.config.set({"array.backend": "numpy"}):  # not back into this one
                host = dask_arange(start, stop, step, dtype=dtype, **kwargs)
            meta = empty((0,), dtype=host.dtype)
            return host.map_blocks(_to_dpk, meta=meta)

    return DpkBackendEntrypoint()


def _blockwise_creation(make, shape, dtype, chunks="auto", **kwargs):
    """A Dask array of `shape` whose chunks `make(chunk_shape, dtype=...)` creates (a dpk
    array on the current device of the thread that computes it)."""
    import dask.array as da
    dtype = np.dtype(np.float64 if dtype is None else dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    chunks = da.core.normalize_chunks(chunks, shape, dtype=dtype)
    meta = empty((0,) * len(shape), dtype=dtype)

    def block(block_info=None):
        return make(block_info[None]["chunk-shape"], dtype=dtype)

    return da.map_blocks(block, chunks=chunks, dtype=dtype, meta=meta)


# ---- helpers -----------------------------------------------------------------------------------

def from_dpk(array, chunks="auto", **kwargs):
    """``da.from_array`` of a dpk array: chunks are dpk views of it (``asarray=False``, so
    Dask does not convert them to NumPy), on the array's device."""
    da = register()
    kwargs.setdefault("asarray", False)
    kwargs.setdefault("meta", empty((0,) * array.ndim, dtype=array.dtype, device=array.device))
    return da.from_array(array, chunks=chunks, **kwargs)


def to_numpy(x):
    """A Dask array of NumPy chunks from one of dpk chunks (``x.to_backend("numpy")``):
    ``to_numpy(x).compute()`` returns a NumPy array."""
    register()
    return x.to_backend("numpy")


def to_dpk(x, device=None):
    """A Dask array of dpk chunks from one of NumPy (or other) chunks, each moved to
    `device` (None: the current device of the thread computing it)."""
    register()
    meta = empty((0,) * x.ndim, dtype=x.dtype, device=device)
    return x.map_blocks(_to_dpk, meta=meta, device=device)


def map_kernel(kernel, x, *others, dtype=None, out_shape=None):
    """``x.map_blocks`` of a dpk kernel written like ``kernel(item, in0, in1, ..., out)``: per
    chunk, allocates `out` (the chunk's shape and `dtype`, default x's, on the chunk's device),
    launches the kernel over ``dpk.Range(*out.shape)`` and returns `out`. `others` are Dask
    arrays chunked like `x` (passed chunk by chunk) or scalars (passed as they are)."""
    da = register()
    out_dtype = np.dtype(x.dtype if dtype is None else dtype)

    def block(*chunks):
        first = chunks[0]
        device = first.device if isinstance(first, Array) else get_current_device()
        shape = first.shape if out_shape is None else out_shape
        out = empty(shape, dtype=out_dtype, device=device)
        call_kernel(kernel, Range(*shape), *chunks, out)
        return out

    meta = empty((0,) * x.ndim, dtype=out_dtype)
    return da.map_blocks(block, x, *others, dtype=out_dtype, meta=meta)


def map_blocks(func, *args, dtype=None, **kwargs):
    """``da.map_blocks`` for functions of dpk chunks (dpk array expressions, ``dpk.sin``, a
    function launching kernels): Dask's guess of the result type calls `func` on NumPy
    placeholders, which dpk functions refuse, so the result's ``meta`` is given instead (an
    empty dpk array of `dtype`, default the first Dask argument's dtype)."""
    da = register()
    arrays = [a for a in args if isinstance(a, da.Array)]
    if dtype is None:
        dtype = arrays[0].dtype if arrays else np.float64
    ndim = kwargs.pop("ndim", None)
    if ndim is None:
        ndim = max((a.ndim for a in arrays), default=0) + _axis_count(kwargs.get("new_axis")) \
            - _axis_count(kwargs.get("drop_axis"))
    kwargs.setdefault("meta", empty((0,) * ndim, dtype=dtype))
    return da.map_blocks(func, *args, dtype=dtype, **kwargs)


def _axis_count(axes):
    if axes is None:
        return 0
    return 1 if isinstance(axes, int) else len(axes)


def _reducer(fn):
    def chunk(x, axis=None, keepdims=False, **kwargs):
        return fn(x if isinstance(x, Array) else asarray(x), axis=axis, keepdims=keepdims)
    return chunk


_REDUCTIONS = {"sum": dpk_sum, "prod": dpk_prod, "min": dpk_min, "max": dpk_max}


def reduce(x, op="sum", axis=None, keepdims=False, split_every=None):
    """A reduction of a Dask array of dpk chunks with dpk's own functions, per chunk and then
    over the chunks' results (Dask's tree reduction): `op` is "sum", "prod", "min", "max" or
    "mean". (Dask's ``x.sum()`` applies NumPy's functions to the chunks, which dpk arrays do
    not take.) The result is a Dask array of dpk chunks; ``compute()`` gives a dpk array."""
    da = register()
    if op == "mean":
        total = reduce(x, "sum", axis, keepdims, split_every)
        axes = range(x.ndim) if axis is None else \
            ((axis,) if isinstance(axis, int) else tuple(axis))
        count = 1
        for a in axes:
            count *= x.shape[a]
        return total / count
    fn = _REDUCTIONS.get(op)
    if fn is None:
        raise ValueError(f"reduce: op must be one of {sorted(_REDUCTIONS) + ['mean']}, "
                         f"not {op!r}")
    reducer = _reducer(fn)
    out_dtype = np.asarray(getattr(np, op)(np.zeros(1, dtype=x.dtype))).dtype
    meta = empty((0,) * (x.ndim if keepdims or axis is not None else 0), dtype=out_dtype)
    if axis is not None and not keepdims:
        dropped = 1 if isinstance(axis, int) else len(tuple(axis))
        meta = empty((0,) * (x.ndim - dropped), dtype=out_dtype)
    return da.reduction(x, reducer, reducer, axis=axis, keepdims=keepdims, dtype=out_dtype,
                        split_every=split_every, meta=meta)


def matmul(a, b):
    """``a @ b`` of two 2-D Dask arrays of dpk chunks (a's column chunks must match b's row
    chunks): each output block is ``dpk.matmul`` of a's row of blocks and b's column of blocks,
    concatenated along the contracted axis (Dask's own ``@`` sums per-block products with
    NumPy's functions, which dpk arrays do not take)."""
    da = register()
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"matmul: 2-D arrays only, not {a.ndim}-D and {b.ndim}-D")
    if a.chunks[1] != b.chunks[0]:
        b = b.rechunk((a.chunks[1], b.chunks[1]))
    dtype = np.result_type(a.dtype, b.dtype)
    return da.blockwise(dpk_matmul, "ik", a, "ij", b, "jk", concatenate=True, dtype=dtype,
                        meta=empty((0, 0), dtype=dtype))
