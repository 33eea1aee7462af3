// init_immediate.cpp - elementwise operations on small arrays, run at once:
// dpk._core.ImmediateOps and the pooled memory of their results, dpk._core.SmallBlock.
//
// Why this exists: what a one-element `x + 1` costs is the Python around its launch: a graph
// node, then at materialization a plan, a recipe lookup, a pooled buffer and the Launcher's
// packing, 20-40 microseconds on the host device against NumPy's one C call of 1-3, and on a
// GPU most of a 16-microsecond operation. ImmediateOps does the whole operation in one call
// from the Array's operator: it reads the operands' geometry, finds the kernel the array layer
// generated for that operation, those dtypes and that device (asked of Python once per
// combination: `learn`), takes the result's memory from a pool of small blocks, launches (on
// the host device the launch has finished when it returns; other devices' launches are
// asynchronous on the device's in-order array queue, as the general path's are) and returns
// the new Array. Anything it does not handle (a lazy or strided operand, a NumPy operand, an
// operation Python declined) returns None, and the operator takes the general path
// (dpk/arrays/immediate.py says which operations qualify and why).
#include "handles.h"

#include <structmember.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace dpk::py {

namespace {

/// The Array's fixed attributes, which it keeps in __slots__ (dpk/arrays/array_object.py):
/// read and written here at their offsets in the object, as CPython's own member descriptors
/// do, instead of through attribute lookups (seven reads and seven writes by name were a third
/// of a one-element operation).
struct ArraySlots {
  Py_ssize_t shape = -1, dtype = -1, device = -1, base = -1, offset = -1, strides = -1,
             node = -1;

  explicit ArraySlots(PyTypeObject *type) {
    shape = offsetOf(type, "_shape");
    dtype = offsetOf(type, "_dtype");
    device = offsetOf(type, "_device");
    base = offsetOf(type, "_base");
    offset = offsetOf(type, "_offset");
    strides = offsetOf(type, "_strides");
    node = offsetOf(type, "_node");
  }

  /// A slot's value (borrowed), or nullptr while it is unset.
  static PyObject *get(PyObject *o, Py_ssize_t at) { return *(PyObject **)((char *)o + at); }

  /// Sets a slot of a new object (nothing to release: tp_alloc zeroed it).
  static void init(PyObject *o, Py_ssize_t at, PyObject *value) {
    Py_INCREF(value);
    *(PyObject **)((char *)o + at) = value;
  }

private:
  static Py_ssize_t offsetOf(PyTypeObject *type, const char *name) {
    PyObject *descr = PyDict_GetItemString(type->tp_dict, name); // borrowed
    if (!descr || Py_TYPE(descr) != &PyMemberDescr_Type)
      throw StatusError(DPK_ERROR_INVALID_ARGUMENT,
                        std::string("internal: the array class has no slot ") + name);
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX)
      throw StatusError(DPK_ERROR_INVALID_ARGUMENT,
                        std::string("internal: the array class's ") + name + " is not a slot");
    return member->offset;
  }
};

// Attribute names of an array's base (a Buffer or a SmallBlock), kept for the process's lifetime.
PyObject *const ptrName = PyUnicode_InternFromString("ptr");
PyObject *const readOnlyName = PyUnicode_InternFromString("read_only");

// ---- result memory -----------------------------------------------------------------------------

/// Freed small blocks by (device, size class): a result of a few elements is allocated and
/// freed once per operation, and dpk_mem_alloc plus dpk_mem_free would cost as much as the
/// launch. A freed block is reused at once: on the host device every launch that used it has
/// completed; on other devices every launch of array work runs on the device's one in-order
/// queue, so a later use comes after the earlier ones (as dpk/arrays/memory.py's pool reasons).
/// A block really freed (the pool full) waits for that queue first.
class BlockPool {
public:
  static constexpr size_t MinBlock = 64;
  static constexpr size_t MaxHeldBytes = 4u << 20;

  static size_t sizeClass(size_t bytes) {
    size_t size = MinBlock;
    while (size < bytes)
      size <<= 1;
    return size;
  }

  void *take(dpk_device_t device, size_t size) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.find(Key{device, size});
      if (it != free_.end() && !it->second.empty()) {
        void *p = it->second.back();
        it->second.pop_back();
        held_ -= size;
        return p;
      }
    }
    void *p = nullptr;
    check(dpk_mem_alloc(&p, device, DPK_MEM_DEVICE, size), "dpk_mem_alloc");
    return p;
  }

  /// Returns a block; `pending` is the queue whose launches may still use it (nullptr when
  /// they have all completed).
  void give(dpk_device_t device, size_t size, void *p, dpk_queue_t pending) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (held_ + size <= MaxHeldBytes) {
        free_[Key{device, size}].push_back(p);
        held_ += size;
        return;
      }
    }
    // (a destructor: a failure has nowhere to go; a failed wait reports again at the next one)
    if (pending)
      dpk_queue_wait(pending);
    dpk_mem_free(p);
  }

  size_t heldBytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_;
  }

private:
  struct Key {
    dpk_device_t device;
    size_t size;
    bool operator==(const Key &o) const { return device == o.device && size == o.size; }
  };
  struct KeyHash {
    size_t operator()(const Key &k) const {
      return std::hash<const void *>()(k.device) ^ (k.size * 0x9E3779B97F4A7C15ull);
    }
  };
  std::mutex mutex_;
  std::unordered_map<Key, std::vector<void *>, KeyHash> free_;
  size_t held_ = 0;
};

BlockPool &pool() {
  static BlockPool *p = new BlockPool; // never destroyed: blocks may be freed during exit
  return *p;
}

} // namespace

/// The memory of an immediate result: what an Array's `_base` offers (ptr, nbytes, device,
/// owner, read_only), as dpk/arrays/memory.py's Buffer does; its block goes back to the pool
/// when the last array over it is gone. A plain CPython type rather than a nanobind class: a
/// nanobind instance is registered in nanobind's instance map when made and removed when freed,
/// which cost a third of a one-element operation (0.64 of 2 microseconds, measured).
struct SmallBlockObject {
  PyObject_HEAD
  PyObject *weakrefs;
  unsigned long long ptr;
  Py_ssize_t nbytes;
  PyObject *device; // the Python Device
  dpk_device_t handle;
  size_t size;      // the block's size class
  dpk_queue_t pending; // the queue of asynchronous launches that may use it (nullptr: none)
};

PyTypeObject *smallBlockType = nullptr;

void smallBlockDealloc(PyObject *self) {
  auto *block = (SmallBlockObject *)self;
  if (block->weakrefs)
    PyObject_ClearWeakRefs(self);
  if (block->ptr)
    pool().give(block->handle, block->size, (void *)block->ptr, block->pending);
  Py_XDECREF(block->device);
  PyTypeObject *type = Py_TYPE(self);
  ((freefunc)PyType_GetSlot(type, Py_tp_free))(self);
  Py_DECREF(type);
}

PyObject *returnNone(PyObject *, void *) { Py_RETURN_NONE; }
PyObject *returnFalse(PyObject *, void *) { Py_RETURN_FALSE; }

PyMemberDef smallBlockMembers[] = {
    {"ptr", T_ULONGLONG, offsetof(SmallBlockObject, ptr), READONLY, "The block's address."},
    {"nbytes", T_PYSSIZET, offsetof(SmallBlockObject, nbytes), READONLY, "Bytes asked for."},
    {"device", T_OBJECT, offsetof(SmallBlockObject, device), READONLY, "The dpk Device."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(SmallBlockObject, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyGetSetDef smallBlockGetSet[] = {
    {"owner", returnNone, nullptr, "None: the block is dpk's own memory.", nullptr},
    {"read_only", returnFalse, nullptr, "False: results are writable.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot smallBlockSlots[] = {
    {Py_tp_dealloc, (void *)smallBlockDealloc},
    {Py_tp_members, smallBlockMembers},
    {Py_tp_getset, smallBlockGetSet},
    {Py_tp_doc, (void *)"Pooled device memory of an immediate result (an Array's _base)."},
    {0, nullptr}};

PyType_Spec smallBlockSpec = {"dpk._core.SmallBlock", sizeof(SmallBlockObject), 0,
                              Py_TPFLAGS_DEFAULT, smallBlockSlots};

/// A new block of at least `bytes` on `device` (handle: its native device), from the pool;
/// `pending`: the queue of asynchronous launches that will use it (nullptr: launches there
/// complete before they return).
nb::object newSmallBlock(dpk_device_t handle, PyObject *device, size_t bytes,
                         dpk_queue_t pending) {
  size_t size = BlockPool::sizeClass(bytes);
  void *p = pool().take(handle, size); // (throws before anything needs undoing)
  auto *block = PyObject_New(SmallBlockObject, smallBlockType);
  if (!block) {
    pool().give(handle, size, p, nullptr); // (never used)
    throw nb::python_error();
  }
  block->weakrefs = nullptr;
  block->ptr = (unsigned long long)(uintptr_t)p;
  block->nbytes = (Py_ssize_t)bytes;
  Py_INCREF(device);
  block->device = device;
  block->handle = handle;
  block->size = size;
  block->pending = pending;
  return nb::steal((PyObject *)block);
}

namespace {

// ---- the operation table -----------------------------------------------------------------------

/// One operand's part of a key: an array's dtype object, or the Python type of a scalar.
enum class Scalar : char { None = 0, Int = 'i', Float = 'f', Bool = 'b' };

struct Key {
  int op;
  PyObject *dtype0, *dtype1; // the arrays' dtypes (nullptr for a scalar or a missing operand)
  Scalar scalar;             // the scalar operand's kind
  bool scalarFirst;          // `1 - x` rather than `x - 1`
  bool sameMemory;           // both operands view the same elements (`x * x`)
  PyObject *device;
  bool operator==(const Key &o) const {
    return op == o.op && dtype0 == o.dtype0 && dtype1 == o.dtype1 && scalar == o.scalar &&
           scalarFirst == o.scalarFirst && sameMemory == o.sameMemory && device == o.device;
  }
};

struct KeyHash {
  size_t operator()(const Key &k) const {
    size_t h = (size_t)k.op * 0x9E3779B97F4A7C15ull;
    h ^= std::hash<const void *>()(k.dtype0) + (h << 6) + (h >> 2);
    h ^= std::hash<const void *>()(k.dtype1) + (h << 6) + (h >> 2);
    h ^= std::hash<const void *>()(k.device) + (h << 6) + (h >> 2);
    return h ^ ((size_t)k.scalar << 1) ^ ((size_t)k.scalarFirst << 9) ^ ((size_t)k.sameMemory << 10);
  }
};

/// What Python taught for a key: the kernel (arguments: the result's view, then one view per
/// distinct array operand, then the scalar as its 8-byte or 1-byte carrier), or `usable` false
/// when this combination always takes the general path.
struct Entry {
  bool usable = false;
  nb::object pinned;      // the key's dtype and device objects: their addresses stay theirs
  nb::object kernelObj, queueObj, resultDtype, deviceObj;
  dpk_kernel_t kernel = nullptr;
  dpk_queue_t queue = nullptr;
  dpk_device_t deviceHandle = nullptr;
  size_t itemsize = 0;          // the result's element size
  int64_t operandItemsize[2] = {0, 0}; // of the first and second array operand
  int64_t intLow = INT64_MIN, intHigh = INT64_MAX; // the values an integer scalar may take
  /// 0: a Range launch over the elements. Otherwise the general path's flat launch on GPUs: an
  /// NdRange of groups of this many items covering the elements, their count as a last int64
  /// argument (the kernel's bounds check).
  uint64_t group = 0;
  bool waits = true; // the launch is waited for (the host device) or left asynchronous
};

/// One operand as read from Python.
struct Operand {
  PyObject *object = nullptr;
  bool isArray = false;
  // arrays
  PyObject *shape = nullptr, *dtype = nullptr, *device = nullptr, *base = nullptr;
  int64_t size = 0;
  uintptr_t address = 0; // the base's address, and the view's offset in elements
  int64_t offset = 0;
  // scalars
  Scalar scalar = Scalar::None;
};

class ImmediateOps {
public:
  ImmediateOps(nb::handle arrayType, nb::object learn, int64_t maxElements)
      : arrayType_((PyTypeObject *)arrayType.ptr()), arrayTypeRef_(nb::borrow(arrayType)),
        slots_(arrayType_), learn_(std::move(learn)), maxElements_(maxElements) {}

  nb::object unary(int op, nb::handle x) {
    Operand a;
    if (!readArray(x.ptr(), a))
      return nb::none();
    return run(op, a, nullptr);
  }

  nb::object binary(int op, nb::handle x, nb::handle y) {
    Operand a, b;
    if (Py_TYPE(x.ptr()) == arrayType_) {
      if (!readArray(x.ptr(), a) || !readPartner(y.ptr(), a, b))
        return nb::none();
      return run(op, a, &b);
    }
    if (Py_TYPE(y.ptr()) == arrayType_) { // `1 - x`
      if (!readScalar(x.ptr(), a) || !readArray(y.ptr(), b))
        return nb::none();
      return run(op, a, &b);
    }
    return nb::none();
  }

  /// `x op= y` into x's own memory: x's array and dtype must be the result's, x must be
  /// writable, and y (an array) may not overlap x except as the very same elements. Returns x,
  /// or None for the general path (which also flushes lazy readers of x: the caller makes sure
  /// there are none before calling).
  nb::object inplace(int op, nb::handle x, nb::handle y) {
    Operand a, b;
    if (!readArray(x.ptr(), a) || !readPartner(y.ptr(), a, b))
      return nb::none();
    PyObject *readOnly = PyObject_GetAttr(a.base, readOnlyName);
    if (!readOnly)
      throw nb::python_error();
    int isReadOnly = PyObject_IsTrue(readOnly);
    Py_DECREF(readOnly);
    if (isReadOnly != 0) // (or an error): the general path raises its own
      return nb::none();
    nb::object done = run(op, a, &b, &a);
    if (done.is_none())
      return done;
    return nb::borrow(x);
  }

  int64_t maxElements() const { return maxElements_; }
  void setMaxElements(int64_t n) { maxElements_ = n; }
  size_t entryCount() const { return entries_.size(); }
  uint64_t launches() const { return launches_; }
  void clear() { entries_.clear(); }

private:
  static constexpr size_t MaxEntries = 4096;

  /// Reads a materialized array of 1..maxElements elements in C order (any strides when it has
  /// one element); false for anything else.
  bool readArray(PyObject *o, Operand &out) {
    if (Py_TYPE(o) != arrayType_)
      return false;
    PyObject *node = ArraySlots::get(o, slots_.node);
    if (node != Py_None)
      return false; // lazy: its graph is the general path's business
    out.shape = ArraySlots::get(o, slots_.shape);
    if (!out.shape || !PyTuple_Check(out.shape))
      return false;
    Py_ssize_t ndim = PyTuple_GET_SIZE(out.shape);
    int64_t extents[64];
    if (ndim > 64)
      return false;
    int64_t size = 1;
    for (Py_ssize_t d = 0; d < ndim; ++d) {
      extents[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(out.shape, d));
      size *= extents[d];
      if (size > maxElements_)
        return false;
    }
    if (size < 1)
      return false;
    if (size > 1) {
      PyObject *strides = ArraySlots::get(o, slots_.strides);
      if (!strides || !PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != ndim)
        return false;
      int64_t step = 1;
      for (Py_ssize_t d = ndim - 1; d >= 0; --d) {
        if (extents[d] != 1 && PyLong_AsLongLong(PyTuple_GET_ITEM(strides, d)) != step)
          return false;
        step *= extents[d];
      }
    }
    out.object = o;
    out.isArray = true;
    out.size = size;
    out.dtype = ArraySlots::get(o, slots_.dtype);
    out.device = ArraySlots::get(o, slots_.device);
    out.base = ArraySlots::get(o, slots_.base);
    PyObject *offset = ArraySlots::get(o, slots_.offset);
    if (!out.dtype || !out.device || !out.base || !offset)
      return false;
    PyObject *ptr = PyObject_GetAttr(out.base, ptrName);
    if (!ptr)
      throw nb::python_error();
    out.address = (uintptr_t)PyLong_AsUnsignedLongLong(ptr);
    Py_DECREF(ptr);
    out.offset = PyLong_AsLongLong(offset);
    if (PyErr_Occurred())
      throw nb::python_error();
    return true;
  }

  /// Reads the operand beside array `a`: an array of a's device and shape, or a scalar.
  bool readPartner(PyObject *o, const Operand &a, Operand &out) {
    if (Py_TYPE(o) != arrayType_)
      return readScalar(o, out);
    return readArray(o, out) && out.device == a.device && sameShape(a.shape, out.shape);
  }

  static bool readScalar(PyObject *o, Operand &out) {
    PyTypeObject *t = Py_TYPE(o);
    out.object = o;
    if (t == &PyBool_Type)
      out.scalar = Scalar::Bool;
    else if (t == &PyLong_Type)
      out.scalar = Scalar::Int;
    else if (t == &PyFloat_Type)
      out.scalar = Scalar::Float;
    else
      return false;
    return true;
  }

  static bool sameShape(PyObject *s, PyObject *t) {
    if (s == t)
      return true;
    int equal = PyObject_RichCompareBool(s, t, Py_EQ);
    if (equal < 0)
      throw nb::python_error();
    return equal == 1;
  }

  Entry &entryFor(int op, const Operand &a, const Operand *b) {
    const Operand &array = a.isArray ? a : *b;
    const Operand *other = a.isArray ? b : &a;
    Key key{op, array.dtype, nullptr, Scalar::None, !a.isArray, false, array.device};
    if (other) {
      if (other->isArray) {
        key.dtype1 = other->dtype;
        key.sameMemory = sameMemory(array, *other);
      } else {
        key.scalar = other->scalar;
      }
    }
    auto it = entries_.find(key);
    if (it != entries_.end())
      return it->second;
    nb::object taught = learn_(op, nb::handle(a.object), b ? nb::handle(b->object) : nb::none());
    Entry entry;
    entry.pinned = nb::make_tuple(nb::handle(key.dtype0),
                                  key.dtype1 ? nb::handle(key.dtype1) : nb::none(),
                                  nb::handle(key.device));
    if (!taught.is_none()) {
      // (kernel, queue, result dtype, device, device handle, int low, int high, the array
      // operands' element sizes, group size of a flat launch or 0, whether launches wait)
      nb::tuple t = nb::cast<nb::tuple>(taught);
      entry.usable = true;
      entry.kernelObj = t[0];
      entry.queueObj = t[1];
      entry.resultDtype = t[2];
      entry.deviceObj = t[3];
      entry.kernel = nb::cast<Kernel &>(t[0]).handle;
      entry.queue = nb::cast<Queue &>(t[1]).handle;
      entry.deviceHandle = nb::cast<Device &>(t[4]).handle;
      entry.itemsize = nb::cast<size_t>(entry.resultDtype.attr("itemsize"));
      entry.intLow = nb::cast<int64_t>(t[5]);
      entry.intHigh = nb::cast<int64_t>(t[6]);
      entry.operandItemsize[0] = nb::cast<int64_t>(t[7]);
      entry.operandItemsize[1] = nb::cast<int64_t>(t[8]);
      entry.group = nb::cast<uint64_t>(t[9]);
      entry.waits = nb::cast<bool>(t[10]);
    }
    if (entries_.size() >= MaxEntries)
      entries_.clear();
    return entries_.emplace(key, std::move(entry)).first->second;
  }

  /// Runs op(a[, b]) into a new block, or into `into` (an in-place operation's target, which is
  /// `a`); None when the general path must.
  nb::object run(int op, const Operand &a, const Operand *b, const Operand *into = nullptr) {
    // A copy (references, not new objects): the GIL is released during the launch, and another
    // thread may clear the table meanwhile.
    const Entry entry = entryFor(op, a, b);
    if (!entry.usable)
      return nb::none();
    const Operand &array = a.isArray ? a : *b;
    if (into) {
      if (entry.resultDtype.ptr() != into->dtype)
        return nb::none(); // a cast into x's dtype: the general path's rules and checks
      if (b && b->isArray && !sameMemory(*into, *b) &&
          overlap(dataOf(*into, entry.operandItemsize[0]), dataOf(*b, entry.operandItemsize[1]),
                  (size_t)array.size * entry.itemsize, (size_t)b->size * entry.operandItemsize[1]))
        return nb::none(); // y reads elements x's other work-items write
    }

    dpk_view_arg_t views[3];
    dpk_arg_t args[5]; // the result's view, up to two operand views, a scalar, a flat count
    uint32_t count = 0;
    auto addView = [&](void *data) {
      dpk_view_arg_t &v = views[count];
      std::memset(&v, 0, sizeof(v));
      v.data = data;
      v.ndim = 1;
      v.shape[0] = array.size;
      v.strides[0] = 1;
      args[count] = {DPK_ARG_VIEW, sizeof(dpk_view_arg_t), &v};
      ++count;
    };
    int64_t intValue = 0;
    double floatValue = 0;
    unsigned char boolValue = 0;
    const Operand *scalar = !a.isArray ? &a : (b && !b->isArray ? b : nullptr);
    if (scalar && scalar->scalar == Scalar::Int) {
      int overflow = 0;
      intValue = PyLong_AsLongLongAndOverflow(scalar->object, &overflow);
      if (overflow || intValue < entry.intLow || intValue > entry.intHigh)
        return nb::none(); // the general path converts or rejects it, with its message
    }

    nb::object memoryObj;
    if (into) {
      addView(dataOf(*into, entry.operandItemsize[0]));
    } else {
      memoryObj = newSmallBlock(entry.deviceHandle, entry.deviceObj.ptr(),
                                (size_t)array.size * entry.itemsize,
                                entry.waits ? nullptr : entry.queue);
      addView((void *)(uintptr_t)((SmallBlockObject *)memoryObj.ptr())->ptr);
    }
    addView(dataOf(array, entry.operandItemsize[0]));
    if (a.isArray && b && b->isArray && !sameMemory(a, *b))
      addView(dataOf(*b, entry.operandItemsize[1]));
    if (scalar) {
      args[count].kind = DPK_ARG_SCALAR;
      switch (scalar->scalar) {
      case Scalar::Int:
        args[count].size = sizeof(intValue);
        args[count].value = &intValue;
        break;
      case Scalar::Float:
        floatValue = PyFloat_AS_DOUBLE(scalar->object);
        args[count].size = sizeof(floatValue);
        args[count].value = &floatValue;
        break;
      default:
        boolValue = scalar->object == Py_True ? 1 : 0;
        args[count].size = 1;
        args[count].value = &boolValue;
        break;
      }
      ++count;
    }

    dpk_launch_config_t cfg;
    std::memset(&cfg, 0, sizeof(cfg));
    cfg.dims = 1;
    cfg.global_size[0] = (uint64_t)array.size;
    int64_t elements = array.size;
    if (entry.group) {
      cfg.global_size[0] = (cfg.global_size[0] + entry.group - 1) / entry.group * entry.group;
      cfg.local_size[0] = entry.group;
      args[count++] = {DPK_ARG_SCALAR, sizeof(elements), &elements};
    }
    dpk_status_t status;
    {
      // (released although the launch is short: another thread's command may be ahead of it on
      // the queue, a command may need the GIL to finish, and a full device queue blocks)
      nb::gil_scoped_release release;
      status = dpk_enqueue_launch(nullptr, entry.queue, entry.kernel, &cfg, count, args, 0,
                                  nullptr);
      // Other devices: asynchronous and without an event, as the general path's launches
      // there; a failure after the launch returned is reported by the queue's next wait, by
      // the kernel's name.
      if (status == DPK_SUCCESS && entry.waits)
        status = dpk_queue_wait(entry.queue);
    }
    if (status != DPK_SUCCESS) {
      std::string message = dpk_last_error();
      throw StatusError(status, message.empty() ? "kernel launch failed" : message);
    }
    ++launches_;
    if (into)
      return nb::borrow(into->object);
    return makeArray(array, entry, memoryObj);
  }

  static bool overlap(const void *p, const void *q, size_t pBytes, size_t qBytes) {
    auto x = (uintptr_t)p, y = (uintptr_t)q;
    return x < y + qBytes && y < x + pBytes;
  }

  /// Whether two array operands view the same elements (the graph then has one leaf for both).
  static bool sameMemory(const Operand &a, const Operand &b) {
    return a.base == b.base && a.offset == b.offset && a.dtype == b.dtype;
  }

  static void *dataOf(const Operand &o, int64_t itemsize) {
    return (void *)(o.address + (uintptr_t)(o.offset * itemsize));
  }

  /// A new materialized Array (what Array._view makes) over `memory`, C-contiguous.
  nb::object makeArray(const Operand &like, const Entry &entry, nb::object memory) {
    nb::object result = nb::steal(arrayType_->tp_alloc(arrayType_, 0));
    if (!result.is_valid())
      throw nb::python_error();
    Py_ssize_t ndim = PyTuple_GET_SIZE(like.shape);
    nb::object strides = nb::steal(PyTuple_New(ndim));
    int64_t step = 1;
    for (Py_ssize_t d = ndim - 1; d >= 0; --d) {
      PyTuple_SET_ITEM(strides.ptr(), d, PyLong_FromLongLong(step));
      int64_t extent = PyLong_AsLongLong(PyTuple_GET_ITEM(like.shape, d));
      step *= extent > 1 ? extent : 1;
    }
    PyObject *o = result.ptr();
    ArraySlots::init(o, slots_.shape, like.shape);
    ArraySlots::init(o, slots_.dtype, entry.resultDtype.ptr());
    ArraySlots::init(o, slots_.device, entry.deviceObj.ptr());
    ArraySlots::init(o, slots_.base, memory.ptr());
    ArraySlots::init(o, slots_.offset, zero());
    ArraySlots::init(o, slots_.strides, strides.ptr());
    ArraySlots::init(o, slots_.node, Py_None);
    return result;
  }

  static PyObject *zero() {
    static PyObject *z = PyLong_FromLong(0);
    return z;
  }

  PyTypeObject *arrayType_;
  nb::object arrayTypeRef_;
  ArraySlots slots_;
  nb::object learn_;
  int64_t maxElements_;
  uint64_t launches_ = 0; // (read by dpk.arrays.generated.launch_count)
  std::unordered_map<Key, Entry, KeyHash> entries_;
};

} // namespace

void initImmediate(nb::module_ &m) {
  smallBlockType = (PyTypeObject *)PyType_FromSpec(&smallBlockSpec);
  if (!smallBlockType)
    throw nb::python_error();
  m.attr("SmallBlock") = nb::handle((PyObject *)smallBlockType);
  m.def("small_block_pooled_bytes", []() { return pool().heldBytes(); },
        "Bytes of freed immediate-result blocks kept for reuse.");
  nb::class_<ImmediateOps>(m, "ImmediateOps",
                           "Elementwise operations on small arrays, run in one call.")
      .def(nb::init<nb::handle, nb::object, int64_t>(), "array_type"_a, "learn"_a,
           "max_elements"_a)
      .def("unary", &ImmediateOps::unary, "op"_a, "x"_a.none(),
           "The result of op(x) as a new Array, or None (the general path's case).")
      .def("binary", &ImmediateOps::binary, "op"_a, "x"_a.none(), "y"_a.none(),
           "The result of op(x, y) as a new Array, or None (the general path's case).")
      .def("inplace", &ImmediateOps::inplace, "op"_a, "x"_a.none(), "y"_a.none(),
           "x op= y in x's memory; x, or None (the general path's case). The caller makes "
           "sure no lazy result reads x's memory.")
      .def_prop_rw("max_elements", &ImmediateOps::maxElements, &ImmediateOps::setMaxElements)
      .def_prop_ro("entry_count", &ImmediateOps::entryCount)
      .def_prop_ro("launches", &ImmediateOps::launches, "Kernels launched so far.")
      .def("clear", &ImmediateOps::clear);
}

} // namespace dpk::py
