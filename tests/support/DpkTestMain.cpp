// DpkTestMain.cpp - main() of the runtime and C API tests: pins the plugins (host + the fault
// test plugin) and a private kernel cache before the runtime starts, then runs GoogleTest.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <unistd.h>

int main(int argc, char **argv) {
  if (!std::getenv("DPK_FORCE_PLUGINS")) {
    std::string plugins = std::string(DPK_REAL_PLUGIN_DIR) + "/libdpk_backend_host.so:" +
                          DPK_TEST_PLUGIN_DIR + "/libdpk_backend_fault.so";
    ::setenv("DPK_FORCE_PLUGINS", plugins.c_str(), 1);
  }
  if (!std::getenv("DPK_CACHE_DIR")) {
    std::string cache = "/tmp/dpk-test-cache-" + std::to_string(::getuid());
    ::setenv("DPK_CACHE_DIR", cache.c_str(), 1);
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
