"""Imports the extension dpk._core once, and says clearly why when it cannot."""

from __future__ import annotations

from ._errors import register_with_core

_core = None
_error = None


def core():
    """The dpk._core module; raises ImportError naming the cause when it is missing."""
    global _core, _error
    if _core is not None:
        return _core
    if _error is None:
        try:
            from . import _core as module  # noqa: PLC0415
        except ImportError as exc:
            _error = exc
        else:
            _core = module
            register_with_core(module)
            return _core
    raise ImportError(
        "dpk's compiled extension dpk._core is not available (" + str(_error) + "). Build it "
        "with `pip install .` or with CMake (-DDPK_BUILD_PYTHON=ON, then PYTHONPATH=build/python)"
    ) from _error


def available() -> bool:
    try:
        core()
    except ImportError:
        return False
    return True
