// main.cpp - the stress runner: no fallback unless a test asks for it (a failing device must
// fail, not run on the host), a private kernel cache per run unless DPK_CACHE_DIR is set, then
// one line per device so a log says what was stressed.
#include "StressSupport.h"

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char **argv) {
  setenv("DPK_FALLBACK", "deny", /*overwrite=*/0);
  std::string cache;
  if (!std::getenv("DPK_CACHE_DIR")) {
    cache = dpk::stress::makeScratchDirectory("cache");
    setenv("DPK_CACHE_DIR", cache.c_str(), 1);
  }
  ::testing::InitGoogleTest(&argc, argv);
  if (!dpk::test::isChild())
    for (const dpk::stress::DeviceParam &device : dpk::stress::devices())
      std::fprintf(stderr, "dpk_stress_tests: device %u: %s (%s, %s) input %s\n", device.index,
                   device.filter.c_str(), device.name.c_str(), device.vendor.c_str(),
                   device.input.c_str());
  int status = RUN_ALL_TESTS();
  if (!cache.empty())
    dpk::stress::removeTree(cache);
  return status;
}
