"""The standard's manipulation functions.

Views where the memory allows (no kernel): broadcast_to, broadcast_arrays, expand_dims, flip,
moveaxis, permute_dims, squeeze, unstack, and reshape of compatible layouts. Copies as kernels:
concat and stack (one copy per input into its slice of the result), tile (one copy of a
broadcast view), repeat and roll (gathers), reshape of layouts a view cannot express.
"""

from __future__ import annotations

import operator

from .._errors import DTypeError, ShapeError
from . import dtypes as D
from . import fusion
from .array_object import Array, asarray, empty
from .elementwise_ops import broadcast_shapes, common_device
from .memory import c_strides, size_of


def _check(x, what):
    if not isinstance(x, Array):
        raise TypeError(f"{what} takes a dpk array, not {type(x).__name__}")
    x._materialize()


def _axis(axis, ndim, what):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise IndexError(f"{what}: axis {axis} is out of bounds for {ndim} dimension(s)")
    return axis % ndim


def _view(x, offset, shape, strides):
    return Array._view(x._base, offset, tuple(shape), tuple(strides), x.dtype, x.device)


def broadcast_to(x, /, shape):
    _check(x, "broadcast_to()")
    shape = tuple(operator.index(s) for s in shape)
    if len(shape) < x.ndim:
        raise ShapeError(f"broadcast_to(): cannot broadcast shape {x.shape} to {shape}")
    lead = len(shape) - x.ndim
    strides = [0] * lead
    for n, s, t in zip(x.shape, x._strides, shape[lead:]):
        if n == t:
            strides.append(s)
        elif n == 1:
            strides.append(0)
        else:
            raise ShapeError(f"broadcast_to(): cannot broadcast shape {x.shape} to {shape}")
    return _view(x, x._offset, shape, strides)


def broadcast_arrays(*arrays):
    for a in arrays:
        _check(a, "broadcast_arrays()")
    shape = broadcast_shapes("broadcast_arrays()", *[a.shape for a in arrays])
    return [broadcast_to(a, shape) for a in arrays]


def _common(arrays, what):
    if not arrays:
        raise ValueError(f"{what} needs at least one array")
    for a in arrays:
        _check(a, what)
    device = common_device(what, arrays)
    dtype = arrays[0].dtype
    for a in arrays[1:]:
        dtype = D.promote(dtype, a.dtype)
    return device, dtype


def concat(arrays, /, *, axis=0):
    """The arrays joined along an existing axis (axis=None: flattened first)."""
    arrays = list(arrays)
    device, dtype = _common(arrays, "concat()")
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ShapeError("concat(): 0-D arrays cannot be concatenated (use stack)")
    axis = _axis(axis, ndim, "concat()")
    for a in arrays:
        if a.ndim != ndim or any(a.shape[d] != arrays[0].shape[d] for d in range(ndim)
                                 if d != axis):
            raise ShapeError(f"concat(): shapes {', '.join(str(b.shape) for b in arrays)} "
                             f"differ outside axis {axis}")
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = empty(tuple(shape), dtype, device)
    strides = list(out._strides)
    offset = 0
    for a in arrays:
        part = list(shape)
        part[axis] = a.shape[axis]
        if size_of(part):
            fusion.run(fusion.cast(a._as_node(), dtype), out._base, offset, part, strides,
                       dtype)
        offset += a.shape[axis] * strides[axis]
    return out


def stack(arrays, /, *, axis=0):
    """The arrays joined along a new axis."""
    arrays = list(arrays)
    _common(arrays, "stack()")
    shape = arrays[0].shape
    for a in arrays:
        if a.shape != shape:
            raise ShapeError(f"stack(): arrays of shapes {', '.join(str(b.shape) for b in arrays)}"
                             " must have one shape")
    axis = _axis(axis, len(shape) + 1, "stack()")
    return concat([expand_dims(a, axis=axis) for a in arrays], axis=axis)


def expand_dims(x, /, axis=0):
    _check(x, "expand_dims()")
    axes = axis if isinstance(axis, tuple) else (axis,)
    nd = x.ndim + len(axes)
    axes = sorted(_axis(a, nd, "expand_dims()") for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("expand_dims(): repeated axis")
    shape, strides = list(x.shape), list(x._strides)
    for a in axes:
        shape.insert(a, 1)
        strides.insert(a, 0)
    return _view(x, x._offset, shape, strides)


def squeeze(x, /, axis):
    _check(x, "squeeze()")
    axes = axis if isinstance(axis, tuple) else (axis,)
    axes = {_axis(a, x.ndim, "squeeze()") for a in axes}
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze(): axis {a} has size {x.shape[a]}, not 1")
    keep = [d for d in range(x.ndim) if d not in axes]
    return _view(x, x._offset, [x.shape[d] for d in keep], [x._strides[d] for d in keep])


def flip(x, /, *, axis=None):
    _check(x, "flip()")
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    axes = {_axis(a, x.ndim, "flip()") for a in axes}
    offset, strides = x._offset, list(x._strides)
    for a in axes:
        if x.shape[a] > 0:
            offset += (x.shape[a] - 1) * strides[a]
        strides[a] = -strides[a]
    return _view(x, offset, x.shape, strides)


def permute_dims(x, /, axes):
    _check(x, "permute_dims()")
    axes = tuple(_axis(a, x.ndim, "permute_dims()") for a in axes)
    if sorted(axes) != list(range(x.ndim)):
        raise ValueError(f"permute_dims(): {axes} is not a permutation of the {x.ndim} axes")
    return _view(x, x._offset, [x.shape[a] for a in axes], [x._strides[a] for a in axes])


def moveaxis(x, source, destination, /):
    _check(x, "moveaxis()")
    src = source if isinstance(source, tuple) else (source,)
    dst = destination if isinstance(destination, tuple) else (destination,)
    if len(src) != len(dst):
        raise ValueError("moveaxis(): source and destination need as many axes")
    src = [_axis(a, x.ndim, "moveaxis()") for a in src]
    dst = [_axis(a, x.ndim, "moveaxis()") for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("moveaxis(): repeated axis")
    order = [d for d in range(x.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute_dims(x, tuple(order))


def _reshape_strides(shape, strides, new_shape):
    """Strides that view (shape, strides) as new_shape in C order, or None (NumPy's
    attempt_nocopy_reshape)."""
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    new = list(new_shape)
    out = [0] * len(new)
    oi = ni = 0
    while oi < len(old) and ni < len(new):
        np_, op_ = new[ni], old[oi][0]
        nj, oj = ni + 1, oi + 1
        while np_ != op_:
            if np_ < op_:
                np_ *= new[nj]
                nj += 1
            else:
                op_ *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        out[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            out[k - 1] = out[k] * new[k]
        ni, oi = nj, oj
    last = out[ni - 1] if ni > 0 else 1
    for k in range(ni, len(new)):
        out[k] = last
    return out


def reshape(x, /, shape, *, copy=None):
    _check(x, "reshape()")
    shape = (shape,) if not isinstance(shape, tuple) else shape
    shape = [operator.index(s) for s in shape]
    if shape.count(-1) > 1:
        raise ValueError("reshape(): only one dimension can be -1")
    known = size_of([s for s in shape if s != -1])
    if -1 in shape:
        if known == 0:
            raise ValueError(f"reshape(): cannot infer -1 for size {x.size} into {shape}")
        shape[shape.index(-1)] = x.size // known
    if size_of(shape) != x.size or any(s < 0 for s in shape):
        raise ShapeError(f"reshape(): cannot reshape an array of shape {x.shape} (size "
                         f"{x.size}) into {tuple(shape)}")
    if not copy:
        if x.size == 0:
            return _view(x, x._offset, shape, c_strides(shape))
        strides = _reshape_strides(x.shape, x._strides, shape)
        if strides is not None:
            return _view(x, x._offset, shape, strides)
        if copy is False:
            raise ValueError("reshape(copy=False): this layout needs a copy")
    y = x.copy()
    return _view(y, 0, shape, c_strides(shape))


def unstack(x, /, *, axis=0):
    _check(x, "unstack()")
    if x.ndim == 0:
        raise ValueError("unstack() needs at least one dimension")
    axis = _axis(axis, x.ndim, "unstack()")
    keep = [d for d in range(x.ndim) if d != axis]
    shape = [x.shape[d] for d in keep]
    strides = [x._strides[d] for d in keep]
    return tuple(_view(x, x._offset + i * x._strides[axis], shape, strides)
                 for i in range(x.shape[axis]))


def tile(x, repetitions, /):
    _check(x, "tile()")
    reps = tuple(operator.index(r) for r in repetitions)
    if any(r < 0 for r in reps):
        raise ValueError("tile(): repetitions must be non-negative")
    nd = max(len(reps), x.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    xs = (1,) * (nd - x.ndim) + x.shape
    xst = (0,) * (nd - x.ndim) + tuple(x._strides)
    shape, strides = [], []
    for r, n, s in zip(reps, xs, xst):
        shape += [r, n]
        strides += [0, s]
    view = _view(x, x._offset, shape, strides)
    out = view.copy()
    return _view(out, 0, [r * n for r, n in zip(reps, xs)],
                 c_strides([r * n for r, n in zip(reps, xs)]))


def roll(x, /, shift, *, axis=None):
    _check(x, "roll()")
    if axis is None:
        flat = reshape(x, (-1,))
        return reshape(roll(flat, shift, axis=0), x.shape)
    shifts = shift if isinstance(shift, tuple) else (shift,)
    axes = axis if isinstance(axis, tuple) else (axis,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(shifts) != len(axes):
        raise ValueError("roll(): shift and axis need as many entries")
    total = {}
    for s, a in zip(shifts, axes):
        a = _axis(a, x.ndim, "roll()")
        total[a] = total.get(a, 0) + operator.index(s)
    result = x
    for a, s in total.items():
        n = x.shape[a]
        if n == 0 or s % n == 0:
            continue
        s %= n
        # result[i] = x[(i - s) mod n]: the two halves copied into place
        out = empty(result.shape, result.dtype, result.device)
        result._materialize()
        for dst, src, length in ((s, 0, n - s), (0, n - s, s)):
            src_off = result._offset + src * result._strides[a]
            shape = list(result.shape)
            shape[a] = length
            node = fusion.leaf(result._base, src_off, shape, result._strides, result.dtype,
                               result.device)
            fusion.run(node, out._base, dst * out._strides[a], shape, out._strides, out.dtype)
        result = out
    return result.copy() if result is x else result


def repeat(x, repeats, /, *, axis=None):
    _check(x, "repeat()")
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    axis = _axis(axis, x.ndim, "repeat()")
    n = x.shape[axis]
    shape = list(x.shape)
    if isinstance(repeats, Array) and repeats.size != 1:
        # Per-element counts: the gather indices depend on the data (read back once).
        if repeats.dtype.kind not in "iu":
            raise DTypeError("repeat(): repeats must be integers")
        counts = [int(v) for v in repeats.asnumpy().reshape(-1)]
        if len(counts) != n:
            raise ShapeError(f"repeat(): {len(counts)} repeats for an axis of size {n}")
        if any(c < 0 for c in counts):
            raise ValueError("repeat(): repeats must be non-negative")
        index = [i for i, c in enumerate(counts) for _ in range(c)]
        if not index:
            shape[axis] = 0
            return empty(tuple(shape), x.dtype, x.device)
        idx = asarray(index, dtype=D.int64, device=x.device)
    else:
        r = operator.index(repeats if not isinstance(repeats, Array) else int(repeats))
        if r < 0:
            raise ValueError("repeat(): repeats must be non-negative")
        shape[axis] = n * r
        if n * r == 0:
            return empty(tuple(shape), x.dtype, x.device)
        idx = Array._lazy(fusion.apply("floor_divide", [
            fusion.iota((n * r,), (1,), x.device), fusion.scalar(r, D.int64, x.device)],
            D.int64, (n * r,)))
    key = [slice(None)] * x.ndim
    key[axis] = idx
    return x[tuple(key)]


__all__ = ["broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
           "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack"]
