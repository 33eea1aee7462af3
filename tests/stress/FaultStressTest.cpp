// FaultStressTest.cpp - the fault plugin failing at each plugin entry point mid-run.
//
// For every entry of dpk/plugin_entries.def that returns a status, a child process runs rounds
// of work on the fault device (queues, allocations, fills, copies, host-native and IR programs,
// Range and NdRange launches chained by events, event waits, status and timing queries,
// releases) and, after two clean rounds, arms DPK_FAULT_INJECT=once:<entry>: the next call of
// that entry fails. The child checks that the failure surfaces as a typed status whose message
// names the injected cause (or, under DPK_FALLBACK=warn, that a failed compile or launch ran on
// the host with correct results), that the round after it works completely, that a buffer written
// before the failure is intact, and it exits normally. The parent gives it a deadline (a hang
// fails), checks that the fault really fired (the plugin says so on stderr, which matters where
// the runtime drops a release's status) and, for entries called only while the runtime starts
// (init, get_devices, device_get_props, context_create), arms the fault from the start instead.
#include "HostKernels.h"
#include "StressSupport.h"

#include <cstring>
#include <sstream>

using namespace dpk::stress;
using dpk::test::ChildResult;

namespace {

/// The entries that return a status, in ABI order (the only ones that can fail).
std::vector<std::string> statusEntries() {
  std::vector<std::string> entries;
#define DPK_STRESS_STATUS_ENTRY_STATUS(field) entries.push_back(#field);
#define DPK_STRESS_STATUS_ENTRY_VOID(field)
#define DPK_STRESS_STATUS_ENTRY_TEXT(field)
#define DPK_STRESS_STATUS_ENTRY_LAST_ERROR(field)
#define DPK_PLUGIN_ENTRY(kind, return_type, field, Name, parameters, arguments)                \
  DPK_STRESS_STATUS_ENTRY_##kind(field)
#include "dpk/plugin_entries.def"
#undef DPK_PLUGIN_ENTRY
  return entries;
}

/// Entries the runtime never calls through this workload, and why; the test checks that they
/// stay that way (an entry that starts being called must then be tested).
const char *notCalledBecause(const std::string &entry) {
  if (entry == "kernel_max_work_group_size")
    return "the runtime takes work-group limits from the device's properties";
  if (entry == "context_release")
    return "contexts live as long as the runtime, which is not torn down before exit";
  return nullptr;
}

constexpr uint64_t N = 512;
constexpr uint64_t Local = 64;
constexpr int32_t KeeperValue = 0x5eed;
constexpr int Rounds = 5, ArmAtRound = 2;
constexpr int Deadline = 60;

const char *axpyText() {
  static const std::string text = axpyIr("fault_axpy", 5);
  return text.c_str();
}

/// What one round saw: the first failing step (empty when the round worked).
struct RoundResult {
  std::string failedStep;
  dpk_status_t status = DPK_SUCCESS;
  std::string message;
  bool ok() const { return failedStep.empty(); }
};

#define ROUND_STEP(call)                                                                         \
  do {                                                                                           \
    dpk_status_t roundStatus_ = (call);                                                          \
    if (roundStatus_ != DPK_SUCCESS && result.ok()) {                                            \
      result.failedStep = #call;                                                                 \
      result.status = roundStatus_;                                                              \
      result.message = dpk_last_error();                                                         \
    }                                                                                            \
  } while (0)

/// One round of work on `device`; every handle it makes is released whatever fails.
RoundResult runRound(dpk_device_t device, int round) {
  RoundResult result;
  dpk_queue_t queue = nullptr;
  dpk_program_t hostProgram = nullptr, irProgram = nullptr;
  dpk_kernel_t iota = nullptr, add = nullptr, groupIds = nullptr, axpy = nullptr;
  void *x = nullptr, *y = nullptr, *z = nullptr;
  dpk_event_t first = nullptr, second = nullptr;
  std::vector<int32_t> outX(N, 0), outY(N, 0), outZ(N, 0), ones(N, 1);
  int32_t sentinel = -1, k = round;
  uint32_t flags = round % 2 ? DPK_QUEUE_PROFILING : DPK_QUEUE_IN_ORDER;

  ROUND_STEP(dpk_queue_create(&queue, device, flags));
  if (result.ok()) {
    ROUND_STEP(dpk_mem_alloc(&x, device, DPK_MEM_DEVICE, N * 4));
    ROUND_STEP(dpk_mem_alloc(&y, device, DPK_MEM_DEVICE, N * 4));
    ROUND_STEP(dpk_mem_alloc(&z, device, DPK_MEM_SHARED, N * 4));
  }
  if (result.ok()) {
    // What a native extension asks before it enqueues its own work (docs/extensions.md).
    dpk_native_queue_t native{};
    native.struct_size = sizeof(native);
    ROUND_STEP(dpk_queue_get_native(&native, queue));
    // What a library sharing its stream asks (Queue.from_cuda_stream). Backends without
    // native queues to adopt answer DPK_ERROR_UNSUPPORTED, their normal answer; any other
    // failure counts. A queue handle must be given (the validation layer refuses NULL).
    if (result.ok()) {
      if (!native.queue)
        native.queue = &sentinel;
      dpk_queue_t adopted = nullptr;
      dpk_status_t adoptStatus = dpk_queue_create_from_native(&adopted, device, &native);
      if (adoptStatus == DPK_SUCCESS)
        ROUND_STEP(dpk_queue_release(adopted));
      else if (adoptStatus != DPK_ERROR_UNSUPPORTED)
        ROUND_STEP(adoptStatus);
    }
    // What matmul asks before it runs its own kernel: the fault backend has no BLAS, so
    // DPK_ERROR_UNSUPPORTED is its normal answer (nothing is computed or written).
    if (result.ok()) {
      dpk_gemm_desc_t gemm{};
      gemm.struct_size = sizeof gemm;
      gemm.type = DPK_GEMM_F32;
      gemm.m = gemm.n = gemm.k = gemm.lda = gemm.ldb = gemm.ldc = 4;
      gemm.alpha = 1;
      gemm.batch = 1;
      gemm.a = x;
      gemm.b = y;
      gemm.c = y;
      dpk_status_t gemmStatus = dpk_enqueue_gemm(nullptr, queue, &gemm, 0, nullptr);
      if (gemmStatus != DPK_ERROR_UNSUPPORTED)
        ROUND_STEP(gemmStatus);
    }
  }
  if (result.ok()) {
    ROUND_STEP(dpk_enqueue_fill(nullptr, queue, x, &sentinel, 4, N * 4, 0, nullptr));
    ROUND_STEP(dpk_enqueue_copy(nullptr, queue, z, ones.data(), N * 4, 0, nullptr));
    ROUND_STEP(dpk_program_create_from_host(&hostProgram, dpk::test::TestKernels,
                                            dpk::test::NumTestKernels));
    ROUND_STEP(dpk_program_create_from_ir(&irProgram, axpyText(), std::strlen(axpyText()),
                                          "fault_axpy.dpkir"));
  }
  if (result.ok()) {
    ROUND_STEP(dpk_kernel_get(&iota, hostProgram, "iota"));
    ROUND_STEP(dpk_kernel_get(&add, hostProgram, "add"));
    ROUND_STEP(dpk_kernel_get(&groupIds, hostProgram, "group_ids"));
    ROUND_STEP(dpk_kernel_get(&axpy, irProgram, "fault_axpy"));
  }
  if (result.ok()) {
    dpk_arg_t xArg = dpk::test::pointerArg(x), yArg = dpk::test::pointerArg(y);
    dpk_arg_t addArgs[] = {xArg, dpk::test::scalarArg(&k)};
    dpk_arg_t axpyArgs[] = {xArg, dpk::test::pointerArg(z), dpk::test::scalarArg(&k)};
    dpk_launch_config_t range = dpk::test::range1d(N), ndRange = dpk::test::ndRange1d(N, Local);
    ROUND_STEP(dpk_enqueue_launch(&first, queue, iota, &range, 1, &xArg, 0, nullptr));
    if (first) {
      // Asked before any wait, so the runtime must ask the plugin (later it knows).
      dpk_event_status_t early = DPK_EVENT_QUEUED;
      ROUND_STEP(dpk_event_status(&early, first));
      ROUND_STEP(dpk_enqueue_launch(&second, queue, add, &range, 2, addArgs, 1, &first));
    }
    if (second) {
      ROUND_STEP(dpk_event_wait(1, &second));
      dpk_event_status_t state = DPK_EVENT_QUEUED;
      ROUND_STEP(dpk_event_status(&state, second));
      if (flags & DPK_QUEUE_PROFILING) {
        uint64_t elapsed = 0;
        dpk_status_t timing = dpk_event_elapsed_ns(&elapsed, second);
        if (timing != DPK_ERROR_UNSUPPORTED) // the fault device keeps no times
          ROUND_STEP(timing);
      }
    }
    ROUND_STEP(dpk_enqueue_launch(nullptr, queue, groupIds, &ndRange, 1, &yArg, 0, nullptr));
    ROUND_STEP(dpk_enqueue_launch(nullptr, queue, axpy, &range, 3, axpyArgs, 0, nullptr));
    ROUND_STEP(dpk_enqueue_copy(nullptr, queue, outX.data(), x, N * 4, 0, nullptr));
    ROUND_STEP(dpk_enqueue_copy(nullptr, queue, outY.data(), y, N * 4, 0, nullptr));
    ROUND_STEP(dpk_enqueue_copy(nullptr, queue, outZ.data(), z, N * 4, 0, nullptr));
    ROUND_STEP(dpk_queue_wait(queue));
  }
  if (result.ok())
    for (uint64_t i = 0; i < N; ++i) {
      int32_t wantX = static_cast<int32_t>(i) + k;
      int32_t wantY = static_cast<int32_t>((i / Local) * 1000 + i % Local);
      int32_t wantZ = axpyExpected(wantX, 1, k, 5);
      if (outX[i] != wantX || outY[i] != wantY || outZ[i] != wantZ) {
        std::ostringstream message;
        message << "wrong result at " << i << ": x " << outX[i] << " (want " << wantX << "), y "
                << outY[i] << " (want " << wantY << "), z " << outZ[i] << " (want " << wantZ
                << ")";
        result.failedStep = "checking results";
        result.message = message.str();
        break;
      }
    }
  // Releases report failures too (a plugin's mem_free failing is the caller's error to see).
  for (dpk_event_t event : {first, second})
    if (event)
      ROUND_STEP(dpk_event_release(event));
  if (queue)
    ROUND_STEP(dpk_queue_wait(queue));
  for (dpk_kernel_t kernel : {iota, add, groupIds, axpy})
    if (kernel)
      ROUND_STEP(dpk_kernel_release(kernel));
  for (dpk_program_t program : {hostProgram, irProgram})
    if (program)
      ROUND_STEP(dpk_program_release(program));
  for (void *ptr : {x, y, z})
    if (ptr)
      ROUND_STEP(dpk_mem_free(ptr));
  if (queue)
    ROUND_STEP(dpk_queue_release(queue));
  return result;
}

std::string describe(const RoundResult &result) {
  if (result.ok())
    return "ok";
  return result.failedStep + " -> " + dpk_status_name(result.status) + ": " + result.message;
}

/// A typed failure: a specific status (not GENERIC), with a message naming the injected cause.
bool isTypedInjectedFailure(const RoundResult &result) {
  return result.status != DPK_SUCCESS && result.status != DPK_ERROR_GENERIC &&
         result.message.find("injected") != std::string::npos;
}

} // namespace

// The child: STRESS_FAULT_ENTRY names the entry; STRESS_FAULT_ARM is "midrun" (armed before
// round ArmAtRound) or "start" (the parent set DPK_FAULT_INJECT already).
TEST(StressFaultChild, RoundsSurviveAnInjectedFailure) {
  DPK_CHILD_ONLY();
  std::string entry = std::getenv("STRESS_FAULT_ENTRY");
  bool midRun = std::string(std::getenv("STRESS_FAULT_ARM")) == "midrun";
  bool fallback = std::string(std::getenv("DPK_FALLBACK")) != "deny";
  dpk_device_t device = dpk::test::findDevice("fault");
  if (!device) {
    // Only a failure while the runtime starts may cost the device; the host must still work.
    ASSERT_FALSE(midRun) << "the fault device is missing: " << dpk_last_error();
    std::printf("STRESS-FAULT no fault device: %s\n", dpk_last_error());
    dpk_device_t host = dpk::test::findDevice("host");
    ASSERT_NE(host, nullptr) << dpk_last_error();
    RoundResult onHost = runRound(host, 0);
    EXPECT_TRUE(onHost.ok()) << "host after the fault device was lost: " << describe(onHost);
    dpk_device_release(host);
    return;
  }
  // A buffer written before anything fails, read back after everything.
  void *keeper = nullptr;
  std::vector<int32_t> kept(N, KeeperValue), readBack(N, 0);
  dpk_queue_t keeperQueue = nullptr;
  for (int attempt = 0; attempt < 3 && !keeperQueue; ++attempt) { // a start-armed fault may hit
    dpk_status_t status = dpk_queue_create(&keeperQueue, device, DPK_QUEUE_IN_ORDER);
    if (status != DPK_SUCCESS) {
      EXPECT_TRUE(isTypedInjectedFailure({"dpk_queue_create", status, dpk_last_error()}))
          << dpk_status_name(status) << ": " << dpk_last_error();
    }
  }
  ASSERT_NE(keeperQueue, nullptr);
  for (int attempt = 0; attempt < 3 && !keeper; ++attempt) {
    keeper = nullptr;
    dpk_status_t status = dpk_mem_alloc(&keeper, device, DPK_MEM_DEVICE, N * 4);
    if (status == DPK_SUCCESS)
      status = dpk_enqueue_copy(nullptr, keeperQueue, keeper, kept.data(), N * 4, 0, nullptr);
    if (status == DPK_SUCCESS)
      status = dpk_queue_wait(keeperQueue);
    if (status != DPK_SUCCESS) {
      EXPECT_TRUE(isTypedInjectedFailure({"keeper", status, dpk_last_error()}))
          << dpk_status_name(status) << ": " << dpk_last_error();
      if (keeper)
        dpk_mem_free(keeper);
      keeper = nullptr;
    }
  }
  ASSERT_NE(keeper, nullptr);

  int failedRounds = 0;
  bool failedBefore = false;
  for (int round = 0; round < Rounds; ++round) {
    if (midRun && round == ArmAtRound)
      ::setenv("DPK_FAULT_INJECT", ("once:" + entry).c_str(), 1);
    RoundResult result = runRound(device, round);
    std::printf("STRESS-FAULT round %d: %s\n", round, describe(result).c_str());
    std::fflush(stdout);
    if (result.ok())
      continue;
    ++failedRounds;
    EXPECT_TRUE(!midRun || round >= ArmAtRound) << "a round before the fault was armed failed";
    EXPECT_FALSE(failedBefore) << "round " << round
                               << " failed after an earlier one: the runtime did not recover";
    EXPECT_TRUE(isTypedInjectedFailure(result)) << "not a typed error naming the injected cause: "
                                                << describe(result);
    // Fallback covers failed compiles and launches (DPK_FALLBACK=warn): those rounds work.
    if (fallback && (entry == "program_create" || entry == "enqueue_launch"))
      ADD_FAILURE() << "a failed " << entry << " did not fall back to the host: "
                    << describe(result);
    failedBefore = true;
  }
  EXPECT_LE(failedRounds, 1);
  ::unsetenv("DPK_FAULT_INJECT");
  DPK_EXPECT_STATUS(dpk_enqueue_copy(nullptr, keeperQueue, readBack.data(), keeper, N * 4, 0,
                                     nullptr),
                    DPK_SUCCESS);
  DPK_EXPECT_STATUS(dpk_queue_wait(keeperQueue), DPK_SUCCESS);
  EXPECT_EQ(readBack, kept) << "a buffer written before the failure changed";
  dpk_mem_free(keeper);
  dpk_queue_release(keeperQueue);
  dpk_device_release(device);
}

namespace {

class StressFault : public ::testing::TestWithParam<std::string> {};

std::vector<std::pair<std::string, std::string>> faultEnvironment(const std::string &entry,
                                                                  const std::string &fallback,
                                                                  bool armAtStart) {
  std::string plugins = std::string(DPK_REAL_PLUGIN_DIR) + "/libdpk_backend_host.so:" +
                        DPK_TEST_PLUGIN_DIR + "/libdpk_backend_fault.so";
  std::vector<std::pair<std::string, std::string>> environment = {
      {"DPK_FORCE_PLUGINS", plugins},
      {"DPK_FALLBACK", fallback},
      {"DPK_DEVICE_SELECTOR", ""},
      {"STRESS_FAULT_ENTRY", entry},
      {"STRESS_FAULT_ARM", armAtStart ? "start" : "midrun"},
      {"DPK_FAULT_INJECT", armAtStart ? "once:" + entry : ""}};
  return environment;
}

bool fired(const ChildResult &child, const std::string &entry) {
  return child.output.find("fault: injected failure of " + entry + "\n") != std::string::npos;
}

void injectAndCheck(const std::string &entry, const std::string &fallback) {
  SCOPED_TRACE("entry " + entry + ", DPK_FALLBACK=" + fallback);
  const std::string child = "StressFaultChild.RoundsSurviveAnInjectedFailure";
  ChildResult midRun;
  if (!childPasses("armed mid-run", child, faultEnvironment(entry, fallback, false), Deadline,
                   &midRun))
    return;
  if (fired(midRun, entry))
    return;
  ChildResult atStart;
  if (!childPasses("armed at start", child, faultEnvironment(entry, fallback, true), Deadline,
                   &atStart))
    return;
  if (fired(atStart, entry))
    return;
  if (const char *why = notCalledBecause(entry)) {
    GTEST_SKIP() << entry << " is never called: " << why;
    return;
  }
  ADD_FAILURE() << "the workload never reached " << entry << " (armed mid-run and at start):\n"
                << midRun.output << atStart.output;
}

} // namespace

TEST_P(StressFault, FailsOnceUnderDeny) { injectAndCheck(GetParam(), "deny"); }

// Under warn, failed compiles and launches run on the host; every other failure is still a
// typed error. The short run covers the entries fallback is about; DPK_STRESS_LONG all.
TEST_P(StressFault, FailsOnceUnderWarn) {
  const std::string &entry = GetParam();
  if (!longRun() && entry != "program_create" && entry != "enqueue_launch" &&
      entry != "mem_alloc" && entry != "kernel_create")
    GTEST_SKIP() << "DPK_STRESS_LONG=1 runs this entry under warn too";
  injectAndCheck(entry, "warn");
}

TEST(StressFaultEntries, EveryStatusEntryIsListed) {
  // The parameter list comes from dpk/plugin_entries.def itself; this pins that it is not empty
  // and that the entries the fallback rules name are in it.
  std::vector<std::string> entries = statusEntries();
  for (const char *entry : {"program_create", "enqueue_launch", "mem_alloc", "event_wait"})
    EXPECT_NE(std::find(entries.begin(), entries.end(), entry), entries.end()) << entry;
}

INSTANTIATE_TEST_SUITE_P(Entries, StressFault, ::testing::ValuesIn(statusEntries()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return info.param;
                         });
