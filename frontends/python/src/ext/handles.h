// handles.h - reference-owning C++ wrappers of dpk's C handles, shared by the runtime and launch
// bindings. Each wrapper holds one reference (released in its destructor) and is what Python
// sees as dpk._core.Device, Queue, Event, Program and Kernel.
#ifndef DPK_PY_HANDLES_H
#define DPK_PY_HANDLES_H

#include "common.h"

#include "dpk/dpk.h"

#include <cstdint>

namespace dpk::py {

struct Device {
  dpk_device_t handle = nullptr;
  dpk_device_info_t info{};
  explicit Device(dpk_device_t h); // takes over a reference
  Device(const Device &) = delete;
  ~Device() { if (handle) dpk_device_release(handle); }
};

struct Queue {
  dpk_queue_t handle = nullptr;
  nb::object device; // the Device object, kept for Python
  nb::object borrowed; // what owns an adopted native queue (a CuPy stream), kept alive with it
  Queue(const Queue &) = delete;
  Queue(dpk_queue_t h, nb::object dev) : handle(h), device(std::move(dev)) {}
  ~Queue() { if (handle) dpk_queue_release(handle); }
};

/// An event, and what must stay alive until its command completed (arrays of an async launch).
struct Event {
  dpk_event_t handle = nullptr;
  nb::object keepalive;
  Event(const Event &) = delete;
  Event(dpk_event_t h, nb::object keep) : handle(h), keepalive(std::move(keep)) {}
  ~Event();
  void wait();
};

struct Program {
  dpk_program_t handle = nullptr;
  Program(const Program &) = delete;
  explicit Program(dpk_program_t h) : handle(h) {}
  ~Program() { if (handle) dpk_program_release(handle); }
};

struct Kernel {
  dpk_kernel_t handle = nullptr;
  nb::object program;
  std::string name;
  Kernel(const Kernel &) = delete;
  Kernel(dpk_kernel_t h, nb::object prog, std::string n)
      : handle(h), program(std::move(prog)), name(std::move(n)) {}
  ~Kernel() { if (handle) dpk_kernel_release(handle); }
};

} // namespace dpk::py

#endif // DPK_PY_HANDLES_H
