// SubGroupLowering.cpp - the default lowering of the sub-group ops: every work-item is a
// sub-group of its own (Ops.def allows any size up to 32 that a target picks). The host runs a
// work-group's work-items one after another, and the SPIR-V and OpenCL C paths do not yet ask
// the driver for its sub-groups, so size 1 is what these targets can promise: lane 0, size 1,
// a ballot that holds only the work-item's own bit, a shuffle that returns its own value.
#include "compiler/Lowering.h"

namespace dpk::compiler {

Expected<llvm::Value *> FunctionLowering::emitSubGroup(const ir::Op &op) {
  switch (op.kind) {
  case ir::OpKind::SubGroupLocalId: return builder_.getInt64(0);
  case ir::OpKind::SubGroupSize: return builder_.getInt64(1);
  case ir::OpKind::SubGroupBallot: return builder_.CreateZExt(lookup(op.operands[0]), builder_.getInt32Ty());
  case ir::OpKind::SubGroupShuffle: return lookup(op.operands[0]);
  default: return unsupported(op, "not a sub-group op");
  }
}

} // namespace dpk::compiler
