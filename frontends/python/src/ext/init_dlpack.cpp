// init_dlpack.cpp - DLPack 1.0 both ways, and the buffer slot of dpk arrays on Python < 3.12.
//
// dlpack_import(obj) calls obj.__dlpack__(max_version=(1, 0)) (without keywords for older
// producers), takes the capsule's managed tensor and returns a DLPackView: the data address,
// shape, strides, element type and read-only flag of the producer's tensor, on whatever device it
// lives (kDLCUDA included). The view owns the managed tensor; when it goes away the producer's
// deleter runs, so a dpk array that keeps the view as its owner keeps the foreign memory valid
// without copying it.
//
// dlpack_capsule(...) is the other direction, for Array.__dlpack__: a versioned capsule (with the
// read-only and is-copied flags) or a legacy one, over memory dpk allocated, keeping its owner
// alive until the consumer's deleter runs. dlpack_export(...) wraps memory in nanobind's ndarray,
// an object with __dlpack__/__dlpack_device__ and the buffer protocol (tests use it as a
// producer).
//
// Streams: dpk waits for its own queue before exporting, so a consumer's stream needs no event
// from dpk. On import from a CUDA producer dpk passes its device queue's stream as `stream`, so
// the producer makes that stream wait for its own work (DLPack's consumer protocol).
#include "common.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dpk::py {

namespace {

/// NumPy type string ("<f4", "|b1") of a DLPack element type, or "" when NumPy has none.
std::string typeString(nb::dlpack::dtype dt) {
  if (dt.lanes != 1 || dt.bits % 8 != 0 || dt.bits == 0)
    return "";
  // Only the sizes NumPy has for each kind ("<b4" or "|f1" are no NumPy types; NumPy's "<f16"
  // is x87 extended precision on x86, not DLPack's 128-bit IEEE float).
  bool integerSize = dt.bits == 8 || dt.bits == 16 || dt.bits == 32 || dt.bits == 64;
  // DLPack has more codes (bfloat, float8 variants) than dpk arrays have types.
  using Code = nb::dlpack::dtype_code;
  char kind = 0;
  if (dt.code == (uint8_t)Code::Int)
    kind = 'i';
  else if (dt.code == (uint8_t)Code::UInt)
    kind = 'u';
  else if (dt.code == (uint8_t)Code::Float)
    kind = 'f';
  else if (dt.code == (uint8_t)Code::Bool)
    kind = 'b';
  else if (dt.code == (uint8_t)Code::Complex)
    kind = 'c'; // two floats of bits/2 each: NumPy's complex64 and complex128
  if (!kind)
    return "";
  if ((kind == 'c' && dt.bits != 64 && dt.bits != 128) ||
      (kind == 'b' && dt.bits != 8) || (kind == 'f' && (dt.bits == 8 || !integerSize)) ||
      ((kind == 'i' || kind == 'u') && !integerSize))
    return "";
  return std::string(dt.bits == 8 ? "|" : "<") + kind + std::to_string(dt.bits / 8);
}

/// The inverse of typeString for the kinds dpk arrays have.
nb::dlpack::dtype dlpackType(const std::string &typestr) {
  if (typestr.size() < 3)
    throw StatusError(DPK_ERROR_INVALID_ARGUMENT, "bad type string '" + typestr + "'");
  nb::dlpack::dtype dt{};
  switch (typestr[1]) {
  case 'i':
    dt.code = (uint8_t)nb::dlpack::dtype_code::Int;
    break;
  case 'u':
    dt.code = (uint8_t)nb::dlpack::dtype_code::UInt;
    break;
  case 'f':
    dt.code = (uint8_t)nb::dlpack::dtype_code::Float;
    break;
  case 'b':
    dt.code = (uint8_t)nb::dlpack::dtype_code::Bool;
    break;
  case 'c':
    dt.code = (uint8_t)nb::dlpack::dtype_code::Complex;
    break;
  default:
    throw StatusError(DPK_ERROR_INVALID_ARGUMENT, "no DLPack type for '" + typestr + "'");
  }
  dt.bits = (uint8_t)(std::stoi(typestr.substr(2)) * 8);
  dt.lanes = 1;
  return dt;
}

// ---- DLPack 1.0's C ABI (dlpack.h v1.0), which is stable: declared here rather than taken
// from nanobind, whose own copy covers only what its ndarray caster needs. ---------------------
namespace dl {
struct Device {
  int32_t device_type; // DLDeviceType, an int-sized C enum
  int32_t device_id;
};
struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct Tensor {
  void *data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t *shape;
  int64_t *strides; // in elements; NULL means C-contiguous
  uint64_t byte_offset;
};
struct ManagedTensor { // the legacy (pre-1.0) capsule "dltensor"
  Tensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(ManagedTensor *self);
};
struct Version {
  uint32_t major;
  uint32_t minor;
};
struct ManagedTensorVersioned { // the 1.0 capsule "dltensor_versioned"
  Version version;
  void *manager_ctx;
  void (*deleter)(ManagedTensorVersioned *self);
  uint64_t flags;
  Tensor dl_tensor;
};
constexpr uint64_t FlagReadOnly = 1u << 0;
constexpr uint64_t FlagIsCopied = 1u << 1;
constexpr uint32_t MajorVersion = 1;
constexpr uint32_t MinorVersion = 0;
constexpr int32_t MaxDims = 64; // beyond any producer's real tensors; guards the shape reads
} // namespace dl

/// A foreign tensor imported through DLPack: owns the producer's managed tensor (legacy or
/// versioned) and calls its deleter when it goes away.
struct DLPackView {
  dl::ManagedTensor *legacy = nullptr;
  dl::ManagedTensorVersioned *versioned = nullptr;

  DLPackView() = default;
  DLPackView(const DLPackView &) = delete;
  ~DLPackView() {
    if (versioned && versioned->deleter)
      versioned->deleter(versioned);
    else if (legacy && legacy->deleter)
      legacy->deleter(legacy);
  }

  const dl::Tensor &tensor() const { return versioned ? versioned->dl_tensor : legacy->dl_tensor; }
  /// Legacy capsules carry no read-only flag: taken as read-only, as NumPy does.
  bool readOnly() const { return !versioned || (versioned->flags & dl::FlagReadOnly) != 0; }

  uintptr_t address() const {
    return (uintptr_t)tensor().data + (uintptr_t)tensor().byte_offset;
  }
  nb::tuple shape() const {
    nb::list out;
    for (int32_t d = 0; d < tensor().ndim; ++d)
      out.append(tensor().shape[d]);
    return nb::tuple(out);
  }
  /// Strides in elements (DLPack's unit); C-contiguous strides when the producer gave none.
  nb::tuple strides() const {
    const dl::Tensor &t = tensor();
    std::vector<int64_t> contiguous(t.ndim);
    uint64_t step = 1; // wraps only for empty tensors (validateImported), whose strides no one uses
    for (int32_t d = t.ndim; d-- > 0;) {
      contiguous[d] = static_cast<int64_t>(step);
      step *= static_cast<uint64_t>(t.shape[d]);
    }
    nb::list out;
    for (int32_t d = 0; d < t.ndim; ++d)
      out.append(t.strides ? t.strides[d] : contiguous[d]);
    return nb::tuple(out);
  }
  std::string typestr() const {
    const dl::DataType &dt = tensor().dtype;
    nb::dlpack::dtype converted{dt.code, dt.bits, dt.lanes};
    return typeString(converted);
  }
};

/// Checks what the rest of dpk reads from an imported tensor, so a malformed capsule is an
/// error instead of a wild read: the dimensions, and that the memory it describes (data +
/// byte_offset, then every element the shape and strides reach) lies inside the address
/// space, is not at NULL, and holds fewer than 2^63 bytes. Nothing of the data is read.
void validateImported(const DLPackView &view) {
  const dl::Tensor &t = view.tensor();
  if (t.ndim < 0 || t.ndim > dl::MaxDims)
    throw StatusError(DPK_ERROR_UNSUPPORTED,
                      "this DLPack tensor has " + std::to_string(t.ndim) + " dimensions");
  if (t.ndim > 0 && !t.shape)
    throw StatusError(DPK_ERROR_UNSUPPORTED, "this DLPack tensor has no shape array");
  bool empty = false;
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0)
      throw StatusError(DPK_ERROR_UNSUPPORTED, "this DLPack tensor has a negative extent (" +
                                                   std::to_string(t.shape[d]) +
                                                   ") in dimension " + std::to_string(d));
    empty = empty || t.shape[d] == 0;
  }
  if (empty)
    return; // no element is ever addressed
  auto beyond = [](const std::string &what) {
    return StatusError(DPK_ERROR_UNSUPPORTED,
                       "this DLPack tensor describes memory outside the address space: " + what);
  };
  // Element offsets (in elements) of the lowest and the highest element, and the count.
  int64_t count = 1, low = 0, high = 0, step = 1;
  for (int32_t d = t.ndim; d-- > 0;) {
    int64_t extent = t.shape[d];
    if (__builtin_mul_overflow(count, extent, &count))
      throw beyond("more than 2^63 elements");
    int64_t stride = t.strides ? t.strides[d] : step;
    int64_t span = 0;
    if (extent > 1 && __builtin_mul_overflow(extent - 1, stride, &span))
      throw beyond("the stride " + std::to_string(stride) + " of dimension " +
                   std::to_string(d) + " overflows");
    if (__builtin_add_overflow(span < 0 ? low : high, span, span < 0 ? &low : &high))
      throw beyond("the strides reach beyond 2^63 elements");
    if (!t.strides && __builtin_mul_overflow(step, extent, &step))
      throw beyond("more than 2^63 elements");
  }
  const dl::DataType &dt = t.dtype;
  int64_t itemsize = std::max<int64_t>(1, (int64_t(dt.bits) * dt.lanes + 7) / 8);
  int64_t lowBytes = 0, highBytes = 0, extentBytes = 0, pastHigh = 0;
  int64_t totalBytes = 0; // what a dense copy would take: NumPy's and dpk's nbytes
  if (__builtin_mul_overflow(count, itemsize, &totalBytes))
    throw beyond(std::to_string(count) + " elements of " + std::to_string(itemsize) +
                 " bytes are more than 2^63 bytes");
  if (__builtin_mul_overflow(low, itemsize, &lowBytes) ||
      __builtin_add_overflow(high, 1, &pastHigh) ||
      __builtin_mul_overflow(pastHigh, itemsize, &highBytes) ||
      __builtin_sub_overflow(highBytes, lowBytes, &extentBytes))
    throw beyond("its elements span more than 2^63 bytes");
  if (!t.data)
    throw StatusError(DPK_ERROR_UNSUPPORTED, "this DLPack tensor has " + std::to_string(count) +
                                                 " elements and a NULL data pointer");
  uint64_t first = 0;
  if (__builtin_add_overflow(reinterpret_cast<uint64_t>(t.data), t.byte_offset, &first))
    throw beyond("data + byte_offset (" + std::to_string(t.byte_offset) + ") wraps around");
  // first + lowBytes >= 0 and first + highBytes <= 2^64, without wrapping.
  if ((lowBytes < 0 && first < static_cast<uint64_t>(-(lowBytes + 1)) + 1) ||
      (highBytes > 0 && static_cast<uint64_t>(highBytes) > UINT64_MAX - first + 1))
    throw beyond("its elements reach below address 0 or above the highest address");
}

/// Takes the managed tensor out of a DLPack capsule (renaming it "used_...", as the protocol
/// says, so the capsule's destructor leaves the tensor to the view).
DLPackView *adoptCapsule(nb::handle capsule) {
  PyObject *c = capsule.ptr();
  auto view = std::make_unique<DLPackView>();
  if (PyCapsule_IsValid(c, "dltensor_versioned")) {
    auto *mt = static_cast<dl::ManagedTensorVersioned *>(
        PyCapsule_GetPointer(c, "dltensor_versioned"));
    if (!mt)
      throw nb::python_error();
    if (mt->version.major != dl::MajorVersion)
      throw StatusError(DPK_ERROR_UNSUPPORTED,
                        "this DLPack tensor has version " + std::to_string(mt->version.major) +
                            "." + std::to_string(mt->version.minor) +
                            "; dpk reads DLPack 1.x");
    if (PyCapsule_SetName(c, "used_dltensor_versioned") != 0)
      throw nb::python_error();
    view->versioned = mt;
  } else if (PyCapsule_IsValid(c, "dltensor")) {
    auto *mt = static_cast<dl::ManagedTensor *>(PyCapsule_GetPointer(c, "dltensor"));
    if (!mt)
      throw nb::python_error();
    if (PyCapsule_SetName(c, "used_dltensor") != 0)
      throw nb::python_error();
    view->legacy = mt;
  } else {
    throw StatusError(DPK_ERROR_UNSUPPORTED,
                      "cannot import this object through DLPack: __dlpack__() returned no "
                      "unused DLPack capsule ('dltensor_versioned' or 'dltensor')");
  }
  validateImported(*view);
  return view.release();
}

/// Calls producer.__dlpack__ as a DLPack 1.0 consumer: asking for a versioned capsule, and
/// without keywords for producers that predate them (TypeError), as NumPy does. `dlDevice` and
/// `copy` (None when not asked for) are passed on; old producers cannot honour them.
nb::object requestCapsule(nb::handle producer, nb::handle dlDevice, nb::handle copy,
                          nb::handle stream) {
  if (!nb::hasattr(producer, "__dlpack__"))
    throw StatusError(DPK_ERROR_UNSUPPORTED,
                      "cannot import this object through DLPack: it has no __dlpack__ method");
  nb::object method = producer.attr("__dlpack__");
  nb::dict kwargs;
  kwargs["max_version"] = nb::make_tuple(dl::MajorVersion, dl::MinorVersion);
  if (!dlDevice.is_none())
    kwargs["dl_device"] = dlDevice;
  if (!copy.is_none())
    kwargs["copy"] = copy;
  if (!stream.is_none())
    kwargs["stream"] = stream;
  try {
    return method(**kwargs);
  } catch (nb::python_error &error) {
    if (!error.matches(PyExc_TypeError))
      throw;
    if (!dlDevice.is_none() || !copy.is_none())
      throw StatusError(DPK_ERROR_UNSUPPORTED,
                        std::string("this DLPack producer's __dlpack__ does not take DLPack "
                                    "1.0's keywords (dl_device, copy), so dpk cannot ask it for ") +
                            (dlDevice.is_none() ? "a copy" : "a copy in host memory") + ": " +
                            error.what());
  }
  return method();
}

/// What an exported capsule's tensor owns: its shape and strides, and a reference to the
/// object whose memory it describes.
struct ExportedTensor {
  dl::ManagedTensorVersioned versioned{};
  dl::ManagedTensor legacy{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  PyObject *owner = nullptr;
};

void releaseExported(ExportedTensor *exported) {
  // Consumers may call the deleter from any thread, without the GIL (DLPack allows it); at
  // interpreter exit the owner is gone with everything else.
  if (exported->owner && Py_IsInitialized()) {
    PyGILState_STATE state = PyGILState_Ensure();
    Py_DECREF(exported->owner);
    PyGILState_Release(state);
  }
  delete exported;
}

void deleteVersioned(dl::ManagedTensorVersioned *self) {
  releaseExported(static_cast<ExportedTensor *>(self->manager_ctx));
}

void deleteLegacy(dl::ManagedTensor *self) {
  releaseExported(static_cast<ExportedTensor *>(self->manager_ctx));
}

/// A capsule nobody consumed still owns its tensor (a consumer renames it "used_...").
void destroyCapsule(PyObject *capsule) {
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    auto *mt = static_cast<dl::ManagedTensorVersioned *>(
        PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    if (mt && mt->deleter)
      mt->deleter(mt);
  } else if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto *mt = static_cast<dl::ManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (mt && mt->deleter)
      mt->deleter(mt);
  }
  PyErr_Restore(type, value, traceback);
}

nb::object makeCapsule(uintptr_t ptr, const std::vector<int64_t> &shape,
                       const std::vector<int64_t> &strides, const std::string &typestr,
                       int deviceType, int deviceId, nb::handle owner, bool versioned,
                       bool readOnly, bool copied) {
  if (!strides.empty() && strides.size() != shape.size())
    throw StatusError(DPK_ERROR_INVALID_ARGUMENT, "strides and shape differ in length");
  nb::dlpack::dtype dt = dlpackType(typestr);
  auto exported = std::make_unique<ExportedTensor>();
  exported->shape = shape;
  exported->strides = strides;
  if (exported->strides.empty()) { // C-contiguous, spelt out for consumers that need strides
    exported->strides.resize(shape.size());
    int64_t step = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      exported->strides[d] = step;
      step *= shape[d];
    }
  }
  dl::Tensor tensor{};
  tensor.data = reinterpret_cast<void *>(ptr);
  tensor.device = {deviceType, deviceId};
  tensor.ndim = static_cast<int32_t>(shape.size());
  tensor.dtype = {dt.code, dt.bits, dt.lanes};
  tensor.shape = exported->shape.data();
  tensor.strides = exported->strides.data();
  tensor.byte_offset = 0;
  void *payload;
  const char *name;
  if (versioned) {
    exported->versioned.version = {dl::MajorVersion, dl::MinorVersion};
    exported->versioned.manager_ctx = exported.get();
    exported->versioned.deleter = deleteVersioned;
    exported->versioned.flags =
        (readOnly ? dl::FlagReadOnly : 0) | (copied ? dl::FlagIsCopied : 0);
    exported->versioned.dl_tensor = tensor;
    payload = &exported->versioned;
    name = "dltensor_versioned";
  } else {
    exported->legacy.dl_tensor = tensor;
    exported->legacy.manager_ctx = exported.get();
    exported->legacy.deleter = deleteLegacy;
    payload = &exported->legacy;
    name = "dltensor";
  }
  PyObject *capsule = PyCapsule_New(payload, name, destroyCapsule);
  if (!capsule)
    throw nb::python_error();
  exported->owner = owner.ptr();
  Py_INCREF(exported->owner);
  exported.release();
  return nb::steal(capsule);
}

#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API)
/// The buffer slot of a Python class on Python < 3.12 (PEP 688 gives classes a __buffer__
/// method only from 3.12): asks the object's __buffer__(flags) for a memoryview and exports
/// that, so `memoryview(a)` and every buffer consumer see the same memory and flags.
int bufferFromMethod(PyObject *self, Py_buffer *view, int flags) {
  PyObject *exporter = PyObject_CallMethod(self, "__buffer__", "i", flags);
  if (!exporter)
    return -1;
  int result = PyObject_GetBuffer(exporter, view, flags);
  Py_DECREF(exporter);
  return result;
}
#endif

} // namespace

void initDLPack(nb::module_ &m) {
  nb::class_<DLPackView>(m, "DLPackView",
                         "A foreign tensor imported through DLPack (keeps the producer's memory).")
      .def_prop_ro("ptr", &DLPackView::address, "The first element's address (byte_offset added).")
      .def_prop_ro("shape", &DLPackView::shape)
      .def_prop_ro("strides", &DLPackView::strides, "Strides in elements.")
      .def_prop_ro("typestr", &DLPackView::typestr,
                   "NumPy type string of the elements; '' when NumPy has no such type.")
      .def_prop_ro("device",
                   [](const DLPackView &v) {
                     return nb::make_tuple(v.tensor().device.device_type,
                                           v.tensor().device.device_id);
                   },
                   "(DLPack device type, device id): (1, 0) is the CPU, (2, n) CUDA device n.")
      .def_prop_ro("read_only", &DLPackView::readOnly,
                   "The producer's read-only flag (legacy capsules, which have none: True).")
      .def_prop_ro("versioned", [](const DLPackView &v) { return v.versioned != nullptr; },
                   "Whether the producer gave a DLPack 1.x (versioned) capsule.");

  m.def(
      "dlpack_import",
      [](nb::handle producer, nb::handle dlDevice, nb::handle copy, nb::handle stream) {
        nb::object capsule = requestCapsule(producer, dlDevice, copy, stream);
        return adoptCapsule(capsule);
      },
      "producer"_a, "dl_device"_a.none() = nb::none(), "copy"_a.none() = nb::none(),
      "stream"_a.none() = nb::none(), nb::rv_policy::take_ownership,
      "Imports an object's __dlpack__() tensor without copying it (as a DLPack 1.0 consumer: "
      "a versioned capsule when the producer offers one). stream: the consumer's stream (CUDA: "
      "a CUstream handle) that the producer must order its work before.");

  m.def(
      "dlpack_capsule",
      [](uintptr_t ptr, std::vector<int64_t> shape, std::vector<int64_t> strides,
         const std::string &typestr, int deviceType, int deviceId, nb::handle owner,
         bool versioned, bool readOnly, bool copied) {
        return makeCapsule(ptr, shape, strides, typestr, deviceType, deviceId, owner,
                           versioned, readOnly, copied);
      },
      "ptr"_a, "shape"_a, "strides"_a, "typestr"_a, "device_type"_a, "device_id"_a, "owner"_a,
      "versioned"_a, "read_only"_a, "copied"_a,
      "A DLPack capsule over `ptr` ('dltensor_versioned' with the read-only and is-copied "
      "flags when `versioned`, else a legacy 'dltensor'); strides in elements, [] for "
      "C-contiguous. The tensor keeps `owner` alive until the consumer's deleter runs.");

  m.def(
      "register_array_type",
      [](nb::handle type) {
        if (!PyType_Check(type.ptr()) ||
            !(PyType_GetFlags((PyTypeObject *)type.ptr()) & Py_TPFLAGS_HEAPTYPE))
          throw StatusError(DPK_ERROR_INVALID_ARGUMENT, "expected a class defined in Python");
        setLaunchArrayType(type);
#if PY_VERSION_HEX < 0x030C0000 && !defined(Py_LIMITED_API)
        auto *heapType = reinterpret_cast<PyHeapTypeObject *>(type.ptr());
        heapType->as_buffer.bf_getbuffer = bufferFromMethod;
        heapType->as_buffer.bf_releasebuffer = nullptr;
        heapType->ht_type.tp_as_buffer = &heapType->as_buffer;
        PyType_Modified(&heapType->ht_type);
        return true;
#else
        (void)type;
        return false; // PEP 688: the class's __buffer__ method is its buffer slot
#endif
      },
      "cls"_a,
      "Registers dpk's Array class: launches take its instances as dpk arrays (not as "
      "buffers), and on Python < 3.12 (no PEP 688) its __buffer__(flags) method becomes its "
      "buffer slot; returns whether the slot had to be installed.");

  m.def(
      "dlpack_export",
      [](uintptr_t ptr, std::vector<size_t> shape, const std::string &typestr, int deviceType,
         int deviceId, nb::handle owner) {
        // array_api: Python gets nanobind's ndarray object, which has __dlpack__ and
        // __dlpack_device__ (a bare capsule could be consumed only once and names no device).
        nb::ndarray<nb::array_api> array((void *)ptr, shape.size(), shape.data(), owner, nullptr,
                                         dlpackType(typestr), deviceType, deviceId);
        return nb::cast(array, nb::rv_policy::reference);
      },
      "ptr"_a, "shape"_a, "typestr"_a, "device_type"_a, "device_id"_a, "owner"_a,
      "An object with __dlpack__/__dlpack_device__ over `ptr` (C-contiguous), keeping `owner` "
      "alive while any consumer holds the tensor.");
}

} // namespace dpk::py
