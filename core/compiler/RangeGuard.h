// RangeGuard.h - the pass that lets a Range kernel run in a fixed work-group shape at every
// global size, so that one device binary serves them all.
//
// OpenCL implementations compile a work-group function per work-group size, and given no local
// size they pick one per global size: PoCL specializes on the local size it picks (the global
// size itself up to 4096, else its largest divisor up to 4096), so every new size of a Range
// launch cost a 50-250 ms LLVM compile, and prime sizes ran in work-groups of one work-item. The
// runtime therefore runs a Range launch on a SPIR-V or OpenCL C device in one fixed work-group
// shape (runtime/LaunchRange.h), as pieces: the bulk, whose extent in each dimension is the
// largest multiple of the shape, and for each dimension with a remainder one piece covering it,
// rounded up to whole work-groups. Built with this pass the kernel cannot tell:
//  - every kernel gets 2 * dims more i64 parameters, last (after any other the compiler adds):
//    the launch's real global sizes, then the piece's offsets, both in dpk's dimension order;
//  - its global_size ops read the real sizes, and its global ids are the piece's plus the
//    offsets (OpenCL's own global offset is not in dpk's plugin ABI);
//  - `guard` (the remainder pieces): a work-item whose id is past the real size in any
//    dimension returns at once. The bulk needs no guard, and its build has none: a per-item
//    branch keeps PoCL and Intel's runtime from vectorizing the work-item loop (a trivial
//    kernel over 1M items ran 1.6-2x slower guarded).
// A Range kernel exposes no work-groups, so the shape and the pieces are unobservable, provided
// the kernel cannot see work-groups at all: rangeGuardApplies() says when.
#ifndef DPK_CORE_COMPILER_RANGEGUARD_H
#define DPK_CORE_COMPILER_RANGEGUARD_H

#include "ir/IR.h"
#include "support/Error.h"

namespace dpk::compiler {

/// Whether `kernel` can run in pieces: neither it nor a function it calls uses a barrier,
/// local memory (local_alloc or a local pointer parameter), local_id, group_id, local_size or
/// num_groups, and only the kernel's own body reads global_id and global_size (a device
/// function would need the sizes and offsets passed on).
bool rangeGuardApplies(const ir::Function &kernel, const ir::Module &module);

/// Bytes of private memory (`alloca`) one work-item of `kernel` may hold at once: the kernel's
/// arrays plus those of every function it calls, each counted once (an upper bound). OpenCL CPU
/// runtimes keep them for a whole work-group at once on a thread's stack (PoCL 3.1 crashed with
/// 1024 work-items of 8 KiB each), so the runtime sizes work-groups by it.
uint64_t privateMemoryBytes(const ir::Function &kernel, const ir::Module &module);

/// Rewrites every kernel of `module` for which rangeGuardApplies() holds, as the file comment
/// says, for a launch of `dims` dimensions (1-3, at least the dimensions the kernel uses), with
/// the guard when `guard`. Kernels the pass does not apply to are left as they are.
Error addRangeGuard(ir::Module &module, unsigned dims, bool guard);

} // namespace dpk::compiler

#endif // DPK_CORE_COMPILER_RANGEGUARD_H
