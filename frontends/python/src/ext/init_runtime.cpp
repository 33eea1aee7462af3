// init_runtime.cpp - binds the C API's devices, queues, memory, programs, kernels and events.
//
// Bindings only adapt types: every status goes through check() (errors.cpp), and calls that can
// block (waits, copies, program creation) release the GIL.
#include "handles.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <mutex>
#include <vector>

namespace dpk::py {

Device::Device(dpk_device_t h) : handle(h) {
  info.struct_size = sizeof(info);
  check(dpk_device_get_info(&info, handle), "dpk_device_get_info");
}

Event::~Event() {
  if (!handle)
    return;
  // An async launch's arrays must outlive the command that reads them: wait before letting go.
  if (keepalive.is_valid() && !keepalive.is_none()) {
    nb::gil_scoped_release release;
    (void)dpk_event_wait(1, &handle);
  }
  dpk_event_release(handle);
}

void Event::wait() {
  dpk_status_t status;
  {
    nb::gil_scoped_release release;
    status = dpk_event_wait(1, &handle);
  }
  check(status, "dpk_event_wait");
}

namespace {

std::vector<dpk_event_t> eventHandles(nb::handle deps) {
  std::vector<dpk_event_t> out;
  if (deps.is_none())
    return out;
  for (nb::handle d : deps)
    out.push_back(nb::cast<Event &>(d).handle);
  return out;
}

// The Python callable that receives diagnostics records, if any.
std::mutex diagMutex;
nb::object *diagCallback = nullptr;

void diagnosticsTrampoline(int level, const char *json, void *) {
  nb::gil_scoped_acquire acquire;
  nb::object callback;
  {
    std::lock_guard<std::mutex> lock(diagMutex);
    if (!diagCallback)
      return;
    callback = *diagCallback;
  }
  try {
    callback(level, json);
  } catch (nb::python_error &e) {
    e.discard_as_unraisable("dpk diagnostics callback");
  }
}

// Queue.read: the copy without an event, then the queue's wait (which reports a failure of
// the copy or of any command before it). Array reads to the host go through here: one runtime
// call pair instead of a copy event, a device synchronize and the event's wait.
void copyAndWait(Queue &q, void *dst, uintptr_t src, size_t bytes) {
  dpk_status_t status;
  const char *call = "dpk_enqueue_copy";
  {
    nb::gil_scoped_release release; // once for both calls, as a waited launch does
    status = dpk_enqueue_copy(nullptr, q.handle, dst, reinterpret_cast<const void *>(src), bytes,
                              0, nullptr);
    if (status == DPK_SUCCESS) {
      call = "dpk_queue_wait";
      status = dpk_queue_wait(q.handle);
    }
  }
  check(status, call);
}

template <typename T> T readAs(Queue &q, uintptr_t src) {
  T value{};
  copyAndWait(q, &value, src, sizeof value);
  return value;
}

// Queue.read_scalar: one element as a Python number, without a NumPy array around it
// (float(dpk.sum(x)) reads one this way).
nb::object readScalar(Queue &q, uintptr_t src, const std::string &code) {
  if (code.size() != 1)
    throw nb::value_error("read_scalar: code must be one NumPy type character");
  switch (code[0]) {
  case '?': return nb::bool_(readAs<uint8_t>(q, src) != 0);
  case 'b': return nb::int_(readAs<int8_t>(q, src));
  case 'B': return nb::int_(readAs<uint8_t>(q, src));
  case 'h': return nb::int_(readAs<int16_t>(q, src));
  case 'H': return nb::int_(readAs<uint16_t>(q, src));
  case 'i': return nb::int_(readAs<int32_t>(q, src));
  case 'I': return nb::int_(readAs<uint32_t>(q, src));
  case 'l': case 'q': return nb::int_(readAs<int64_t>(q, src));
  case 'L': case 'Q': return nb::int_(readAs<uint64_t>(q, src));
  case 'f': return nb::float_(readAs<float>(q, src));
  case 'd': return nb::float_(readAs<double>(q, src));
  case 'F': {
    auto pair = readAs<std::array<float, 2>>(q, src);
    return nb::steal(PyComplex_FromDoubles(pair[0], pair[1]));
  }
  case 'D': {
    auto pair = readAs<std::array<double, 2>>(q, src);
    return nb::steal(PyComplex_FromDoubles(pair[0], pair[1]));
  }
  default:
    throw nb::value_error(("read_scalar: no Python number for type character '" + code + "'").c_str());
  }
}

} // namespace

void initRuntime(nb::module_ &m) {
  m.def("init", []() { check(dpk_init(), "dpk_init"); }, "Initializes the runtime now.");
  m.def("last_error", []() { return std::string(dpk_last_error()); });
  m.def("status_name", [](int s) { return std::string(dpk_status_name((dpk_status_t)s)); });

  nb::class_<Device>(m, "Device", "A dpk device (reference-counted handle).")
      .def_prop_ro("handle", [](Device &d) { return (uintptr_t)d.handle; })
      .def_prop_ro("backend", [](Device &d) { return std::string(d.info.backend); })
      .def_prop_ro("name", [](Device &d) { return std::string(d.info.name); })
      .def_prop_ro("vendor", [](Device &d) { return std::string(d.info.vendor); })
      .def_prop_ro("driver_version", [](Device &d) { return std::string(d.info.driver_version); })
      .def_prop_ro("filter_string", [](Device &d) { return std::string(d.info.filter_string); })
      .def_prop_ro("device_type", [](Device &d) { return (int)d.info.type; })
      .def_prop_ro("compute_units", [](Device &d) { return d.info.compute_units; })
      .def_prop_ro("global_mem_size", [](Device &d) { return d.info.global_mem_size; })
      .def_prop_ro("local_mem_size", [](Device &d) { return d.info.local_mem_size; })
      .def_prop_ro("max_work_group_size", [](Device &d) { return d.info.max_work_group_size; })
      .def_prop_ro("max_work_item_sizes",
                   [](Device &d) {
                     return std::vector<uint64_t>(d.info.max_work_item_sizes,
                                                  d.info.max_work_item_sizes + 3);
                   })
      .def_prop_ro("formats", [](Device &d) { return d.info.formats; })
      .def_prop_ro("aspects", [](Device &d) { return d.info.aspects; })
      .def_prop_ro(
          "sub_group_size",
          [](Device &d) {
            uint32_t size = 1;
            check(dpk_device_get_sub_group_size(&size, d.handle), "dpk_device_get_sub_group_size");
            return size;
          },
          "The sub-group size of dpk kernels on this device (dpk_device_get_sub_group_size).");

  m.def("device_count", []() {
    uint32_t n = 0;
    check(dpk_device_count(&n), "dpk_device_count");
    return n;
  });
  m.def(
      "get_device",
      [](uint32_t index) {
        dpk_device_t h = nullptr;
        check(dpk_device_get(&h, index), "dpk_device_get");
        return new Device(h);
      },
      "index"_a, nb::rv_policy::take_ownership);
  m.def(
      "select_device",
      [](const std::string &filter) {
        checkFilterText(filter);
        dpk_device_t h = nullptr;
        dpk_status_t status;
        {
          nb::gil_scoped_release release;
          status = dpk_device_select(&h, filter.empty() ? nullptr : filter.c_str());
        }
        check(status, "dpk_device_select");
        return new Device(h);
      },
      "filter"_a, nb::rv_policy::take_ownership,
      "The best device for a dpctl-style filter string (\"\" = the policy's default, which "
      "falls back to the host when the policy allows it; a named filter that matches nothing "
      "raises NoDeviceError listing the devices present).");

  nb::class_<Queue>(m, "Queue", "An in-order command queue of one device.")
      .def(
          "__init__",
          [](Queue *self, nb::object device, uint32_t flags) {
            dpk_queue_t h = nullptr;
            check(dpk_queue_create(&h, nb::cast<Device &>(device).handle, flags),
                  "dpk_queue_create");
            new (self) Queue(h, device);
          },
          "device"_a, "flags"_a = 0)
      .def_static(
          "from_native",
          [](nb::object device, int api, uintptr_t queue, nb::object owner) {
            dpk_native_queue_t native{};
            native.struct_size = sizeof native;
            native.api = static_cast<dpk_native_api_t>(api);
            native.queue = reinterpret_cast<void *>(queue);
            dpk_queue_t h = nullptr;
            check(dpk_queue_create_from_native(&h, nb::cast<Device &>(device).handle, &native),
                  "dpk_queue_create_from_native");
            auto *q = new Queue(h, device);
            q->borrowed = std::move(owner);
            return q;
          },
          "device"_a, "api"_a, "queue"_a, "owner"_a = nb::none(), nb::rv_policy::take_ownership,
          "A queue over a native queue someone else made (api: DPK_NATIVE_API_*; CUDA: a "
          "CUstream of the device's primary context); `owner` is kept alive with it.")
      .def(
          "native_handles",
          [](Queue &q) {
            dpk_native_queue_t native{};
            native.struct_size = sizeof native;
            check(dpk_queue_get_native(&native, q.handle), "dpk_queue_get_native");
            nb::dict out;
            out["api"] = static_cast<int>(native.api);
            out["memory"] = static_cast<int>(native.memory);
            out["order"] = static_cast<int>(native.order);
            out["platform"] = reinterpret_cast<uintptr_t>(native.platform);
            out["device"] = reinterpret_cast<uintptr_t>(native.device);
            out["context"] = reinterpret_cast<uintptr_t>(native.context);
            out["queue"] = reinterpret_cast<uintptr_t>(native.queue);
            out["arena"] = reinterpret_cast<uintptr_t>(native.arena);
            return out;
          },
          "The native handles behind the queue (dpk_queue_get_native) as integers.")
      .def_ro("device", &Queue::device)
      .def(
          "wait",
          [](Queue &q) {
            dpk_status_t status;
            {
              nb::gil_scoped_release release;
              status = dpk_queue_wait(q.handle);
            }
            check(status, "dpk_queue_wait");
          },
          "Waits for every command submitted so far.")
      .def(
          "copy",
          [](Queue &q, uintptr_t dst, uintptr_t src, size_t bytes, nb::handle deps,
             nb::object keepalive) {
            auto depHandles = eventHandles(deps);
            dpk_event_t ev = nullptr;
            dpk_status_t status;
            {
              nb::gil_scoped_release release;
              status = dpk_enqueue_copy(&ev, q.handle, (void *)dst, (const void *)src, bytes,
                                        (uint32_t)depHandles.size(), depHandles.data());
            }
            check(status, "dpk_enqueue_copy");
            return new Event(ev, keepalive);
          },
          "dst"_a, "src"_a, "bytes"_a, "deps"_a = nb::none(), "keepalive"_a = nb::none(),
          nb::rv_policy::take_ownership, "Enqueues a copy of `bytes` between addresses.")
      .def(
          "read",
          [](Queue &q, uintptr_t dst, uintptr_t src, size_t bytes) {
            copyAndWait(q, reinterpret_cast<void *>(dst), src, bytes);
          },
          "dst"_a, "src"_a, "bytes"_a,
          "Copies `bytes` from `src` to the host address `dst` and waits for the queue: the copy "
          "and every command before it (whose first failure it raises). One call, no event.")
      .def(
          "read_into",
          [](Queue &q, nb::handle dst, uintptr_t src, size_t bytes) {
            // (a writable C-contiguous buffer such as a new NumPy array: its address through
            // the buffer protocol costs a fraction of NumPy's `ctypes.data`)
            Py_buffer view;
            if (PyObject_GetBuffer(dst.ptr(), &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0)
              throw nb::python_error();
            struct Release {
              Py_buffer *view;
              ~Release() { PyBuffer_Release(view); }
            } release{&view};
            if ((size_t)view.len < bytes)
              throw StatusError(DPK_ERROR_INVALID_ARGUMENT,
                                "read_into: the destination holds " + std::to_string(view.len) +
                                    " bytes, " + std::to_string(bytes) + " asked for");
            copyAndWait(q, view.buf, src, bytes);
          },
          "dst"_a, "src"_a, "bytes"_a,
          "`read` into a writable C-contiguous buffer (a NumPy array) instead of an address.")
      .def(
          "read_scalar",
          [](Queue &q, uintptr_t src, const std::string &code) { return readScalar(q, src, code); },
          "src"_a, "code"_a,
          "The element at `src` as a Python bool, int, float or complex (`code`: a NumPy type "
          "character of ?bBhHiIlLqQfdFD), read as `read` does.")
      .def(
          "fill",
          [](Queue &q, uintptr_t dst, nb::bytes pattern, size_t bytes, nb::handle deps) {
            auto depHandles = eventHandles(deps);
            dpk_event_t ev = nullptr;
            check(dpk_enqueue_fill(&ev, q.handle, (void *)dst, pattern.c_str(), pattern.size(),
                                   bytes, (uint32_t)depHandles.size(), depHandles.data()),
                  "dpk_enqueue_fill");
            return new Event(ev, nb::none());
          },
          "dst"_a, "pattern"_a, "bytes"_a, "deps"_a = nb::none(), nb::rv_policy::take_ownership)
      .def(
          "gemm",
          [](Queue &q, int type, uint32_t flags, uint64_t m, uint64_t n, uint64_t k, uintptr_t a,
             uint64_t lda, uintptr_t b, uint64_t ldb, uintptr_t c, uint64_t ldc, double alpha,
             double beta, uint64_t batch, uint64_t strideA, uint64_t strideB, uint64_t strideC,
             nb::handle deps, nb::object keepalive) {
            dpk_gemm_desc_t desc{};
            desc.struct_size = sizeof desc;
            desc.type = static_cast<dpk_gemm_type_t>(type);
            desc.flags = flags;
            desc.m = m;
            desc.n = n;
            desc.k = k;
            desc.lda = lda;
            desc.ldb = ldb;
            desc.ldc = ldc;
            desc.alpha = alpha;
            desc.beta = beta;
            desc.batch = batch;
            desc.stride_a = strideA;
            desc.stride_b = strideB;
            desc.stride_c = strideC;
            desc.a = reinterpret_cast<const void *>(a);
            desc.b = reinterpret_cast<const void *>(b);
            desc.c = reinterpret_cast<void *>(c);
            auto depHandles = eventHandles(deps);
            dpk_event_t ev = nullptr;
            dpk_status_t status;
            {
              nb::gil_scoped_release release; // the host runs the GEMM before returning
              status = dpk_enqueue_gemm(&ev, q.handle, &desc, (uint32_t)depHandles.size(),
                                        depHandles.data());
            }
            check(status, "dpk_enqueue_gemm");
            return new Event(ev, keepalive);
          },
          "type"_a, "flags"_a, "m"_a, "n"_a, "k"_a, "a"_a, "lda"_a, "b"_a, "ldb"_a, "c"_a,
          "ldc"_a, "alpha"_a = 1.0, "beta"_a = 0.0, "batch"_a = 1, "stride_a"_a = 0,
          "stride_b"_a = 0, "stride_c"_a = 0, "deps"_a = nb::none(), "keepalive"_a = nb::none(),
          nb::rv_policy::take_ownership,
          "Enqueues batch products C = alpha * op(A) op(B) + beta * C with the device's vendor "
          "BLAS (dpk_enqueue_gemm: type 1 float32, 2 float64; flags 1 transposes A, 2 B; "
          "row-major, leading dimensions and batch strides in elements). UnsupportedError when "
          "the device's backend has no BLAS.");

  nb::class_<Event>(m, "Event", "A command's completion; wait() raises the command's error.")
      .def("wait", &Event::wait)
      .def("status",
           [](Event &e) {
             dpk_event_status_t s;
             check(dpk_event_status(&s, e.handle), "dpk_event_status");
             return (int)s;
           })
      .def(
          "elapsed_ns",
          [](Event &e) {
            uint64_t ns = 0;
            dpk_status_t status;
            {
              nb::gil_scoped_release release; // waits for the command
              status = dpk_event_elapsed_ns(&ns, e.handle);
            }
            if (status == DPK_ERROR_UNSUPPORTED)
              throw StatusError(status, std::string(dpk_last_error()) +
                                            " (from Python: q = dpk.Queue(device, "
                                            "enable_profiling=True), then "
                                            "dpk.call_kernel_async(..., queue=q))");
            check(status, "dpk_event_elapsed_ns");
            return ns;
          },
          "The command's device time in ns (waits for it); UnsupportedError unless it was "
          "submitted to a profiling queue.");
  m.def(
      "wait_events",
      [](nb::handle events) {
        auto handles = eventHandles(events);
        dpk_status_t status;
        {
          nb::gil_scoped_release release;
          status = dpk_event_wait((uint32_t)handles.size(), handles.data());
        }
        check(status, "dpk_event_wait");
      },
      "events"_a);

  m.def(
      "mem_alloc",
      [](Device &device, int kind, nb::int_ size) {
        // A Python int of any size: sizes no size_t holds are refused as such, not as a binding
        // error ("incompatible function arguments").
        size_t bytes = PyLong_AsSize_t(size.ptr());
        if (bytes == (size_t)-1 && PyErr_Occurred()) {
          bool negative = PyErr_ExceptionMatches(PyExc_OverflowError) &&
                          PyObject_RichCompareBool(size.ptr(), nb::int_(0).ptr(), Py_LT) == 1;
          PyErr_Clear();
          std::string text = nb::cast<std::string>(nb::str(size));
          if (negative)
            throw StatusError(DPK_ERROR_INVALID_ARGUMENT,
                              "cannot allocate a negative number of bytes (" + text + ")");
          throw StatusError(DPK_ERROR_OUT_OF_DEVICE_MEMORY,
                            "cannot allocate " + text + " bytes on " + device.info.filter_string +
                                ": more than the address space holds");
        }
        void *p = nullptr;
        check(dpk_mem_alloc(&p, device.handle, (dpk_mem_kind_t)kind, bytes), "dpk_mem_alloc");
        return (uintptr_t)p;
      },
      "device"_a, "kind"_a, "size"_a);
  m.def("mem_free", [](uintptr_t p) { check(dpk_mem_free((void *)p), "dpk_mem_free"); }, "ptr"_a);

  nb::class_<Program>(m, "Program", "Kernels from dpk IR text, compiled per device on first use.")
      .def_static(
          "from_ir",
          [](const std::string &text, const std::string &name, std::optional<bool> boundscheck,
             const std::vector<std::string> &link) {
            dpk_program_t h = nullptr;
            dpk_program_options_t options{};
            options.struct_size = sizeof(options);
            options.boundscheck = !boundscheck ? DPK_BOUNDSCHECK_DEFAULT
                                  : *boundscheck ? DPK_BOUNDSCHECK_ON
                                                 : DPK_BOUNDSCHECK_OFF;
            std::vector<const char *> linkFiles;
            for (const std::string &path : link)
              linkFiles.push_back(path.c_str());
            options.link_files = linkFiles.data();
            options.num_link_files = linkFiles.size();
            dpk_status_t status;
            {
              nb::gil_scoped_release release;
              status = dpk_program_create_from_ir_with_options(&h, text.data(), text.size(),
                                                               name.c_str(), &options);
            }
            check(status, "dpk_program_create_from_ir");
            return new Program(h);
          },
          "text"_a, "name"_a, "boundscheck"_a = nb::none(),
          "link"_a = std::vector<std::string>(), nb::rv_policy::take_ownership,
          "boundscheck: True/False, or None for DPK_BOUNDSCHECK / the policy's `boundscheck:`. "
          "link: files defining the IR's extern funcs (.ll .bc .cl .ptx .cu), docs/linking.md.");
  nb::class_<Kernel>(m, "Kernel", "One kernel of a Program.")
      .def(
          "__init__",
          [](Kernel *self, nb::object program, const std::string &name) {
            dpk_kernel_t h = nullptr;
            check(dpk_kernel_get(&h, nb::cast<Program &>(program).handle, name.c_str()),
                  "dpk_kernel_get");
            new (self) Kernel(h, program, name);
          },
          "program"_a, "name"_a)
      .def_ro("name", &Kernel::name);

  m.def(
      "set_diagnostics_callback",
      [](nb::object callback) {
        {
          std::lock_guard<std::mutex> lock(diagMutex);
          if (callback.is_none()) {
            delete diagCallback;
            diagCallback = nullptr;
          } else if (diagCallback) {
            *diagCallback = callback;
          } else {
            diagCallback = new nb::object(callback);
          }
        }
        check(dpk_diagnostics_set_callback(callback.is_none() ? nullptr : diagnosticsTrampoline,
                                           nullptr),
              "dpk_diagnostics_set_callback");
      },
      "callback"_a.none(), "Receives (level, json_text) for every diagnostics record.");
}

} // namespace dpk::py
