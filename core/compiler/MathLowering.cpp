// MathLowering.cpp - dpk math functions as LLVM intrinsics, libm, OpenCL builtins or libdevice.
#include "compiler/Lowering.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <iterator>

namespace dpk::compiler {

using llvm::Value;

namespace {

/// The LLVM intrinsic implementing a float math function, or not_intrinsic.
llvm::Intrinsic::ID floatIntrinsic(ir::MathFn fn) {
  switch (fn) {
  case ir::MathFn::Fabs: case ir::MathFn::Abs: return llvm::Intrinsic::fabs;
  case ir::MathFn::Exp: return llvm::Intrinsic::exp;
  case ir::MathFn::Exp2: return llvm::Intrinsic::exp2;
  case ir::MathFn::Log: return llvm::Intrinsic::log;
  case ir::MathFn::Log10: return llvm::Intrinsic::log10;
  case ir::MathFn::Log2: return llvm::Intrinsic::log2;
  case ir::MathFn::Sqrt: return llvm::Intrinsic::sqrt;
  case ir::MathFn::Sin: return llvm::Intrinsic::sin;
  case ir::MathFn::Cos: return llvm::Intrinsic::cos;
  case ir::MathFn::Pow: return llvm::Intrinsic::pow;
  case ir::MathFn::Floor: return llvm::Intrinsic::floor;
  case ir::MathFn::Ceil: return llvm::Intrinsic::ceil;
  case ir::MathFn::Trunc: return llvm::Intrinsic::trunc;
  case ir::MathFn::Copysign: return llvm::Intrinsic::copysign;
  case ir::MathFn::Min: return llvm::Intrinsic::minnum;
  case ir::MathFn::Max: return llvm::Intrinsic::maxnum;
  case ir::MathFn::Expm1: case ir::MathFn::Log1p: case ir::MathFn::Tan: case ir::MathFn::Asin:
  case ir::MathFn::Acos: case ir::MathFn::Atan: case ir::MathFn::Atan2: case ir::MathFn::Sinh:
  case ir::MathFn::Cosh: case ir::MathFn::Tanh: case ir::MathFn::Asinh: case ir::MathFn::Acosh:
  case ir::MathFn::Atanh: case ir::MathFn::Fmod: case ir::MathFn::Erf: case ir::MathFn::Erfc:
  case ir::MathFn::Tgamma: case ir::MathFn::Lgamma: case ir::MathFn::Ldexp:
  case ir::MathFn::Hypot: case ir::MathFn::IsNan: case ir::MathFn::IsInf:
  case ir::MathFn::Popcount: // integers only: emitCommonMath
    return llvm::Intrinsic::not_intrinsic;
  }
  return llvm::Intrinsic::not_intrinsic;
}

/// The C / OpenCL name of a float math function ("fmin" for Min).
std::string libraryName(ir::MathFn fn) {
  if (fn == ir::MathFn::Min) return "fmin";
  if (fn == ir::MathFn::Max) return "fmax";
  if (fn == ir::MathFn::Abs) return "fabs";
  return ir::mathFnName(fn);
}

} // namespace

Value *FunctionLowering::callPure(const std::string &name, llvm::Type *resultType,
                                  llvm::ArrayRef<Value *> args, bool readNone) {
  std::vector<llvm::Type *> types;
  for (Value *a : args) types.push_back(a->getType());
  auto *fnType = llvm::FunctionType::get(resultType, types, false);
  llvm::FunctionCallee callee = llvmModule().getOrInsertFunction(name, fnType);
  auto *fn = llvm::cast<llvm::Function>(callee.getCallee());
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr(llvm::Attribute::WillReturn);
  if (readNone) fn->addFnAttr(llvm::Attribute::ReadNone);
  if (target_.spirCallingConvention) fn->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  llvm::CallInst *call = builder_.CreateCall(callee, args);
  call->setCallingConv(fn->getCallingConv());
  if (readNone) call->addFnAttr(llvm::Attribute::ReadNone);
  return call;
}

namespace {

/// Integer min/max/abs/popcount and the float classification tests are the same on every
/// target. llvm.ctpop becomes popcnt (or a bit-twiddling sequence) on the host, popc on NVPTX
/// and OpBitCount in SPIR-V.
Value *emitCommonMath(llvm::IRBuilder<> &b, const ir::Op &op, llvm::ArrayRef<Value *> args) {
  const ir::Type &t = op.operands[0]->type;
  Value *x = args[0];
  if (t.isInteger()) {
    if (op.mathFn == ir::MathFn::Popcount)
      return b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
    bool s = t.isSigned();
    if (op.mathFn == ir::MathFn::Min)
      return b.CreateSelect(s ? b.CreateICmpSLT(x, args[1]) : b.CreateICmpULT(x, args[1]), x,
                            args[1]);
    if (op.mathFn == ir::MathFn::Max)
      return b.CreateSelect(s ? b.CreateICmpSGT(x, args[1]) : b.CreateICmpUGT(x, args[1]), x,
                            args[1]);
    if (op.mathFn == ir::MathFn::Abs && !s) return x;
    if (op.mathFn == ir::MathFn::Abs)
      return b.CreateSelect(b.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)),
                            b.CreateNeg(x), x);
    return nullptr;
  }
  if (op.mathFn == ir::MathFn::IsNan) return b.CreateFCmpUNO(x, x);
  if (op.mathFn == ir::MathFn::IsInf) {
    Value *inf = llvm::ConstantFP::getInfinity(x->getType());
    return b.CreateOr(b.CreateFCmpOEQ(x, inf), b.CreateFCmpOEQ(x, b.CreateFNeg(inf)));
  }
  return nullptr;
}

} // namespace

Expected<Value *> FunctionLowering::emitMathHost(const ir::Op &op, llvm::ArrayRef<Value *> args) {
  if (Value *v = emitCommonMath(builder_, op, args)) return v;
  llvm::Type *ty = args[0]->getType();
  if (op.mathFn == ir::MathFn::Fmod) return builder_.CreateFRem(args[0], args[1]);
  llvm::Intrinsic::ID id = floatIntrinsic(op.mathFn);
  if (id != llvm::Intrinsic::not_intrinsic)
    return static_cast<Value *>(builder_.CreateIntrinsic(id, {ty}, args));
  std::string name = libraryName(op.mathFn);
  if (ty->isFloatTy()) name += "f";
  // lgamma sets the global signgam, so it is not readnone.
  return callPure(name, ty, args, op.mathFn != ir::MathFn::Lgamma);
}

Expected<Value *> FunctionLowering::emitMathOpenCL(const ir::Op &op,
                                                   llvm::ArrayRef<Value *> args) {
  if (Value *v = emitCommonMath(builder_, op, args)) return v;
  llvm::Type *ty = args[0]->getType();
  std::string name = libraryName(op.mathFn);
  std::string mangled = "_Z" + std::to_string(name.size()) + name;
  for (Value *a : args)
    mangled += a->getType()->isDoubleTy() ? "d" : a->getType()->isFloatTy() ? "f" : "i";
  return callPure(mangled, ty, args);
}

Expected<Value *> FunctionLowering::emitMathLibdevice(const ir::Op &op,
                                                      llvm::ArrayRef<Value *> args) {
  if (Value *v = emitCommonMath(builder_, op, args)) return v;
  llvm::Type *ty = args[0]->getType();
  if (target_.libdeviceAvailable) {
    std::string name = "__nv_" + libraryName(op.mathFn);
    if (ty->isFloatTy()) name += "f";
    return callPure(name, ty, args);
  }
  if (op.mathFn == ir::MathFn::Fmod) return builder_.CreateFRem(args[0], args[1]);
  // Without libdevice, only what NVPTX selects natively from intrinsics.
  using F = ir::MathFn;
  static const F native[] = {F::Fabs,  F::Abs,   F::Sqrt,     F::Floor, F::Ceil,
                             F::Trunc, F::Copysign, F::Min, F::Max};
  if (std::find(std::begin(native), std::end(native), op.mathFn) != std::end(native))
    return static_cast<Value *>(builder_.CreateIntrinsic(floatIntrinsic(op.mathFn), {ty}, args));
  return unsupported(op, mathDescription(op.mathFn) +
                             " needs NVIDIA libdevice (libdevice.10.bc), which was not found");
}

} // namespace dpk::compiler
