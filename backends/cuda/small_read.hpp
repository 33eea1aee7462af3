// small_read.hpp - reads of a few bytes of device memory into pageable host memory, behind work
// still running on the stream, through a copy kernel instead of the copy engine.
//
// float(dpk.sum(x)) launches a reduction and at once reads its 4-byte result. A copy to pageable
// host memory goes through the copy engine and the driver's staging, and its completion reaches
// the host several microseconds after the kernel before it ends. Measured on an H200 (driver
// 580), 4 bytes read right behind a 60 us kernel, beyond the kernel and a synchronize: +7.4 us
// for cuMemcpyAsync to pageable memory, +5.4 us to pinned memory, +1.6 us for a one-block kernel
// writing into pinned memory mapped into the device's address space (docs/backends/cuda.md,
// ".devcarry/lab/readlat.cu"). On an idle stream the kernel's launch latency makes it no faster
// (9.6 against 9.1 us), so reads on idle streams keep the copy engine.
//
// The read is synchronous, as a copy to pageable memory is: it returns with the bytes in place.
#ifndef DPK_BACKENDS_CUDA_SMALL_READ_HPP
#define DPK_BACKENDS_CUDA_SMALL_READ_HPP

#include "queue.hpp"

#include <cstddef>

namespace dpk::cuda {

/// The largest read that goes through the copy kernel (the size of a queue's staging block).
constexpr size_t SmallReadMaxBytes = 4096;

/// Whether a copy of `bytes` from `src` to `dst` on `queue` is a small read to take through the
/// copy kernel: at most SmallReadMaxBytes, the stream possibly busy (commands submitted since
/// the plugin last synchronized it; a borrowed stream is asked with cuStreamQuery), `src`
/// device memory of the queue's context, `dst` host memory the driver does not know
/// (pageable). The context must be current.
bool isSmallRead(Queue &queue, void *dst, const void *src, size_t bytes);

/// Copies `bytes` (at most SmallReadMaxBytes) from device memory `src` to host memory `dst`
/// through the copy kernel and the queue's staging block, and returns once they are in `dst`
/// (a failure of any command before it on the stream is reported here, as a synchronous copy
/// reports it). DPK_ERROR_UNSUPPORTED when the kernel or the staging block cannot be had: the
/// caller copies with the copy engine instead.
dpk_status_t smallRead(Queue &queue, void *dst, const void *src, size_t bytes);

/// Frees the queue's staging block (queue release; the context must be current).
void releaseSmallReadStaging(Queue &queue);

/// Unloads the context's copy-kernel module (context release; the context must be current).
void releaseSmallReadKernel(Context &context);

} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_SMALL_READ_HPP
