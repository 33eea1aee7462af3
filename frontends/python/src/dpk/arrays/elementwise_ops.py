"""Elementwise operations of dpk arrays: devices checked (compute follows data: operands of
different devices raise DeviceMismatchError), dtypes (the standard's categories and promotion,
Python scalars weak) and shapes (broadcasting), then the operation recorded in the expression
graph (fusion.py); and the Array's operators, in-place and reflected ones included, wired from
the elementwise table (elementwise_table.py).

Importing this module (elementwise_functions.py does, and with it the dpk package) sets the
operators of Array and registers elementwise_node for its __setitem__.
"""

from __future__ import annotations

import builtins

import numpy as np

from .._errors import DeviceMismatchError, DTypeError, ShapeError
from .._runtime import diagnostics
from .._runtime.devices import get_current_device
from . import dtypes as D
from . import array_object, fusion, immediate, indexing
from .array_object import Array, _check_device_dtype, asarray
from .elementwise_table import INPLACE, OPERATORS, REFLECTED, Row, resolve
from .memory import broadcast_shape


def common_device(what, arrays):
    """The device of `arrays` (all must share one), else the current device."""
    device = None
    for a in arrays:
        if device is None:
            device = a._device
        elif a._device is not device:
            raise DeviceMismatchError(
                f"{what}: operands live on different devices ({device.filter_string} and "
                f"{a._device.filter_string}); compute follows data, so move one with "
                f"x.to_device({device.filter_string!r}) first")
    return device if device is not None else get_current_device()


def broadcast_shapes(what, *shapes):
    """The broadcast of `shapes`, or ShapeError naming the operation and the shapes."""
    out = broadcast_shape(shapes)
    if out is None:
        raise ShapeError(f"{what}: shapes {' and '.join(str(tuple(x)) for x in shapes)} do "
                         "not broadcast")
    return out


def _report_copy(what, nbytes, device):
    diagnostics.emit(3, "arrays.implicit_copy", {
        "operation": what, "from": "numpy", "to": device.filter_string, "bytes": nbytes})


def _prepare(what, operands):
    """(device, items) where each item is an Array, ("weak", python scalar) or ("strong",
    value, dtype) for NumPy scalars; NumPy arrays are copied to the device."""
    arrays = [o for o in operands if isinstance(o, Array)]
    device = common_device(what, arrays)
    items = []
    for o in operands:
        if isinstance(o, Array):
            items.append(o)
        elif D.is_python_scalar(o):
            items.append(("weak", o))
        elif isinstance(o, np.generic) or (isinstance(o, np.ndarray) and o.ndim == 0):
            dtype = D.normalize(o.dtype)
            items.append(("strong", o.item() if dtype.kind not in "fc" else
                          (float(o) if dtype.kind == "f" else complex(o)), dtype))
        elif isinstance(o, np.ndarray):
            _report_copy(what, o.nbytes, device)
            items.append(asarray(o, device=device))
        else:
            return device, None
    return device, items


def promote_items(what, items, device):
    """The promoted dtype of arrays and strong scalars, then of the weak Python scalars."""
    dtype = None
    for it in items:
        d = it._dtype if isinstance(it, Array) else it[2] if it[0] == "strong" else None
        if d is not None:
            dtype = d if dtype is None else D.promote(dtype, d)
    for it in items:
        if not isinstance(it, Array) and it[0] == "weak":
            if dtype is None:
                dtype = D.scalar_dtype(it[1], device)
            else:
                dtype = D.scalar_result(dtype, it[1], device)
    return dtype


def _node_of(item, dtype, device):
    if isinstance(item, Array):
        return fusion.cast(item._as_node(), dtype)
    value = item[1]
    if dtype.kind in "iu" and isinstance(value, builtins.bool) is False and \
            isinstance(value, int):
        D.check_int_range(value, dtype)
    return fusion.scalar(value, dtype, device)


_RESOLVED = {}
_NO_FAST_PATH = object()  # (a _RESOLVED value: the device lacks float64 for the row's dtypes)


def _lacks_fp64(device, *dtypes):
    """Whether `device` has no float64 and one of `dtypes` needs it (the general path then
    raises its UnsupportedError)."""
    return not device.has_fp64 and any(d == D.float64 or d == D.complex128 for d in dtypes)


def _resolve_fast(row, dtype, device):
    """(compute, result) of `row` on operands promoted to `dtype` (resolve, cached), or None
    where the fast paths must leave the call to the general path: the device lacks float64
    for one of them. resolve's errors propagate."""
    key = (row.name, dtype.char, device.has_fp64)  # (a dtype's char hashes faster than it)
    found = _RESOLVED.get(key)
    if found is None:
        found = resolve(row, dtype, device)
        if _lacks_fp64(device, *found):
            found = _NO_FAST_PATH
        _RESOLVED[key] = found
    return None if found is _NO_FAST_PATH else found


def _binary_fast(row, a, b):
    """elementwise_node for the common binary cases (two arrays of one device and shape, or an
    array and a Python int or float), or None for the general path. Same rules, less work:
    a one-element ``x + 1`` is launch-bound."""
    ta, tb = type(a), type(b)
    if row.name == "pow":
        # ``x ** 2`` and ``x ** 1`` of a real array: _power_by_constant's nodes, directly
        if ta is not Array or tb is not int or (b != 2 and b != 1) or a._dtype.kind not in "iuf":
            return None
        device = a._device
        found = _resolve_fast(row, D.scalar_result(a._dtype, b, device), device)
        if found is None:
            return None
        base = fusion.cast(a._as_node(), found[0])
        return fusion.apply("square" if b == 2 else "positive", [base], base.dtype, base.shape)
    if ta is Array and tb is Array:
        device = a._device
        if b._device is not device or a._shape != b._shape:
            return None
        dtype = a._dtype if a._dtype is b._dtype else D.promote(a._dtype, b._dtype)
        found = _resolve_fast(row, dtype, device)
        if found is None:
            return None
        compute, result = found
        na = fusion.cast(a._as_node(), compute)
        nb = fusion.cast(b._as_node(), compute)
        return fusion.apply(row.name, [na, nb], result, a._shape)
    if ta is Array and (tb is int or tb is float):
        arr, value, first = a, b, True
    elif tb is Array and (ta is int or ta is float):
        arr, value, first = b, a, False
    elif ta is Array and isinstance(b, np.generic) and b.dtype.kind in "iuf":
        arr, value, first = a, b, True
    elif tb is Array and isinstance(a, np.generic) and a.dtype.kind in "iuf":
        arr, value, first = b, a, False
    else:
        return None
    device = arr._device
    if isinstance(value, np.generic):
        # A NumPy scalar is a "strong" operand: its dtype takes part in promotion (_prepare)
        dtype = D.promote(arr._dtype, D.normalize(value.dtype))
        value = float(value) if value.dtype.kind == "f" else int(value)
    else:
        dtype = D.scalar_result(arr._dtype, value, device)
    found = _resolve_fast(row, dtype, device)
    if found is None:
        return None
    compute, result = found
    if type(value) is int and compute.kind in "iu":
        D.check_int_range(value, compute)
    na = fusion.cast(arr._as_node(), compute)
    nb = fusion.scalar(value, compute, device)
    return fusion.apply(row.name, [na, nb] if first else [nb, na], result, arr._shape)


def _unary_fast(row, a):
    """elementwise_node of a one-operand row on an Array (the general path's rules)."""
    if type(a) is not Array:
        return None
    found = _resolve_fast(row, a._dtype, a._device)
    if found is None:
        return None
    compute, result = found
    return fusion.apply(row.name, [fusion.cast(a._as_node(), compute)], result, a._shape)


def _where_fast(cond, x1, x2):
    """elementwise_node of where(cond, x1, x2) for arrays of one device and shape and Python
    int or float operands (the general path's rules: the arrays promote, then the scalars)."""
    if type(cond) is not Array:
        return None
    device, shape = cond._device, cond._shape
    dtype = None
    for x in (x1, x2):
        if type(x) is Array:
            if x._device is not device or x._shape != shape:
                return None
            dtype = x._dtype if dtype is None or dtype is x._dtype else D.promote(dtype, x._dtype)
        elif type(x) is not int and type(x) is not float:
            return None
    if dtype is None:
        return None
    for x in (x1, x2):
        if type(x) is not Array:
            dtype = D.scalar_result(dtype, x, device)
    if _lacks_fp64(device, dtype):
        return None
    nodes = [fusion.cast(cond._as_node(), D.bool)]
    for x in (x1, x2):
        if type(x) is Array:
            nodes.append(fusion.cast(x._as_node(), dtype))
        else:
            if type(x) is int and dtype.kind in "iu":
                D.check_int_range(x, dtype)
            nodes.append(fusion.scalar(x, dtype, device))
    return fusion.apply("where", nodes, dtype, shape)


def elementwise_node(row, operands, what=None):
    """The graph node of `row` applied to `operands` (Arrays, Python/NumPy scalars, NumPy
    arrays), or None when an operand is of a type dpk does not take."""
    if len(operands) == 2:
        node = _binary_fast(row, operands[0], operands[1])
        if node is not None:
            return node
    elif len(operands) == 1:
        node = _unary_fast(row, operands[0])
        if node is not None:
            return node
    elif len(operands) == 3 and row.name == "where":
        node = _where_fast(*operands)
        if node is not None:
            return node
    what = what or f"{row.name}()"
    device, items = _prepare(what, operands)
    if items is None:
        return None
    if not any(isinstance(it, Array) or it[0] == "strong" for it in items) and \
            row.name != "where":
        raise TypeError(f"{what}: at least one operand must be an array")
    shape = broadcast_shapes(what, *[it._shape if isinstance(it, Array) else ()
                                     for it in items])
    if row.name == "where":
        cond, rest = items[0], items[1:]
        dtype = promote_items(what, rest, device)
        compute, result = dtype, dtype
        nodes = [_node_of(cond, D.bool, device)] + [_node_of(it, compute, device)
                                                     for it in rest]
    else:
        dtype = promote_items(what, items, device)
        compute, result = resolve(row, dtype, device)
        nodes = [_node_of(it, compute, device) for it in items]
        special = _power_by_constant(row, items, nodes)
        if special is not None:
            return special
    _check_device_dtype(what, device, result, compute)
    return fusion.apply(row.name, nodes, result, shape)


def _power_by_constant(row, items, nodes):
    """``x ** 2`` as ``x * x`` and ``x ** 1`` as x (NumPy does the same; both exact, so the
    result is the one pow gives), instead of a call of pow per element."""
    if row.name != "pow" or isinstance(items[1], Array) or items[1][0] != "weak":
        return None
    exponent = items[1][1]
    if isinstance(exponent, builtins.bool) or exponent not in (1, 2):
        return None
    base = nodes[0]
    if exponent == 1:
        return fusion.apply("positive", [base], base.dtype, base.shape)
    return fusion.apply("square", [base], base.dtype, base.shape)



# Small arrays: the operation runs at once (immediate.py), else it becomes a graph node.
_IMMEDIATE = immediate.create(elementwise_node)
_OP_IDS = immediate.OP_IDS
_now_unary = _IMMEDIATE.unary
_now_binary = _IMMEDIATE.binary
_now_inplace = _IMMEDIATE.inplace

def elementwise(row, *operands, what=None):
    if len(operands) == 2:
        result = _now_binary(_OP_IDS[row.name], operands[0], operands[1])
        if result is not None:
            return result
    elif len(operands) == 1:
        result = _now_unary(_OP_IDS[row.name], operands[0])
        if result is not None:
            return result
    return _lazy_elementwise(row, operands, what)


def _lazy_elementwise(row, operands, what):
    """The operation as a graph node's lazy Array (no immediate attempt: the caller made it),
    or NotImplemented for an operand of a type dpk does not take."""
    node = elementwise_node(row, operands, what)
    if node is None:
        return NotImplemented
    return Array._lazy(node)


def _operator(row, op_name):
    what = f"x.{op_name}(y)" if row.arity == 2 else f"x.{op_name}()"

    op = _OP_IDS[row.name]
    # (the immediate path is tried here rather than through elementwise(): a one-element
    # `x + 1` is launch-bound, and the extra call with its packed arguments is a tenth of it)
    if row.arity == 1:
        def method(self):
            result = _now_unary(op, self)
            if result is not None:
                return result
            return _lazy_elementwise(row, (self,), what)
    else:
        def method(self, other):
            result = _now_binary(op, self, other)
            if result is not None:
                return result
            return _lazy_elementwise(row, (self, other), what)
    method.__name__ = op_name
    method.__doc__ = f"The Array API's {op_name}: dpk.{row.name}."
    return method


def _reflected(row, op_name):
    what = f"x.{op_name}(y)"

    op = _OP_IDS[row.name]

    def method(self, other):
        result = _now_binary(op, other, self)
        if result is not None:
            return result
        return _lazy_elementwise(row, (other, self), what)
    method.__name__ = op_name
    return method


def _inplace(row, op_name):
    what = f"x.{op_name}(y)"
    op = _OP_IDS[row.name]
    pending = fusion.pending_readers()

    def method(self, other):
        # Immediately when no lazy result could read x's memory (they would have to be computed
        # first: the general path's assign does that)
        if not pending and _now_inplace(op, self, other) is not None:
            return self
        self._materialize()
        node = elementwise_node(row, (self, other), what)
        if node is None:
            return NotImplemented
        if node.shape != self._shape:
            raise ShapeError(f"{what}: the result's shape {node.shape} is not x's "
                             f"{self._shape} (in-place operators do not change x's shape)")
        if not D.can_cast(node.dtype, self._dtype) and not (
                node.dtype.kind == self._dtype.kind or
                (node.dtype.kind in "iu" and self._dtype.kind in "iu")):
            raise DTypeError(f"{what}: the result would be {D.name(node.dtype)}, which x "
                             f"({D.name(self._dtype)}) cannot hold")
        indexing.assign(self, node)
        return self
    method.__name__ = op_name
    return method


# The Array's operators, and the node its __setitem__ builds (array_object.py sits below).
for _name, _row in OPERATORS.items():
    setattr(Array, _name, _operator(_row, _name))
for _name, _row in REFLECTED.items():
    setattr(Array, _name, _reflected(_row, _name))
for _name, _row in INPLACE.items():
    setattr(Array, _name, _inplace(_row, _name))
Array.__hash__ = None
del _name, _row
array_object._elementwise_node_hook[0] = elementwise_node

WHERE_ROW = Row("where", 3, "any", "same")
