"""Kernel launches whose arguments do not agree on a device, and the launches that move data
for them.

Compute follows data: a launch runs on the device of its dpk arrays. When they live on
different devices, the policy key ``placement.mixed_devices`` (or DPK_MIXED_DEVICES) decides
(dpk._runtime.policy reads it and picks the target device):
  - ``error`` (default): PlacementError naming every device, as dpctl does;
  - ``migrate``: the launch runs on the *target* device, the one the policy ranks highest among
    the arrays' devices (the order of ``dpk.get_devices()``, i.e. ``devices.prefer``); a kernel
    bound with ``device=`` uses that device instead. Arrays elsewhere are copied to the target,
    the kernel runs, and every array the kernel may write is copied back into the original.
    Diagnostics level 3 reports each copy as a ``placement.migrate`` record.

NumPy arrays on a device that cannot read host memory are copied there and back the same way;
a kernel's ``access_types`` (numba-dppy) skip the copy there of ``write_only`` arrays and the copy
back of ``read_only`` ones.

Foreign arrays (``__cuda_array_interface__`` or ``__dlpack__`` producers that are not NumPy
arrays) are imported per launch: CUDA memory is wrapped as a dpk array on its CUDA device without
a copy, CPU DLPack tensors become NumPy views (also without a copy).
"""

from __future__ import annotations

import numpy as np

from ..arrays import fusion as _fusion
from .._core_loader import core
from .._errors import DpkError, OutOfMemoryError, PlacementError, UnsupportedError
from .._runtime import devices as _devices
from .._runtime.devices import context_device, get_devices
from .._runtime.policy import mixed_devices_mode
from ..arrays.array_object import (KDL_CUDA, KDL_CUDA_MANAGED, Array, asarray, dlpack_device_of,
                                   empty)


def check_placement(found, bound, kernel_name):
    """Raises for arrays of several devices (PlacementError) or arrays away from the kernel's
    bound device (DpkError), unless the policy says migrate."""
    mode, origin = mixed_devices_mode()
    if mode == "migrate":
        return
    hint = ("; set placement.mixed_devices: migrate in the policy (or DPK_MIXED_DEVICES="
            f"migrate) to let dpk copy them (placement.mixed_devices is {mode}"
            f"{' from ' + origin if origin else ''})")
    if len(found) == 1:
        raise DpkError(f"kernel {kernel_name}() is bound to {bound.filter_string} but its arrays "
                       f"live on {found[0].filter_string}{hint}")
    names = ", ".join(d.filter_string for d in found)
    raise PlacementError(f"the arrays of one launch of kernel {kernel_name}() live on different "
                         f"devices ({names}); move them to one device with .to_device(){hint}")


def _report(kernel_name, index, array, source, destination, direction):
    c = core()
    if c.diagnostics_enabled(3):
        c.emit_diagnostic(3, "placement.migrate", {
            "kernel": kernel_name, "argument": index + 1, "from": source.filter_string,
            "to": destination.filter_string, "bytes": array.nbytes, "direction": direction})


class DoneEvent:
    """The event of an async launch that had to run synchronously (copies between devices)."""

    def wait(self):
        return None

    def status(self):
        return 2


def staged_launch(dispatcher, target, kinds, written, kernel_name, access, index_range, args,
                  deps, is_async):
    """Runs one launch on `target` with every array there: NumPy arrays ('V') and dpk arrays of
    other devices ('D') are copied to it, and those the kernel may write (the compiler's
    `written` indices) are copied back afterwards. `access` (None, or an access type per
    argument) skips copying write_only NumPy arrays there and read_only ones back.
    Synchronous: the copies back need the results."""
    for event in deps or ():
        event.wait()  # the copies below must see the work the caller ordered before the launch
    try:
        staged, copies = _stage(target, kinds, kernel_name, access, args)
    except OutOfMemoryError as exc:
        # Staging is part of the launch: out of memory there is the policy's out_of_memory
        # failure, which may send the kernel to the host (with its warning) like the core's own.
        if target.is_host:
            raise
        host = _devices._wrap(core().fallback_device(kernel_name, target.filter_string,
                                                     exc.status, str(exc)))
        _host_fallback(dispatcher, host, written, index_range, args)
        return DoneEvent() if is_async else None
    if _fusion._pending_refs:  # lazy results reading memory the kernel may write
        _fusion.flush_arguments(staged)
    dispatcher._launcher_for(target).call(index_range, tuple(staged), None, False)
    written_ids = {id(args[i]) for i in written
                   if not (kinds[i] == "V" and access and access[i] == "read_only")}
    for i, original, moved in copies.values():
        if id(original) not in written_ids:
            continue
        if isinstance(original, Array):
            original._copy_from_host(moved.asnumpy())
            _report(kernel_name, i, original, target, original.device, "back")
        else:
            host = _numpy_view(original)
            if host.flags.writeable:
                host[...] = moved.asnumpy()
    return DoneEvent() if is_async else None


def _numpy_view(buffer):
    """A NumPy view of a buffer argument (bytes and bytearray as uint8, not as strings)."""
    return buffer if isinstance(buffer, np.ndarray) else np.asarray(memoryview(buffer))


def _host_fallback(dispatcher, host, written, index_range, args):
    """Runs a launch on the host device: NumPy arrays in place, dpk arrays of other devices
    copied there and, when written, back."""
    moved = [a.to_device(host) if isinstance(a, Array) and a.device is not host else a
             for a in args]
    dispatcher._launch_on(host, index_range, moved)
    for i in written:
        if moved[i] is not args[i]:
            args[i]._copy_from_host(moved[i].asnumpy())


def _stage(target, kinds, kernel_name, access, args):
    """(staged arguments, copies) of a launch on `target`: see staged_launch."""
    staged = []
    copies = {}  # id -> (index, original, copy): an array passed twice is copied once
    for i, (a, k) in enumerate(zip(args, kinds)):
        needs_copy = (k == "V" and not target.is_host) or (k == "D" and a.device is not target)
        if not needs_copy:
            staged.append(a)
            continue
        if id(a) not in copies:
            if k == "V":
                host = _numpy_view(a)
                if access and access[i] == "write_only":
                    moved = empty(host.shape, host.dtype, device=target)
                else:
                    moved = asarray(host, device=target)
            else:
                moved = a.to_device(target)
                _report(kernel_name, i, a, a.device, target, "to_target")
            copies[id(a)] = (i, a, moved)
        staged.append(copies[id(a)][2])
    return staged, copies


# ---- foreign arrays --------------------------------------------------------------------------

def is_foreign(a):
    """A device or DLPack array of another library (not NumPy, not dpk, not a number)."""
    if isinstance(a, (np.ndarray, np.generic, Array, bool, int, float)):
        return False
    return hasattr(a, "__cuda_array_interface__") or hasattr(a, "__dlpack__")


def import_foreign(a):
    """A foreign array as a kernel argument without copying: CUDA memory as a dpk array on its
    CUDA device, a CPU DLPack tensor as a NumPy view."""
    kind, _ = dlpack_device_of(a) if hasattr(a, "__dlpack__") else (None, None)
    if kind in (KDL_CUDA, KDL_CUDA_MANAGED):
        return asarray(a)  # zero-copy on the producer's own CUDA device
    if hasattr(a, "__cuda_array_interface__"):
        # The interface names no device; like dpk.asarray, take the first CUDA device.
        cuda = [d for d in get_devices() if d.backend == "cuda"]
        if not cuda:
            raise UnsupportedError("a __cuda_array_interface__ kernel argument needs a CUDA "
                                   "device in dpk; none is available")
        return asarray(a, device=cuda[0])
    try:
        return np.from_dlpack(a)
    except (RuntimeError, BufferError, TypeError) as exc:
        raise UnsupportedError(f"cannot use this DLPack array (device type {kind}) as a kernel "
                               f"argument: {exc}") from None


def importing_launch(dispatcher, index_range, args, deps, is_async):
    """Imports the foreign arguments, then launches as if dpk or NumPy arrays had been given
    (the foreign objects stay alive through the imported arrays that own them)."""
    imported = tuple(import_foreign(a) if is_foreign(a) else a for a in args)
    if _fusion._pending_refs:  # lazy results reading memory the kernel may write
        _fusion.flush_arguments(imported)
    return dispatcher._launcher_for(context_device()).call(index_range, imported, deps, is_async)
