// Fallback.h - running a kernel on the host when its device cannot, as the policy allows.
//
// On a covered failure (compile, launch, out of device memory) the policy decides: Deny returns
// a typed error naming kernel, device and cause; Warn/Allow run the same kernel on the host
// device. Arguments in device memory of the failed device are copied to host temporaries, the
// kernel runs there synchronously (after everything the queue had before it), and the
// temporaries are copied back only when the host run succeeded, so a failure never leaves
// partial output that looks complete. Shared and host allocations are used in place.
#ifndef DPK_CORE_RUNTIME_FALLBACK_H
#define DPK_CORE_RUNTIME_FALLBACK_H

#include "dpk/dpk_types.h"
#include "runtime/Event.h"
#include "support/Error.h"

#include <string>
#include <vector>

namespace dpk::runtime {

class Device;
class Kernel;
class MarshalledArgs;
class Queue;

/// DPK_ERROR_PLACEMENT when a pointer argument is device memory of a device other than `device`.
Error checkPlacement(const MarshalledArgs &args, const Device &device, const std::string &kernel);

/// Runs `kernel` on the host device instead of the queue's device, as the file comment
/// describes (migration, synchronous run, copy back on success). A failure is an Error with
/// `status` whose message starts with `cause`. Used by fallback and by policy routing.
Expected<Ref<Event>> runOnHost(Queue &queue, Kernel &kernel, const dpk_launch_config_t &config,
                               MarshalledArgs &args, const std::vector<Event *> &deps,
                               dpk_status_t status, const std::string &cause);

/// Handles a failed submission of `kernel` on the queue's device (see the file comment).
Expected<Ref<Event>> fallBackOrFail(Queue &queue, Kernel &kernel,
                                    const dpk_launch_config_t &config, MarshalledArgs &args,
                                    const std::vector<Event *> &deps, Error failure);

} // namespace dpk::runtime

#endif // DPK_CORE_RUNTIME_FALLBACK_H
