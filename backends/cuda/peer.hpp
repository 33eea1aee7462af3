// peer.hpp - direct copies between the memory of two GPUs.
//
// A cuMemcpyAsync between allocations of two devices' contexts works without peer access, but
// the driver then stages it through host memory: 256 MiB from one H200 to the other took 223 ms
// (1.1 GiB/s) that way. With peer access enabled from the copying queue's context to the other
// device's, the copy engines move the data over NVLink or PCIe directly.
#ifndef DPK_BACKENDS_CUDA_PEER_HPP
#define DPK_BACKENDS_CUDA_PEER_HPP

#include "context.hpp"

namespace dpk::cuda {

/// Copies smaller than this do not look up which device their pointers belong to: staging costs
/// them little, and the two pointer queries would cost every small copy (most of them are
/// results read back to the host).
constexpr size_t PeerCheckMinBytes = size_t(1) << 20;

/// When `dst` or `src` is memory of another device's context that `context`'s device can reach
/// as a peer, enables that peer access for `context` (once per pair; the context must be
/// current). Anything else (host memory, this context's own memory, devices that are not peers)
/// is left to the driver. Never fails a copy: a refused peer access only means the staged path.
void enablePeerAccessFor(Context &context, const void *dst, const void *src);

} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_PEER_HPP
