"""The Array API's fft extension (``dpk.fft``), as dpk kernels on every backend.

A transform along one axis moves that axis last and copies the operand into a C-contiguous
(batch, n) complex buffer; then:

- n a product of 2, 3, 4, 5, 7, 11, 13: mixed-radix Stockham stages (decimation in
  frequency, self-sorting, so no digit-reversal pass): one generated kernel launch per radix
  (radix 4 first, a radix-2 stage for a leftover 2, unrolled 3-13-point DFTs with constant
  coefficients), ping-ponging between two buffers, one work-item per butterfly of every row of
  the batch (a 3-D range (row, p, q): no integer division on CPUs); twiddles w^(jp) come from a
  table exp(-2 pi i k / n) computed once per (device, n, dtype) in float64 where the device has
  it.
- any other n (a prime factor above 13): Bluestein's chirp-z transform: x_k w_k
  (w_k = exp(-i pi k^2 / n), with k^2 reduced mod 2n in integers so the angle stays exact)
  zero-padded to a power of two M >= 2n-1, convolved with the conjugate chirp (whose transform is
  cached) through power-of-two transforms, and multiplied by w_k again. The chirps and the
  products are elementwise array expressions (fused kernels of the array layer).

Real transforms (rfft, irfft, hfft, ihfft and the n-D ones) go through the complex transform
(rfft keeps the first n//2 + 1 outputs; irfft rebuilds the Hermitian spectrum). ``norm`` is
the standard's: "backward" (1 forward, 1/n inverse), "ortho" (1/sqrt(n) both ways), "forward"
(1/n forward, 1 inverse).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from . import _core_loader
from .arrays import dtypes as D
from .arrays import fusion
from .arrays import generated as G
from .arrays.array_object import Array, _target, zeros
from .arrays.manipulation_functions import concat, flip, moveaxis, reshape, roll
from .arrays.memory import Buffer, c_strides

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_I64 = np.dtype(np.int64)
_NORMS = ("backward", "ortho", "forward")


# ---- kernels ----------------------------------------------------------------------------------

class _Stage:
    """What every Stockham stage kernel starts with: output, input and twiddle views, the row
    length n, the stage's butterfly count m and stride s, and the butterfly's (row, p, q);
    ``base`` = row n + q and ``sp`` = s p, the addresses every stage builds on."""

    def __init__(self, comp, inverse, space, stage):
        self.kb = kb = G.KernelBuilder(fusion.kernel_name(
            "fft", [stage, "inv" if inverse else "fwd"]))
        self.out_v = kb.view(comp, "y")
        self.in_v = kb.view(comp, "x")
        self.tw_v = kb.view(comp, "w")
        params = [kb.scalar(_I64, name) for name in ("n", "m", "s")]
        space.declare(kb)
        self.b = kb.begin()
        self.row, self.p, self.q = space.indices(kb)
        self.n, self.m, self.s = (kb.param(x) for x in params)
        self.base = kb.op("Add", kb.op("Mul", self.row, self.n), self.q)
        self.sp = kb.op("Mul", self.s, self.p)


def _build_stage(comp, inverse, space):
    """One radix-2 Stockham stage over rows of length n, one work-item per butterfly
    (row, p, q) with p < m = ncur / 2 and q < s = n / ncur:
    a = x[q + s p], b = x[q + s (p + m)]; y[q + 2 s p] = a + b, y[q + s (2p + 1)] = (a - b) w^p,
    w^p = exp(-+2 pi i p / ncur) = table[p s] (table[k] = exp(-2 pi i k / n), conjugated for
    the inverse)."""
    core = _core_loader.core()
    st = _Stage(comp, inverse, space, "stage")
    kb, b, out_v, in_v, tw_v = st.kb, st.b, st.out_v, st.in_v, st.tw_v
    m, s, base, sp = st.m, st.s, st.base, st.sp
    ia = kb.op("Add", base, sp)
    ib = kb.op("Add", ia, kb.op("Mul", s, m))
    a = fusion.load_complex(kb, in_v, ia)
    c = fusion.load_complex(kb, in_v, ib)
    wr, wi = fusion.load_complex(kb, tw_v, sp)
    if inverse:
        wi = b.unary(core.OpKind.Neg, wi)
    sr, si = kb.op("Add", a[0], c[0]), kb.op("Add", a[1], c[1])
    dr, di = kb.op("Sub", a[0], c[0]), kb.op("Sub", a[1], c[1])
    tr = kb.op("Sub", kb.op("Mul", dr, wr), kb.op("Mul", di, wi))
    ti = kb.op("Add", kb.op("Mul", dr, wi), kb.op("Mul", di, wr))
    o0 = kb.op("Add", base, kb.op("Add", sp, sp))
    o1 = kb.op("Add", o0, s)
    cdt = D.complex_of(comp)
    fusion.store_value(kb, out_v, cdt, o0, (sr, si))
    fusion.store_value(kb, out_v, cdt, o1, (tr, ti))
    return kb.finish()


def _build_stage4(comp, inverse, space):
    """One radix-4 Stockham stage: for butterfly (row, p, q), p < m = ncur / 4, q < s:
    a_k = x[q + s (p + k m)], y[q + s (4p + j)] = (sum_k a_k (-+i)^(jk)) w^(jp),
    w^(jp) = table[j p s]."""
    core = _core_loader.core()
    st = _Stage(comp, inverse, space, "stage4")
    kb, b, out_v, in_v, tw_v = st.kb, st.b, st.out_v, st.in_v, st.tw_v
    m, s, base, sp = st.m, st.s, st.base, st.sp
    add, sub, mul = (lambda x, y: kb.op("Add", x, y)), (lambda x, y: kb.op("Sub", x, y)), \
        (lambda x, y: kb.op("Mul", x, y))
    sm = mul(s, m)
    i0 = add(base, sp)
    a = []
    idx = i0
    for k in range(4):
        a.append(fusion.load_complex(kb, in_v, idx))
        if k < 3:
            idx = add(idx, sm)
    (a0r, a0i), (a1r, a1i), (a2r, a2i), (a3r, a3i) = a
    t0r, t0i = add(a0r, a2r), add(a0i, a2i)          # a0 + a2
    t1r, t1i = sub(a0r, a2r), sub(a0i, a2i)          # a0 - a2
    t2r, t2i = add(a1r, a3r), add(a1i, a3i)          # a1 + a3
    t3r, t3i = sub(a1r, a3r), sub(a1i, a3i)          # a1 - a3
    # forward: b1 = t1 - i t3, b3 = t1 + i t3 (inverse: the other way round)
    if not inverse:
        b1 = (add(t1r, t3i), sub(t1i, t3r))
        b3 = (sub(t1r, t3i), add(t1i, t3r))
    else:
        b1 = (sub(t1r, t3i), add(t1i, t3r))
        b3 = (add(t1r, t3i), sub(t1i, t3r))
    outs = [(add(t0r, t2r), add(t0i, t2i)), b1, (sub(t0r, t2r), sub(t0i, t2i)), b3]
    cdt = D.complex_of(comp)
    o = add(base, mul(sp, kb.i64(4)))
    tw_index = sp
    for j in range(4):
        val = outs[j]
        if j:
            wr, wi = fusion.load_complex(kb, tw_v, tw_index)
            if inverse:
                wi = b.unary(core.OpKind.Neg, wi)
            val = (sub(mul(val[0], wr), mul(val[1], wi)), add(mul(val[0], wi), mul(val[1], wr)))
            tw_index = add(tw_index, sp)
        fusion.store_value(kb, out_v, cdt, o, val)
        if j < 3:
            o = add(o, s)
    return kb.finish()


def _build_stage_r(comp, inverse, space, radix):
    """One radix-r Stockham stage (r odd: 3, 5, 7, ...): for butterfly (row, p, q),
    p < m = ncur / r: a_k = x[q + s (p + k m)], y[q + s (r p + j)] =
    (sum_k a_k exp(-+2 pi i j k / r)) w^(jp), w^(jp) = table[j p s]. The r-point DFT is
    unrolled with constant coefficients, pairing k and r - k (their coefficients are conjugate)."""
    core = _core_loader.core()
    st = _Stage(comp, inverse, space, f"stage{radix}")
    kb, b, out_v, in_v, tw_v = st.kb, st.b, st.out_v, st.in_v, st.tw_v
    m, s, base, sp = st.m, st.s, st.base, st.sp
    add, sub, mul = (lambda x, y: kb.op("Add", x, y)), (lambda x, y: kb.op("Sub", x, y)), \
        (lambda x, y: kb.op("Mul", x, y))
    sm = mul(s, m)
    a = []
    idx = add(base, sp)
    for k in range(radix):
        a.append(fusion.load_complex(kb, in_v, idx))
        if k < radix - 1:
            idx = add(idx, sm)
    sign = 1.0 if inverse else -1.0
    half = radix // 2
    # u_k = a_k + a_(r-k), v_k = a_k - a_(r-k) for k = 1..half
    u = [(add(a[k][0], a[radix - k][0]), add(a[k][1], a[radix - k][1]))
         for k in range(1, half + 1)]
    v = [(sub(a[k][0], a[radix - k][0]), sub(a[k][1], a[radix - k][1]))
         for k in range(1, half + 1)]
    outs = []
    b0r, b0i = a[0]
    for uk in u:
        b0r, b0i = add(b0r, uk[0]), add(b0i, uk[1])
    outs.append((b0r, b0i))
    for j in range(1, radix):
        # b_j = a0 + sum_k [cos(2 pi jk/r) u_k + i sign sin(2 pi jk/r) v_k]
        re, im = a[0]
        for k in range(1, half + 1):
            c = kb.const(comp, math.cos(2 * math.pi * j * k / radix))
            sn = kb.const(comp, sign * math.sin(2 * math.pi * j * k / radix))
            uk, vk = u[k - 1], v[k - 1]
            re = sub(add(re, mul(c, uk[0])), mul(sn, vk[1]))
            im = add(add(im, mul(c, uk[1])), mul(sn, vk[0]))
        outs.append((re, im))
    cdt = D.complex_of(comp)
    o = add(base, mul(sp, kb.i64(radix)))
    tw_index = sp
    for j in range(radix):
        val = outs[j]
        if j:
            wr, wi = fusion.load_complex(kb, tw_v, tw_index)
            if inverse:
                wi = b.unary(core.OpKind.Neg, wi)
            val = (sub(mul(val[0], wr), mul(val[1], wi)), add(mul(val[0], wi), mul(val[1], wr)))
            tw_index = add(tw_index, sp)
        fusion.store_value(kb, out_v, cdt, o, val)
        if j < radix - 1:
            o = add(o, s)
    return kb.finish()


_RADICES = (4, 2, 3, 5, 7, 11, 13)


def _factors(n):
    """n as radices of _RADICES (4 first, so at most one 2), or None when a larger prime
    factor remains (Bluestein then)."""
    out, rest = [], n
    for r in _RADICES:
        while rest % r == 0:
            out.append(r)
            rest //= r
    return out if rest == 1 else None


# Twiddle tables and Bluestein kernels, per (device, n, dtype): computed once, reused.
_TABLES = {}
_TABLES_MAX = 32


def _cached(key, make):
    found = _TABLES.get(key)
    if found is None:
        if len(_TABLES) >= _TABLES_MAX:
            _TABLES.pop(next(iter(_TABLES)))
        found = _TABLES[key] = make()
    return found


def _twiddles(n, dtype, device):
    """table[k] = exp(-2 pi i k / n), k < n (angles in float64 where the device has it)."""
    def make():
        half = n
        work = D.float64 if device.has_fp64 else D.float32
        k = fusion.iota((half,), (1,), device)
        ang = fusion.apply("multiply", [fusion.cast(k, work),
                                        fusion.scalar(-2 * math.pi / n, work, device)],
                           work, (half,))
        comp = D.component(dtype)
        re = fusion.cast(fusion.apply("cos", [ang], work, (half,)), comp)
        im = fusion.cast(fusion.apply("sin", [ang], work, (half,)), comp)
        return Array._lazy(fusion.make_complex(re, im, dtype))._materialize()
    return _cached(("tw", device, n, dtype), make)


def _contiguous_rows(x):
    """x (complex, any layout) as a new C-contiguous (batch, n) array."""
    n = x.shape[-1]
    batch = x.size // n if n else 0
    node = fusion.apply("positive", [x._as_node()], x.dtype, x.shape)
    buf = fusion.materialize(node)
    return Array._view(buf, 0, (batch, n), c_strides((batch, n)), x.dtype, x.device)


def _pow2(x, inverse):
    """Unnormalized DFT of the rows of x ((batch, n) C-contiguous complex, n a product of
    _RADICES): a new (batch, n) array (mixed-radix Stockham stages)."""
    batch, n = x.shape
    if n == 1 or batch == 0:
        return x
    device = x.device
    comp = D.component(x.dtype)
    table = _twiddles(n, x.dtype, device)
    x._materialize()
    src = x._base.ptr + x._offset * x.dtype.itemsize
    bufs = [Buffer(device, batch * n * x.dtype.itemsize) for _ in range(2)]
    tw = G.ViewArg(table._base.ptr + table._offset * table.dtype.itemsize, device)
    s, k = 1, 0
    for radix in _factors(n):
        m = n // (radix * s)
        space = fusion.LaunchShape([batch, m, s], device)
        key = ("fft_stage", radix, comp.char, inverse, space.key)
        if radix == 4:
            build = lambda: _build_stage4(comp, inverse, space)  # noqa: E731
        elif radix == 2:
            build = lambda: _build_stage(comp, inverse, space)  # noqa: E731
        else:
            build = lambda: _build_stage_r(comp, inverse, space, radix)  # noqa: E731
        kernel = G.cached(key, build)
        dst = bufs[k % 2]
        kernel.launch(space.index_range(), [G.ViewArg(dst.ptr, device), G.ViewArg(src, device),
                                            tw, n, m, s] + space.args())
        src = dst.ptr
        s *= radix
        k += 1
    return Array._view(bufs[(k - 1) % 2], 0, (batch, n), c_strides((batch, n)), x.dtype, device)


def _chirp(n, length, dtype, device, conjugate):
    """exp(-+i pi k^2 / n) for k = 0..length-1."""
    return _chirp_at(fusion.iota((length,), (1,), device), n, length, dtype, device, conjugate)


def _bluestein(x, inverse):
    """Unnormalized DFT of the rows of x ((batch, n), any n) by the chirp-z transform."""
    batch, n = x.shape
    device = x.device
    dtype = x.dtype
    m = 1
    while m < 2 * n - 1:
        m *= 2
    w = _chirp(n, n, dtype, device, conjugate=inverse)            # (n,)
    a = zeros((batch, m), dtype=dtype, device=device)
    a[:, :n] = Array._lazy(fusion.apply("multiply", [x._as_node(), w], dtype, (batch, n)))
    fa = _pow2(a, inverse=False)
    fb = _cached(("bluestein", device, n, dtype, inverse),
                 lambda: _bluestein_kernel(n, m, dtype, device, inverse))
    prod = Array._lazy(fusion.apply("multiply", [fa._as_node(), fb._as_node()], dtype,
                                    (batch, m)))
    conv = _pow2(_contiguous_rows(prod), inverse=True)
    out = fusion.apply("multiply", [conv[:, :n]._as_node(), w], dtype, (batch, n))
    out = fusion.apply("multiply", [out, fusion.scalar(1.0 / m, dtype, device)], dtype,
                       (batch, n))
    return Array._lazy(out)


def _bluestein_kernel(n, m, dtype, device, inverse):
    """The DFT of the convolution kernel: b_k = conj(w_k) for k < n and b_(m-k) = conj(w_k)
    for 0 < k < n, zero elsewhere (shape (1, m))."""
    idx = fusion.iota((m,), (1,), device)
    mirrored = fusion.apply("where", [
        fusion.apply("less", [idx, fusion.scalar(n, _I64, device)], D.bool, (m,)), idx,
        fusion.apply("subtract", [fusion.scalar(m, _I64, device), idx], _I64, (m,))],
        _I64, (m,))
    valid = fusion.apply("logical_or", [
        fusion.apply("less", [idx, fusion.scalar(n, _I64, device)], D.bool, (m,)),
        fusion.apply("greater", [idx, fusion.scalar(m - n, _I64, device)], D.bool, (m,))],
        D.bool, (m,))
    chirp_m = _chirp_at(mirrored, n, m, dtype, device, conjugate=not inverse)
    bnode = fusion.apply("where", [valid, chirp_m, fusion.scalar(0j, dtype, device)], dtype,
                         (m,))
    return _pow2(_contiguous_rows(reshape(Array._lazy(bnode), (1, m))), inverse=False)


def _chirp_at(k, n, length, dtype, device, conjugate):
    """The chirp of _chirp at the int64 indices of node k (shape (length,))."""
    comp = D.component(dtype)
    work = D.float64 if device.has_fp64 else D.float32
    k2 = fusion.apply("remainder", [fusion.apply("multiply", [k, k], _I64, (length,)),
                                    fusion.scalar(2 * n, _I64, device)], _I64, (length,))
    ang = fusion.apply("multiply", [fusion.cast(k2, work), fusion.scalar(math.pi / n, work,
                                                                         device)],
                       work, (length,))
    re = fusion.apply("cos", [ang], work, (length,))
    im = fusion.apply("sin", [ang], work, (length,))
    if not conjugate:
        im = fusion.apply("negative", [im], work, (length,))
    return fusion.make_complex(fusion.cast(re, comp), fusion.cast(im, comp), dtype)


def _dft_rows(x, inverse):
    """Unnormalized DFT along the last axis of x (complex, any shape): a new array."""
    n = x.shape[-1]
    if x.size == 0:
        return x
    rows = _contiguous_rows(x)
    if _factors(n) is not None:
        out = _pow2(rows, inverse)
    else:
        out = _bluestein(rows, inverse)
    return reshape(out, x.shape)


# ---- argument handling --------------------------------------------------------------------------

def _check_array(x, what):
    if not isinstance(x, Array):
        raise TypeError(f"fft.{what}() takes a dpk array, not {type(x).__name__}")


def _axis(axis, ndim, what):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise IndexError(f"fft.{what}(): axis {axis} is out of bounds for {ndim} dimension(s)")
    return axis % ndim


def _norm_factor(norm, n, inverse, what):
    if norm not in _NORMS:
        raise ValueError(f"fft.{what}(): norm must be one of {', '.join(_NORMS)}, not {norm!r}")
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm == "backward") == inverse:
        return 1.0 / n
    return 1.0


def _swap(norm):
    return {"backward": "forward", "forward": "backward"}.get(norm, norm)


def _complex_input(x, what):
    if x.dtype.kind == "c":
        return x
    if x.dtype.kind == "f":
        return Array._lazy(fusion.cast(x._as_node(), D.complex_of(x.dtype)))
    raise TypeError(f"fft.{what}() needs a floating-point array, not {D.name(x.dtype)}")


def _resize(x, n, axis):
    """x trimmed or zero-padded to n along axis."""
    have = x.shape[axis]
    if n == have:
        return x
    if n < have:
        key = [slice(None)] * x.ndim
        key[axis] = slice(0, n)
        return x[tuple(key)]
    pad_shape = list(x.shape)
    pad_shape[axis] = n - have
    return concat([x, zeros(tuple(pad_shape), dtype=x.dtype, device=x.device)], axis=axis)


def _scaled(x, factor):
    if factor == 1.0:
        return x
    return Array._lazy(fusion.apply("multiply", [x._as_node(),
                                                 fusion.scalar(factor, x.dtype, x.device)],
                                    x.dtype, x.shape))


def _c2c(x, n, axis, norm, inverse, what):
    axis = _axis(axis, x.ndim, what)
    if n is None:
        n = x.shape[axis]
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fft.{what}(): n must be at least 1, not {n}")
    x = _resize(x, n, axis)
    moved = moveaxis(x, axis, -1)
    y = _dft_rows(moved, inverse)
    y = _scaled(y, _norm_factor(norm, n, inverse, what))
    return moveaxis(y, -1, axis)


def _axes_and_sizes(x, s, axes, what):
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    else:
        axes = [_axis(a, x.ndim, what) for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"fft.{what}(): axes must be unique, not {axes}")
    if s is None:
        s = [x.shape[a] for a in axes]
    else:
        s = [operator.index(v) for v in s]
        if len(s) != len(axes):
            raise ValueError(f"fft.{what}(): s and axes must have the same length")
        s = [x.shape[a] if v == -1 else v for v, a in zip(s, axes)]
    return list(s), axes


# ---- the standard's functions ---------------------------------------------------------------

def fft(x, /, *, n=None, axis=-1, norm="backward"):
    """The one-dimensional discrete Fourier transform along `axis`."""
    _check_array(x, "fft")
    return _c2c(_complex_input(x, "fft"), n, axis, norm, False, "fft")


def ifft(x, /, *, n=None, axis=-1, norm="backward"):
    """The one-dimensional inverse discrete Fourier transform along `axis`."""
    _check_array(x, "ifft")
    return _c2c(_complex_input(x, "ifft"), n, axis, norm, True, "ifft")


def fftn(x, /, *, s=None, axes=None, norm="backward"):
    """The n-dimensional discrete Fourier transform over `axes`."""
    _check_array(x, "fftn")
    x = _complex_input(x, "fftn")
    s, axes = _axes_and_sizes(x, s, axes, "fftn")
    for n, a in zip(s, axes):
        x = _c2c(x, n, a, norm, False, "fftn")
    return x


def ifftn(x, /, *, s=None, axes=None, norm="backward"):
    """The n-dimensional inverse discrete Fourier transform over `axes`."""
    _check_array(x, "ifftn")
    x = _complex_input(x, "ifftn")
    s, axes = _axes_and_sizes(x, s, axes, "ifftn")
    for n, a in zip(s, axes):
        x = _c2c(x, n, a, norm, True, "ifftn")
    return x


def _real_input(x, what):
    if x.dtype.kind != "f":
        raise TypeError(f"fft.{what}() needs a real floating-point array, not "
                        f"{D.name(x.dtype)}")
    return x


def rfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The DFT of real input: the n // 2 + 1 non-negative frequency terms."""
    _check_array(x, "rfft")
    _real_input(x, "rfft")
    axis = _axis(axis, x.ndim, "rfft")
    if n is None:
        n = x.shape[axis]
    full_ = _c2c(_complex_input(x, "rfft"), n, axis, norm, False, "rfft")
    key = [slice(None)] * x.ndim
    key[axis] = slice(0, n // 2 + 1)
    return full_[tuple(key)]


def _c2r(x, n, axis, norm, what):
    """The real inverse of a Hermitian spectrum given by its first n // 2 + 1 terms."""
    axis = _axis(axis, x.ndim, what)
    if n is None:
        n = 2 * (x.shape[axis] - 1)
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fft.{what}(): n must be at least 1, not {n} (an axis of length 1 "
                         "needs an explicit n)")
    half = _resize(x, n // 2 + 1, axis)
    key = [slice(None)] * x.ndim
    key[axis] = slice(1, n - n // 2)
    tail = flip(half[tuple(key)], axis=axis)
    tail = Array._lazy(fusion.apply("conj", [tail._as_node()], tail.dtype, tail.shape))
    spectrum = concat([half, tail], axis=axis)
    y = _c2c(spectrum, n, axis, norm, True, what)
    comp = D.component(y.dtype)
    return Array._lazy(fusion.apply("real", [y._as_node()], comp, y.shape))


def irfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The inverse of rfft: n real outputs (default 2 * (m - 1))."""
    _check_array(x, "irfft")
    return _c2r(_complex_input(x, "irfft"), n, axis, norm, "irfft")


def rfftn(x, /, *, s=None, axes=None, norm="backward"):
    """The n-dimensional DFT of real input (the last axis halved)."""
    _check_array(x, "rfftn")
    _real_input(x, "rfftn")
    s, axes = _axes_and_sizes(x, s, axes, "rfftn")
    y = rfft(x, n=s[-1], axis=axes[-1], norm=norm)
    for n, a in zip(s[:-1], axes[:-1]):
        y = _c2c(y, n, a, norm, False, "rfftn")
    return y


def irfftn(x, /, *, s=None, axes=None, norm="backward"):
    """The inverse of rfftn."""
    _check_array(x, "irfftn")
    x = _complex_input(x, "irfftn")
    given = s is not None
    s, axes = _axes_and_sizes(x, s, axes, "irfftn")
    if not given:
        s[-1] = 2 * (x.shape[axes[-1]] - 1)
    for n, a in zip(s[:-1], axes[:-1]):
        x = _c2c(x, n, a, norm, True, "irfftn")
    return _c2r(x, s[-1], axes[-1], norm, "irfftn")


def hfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The DFT of a Hermitian-symmetric signal given by its first half: n real outputs."""
    _check_array(x, "hfft")
    x = _complex_input(x, "hfft")
    conj = Array._lazy(fusion.apply("conj", [x._as_node()], x.dtype, x.shape))
    return _c2r(conj, n, axis, _swap(_checked(norm, "hfft")), "hfft")


def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The inverse of hfft: n // 2 + 1 complex outputs of real input."""
    _check_array(x, "ihfft")
    y = rfft(x, n=n, axis=axis, norm=_swap(_checked(norm, "ihfft")))
    return Array._lazy(fusion.apply("conj", [y._as_node()], y.dtype, y.shape))


def _checked(norm, what):
    if norm not in _NORMS:
        raise ValueError(f"fft.{what}(): norm must be one of {', '.join(_NORMS)}, not {norm!r}")
    return norm


def _freq_dtype(dtype, device):
    if dtype is None:
        return D.default_float(device)
    dtype = D.normalize(dtype)
    if dtype.kind != "f":
        raise TypeError(f"fftfreq(): dtype must be a real floating-point type, not "
                        f"{D.name(dtype)}")
    return dtype


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies [0, 1, ..., -(n // 2), ..., -1] / (d n)."""
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fftfreq(): n must be at least 1, not {n}")
    target = _target(device)
    dtype = _freq_dtype(dtype, target)
    work = D.float64 if target.has_fp64 else D.float32
    k = fusion.iota((n,), (1,), target)
    signed = fusion.apply("where", [
        fusion.apply("less", [k, fusion.scalar((n + 1) // 2, _I64, target)], D.bool, (n,)), k,
        fusion.apply("subtract", [k, fusion.scalar(n, _I64, target)], _I64, (n,))], _I64, (n,))
    vals = fusion.apply("multiply", [fusion.cast(signed, work),
                                     fusion.scalar(1.0 / (d * n), work, target)], work, (n,))
    return Array._lazy(fusion.cast(vals, dtype))


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies of rfft: [0, 1, ..., n // 2] / (d n)."""
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"rfftfreq(): n must be at least 1, not {n}")
    target = _target(device)
    dtype = _freq_dtype(dtype, target)
    work = D.float64 if target.has_fp64 else D.float32
    m = n // 2 + 1
    k = fusion.iota((m,), (1,), target)
    vals = fusion.apply("multiply", [fusion.cast(k, work),
                                     fusion.scalar(1.0 / (d * n), work, target)], work, (m,))
    return Array._lazy(fusion.cast(vals, dtype))


def _shift(x, axes, sign, what):
    _check_array(x, what)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    axes = tuple(_axis(a, x.ndim, what) for a in axes)
    if not axes:
        return x
    shifts = tuple(sign * (x.shape[a] // 2) for a in axes)
    return roll(x, shifts, axis=axes)


def fftshift(x, /, *, axes=None):
    """Moves the zero-frequency term to the centre (a roll by n // 2 along each axis)."""
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x, /, *, axes=None):
    """The inverse of fftshift (a roll by -(n // 2))."""
    return _shift(x, axes, -1, "ifftshift")

