// init_dlpack.cpp - DLPack for device memory, which NumPy cannot take (NumPy imports kDLCPU only).
//
// dlpack_import(obj) calls obj.__dlpack__() through nanobind's ndarray caster and returns a
// DLPackView: the data address, shape, strides and element type of the producer's tensor, on
// whatever device it lives (kDLCUDA included). The view holds the producer's managed tensor;
// when the view goes away the producer's deleter runs, so a dpk array that keeps the view as its
// owner keeps the foreign memory valid without copying it.
//
// dlpack_export(...) is the other direction: a capsule-producing object (nanobind's ndarray) over
// memory dpk allocated, keeping the dpk array alive, for `Array.__dlpack__` on CUDA devices.
//
// Streams: nanobind requests the capsule without a stream argument, which for CUDA producers
// means the legacy default stream. dpk's CUDA queues are non-blocking streams, so the producer's
// pending work is not ordered before dpk's launches: callers finish it first (docs/python.md).
#include "common.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dpk::py {

namespace {

/// NumPy type string ("<f4", "|b1") of a DLPack element type, or "" when NumPy has none.
std::string typeString(nb::dlpack::dtype dt) {
  if (dt.lanes != 1 || dt.bits % 8 != 0 || dt.bits == 0)
    return "";
  // DLPack has more codes (bfloat, complex, float8 variants) than dpk arrays have types.
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
  if (!kind)
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
  default:
    throw StatusError(DPK_ERROR_INVALID_ARGUMENT, "no DLPack type for '" + typestr + "'");
  }
  dt.bits = (uint8_t)(std::stoi(typestr.substr(2)) * 8);
  dt.lanes = 1;
  return dt;
}

/// A foreign tensor imported through DLPack; owns the producer's managed tensor.
struct DLPackView {
  nb::ndarray<> array;

  uintptr_t address() const {
    return (uintptr_t)array.data_handle() + (uintptr_t)array.byte_offset();
  }
  nb::tuple shape() const {
    nb::list out;
    for (size_t d = 0; d < array.ndim(); ++d)
      out.append(array.shape(d));
    return nb::tuple(out);
  }
  /// Strides in elements (DLPack's unit); C-contiguous strides when the producer gave none.
  nb::tuple strides() const {
    nb::list out;
    const int64_t *strides = array.stride_ptr();
    int64_t step = 1;
    std::vector<int64_t> contiguous(array.ndim());
    for (size_t d = array.ndim(); d-- > 0;) {
      contiguous[d] = step;
      step *= (int64_t)array.shape(d);
    }
    for (size_t d = 0; d < array.ndim(); ++d)
      out.append(strides ? strides[d] : contiguous[d]);
    return nb::tuple(out);
  }
};

} // namespace

void initDLPack(nb::module_ &m) {
  nb::class_<DLPackView>(m, "DLPackView",
                         "A foreign tensor imported through DLPack (keeps the producer's memory).")
      .def_prop_ro("ptr", &DLPackView::address, "The first element's address (byte_offset added).")
      .def_prop_ro("shape", &DLPackView::shape)
      .def_prop_ro("strides", &DLPackView::strides, "Strides in elements.")
      .def_prop_ro("typestr", [](const DLPackView &v) { return typeString(v.array.dtype()); },
                   "NumPy type string of the elements; '' when NumPy has no such type.")
      .def_prop_ro("device",
                   [](const DLPackView &v) {
                     return nb::make_tuple(v.array.device_type(), v.array.device_id());
                   },
                   "(DLPack device type, device id): (1, 0) is the CPU, (2, n) CUDA device n.");

  m.def(
      "dlpack_import",
      [](nb::handle producer) {
        nb::ndarray<> array;
        // Conversion off: an object without __dlpack__ (or the buffer protocol) is an error,
        // never a copy.
        if (!nb::try_cast<nb::ndarray<>>(producer, array, false))
          throw StatusError(DPK_ERROR_UNSUPPORTED,
                            "cannot import this object through DLPack (its __dlpack__() failed, "
                            "or its tensor is read-only)");
        return DLPackView{std::move(array)};
      },
      "producer"_a, "Imports an object's __dlpack__() tensor without copying it.");

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
