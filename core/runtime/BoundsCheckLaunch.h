// BoundsCheckLaunch.h - launches of programs in bounds-check mode (compiler/BoundsCheck.h).
//
// Each launch gets a zeroed status record in device memory of the queue's device, passed as the
// kernel's last argument; the launch is waited for, the record read back and freed. A record that
// holds a failure becomes DPK_ERROR_OUT_OF_BOUNDS naming the kernel, file:line, array, index and
// shape. So these launches are synchronous: the returned event has completed.
#ifndef DPK_CORE_RUNTIME_BOUNDSCHECKLAUNCH_H
#define DPK_CORE_RUNTIME_BOUNDSCHECKLAUNCH_H

#include "runtime/Launch.h"

namespace dpk::runtime {

/// launchKernel for a kernel whose program is in bounds-check mode; `args` are the caller's.
Expected<Ref<Event>> launchBoundsChecked(Queue &queue, Kernel &kernel,
                                         const dpk_launch_config_t &config, const LaunchArg *args,
                                         uint32_t numArgs, const std::vector<Event *> &deps,
                                         bool wantEvent);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_BOUNDSCHECKLAUNCH_H
