// blas_ext.cpp - an example native extension over dpk arrays (docs/extensions.md).
//
//   gemv(a, x, alpha=1.0) -> y     y = alpha * a @ x on the host device (strided float32/64)
//   axpy(alpha, x, y) -> out       out = alpha * x + y, a new dpk array on x's device: host
//                                  code on the host device, an OpenCL C kernel on OpenCL devices
//   scale(x, alpha)                x *= alpha in place: the OpenCL kernel, enqueued on dpk's own
//                                  OpenCL queue without waiting (dpk's later work runs after it)
//   fill_u32(x, value)             every 4-byte element := value: cuMemsetD32Async on dpk's CUDA
//                                  stream (CUDA devices), a loop on the host device
//   native_info(where=None) -> {}  what dpk_queue_get_native reports, for inspection
//
// Arrays arrive as dpk::ext::Array (the type caster accepts only dpk.Array), results are made by
// Array::empty (dpk allocates them on the device and frees them with the Python object).
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <dpk/extension.hpp>

#ifdef DPK_EXAMPLE_OPENCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#endif

#include <dlfcn.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace nb = nanobind;
using dpk::ext::Array;

namespace {

const char *apiName(dpk_native_api_t api) {
  switch (api) {
  case DPK_NATIVE_API_HOST: return "host";
  case DPK_NATIVE_API_OPENCL: return "opencl";
  case DPK_NATIVE_API_LEVEL_ZERO: return "level_zero";
  case DPK_NATIVE_API_CUDA: return "cuda";
  }
  return "unknown";
}

void requireFloat(const Array &array, const char *what) {
  if (array.kind() != 'f' || (array.itemsize() != 4 && array.itemsize() != 8))
    throw nb::type_error((std::string(what) + " must be float32 or float64, not " +
                          array.typestr()).c_str());
}

void requireSameDevice(const Array &a, const Array &b) {
  if (a.device() != b.device())
    throw nb::value_error("the arrays are on different devices");
}

/// Host code dereferences dpk's addresses only where they are host memory.
void requireHostMemory(const Array &array, const char *operation) {
  if (array.queue().native().memory != DPK_NATIVE_MEMORY_HOST)
    throw nb::value_error((std::string(operation) +
                           " runs on the host device only (dpk.asarray(x, device='host'))")
                              .c_str());
}

// ---- host ---------------------------------------------------------------------------------------

template <typename T> void gemvOnHost(double alpha, const Array &a, const Array &x, Array &y) {
  const T *A = a.data<T>();
  const T *X = x.data<T>();
  T *Y = y.data<T>();
  int64_t m = a.shape(0), n = a.shape(1);
  int64_t rowStride = a.stride(0), colStride = a.stride(1), xStride = x.stride(0);
  for (int64_t i = 0; i < m; ++i) {
    T sum = 0;
    for (int64_t j = 0; j < n; ++j)
      sum += A[i * rowStride + j * colStride] * X[j * xStride];
    Y[i] = static_cast<T>(alpha) * sum;
  }
}

template <typename T>
void axpyOnHost(double alpha, const Array &x, const Array &y, Array &out) {
  const T *X = x.data<T>();
  const T *Y = y.data<T>();
  T *O = out.data<T>();
  for (int64_t i = 0, n = x.shape(0); i < n; ++i)
    O[i] = static_cast<T>(alpha) * X[i * x.stride(0)] + Y[i * y.stride(0)];
}

Array gemv(Array a, Array x, double alpha) {
  if (a.ndim() != 2 || x.ndim() != 1 || a.shape(1) != x.shape(0))
    throw nb::value_error("gemv needs a of shape (m, n) and x of shape (n,)");
  requireFloat(a, "a");
  if (std::string(a.typestr()) != x.typestr())
    throw nb::type_error("a and x must have the same dtype");
  requireSameDevice(a, x);
  requireHostMemory(a, "gemv");
  Array y = Array::empty(a, {a.shape(0)}, a.typestr());
  // The host rule: dpk's earlier work on the queue (which produced a and x) first, then ours,
  // finished before we return (dpk submits its later work after that).
  a.queue().run_on_host([&] {
    nb::gil_scoped_release release;
    if (a.itemsize() == 8)
      gemvOnHost<double>(alpha, a, x, y);
    else
      gemvOnHost<float>(alpha, a, x, y);
  });
  return y;
}

// ---- OpenCL -------------------------------------------------------------------------------------

#ifdef DPK_EXAMPLE_OPENCL
const char *const kOpenClSource = R"CL(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void scale_f32(__global float *x, long stride, float alpha) {
  x[get_global_id(0) * stride] *= alpha;
}
__kernel void scale_f64(__global double *x, long stride, double alpha) {
  x[get_global_id(0) * stride] *= alpha;
}
__kernel void axpy_f32(float alpha, __global const float *x, long sx, __global const float *y,
                       long sy, __global float *out) {
  size_t i = get_global_id(0);
  out[i] = alpha * x[i * sx] + y[i * sy];
}
__kernel void axpy_f64(double alpha, __global const double *x, long sx,
                       __global const double *y, long sy, __global double *out) {
  size_t i = get_global_id(0);
  out[i] = alpha * x[i * sx] + y[i * sy];
}
)CL";

void checkCl(cl_int status, const char *call) {
  if (status != CL_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed with OpenCL status " +
                             std::to_string(status));
}

/// The program, built once per OpenCL context (dpk keeps one context per device).
cl_program programFor(const dpk_native_queue_t &native) {
  static std::mutex lock;
  static std::map<void *, cl_program> programs;
  std::lock_guard<std::mutex> guard(lock);
  auto found = programs.find(native.context);
  if (found != programs.end())
    return found->second;
  cl_int status = CL_SUCCESS;
  const char *source = kOpenClSource;
  cl_program program = clCreateProgramWithSource(static_cast<cl_context>(native.context), 1,
                                                 &source, nullptr, &status);
  checkCl(status, "clCreateProgramWithSource");
  cl_device_id device = static_cast<cl_device_id>(native.device);
  status = clBuildProgram(program, 1, &device, "", nullptr, nullptr);
  if (status != CL_SUCCESS) {
    size_t size = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    clReleaseProgram(program);
    throw std::runtime_error("clBuildProgram failed: " + log);
  }
  programs.emplace(native.context, program); // kept for the process, as dpk keeps the context
  return program;
}

/// Passes dpk's address `ptr` as a kernel argument, as the device's memory form asks.
void setPointerArg(const dpk_native_queue_t &native, cl_kernel kernel, cl_uint index,
                   const void *ptr) {
  switch (native.memory) {
  case DPK_NATIVE_MEMORY_CL_SVM:
    checkCl(clSetKernelArgSVMPointer(kernel, index, ptr), "clSetKernelArgSVMPointer");
    return;
  case DPK_NATIVE_MEMORY_CL_USM: {
    using SetMemPointer = cl_int (*)(cl_kernel, cl_uint, const void *);
    auto set = reinterpret_cast<SetMemPointer>(clGetExtensionFunctionAddressForPlatform(
        static_cast<cl_platform_id>(native.platform), "clSetKernelArgMemPointerINTEL"));
    if (!set)
      throw std::runtime_error("the platform lacks clSetKernelArgMemPointerINTEL");
    checkCl(set(kernel, index, ptr), "clSetKernelArgMemPointerINTEL");
    return;
  }
  case DPK_NATIVE_MEMORY_CL_BUFFER:
  case DPK_NATIVE_MEMORY_HOST:
  case DPK_NATIVE_MEMORY_POINTER:
    break;
  }
  throw nb::value_error("this OpenCL device's dpk memory is not passable by pointer (the "
                        "buffer strategy); run with DPK_OPENCL_MEMORY=svm or usm");
}

/// Enqueues `kernel` over n work-items on dpk's queue, in order with dpk's commands.
void enqueueInOrder(const dpk_native_queue_t &native, cl_kernel kernel, size_t n) {
  cl_command_queue queue = static_cast<cl_command_queue>(native.queue);
  bool barriers = native.order == DPK_NATIVE_ORDER_BARRIERS; // an out-of-order cl queue
  if (barriers)
    checkCl(clEnqueueBarrierWithWaitList(queue, 0, nullptr, nullptr), "clEnqueueBarrier");
  checkCl(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &n, nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  if (barriers)
    checkCl(clEnqueueBarrierWithWaitList(queue, 0, nullptr, nullptr), "clEnqueueBarrier");
}

/// A kernel object of the program; released by the caller after its enqueue (the enqueued
/// command holds its own reference).
struct Kernel {
  cl_kernel handle;
  Kernel(const dpk_native_queue_t &native, const std::string &name) {
    cl_int status = CL_SUCCESS;
    handle = clCreateKernel(programFor(native), name.c_str(), &status);
    checkCl(status, "clCreateKernel");
  }
  ~Kernel() { clReleaseKernel(handle); }
  template <typename T> void scalar(cl_uint index, T value) {
    checkCl(clSetKernelArg(handle, index, sizeof value, &value), "clSetKernelArg");
  }
};

void scaleOnOpenCl(const dpk_native_queue_t &native, Array &x, double alpha) {
  bool f64 = x.itemsize() == 8;
  Kernel kernel(native, f64 ? "scale_f64" : "scale_f32");
  setPointerArg(native, kernel.handle, 0, x.data());
  kernel.scalar<cl_long>(1, x.stride(0));
  if (f64)
    kernel.scalar<cl_double>(2, alpha);
  else
    kernel.scalar<cl_float>(2, static_cast<float>(alpha));
  enqueueInOrder(native, kernel.handle, static_cast<size_t>(x.shape(0)));
}

void axpyOnOpenCl(const dpk_native_queue_t &native, double alpha, const Array &x,
                  const Array &y, Array &out) {
  bool f64 = x.itemsize() == 8;
  Kernel kernel(native, f64 ? "axpy_f64" : "axpy_f32");
  if (f64)
    kernel.scalar<cl_double>(0, alpha);
  else
    kernel.scalar<cl_float>(0, static_cast<float>(alpha));
  setPointerArg(native, kernel.handle, 1, x.data());
  kernel.scalar<cl_long>(2, x.stride(0));
  setPointerArg(native, kernel.handle, 3, y.data());
  kernel.scalar<cl_long>(4, y.stride(0));
  setPointerArg(native, kernel.handle, 5, out.data());
  enqueueInOrder(native, kernel.handle, static_cast<size_t>(x.shape(0)));
}
#endif

[[noreturn]] void unsupported(const dpk_native_queue_t &native, const char *operation) {
  throw nb::value_error((std::string(operation) + " has no implementation for " +
                         apiName(native.api) + " devices in this example")
                            .c_str());
}

void requireVector(const Array &x, const char *what) {
  if (x.ndim() != 1)
    throw nb::value_error((std::string(what) + " must be 1-D").c_str());
}

Array axpy(double alpha, Array x, Array y) {
  requireVector(x, "x");
  requireVector(y, "y");
  if (x.shape(0) != y.shape(0))
    throw nb::value_error("x and y must have the same length");
  requireFloat(x, "x");
  if (std::string(x.typestr()) != y.typestr())
    throw nb::type_error("x and y must have the same dtype");
  requireSameDevice(x, y);
  Array out = Array::empty(x, {x.shape(0)}, x.typestr());
  if (x.shape(0) == 0)
    return out;
  x.queue().enqueue_native([&](const dpk_native_queue_t &native) {
    switch (native.api) {
    case DPK_NATIVE_API_HOST: // enqueue_native waited for the queue: run now
      if (x.itemsize() == 8)
        axpyOnHost<double>(alpha, x, y, out);
      else
        axpyOnHost<float>(alpha, x, y, out);
      return;
    case DPK_NATIVE_API_OPENCL:
#ifdef DPK_EXAMPLE_OPENCL
      axpyOnOpenCl(native, alpha, x, y, out);
      return;
#else
      break;
#endif
    case DPK_NATIVE_API_LEVEL_ZERO:
    case DPK_NATIVE_API_CUDA:
      break;
    }
    unsupported(native, "axpy");
  });
  return out;
}

void scale(Array x, double alpha) {
  requireVector(x, "x");
  requireFloat(x, "x");
  if (x.read_only())
    throw nb::value_error("x is read-only");
  if (x.shape(0) == 0)
    return;
  x.queue().enqueue_native([&](const dpk_native_queue_t &native) {
    if (native.api == DPK_NATIVE_API_HOST) {
      for (int64_t i = 0; i < x.shape(0); ++i) {
        if (x.itemsize() == 8)
          x.data<double>()[i * x.stride(0)] *= alpha;
        else
          x.data<float>()[i * x.stride(0)] *= static_cast<float>(alpha);
      }
      return;
    }
#ifdef DPK_EXAMPLE_OPENCL
    if (native.api == DPK_NATIVE_API_OPENCL)
      return scaleOnOpenCl(native, x, alpha);
#endif
    unsupported(native, "scale");
  });
}

// ---- CUDA: the driver API, found at run time ----------------------------------------------------

using CUresult = int;
using CUcontext = void *;
using CUstream = void *;
using CUdeviceptr = unsigned long long;

struct CudaDriver {
  CUresult (*memsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream) = nullptr;
  CUresult (*ctxPushCurrent)(CUcontext) = nullptr;
  CUresult (*ctxPopCurrent)(CUcontext *) = nullptr;
};

const CudaDriver &cudaDriver() {
  static CudaDriver driver = [] {
    CudaDriver d;
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library)
      throw std::runtime_error("libcuda.so.1 not found");
    d.memsetD32Async = reinterpret_cast<decltype(d.memsetD32Async)>(
        dlsym(library, "cuMemsetD32Async"));
    d.ctxPushCurrent = reinterpret_cast<decltype(d.ctxPushCurrent)>(
        dlsym(library, "cuCtxPushCurrent_v2"));
    d.ctxPopCurrent = reinterpret_cast<decltype(d.ctxPopCurrent)>(
        dlsym(library, "cuCtxPopCurrent_v2"));
    if (!d.memsetD32Async || !d.ctxPushCurrent || !d.ctxPopCurrent)
      throw std::runtime_error("libcuda.so.1 lacks cuMemsetD32Async or cuCtxPush/PopCurrent");
    return d;
  }();
  return driver;
}

void fillU32(Array x, uint32_t value) {
  if (x.itemsize() != 4 || !x.is_c_contiguous())
    throw nb::value_error("fill_u32 needs a C-contiguous array of 4-byte elements");
  if (x.read_only())
    throw nb::value_error("x is read-only");
  if (x.size() == 0)
    return;
  x.queue().enqueue_native([&](const dpk_native_queue_t &native) {
    if (native.api == DPK_NATIVE_API_HOST) {
      for (int64_t i = 0; i < x.size(); ++i)
        x.data<uint32_t>()[i] = value;
      return;
    }
    if (native.api != DPK_NATIVE_API_CUDA)
      unsupported(native, "fill_u32");
    const CudaDriver &cu = cudaDriver();
    // dpk's stream belongs to the device's primary context: make it current for the call.
    if (CUresult rc = cu.ctxPushCurrent(native.context))
      throw std::runtime_error("cuCtxPushCurrent failed: " + std::to_string(rc));
    CUresult rc = cu.memsetD32Async(reinterpret_cast<CUdeviceptr>(x.data()), value,
                                    static_cast<size_t>(x.size()), native.queue);
    CUcontext popped = nullptr;
    cu.ctxPopCurrent(&popped);
    if (rc)
      throw std::runtime_error("cuMemsetD32Async failed: " + std::to_string(rc));
  });
}

nb::dict nativeInfo(nb::handle where) {
  dpk::ext::Queue queue = dpk::ext::Queue::from(where.ptr());
  dpk_native_queue_t native = queue.native();
  nb::dict info;
  info["api"] = apiName(native.api);
  info["device_filter"] = std::string(queue.device_info().filter_string);
  info["memory"] = static_cast<int>(native.memory);
  info["order"] = static_cast<int>(native.order);
  info["platform"] = reinterpret_cast<uintptr_t>(native.platform);
  info["device"] = reinterpret_cast<uintptr_t>(native.device);
  info["context"] = reinterpret_cast<uintptr_t>(native.context);
  info["queue"] = reinterpret_cast<uintptr_t>(native.queue);
  info["arena"] = reinterpret_cast<uintptr_t>(native.arena);
  return info;
}

} // namespace

NB_MODULE(dpk_blas_ext, m) {
  m.doc() = "An example native extension over dpk arrays (docs/extensions.md)";
  m.def("gemv", &gemv, nb::arg("a"), nb::arg("x"), nb::arg("alpha") = 1.0,
        "y = alpha * a @ x on the host device; a new dpk array.");
  m.def("axpy", &axpy, nb::arg("alpha"), nb::arg("x"), nb::arg("y"),
        "alpha * x + y as a new dpk array on x's device (host code or an OpenCL kernel).");
  m.def("scale", &scale, nb::arg("x"), nb::arg("alpha"),
        "x *= alpha in place, enqueued in order with dpk's work on x's device.");
  m.def("fill_u32", &fillU32, nb::arg("x"), nb::arg("value"),
        "Sets every 4-byte element (cuMemsetD32Async on dpk's CUDA stream, or host code).");
  m.def("native_info", &nativeInfo, nb::arg("where").none() = nb::none(),
        "What dpk_queue_get_native reports for a dpk.Queue, Device, Array, filter or None.");
  m.def("is_dpk_array", [](nb::handle obj) { return Array::check(obj.ptr()); }, nb::arg("obj"));
}
