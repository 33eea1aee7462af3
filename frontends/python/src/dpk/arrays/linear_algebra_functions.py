"""The standard's linear algebra functions: matmul (``@``), matrix_transpose, tensordot,
vecdot.

matmul runs the tiled local-memory kernel of matmul.py (batched, broadcast, any strides);
vecdot is a fused multiply-and-sum reduction; tensordot permutes and reshapes its operands into
one matmul.
"""

from __future__ import annotations

import operator

from .._errors import DTypeError, ShapeError
from . import array_object
from . import dtypes as D
from . import fusion
from .array_object import Array
from .elementwise_ops import broadcast_shapes, common_device
from .manipulation_functions import permute_dims, reshape
from .matmul import matmul_into
from .memory import c_strides
from .statistical_functions import Operand, run_reduction


def _operands(x1, x2, what):
    for x in (x1, x2):
        if not isinstance(x, Array):
            raise TypeError(f"{what} takes dpk arrays, not {type(x).__name__}")
    device = common_device(what, [x1, x2])
    dtype = D.promote(x1.dtype, x2.dtype)
    if dtype == D.bool:
        raise DTypeError(f"{what} needs numeric data types, not bool")
    return device, dtype


def matmul(x1, x2, /):
    """The matrix product, batched over leading dimensions (broadcast); 1-D operands are a
    row (x1) or a column (x2) vector whose dimension is removed from the result."""
    device, dtype = _operands(x1, x2, "matmul()")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ShapeError("matmul() does not take 0-D arrays")
    a, b = x1, x2
    if a.ndim == 1:
        a = reshape(a, (1, a.shape[0]))
    if b.ndim == 1:
        b = reshape(b, (b.shape[0], 1))
    M, K = a.shape[-2:]
    K2, N = b.shape[-2:]
    if K != K2:
        raise ShapeError(f"matmul(): shapes {x1.shape} and {x2.shape} do not align "
                         f"({K} != {K2})")
    batch = broadcast_shapes("matmul()", a.shape[:-2], b.shape[:-2])
    if dtype.kind == "c":
        return _complex_matmul(x1, x2, dtype)
    a._materialize()
    b._materialize()

    def batch_strides(x):
        lead = len(batch) - (x.ndim - 2)
        out = [0] * lead
        for n, s, t in zip(x.shape[:-2], x._strides[:-2], batch[lead:]):
            out.append(s if n == t else 0)
        return out

    out_shape = tuple(batch) + (M, N)
    buf = matmul_into((a._base, a._offset, (M, K), a._strides[-2:], a.dtype),
                      (b._base, b._offset, (K, N), b._strides[-2:], b.dtype),
                      out_shape, batch, batch_strides(a), batch_strides(b), dtype, device)
    result = Array._view(buf, 0, out_shape, c_strides(out_shape), dtype, device)
    if x1.ndim == 1 and x2.ndim == 1:
        return reshape(result, ())
    if x1.ndim == 1:
        return reshape(result, out_shape[:-2] + (N,))
    if x2.ndim == 1:
        return reshape(result, out_shape[:-2] + (M,))
    return result


def _complex_matmul(x1, x2, dtype):
    """(ar + i ai)(br + i bi) as four real matmuls of the parts (each part materialized
    contiguous, so the real kernels' fast paths apply)."""
    comp = D.component(dtype)

    def part(x, name):
        node = fusion.cast(x._as_node(), dtype)
        return Array._lazy(fusion.apply(name, [node], comp, node.shape))

    ar, ai = part(x1, "real"), part(x1, "imag")
    br, bi = part(x2, "real"), part(x2, "imag")
    re = matmul(ar, br) - matmul(ai, bi)
    im = matmul(ar, bi) + matmul(ai, br)
    return Array._lazy(fusion.make_complex(re._as_node(), im._as_node(), dtype))


def matrix_transpose(x, /):
    if not isinstance(x, Array):
        raise TypeError("matrix_transpose() takes a dpk array")
    return x.mT


def vecdot(x1, x2, /, *, axis=-1):
    """sum(x1 * x2, axis) over broadcast operands (one fused kernel)."""
    device, dtype = _operands(x1, x2, "vecdot()")
    shape = broadcast_shapes("vecdot()", x1.shape, x2.shape)
    if not shape:
        raise ShapeError("vecdot() needs arrays of at least one dimension")
    axis = operator.index(axis)
    if not -len(shape) <= axis < len(shape):
        raise IndexError(f"vecdot(): axis {axis} is out of bounds for {len(shape)} dimensions")
    if axis >= 0:
        axis -= len(shape)
    for x in (x1, x2):
        if x.ndim < -axis or x.shape[axis] != shape[axis]:
            raise ShapeError(f"vecdot(): shapes {x1.shape} and {x2.shape} differ along axis "
                             f"{axis}")
    first = fusion.cast(x1._as_node(), dtype)
    if dtype.kind == "c":  # the standard's vecdot conjugates x1
        first = fusion.apply("conj", [first], dtype, first.shape)
    prod = fusion.apply("multiply", [first, fusion.cast(x2._as_node(), dtype)], dtype, shape)
    return run_reduction(Operand(shape, device), "sum", (len(shape) + axis,), False, dtype,
                         node=prod)


def tensordot(x1, x2, /, *, axes=2):
    """Sum of products over the last `axes` dims of x1 and the first of x2 (or the given pairs
    of axes)."""
    device, dtype = _operands(x1, x2, "tensordot()")
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError("tensordot(): axes must be non-negative")
        a_axes = list(range(x1.ndim - axes, x1.ndim))
        b_axes = list(range(axes))
    else:
        a_axes, b_axes = ([operator.index(a) for a in ax] if isinstance(ax, (tuple, list))
                          else [operator.index(ax)] for ax in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError("tensordot(): both operands need as many contracted axes")
    a_axes = [a % x1.ndim for a in a_axes] if x1.ndim else a_axes
    b_axes = [a % x2.ndim for a in b_axes] if x2.ndim else b_axes
    for a, b in zip(a_axes, b_axes):
        if x1.shape[a] != x2.shape[b]:
            raise ShapeError(f"tensordot(): axis {a} of x1 ({x1.shape[a]}) and axis {b} of "
                             f"x2 ({x2.shape[b]}) differ")
    free_a = [d for d in range(x1.ndim) if d not in a_axes]
    free_b = [d for d in range(x2.ndim) if d not in b_axes]
    k = 1
    for a in a_axes:
        k *= x1.shape[a]
    m = 1
    for d in free_a:
        m *= x1.shape[d]
    n = 1
    for d in free_b:
        n *= x2.shape[d]
    a2 = reshape(permute_dims(x1, tuple(free_a + a_axes)), (m, k))
    b2 = reshape(permute_dims(x2, tuple(b_axes + free_b)), (k, n))
    out = matmul(astype_if(a2, dtype), astype_if(b2, dtype))
    return reshape(out, tuple(x1.shape[d] for d in free_a) + tuple(x2.shape[d]
                                                                  for d in free_b))


def astype_if(x, dtype):
    return x if x.dtype == dtype else array_object.astype_array(x, dtype)


array_object._matmul_hook[0] = matmul

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]
