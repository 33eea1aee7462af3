// init_launch.cpp - the launch fast path: dpk._core.Launcher.
//
// One Launcher belongs to one Python kernel. call() computes a short signature key from the
// launch range and the arguments (kind, dtype and rank of each array, device of each dpk array,
// kind of each scalar), finds the plan for that key, packs the arguments and launches. Only a
// miss calls back into Python (which compiles, picks the device and returns a plan), so a warm
// call does a dictionary lookup, one buffer query per NumPy array and one dpk_enqueue_launch.
//
// A plan is either direct (kernel, queue and how to pack each argument: NumPy arrays go to the
// host device zero-copy as DPK_ARG_VIEW) or a Python callable that handles the launch itself
// (devices that need the NumPy arrays copied to and from them).
#include "handles.h"

#include <nanobind/stl/string.h>

#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace dpk::py {

namespace {

constexpr size_t MaxArgs = 64;

struct Plan {
  nb::object kernelObj; // Kernel
  nb::object queueObj;  // Queue
  dpk_kernel_t kernel = nullptr;
  dpk_queue_t queue = nullptr;
  std::string kinds;    // one char per Python argument (see packArgument)
  nb::object slow;      // when set: slow(range, args, deps, is_async) does the launch
};

// Types registered by dpk at import: Range (a tuple subclass) and NdRange.
PyObject *ndRangeType = nullptr;

// dpk's Array class (registered by dpk.arrays): host arrays have the buffer protocol too, but a
// launch takes them as dpk arrays (their own descriptor, device and signature).
PyObject *arrayType = nullptr;

PyObject *internedName(const char *text) {
  PyObject *name = PyUnicode_InternFromString(text);
  if (!name)
    throw nb::python_error();
  return name; // kept for the process's lifetime
}

/// Attribute names the launch reads on every call, interned once: CPython's type attribute
/// cache only serves interned names, and a name made per call (PyObject_GetAttrString) also
/// costs an allocation and a hash.
struct AttributeNames {
  PyObject *sig = internedName("_dpk_sig");
  PyObject *view = internedName("_dpk_view");
  PyObject *globalRange = internedName("_global_range");
  PyObject *localRange = internedName("_local_range");
};

const AttributeNames &names() {
  static const AttributeNames interned;
  return interned;
}

bool isBufferLike(PyObject *o) {
  return PyObject_CheckBuffer(o) && !(arrayType && PyObject_TypeCheck(o, (PyTypeObject *)arrayType));
}

/// Whether two elements of a strided view may share memory (strides and itemsize in one unit).
/// Sorting the dimensions of more than one element by stride, each stride must step over
/// everything the smaller ones span; this is the cheap test NumPy's ufuncs apply to outputs
/// (solve_may_have_internal_overlap, max_work=1). It catches zero strides (np.broadcast_to) and
/// overlapping as_strided views, and may also flag exotic interleaved strides whose elements
/// happen not to meet.
bool mayOverlap(int ndim, const int64_t *shape, const int64_t *strides, int64_t itemsize) {
  int64_t sorted[3];
  int64_t extents[3];
  int n = 0;
  for (int d = 0; d < ndim && d < 3; ++d) {
    if (shape[d] < 2)
      continue;
    sorted[n] = strides[d] < 0 ? -strides[d] : strides[d];
    extents[n] = shape[d];
    ++n;
  }
  for (int i = 1; i < n; ++i) { // insertion sort of at most three dimensions
    for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; --j) {
      std::swap(sorted[j - 1], sorted[j]);
      std::swap(extents[j - 1], extents[j]);
    }
  }
  int64_t span = itemsize;
  for (int i = 0; i < n; ++i) {
    if (sorted[i] < span)
      return true;
    span += sorted[i] * (extents[i] - 1);
  }
  return false;
}

bool mayOverlap(const Py_buffer &view) {
  if (!view.strides || view.ndim < 1 || view.ndim > 3)
    return false; // C-contiguous (or rejected later: more than 3 dimensions)
  int64_t shape[3], strides[3];
  for (int d = 0; d < view.ndim; ++d) {
    shape[d] = view.shape[d];
    strides[d] = view.strides[d];
  }
  return mayOverlap(view.ndim, shape, strides, view.itemsize);
}

/// Format character of a native-endian buffer element, or 0 for unsupported formats.
char formatChar(const char *format) {
  if (!format)
    return 'B';
  if (*format == '@' || *format == '=' || *format == '<')
    ++format;
  if (format[0] == 0 || format[1] != 0)
    return 0;
  switch (format[0]) {
  case '?': case 'b': case 'B': case 'h': case 'H': case 'i': case 'I': case 'l': case 'L':
  case 'q': case 'Q': case 'e': case 'f': case 'd':
    return format[0];
  }
  return 0;
}

bool readExtents(PyObject *seq, dpk_launch_config_t &cfg, bool local) {
  if (!PyTuple_Check(seq))
    return false;
  Py_ssize_t n = PyTuple_Size(seq);
  if (n < 1 || n > 3 || (local && (uint32_t)n != cfg.dims))
    return false;
  cfg.dims = (uint32_t)n;
  for (Py_ssize_t i = 0; i < n; ++i) {
    unsigned long long v = PyLong_AsUnsignedLongLong(PyTuple_GetItem(seq, i));
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    (local ? cfg.local_size : cfg.global_size)[i] = v;
  }
  return true;
}

/// Fills cfg from a Range or NdRange and appends 'R<d>' or 'N<d>' to key.
bool readRange(PyObject *range, dpk_launch_config_t &cfg, std::string &key) {
  std::memset(&cfg, 0, sizeof(cfg));
  if (PyTuple_Check(range)) {
    if (!readExtents(range, cfg, false))
      return false;
    key.push_back('R');
  } else if (ndRangeType && PyObject_TypeCheck(range, (PyTypeObject *)ndRangeType)) {
    nb::object g = nb::steal(PyObject_GetAttr(range, names().globalRange));
    nb::object l = nb::steal(PyObject_GetAttr(range, names().localRange));
    if (!g.is_valid() || !l.is_valid()) {
      PyErr_Clear();
      return false;
    }
    if (!readExtents(g.ptr(), cfg, false) || !readExtents(l.ptr(), cfg, true))
      return false;
    key.push_back('N');
  } else {
    return false;
  }
  key.push_back((char)('0' + cfg.dims));
  return true;
}

/// Per-call storage for packed arguments.
struct Packed {
  std::array<dpk_arg_t, MaxArgs> args;
  std::array<dpk_view_arg_t, MaxArgs> views;
  std::array<std::array<unsigned char, 16>, MaxArgs> scalars;
  std::array<Py_buffer, MaxArgs> buffers; // the first bufferCount hold views to release
  uint32_t bufferCount = 0;
  uint32_t count = 0;
  ~Packed() {
    for (uint32_t i = 0; i < bufferCount; ++i)
      PyBuffer_Release(&buffers[i]);
  }
};

/// An int of a dpk view descriptor (a Python int), or a TypeError naming what it is.
int64_t descriptorInt(PyObject *item) {
  long long v = PyLong_AsLongLong(item);
  if (v == -1 && PyErr_Occurred())
    throw nb::python_error();
  return v;
}

/// Packs a dpk array's descriptor `_dpk_view` = (address, ndim, shape tuple, strides tuple in
/// elements), read with the C API: this runs for every array of every launch.
void packDescriptor(dpk_view_arg_t &v, PyObject *desc) {
  if (!PyTuple_Check(desc) || PyTuple_GET_SIZE(desc) != 4)
    throw StatusError(DPK_ERROR_INVALID_ARGUMENT,
                      "internal: _dpk_view is not an (address, ndim, shape, strides) tuple");
  PyObject *shape = PyTuple_GET_ITEM(desc, 2);
  PyObject *strides = PyTuple_GET_ITEM(desc, 3);
  int64_t ndim = descriptorInt(PyTuple_GET_ITEM(desc, 1));
  if (ndim < 1 || ndim > 3 || !PyTuple_Check(shape) || !PyTuple_Check(strides) ||
      PyTuple_GET_SIZE(shape) < ndim || PyTuple_GET_SIZE(strides) < ndim)
    throw StatusError(DPK_ERROR_INVALID_ARGUMENT,
                      "internal: _dpk_view has a bad rank, shape or strides");
  void *data = PyLong_AsVoidPtr(PyTuple_GET_ITEM(desc, 0));
  if (!data && PyErr_Occurred())
    throw nb::python_error();
  v.data = data;
  v.ndim = (uint32_t)ndim;
  for (int64_t d = 0; d < ndim; ++d) {
    v.shape[d] = descriptorInt(PyTuple_GET_ITEM(shape, d));
    v.strides[d] = descriptorInt(PyTuple_GET_ITEM(strides, d));
  }
}

/// Appends the signature of argument `o` to key; false when the argument is of a kind the fast
/// path does not know (the Python side then decides, usually with a KernelTypeError).
bool signatureOf(PyObject *o, std::string &key, Py_buffer *view, bool &haveView) {
  haveView = false;
  if (PyBool_Check(o)) {
    key.push_back('b');
    return true;
  }
  if (PyLong_CheckExact(o)) {
    key.push_back('i');
    return true;
  }
  if (PyFloat_CheckExact(o)) {
    key.push_back('f');
    return true;
  }
  if (isBufferLike(o)) {
    if (PyObject_GetBuffer(o, view, PyBUF_RECORDS_RO) != 0) {
      PyErr_Clear();
      return false;
    }
    haveView = true;
    char f = formatChar(view->format);
    if (!f || view->ndim > 3)
      return false;
    key.push_back(view->ndim == 0 ? 'S' : 'A');
    key.push_back(f);
    key.push_back((char)('0' + view->ndim));
    // Buffers a kernel must not write get keys of their own, so that their first launch with
    // a kernel goes to Python, which rejects them for the parameters the kernel writes.
    if (view->readonly)
      key.push_back('r');
    if (view->ndim > 0 && mayOverlap(*view))
      key.push_back('o');
    return true;
  }
  // dpk device arrays and LocalAccessors describe themselves.
  PyObject *sig = PyObject_GetAttr(o, names().sig);
  if (!sig) {
    PyErr_Clear();
    return false;
  }
  Py_ssize_t len = 0;
  const char *text = PyUnicode_AsUTF8AndSize(sig, &len);
  if (!text) {
    PyErr_Clear();
    Py_DECREF(sig);
    return false;
  }
  key.push_back('O');
  // A dpk array's signature already says "r" (read-only memory) and "o" (overlapping view),
  // decided once from its fixed geometry (array_object.py), so its key needs no view read.
  key.append(text, (size_t)len);
  Py_DECREF(sig); // `text` dies with it
  key.push_back(';');
  return true;
}

class Launcher {
public:
  explicit Launcher(nb::object miss) : miss_(std::move(miss)) {}

  nb::object call(nb::handle range, nb::tuple args, nb::handle deps, bool isAsync,
                  bool wantEvent = true, bool dryRun = false);

  size_t planCount() {
    std::lock_guard<std::mutex> lock(mutex_);
    return plans_.size();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    plans_.clear();
  }

private:
  std::shared_ptr<Plan> planFor(const std::string &key, nb::handle range, nb::tuple args);

  nb::object miss_; // miss(range, args) -> (kernel, queue, kinds) or ("slow", callable)
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<Plan>> plans_;
};

std::shared_ptr<Plan> Launcher::planFor(const std::string &key, nb::handle range,
                                        nb::tuple args) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = plans_.find(key);
    if (it != plans_.end())
      return it->second;
  }
  // `key` is the calling thread's reused buffer, which the handler (Python) may reuse for a
  // launch of its own: the plan is stored under a copy.
  std::string stored = key;
  // miss_ is a weak reference to the dispatcher's handler: the dispatcher owns this Launcher,
  // and a strong reference back would be a cycle the garbage collector cannot see.
  nb::object handler = miss_();
  if (handler.is_none())
    throw StatusError(DPK_ERROR_INVALID_HANDLE, "the kernel of this launcher no longer exists");
  nb::object result = handler(range, args);
  auto plan = std::make_shared<Plan>();
  nb::tuple t = nb::cast<nb::tuple>(result);
  if (nb::isinstance<nb::str>(t[0])) {
    plan->slow = t[1];
  } else {
    plan->kernelObj = t[0];
    plan->queueObj = t[1];
    plan->kernel = nb::cast<Kernel &>(t[0]).handle;
    plan->queue = nb::cast<Queue &>(t[1]).handle;
    plan->kinds = nb::cast<std::string>(t[2]);
  }
  if (!stored.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    plans_.emplace(std::move(stored), plan);
  }
  return plan;
}

void packView(Packed &p, void *data, int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides,
              Py_ssize_t itemsize, size_t argIndex) {
  dpk_view_arg_t &v = p.views[p.count];
  v.data = data;
  v.ndim = (uint32_t)ndim;
  for (int d = 0; d < ndim; ++d) {
    v.shape[d] = shape[d];
    Py_ssize_t s = strides ? strides[d] : 0;
    if (!strides) { // C-contiguous buffer without strides
      s = 1;
      for (int e = d + 1; e < ndim; ++e)
        s *= shape[e];
      s *= itemsize;
    }
    if (s % itemsize != 0)
      throw StatusError(DPK_ERROR_INVALID_ARGUMENT,
                        "argument " + std::to_string(argIndex) +
                            ": array strides are not a multiple of its element size");
    v.strides[d] = s / itemsize;
  }
  p.args[p.count] = {DPK_ARG_VIEW, sizeof(dpk_view_arg_t), &v};
  ++p.count;
}

void packScalar(Packed &p, const void *bytes, size_t size) {
  std::memcpy(p.scalars[p.count].data(), bytes, size);
  p.args[p.count] = {DPK_ARG_SCALAR, size, p.scalars[p.count].data()};
  ++p.count;
}

nb::object Launcher::call(nb::handle range, nb::tuple args, nb::handle deps, bool isAsync,
                          bool wantEvent, bool dryRun) {
  size_t n = args.size();
  if (n > MaxArgs)
    throw StatusError(DPK_ERROR_INVALID_ARGUMENT, "too many kernel arguments (at most 64)");
  Packed packed;
  // The key's storage is reused call after call on a thread. Nothing read while it is built
  // launches (`_dpk_sig` is a string made from an array's fixed geometry); the miss handler,
  // which may, gets a copy (planFor).
  thread_local std::string key;
  key.clear();
  dpk_launch_config_t cfg;
  bool known = readRange(range.ptr(), cfg, key);
  std::array<char, MaxArgs> hasBuffer{};
  for (size_t i = 0; known && i < n; ++i) {
    bool haveView = false;
    known = signatureOf(args[i].ptr(), key, &packed.buffers[packed.bufferCount], haveView);
    if (haveView) {
      ++packed.bufferCount;
      hasBuffer[i] = 1;
    }
  }
  std::shared_ptr<Plan> plan = planFor(known ? key : std::string(), range, args);
  if (plan->slow.is_valid()) {
    if (dryRun)
      return nb::none();
    nb::object result = plan->slow(range, args, deps, isAsync);
    // (an unwanted event is dropped here, which waits for its command: correct, if slower)
    return wantEvent ? result : nb::none();
  }
  if (!known) // the miss handler accepted arguments the fast path cannot read
    throw StatusError(DPK_ERROR_INVALID_ARGUMENT, "internal: unkeyed direct launch plan");

  size_t bufferIndex = 0;
  for (size_t i = 0; i < n; ++i) {
    PyObject *o = args[i].ptr();
    char kind = plan->kinds[i];
    Py_buffer *view = hasBuffer[i] ? &packed.buffers[bufferIndex++] : nullptr;
    switch (kind) {
    case 'V':
      packView(packed, view->buf, view->ndim, view->shape, view->strides, view->itemsize, i);
      break;
    case 'S':
      packScalar(packed, view->buf, (size_t)view->itemsize);
      break;
    case 'i': {
      long long v = PyLong_AsLongLong(o);
      if (v == -1 && PyErr_Occurred())
        throw nb::python_error();
      int64_t x = v;
      packScalar(packed, &x, sizeof(x));
      break;
    }
    case 'f': {
      double x = PyFloat_AsDouble(o);
      packScalar(packed, &x, sizeof(x));
      break;
    }
    case 'b': {
      unsigned char x = (o == Py_True) ? 1 : 0;
      packScalar(packed, &x, 1);
      break;
    }
    case 'D': {
      // dpk device array: _dpk_view = (ptr, ndim, shape tuple, strides tuple in elements)
      nb::object desc = nb::steal(PyObject_GetAttr(o, names().view));
      if (!desc.is_valid())
        throw nb::python_error();
      dpk_view_arg_t &v = packed.views[packed.count];
      packDescriptor(v, desc.ptr());
      packed.args[packed.count] = {DPK_ARG_VIEW, sizeof(dpk_view_arg_t), &v};
      ++packed.count;
      break;
    }
    case '-': // compile-time argument (a LocalAccessor): nothing to pass
      break;
    default:
      throw StatusError(DPK_ERROR_INVALID_ARGUMENT, "internal: bad argument kind in launch plan");
    }
  }

  std::vector<dpk_event_t> depHandles;
  if (!deps.is_none())
    for (nb::handle d : deps)
      depHandles.push_back(nb::cast<Event &>(d).handle);

  if (dryRun) // benchmarks: everything but the launch itself
    return nb::none();
  dpk_event_t event = nullptr;
  dpk_status_t status;
  bool withEvent = isAsync && wantEvent;
  {
    nb::gil_scoped_release release;
    // A launch that is waited for at once, or whose caller will only ever wait for the whole
    // queue, asks for no event: the queue's wait covers it (and names it if it failed), and a
    // GPU event costs a record, a Python object and its own wait.
    status = dpk_enqueue_launch(withEvent ? &event : nullptr, plan->queue, plan->kernel, &cfg,
                                packed.count, packed.args.data(), (uint32_t)depHandles.size(),
                                depHandles.data());
    if (status == DPK_SUCCESS && !isAsync)
      status = dpk_queue_wait(plan->queue);
  }
  if (status != DPK_SUCCESS) {
    std::string message = dpk_last_error();
    if (event)
      dpk_event_release(event);
    throw StatusError(status, message.empty() ? "kernel launch failed" : message);
  }
  if (!withEvent)
    return nb::none();
  // The arguments stay alive (and the arrays' memory valid) until the command completed.
  return nb::cast(new Event(event, args), nb::rv_policy::take_ownership);
}

} // namespace

void setLaunchArrayType(nb::handle type) {
  Py_XINCREF(type.ptr());
  arrayType = type.ptr();
}

void initLaunch(nb::module_ &m) {
  m.def(
      "set_launch_types", [](nb::handle ndRange) {
        Py_XINCREF(ndRange.ptr());
        ndRangeType = ndRange.ptr();
      },
      "nd_range"_a, "Registers dpk's NdRange class with the launch fast path.");
  nb::class_<Launcher>(m, "Launcher", "The per-kernel launch fast path (plans per signature).")
      .def(nb::init<nb::object>(), "miss"_a)
      .def(
          "call",
          [](Launcher &l, nb::handle range, nb::tuple args, nb::handle deps, bool isAsync,
             bool wantEvent) { return l.call(range, args, deps, isAsync, wantEvent); },
          "range"_a.none(), "args"_a, "deps"_a.none(), "is_async"_a, "want_event"_a = true,
          "Launches; returns None (waited, or is_async without want_event: the queue's wait "
          "reports a failure) or an Event (is_async).")
      .def(
          "pack_only",
          [](Launcher &l, nb::handle range, nb::tuple args) {
            return l.call(range, args, nb::none(), false, false, true);
          },
          "range"_a.none(), "args"_a,
          "Does a call's lookup and packing without launching (measures the frontend's share).")
      .def_prop_ro("plan_count", &Launcher::planCount)
      .def("clear", &Launcher::clear);
}

} // namespace dpk::py
