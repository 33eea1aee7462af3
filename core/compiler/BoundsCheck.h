// BoundsCheck.h - bounds-check mode: the IR pass that guards array accesses, and the record a
// failed check leaves for the runtime.
//
// insertBoundsChecks() rewrites a module so that every access it can bound is checked before it
// happens (docs/reliability.md, "Bounds-check mode"):
//  - view_load / view_store: each index against the view's extent in its dimension;
//  - load / store / atomics through the pointer of a view_elem_ptr at index 0 (AtomicRef): the
//    view_elem_ptr's indices against the view's extents;
//  - load / store / atomics on an `alloca` or `local_alloc` array: the index against its count.
// Accesses through other pointers (kernel pointer parameters, ptr_offset, view_ptr) carry no
// extent in the IR and are not checked. Comparisons are unsigned, so negative indices fail too.
//
// Every function (kernels and device functions) gets one more parameter, last: a
// ptr<global, i64> to the status record below, which calls pass on. A failed check records
// itself there (the first failure of a launch wins, through a compare-exchange of word 0), and
// the access is skipped: a load yields 0, a store or atomic does nothing. Nothing else changes,
// so a launch runs to its end and the runtime reads the record afterwards.
//
// The pass is deterministic: sites are numbered per function in the order forEachSite() visits
// them, so the runtime can name a site from the record and the unchecked module.
#ifndef DPK_CORE_COMPILER_BOUNDSCHECK_H
#define DPK_CORE_COMPILER_BOUNDSCHECK_H

#include "ir/IR.h"

#include <cstdint>
#include <functional>
#include <string>

namespace dpk::compiler {

/// The status record: kBoundsRecordWords i64 words, zero before a launch.
enum BoundsRecordWord : unsigned {
  BoundsSite = 0,       // 0: no failure; else 1 + the site's number within its function
  BoundsFunction = 1,   // boundsCheckFunctionId() of the function holding the site
  BoundsDimension = 2,  // the first dimension whose index failed
  BoundsIndex = 3,      // that index
  BoundsShape = 4,      // words 4..6: the extents of the array's dimensions (rank of them)
  BoundsRank = 7,       // the number of extents recorded
};
constexpr unsigned kBoundsRecordWords = 8;
constexpr size_t kBoundsRecordBytes = kBoundsRecordWords * sizeof(int64_t);

/// The name of the parameter the pass appends.
constexpr const char *kBoundsStatusParam = "dpk_status";

/// Identifies a function in the record (FNV-1a of its name), stable across kernel slicing.
int64_t boundsCheckFunctionId(const std::string &name);

/// One checked access as the pass sees it.
struct BoundsSiteInfo {
  const ir::Op *access = nullptr;  // the load, store or atomic
  const ir::Value *array = nullptr; // the view, alloca or local_alloc result
  unsigned rank = 1;               // dimensions checked (1 for alloca/local_alloc)
};

/// Calls `visit` for every access of `function` the pass checks, in the pass's order.
void forEachBoundsSite(const ir::Function &function,
                       const std::function<void(const BoundsSiteInfo &)> &visit);

/// Rewrites `module` in place (see the file comment). The module must be verified; it stays so.
void insertBoundsChecks(ir::Module &module);

/// The message of a failure record for a launch of `kernel` from `module` (the module as the
/// program holds it, without checks): "kernel 'shift' (t.py:12): index 10 is out of bounds for
/// axis 0 of array 'a' with shape (10,)". Empty when the record holds no failure.
std::string describeBoundsFailure(const ir::Module &module, const std::string &kernel,
                                  const int64_t (&record)[kBoundsRecordWords]);

} // namespace dpk::compiler

#endif // DPK_CORE_COMPILER_BOUNDSCHECK_H
