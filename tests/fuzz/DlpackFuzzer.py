"""DlpackFuzzer.py - fuzzes dpk's DLPack importer (dpk.from_dlpack) with hostile producers.

Each case is decoded from a string of bytes (so a case is a file, and any byte string is a
case): a producer object whose ``__dlpack__`` returns a capsule built with ctypes - a DLPack 1.0
``DLManagedTensorVersioned`` or a legacy ``DLManagedTensor`` - with mutated version, flags,
device, ndim, shape (negative, huge, products that overflow), strides (NULL, negative, zero,
huge), dtype code/bits/lanes, byte_offset and data pointer (NULL, wild, misaligned, next to a
guard page), capsule names, and a ``__dlpack_device__`` that agrees, disagrees, raises or
returns junk.

The element data, the shape array and the strides array each end at a page that is mapped
PROT_NONE, so reading one byte past what the producer described kills the process. What each
case must give (the promises of docs/reliability.md):
  - no crash, ever (the parent runs cases in a worker process and reports the case it died on);
  - an exception is a dpk error (``dpk.DpkError``) or the producer's own; no TypeError,
    OverflowError, SystemError from inside dpk;
  - a tensor that is malformed in a way the importer can see (a name that is no DLPack
    capsule, a major version other than 1, ndim < 0 or > 64, no shape array, a negative
    extent, an element type dpk arrays lack, memory not on the host, a NULL or wrapping data
    address, an element count or byte extent beyond the address space) is refused;
  - an accepted tensor has the producer's shape and element type, and when it lies inside the
    producer's buffer its elements read back exactly as written;
  - the producer's deleter runs exactly once when the importer took the tensor (the capsule
    was renamed "used_..."), after the dpk array is gone, and never when it did not.

Usage (python is the venv's, with dpk importable, e.g. PYTHONPATH=build/python):
  DlpackFuzzer.py run [--seconds S] [--seed N] [--batch B] [--artifacts DIR] [--corpus DIR]
      generate cases from seeds N, N+1, ... (and mutate the corpus files) for S seconds in
      worker processes of B cases each; prints executions and findings; exit 1 on a finding
  DlpackFuzzer.py replay FILE_OR_DIR...   run the given case files in one process
  DlpackFuzzer.py worker ...              (internal) run cases, one "case" line before each
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import os
import random
import subprocess
import sys
import time

PAGE = os.sysconf("SC_PAGE_SIZE")
DATA_PAGES = 16
CASE_BYTES = 160

# ---- DLPack's C ABI (dlpack.h v1.0) --------------------------------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_long]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


class GuardedRegion:
    """`pages` read-write pages between two PROT_NONE pages: [start, end) is addressable."""

    def __init__(self, pages):
        total = (pages + 2) * PAGE
        base = _libc.mmap(None, total, 3, 0x22, -1, 0)  # RW, MAP_PRIVATE | MAP_ANONYMOUS
        if base in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap failed")
        _libc.mprotect(base, PAGE, 0)
        _libc.mprotect(base + (pages + 1) * PAGE, PAGE, 0)
        self.start = base + PAGE
        self.end = self.start + pages * PAGE


# ---- decoding a case from bytes ------------------------------------------------------------------

class Source:
    """Reads decisions from the case's bytes; zeros once they run out."""

    def __init__(self, data):
        self.data = data
        self.at = 0

    def byte(self):
        if self.at >= len(self.data):
            return 0
        self.at += 1
        return self.data[self.at - 1]

    def below(self, n):
        value = self.byte() | self.byte() << 8
        return value % n

    def u64(self):
        value = 0
        for i in range(8):
            value |= self.byte() << (8 * i)
        return value

    def pick(self, options):
        return options[self.below(len(options))]

    def chance(self, per256):
        return self.byte() < per256


HUGE = [2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**62, 2**63 - 1, 2**40, 3 * 2**61]



_CUDA_DEVICES = None


def _cuda_device_count():
    """How many cuda:gpu devices dpk sees here (0 on machines without CUDA)."""
    global _CUDA_DEVICES
    if _CUDA_DEVICES is None:
        import dpk
        _CUDA_DEVICES = sum(1 for d in dpk.get_devices() if d.filter_string.startswith("cuda:"))
    return _CUDA_DEVICES

def _int64(value):
    return (value + 2**63) % 2**64 - 2**63


FIELDS = ("capsule", "version", "flags", "device", "dlpack_device", "kwargs", "dtype", "ndim",
          "shape", "strides", "byte_offset", "data")


def decode(data):
    """The case that `data` describes, as a dict of plain values. Half the cases are a valid
    tensor with one or two fields made hostile (so the importer's later checks are reached),
    the other half may have every field hostile."""
    s = Source(data)
    if s.chance(128):
        hostile = {FIELDS[s.below(len(FIELDS))] for _ in range(1 + s.below(2))}
    else:
        hostile = set(FIELDS)
    bad = lambda field, per256: field in hostile and s.chance(per256)  # noqa: E731
    case = {}
    case["capsule"] = s.pick(["versioned", "versioned", "legacy"])
    if bad("capsule", 96):
        case["capsule"] = s.pick(["used", "bogus-name", "no-name", "not-a-capsule",
                                  "producer-raises", "no-dlpack"])
    case["major"], case["minor"] = 1, s.pick([0, 0, 1, 3, 2**32 - 1])
    if bad("version", 128):
        case["major"] = s.pick([0, 2, 255, 2**32 - 1])
    case["flags"] = s.pick([0, 1, 2, 3]) if not bad("flags", 128) else s.u64()
    case["device"] = s.pick([(1, 0), (1, 0), (1, 0), (3, 0)])
    if bad("device", 160):
        case["device"] = (s.pick([2, 4, 7, 8, 10, 13, 14, 0, -1, 2**31 - 1, -2**31]),
                          s.pick([0, 1, -1, 2**31 - 1]))
    case["dlpack_device"] = s.pick(["same", "same", "absent"])
    if bad("dlpack_device", 160):
        case["dlpack_device"] = s.pick(["cpu", "cuda", "raises", "junk"])
    case["kwargs"] = s.pick([True, True, True, False])
    case["code"], case["bits"] = s.pick(sorted(SUPPORTED))
    case["lanes"] = 1
    if bad("dtype", 192):
        case["code"] = s.pick([0, 1, 2, 6, 3, 4, 5, 7, 8, 255])
        case["bits"] = s.pick([8, 16, 32, 64, 0, 1, 4, 12, 24, 128, 255])
        case["lanes"] = s.pick([1, 1, 0, 2, 4, 65535])
    ndim = s.below(5)
    if bad("ndim", 96):
        ndim = s.pick([-1, -2**31, 8, 64, 65, 1000, 2**31 - 1])
    case["ndim"] = ndim
    listed = max(0, min(ndim, 64))
    shape = [s.below(7) for _ in range(listed)]
    for d in range(listed):
        if bad("shape", 48):
            shape[d] = s.pick([-1, -2**63, 0] + HUGE)
    case["shape"] = shape
    case["shape_null"] = bad("shape", 24)
    mode = s.pick(["null", "null", "contiguous", "permuted", "negative", "zero"])
    if bad("strides", 96):
        mode = "random"
    strides = None
    if mode != "null":
        strides, step = [0] * listed, 1
        for d in reversed(range(listed)):
            strides[d] = step
            step *= max(shape[d], 1)
        if mode == "permuted":
            random.Random(s.byte()).shuffle(strides)
        elif mode == "negative":
            strides = [-x if s.chance(128) else x for x in strides]
        elif mode == "zero":
            strides = [0 if s.chance(128) else x for x in strides]
        elif mode == "random":
            strides = [s.pick([0, 1, -1, 2, 3, -7, 64] + HUGE + [-h for h in HUGE])
                       for _ in strides]
    case["strides"] = strides
    case["byte_offset"] = s.pick([0, 0, 0, 8, 64])
    if bad("byte_offset", 128):
        case["byte_offset"] = s.pick([1, 2, 4, PAGE, 2**63, 2**64 - 1, 2**64 - 8])
    case["data"] = s.pick(["end", "start"])
    if bad("data", 128):
        case["data"] = s.pick(["null", "wild", "misaligned", "top"])
    case["fill"] = s.byte()
    return case


# ---- building the producer ---------------------------------------------------------------------

class ProducerError(Exception):
    """What a producer raises on purpose: may propagate out of from_dlpack."""


KDL_CPU, KDL_CUDA_HOST = 1, 3
SUPPORTED = {(0, 8), (0, 16), (0, 32), (0, 64), (1, 8), (1, 16), (1, 32), (1, 64),
             (2, 16), (2, 32), (2, 64), (5, 64), (5, 128),
             (6, 8)}  # (code, bits) of dpk's array element types
NUMPY_KIND = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}


class Deleters:
    """Counts the deleter calls of each managed tensor (by manager_ctx)."""

    def __init__(self):
        self.calls = {}
        self.callback = DELETER(self._called)
        # Every managed tensor of the process stays allocated, so no two cases share an
        # address (and a late deleter call cannot land on another case's tensor).
        self.kept = []

    def _called(self, address):
        self.calls[address] = self.calls.get(address, 0) + 1


class Arena:
    """The guarded pages every case's data, shape and strides go into."""

    def __init__(self):
        self.data = GuardedRegion(DATA_PAGES)
        self.shape = GuardedRegion(1)
        self.strides = GuardedRegion(1)


def _int64_array_at_end(region, values):
    """Writes int64 values so that the last ends where the region does; returns the address."""
    address = region.end - 8 * len(values)
    array = (ctypes.c_int64 * len(values)).from_address(address)
    for i, value in enumerate(values):
        array[i] = _int64(value)
    return address


def element_count(shape):
    count = 1
    for extent in shape:
        count *= extent
    return count


def build(case, arena, deleters):
    """The producer for `case` and what it takes: (producer, info) where info holds the capsule,
    its managed tensor's address and the expected layout."""
    info = {"capsule": None, "managed": None}
    ndim, shape = case["ndim"], case["shape"]
    itemsize = max(case["bits"] // 8, 1)
    real_shape = [max(extent, 0) for extent in shape]
    strides = case["strides"]
    if strides is None:
        strides, step = [0] * len(shape), 1
        for d in reversed(range(len(shape))):
            strides[d] = step
            step *= max(shape[d], 1)
    # The elements the tensor touches, relative to its first element (in elements).
    low = high = 0
    for extent, stride in zip(shape, strides):
        if extent > 0:
            span = (extent - 1) * stride
            low, high = (low + span, high) if span < 0 else (low, high + span)
    empty = any(extent <= 0 for extent in shape)
    # Where the data goes: ending at the guard page, or starting right after the other one.
    extent_bytes = (high - low + 1) * itemsize
    region = arena.data
    if case["data"] == "end":
        first = region.end - (high + 1) * itemsize - case["byte_offset"] % 2**64
    else:
        first = region.start - low * itemsize - case["byte_offset"] % 2**64
    data = first
    if case["data"] == "null":
        data = 0
    elif case["data"] == "wild":
        data = 0x10
    elif case["data"] == "misaligned":
        data = first + 1
    elif case["data"] == "top":
        data = 2**64 - 64
    data %= 2**64
    address = (data + case["byte_offset"]) % 2**64
    in_bounds = (not empty and case["data"] in ("end", "start", "misaligned")
                 and region.start <= data + case["byte_offset"] + low * itemsize
                 and data + case["byte_offset"] + (high + 1) * itemsize <= region.end
                 and data + case["byte_offset"] < 2**64)
    # Fill the whole region with a pattern the expected values are computed from.
    filled = pattern(case["fill"], region.end - region.start)
    ctypes.memmove(region.start, filled, len(filled))

    tensor = DLTensor()
    tensor.data = data or None
    tensor.device = DLDevice(*[_int32(v) for v in case["device"]])
    tensor.ndim = _int32(ndim)
    tensor.dtype = DLDataType(case["code"], case["bits"], case["lanes"])
    tensor.shape = None if case["shape_null"] else (
        _int64_array_at_end(arena.shape, shape) if shape else arena.shape.end)
    tensor.strides = (None if case["strides"] is None else
                      _int64_array_at_end(arena.strides, case["strides"]) if shape
                      else arena.strides.end)
    tensor.byte_offset = case["byte_offset"] % 2**64
    versioned = case["capsule"] != "legacy"
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version = DLPackVersion(case["major"], case["minor"])
        managed.flags = case["flags"]
    else:
        managed = DLManagedTensor()
    managed.dl_tensor = tensor
    managed.deleter = deleters.callback
    managed_address = ctypes.addressof(managed)
    managed.manager_ctx = managed_address
    deleters.kept.append(managed)
    deleters.calls[managed_address] = 0
    info["managed_object"] = managed  # keeps the struct alive as long as the case
    info["managed"] = managed_address
    name = {"versioned": b"dltensor_versioned", "legacy": b"dltensor",
            "used": b"used_dltensor_versioned", "bogus-name": b"dltensor_versionedX",
            "no-name": None}.get(case["capsule"], b"dltensor_versioned")
    info["name"] = name  # the capsule keeps a pointer to these bytes
    if case["capsule"] == "not-a-capsule":
        capsule = bytes(16)
    else:
        capsule = _api.PyCapsule_New(managed_address, name, None)
    info["capsule"] = capsule
    real_device = case["device"]
    claimed = {"same": real_device, "cpu": (KDL_CPU, 0), "cuda": (2, 0)}.get(
        case["dlpack_device"])

    producer = Producer()
    if case["capsule"] != "no-dlpack":
        if case["capsule"] == "producer-raises":
            def dlpack(*args, **kwargs):
                raise ProducerError("the producer refuses")
        elif case["kwargs"]:
            def dlpack(*args, **kwargs):
                return capsule
        else:
            def dlpack():
                return capsule
        producer.__dlpack__ = dlpack
    if case["dlpack_device"] == "raises":
        def device():
            raise ProducerError("no device today")
        producer.__dlpack_device__ = device
    elif case["dlpack_device"] == "junk":
        producer.__dlpack_device__ = lambda: ("cpu", None, 3)
    elif claimed is not None:
        producer.__dlpack_device__ = lambda: claimed

    count = element_count(shape) if not case["shape_null"] or ndim <= 0 else None
    span_bytes = (high - low + 1) * itemsize
    host_memory = real_device[0] in (KDL_CPU, KDL_CUDA_HOST)
    # Where a CUDA device of that ordinal exists, a kDLCUDA tensor is importable: dpk cannot tell
    # from the pointer alone that the producer lied and handed host memory (the driver would
    # have to be asked), so such cases are neither required to be refused nor read.
    claims_present_cuda = real_device[0] == 2 and real_device[1] < _cuda_device_count()
    # What the importer can see is wrong: it must refuse these.
    must_refuse = []
    if case["capsule"] not in ("versioned", "legacy"):
        must_refuse.append("no unused DLPack capsule")
    if versioned and case["major"] != 1:
        must_refuse.append("DLPack major version %d" % case["major"])
    if ndim < 0 or ndim > 64:
        must_refuse.append("ndim %d" % ndim)
    if case["shape_null"] and ndim > 0:
        must_refuse.append("no shape array")
    if any(extent < 0 for extent in shape):
        must_refuse.append("a negative extent")
    if (case["code"], case["bits"]) not in SUPPORTED or case["lanes"] != 1:
        must_refuse.append("element type (%d, %d, %d)" % (case["code"], case["bits"],
                                                          case["lanes"]))
    if not host_memory and not claims_present_cuda:
        must_refuse.append("device %r" % (real_device,))
    nonempty = not empty and not must_refuse
    if nonempty and data == 0:
        must_refuse.append("NULL data")
    if nonempty and count is not None and count * itemsize >= 2**63:
        must_refuse.append("%d elements" % count)
    if nonempty and (address + low * itemsize < 0 or address + low * itemsize >= 2**64 or
                     address + (high + 1) * itemsize > 2**64 or span_bytes >= 2**63 or
                     data + case["byte_offset"] >= 2**64):
        must_refuse.append("memory beyond the address space")
    # Read back only what is small (a zero stride makes a huge tensor of a few bytes).
    readable = (in_bounds and not must_refuse and not claims_present_cuda and count is not None
                and count <= 1 << 16)
    info.update(must_refuse=must_refuse, in_bounds=readable,
                shape=tuple(real_shape), strides=tuple(strides), itemsize=itemsize,
                address=address, read_only=(not versioned) or bool(case["flags"] & 1),
                empty=empty, extent_bytes=extent_bytes)
    return producer, info


class Producer:
    """A DLPack producer; each case sets its __dlpack__ and __dlpack_device__."""


def _int32(value):
    return (value + 2**31) % 2**32 - 2**31


# ---- one case -----------------------------------------------------------------------------------

class Finding(Exception):
    """A broken promise."""


def expected_bytes(info, arena):
    """The bytes of the elements the tensor describes (shape + (itemsize,)), read from the
    pattern in the producer's buffer as NumPy would index it."""
    import numpy as np
    region = arena.data
    memory = np.frombuffer(ctypes.string_at(region.start, region.end - region.start), np.uint8)
    itemsize = info["itemsize"]
    first = info["address"] - region.start  # the tensor's element 0, inside the region
    view = np.lib.stride_tricks.as_strided(
        memory[first:], shape=info["shape"] + (itemsize,),
        strides=tuple(s * itemsize if n > 1 else 0
                      for s, n in zip(info["strides"], info["shape"])) + (1,))
    return np.ascontiguousarray(view)


_patterns = {}


def pattern(fill, size):
    if fill not in _patterns:
        import numpy as np
        _patterns[fill] = ((np.arange(size) * 7 + fill) % 256).astype(np.uint8).tobytes()
    return _patterns[fill]


def run_case(data, arena, deleters, dpk):
    """Runs one case; raises Finding on a broken promise."""
    import numpy as np
    case = decode(data)
    producer, info = build(case, arena, deleters)
    managed = info["managed"]
    try:
        array = dpk.from_dlpack(producer)
    except ProducerError:
        array = None
    except dpk.DpkError as error:
        array = None
        if isinstance(error, (TypeError, OverflowError, SystemError)):
            raise Finding("a dpk error that is also %s: %s" % (type(error).__name__, error))
    except Exception as error:  # anything else is a broken promise
        raise Finding("from_dlpack raised %s: %s (case %r)" % (type(error).__name__, error, case))
    if array is None:
        gc.collect(0)
        calls = deleters.calls.get(managed, 0)
        name = None
        if isinstance(info["capsule"], object) and type(info["capsule"]).__name__ == "PyCapsule":
            name = _api.PyCapsule_GetName(info["capsule"])
        taken = name != info["name"] and name is not None and name.startswith(b"used_")
        if taken and calls != 1:
            raise Finding("the importer took the tensor and failed, and its deleter ran %d "
                          "times (case %r)" % (calls, case))
        if not taken and calls != 0:
            raise Finding("the importer did not take the tensor, yet its deleter ran %d times"
                          % calls)
        return "refused"
    if info["must_refuse"]:
        raise Finding("accepted a tensor with %s (case %r)" % (", ".join(info["must_refuse"]),
                                                               case))
    if tuple(array.shape) != info["shape"]:
        raise Finding("shape %r, the producer said %r" % (tuple(array.shape), info["shape"]))
    if deleters.calls.get(managed, 0) != 0:
        raise Finding("the deleter ran while the dpk array is alive")
    if info["in_bounds"]:
        try:
            got = np.array(array.asnumpy(), order="C")  # (ascontiguousarray makes 0-d 1-d)
        except Exception as error:
            raise Finding("reading an accepted tensor inside the producer's buffer raised "
                          "%s: %s (case %r)" % (type(error).__name__, error, case))
        want = expected_bytes(info, arena)
        if got.dtype == np.bool_:  # any non-zero byte is True
            same = np.array_equal(got, want[..., 0] != 0)
        else:
            same = (got.dtype.itemsize == info["itemsize"] and
                    np.array_equal(got.reshape(-1).view(np.uint8).reshape(want.shape), want))
        if not same:
            raise Finding("elements differ from what the producer holds (case %r)" % (case,))
    del array
    gc.collect(0)
    calls = deleters.calls.get(managed, 0)
    if calls != 1:
        raise Finding("the deleter ran %d times after the array was released (case %r)"
                      % (calls, case))
    return "accepted"


# ---- processes ----------------------------------------------------------------------------------

def case_bytes(seed, index):
    return random.Random(seed * 1000003 + index).randbytes(CASE_BYTES)


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        what = rng.randrange(4)
        at = rng.randrange(len(data) + 1)
        if what == 0 and data:
            data[at % len(data)] ^= 1 << rng.randrange(8)
        elif what == 1 and data:
            data[at % len(data)] = rng.randrange(256)
        elif what == 2:
            data[at:at] = bytes([rng.randrange(256)])
        elif data:
            del data[at % len(data)]
    return bytes(data)


def worker(argv):
    """Runs cases named on the command line: `seed:first:count` or files. Prints "case ID"
    before each, "finding ID MESSAGE" for each broken promise, "done N" at the end."""
    import dpk
    arena, deleters = Arena(), Deleters()
    corpus = []
    specs = []
    for arg in argv:
        if arg.startswith("seed:"):
            _, seed, first, count = arg.split(":")
            specs.append(("seed", int(seed), int(first), int(count)))
        elif arg.startswith("corpus:"):
            corpus = [open(path, "rb").read() for path in arg[7:].split(os.pathsep) if path]
        else:
            specs.append(("file", arg))
    executed = 0
    for spec in specs:
        if spec[0] == "file":
            items = [(spec[1], open(spec[1], "rb").read())]
        else:
            _, seed, first, count = spec
            items = []
            for index in range(first, first + count):
                data = case_bytes(seed, index)
                if corpus and index % 4 == 3:
                    rng = random.Random(seed * 7919 + index)
                    data = mutate(rng.choice(corpus), rng)
                items.append(("%d:%d" % (seed, index), data))
        for ident, data in items:
            print("case", ident, flush=True)
            try:
                run_case(data, arena, deleters, dpk)
            except Finding as finding:
                print("finding", ident, str(finding).replace("\n", " "), flush=True)
            except Exception as error:  # outside from_dlpack: dpk while reading, or the harness
                print("finding", ident, "unexpected %s: %s" % (type(error).__name__, error),
                      flush=True)
            executed += 1
    print("done", executed, flush=True)


def case_data_of(ident, corpus_files):
    if ":" in ident and not os.path.exists(ident):
        seed, index = (int(x) for x in ident.split(":"))
        data = case_bytes(seed, index)
        if corpus_files and index % 4 == 3:
            corpus = [open(p, "rb").read() for p in corpus_files]
            rng = random.Random(seed * 7919 + index)
            data = mutate(rng.choice(corpus), rng)
        return data
    return open(ident, "rb").read()


def run(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="DlpackFuzzer.py run")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=2000)
    parser.add_argument("--artifacts", default="dlpack-artifacts")
    parser.add_argument("--corpus", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "corpus", "dlpack"))
    parser.add_argument("--max-cases", type=int, default=0)
    args = parser.parse_args(argv)
    os.makedirs(args.artifacts, exist_ok=True)
    corpus_files = sorted(os.path.join(args.corpus, f) for f in os.listdir(args.corpus)) \
        if os.path.isdir(args.corpus) else []
    start = time.monotonic()
    executed, findings, crashes, first = 0, 0, 0, 0
    deadline = start + args.seconds
    # The corpus first: every committed reproducer must stay fixed.
    batches = [corpus_files] if corpus_files else []
    while time.monotonic() < deadline and (not args.max_cases or executed < args.max_cases):
        if batches:
            names = batches.pop()
        else:
            count = args.batch if not args.max_cases else min(args.batch,
                                                              args.max_cases - executed)
            names = ["seed:%d:%d:%d" % (args.seed, first, count)]
            if corpus_files:
                names.insert(0, "corpus:" + os.pathsep.join(corpus_files))
            first += count
        command = [sys.executable, os.path.abspath(__file__), "worker"] + names
        left = max(deadline - time.monotonic(), 1) + 60
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=left)
            output, status = result.stdout, result.returncode
            stderr = result.stderr
        except subprocess.TimeoutExpired as expired:
            output = expired.stdout.decode() if isinstance(expired.stdout, bytes) else (
                expired.stdout or "")
            status, stderr = "timeout", ""
        last = None
        for line in output.splitlines():
            if line.startswith("case "):
                last = line[5:]
                executed += 1
            elif line.startswith("finding "):
                findings += 1
                ident = line.split(" ", 2)[1]
                save(args.artifacts, "finding", case_data_of(ident, corpus_files), line)
                print(line, flush=True)
        if status != 0 or "done" not in output:
            crashes += 1
            message = "worker ended with %s on case %s\n%s" % (status, last, stderr[-2000:])
            print(message, flush=True)
            if last is not None:
                save(args.artifacts, "crash", case_data_of(last, corpus_files), message)
    elapsed = time.monotonic() - start
    print("dlpack: %d executions in %.0f s (%.0f/s), %d findings, %d crashes, corpus %d"
          % (executed, elapsed, executed / max(elapsed, 1e-9), findings, crashes,
             len(corpus_files)), flush=True)
    return 1 if findings or crashes else 0


def save(directory, kind, data, message):
    name = "%s-%s" % (kind, hashlib.sha1(data).hexdigest()[:16])
    with open(os.path.join(directory, name), "wb") as out:
        out.write(data)
    with open(os.path.join(directory, name + ".txt"), "w") as out:
        out.write(message + "\n")


def replay(argv):
    files = []
    for arg in argv:
        if os.path.isdir(arg):
            files += sorted(os.path.join(arg, f) for f in os.listdir(arg))
        else:
            files.append(arg)
    worker(files)
    return 0


if __name__ == "__main__":
    command, rest = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("run", [])
    if command == "worker":
        worker(rest)
        sys.exit(0)
    sys.exit({"run": run, "replay": replay}[command](rest))
