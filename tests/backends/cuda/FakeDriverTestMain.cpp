// FakeDriverTestMain.cpp - main() of dpk_cuda_fake_driver_tests: points the CUDA plugin at the
// fake driver and the runtime at the CUDA plugin alone (with a private kernel cache) before
// anything loads, then runs GoogleTest. Variables already set are kept.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <unistd.h>

int main(int argc, char **argv) {
  ::setenv("DPK_CUDA_LIBRARY", DPK_FAKE_CUDA_PATH, /*overwrite=*/0);
  ::setenv("DPK_FORCE_PLUGINS", DPK_CUDA_PLUGIN_PATH, /*overwrite=*/0);
  std::string cache = "/tmp/dpk-test-cache-" + std::to_string(::getuid());
  ::setenv("DPK_CACHE_DIR", cache.c_str(), /*overwrite=*/0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
