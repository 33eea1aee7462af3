"""Complex arithmetic lowered to real IR: the emitters of the elementwise table for complex64
and complex128 operands.

The core IR has real scalar types only, so inside the kernels the array layer generates a
complex value is a pair ``(re, im)`` of IR values of its component type (float32 for
complex64, float64 for complex128); memory stays interleaved as NumPy and DLPack store it
(fusion.py loads element i of a complex view as the components 2i and 2i+1).

Each emitter takes the IR builder, the complex dtype of its operands and their values (pairs;
``where``'s condition is a bool) and returns a pair, or one real/bool value for the functions
whose result is real (``abs real imag isnan isinf isfinite equal not_equal``). The formulas
follow the standard's special-case tables (which are C99 Annex G's): the elementary functions
are written so that signed zeros pick the side of a branch cut, and infinities and NaNs are
fixed up with selects where the plain formula would give NaN. asin/acos/asinh/acosh use
Kahan's formulas (no squares of z, so no overflow), atanh/atan a log1p form, and
sin/cos/tan are sinh/cosh/tanh of i*z.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _core_loader
from .._ir import builder as B
from .._ir import scalar_ops as S
from . import dtypes as D


class _E:
    """Real arithmetic on IR values of one float dtype (the complex type's component)."""

    def __init__(self, b, dtype):
        self.b = b
        self.dt = D.component(dtype)
        self.core = _core_loader.core()

    def k(self, v):
        return B.const(self.b, self.dt, v)

    def add(self, x, y):
        return self.b.binary(self.core.OpKind.Add, x, y)

    def sub(self, x, y):
        return self.b.binary(self.core.OpKind.Sub, x, y)

    def mul(self, x, y):
        return self.b.binary(self.core.OpKind.Mul, x, y)

    def div(self, x, y):
        return self.b.binary(self.core.OpKind.Div, x, y)

    def neg(self, x):
        return self.b.unary(self.core.OpKind.Neg, x)

    def m(self, fn, *args):
        return self.b.math(getattr(self.core.MathFn, fn), list(args))

    def cmp(self, pred, x, y):
        return self.b.cmp(getattr(self.core.CmpPredicate, pred), x, y)

    def and_(self, x, y):
        return self.b.binary(self.core.OpKind.And, x, y)

    def or_(self, x, y):
        return self.b.binary(self.core.OpKind.Or, x, y)

    def not_(self, x):
        return self.b.unary(self.core.OpKind.Not, x)

    def sel(self, c, x, y):
        return self.b.select(c, x, y)

    def csel(self, c, z, w):
        return (self.b.select(c, z[0], w[0]), self.b.select(c, z[1], w[1]))

    def isnan(self, x):
        return self.m("IsNan", x)

    def isinf(self, x):
        return self.m("IsInf", x)

    def isfinite(self, x):
        return self.cmp("Lt", self.m("Fabs", x), self.k(math.inf))

    def iszero(self, x):
        return self.cmp("Eq", x, self.k(0.0))

    def copysign(self, x, y):
        return self.m("Copysign", x, y)

    # complex helpers
    def cmul(self, z, w):
        a, b = z
        c, d = w
        return (self.sub(self.mul(a, c), self.mul(b, d)), self.add(self.mul(a, d), self.mul(b, c)))

    def cdiv(self, z, w):
        """Smith's algorithm (scaled by the larger part of the divisor); z / 0 divides the
        parts by the zero magnitudes (inf or NaN per part), as NumPy does."""
        a, b = z
        c, d = w
        ac, ad = self.m("Fabs", c), self.m("Fabs", d)
        # |c| >= |d|
        r1 = self.div(d, c)
        den1 = self.add(c, self.mul(d, r1))
        re1 = self.div(self.add(a, self.mul(b, r1)), den1)
        im1 = self.div(self.sub(b, self.mul(a, r1)), den1)
        # |c| < |d|
        r2 = self.div(c, d)
        den2 = self.add(self.mul(c, r2), d)
        re2 = self.div(self.add(self.mul(a, r2), b), den2)
        im2 = self.div(self.sub(self.mul(b, r2), a), den2)
        first = self.cmp("Ge", ac, ad)
        out = self.csel(first, (re1, im1), (re2, im2))
        zero = self.and_(self.iszero(c), self.iszero(d))
        out = self.csel(zero, (self.div(a, ac), self.div(b, ad)), out)
        # infinite divisor with finite dividend: (finite) / (inf) -> signed zeros
        inf_w = self.or_(self.isinf(c), self.isinf(d))
        fin_z = self.and_(self.isfinite(a), self.isfinite(b))
        cc = self.copysign(self.sel(self.isinf(c), self.k(1.0), self.k(0.0)), c)
        dd = self.copysign(self.sel(self.isinf(d), self.k(1.0), self.k(0.0)), d)
        zr = self.mul(self.k(0.0), self.add(self.mul(a, cc), self.mul(b, dd)))
        zi = self.mul(self.k(0.0), self.sub(self.mul(b, cc), self.mul(a, dd)))
        return self.csel(self.and_(inf_w, fin_z), (zr, zi), out)

    def csqrt(self, z):
        x, y = z
        big = self.k(float(np.finfo(self.dt).max) / 8)
        ax, ay = self.m("Fabs", x), self.m("Fabs", y)
        scale = self.or_(self.cmp("Gt", ax, big), self.cmp("Gt", ay, big))
        f = self.sel(scale, self.k(0.25), self.k(1.0))
        g = self.sel(scale, self.k(2.0), self.k(1.0))
        xs, ys = self.mul(x, f), self.mul(y, f)
        h = self.m("Hypot", xs, ys)
        t = self.m("Sqrt", self.mul(self.add(self.m("Fabs", xs), h), self.k(0.5)))
        two_t = self.add(t, t)
        pos = (t, self.div(ys, two_t))
        neg = (self.div(self.m("Fabs", ys), two_t), self.copysign(t, ys))
        r = self.csel(self.cmp("Ge", xs, self.k(0.0)), pos, neg)
        r = (self.mul(r[0], g), self.mul(r[1], g))
        r = self.csel(self.iszero(t), (self.k(0.0), y), r)
        inf = self.k(math.inf)
        return self.csel(self.isinf(y), (inf, y), r)

    def clog(self, z):
        x, y = z
        h = self.m("Hypot", x, y)
        re = self.m("Log", h)
        # near the unit circle: log|z| = log1p((a - 1)(a + 1) + b^2) / 2 with a the larger part
        # (a - 1 is exact there), which keeps the small result's relative accuracy
        ax, ay = self.m("Fabs", x), self.m("Fabs", y)
        big = self.sel(self.cmp("Ge", ax, ay), ax, ay)
        small = self.sel(self.cmp("Ge", ax, ay), ay, ax)
        one = self.k(1.0)
        u = self.add(self.mul(self.sub(big, one), self.add(big, one)), self.mul(small, small))
        near = self.and_(self.cmp("Gt", h, self.k(0.75)), self.cmp("Lt", h, self.k(1.25)))
        re = self.sel(near, self.mul(self.k(0.5), self.m("Log1p", u)), re)
        return (re, self.m("Atan2", y, x))

    def clog1p(self, z):
        x, y = z
        one = self.k(1.0)
        xp = self.add(x, one)
        far = self.clog((xp, y))
        # near 0: log|1+z| = log1p(2x + x^2 + y^2) / 2, accurate for small z
        small = self.and_(self.cmp("Lt", self.m("Fabs", x), self.k(0.5)),
                          self.cmp("Lt", self.m("Fabs", y), self.k(0.5)))
        u = self.add(self.mul(x, self.add(x, self.k(2.0))), self.mul(y, y))
        near_re = self.mul(self.m("Log1p", u), self.k(0.5))
        return (self.sel(small, near_re, far[0]), far[1])

    def cexp(self, z, minus_one=False):
        x, y = z
        e = self.m("Exp", x)
        c, s = self.m("Cos", y), self.m("Sin", y)
        if minus_one:
            # e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y/2)
            sh = self.m("Sin", self.mul(y, self.k(0.5)))
            re = self.sub(self.mul(self.m("Expm1", x), c), self.mul(self.k(2.0), self.mul(sh, sh)))
            re = self.add(re, self.k(0.0))  # -0 -> +0
        else:
            re = self.mul(e, c)
        im = self.sel(self.iszero(y), y, self.mul(e, s))
        yfin = self.isfinite(y)
        pinf = self.cmp("Eq", x, self.k(math.inf))
        ninf = self.cmp("Eq", x, self.k(-math.inf))
        low = self.k(-1.0) if minus_one else self.k(0.0)
        out = (re, im)
        if minus_one:
            out = self.csel(self.and_(ninf, yfin), (low, self.mul(e, s)), out)
        out = self.csel(self.and_(ninf, self.not_(yfin)), (low, self.k(0.0)), out)
        out = self.csel(self.and_(pinf, self.not_(yfin)), (x, self.k(math.nan)), out)
        return out

    def csinh(self, z):
        x, y = z
        re = self.mul(self.m("Sinh", x), self.m("Cos", y))
        im = self.mul(self.m("Cosh", x), self.m("Sin", y))
        im = self.sel(self.iszero(y), y, im)
        cond = self.and_(self.not_(self.isfinite(y)), self.or_(self.iszero(x), self.isinf(x)))
        return self.csel(cond, (x, self.k(math.nan)), (re, im))

    def ccosh(self, z):
        x, y = z
        re = self.mul(self.m("Cosh", x), self.m("Cos", y))
        im = self.mul(self.m("Sinh", x), self.m("Sin", y))
        im = self.sel(self.iszero(y), self.mul(y, self.copysign(self.k(1.0), x)), im)
        yinf = self.not_(self.isfinite(y))
        out = self.csel(self.and_(yinf, self.iszero(x)), (self.k(math.nan), self.k(0.0)),
                        (re, im))
        return self.csel(self.and_(yinf, self.isinf(x)), (self.k(math.inf), self.k(math.nan)),
                         out)

    def ctanh(self, z):
        x, y = z
        one = self.k(1.0)
        t = self.m("Tan", y)
        beta = self.add(one, self.mul(t, t))
        s = self.m("Sinh", x)
        rho = self.m("Sqrt", self.add(one, self.mul(s, s)))
        den = self.add(one, self.mul(beta, self.mul(s, s)))
        re = self.div(self.mul(self.mul(beta, rho), s), den)
        im = self.div(t, den)
        # large |x|: +-1 + i 4 sin(y) cos(y) e^(-2|x|) (a signed tiny value); infinite x:
        # +-1 + 0j with the sign of y (the standard's table; conj symmetry)
        s2y = self.mul(self.mul(self.k(4.0), self.m("Sin", y)), self.m("Cos", y))
        tiny = self.mul(s2y, self.m("Exp", self.mul(self.k(-2.0), self.m("Fabs", x))))
        tiny = self.sel(self.isinf(x), self.copysign(self.k(0.0), y), tiny)
        large = (self.copysign(one, x), tiny)
        big = self.or_(self.and_(self.cmp("Gt", self.m("Fabs", x), self.k(22.0)),
                                 self.isfinite(y)), self.isinf(x))
        out = self.csel(big, large, (re, im))
        out = (out[0], self.sel(self.iszero(y), y, out[1]))
        out = (self.sel(self.iszero(y), self.m("Tanh", x), out[0]), out[1])
        cond = self.and_(self.iszero(x), self.not_(self.isfinite(y)))
        return self.csel(cond, (x, self.k(math.nan)), out)

    def _kahan_sqrts(self, z):
        x, y = z
        one = self.k(1.0)
        s1 = self.csqrt((self.sub(one, x), self.neg(y)))   # sqrt(1 - z)
        s2 = self.csqrt((self.add(one, x), y))             # sqrt(1 + z)
        return s1, s2

    def casin_finite(self, z):
        x, _ = z
        s1, s2 = self._kahan_sqrts(z)
        re = self.m("Atan2", x, self.sub(self.mul(s1[0], s2[0]), self.mul(s1[1], s2[1])))
        im = self.m("Asinh", self.sub(self.mul(s1[0], s2[1]), self.mul(s1[1], s2[0])))
        return (re, im)

    def casinh(self, z):
        x, y = z
        # asinh(z) = -i asin(i z)
        ar, ai = self.casin_finite((self.neg(y), x))
        out = (ai, self.neg(ar))
        inf = self.k(math.inf)
        nan = self.k(math.nan)
        xi, yi = self.isinf(x), self.isinf(y)
        xn, yn = self.isnan(x), self.isnan(y)
        infinite = self.and_(self.or_(xi, yi), self.not_(self.or_(xn, yn)))
        out = self.csel(infinite, (self.copysign(inf, x), self.m("Atan2", y, self.m("Fabs", x))),
                        out)
        out = self.csel(self.and_(xi, yn), (x, nan), out)
        out = self.csel(self.and_(xn, yi), (inf, nan), out)
        out = self.csel(self.and_(xn, self.iszero(y)), (nan, y), out)
        return out

    def cacos(self, z):
        x, y = z
        s1, s2 = self._kahan_sqrts(z)
        re = self.mul(self.k(2.0), self.m("Atan2", s1[0], s2[0]))
        im = self.m("Asinh", self.sub(self.mul(s2[0], s1[1]), self.mul(s2[1], s1[0])))
        out = (re, im)
        inf = self.k(math.inf)
        nan = self.k(math.nan)
        xi, yi = self.isinf(x), self.isinf(y)
        xn, yn = self.isnan(x), self.isnan(y)
        infinite = self.and_(self.or_(xi, yi), self.not_(self.or_(xn, yn)))
        out = self.csel(infinite, (self.m("Atan2", self.m("Fabs", y), x),
                                   self.neg(self.copysign(inf, y))), out)
        out = self.csel(self.and_(xi, yn), (nan, inf), out)
        out = self.csel(self.and_(xn, yi), (nan, self.neg(self.copysign(inf, y))), out)
        out = self.csel(self.and_(self.iszero(x), yn), (self.k(math.pi / 2), nan), out)
        return out

    def catanh(self, z):
        """atanh is odd: computed for Re z >= 0 (where log1p does not cancel) and negated."""
        x, y = z
        flip = self.cmp("Lt", x, self.k(0.0))
        re, im = self._catanh_right((self.sel(flip, self.neg(x), x),
                                     self.sel(flip, self.neg(y), y)))
        return self.csel(flip, (self.neg(re), self.neg(im)), (re, im))

    def _catanh_right(self, z):
        x, y = z
        one = self.k(1.0)
        omx = self.sub(one, x)
        den = self.add(self.mul(omx, omx), self.mul(y, y))
        re = self.mul(self.k(0.25), self.m("Log1p", self.div(self.mul(self.k(4.0), x), den)))
        im = self.mul(self.k(0.5), self.m("Atan2", self.add(y, y),
                                          self.sub(self.mul(omx, self.add(one, x)),
                                                   self.mul(y, y))))
        # |z| large (or infinite): 1/z + i pi/2 sign(y)
        big = self.k(math.sqrt(float(np.finfo(self.dt).max)) / 4)
        h = self.m("Hypot", x, y)
        large = self.cmp("Gt", h, big)
        lre = self.sel(self.isinf(h), self.copysign(self.k(0.0), x), self.div(self.div(x, h), h))
        lim = self.copysign(self.k(math.pi / 2), y)
        out = self.csel(large, (lre, lim), (re, im))
        out = (self.sel(self.iszero(x), x, out[0]), out[1])
        out = (out[0], self.sel(self.isnan(y), y, out[1]))
        return out

    def round_(self, dtype, z):
        return (S.round_(self.b, self.dt, z[0]), S.round_(self.b, self.dt, z[1]))


# ---- the emitters ---------------------------------------------------------------------------

def _e(b, dtype):
    return _E(b, dtype)


def add(b, dtype, z, w):
    e = _e(b, dtype)
    return (e.add(z[0], w[0]), e.add(z[1], w[1]))


def subtract(b, dtype, z, w):
    e = _e(b, dtype)
    return (e.sub(z[0], w[0]), e.sub(z[1], w[1]))


def multiply(b, dtype, z, w):
    return _e(b, dtype).cmul(z, w)


def divide(b, dtype, z, w):
    return _e(b, dtype).cdiv(z, w)


def reciprocal(b, dtype, z):
    e = _e(b, dtype)
    return e.cdiv((e.k(1.0), e.k(0.0)), z)


def negative(b, dtype, z):
    e = _e(b, dtype)
    return (e.neg(z[0]), e.neg(z[1]))


def positive(b, dtype, z):
    return z


def conj(b, dtype, z):
    return (z[0], _e(b, dtype).neg(z[1]))


def real(b, dtype, z):
    return z[0]


def imag(b, dtype, z):
    return z[1]


def abs_(b, dtype, z):
    return _e(b, dtype).m("Hypot", z[0], z[1])


def square(b, dtype, z):
    return _e(b, dtype).cmul(z, z)


def sign(b, dtype, z):
    e = _e(b, dtype)
    x, y = z
    # infinite parts count as +-1 (finite ones as 0) so that z/|z| stays defined
    anyinf = e.or_(e.isinf(x), e.isinf(y))
    xi = e.sel(anyinf, e.sel(e.isinf(x), e.copysign(e.k(1.0), x), e.copysign(e.k(0.0), x)), x)
    yi = e.sel(anyinf, e.sel(e.isinf(y), e.copysign(e.k(1.0), y), e.copysign(e.k(0.0), y)), y)
    h = e.m("Hypot", xi, yi)
    out = (e.div(xi, h), e.div(yi, h))
    zero = e.and_(e.iszero(x), e.iszero(y))
    out = e.csel(zero, (e.k(0.0), e.k(0.0)), out)
    nan = e.or_(e.isnan(x), e.isnan(y))
    return e.csel(nan, (e.k(math.nan), e.k(math.nan)), out)


def exp(b, dtype, z):
    return _e(b, dtype).cexp(z)


def expm1(b, dtype, z):
    return _e(b, dtype).cexp(z, minus_one=True)


def log(b, dtype, z):
    return _e(b, dtype).clog(z)


def log1p(b, dtype, z):
    return _e(b, dtype).clog1p(z)


def _log_base(base):
    def emit(b, dtype, z):
        e = _e(b, dtype)
        r, i = e.clog(z)
        f = e.k(1.0 / math.log(base))
        return (e.mul(r, f), e.mul(i, f))
    return emit


log2 = _log_base(2.0)
log10 = _log_base(10.0)


def sqrt(b, dtype, z):
    return _e(b, dtype).csqrt(z)


def pow_(b, dtype, z, w):
    """exp(w * log(z)), the standard's definition; z ** 0 is 1 (NumPy's convention too)."""
    e = _e(b, dtype)
    r = e.cexp(e.cmul(w, e.clog(z)))
    wzero = e.and_(e.iszero(w[0]), e.iszero(w[1]))
    return e.csel(wzero, (e.k(1.0), e.k(0.0)), r)


def sinh(b, dtype, z):
    return _e(b, dtype).csinh(z)


def cosh(b, dtype, z):
    return _e(b, dtype).ccosh(z)


def tanh(b, dtype, z):
    return _e(b, dtype).ctanh(z)


def _rot(fn):
    """f(z) = -i g(i z) for (sin, sinh), (tan, tanh); cos(z) = cosh(i z)."""
    def emit(b, dtype, z):
        e = _e(b, dtype)
        r, i = fn(e, (e.neg(z[1]), z[0]))
        return (i, e.neg(r))
    return emit


sin = _rot(_E.csinh)
tan = _rot(_E.ctanh)


def cos(b, dtype, z):
    e = _e(b, dtype)
    return e.ccosh((e.neg(z[1]), z[0]))


def asinh(b, dtype, z):
    return _e(b, dtype).casinh(z)


asin = _rot(_E.casinh)


def acos(b, dtype, z):
    return _e(b, dtype).cacos(z)


def acosh(b, dtype, z):
    """+-i acos(z) with a non-negative real part and the imaginary part's sign from Im(z)
    (so that acosh(conj(z)) == conj(acosh(z)), also for signed zeros)."""
    e = _e(b, dtype)
    ar, ai = e.cacos(z)
    return (e.m("Fabs", ai), e.copysign(ar, z[1]))


def atanh(b, dtype, z):
    return _e(b, dtype).catanh(z)


atan = _rot(_E.catanh)


def round_(b, dtype, z):
    return _e(b, dtype).round_(dtype, z)


def isnan(b, dtype, z):
    e = _e(b, dtype)
    return e.or_(e.isnan(z[0]), e.isnan(z[1]))


def isinf(b, dtype, z):
    e = _e(b, dtype)
    return e.or_(e.isinf(z[0]), e.isinf(z[1]))


def isfinite(b, dtype, z):
    e = _e(b, dtype)
    return e.and_(e.isfinite(z[0]), e.isfinite(z[1]))


def equal(b, dtype, z, w):
    e = _e(b, dtype)
    return e.and_(e.cmp("Eq", z[0], w[0]), e.cmp("Eq", z[1], w[1]))


def not_equal(b, dtype, z, w):
    e = _e(b, dtype)
    return e.or_(e.cmp("Ne", z[0], w[0]), e.cmp("Ne", z[1], w[1]))


def where(b, dtype, c, z, w):
    return (b.select(c, z[0], w[0]), b.select(c, z[1], w[1]))


def to_bool(b, dtype, z):
    e = _e(b, dtype)
    return e.or_(e.cmp("Ne", z[0], e.k(0.0)), e.cmp("Ne", z[1], e.k(0.0)))


def _logical(kind):
    def emit(b, dtype, x, y):
        return b.binary(getattr(_core_loader.core().OpKind, kind), x, y)
    return emit


EMITTERS = {
    "add": add, "subtract": subtract, "multiply": multiply, "divide": divide,
    "reciprocal": reciprocal, "negative": negative, "positive": positive, "conj": conj,
    "real": real, "imag": imag, "abs": abs_, "square": square, "sign": sign, "exp": exp,
    "expm1": expm1, "log": log, "log1p": log1p, "log2": log2, "log10": log10, "sqrt": sqrt,
    "pow": pow_, "sin": sin, "cos": cos, "tan": tan, "sinh": sinh, "cosh": cosh, "tanh": tanh,
    "asin": asin, "acos": acos, "atan": atan, "asinh": asinh, "acosh": acosh, "atanh": atanh,
    "round": round_, "isnan": isnan, "isinf": isinf, "isfinite": isfinite, "equal": equal,
    "not_equal": not_equal, "where": where,
}

# Functions whose result is real for complex operands (the component type, or bool).
REAL_RESULT = {"abs", "real", "imag"}


def convert(b, value, src, dst):
    """IR `value` of dtype `src` as `dst` where either may be complex (a pair)."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return value
    if src.kind == "c":
        if dst.kind == "c":
            c = D.component(dst)
            return (B.convert(b, value[0], D.component(src), c),
                    B.convert(b, value[1], D.component(src), c))
        if dst.kind == "b":
            return to_bool(b, src, value)
        return B.convert(b, value[0], D.component(src), dst)
    if dst.kind == "c":
        c = D.component(dst)
        return (B.convert(b, value, src, c), B.const(b, c, 0.0))
    return B.convert(b, value, src, dst)
