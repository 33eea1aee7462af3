// FallbackTest.cpp - fallback decisions in deny/warn/allow for every failure class, the typed
// error, the warning text and the once-per-(kernel, device, reason) reporting.
#include "policy/FallbackDecision.h"

#include "diagnostics/Diagnostics.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace dpk::policy;

namespace {

Policy policyWith(const std::string &fallbackYaml) {
  dpk::Expected<Policy> p = parsePolicy("version: 1\n" + fallbackYaml, "f.yaml");
  EXPECT_TRUE(p) << p.error().message();
  return p ? *p : Policy{};
}

const FailureClass AllClasses[] = {FailureClass::NoDevice, FailureClass::PluginLoad,
                                   FailureClass::Compile, FailureClass::Launch,
                                   FailureClass::OutOfMemory};

/// Collects the JSON records the diagnostics sink produces.
class FallbackReport : public ::testing::Test {
protected:
  void SetUp() override {
    dpk::diag::resetForTesting();
    dpk::diag::setHook([this](int level, const std::string &json) {
      auto record = dpk::test::parseRecord(json);
      ASSERT_TRUE(record) << json;
      records.push_back(*record);
    });
  }
  void TearDown() override { dpk::diag::resetForTesting(); }
  void setLevel(int level) {
    DiagnosticsSettings settings;
    settings.level = level;
    settings.file = dpk::test::makeTempDir() + "/diag.txt"; // keep the test output clean
    ASSERT_FALSE(dpk::diag::configure(settings));
  }
  std::vector<dpk::test::JsonRecord> records;
};

} // namespace

TEST(FallbackClassify, StatusesAndClasses) {
  EXPECT_EQ(classifyStatus(DPK_ERROR_COMPILE), FailureClass::Compile);
  EXPECT_EQ(classifyStatus(DPK_ERROR_LAUNCH), FailureClass::Launch);
  EXPECT_EQ(classifyStatus(DPK_ERROR_DEVICE), FailureClass::Launch);
  EXPECT_EQ(classifyStatus(DPK_ERROR_OUT_OF_DEVICE_MEMORY), FailureClass::OutOfMemory);
  EXPECT_EQ(classifyStatus(DPK_ERROR_PLUGIN_LOAD), FailureClass::PluginLoad);
  EXPECT_EQ(classifyStatus(DPK_ERROR_ABI_MISMATCH), FailureClass::PluginLoad);
  EXPECT_EQ(classifyStatus(DPK_ERROR_NO_DEVICE), FailureClass::NoDevice);
  // The caller's own mistakes never fall back: the host would reject them too.
  EXPECT_FALSE(classifyStatus(DPK_ERROR_INVALID_ARGUMENT));
  EXPECT_FALSE(classifyStatus(DPK_ERROR_INVALID_RANGE));
  EXPECT_FALSE(classifyStatus(DPK_ERROR_OUT_OF_HOST_MEMORY));
  EXPECT_FALSE(classifyStatus(DPK_SUCCESS));
  for (FailureClass failure : AllClasses) {
    EXPECT_EQ(classifyStatus(statusFor(failure)), failure);
    EXPECT_EQ(parseFailureClass(failureClassName(failure)), failure);
  }
}

TEST(FallbackDecide, EveryModeAndClass) {
  for (const char *mode : {"deny", "warn", "allow"}) {
    Policy p = policyWith(std::string("fallback: {mode: ") + mode + ", on: all}\n");
    for (FailureClass failure : AllClasses) {
      SCOPED_TRACE(std::string(mode) + " " + failureClassName(failure));
      FallbackDecision d = decide(p, "saxpy", "cuda:gpu:0", failure, "boom");
      EXPECT_EQ(d.failure, failure);
      EXPECT_EQ(d.kernel, "saxpy");
      EXPECT_EQ(d.device, "cuda:gpu:0");
      EXPECT_EQ(d.cause, "boom");
      if (std::string(mode) == "deny") {
        EXPECT_EQ(d.action, FallbackAction::Fail);
        EXPECT_EQ(d.mode, FallbackMode::Deny);
        EXPECT_EQ(d.error.status(), statusFor(failure));
        EXPECT_NE(d.error.message().find("kernel 'saxpy'"), std::string::npos);
        EXPECT_NE(d.error.message().find("cuda:gpu:0"), std::string::npos);
        EXPECT_NE(d.error.message().find("boom"), std::string::npos);
        EXPECT_TRUE(d.warning.empty());
        continue;
      }
      EXPECT_EQ(d.action, FallbackAction::RunOnHost);
      EXPECT_FALSE(d.error);
      EXPECT_EQ(d.warning.empty(), std::string(mode) == "allow");
    }
  }
}

TEST(FallbackDecide, ExactTexts) {
  Policy warn = policyWith("fallback:\n  mode: warn\n");
  FallbackDecision w = decide(warn, "matmul", "opencl:cpu:0", FailureClass::Compile,
                              "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)");
  EXPECT_EQ(w.warning, "kernel 'matmul' could not run on opencl:cpu:0 (compile failure: "
                       "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)); running it on the host "
                       "instead (fallback.mode warn from f.yaml:3:3)");
  EXPECT_EQ(w.rule, "fallback.mode warn from f.yaml:3:3");

  Policy deny = policyWith("fallback: {mode: deny}\n");
  FallbackDecision d = decide(deny, "matmul", "cuda:gpu:0", FailureClass::OutOfMemory,
                              "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)");
  EXPECT_EQ(d.error.status(), DPK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(d.error.message(),
            "kernel 'matmul' cannot run on cuda:gpu:0: out of device memory: cuMemAlloc: "
            "CUDA_ERROR_OUT_OF_MEMORY (2) (no fallback to the host: fallback.mode deny from "
            "f.yaml:2:11; set DPK_FALLBACK=warn or fallback.mode: warn to allow it)");

  FallbackDecision none = decide(deny, "k", "", FailureClass::NoDevice, "");
  EXPECT_EQ(none.error.status(), DPK_ERROR_NO_DEVICE);
  EXPECT_EQ(none.error.message().rfind("kernel 'k' cannot run on any device: no matching device "
                                       "(no fallback",
                                       0),
            0u)
      << none.error.message();
}

TEST(FallbackDecide, UncoveredFailuresAreErrors) {
  Policy p = policyWith("fallback: {mode: allow, on: [compile]}\n");
  EXPECT_EQ(decide(p, "k", "cuda:gpu:0", FailureClass::Compile, "x").action,
            FallbackAction::RunOnHost);
  FallbackDecision launch = decide(p, "k", "cuda:gpu:0", FailureClass::Launch, "x");
  EXPECT_EQ(launch.action, FallbackAction::Fail);
  EXPECT_EQ(launch.mode, FallbackMode::Deny);
  EXPECT_EQ(launch.error.status(), DPK_ERROR_LAUNCH);
  EXPECT_NE(launch.error.message().find("fallback.on from f.yaml:2:11 does not list launch"),
            std::string::npos)
      << launch.error.message();
}

TEST(FallbackDecide, NowhereToGo) {
  Policy p = policyWith("fallback: {mode: warn}\n");
  FallbackDecision onHost = decide(p, "k", "host:cpu:0", FailureClass::Launch, "crash");
  EXPECT_EQ(onHost.action, FallbackAction::Fail);
  EXPECT_NE(onHost.error.message().find("(no fallback: the failing device is the host itself)"),
            std::string::npos);
  Policy disabled = policyWith("fallback: {mode: warn}\nplugins: {disabled: [host]}\n");
  FallbackDecision d = decide(disabled, "k", "cuda:gpu:0", FailureClass::Compile, "x");
  EXPECT_EQ(d.action, FallbackAction::Fail);
  EXPECT_NE(d.error.message().find("plugins.disabled lists host"), std::string::npos);
}

TEST(FallbackDecide, PerKernelRule) {
  Policy p = policyWith("fallback: {mode: warn}\nkernels:\n  - {match: 'bench_*', fallback: {mode: "
                        "deny}}\n");
  EXPECT_EQ(decide(p, "bench_x", "cuda:gpu:0", FailureClass::Compile, "").action,
            FallbackAction::Fail);
  EXPECT_EQ(decide(p, "other", "cuda:gpu:0", FailureClass::Compile, "").action,
            FallbackAction::RunOnHost);
}

TEST_F(FallbackReport, WarnOncePerKernelDeviceReason) {
  setLevel(0);
  Policy p = policyWith("fallback: {mode: warn}\n");
  FallbackDecision first = decide(p, "k", "opencl:cpu:0", FailureClass::Compile, "log");
  reportFallback(first, "host:cpu:0");
  reportFallback(first, "host:cpu:0"); // same key: silent at level 0
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].num("level"), 0);
  EXPECT_EQ(records[0].str("event"), "fallback");
  EXPECT_EQ(records[0].str("kernel"), "k");
  EXPECT_EQ(records[0].str("from"), "opencl:cpu:0");
  EXPECT_EQ(records[0].str("to"), "host:cpu:0");
  EXPECT_EQ(records[0].str("reason"), "compile");
  EXPECT_EQ(records[0].str("mode"), "warn");
  EXPECT_EQ(records[0].str("cause"), "log");
  EXPECT_EQ(records[0].str("message"), first.warning);

  // Another device, another reason or another kernel: one more warning each.
  reportFallback(decide(p, "k", "opencl:cpu:1", FailureClass::Compile, "log"), "host:cpu:0");
  reportFallback(decide(p, "k", "opencl:cpu:0", FailureClass::Launch, "log"), "host:cpu:0");
  reportFallback(decide(p, "k2", "opencl:cpu:0", FailureClass::Compile, "log"), "host:cpu:0");
  EXPECT_EQ(records.size(), 4u);
}

TEST_F(FallbackReport, LevelOneRecordsEveryFallback) {
  setLevel(1);
  Policy p = policyWith("fallback: {mode: warn}\n");
  FallbackDecision d = decide(p, "k", "cuda:gpu:0", FailureClass::Launch, "x");
  reportFallback(d, "host:cpu:0");
  reportFallback(d, "host:cpu:0");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].num("level"), 0); // the warning
  EXPECT_EQ(records[1].num("level"), 1); // later occurrences are plain records
  EXPECT_FALSE(records[1].has("message"));
}

TEST_F(FallbackReport, AllowIsSilentBelowLevelOne) {
  setLevel(0);
  Policy p = policyWith("fallback: {mode: allow}\n");
  FallbackDecision d = decide(p, "k", "cuda:gpu:0", FailureClass::Launch, "x");
  reportFallback(d, "host:cpu:0");
  EXPECT_TRUE(records.empty());
  setLevel(1);
  reportFallback(d, "host:cpu:0");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].str("mode"), "allow");
  // Fail decisions are the caller's to report, as errors.
  Policy deny = policyWith("fallback: {mode: deny}\n");
  reportFallback(decide(deny, "k", "cuda:gpu:0", FailureClass::Launch, "x"), "host:cpu:0");
  EXPECT_EQ(records.size(), 1u);
}
