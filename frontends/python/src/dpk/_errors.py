"""The exception classes of dpk, one per dpk status, plus the compiler's own.

Every failure of a dpk C call reaches Python through one translator in the extension
(src/ext/errors.cpp), which raises the class registered here for the call's status. Each class
also derives from the built-in exception a Python programmer would expect (ValueError for a bad
range, TypeError for a kernel argument of the wrong type, ...), so generic handlers keep working.
"""

from __future__ import annotations

import re


class DpkError(Exception):
    """Base class of every error dpk raises on purpose."""

    #: The dpk_status_t value this class stands for (None for frontend-only errors).
    status: int | None = None


class InvalidArgumentError(DpkError, ValueError):
    status = -2


class InvalidRangeError(DpkError, ValueError):
    """A local size that does not divide the global size, or sizes over the device's limits."""

    status = -3


class NotFoundError(DpkError, LookupError):
    status = -4


class UnsupportedError(DpkError, NotImplementedError):
    status = -5


class OutOfMemoryError(DpkError, MemoryError):
    status = -6


class OutOfDeviceMemoryError(OutOfMemoryError):
    status = -7


class CompileError(DpkError):
    """A kernel failed to compile (in the frontend, in the core or in a device compiler)."""

    status = -8


class LaunchError(DpkError):
    status = -9


class DeviceError(DpkError):
    status = -10


class PluginLoadError(DpkError):
    status = -11


class AbiMismatchError(PluginLoadError):
    status = -12


class PolicyError(DpkError, ValueError):
    status = -13


class ParseError(DpkError, ValueError):
    status = -14


class VerifyError(CompileError):
    status = -15


class NoDeviceError(DpkError):
    status = -16


class PlacementError(DpkError, ValueError):
    """Arrays of one launch live on different devices (compute follows data)."""

    status = -17


class InvalidHandleError(DpkError, ValueError):
    status = -18


class LinkError(CompileError):
    """Device code linked into a kernel (``@dpk.kernel(link=[...])`` with
    ``dpk.declare_device``) does not fit the device: a declared symbol no linked file defines,
    a definition whose signature differs from the declaration, or a file the device cannot use
    (OpenCL C on the host, PTX on OpenCL, ...). The message names the file, the symbol and the
    device; ``symbol``, ``file`` and ``device`` give them (None where the message has none)."""

    status = -20

    def _find(self, pattern):
        match = re.search(pattern, str(self))
        return match.group(1) if match else None

    @property
    def symbol(self):
        return self._find(r"symbol '([^']+)'")

    @property
    def file(self):
        """The file the failure is about: the one a definition was found in, or the first one
        named (a missing symbol lists every file searched)."""
        return self._find(r"link: ([^:']+?\.(?:ll|bc|cl|ptx|cu)\b)") or \
            self._find(r"([^\s,(]+\.(?:ll|bc|cl|ptx|cu))\b")

    @property
    def device(self):
        """The device's filter string, e.g. 'opencl:cpu:0'."""
        return self._find(r"compiling kernel '[^']*' for .*?\(([a-z_]+:[a-z]+:\d+)\)")


class DeviceMismatchError(PlacementError):
    """The arrays of one array operation live on different devices (compute follows data):
    the message names the operation and both devices and suggests ``x.to_device(...)``."""

    status = None


class ShapeError(DpkError, ValueError):
    """Array shapes that do not broadcast or do not fit an operation; the message names the
    operation and the shapes."""


class DTypeError(DpkError, TypeError):
    """An array operation given a data type it does not accept; the message names the operation
    and the dtypes."""


class BoundsError(DpkError, IndexError):
    """An integer index out of the bounds of an array dimension: array indexing, and kernels in
    bounds-check mode (``@dpk.kernel(boundscheck=True)``, ``DPK_BOUNDSCHECK=1``), whose message
    names the kernel, its file:line, the array, the index and the shape."""

    status = -19


class BufferExportError(UnsupportedError, BufferError):
    """An array cannot be handed out as asked through DLPack or the buffer protocol: its memory
    is not addressable by the consumer (device memory), or a copy would be needed and
    ``copy=False`` forbids it. A ``BufferError``, as the Array API standard specifies."""

    status = None


class KernelTypeError(DpkError, TypeError):
    """A kernel was called with arguments it cannot take (type, count, range kind)."""


class KernelSyntaxError(CompileError):
    """The kernel uses Python the compiler does not support.

    Attributes: ``filename``, ``lineno``, ``source_line`` (the offending line) and ``hint``
    (what is supported instead).
    """

    def __init__(self, message, filename=None, lineno=None, source_line=None, hint=None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.source_line = source_line
        self.hint = hint
        text = message
        if filename is not None:
            text = f"{filename}:{lineno}: {message}"
        if source_line:
            text += f"\n    {source_line.strip()}"
        if hint:
            text += f"\n  hint: {hint}"
        super().__init__(text)


class ForeignNameError(DpkError, AttributeError):
    """A name of numba-dpex, numba-dppy, numba.cuda or dpctl that dpk does not provide; the
    message (and ``hint``) names the dpk equivalent."""

    def __init__(self, message, name=None, hint=None):
        self.hint = hint
        super().__init__(message + (f"\n  hint: {hint}" if hint else ""))
        self.name = name


class KernelSourceError(KernelSyntaxError):
    """The source of a kernel cannot be found and its bytecode cannot be read back (e.g. a
    construct the bytecode reader does not know, under some Python version)."""


_BY_STATUS = {
    cls.status: cls
    for cls in (
        InvalidArgumentError, InvalidRangeError, NotFoundError, UnsupportedError,
        OutOfMemoryError, OutOfDeviceMemoryError, CompileError, LaunchError, DeviceError,
        PluginLoadError, AbiMismatchError, PolicyError, ParseError, VerifyError, NoDeviceError,
        PlacementError, InvalidHandleError, BoundsError, LinkError,
    )
}
_BY_STATUS[-1] = DpkError


def error_class_for_status(status: int) -> type:
    """The exception class raised for a dpk status (DpkError for unknown ones)."""
    return _BY_STATUS.get(status, DpkError)


def register_with_core(core) -> None:
    """Hands the classes to the extension's status translator."""
    core._set_error_classes(dict(_BY_STATUS))


# Users see and catch these as dpk.<Name>.
for _cls in list(_BY_STATUS.values()) + [KernelTypeError, KernelSyntaxError, BufferExportError,
                                          DeviceMismatchError,
                                          ShapeError, DTypeError]:
    _cls.__module__ = "dpk"
del _cls
