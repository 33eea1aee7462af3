"""``x[key]`` and ``x[key] = value``: basic slicing as views, integer-array indexing and
boolean masks as gather/scatter kernels, and the assignment of an expression into a view.

Keys follow the standard (and NumPy where it leaves room): integers, slices (clipped as Python
does), ``...``, ``None``, integer arrays (dpk, NumPy or lists; broadcast together and zipped,
combined with slices the NumPy way) and one boolean mask as the sole index (``x[mask]`` ==
``x[nonzero(mask)]``). Out-of-bounds integer indices raise BoundsError (an IndexError); for
index arrays the kernel raises a flag and nothing is written.

Assignment into memory that lazy results still read first materializes them
(fusion.flush_readers); a value that reads the target's memory through a different mapping
(``x[1:] = x[:-1]``) is computed into a temporary first, so no element observes a half-written
target.
"""

from __future__ import annotations

import operator

import numpy as np

from .._errors import BoundsError, DeviceMismatchError, DTypeError, ShapeError
from .._ir import builder as B
from . import dtypes as D
from . import fusion
from . import generated as G
from . import scan
from .memory import Buffer, broadcast_shape, broadcast_strides, c_strides, collapse, overlaps, size_of

_I64 = np.dtype(np.int64)
_FLAG_DTYPE = np.dtype(np.int32)


def _is_array_like(item, Array):
    return isinstance(item, (Array, np.ndarray, list)) and not isinstance(item, np.generic)


def _normalize_key(x, key, Array, asarray):
    """(items, kind): items with lists/NumPy arrays made dpk arrays; kind "basic", "advanced"
    or "mask"."""
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    for item in key:
        if isinstance(item, (list, np.ndarray)) and not isinstance(item, np.generic):
            item = asarray(np.asarray(item) if isinstance(item, list) else item,
                           device=x.device)
        if isinstance(item, Array) and item.ndim == 0 and item.dtype.kind in "iu":
            pass  # a 0-D integer array is an integer array index (broadcasts like one)
        items.append(item)
    arrays = [it for it in items if isinstance(it, Array)]
    if any(a.dtype == D.bool for a in arrays):
        if len(items) != 1:
            raise IndexError("a boolean array index must be the sole index")
        return items, "mask"
    for a in arrays:
        if a.dtype.kind not in "iu":
            raise IndexError(f"arrays used as indices must be of integer or boolean type, not "
                             f"{D.name(a.dtype)}")
        if a.device is not x.device:
            raise IndexError(f"an index array lives on {a.device.filter_string}, the indexed "
                             f"array on {x.device.filter_string}: move it with to_device()")
    for it in items:
        if isinstance(it, (bool, np.bool_)):
            raise IndexError("boolean scalars are not supported as indices (use a 0-D boolean "
                             "array)")
        if not (it is None or it is Ellipsis or isinstance(it, slice) or isinstance(it, Array)):
            try:
                operator.index(it)
            except TypeError:
                raise IndexError(f"only integers, slices (:), ellipsis (...), None and integer "
                                 f"or boolean arrays are valid indices, not "
                                 f"{type(it).__name__}") from None
    return items, ("advanced" if arrays else "basic")


def _expand(x, items):
    """Items with the ellipsis expanded into full slices (IndexError on two ellipses or too
    many indices)."""
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for it in items if it is not None and it is not Ellipsis)
    if consumed > x.ndim:
        raise IndexError(f"too many indices for an array of {x.ndim} dimension(s): "
                         f"{consumed} were given")
    fill = [slice(None)] * (x.ndim - consumed)
    out = []
    seen = False
    for it in items:
        if it is Ellipsis:
            out.extend(fill)
            seen = True
        else:
            out.append(it)
    if not seen:
        out.extend(fill)
    return out


def _basic_view(x, items, keep_arrays=False):
    """(offset, shape, strides, advanced) of basic indexing; with keep_arrays, array items
    keep their dimension and are returned as [(result dim, array, extent, stride)]."""
    offset = x._offset
    shape, strides, advanced = [], [], []
    d = 0
    for it in items:
        if it is None:
            shape.append(1)
            strides.append(0)
            continue
        n, s = x._shape[d], x._strides[d]
        if isinstance(it, slice):
            start, stop, step = it.indices(n)
            length = len(range(start, stop, step))
            if length:
                offset += start * s
            shape.append(length)
            strides.append(s * step)
        elif keep_arrays and not isinstance(it, int) and hasattr(it, "_dtype"):
            advanced.append((len(shape), it, n, s))
            shape.append(n)
            strides.append(0)
        else:
            i = operator.index(it)
            if not -n <= i < n:
                raise BoundsError(f"index {i} is out of bounds for axis {d} with size {n}")
            if keep_arrays:  # an integer among index arrays: a 0-D index array
                advanced.append((len(shape), i, n, s))
                shape.append(1)
                strides.append(0)
            else:
                offset += (i + n if i < 0 else i) * s
        d += 1
    return offset, shape, strides, advanced


def getitem(x, key, Array, asarray):
    x._materialize()
    items, kind = _normalize_key(x, key, Array, asarray)
    if kind == "mask":
        return _mask_get(x, items[0], Array)
    items = _expand(x, items)
    if kind == "basic":
        offset, shape, strides, _ = _basic_view(x, items)
        return Array._view(x._base, offset, shape, strides, x._dtype, x._device)
    return _gather(x, items, Array)


# ---- integer arrays ---------------------------------------------------------------------------

def _advanced_layout(x, items, Array):
    """The gather/scatter geometry: (src offset, result shape, src strides over the result,
    index operands [(array, strides over the result, extent, stride)], the broadcast shape)."""
    offset, vshape, vstrides, advanced = _basic_view(x, items, keep_arrays=True)
    # ints among arrays are 0-D index arrays: they broadcast and their dims disappear
    arrays = [(pos, a, n, s) for pos, a, n, s in advanced]
    bshape = _broadcast([() if isinstance(a, int) else a._shape for _, a, _, _ in arrays])
    positions = [p for p, _, _, _ in arrays]
    contiguous = positions == list(range(positions[0], positions[0] + len(positions)))
    rest = [d for d in range(len(vshape)) if d not in positions]
    if contiguous:
        first = positions[0]
        before = [d for d in rest if d < first]
        after = [d for d in rest if d > first]
    else:
        before, after = [], rest
    rshape = [vshape[d] for d in before] + list(bshape) + [vshape[d] for d in after]
    nb = len(before)
    src_strides = ([vstrides[d] for d in before] + [0] * len(bshape)
                   + [vstrides[d] for d in after])
    operands = []
    for pos, a, n, s in arrays:
        if isinstance(a, int):
            i = a + n if a < 0 else a
            offset += i * s
            continue
        a._materialize()
        bs = broadcast_strides(a._shape, a._strides, bshape)
        full = [0] * nb + list(bs) + [0] * len(after)
        operands.append((a, full, n, s))
    return offset, rshape, src_strides, operands


def _broadcast(shapes):
    out = broadcast_shape(shapes)
    if out is None:
        raise IndexError(f"index arrays of shapes {', '.join(map(str, shapes))} do not "
                         "broadcast")
    return out


def _gather(x, items, Array):
    offset, rshape, src_strides, operands = _advanced_layout(x, items, Array)
    out = Buffer(x._device, size_of(rshape) * x._dtype.itemsize)
    if size_of(rshape) and size_of(x._shape):
        _run_indexed("gather", x, offset, rshape, src_strides, operands,
                     (out, 0, c_strides(rshape)), None)
    elif size_of(rshape):
        raise BoundsError("index out of bounds for an empty axis")
    return Array._view(out, 0, rshape, c_strides(rshape), x._dtype, x._device)


def _run_indexed(mode, x, offset, rshape, src_strides, operands, out_view, value_node):
    """One gather ("gather": out[i] = x[idx(i)]), scatter ("scatter": x[idx(i)] = value[i]) or
    bounds check ("check") kernel over the result shape; raises BoundsError when an index is
    out of bounds (the check runs before a scatter, so nothing is written then)."""
    device = x._device
    if x._dtype.kind == "c":
        # complex: the same kernel on the real and on the imaginary components (real views
        # with doubled strides; a value node split by real()/imag())
        comp = D.component(x._dtype)
        if mode == "scatter":
            _run_indexed("check", x, offset, rshape, src_strides, operands, None, None)
        for part in (0, 1):
            xp = type(x)._view(x._base, 2 * x._offset + part, x._shape,
                               tuple(2 * s for s in x._strides), comp, device)
            ov = None
            if out_view is not None:
                ov = (out_view[0], 2 * out_view[1] + part, [2 * s for s in out_view[2]])
            vn = None
            if value_node is not None:
                vn = fusion.apply("real" if part == 0 else "imag", [value_node], comp,
                                  value_node.shape)
            _run_indexed("check_done" if mode == "scatter" else mode, xp, 2 * offset + part,
                         rshape, [2 * s for s in src_strides],
                         [(a, st, n, 2 * s) for a, st, n, s in operands], ov, vn)
        return
    if mode == "check_done":
        mode = "scatter"
    elif mode == "scatter":
        _run_indexed("check", x, offset, rshape, src_strides, operands, None, None)
    flag = Buffer(device, 4)
    device.queue.fill(flag.ptr, b"\0", 4).wait()
    stride_lists = [list(src_strides)] + [op[1] for op in operands]
    plan = None
    if mode == "gather":
        stride_lists.append(list(out_view[2]))
    elif mode == "scatter":
        plan = fusion.Plan(value_node)
        for lf in plan.leaves:
            stride_lists.append(broadcast_strides(lf.shape, lf.strides, rshape))
    shape, strides = collapse(list(rshape), stride_lists)
    space = fusion.LaunchShape(shape, device)
    sigs = [fusion._sig(s) for s in strides]
    key = ("idx", mode, x._dtype.char, tuple(op[0]._dtype.char for op in operands),
           tuple(sigs), space.key, plan.key if plan else None)
    kernel = G.cached(key, lambda: _build_indexed(mode, x._dtype, operands, sigs, space,
                                                  plan))
    itemsize = x._dtype.itemsize
    args = [G.ViewArg(x._base.ptr + offset * itemsize, device), G.ViewArg(flag.ptr, device)]
    for a, _, _, _ in operands:
        args.append(G.ViewArg(a._base.ptr + a._offset * a._dtype.itemsize, device))
    if mode == "gather":
        out, ooff, _ = out_view
        args.append(G.ViewArg(out.ptr + ooff * itemsize, device))
    elif mode == "scatter":
        args += fusion.operand_args(plan, device)
    for _, _, n, s in operands:
        args += [n, s]
    args += space.args()
    args += fusion.stride_args(sigs, strides)
    kernel.launch(space.index_range(), args)
    if G.read_scalar(device, flag.ptr, _FLAG_DTYPE):
        extents = ", ".join(str(op[2]) for op in operands)
        raise BoundsError(f"an index array holds an index out of bounds (axis size(s) "
                          f"{extents}); nothing was {'written' if mode != 'gather' else 'read'}")


def _build_indexed(mode, dtype, operands, sigs, space, plan):
    kb = G.KernelBuilder(fusion.kernel_name(mode, ["index"]))
    src = kb.view(dtype, "x")
    flag = kb.view(np.int32, "flag")
    idx_views = [kb.view(a._dtype, "i") for a, _, _, _ in operands]
    out = kb.view(dtype, "out") if mode == "gather" else None
    leaf_views, scalar_params = [], []
    if mode == "scatter":
        leaf_views = fusion.leaf_views(kb, plan)
        scalar_params = [kb.carrier(s.carrier) for s in plan.scalars]
    extent_params = [(kb.scalar(_I64, "n"), kb.scalar(_I64, "s")) for _ in operands]
    space.declare(kb)
    stride_params = [[kb.scalar(_I64, "st") for c in sig if c == "x"] for sig in sigs]
    b = kb.begin()
    idx = space.indices(kb)
    off = fusion.offset_value(kb, idx, sigs[0], stride_params[0])
    zero = kb.i64(0)
    bad = b.const_bool(False)
    for k, (a, _, _, _) in enumerate(operands):
        raw = kb.load(kb.ptr(idx_views[k]),
                      fusion.offset_value(kb, idx, sigs[k + 1], stride_params[k + 1]))
        i = B_convert(kb, raw, a._dtype, _I64)
        n = kb.param(extent_params[k][0])
        i = b.select(kb.cmp("Lt", i, zero), kb.op("Add", i, n), i)
        out_of_bounds = kb.op("Or", kb.cmp("Lt", i, zero), kb.cmp("Ge", i, n))
        bad = kb.op("Or", bad, out_of_bounds)
        i = b.select(out_of_bounds, zero, i)
        off = kb.op("Add", off, kb.op("Mul", i, kb.param(extent_params[k][1])))
    op = b.create_if(bad)
    with G.Block(kb, G.then_block(op)):
        kb.store(kb.ptr(flag), zero, kb.const(np.int32, 1))
    if mode == "gather":
        value = kb.load(kb.ptr(src), off)
        kb.store(kb.ptr(out), fusion.offset_value(kb, idx, sigs[-1], stride_params[-1]), value)
    elif mode == "scatter":
        first = 1 + len(operands)

        def load_leaf(i, dt):
            return fusion.load_leaf_at(kb, leaf_views[i], dt,
                                       fusion.offset_value(kb, idx, sigs[first + i],
                                                           stride_params[first + i]))

        value, vdt = plan.emit(kb, load_leaf, lambda i: scalar_params[i])
        value = B_convert(kb, value, vdt, dtype)
        op = b.create_if(b.unary(kb.core.OpKind.Not, bad))
        with G.Block(kb, G.then_block(op)):
            kb.store(kb.ptr(src), off, value)
    return kb.finish()


def B_convert(kb, value, src, dst):
    return B.convert(kb.b, value, src, dst)


# ---- boolean masks ----------------------------------------------------------------------------

def _mask_shape_check(x, mask):
    if mask.ndim > x.ndim:
        raise IndexError(f"a boolean index of {mask.ndim} dimensions for an array of "
                         f"{x.ndim}")
    for d, (m, n) in enumerate(zip(mask.shape, x.shape)):
        if m != n and m != 0:  # the standard allows a mask dimension of size 0
            raise IndexError(f"boolean index shape {mask.shape} does not match the array's "
                             f"leading dimensions {x.shape[:mask.ndim]} (axis {d})")


def _mask_items(x, mask, Array):
    """Index items equivalent to x[mask]: nonzero(mask) as integer arrays, then full slices."""
    if mask.ndim == 0:
        return None
    coords = scan.nonzero(mask, Array)
    return list(coords) + [slice(None)] * (x.ndim - mask.ndim)


def _mask_get(x, mask, Array):
    mask._materialize()
    _mask_shape_check(x, mask)
    if mask.ndim == 0:
        keep = bool(mask)
        view = Array._view(x._base, x._offset, (1,) + x._shape, (0,) + x._strides, x._dtype,
                           x._device)
        if keep:
            return view.copy()
        return Array._view(Buffer(x._device, 0), 0, (0,) + x._shape, c_strides((0,) + x._shape),
                           x._dtype, x._device)
    items = _mask_items(x, mask, Array)
    return _gather(x, items, Array)


# ---- assignment ---------------------------------------------------------------------------------

def _value_node(x, value, Array, asarray, what):
    if isinstance(value, Array):
        if value.device is not x.device:
            raise fusion_device_error(what, x, value)
        return fusion.cast(value._as_node(), x._dtype)
    if D.is_python_scalar(value) or isinstance(value, np.generic):
        v = value.item() if isinstance(value, np.generic) else value
        if x._dtype.kind in "iu" and isinstance(v, float):
            raise DTypeError(f"{what}: a float value cannot be stored into an "
                             f"{D.name(x._dtype)} array")
        if x._dtype.kind in "iu" and not isinstance(v, bool):
            D.check_int_range(int(v), x._dtype)
        if isinstance(v, complex) and x._dtype.kind != "c":
            raise DTypeError(f"{what}: a complex value cannot be stored into a "
                             f"{D.name(x._dtype)} array")
        if x._dtype.kind == "b" and not isinstance(v, (bool, np.bool_)):
            raise DTypeError(f"{what}: only bool values can be stored into a bool array")
        return fusion.scalar(v, x._dtype, x._device)
    arr = asarray(value, device=x.device)
    return fusion.cast(arr._as_node(), x._dtype)


def fusion_device_error(what, x, value):
    return DeviceMismatchError(
        f"{what}: the array lives on {x.device.filter_string}, the value on "
        f"{value.device.filter_string}; compute follows data, so move the value with "
        f"value.to_device({x.device.filter_string!r})")


def _check_writable(x, what):
    if getattr(x._base, "read_only", False):
        raise ValueError(f"{what}: the array is read-only (it wraps memory its producer lent "
                         "read-only); copy it first")


def setitem(x, key, value, Array, asarray, elementwise_node):
    x._materialize()
    what = "x[key] = value"
    _check_writable(x, what)
    items, kind = _normalize_key(x, key, Array, asarray)
    node = _value_node(x, value, Array, asarray, what)
    if kind == "mask":
        mask = items[0]
        mask._materialize()
        _mask_shape_check(x, mask)
        if mask.ndim == 0:
            if bool(mask):
                assign_view(x, x._offset, x._shape, x._strides, node, what)
            return
        if node.shape == () or _fits(node.shape, x._shape[mask.ndim:]):
            # where(mask, value, x) over x: reads and writes each element at one place
            mnode = fusion.leaf(mask._base, mask._offset, mask._shape
                                + (1,) * (x.ndim - mask.ndim),
                                mask._strides + (0,) * (x.ndim - mask.ndim), D.bool, x._device)
            xnode = fusion.leaf(x._base, x._offset, x._shape, x._strides, x._dtype, x._device)
            where = fusion.apply("where", [mnode, node, xnode], x._dtype, x._shape)
            assign_view(x, x._offset, x._shape, x._strides, where, what)
            return
        items = _mask_items(x, mask, Array)
        kind = "advanced"
    items = _expand(x, items)
    if kind == "basic":
        offset, shape, strides, _ = _basic_view(x, items)
        _check_broadcast(what, node.shape, shape)
        assign_view(x, offset, shape, strides, node, what)
        return
    offset, rshape, src_strides, operands = _advanced_layout(x, items, Array)
    _check_broadcast(what, node.shape, rshape)
    if not size_of(rshape):
        return
    fusion.flush_readers(x._base)
    node = _private_value(node, x, rshape)
    _run_indexed("scatter", x, offset, rshape, src_strides, operands, None, node)


def _fits(value_shape, tail):
    """Whether a value broadcasts along the trailing (unmasked) dimensions alone."""
    return len(value_shape) <= len(tail) and all(
        v == 1 or v == t for v, t in zip(value_shape[::-1], tail[::-1]))


def _check_broadcast(what, vshape, tshape):
    if len(vshape) > len(tshape) or any(v != 1 and v != t for v, t in
                                        zip(vshape[::-1], tshape[::-1])):
        raise ShapeError(f"{what}: a value of shape {tuple(vshape)} does not broadcast to the "
                         f"selection's shape {tuple(tshape)}")


def _private_value(node, x, shape):
    """`node`, computed into new memory first when it reads x's buffer."""
    if any(b is x._base for b in node.bases):
        buf = fusion.materialize(node)
        return fusion.leaf(buf, 0, node.shape, c_strides(node.shape), node.dtype, node.device)
    return node


def assign_view(x, offset, shape, strides, node, what):
    """Writes `node` (broadcast) into the view (offset, shape, strides) of x's buffer."""
    _check_broadcast(what, node.shape, shape)
    _check_writable(x, what)
    if not size_of(shape):
        return
    fusion.flush_readers(x._base)
    itemsize = x._dtype.itemsize
    for lf in fusion.Plan(node).leaves:
        if lf.buffer is not x._base:
            continue
        same = (lf.offset == offset and lf.dtype.itemsize == itemsize and
                list(broadcast_strides(lf.shape, lf.strides, shape)) == list(strides))
        if not same and overlaps(lf.buffer, lf.offset, lf.shape, lf.strides,
                                 lf.dtype.itemsize, x._base, offset, shape, strides, itemsize):
            node = _private_value(node, x, node.shape)
            break
    fusion.run(node, x._base, offset, shape, strides, x._dtype)


def assign(x, node):
    """``x op= y``: the graph `node` (x's shape) written into x."""
    assign_view(x, x._offset, x._shape, x._strides, fusion.cast(node, x._dtype), "x op= y")
