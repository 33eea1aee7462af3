// FakeLaunchRecord.h - where cuLaunchKernel records what it accepted (FakeCudaControl.h).
#ifndef DPK_TESTS_FAKE_CUDA_LAUNCH_RECORD_H
#define DPK_TESTS_FAKE_CUDA_LAUNCH_RECORD_H

#include "FakeCudaControl.h"

namespace fake_cuda {

/// Written by every accepted launch, read by fakeCudaLastLaunch; tests launch from one thread.
FakeCudaLaunch &lastLaunch();

} // namespace fake_cuda

#endif // DPK_TESTS_FAKE_CUDA_LAUNCH_RECORD_H
