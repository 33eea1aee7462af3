// DevicesTest.cpp - the suite tests what the caller expects it to: DPK_CONFORMANCE_REQUIRE lists
// device name, vendor or filter substrings (comma-separated, e.g. "Intel,pthread" or "AMD
// EPYC,NVIDIA") that must each match a device, so a runtime that silently lost a platform (an ICD
// that failed to load) fails here instead of passing with fewer devices.
#include "Conformance.h"

#include <cstdlib>
#include <sstream>

namespace dpk::conformance {
namespace {

TEST(Runtime, RequiredDevicesArePresent) {
  const char *required = std::getenv("DPK_CONFORMANCE_REQUIRE");
  if (!required || !*required)
    GTEST_SKIP() << "DPK_CONFORMANCE_REQUIRE is not set";
  std::vector<DeviceParam> devices = allDevices();
  std::stringstream list(required);
  std::string wanted;
  while (std::getline(list, wanted, ',')) {
    bool found = false;
    for (const DeviceParam &device : devices)
      found = found || device.name.find(wanted) != std::string::npos ||
              device.vendor.find(wanted) != std::string::npos ||
              device.filter.find(wanted) != std::string::npos;
    EXPECT_TRUE(found) << "no device matches '" << wanted << "' (DPK_CONFORMANCE_REQUIRE)";
  }
}

} // namespace
} // namespace dpk::conformance
