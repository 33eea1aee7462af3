"""dpk.fft (the Array API's fft extension) against numpy.fft on every device: power-of-two
lengths (Stockham stages) and others (Bluestein), n (trim and pad), axis/axes, s, the three
norms, batched transforms, real and Hermitian transforms, frequencies and shifts."""

import numpy as np
import pytest

import dpk


def tol(dtype):
    return 2e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11


def check(got, ref, dtype):
    got = dpk.asnumpy(got)
    ref = np.asarray(ref)
    assert got.shape == ref.shape
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    scale = max(float(np.max(np.abs(ref))), 1e-30) if ref.size else 1.0
    assert np.max(np.abs(got - ref), initial=0.0) <= tol(dtype) * scale


def data(shape, real, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if not real:
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def skip_fp64(device, dtype):
    if np.dtype(dtype) in (np.float64, np.complex128) and not device.has_fp64:
        pytest.skip("no fp64 on this device")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 2, 8, 256, 3, 12, 30, 49, 143, 97])
def test_fft_lengths(device, dtype, n):
    skip_fp64(device, dtype)
    a = data((3, n), False, dtype, n)
    x = dpk.asarray(a, device=device)
    check(dpk.fft.fft(x), np.fft.fft(a).astype(dtype), dtype)
    check(dpk.fft.ifft(x), np.fft.ifft(a).astype(dtype), dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_fft_n_axis_norm(device, dtype, norm):
    skip_fp64(device, dtype)
    a = data((4, 6, 5), False, dtype, 1)
    x = dpk.asarray(a, device=device)
    for n in (None, 3, 8, 9):
        for axis in (0, 1, -1):
            check(dpk.fft.fft(x, n=n, axis=axis, norm=norm),
                  np.fft.fft(a, n=n, axis=axis, norm=norm).astype(dtype), dtype)
            check(dpk.fft.ifft(x, n=n, axis=axis, norm=norm),
                  np.fft.ifft(a, n=n, axis=axis, norm=norm).astype(dtype), dtype)
    # a strided view
    check(dpk.fft.fft(x[::2, :, ::-1], axis=1, norm=norm),
          np.fft.fft(a[::2, :, ::-1], axis=1, norm=norm).astype(dtype), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_real_transforms(device, dtype, norm):
    skip_fp64(device, dtype)
    cdt = np.result_type(dtype, np.complex64)
    r = data((5, 6), True, dtype, 2)
    c = data((5, 6), False, cdt, 3)
    R, C = dpk.asarray(r, device=device), dpk.asarray(c, device=device)
    for n in (None, 4, 7, 10):
        for axis in (0, -1):
            kw = dict(n=n, axis=axis, norm=norm)
            check(dpk.fft.rfft(R, **kw), np.fft.rfft(r, **kw).astype(cdt), dtype)
            check(dpk.fft.irfft(C, **kw), np.fft.irfft(c, **kw).astype(dtype), dtype)
            check(dpk.fft.hfft(C, **kw), np.fft.hfft(c, **kw).astype(dtype), dtype)
            check(dpk.fft.ihfft(R, **kw), np.fft.ihfft(r, **kw).astype(cdt), dtype)
    # round trip
    check(dpk.fft.irfft(dpk.fft.rfft(R, norm=norm), n=6, norm=norm), r, dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_nd_transforms(device, dtype):
    skip_fp64(device, dtype)
    rdt = np.float32 if dtype == "complex64" else np.float64
    c = data((4, 6, 5), False, dtype, 4)
    r = data((4, 6, 5), True, rdt, 5)
    C, R = dpk.asarray(c, device=device), dpk.asarray(r, device=device)
    for s, axes in ((None, None), ((3, 8), (0, 2)), (None, (1,)), ((4, 4, 7), (0, 1, 2))):
        for norm in ("backward", "ortho"):
            kw = dict(s=s, axes=axes, norm=norm)
            check(dpk.fft.fftn(C, **kw), np.fft.fftn(c, **kw).astype(dtype), dtype)
            check(dpk.fft.ifftn(C, **kw), np.fft.ifftn(c, **kw).astype(dtype), dtype)
            check(dpk.fft.rfftn(R, **kw), np.fft.rfftn(r, **kw).astype(dtype), dtype)
            check(dpk.fft.irfftn(C, **kw), np.fft.irfftn(c, **kw).astype(rdt), dtype)


def test_freq_and_shift(device):
    for n in (1, 2, 7, 8):
        check(dpk.fft.fftfreq(n, d=0.5, device=device, dtype=dpk.float32),
              np.fft.fftfreq(n, d=0.5).astype(np.float32), "float32")
        check(dpk.fft.rfftfreq(n, device=device, dtype=dpk.float32),
              np.fft.rfftfreq(n).astype(np.float32), "float32")
    if device.has_fp64:
        assert dpk.fft.fftfreq(4, device=device).dtype == dpk.float64
    a = np.arange(15.0, dtype=np.float32).reshape(3, 5)
    x = dpk.asarray(a, device=device)
    check(dpk.fft.fftshift(x), np.fft.fftshift(a), "float32")
    check(dpk.fft.ifftshift(x, axes=1), np.fft.ifftshift(a, axes=1), "float32")
    check(dpk.fft.ifftshift(dpk.fft.fftshift(x)), a, "float32")


def test_errors_and_device(device):
    x = dpk.asarray(data(8, False, "complex64"), device=device)
    y = dpk.fft.fft(x)
    assert y.device is device
    with pytest.raises(ValueError):
        dpk.fft.fft(x, n=0)
    with pytest.raises(ValueError):
        dpk.fft.fft(x, norm="none")
    with pytest.raises(IndexError):
        dpk.fft.fft(x, axis=1)
    with pytest.raises(TypeError):
        dpk.fft.rfft(x)
    with pytest.raises(TypeError):
        dpk.fft.fft(dpk.asarray([1, 2], device=device))


def test_large_pow2_and_bluestein(host):
    for n in (1 << 14, 3 * 1000 + 1):
        a = data(n, False, "complex128", n)
        check(dpk.fft.fft(dpk.asarray(a, device=host)), np.fft.fft(a), "complex128")
