"""The decorated functions the kernel compiler recognises when a kernel calls one:
``DeviceFunction`` (``@dpk.device_func``) and ``KernelFunction``, the base class of the
dispatcher's KernelDispatcher (``@dpk.kernel``).

Imports nothing from dpk, so that the compiler can test ``isinstance`` without importing the
dispatcher, which imports the compiler.
"""

from __future__ import annotations

import functools


class KernelFunction:
    """What the compiler knows of a ``@dpk.kernel``: that it is one (a kernel cannot call
    another kernel). The dispatcher's KernelDispatcher is the implementation."""

    __slots__ = ()


class DeviceFunction:
    """A function kernels can call (``dpk.device_func``); plain Python when called outside.

    The compiler parses ``py_func`` and compiles one specialization per argument types of the
    calls it meets."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.py_func = fn

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)

    def __repr__(self):
        return f"<dpk.device_func {self.__name__}>"
