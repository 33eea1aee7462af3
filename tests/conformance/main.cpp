// main.cpp - the conformance runner: no fallback (a failing device must fail, not run on the
// host), then one line per device so a log says what was tested.
#include "Conformance.h"

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  setenv("DPK_FALLBACK", "deny", /*overwrite=*/0);
  ::testing::InitGoogleTest(&argc, argv);
  uint32_t count = 0;
  dpk_status_t status = dpk_device_count(&count);
  if (status != DPK_SUCCESS)
    std::fprintf(stderr, "dpk_conformance_tests: dpk_device_count failed: %s\n",
                 dpk::conformance::lastError(status).c_str());
  for (const dpk::conformance::DeviceParam &device : dpk::conformance::allDevices())
    std::fprintf(stderr, "dpk_conformance_tests: device %u: %s (%s, %s) input %s\n", device.index,
                 device.filter.c_str(), device.name.c_str(), device.vendor.c_str(),
                 device.input.c_str());
  return RUN_ALL_TESTS();
}
