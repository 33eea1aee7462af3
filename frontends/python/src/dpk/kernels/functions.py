"""The decorated functions the kernel compiler recognises when a kernel calls one:
``DeviceFunction`` (``@dpk.device_func``), ``ExternalFunction`` (``dpk.declare_device``: device
code linked from a file, docs/linking.md) and ``KernelFunction``, the base class of the
dispatcher's KernelDispatcher (``@dpk.kernel``).

Imports nothing from dpk, so that the compiler can test ``isinstance`` without importing the
dispatcher, which imports the compiler.
"""

from __future__ import annotations

import functools
import re

import numpy as np


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


_SIGNATURE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _parse_type(text, what, signature):
    """(dtype, is_array) of one type of a signature: "int32", "float64", "bool", or an array
    "float32[:]" / "float32*" (a pointer to the first element of a global array)."""
    text = text.strip()
    is_array = False
    for suffix in ("[:]", "[::1]", "*"):
        if text.endswith(suffix):
            text, is_array = text[: -len(suffix)].strip(), True
            break
    if text in ("bool", "boolean", "bool_"):
        return np.dtype(np.bool_), is_array
    try:
        return np.dtype(text), is_array
    except TypeError:
        raise TypeError(f"dpk.declare_device: {what} type {text!r} of {signature!r} is not a "
                        "NumPy scalar type (int32, float64, bool, ...)") from None


class ExternalFunction:
    """A device function defined outside dpk (``dpk.declare_device``): kernels call it by
    ``name`` with the declared ``signature``, and ``@dpk.kernel(link=[...])`` names the files
    that define it per device (LLVM IR/bitcode, OpenCL C, PTX, CUDA C; docs/linking.md).

    Attributes: ``name``, ``signature`` (the text given), ``restype`` (a NumPy dtype, or None
    for void) and ``argtypes`` (a tuple of ``(dtype, is_array)``)."""

    def __init__(self, name, signature):
        if not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError(f"dpk.declare_device: the name {name!r} must be a C identifier (the "
                             "symbol the linked files define)")
        if not isinstance(signature, str):
            raise TypeError("dpk.declare_device: the signature is a string such as "
                            "'int32(int32, int32)'")
        match = _SIGNATURE.match(signature)
        if not match:
            raise ValueError(f"dpk.declare_device: signature {signature!r} is not of the form "
                             "'restype(argtype, ...)', e.g. 'int32(int32, int32)'")
        self.name = name
        self.signature = signature
        restype = match.group(1)
        if restype == "void":
            self.restype = None
        else:
            dtype, is_array = _parse_type(restype, "result", signature)
            if is_array:
                raise ValueError(f"dpk.declare_device: {signature!r} returns an array; external "
                                 "functions return a scalar or void")
            self.restype = dtype
        args = match.group(2).strip()
        self.argtypes = tuple(_parse_type(a, "argument", signature)
                              for a in args.split(",")) if args else ()
        self.__name__ = name
        self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        raise TypeError(f"{self.name}() is external device code (dpk.declare_device): it can "
                        "only be called inside a kernel or device function")

    def __repr__(self):
        return f"<dpk.declare_device {self.name}: {self.signature}>"

    def __reduce__(self):
        return (ExternalFunction, (self.name, self.signature))


def declare_device(name, signature):
    """Declares a device function defined in a linked file, callable in kernels and device
    functions: ``add = dpk.declare_device("my_add", "int32(int32, int32)")``, then
    ``@dpk.kernel(link=["my_add.cl", "my_add.ll"])`` on the kernels that call it. Argument
    types are NumPy scalar types, or arrays written ``float32[:]``, which the function receives
    as a pointer to the first element of a (contiguous) global array. See docs/linking.md."""
    return ExternalFunction(name, signature)
