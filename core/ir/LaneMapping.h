// LaneMapping.h - which dimension of a Range kernel should feed the hardware's fastest lanes.
//
// A Range launch exposes no work-groups, so which of its dimensions varies fastest across
// neighbouring hardware lanes (CUDA threadIdx.x, OpenCL dimension 0, the host's vectorized
// work-item loop) is dpk's choice (DESIGN.md, "Index space"). Backends map dpk's last dimension
// to the fastest lanes; a kernel that stores `D[j, i]` with i = global_id(0) then writes with a
// stride of a whole row between neighbouring lanes (numba-dpex's pairwise-distance example:
// 4.9x slower on an H100 than with the dimensions swapped).
//
// chooseLaneMapping() finds, for each global memory access, the dimensions whose global id
// moves its address by exactly one element (contiguous), weighs the accesses (stores and
// atomics 4, loads 1; accesses inside loops count 4x per loop level, up to 3 levels) and picks
// the dimension with the largest weight. permuteWorkItemDimensions() rewrites a module so that
// dimension becomes the last one; the runtime launches the rewritten kernel over the permuted
// global size, so every work-item still sees the ids the kernel's text asks for. The analysis
// is a heuristic over a flow-insensitive abstraction (private variables are the join of what
// is stored in them); it only ever changes which lanes run which work-items, never a result.
//
// Only kernels whose work-item ops (through calls) are global_id and global_size, with no
// barrier and no local memory, are remapped: their semantics do not depend on the grouping.
#ifndef DPK_CORE_IR_LANEMAPPING_H
#define DPK_CORE_IR_LANEMAPPING_H

#include "ir/IR.h"

#include <array>
#include <string>

namespace dpk::ir {

struct LaneChoice {
  /// Dimensions the kernel indexes (ir::dimensionsUsed).
  unsigned dims = 0;
  /// Whether the kernel may be remapped at all (see above).
  bool remappable = false;
  /// The dpk dimension whose accesses are contiguous with the most weight (dims - 1 when none
  /// is better than the literal mapping).
  unsigned fastDimension = 0;
  /// Contiguity weight per dimension.
  std::array<unsigned, 3> weight{0, 0, 0};
  /// Why: the access that decided, or why the literal mapping stays.
  std::string reason;

  /// True when the launch should be permuted: a remappable kernel of 2 or more dimensions
  /// whose best dimension is not already the last.
  bool permutes() const { return remappable && dims >= 2 && fastDimension + 1 != dims; }
  /// New position of dpk dimension d: the fast dimension goes last, the others keep their
  /// relative order. Identity when !permutes().
  std::array<unsigned, 3> newPosition() const;
};

LaneChoice chooseLaneMapping(const Function &kernel, const Module &module);

/// Rewrites every work-item op (global_id, global_size, ...) of every function of `module`:
/// dimension d becomes newPosition[d].
void permuteWorkItemDimensions(Module &module, const std::array<unsigned, 3> &newPosition);

} // namespace dpk::ir

#endif // DPK_CORE_IR_LANEMAPPING_H
