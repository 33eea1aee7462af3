// FakeDriverTestSupport.h - what the fake-driver tests share: the fake's control functions
// (FakeCudaControl.h), found in the library the CUDA plugin loaded.
#ifndef DPK_TESTS_BACKENDS_CUDA_FAKEDRIVERTESTSUPPORT_H
#define DPK_TESTS_BACKENDS_CUDA_FAKEDRIVERTESTSUPPORT_H

#include "FakeCudaControl.h"

#include <dlfcn.h>

#include <string>

namespace fake_driver_test {

/// The fake driver's control functions; null members when the fake is not loaded.
struct FakeDriver {
  FakeCudaFailNextFn failNext = nullptr;
  FakeCudaLastLaunchFn lastLaunchFn = nullptr;
  FakeCudaLastModuleFn lastModuleFn = nullptr;
  FakeCudaSetStreamsBusyFn setStreamsBusy = nullptr;

  /// Resolves them in the fake the plugin loaded (RTLD_NOLOAD: never loads it itself), so call
  /// it after the plugin's init.
  static FakeDriver find() {
    FakeDriver d;
    if (void *library = dlopen(DPK_FAKE_CUDA_PATH, RTLD_NOW | RTLD_NOLOAD)) {
      d.failNext = reinterpret_cast<FakeCudaFailNextFn>(dlsym(library, FAKE_CUDA_FAIL_NEXT));
      d.lastLaunchFn = reinterpret_cast<FakeCudaLastLaunchFn>(dlsym(library, FAKE_CUDA_LAST_LAUNCH));
      d.lastModuleFn = reinterpret_cast<FakeCudaLastModuleFn>(dlsym(library, FAKE_CUDA_LAST_MODULE));
      d.setStreamsBusy =
          reinterpret_cast<FakeCudaSetStreamsBusyFn>(dlsym(library, FAKE_CUDA_SET_STREAMS_BUSY));
      dlclose(library); // drops the reference RTLD_NOLOAD took; the plugin keeps its own
    }
    return d;
  }

  bool loaded() const { return failNext && lastLaunchFn && lastModuleFn && setStreamsBusy; }

  FakeCudaLaunch lastLaunch() const {
    FakeCudaLaunch launch{};
    lastLaunchFn(&launch);
    return launch;
  }

  /// The PTX the plugin loaded last.
  std::string lastModule() const {
    std::string text(lastModuleFn(nullptr, 0), '\0');
    lastModuleFn(text.data(), text.size() + 1);
    return text;
  }
};

} // namespace fake_driver_test

#endif // DPK_TESTS_BACKENDS_CUDA_FAKEDRIVERTESTSUPPORT_H
