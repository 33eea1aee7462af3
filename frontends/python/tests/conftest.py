"""Shared fixtures: the dpk devices tests run on, and the extension requirement.

Tests that need the compiled extension use the `device` fixture (or `core`); when the extension
cannot be imported they FAIL with the import error, never skip: a CI run without it must not
look green. The pure-Python tests (kernel_api simulation) need no extension.
"""

import os

import pytest


def _device_filters():
    """'host' always; then each of 'opencl:cpu', 'cuda:gpu' and 'opencl:gpu' that the policy
    offers on this machine (so the GPU machine sweeps its GPUs without being told)."""
    filters = ["host"]
    try:
        import dpk
        for optional in ("opencl:cpu", "cuda:gpu", "opencl:gpu"):
            if dpk.has_device(optional):
                filters.append(optional)
    except ImportError:
        pass  # the `device` fixture reports the missing extension
    extra = os.environ.get("DPK_TEST_DEVICES")
    if extra:
        filters = [f for f in extra.split(";") if f]
    return filters


DEVICE_FILTERS = _device_filters()


@pytest.fixture(scope="session")
def core():
    from dpk import _core_loader
    return _core_loader.core()  # raises ImportError (a failure) when the extension is missing


@pytest.fixture(params=DEVICE_FILTERS)
def device(request, core):
    import dpk
    return dpk.select_device(request.param)


@pytest.fixture
def host(core):
    import dpk
    return dpk.select_device("host")


def run_on(device, kernel, index_range, *args):
    """Launches on `device`: NumPy arrays become dpk arrays there (compute follows data), and
    their results are copied back."""
    import numpy as np

    import dpk
    staged, back = [], []
    for a in args:
        if isinstance(a, np.ndarray) and a.ndim > 0:
            d = dpk.asarray(a, device=device)
            staged.append(d)
            back.append((a, d))
        else:
            staged.append(a)
    dpk.call_kernel(kernel, index_range, *staged)
    for a, d in back:
        a[...] = d.asnumpy()
