// KernelAbi.cpp - the launch arguments of a kernel after view expansion (Compiler.h).
#include "compiler/Compiler.h"

namespace dpk::compiler {

std::vector<AbiArg> kernelAbi(const ir::Function &kernel) {
  std::vector<AbiArg> args;
  for (unsigned i = 0; i < kernel.params.size(); ++i) {
    const ir::Type &t = kernel.params[i]->type;
    switch (t.kind) {
    case ir::TypeKind::Void: break;
    case ir::TypeKind::Scalar: args.push_back({DPK_ARG_SCALAR, ir::scalarSize(t.scalar), i}); break;
    case ir::TypeKind::Pointer:
      if (t.space == ir::AddressSpace::Local) args.push_back({DPK_ARG_LOCAL, 0, i});
      else args.push_back({DPK_ARG_POINTER, sizeof(void *), i});
      break;
    case ir::TypeKind::View:
      if (t.space == ir::AddressSpace::Local) args.push_back({DPK_ARG_LOCAL, 0, i});
      else args.push_back({DPK_ARG_POINTER, sizeof(void *), i});
      for (unsigned k = 0; k < 2u * t.rank; ++k) args.push_back({DPK_ARG_SCALAR, 8, i});
      break;
    }
  }
  return args;
}

} // namespace dpk::compiler
