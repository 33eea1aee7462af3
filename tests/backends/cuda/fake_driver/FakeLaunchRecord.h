// FakeLaunchRecord.h - where cuLaunchKernel records what it accepted (FakeCudaControl.h).
#ifndef DPK_TESTS_FAKE_CUDA_LAUNCH_RECORD_H
#define DPK_TESTS_FAKE_CUDA_LAUNCH_RECORD_H

#include "FakeCudaControl.h"

#include <mutex>

namespace fake_cuda {

/// Written by every accepted launch and read by fakeCudaLastLaunch, under lastLaunchLock().
FakeCudaLaunch &lastLaunch();
std::mutex &lastLaunchLock();

} // namespace fake_cuda

#endif // DPK_TESTS_FAKE_CUDA_LAUNCH_RECORD_H
