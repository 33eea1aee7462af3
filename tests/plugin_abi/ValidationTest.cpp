// ValidationTest.cpp - the invalid-argument contract of every entry point, on every plugin: a
// NULL handle is DPK_ERROR_INVALID_HANDLE, a NULL out-parameter, an unknown enumerator or flag or
// a bad size is DPK_ERROR_INVALID_ARGUMENT, a malformed range is DPK_ERROR_INVALID_RANGE, each
// rejected at the plugin boundary (the plugin is never called, so the calls pass fake handles)
// with a message naming the entry.
#include "PluginAbi.h"

#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace dpk::plugin_abi {
namespace {

using runtime::ValidatedDispatch;

template <typename T> struct TypeTag {
  using type = T;
};

template <typename T>
constexpr bool IsHandle =
    std::is_same_v<T, dpk_pl_device_t> || std::is_same_v<T, dpk_pl_context_t> ||
    std::is_same_v<T, dpk_pl_queue_t> || std::is_same_v<T, dpk_pl_program_t> ||
    std::is_same_v<T, dpk_pl_kernel_t> || std::is_same_v<T, dpk_pl_event_t>;

/// Calls `entry` once per handle parameter, with that handle NULL, every other handle fake and
/// every other argument zero; returns how many handle parameters the entry has.
template <typename... Params, size_t... Index>
int callWithEachHandleNull(const ValidatedDispatch &table,
                           dpk_status_t (ValidatedDispatch::*entry)(Params...) const,
                           const std::function<void(dpk_status_t)> &check,
                           std::index_sequence<Index...>) {
  int handles = 0;
  auto callWithNullAt = [&](size_t nullIndex) {
    std::tuple<Params...> arguments{};
    auto prepare = [&](auto &argument, size_t index) {
      using Argument = std::decay_t<decltype(argument)>;
      if constexpr (IsHandle<Argument>)
        argument = index == nullIndex ? nullptr : fakeHandle<Argument>();
    };
    (prepare(std::get<Index>(arguments), Index), ...);
    check(std::apply([&](auto... values) { return (table.*entry)(values...); }, arguments));
  };
  auto visit = [&](auto typeTag, size_t index) {
    if constexpr (IsHandle<typename decltype(typeTag)::type>) {
      ++handles;
      callWithNullAt(index);
    }
  };
  (visit(TypeTag<std::tuple_element_t<Index, std::tuple<Params...>>>{}, Index), ...);
  return handles;
}

template <typename... Params>
int callWithEachHandleNull(const ValidatedDispatch &table,
                           dpk_status_t (ValidatedDispatch::*entry)(Params...) const,
                           const std::function<void(dpk_status_t)> &check) {
  return callWithEachHandleNull(table, entry, check, std::index_sequence_for<Params...>{});
}

// Entries that do not return a status (shutdown, last_error, no_device_reason) take no handle.
template <typename Entry>
int callWithEachHandleNull(const ValidatedDispatch &, Entry,
                           const std::function<void(dpk_status_t)> &) {
  return 0;
}

} // namespace

// Generated from dpk/plugin_entries.def: a new entry with a handle parameter is tested here
// without a line of its own.
TEST_P(PluginAbi, NullHandleOfEveryEntry) {
  int entries = 0;
#define DPK_PLUGIN_ENTRY(kind, return_type, field, Name, parameters, arguments)                \
  {                                                                                              \
    SCOPED_TRACE(#field);                                                                        \
    int handles = callWithEachHandleNull(table(), &ValidatedDispatch::field, [&](dpk_status_t s) { \
      expectRejected(s, DPK_ERROR_INVALID_HANDLE, #field);                                       \
    });                                                                                          \
    entries += handles > 0;                                                                      \
  }
#include "dpk/plugin_entries.def"
#undef DPK_PLUGIN_ENTRY
  // device_get_props ... event_release: every entry but init, get_devices and event_wait (whose
  // handles come in an array, below).
  EXPECT_EQ(entries, 22);
}

TEST_P(PluginAbi, NullHandleInAnArray) {
  dpk_pl_event_t none[1] = {nullptr};
  auto queue = fakeHandle<dpk_pl_queue_t>();
  int data = 0;
  expectRejected(table().event_wait(1, none), DPK_ERROR_INVALID_HANDLE, "event_wait");
  expectRejected(table().enqueue_copy(nullptr, queue, &data, &data, 4, 1, none),
                 DPK_ERROR_INVALID_HANDLE, "enqueue_copy");
  expectRejected(table().enqueue_fill(nullptr, queue, &data, &data, 4, 4, 1, none),
                 DPK_ERROR_INVALID_HANDLE, "enqueue_fill");
  dpk_launch_config_t config{1, {1, 1, 1}, {0, 0, 0}};
  expectRejected(table().enqueue_launch(nullptr, queue, fakeHandle<dpk_pl_kernel_t>(), &config, 0,
                                        nullptr, 1, none),
                 DPK_ERROR_INVALID_HANDLE, "enqueue_launch");
}

TEST_P(PluginAbi, NullOutParametersAndData) {
  auto device = fakeHandle<dpk_pl_device_t>();
  auto context = fakeHandle<dpk_pl_context_t>();
  auto queue = fakeHandle<dpk_pl_queue_t>();
  auto program = fakeHandle<dpk_pl_program_t>();
  auto kernel = fakeHandle<dpk_pl_kernel_t>();
  auto event = fakeHandle<dpk_pl_event_t>();
  const dpk_status_t invalid = DPK_ERROR_INVALID_ARGUMENT;
  int data = 0;
  expectRejected(table().get_devices(nullptr, nullptr), invalid, "get_devices");
  expectRejected(table().device_get_props(nullptr, device), invalid, "device_get_props");
  dpk_device_props_t noSize{};
  expectRejected(table().device_get_props(&noSize, device), invalid, "device_get_props");
  expectRejected(table().context_create(nullptr, device), invalid, "context_create");
  expectRejected(table().queue_create(nullptr, context, 0), invalid, "queue_create");
  expectRejected(table().mem_alloc(nullptr, context, DPK_MEM_DEVICE, 64, 0), invalid,
                 "mem_alloc");
  dpk_pl_program_t newProgram = nullptr;
  expectRejected(table().program_create(nullptr, context, DPK_FORMAT_SPIRV, &data, 4, nullptr),
                 invalid, "program_create");
  expectRejected(
      table().program_create(&newProgram, context, DPK_FORMAT_SPIRV, nullptr, 4, nullptr),
      invalid, "program_create");
  expectRejected(table().program_create(&newProgram, context, DPK_FORMAT_SPIRV, &data, 0, nullptr),
                 invalid, "program_create");
  dpk_pl_kernel_t newKernel = nullptr;
  expectRejected(table().kernel_create(nullptr, program, "k"), invalid, "kernel_create");
  expectRejected(table().kernel_create(&newKernel, program, nullptr), invalid, "kernel_create");
  expectRejected(table().kernel_max_work_group_size(nullptr, kernel), invalid,
                 "kernel_max_work_group_size");
  expectRejected(table().event_status(nullptr, event), invalid, "event_status");
  expectRejected(table().event_elapsed_ns(nullptr, event), invalid, "event_elapsed_ns");
  expectRejected(table().event_wait(1, nullptr), invalid, "event_wait");
  expectRejected(table().enqueue_copy(nullptr, queue, nullptr, &data, 4, 0, nullptr), invalid,
                 "enqueue_copy");
  expectRejected(table().enqueue_copy(nullptr, queue, &data, nullptr, 4, 0, nullptr), invalid,
                 "enqueue_copy");
  expectRejected(table().enqueue_launch(nullptr, queue, kernel, nullptr, 0, nullptr, 0, nullptr),
                 invalid, "enqueue_launch");
  expectRejected(table().queue_get_native(nullptr, queue), invalid, "queue_get_native");
  dpk_native_queue_t noNativeSize{};
  expectRejected(table().queue_get_native(&noNativeSize, queue), invalid, "queue_get_native");
  EXPECT_EQ(newProgram, nullptr);
  EXPECT_EQ(newKernel, nullptr);
}

TEST_P(PluginAbi, NullDependencyList) {
  auto queue = fakeHandle<dpk_pl_queue_t>();
  int data = 0;
  const dpk_status_t invalid = DPK_ERROR_INVALID_ARGUMENT;
  expectRejected(table().enqueue_copy(nullptr, queue, &data, &data, 4, 1, nullptr), invalid,
                 "enqueue_copy");
  expectRejected(table().enqueue_fill(nullptr, queue, &data, &data, 4, 4, 1, nullptr), invalid,
                 "enqueue_fill");
  dpk_launch_config_t config{1, {1, 1, 1}, {0, 0, 0}};
  expectRejected(table().enqueue_launch(nullptr, queue, fakeHandle<dpk_pl_kernel_t>(), &config, 0,
                                        nullptr, 1, nullptr),
                 invalid, "enqueue_launch");
}

TEST_P(PluginAbi, UnknownFlagsKindsAndFormats) {
  auto context = fakeHandle<dpk_pl_context_t>();
  const dpk_status_t invalid = DPK_ERROR_INVALID_ARGUMENT;
  dpk_pl_queue_t queue = nullptr;
  expectRejected(table().queue_create(&queue, context, 1u << 7), invalid, "queue_create");
  void *ptr = nullptr;
  // No enumerator, yet values C++ may hold in these enums (0 and 3 are within the range their
  // enumerators span): anything further out is undefined behaviour to pass by value in C++,
  // where only a C caller can (kernel arguments, below, are read from memory).
  const auto unknownKind = static_cast<dpk_mem_kind_t>(0);
  expectRejected(table().mem_alloc(&ptr, context, unknownKind, 64, 0), invalid, "mem_alloc");
  expectRejected(table().mem_alloc(&ptr, context, DPK_MEM_DEVICE, 0, 0), invalid, "mem_alloc");
  expectRejected(table().mem_alloc(&ptr, context, DPK_MEM_DEVICE, 64, 3), invalid, "mem_alloc");
  const auto unknownFormat = static_cast<dpk_artifact_format_t>(3); // two formats at once
  dpk_pl_program_t program = nullptr;
  int data = 0;
  expectRejected(table().program_create(&program, context, unknownFormat, &data, 4, nullptr),
                 invalid, "program_create");
  EXPECT_EQ(queue, nullptr);
  EXPECT_EQ(ptr, nullptr);
  EXPECT_EQ(program, nullptr);
}

TEST_P(PluginAbi, MalformedRanges) {
  struct Case {
    const char *what;
    dpk_launch_config_t config;
    const char *message; // a fragment of the rejection
  };
  const uint64_t big = uint64_t(1) << 32;
  const Case cases[] = {
      {"no dimension", {0, {1, 1, 1}, {0, 0, 0}}, "dims is 0"},
      {"four dimensions", {4, {1, 1, 1}, {0, 0, 0}}, "dims is 4"},
      {"empty dimension", {2, {8, 0, 1}, {0, 0, 0}}, "global size of dimension 1 is 0"},
      {"some local sizes", {2, {8, 8, 1}, {8, 0, 0}}, "local size of dimension 1 is 0"},
      {"local size not dividing", {1, {100, 1, 1}, {7, 0, 0}}, "does not divide"},
      {"2^64 work-items", {2, {big, big, 1}, {0, 0, 0}}, "2^63 - 1"},
      {"more than 2^64 work-items", {3, {1 << 22, 1 << 22, 1 << 22}, {0, 0, 0}}, "2^63 - 1"},
      // Kernels number work-items with signed 64-bit ids.
      {"2^63 work-items", {2, {big, big / 2, 1}, {0, 0, 0}}, "2^63 - 1"},
      {"2^63 work-items in one dimension", {1, {uint64_t(1) << 63, 1, 1}, {0, 0, 0}}, "2^63 - 1"},
  };
  auto queue = fakeHandle<dpk_pl_queue_t>();
  auto kernel = fakeHandle<dpk_pl_kernel_t>();
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    dpk_status_t status =
        table().enqueue_launch(nullptr, queue, kernel, &c.config, 0, nullptr, 0, nullptr);
    expectRejected(status, DPK_ERROR_INVALID_RANGE, "enqueue_launch");
    const char *why = runtime::lastValidationFailure();
    EXPECT_NE(std::string(why ? why : "").find(c.message), std::string::npos) << why;
  }
}

TEST_P(PluginAbi, BadKernelArguments) {
  int value = 0;
  void *pointer = &value;
  dpk_kernel_arg_t unknownKind{DPK_ARG_POINTER, sizeof pointer, &pointer};
  int fortyTwo = 42;
  std::memcpy(&unknownKind.kind, &fortyTwo, sizeof fortyTwo);
  struct Case {
    const char *what;
    dpk_kernel_arg_t arg;
    const char *message;
  };
  const Case cases[] = {
      {"unknown kind", unknownKind, "unknown kind 42"},
      {"pointer without a value", {DPK_ARG_POINTER, sizeof pointer, nullptr}, "argument 0"},
      {"scalar without a value", {DPK_ARG_SCALAR, sizeof value, nullptr}, "argument 0"},
      {"scalar of 0 bytes", {DPK_ARG_SCALAR, 0, &value}, "argument 0"},
      {"local memory of 0 bytes", {DPK_ARG_LOCAL, 0, nullptr}, "argument 0"},
  };
  auto queue = fakeHandle<dpk_pl_queue_t>();
  auto kernel = fakeHandle<dpk_pl_kernel_t>();
  dpk_launch_config_t config{1, {64, 1, 1}, {0, 0, 0}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    expectRejected(table().enqueue_launch(nullptr, queue, kernel, &config, 1, &c.arg, 0, nullptr),
                   DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch");
    const char *why = runtime::lastValidationFailure();
    EXPECT_NE(std::string(why ? why : "").find(c.message), std::string::npos) << why;
  }
  expectRejected(table().enqueue_launch(nullptr, queue, kernel, &config, 1, nullptr, 0, nullptr),
                 DPK_ERROR_INVALID_ARGUMENT, "enqueue_launch");
}

TEST_P(PluginAbi, BadFillPatterns) {
  struct Case {
    const char *what;
    size_t patternSize;
    size_t bytes;
  };
  const Case cases[] = {
      {"pattern of 3 bytes", 3, 9},      {"pattern of 0 bytes", 0, 8},
      {"pattern of 256 bytes", 256, 512}, {"size not a multiple of the pattern", 4, 6},
  };
  auto queue = fakeHandle<dpk_pl_queue_t>();
  unsigned char buffer[512] = {};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    expectRejected(table().enqueue_fill(nullptr, queue, buffer, buffer, c.patternSize, c.bytes, 0, nullptr),
                   DPK_ERROR_INVALID_ARGUMENT, "enqueue_fill");
  }
  expectRejected(table().enqueue_fill(nullptr, queue, buffer, nullptr, 4, 8, 0, nullptr),
                 DPK_ERROR_INVALID_ARGUMENT, "enqueue_fill");
  expectRejected(table().enqueue_fill(nullptr, queue, nullptr, buffer, 4, 8, 0, nullptr),
                 DPK_ERROR_INVALID_ARGUMENT, "enqueue_fill");
}

} // namespace dpk::plugin_abi
