"""Kernels the array layer generates: building them in IR, caching them, launching them.

A ``KernelBuilder`` declares a kernel's parameters (array operands as ``view<global, T, 1>``
whose pointer is the operand's element 0, scalars as i64/f64/bool), then emits the body through
the C++ IR builder (``dpk._core.Builder``, the builder every programming model uses). A
``GeneratedKernel`` is the dpk program made from the module's text: the core compiles it per
device on first launch and caches the result in memory and on disk (``DPK_CACHE_DIR``), so a
new process finds the device code of every kernel it has generated before.

``cached(key, build)`` is the in-process cache: ``key`` describes everything the IR depends on
(operation graph, dtypes, stride classes, rank), never sizes or scalar values, so a Python loop
over the same expression builds its kernel once. Launches go through the C++ fast path
(dpk._runtime.launch) with small argument objects, synchronously on the device's in-order queue.

``STATS`` counts builds, cache hits and launches (the fusion tests count kernels with it).
"""

from __future__ import annotations

import collections
import os
import threading
import weakref

import numpy as np

from .. import _core_loader
from .._ir import builder as B
from .._ir import types as T
from .._runtime import diagnostics
from .._runtime.launch import NdRangeBase, make_launcher

STATS = {"builds": 0, "hits": 0, "launches": 0}

_cache = {}
_lock = threading.Lock()
_I64 = np.dtype(np.int64)


class ViewArg:
    """A kernel argument over device memory, as the launch fast path reads dpk arrays: a 1-D
    view descriptor (pointer to element 0; shape and stride unused by generated kernels)."""

    __slots__ = ("_dpk_view", "_dpk_sig", "_device", "_keep")

    def __init__(self, ptr, device, keep=None):
        self._dpk_view = (ptr, 1, (1,), (1,))
        self._dpk_sig = _device_sig(device)
        self._device = device
        self._keep = keep


_sigs = {}
_view_args = {}
VIEW_ARG_LIMIT = 4096


def view_arg(ptr, device):
    """The ViewArg of address `ptr` on `device`, made once per address: pooled result blocks
    and long-lived arrays come back launch after launch, and a ViewArg holds nothing alive, so
    one object serves every launch at that address (a dict lookup instead of a new object and
    its descriptor tuple on each launch)."""
    key = (ptr, device)
    arg = _view_args.get(key)
    if arg is None:
        if len(_view_args) >= VIEW_ARG_LIMIT:
            _view_args.clear()
        arg = _view_args[key] = ViewArg(ptr, device)
    return arg


def _device_sig(device):
    sig = _sigs.get(device)
    if sig is None:
        sig = _sigs[device] = f"G@{device._dev.handle}"
    return sig


class NdRange(NdRangeBase):
    """An NdRange launch of a generated kernel."""

    __slots__ = ()


class GeneratedKernel:
    """One generated kernel: its program, and a launcher whose plans are per device."""

    def __init__(self, name, module, kinds, ir_text):
        core = _core_loader.core()
        self.name = name
        self.kinds = kinds
        self.ir = ir_text
        # dpk's own array kernels index within their shapes by construction: never checked,
        # so DPK_BOUNDSCHECK=1 slows down only the user's kernels.
        self.program = core.Program.from_ir(ir_text, name, False)
        self.kernel = core.Kernel(self.program, name)
        self.launcher = make_launcher(weakref.WeakMethod(self._miss))

    def _miss(self, index_range, args):
        device = next(a._device for a in args if isinstance(a, ViewArg))
        return (self.kernel, device.queue, self.kinds)

    def launch(self, index_range, args):
        STATS["launches"] += 1
        # Asynchronous launches ask for no event (want_event=False): nothing here ever waits
        # for one launch, and an event costs a record, a Python object and a status query per
        # launch (several microseconds of a one-element `x + 1` on a GPU). The device's wait
        # reports a failed launch by its kernel's name (core/runtime/Queue.h).
        self.launcher.call(index_range, tuple(args), None, not waits_at_once(args[0]._device),
                           False)


# Launches on devices other than the host do not wait (DPK_ARRAY_ASYNC=0: they do): the device's
# queue is in order, so later kernels, copies to the host (asnumpy, index flags) and copies
# into arrays come after them, and freed result memory goes back to a pool whose blocks only
# later commands of the same queue use (memory.py synchronizes before really freeing).
# Generated kernels launch without events; the vendor GEMMs' events (blas.py) are kept here
# until they complete (an event of an async launch holds the launch's arguments and waits when
# dropped before completion). The host device stays synchronous: NumPy views and zero-copy
# wraps read its memory directly.
ASYNC = os.environ.get("DPK_ARRAY_ASYNC", "1").strip().lower() not in ("0", "off", "false")
_IN_FLIGHT = 64
_events = {}


def waits_at_once(device):
    """Whether array work on `device` is waited for as it is submitted (the host, or every
    device with DPK_ARRAY_ASYNC=0) rather than tracked with track_event."""
    return not ASYNC or device.is_host


def track_event(device, event):
    queue = _events.get(device)
    if queue is None:
        queue = _events[device] = collections.deque()
    queue.append(event)
    while queue and (len(queue) > _IN_FLIGHT or queue[0].status() >= 2):
        queue.popleft().wait()  # complete or the oldest of too many: waiting is cheap or due


def read_back(device, dst, src, nbytes):
    """Copies `nbytes` of device memory at `src` to the host address `dst`, and waits for the
    copy and for everything before it on the device's queue. Array launches carry no events, so
    a kernel that failed after its launch returned is raised here, by the queue's wait (which
    names it), instead of its output being read as data."""
    device.queue.read(dst, src, nbytes)


def read_into(device, out, src, nbytes):
    """read_back into `out`, a writable C-contiguous NumPy array (its address found through the
    buffer protocol: NumPy's ``ctypes.data`` costs microseconds)."""
    device.queue.read_into(out, src, nbytes)


def read_scalar(device, src, dtype):
    """The element of `dtype` at device address `src` as a Python number, read as read_back
    reads (no NumPy array is made: ``float(dpk.sum(x))`` ends here)."""
    return device.queue.read_scalar(src, dtype.char)


def synchronize(device):
    """Waits for every array kernel on device and raises the first failure."""
    queue = _events.pop(device, None)
    device.synchronize()
    while queue:
        queue.popleft().wait()


def cached(key, build):
    """The kernel for `key`, built by ``build()`` (which returns a GeneratedKernel) once."""
    kernel = _cache.get(key)
    if kernel is not None:
        STATS["hits"] += 1
        return kernel
    with _lock:
        kernel = _cache.get(key)
        if kernel is None:
            kernel = build()
            _cache[key] = kernel
            STATS["builds"] += 1
            diagnostics.emit(2, "arrays.kernel_built", {"kernel": kernel.name,
                                                        "cached_kernels": len(_cache)})
        else:
            STATS["hits"] += 1
    return kernel


class Recipes(dict):
    """Launch recipes keyed by everything they depend on (reduction.py and fusion.py: the
    geometry, kernels and size arguments of one shape): a dict, read with ``get`` on the launch
    path, filled with ``keep``, which starts over when `limit` recipes are kept rather than grow
    without bound in a program of ever new shapes."""

    def __init__(self, limit=1024):
        super().__init__()
        self.limit = limit

    def keep(self, key, recipe):
        """Keeps `recipe` (not a None: a launch that needs something else) and returns it."""
        if recipe is not None:
            if len(self) >= self.limit:
                self.clear()
            self[key] = recipe
        return recipe


def cache_size():
    return len(_cache)


class KernelBuilder:
    """Declares a kernel's parameters, then emits its body (``begin()`` creates the function).

    ``view(dtype)`` declares an array operand (kind 'D'), ``scalar(dtype)`` a number passed as
    i64 / f64 / bool (kinds 'i', 'f', 'b'); each returns the parameter's index, and after
    ``begin()`` ``ptr(i)`` / ``param(i)`` give its IR value (for views: a pointer to element 0)."""

    def __init__(self, name):
        self.core = _core_loader.core()
        self.name = name
        self.types = []
        self.names = []
        self.kinds = []
        self.pointers = {}

    def view(self, dtype, name="a"):
        core = self.core
        self.types.append(core.Type.view(core.AddressSpace.Global, T.scalar_kind(dtype), 1))
        self.names.append(f"{name}{len(self.types)}")
        self.kinds.append("D")
        return len(self.types) - 1

    def scalar(self, dtype, name="s"):
        """A scalar parameter carrying a value of `dtype`: ints travel as i64, floats as f64,
        bools as bool (the launch packs Python ints, floats and bools so)."""
        dtype = np.dtype(dtype)
        kind = "b" if dtype.kind == "b" else "f" if dtype.kind == "f" else "i"
        carrier = {"b": np.dtype(np.bool_), "f": np.dtype(np.float64), "i": _I64}[kind]
        self.types.append(T.ir_scalar(carrier))
        self.names.append(f"{name}{len(self.types)}")
        self.kinds.append(kind)
        return len(self.types) - 1

    def carrier(self, carrier, name="s"):
        """A scalar parameter of carrier kind 'i' (i64), 'f' (f64) or 'b' (bool)."""
        dtype = {"b": np.bool_, "f": np.float64, "i": np.int64}[carrier]
        return self.scalar(dtype, name)

    def begin(self):
        core = self.core
        self.module = core.Module()
        self.b = core.Builder(self.module)
        fn = self.b.create_function(self.name, True, self.types, self.names, core.Type.void())
        self.params = fn.params
        for i, kind in enumerate(self.kinds):
            if kind == "D":
                self.pointers[i] = self.b.view_ptr(self.params[i])
        return self.b

    def ptr(self, i):
        return self.pointers[i]

    def param(self, i):
        return self.params[i]

    def scalar_value(self, i, dtype):
        """Scalar parameter `i` converted to `dtype` from its carrier type."""
        kind = self.kinds[i]
        carrier = {"b": np.dtype(np.bool_), "f": np.dtype(np.float64), "i": _I64}[kind]
        return B.convert(self.b, self.params[i], carrier, dtype)

    # ---- small emit helpers --------------------------------------------------------------

    def const(self, dtype, value):
        return B.const(self.b, dtype, value)

    def i64(self, value):
        return B.const(self.b, _I64, value)

    def op(self, kind, x, y):
        return self.b.binary(getattr(self.core.OpKind, kind), x, y)

    def cmp(self, pred, x, y):
        return self.b.cmp(getattr(self.core.CmpPredicate, pred), x, y)

    def work_item(self, kind, dim):
        return self.b.work_item(getattr(self.core.OpKind, kind), dim)

    def alloca(self, dtype, count=1):
        return self.b.private_alloc(T.scalar_kind(dtype), count)

    def local(self, dtype, count):
        return self.b.local_alloc(T.scalar_kind(dtype), count)

    def load(self, ptr, idx, align=0):
        """``ptr[idx]``; `align` (bytes): a promise that the address is a multiple of it, which
        lets GPU code generators merge it with the next elements' loads into a vector load."""
        return self.b.load(ptr, idx, align)

    def store(self, ptr, idx, value, nontemporal=False, align=0):
        """``ptr[idx] = value``; `nontemporal`: a hint that the line is not read again soon
        (the host writes such stores around its caches when it combines them into vectors);
        `align`: as for load."""
        self.b.store(ptr, idx, value, nontemporal, align)

    def in_block(self, block):
        self.b.set_insertion_point(block)

    def finish(self):
        module = self.module
        core = self.core
        if getattr(core, "HAVE_VERIFIER", False):
            module.verify()
        text = module.print(locations=False)
        return GeneratedKernel(self.name, module, "".join(self.kinds), text)


class Block:
    """``with Block(kb, block):`` emits into `block` and returns to the previous insertion
    point afterwards."""

    def __init__(self, kb, block):
        self.kb = kb
        self.block = block

    def __enter__(self):
        self.outer = self.kb.b.insertion_block
        self.kb.b.set_insertion_point(self.block)
        return self.block

    def __exit__(self, *exc):
        self.kb.b.set_insertion_point(self.outer)
        return False


def then_block(op):
    return _core_loader.core().Builder.then_block(op)


def else_block(op):
    return _core_loader.core().Builder.else_block(op)


def for_loop(kb, lo, hi, step, name="k"):
    """Creates ``for iv = lo to hi step step``; returns (body block, induction variable)."""
    op = kb.b.create_for(lo, hi, step, name)
    core = _core_loader.core()
    return core.Builder.for_body(op), core.Builder.for_induction_var(op)
