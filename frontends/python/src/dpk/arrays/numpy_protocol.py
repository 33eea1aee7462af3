"""NumPy's dispatch protocols on dpk arrays: ``np.sin(x)``, ``np.add(x, y, out=z)``,
``np.sum(x, axis=0)``, ``np.concatenate([x, y])`` run as dpk operations on the arrays' device
and return dpk arrays (NEP 13 ``__array_ufunc__``, NEP 18 ``__array_function__``), as CuPy's
arrays do. Libraries that call NumPy functions on the arrays they are given (Dask's chunk
functions, xarray, scikit-learn's array helpers) then compute with dpk, on the device.

What is dispatched: the ufuncs and functions in the tables below, which map onto the Array
API namespace (NumPy names to the standard's, NumPy keywords to dpk's). Anything else gives
``NotImplemented``, and NumPy raises its TypeError naming the function: dpk never falls back to
computing on a host copy without being asked (``np.asarray(x)`` or ``x.asnumpy()`` ask).
NumPy arrays among the arguments mix in as in dpk's operators (copied to the dpk array's
device). ``out=`` takes dpk arrays (a NumPy ``out`` with dpk inputs is NotImplemented).
"""

from __future__ import annotations

import numpy as np

from . import (creation_functions as C, data_type_functions as T,
               elementwise_functions as E, indexing_functions as I, linear_algebra_functions as L,
               manipulation_functions as M, searching_functions as S,
               statistical_functions as ST, utility_functions as U)
from .array_object import Array, asarray

# NumPy ufunc name -> dpk elementwise function name (same name where not listed).
_UFUNC_NAMES = {
    "true_divide": "divide", "power": "pow", "mod": "remainder", "absolute": "abs",
    "fabs": "abs", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift", "rint": "round",
    "conjugate": "conj", "fmax": None, "fmin": None,
}
# ufunc.reduce / ufunc.accumulate -> dpk reductions and scans.
_REDUCE = {"add": ST.sum, "multiply": ST.prod, "maximum": ST.max, "minimum": ST.min,
           "logical_and": U.all, "logical_or": U.any}
_ACCUMULATE = {"add": ST.cumulative_sum, "multiply": ST.cumulative_prod}


def _elementwise(ufunc):
    if ufunc.__name__ in ("matmul", "vecdot"):  # generalized ufuncs in NumPy 2
        return getattr(L, ufunc.__name__)
    name = _UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__)
    return getattr(E, name, None) if name else None


def _device_of(args):
    for a in args:
        if isinstance(a, Array):
            return a.device
    return None


def _write_out(out, result):
    if out is None:
        return result
    target = out[0] if isinstance(out, tuple) else out
    if not isinstance(target, Array):
        return NotImplemented
    target[...] = result
    return target


def array_ufunc(self, ufunc, method, *inputs, out=None, **kwargs):
    """NEP 13: the ufunc as the dpk operation (module docstring)."""
    if out is not None and isinstance(out, tuple) and len(out) != 1:
        return NotImplemented
    dtype = kwargs.pop("dtype", None)
    if method == "__call__":
        fn = _elementwise(ufunc)
        if fn is None or kwargs:
            return NotImplemented
        result = fn(*inputs)
    elif method in ("reduce", "accumulate"):
        table = _REDUCE if method == "reduce" else _ACCUMULATE
        fn = table.get(ufunc.__name__)
        x = inputs[0] if inputs else None
        if fn is None or not isinstance(x, Array):
            return NotImplemented
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False)
        if kwargs:
            return NotImplemented
        if method == "reduce":
            extra = {"dtype": dtype} if dtype is not None and fn in (ST.sum, ST.prod) else {}
            result = fn(x, axis=axis, keepdims=keepdims, **extra)
        else:
            result = fn(x, axis=axis, **({"dtype": dtype} if dtype is not None else {}))
        dtype = None
    else:
        return NotImplemented
    if dtype is not None:
        result = T.astype(result, np.dtype(dtype))
    return _write_out(out, result)


# ---- __array_function__ ---------------------------------------------------------------------

def _reduction(fn, with_dtype=True):
    def call(a, axis=None, dtype=None, out=None, keepdims=False, **rest):
        if rest.get("where", True) is not True or rest.get("initial") is not None:
            return NotImplemented
        kwargs = {"axis": _axis(axis), "keepdims": bool(keepdims)}
        if with_dtype and dtype is not None:
            kwargs["dtype"] = np.dtype(dtype)
        result = fn(a, **kwargs)
        if dtype is not None and not with_dtype:
            result = T.astype(result, np.dtype(dtype))
        return _write_out(out, result)
    return call


def _spread(fn):
    def call(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **rest):
        if rest.get("where", True) is not True:
            return NotImplemented
        result = fn(a, axis=_axis(axis), correction=ddof, keepdims=bool(keepdims))
        if dtype is not None:
            result = T.astype(result, np.dtype(dtype))
        return _write_out(out, result)
    return call


def _arg(fn):
    def call(a, axis=None, out=None, keepdims=False):
        return _write_out(out, fn(a, axis=axis, keepdims=bool(keepdims)))
    return call


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _cumulative(fn):
    def call(a, axis=None, dtype=None, out=None):
        if axis is None:
            a = M.reshape(a, (-1,))
            axis = 0
        kwargs = {"axis": axis}
        if dtype is not None:
            kwargs["dtype"] = np.dtype(dtype)
        return _write_out(out, fn(a, **kwargs))
    return call


def _on_device_of(values):
    """The NumPy arrays among `values` as dpk arrays on the device of the dpk ones (the mixing
    rule of dpk's operators: copied there)."""
    device = _device_of(values)
    return [asarray(v, device=device) if isinstance(v, np.ndarray) else v for v in values]


def _where(condition, x=None, y=None):
    if x is None and y is None:
        return S.nonzero(condition)
    condition, x, y = _on_device_of([condition, x, y])
    return S.where(condition, x, y)


def _transpose(a, axes=None):
    return M.permute_dims(a, tuple(axes) if axes is not None else tuple(range(a.ndim))[::-1])


def _like(fill):
    """np.zeros_like and friends: `fill` (None: uninitialized) in a's shape, or `shape=`."""
    def call(a, *args, dtype=None, order="K", subok=True, shape=None, device=None):
        if fill == "given":
            value, args = args[0], args[1:]
        else:
            value = fill
        if args:
            dtype = args[0]
        dtype = np.dtype(dtype) if dtype is not None else a.dtype
        shape = a.shape if shape is None else tuple(np.atleast_1d(shape).tolist())
        if value is None:
            return C.empty(shape, dtype=dtype, device=a.device)
        return C.full(shape, value, dtype=dtype, device=a.device)
    return call


def _sort(fn):
    def call(a, axis=-1, kind=None, order=None, stable=None):
        if order is not None:
            return NotImplemented
        if axis is None:
            a, axis = M.reshape(a, (-1,)), 0
        return fn(a, axis=axis)
    return call


_FUNCTIONS = {
    np.sum: _reduction(ST.sum), np.prod: _reduction(ST.prod),
    np.mean: _reduction(ST.mean, with_dtype=False),
    np.max: _reduction(ST.max, with_dtype=False), np.min: _reduction(ST.min, with_dtype=False),
    np.amax: _reduction(ST.max, with_dtype=False), np.amin: _reduction(ST.min, with_dtype=False),
    np.all: _reduction(U.all, with_dtype=False), np.any: _reduction(U.any, with_dtype=False),
    np.std: _spread(ST.std), np.var: _spread(ST.var),
    np.argmax: _arg(S.argmax), np.argmin: _arg(S.argmin),
    np.cumsum: _cumulative(ST.cumulative_sum), np.cumprod: _cumulative(ST.cumulative_prod),
    np.concatenate: lambda arrays, axis=0: M.concat(list(arrays), axis=axis),
    np.stack: lambda arrays, axis=0: M.stack(list(arrays), axis=axis),
    np.where: _where, np.nonzero: S.nonzero,
    np.count_nonzero: lambda a, axis=None, keepdims=False: S.count_nonzero(
        a, axis=_axis(axis), keepdims=keepdims),
    np.reshape: lambda a, *args, **kw: M.reshape(a, tuple(np.atleast_1d(
        kw.get("newshape", kw.get("shape", args[0] if args else None))).tolist())),
    np.ravel: lambda a, order="C": M.reshape(a, (-1,)),
    np.transpose: _transpose, np.moveaxis: M.moveaxis,
    np.squeeze: lambda a, axis=None: M.squeeze(
        a, axis=axis if axis is not None else tuple(i for i, s in enumerate(a.shape) if s == 1)),
    np.expand_dims: lambda a, axis: M.expand_dims(a, axis=axis),
    np.broadcast_to: lambda a, shape: M.broadcast_to(a, tuple(shape)),
    np.flip: lambda a, axis=None: M.flip(a, axis=axis),
    np.roll: lambda a, shift, axis=None: M.roll(a, shift, axis=axis),
    np.matmul: lambda a, b: L.matmul(a, b), np.tensordot: L.tensordot,
    np.dot: lambda a, b: L.matmul(a, b) if a.ndim >= 1 and b.ndim >= 1 else E.multiply(a, b),
    np.vdot: lambda a, b: L.vecdot(M.reshape(a, (-1,)), M.reshape(b, (-1,))),
    np.clip: lambda a, a_min=None, a_max=None, **kw: E.clip(
        a, kw.get("min", a_min), kw.get("max", a_max)),
    np.round: lambda a, decimals=0: E.round(a) if decimals == 0 else NotImplemented,
    np.take: lambda a, indices, axis=None: I.take(
        M.reshape(a, (-1,)) if axis is None else a,
        indices if isinstance(indices, Array) else asarray(indices, device=a.device),
        axis=0 if axis is None else axis),
    np.zeros_like: _like(0), np.ones_like: _like(1), np.empty_like: _like(None),
    np.full_like: _like("given"),
    np.copy: lambda a, order="K", subok=False: a.copy(),
    np.shape: lambda a: a.shape, np.ndim: lambda a: a.ndim, np.size: lambda a, axis=None: (
        a.size if axis is None else a.shape[axis]),
}


def register(func, impl):
    """Dispatches the NumPy function `func` on dpk arrays to `impl` (same arguments); for rooms
    above this one (the primitives register np.sort and np.argsort)."""
    _FUNCTIONS[func] = impl


def sort_adapter(fn):
    """np.sort / np.argsort's arguments for the dpk function `fn(a, axis=)`."""
    return _sort(fn)


def array_function(self, func, types, args, kwargs):
    """NEP 18: the NumPy function as the dpk one (module docstring). A NumPy keyword the dpk
    function does not take is a TypeError naming it."""
    impl = _FUNCTIONS.get(func)
    if impl is None or not all(issubclass(t, (Array, np.ndarray)) for t in types):
        return NotImplemented
    return impl(*args, **kwargs)


Array.__array_ufunc__ = array_ufunc
Array.__array_function__ = array_function


# ---- ndarray-style methods ------------------------------------------------------------------
# Code written for NumPy (Dask's reductions among it) calls methods, x.sum(axis=0) rather than
# np.sum(x, axis=0); dpk arrays answer them through the same table. Names the Array API already
# gives the array (x.T, x.mT, x.shape, ...) are left alone.

def _method(func):
    def method(self, *args, **kwargs):
        return _FUNCTIONS[func](self, *args, **kwargs)
    method.__name__ = func.__name__
    method.__doc__ = f"``numpy.{func.__name__}(x, ...)`` as a method (the NumPy protocol)."
    return method


_METHODS = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min,
            "all": np.all, "any": np.any, "std": np.std, "var": np.var, "argmax": np.argmax,
            "argmin": np.argmin, "cumsum": np.cumsum, "cumprod": np.cumprod,
            "nonzero": np.nonzero, "ravel": np.ravel, "squeeze": np.squeeze,
            "clip": np.clip, "round": np.round, "dot": np.dot, "take": np.take}
for _name, _func in _METHODS.items():
    if not hasattr(Array, _name):
        setattr(Array, _name, _method(_func))


def _reshape_method(self, *shape, order="C"):
    if order != "C":
        raise ValueError("reshape(): dpk arrays are reshaped in C order only")
    return M.reshape(self, tuple(shape[0]) if len(shape) == 1 and not isinstance(
        shape[0], int) else tuple(shape))


def _transpose_method(self, *axes):
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = tuple(axes[0])
    return _transpose(self, axes or None)


def _astype_method(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    return T.astype(self, np.dtype(dtype), copy=copy)


for _name, _impl in (("reshape", _reshape_method), ("transpose", _transpose_method),
                     ("astype", _astype_method), ("flatten", lambda self: M.reshape(self, (-1,)).copy())):
    if not hasattr(Array, _name):
        setattr(Array, _name, _impl)

__all__ = ["array_function", "array_ufunc", "register", "sort_adapter"]
