"""The standard's inspection namespace: ``dpk.__array_namespace_info__()``.

Devices are dpk's (every device the policy allows); default dtypes are float64, complex128,
int64, int64 (float32 and complex64 on devices without fp64); capabilities: boolean indexing and data-dependent shapes
yes, at most 64 dimensions (views have no limit of their own; kernels index any rank).
"""

from __future__ import annotations

from .._runtime.devices import get_current_device, get_devices, select_device
from . import dtypes as D


class Info:
    """What ``__array_namespace_info__()`` returns."""

    __module__ = "dpk"

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self):
        return get_current_device()

    def default_dtypes(self, *, device=None):
        device = get_current_device() if device is None else select_device(device)
        return {"real floating": D.default_float(device),
                "complex floating": D.default_complex(device),
                "integral": D.DEFAULT_INT, "indexing": D.DEFAULT_INDEX}

    def dtypes(self, *, device=None, kind=None):
        device = get_current_device() if device is None else select_device(device)
        out = {}
        for d in D.ALL_TYPES:
            if (d == D.float64 or d == D.complex128) and not device.has_fp64:
                continue
            if kind is None or D.isdtype(d, kind):
                out[D.name(d)] = d
        return out

    def devices(self):
        return list(get_devices())


def __array_namespace_info__():
    return Info()
