"""Constructs a prange loop cannot run in parallel safely are KernelSyntaxError at the first
call (or inspect_regions()), naming the user's file and line, never miscomputed (docs/jit.md,
"Errors"). Each function marks its offending line with a comment the tests look up."""

import numpy as np
import pytest

import dpk
from dpk import prange


def carried(a, out):
    prev = 0.0
    for i in prange(a.shape[0]):
        out[i] = prev + a[i]  # ERR-carried
        prev = a[i]


def same_element(a, out):
    for i in prange(a.shape[0]):
        out[0] = a[i]  # ERR-same


def shared_product(a, out):
    for i in prange(a.shape[0]):
        out[i % 3] *= a[i]  # ERR-product


def breaks(a):
    for i in prange(a.shape[0]):
        if a[i] > 0:
            break  # ERR-break


def returns(a):
    for i in prange(a.shape[0]):
        return a[i]  # ERR-return


def mixed_ops(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
        s *= 2.0  # no error line: reported at the first update
    return s


def reduction_read(a, out):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]  # ERR-read (s is read here, and out[i] = s makes it no reduction)
        out[i] = s
    return s


def assigns_index(a):
    for i in prange(a.shape[0]):
        i = 2  # ERR-index  # noqa: F841


def private_shape(a, n):
    for i in prange(a.shape[0]):
        t = np.empty(n + 1)  # ERR-shape
        t[0] = a[i]


def _line(marker):
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, 1) if f"# {marker}" in line)


@pytest.mark.parametrize("fn, marker, message", [
    (carried, "ERR-carried", "loop-carried dependence: 'prev' is read before it is assigned"),
    (same_element, "ERR-same", r"writes the same element out\[0\]"),
    (shared_product, "ERR-product", "no atomic form of this operator"),
    (breaks, "ERR-break", "break in a prange loop"),
    (returns, "ERR-return", "return inside a prange loop"),
    (reduction_read, "ERR-read", "'s' is updated like a reduction but also read"),
    (assigns_index, "ERR-index", "loop variable 'i' is assigned"),
    (private_shape, "ERR-shape", "need a constant shape"),
])
def test_unsafe_constructs_are_compile_errors(fn, marker, message):
    f = dpk.jit(fn)
    with pytest.raises(dpk.KernelSyntaxError, match=message) as info:
        f.inspect_regions()
    assert info.value.filename == __file__
    assert info.value.lineno == _line(marker)
    assert f"{__file__}:{_line(marker)}" in str(info.value)


def test_mixed_operators_on_one_variable():
    with pytest.raises(dpk.KernelSyntaxError, match=r"'s' is reduced with different operators"):
        dpk.jit(mixed_ops)(np.ones(3))


def test_error_at_first_call_before_anything_runs():
    out = np.zeros(4)
    with pytest.raises(dpk.KernelSyntaxError):
        dpk.jit(same_element)(np.ones(4), out)
    assert not out.any()
