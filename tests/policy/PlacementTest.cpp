// PlacementTest.cpp - the `placement` section (what a launch with arrays of different devices
// does): its default, the YAML values and their errors, the DPK_MIXED_DEVICES override, and the
// text of the migration record.
#include "diagnostics/Diagnostics.h"
#include "policy/Policy.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace dpk::policy;
using dpk::test::ScopedEnvironment;

namespace {

dpk::Expected<Policy> parse(const std::string &yaml) { return parsePolicy(yaml, "t.yaml"); }

std::string parseError(const std::string &yaml) {
  dpk::Expected<Policy> policy = parse(yaml);
  EXPECT_FALSE(policy) << "should not parse:\n" << yaml;
  if (policy)
    return "";
  EXPECT_EQ(policy.error().status(), DPK_ERROR_POLICY);
  return policy.error().message();
}

} // namespace

TEST(PolicyPlacement, DefaultIsError) {
  const Policy &builtin = builtinPolicy();
  EXPECT_EQ(builtin.placement.mixedDevices, MixedDevices::Error);
  // The value comes from the shipped file, not from the struct's initializer.
  EXPECT_EQ(builtin.placement.origin.rfind("built-in default:", 0), 0u)
      << builtin.placement.origin;
  dpk::Expected<Policy> leftOut = parse("version: 1\n");
  ASSERT_TRUE(leftOut) << leftOut.error().message();
  EXPECT_EQ(leftOut->placement.mixedDevices, MixedDevices::Error);
}

TEST(PolicyPlacement, MigrateFromTheFile) {
  dpk::Expected<Policy> p = parse("version: 1\nplacement:\n  mixed_devices: migrate\n");
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->placement.mixedDevices, MixedDevices::Migrate);
  EXPECT_EQ(p->placement.origin, "t.yaml:3:18");
  dpk::Expected<Policy> flow = parse("version: 1\nplacement: {mixed_devices: error}\n");
  ASSERT_TRUE(flow) << flow.error().message();
  EXPECT_EQ(flow->placement.mixedDevices, MixedDevices::Error);
}

TEST(PolicyPlacement, MisspelledValueNamesPositionAndAllowedValues) {
  EXPECT_EQ(parseError("version: 1\nplacement:\n  mixed_devices: migrat\n"),
            "t.yaml:3:18: placement.mixed_devices: bad value 'migrat' (did you mean 'migrate'?); "
            "allowed values: error, migrate");
  EXPECT_EQ(parseError("version: 1\nplacement:\n  mixed_device: error\n"),
            "t.yaml:3:3: placement: unknown key 'mixed_device' (did you mean 'mixed_devices'?); "
            "allowed keys: mixed_devices");
  EXPECT_EQ(parseError("version: 1\nplacement: migrate\n"),
            "t.yaml:2:12: placement: expected a mapping with keys mixed_devices, found a scalar");
  EXPECT_EQ(parseError("version: 1\nplacement:\n  mixed_devices: [error]\n"),
            "t.yaml:3:18: placement.mixed_devices: expected one of error, migrate, found a list");
}

TEST(PolicyPlacement, EnvironmentOverridesTheFile) {
  ScopedEnvironment env;
  std::string file = dpk::test::makeTempDir() + "/p.yaml";
  dpk::test::writeFile(file, "version: 1\nplacement: {mixed_devices: error}\n");
  env.set("DPK_CONFIG", file);
  env.set("DPK_MIXED_DEVICES", "migrate");
  dpk::Expected<Policy> p = loadPolicy();
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->placement.mixedDevices, MixedDevices::Migrate);
  EXPECT_EQ(p->placement.origin, "DPK_MIXED_DEVICES");
  EXPECT_EQ(p->environmentOverrides, std::vector<std::string>{"DPK_MIXED_DEVICES=migrate"});

  env.set("DPK_MIXED_DEVICES", ""); // empty counts as unset: the file's value stays
  dpk::Expected<Policy> unset = loadPolicy();
  ASSERT_TRUE(unset) << unset.error().message();
  EXPECT_EQ(unset->placement.mixedDevices, MixedDevices::Error);
}

TEST(PolicyPlacement, BadEnvironmentValueNamesTheVariable) {
  ScopedEnvironment env;
  env.set("XDG_CONFIG_HOME", dpk::test::makeTempDir());
  env.set("DPK_MIXED_DEVICES", "copy");
  dpk::Expected<Policy> p = loadPolicy();
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().status(), DPK_ERROR_POLICY);
  EXPECT_EQ(p.error().message(),
            "DPK_MIXED_DEVICES='copy': bad value; allowed values: error, migrate");
}

TEST(PolicyPlacement, NamesRoundTrip) {
  for (MixedDevices value : {MixedDevices::Error, MixedDevices::Migrate})
    EXPECT_EQ(parseMixedDevices(mixedDevicesName(value)), value);
  EXPECT_EQ(parseMixedDevices("Migrate"), std::nullopt); // values are case-sensitive, as in YAML
}

TEST(PolicyPlacement, MigrationRecordText) {
  // The Python frontend emits one record per migration copy; its text form names the copy.
  EXPECT_EQ(dpk::diag::formatText(3, "placement.migrate",
                                  {{"kernel", "axpy"},
                                   {"argument", 2},
                                   {"from", "opencl:cpu:0"},
                                   {"to", "host:cpu:0"},
                                   {"bytes", uint64_t(32)},
                                   {"direction", "to_target"}}),
            "dpk[3] placement.migrate: axpy: argument 2 to_target opencl:cpu:0 -> host:cpu:0 "
            "(32 bytes)");
}
