// Statements.cpp - the walk over one function's structured body, printing OpenCL C statements.
//
// Every SSA value becomes a `const` local named after the IR value where it has a name (made
// unique in the function), constants are printed inline, and the IR's regions become C blocks,
// so C scoping matches IR scoping. Kernel-scope `__local` arrays (OpenCL C requires it) and
// private arrays (allocas, to match the LLVM lowering) are hoisted to the top of the body.
#include "opencl_c/Emitter.h"

#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace dpk::opencl_c {

Error unsupported(const ir::Function &function, const ir::Op &op, const std::string &why) {
  return Error(DPK_ERROR_UNSUPPORTED, "opencl-c: function @" + function.name + ", op '" +
                                          ir::opName(op.kind) + "': " + why);
}

namespace {

const char *binaryOperator(ir::OpKind kind, const ir::Type &type) {
  bool isBool = type.isBool();
  if (kind == ir::OpKind::Add) return "+";
  if (kind == ir::OpKind::Sub) return "-";
  if (kind == ir::OpKind::Mul) return "*";
  if (kind == ir::OpKind::Div) return "/"; // floats only: integers go through totalDivision
  if (kind == ir::OpKind::Rem) return "%";
  if (kind == ir::OpKind::And) return isBool ? "&&" : "&";
  if (kind == ir::OpKind::Or) return isBool ? "||" : "|";
  if (kind == ir::OpKind::Xor) return isBool ? "!=" : "^";
  if (kind == ir::OpKind::Shl) return "<<";
  assert(kind == ir::OpKind::Shr && "not a binary op");
  return ">>"; // arithmetic for signed types, logical for unsigned
}

/// Integer `/` and `%` as the IR defines them (Ops.def): the divisor is replaced by 1 where it
/// is 0, or -1 with the minimum dividend, so nothing traps or is undefined, and x / 0 = 0,
/// x % 0 = 0, MIN / -1 = MIN, MIN % -1 = 0. Bitwise | and & keep it free of branches.
std::string totalDivision(ir::OpKind kind, ir::ScalarKind scalar, const std::string &a,
                          const std::string &b) {
  ir::Type type = ir::Type::scalarTy(scalar);
  std::string typeName = valueTypeName(scalar);
  std::string byZero = "(" + b + " == " + printInteger(scalar, 0) + ")";
  std::string unsafe = byZero;
  if (type.isSigned()) {
    int64_t minimum = scalar == ir::ScalarKind::I8    ? INT8_MIN
                      : scalar == ir::ScalarKind::I16 ? INT16_MIN
                      : scalar == ir::ScalarKind::I32 ? INT32_MIN
                                                      : INT64_MIN;
    unsafe = "(" + byZero + " | ((" + a + " == " + printInteger(scalar, minimum) + ") & (" + b +
             " == " + printInteger(scalar, -1) + ")))";
  }
  std::string divisor = "(" + unsafe + " ? " + printInteger(scalar, 1) + " : " + b + ")";
  if (kind == ir::OpKind::Rem)
    return "(" + typeName + ")(" + a + " % " + divisor + ")";
  return "(" + byZero + " ? " + printInteger(scalar, 0) + " : (" + typeName + ")(" + a + " / " +
         divisor + "))";
}

const char *comparisonOperator(ir::CmpPredicate predicate) {
  switch (predicate) {
  case ir::CmpPredicate::Eq: return "==";
  case ir::CmpPredicate::Ne: return "!=";
  case ir::CmpPredicate::Lt: return "<";
  case ir::CmpPredicate::Le: return "<=";
  case ir::CmpPredicate::Gt: return ">";
  case ir::CmpPredicate::Ge: return ">=";
  }
  return "==";
}

// The stride expression of a view dimension specialized on a unit stride
// (CompileOptions::unitInnerStrideViews); element indices leave out its multiplication.
const char *const kUnitStride = "(long)1";

class FunctionEmitter {
public:
  FunctionEmitter(ModuleState &state, const ir::Function &function)
      : state_(state), function_(function) {}

  std::string signature();
  Expected<std::string> definition();

private:
  // ---- names and operands -------------------------------------------------------------------
  std::string uniqueName(const std::string &preferred, const std::string &fallback);
  void nameParameters();
  const std::string &operand(const ir::Value *value);
  std::string elementIndex(const ir::Op &op, const ViewParts &view, size_t firstIndex);

  // ---- output ---------------------------------------------------------------------------------
  void line(const std::string &text) {
    body_.append(2 * indent_, ' ');
    body_ += text;
    body_ += '\n';
  }
  void declare(const ir::Value *value, const std::string &expression);

  // ---- walk -----------------------------------------------------------------------------------
  Error emitBlock(const ir::Block &block);
  Error emitOp(const ir::Op &op);
  Error emitFor(const ir::Op &op);
  Error emitAtomic(const ir::Op &op);
  std::string loadExpression(const ir::Type &pointerType, const std::string &pointer,
                             const std::string &index);
  std::string storeStatement(const ir::Type &pointerType, const std::string &pointer,
                             const std::string &index, const std::string &value);
  std::string castExpression(const ir::Type &from, const ir::Type &to, const std::string &value);

  ModuleState &state_;
  const ir::Function &function_;
  std::unordered_set<std::string> usedNames_;
  std::unordered_map<const ir::Value *, std::string> expressions_;
  std::unordered_map<const ir::Value *, ViewParts> views_;
  std::vector<std::string> parameterDeclarations_;
  std::vector<std::string> prologue_; // parameter conversions, hoisted __local and private arrays
  std::string body_;
  int indent_ = 1;
  bool named_ = false;
};

std::string FunctionEmitter::uniqueName(const std::string &preferred,
                                        const std::string &fallback) {
  std::string base = sanitizeIdentifier(preferred);
  if (base.empty())
    base = fallback;
  if (isReservedIdentifier(base))
    base += "_";
  std::string name = base;
  for (unsigned suffix = 1; usedNames_.count(name); ++suffix)
    name = base + "_" + std::to_string(suffix);
  usedNames_.insert(name);
  return name;
}

void FunctionEmitter::nameParameters() {
  if (named_)
    return;
  named_ = true;
  // Device function names are module-level identifiers: keep locals from shadowing them.
  for (const auto &entry : state_.functionNames)
    usedNames_.insert(entry.second);
  for (size_t i = 0; i < function_.params.size(); ++i) {
    const ir::Value *param = function_.params[i];
    const ir::Type &type = param->type;
    std::string name = uniqueName(param->name, "arg" + std::to_string(i));
    if (type.isView()) {
      ViewParts parts;
      parts.pointer = name;
      parameterDeclarations_.push_back(pointerTypeName(type) + name);
      for (unsigned d = 0; d < type.rank; ++d) {
        parts.shape[d] = uniqueName(name + "_shape" + std::to_string(d), "shape");
        parameterDeclarations_.push_back("long " + parts.shape[d]);
      }
      for (unsigned d = 0; d < type.rank; ++d) {
        parts.strides[d] = uniqueName(name + "_stride" + std::to_string(d), "stride");
        parameterDeclarations_.push_back("long " + parts.strides[d]);
      }
      // Specialized on a unit innermost stride: the parameter stays (Kernel ABI), unused.
      uint32_t unitMask = state_.options.unitInnerStrideViews;
      if (function_.isKernel && type.rank > 0 && i < 32 && ((unitMask >> i) & 1u) != 0)
        parts.strides[type.rank - 1] = kUnitStride;
      views_[param] = parts;
      expressions_[param] = name;
      continue;
    }
    if (type.isPointer()) {
      parameterDeclarations_.push_back(pointerTypeName(type) + name);
      expressions_[param] = name;
      continue;
    }
    // Kernel arguments cannot be bool or half: they arrive as their bytes (Kernel ABI sizes 1
    // and 2) and are converted on entry.
    if (function_.isKernel && type.scalar == ir::ScalarKind::Bool) {
      std::string raw = uniqueName(name + "_arg", "arg");
      parameterDeclarations_.push_back("uchar " + raw);
      prologue_.push_back("const bool " + name + " = " + raw + " != 0;");
    } else if (function_.isKernel && type.scalar == ir::ScalarKind::F16) {
      std::string raw = uniqueName(name + "_bits", "bits");
      parameterDeclarations_.push_back("ushort " + raw);
      prologue_.push_back("const float " + name + " = vload_half(0, (const __private half *)&" +
                          raw + ");");
    } else {
      parameterDeclarations_.push_back(std::string(valueTypeName(type.scalar)) + " " + name);
    }
    expressions_[param] = name;
  }
}

std::string FunctionEmitter::signature() {
  nameParameters();
  std::string text;
  if (function_.isKernel) {
    text = "__kernel ";
    if (state_.specializedLocalSize) {
      // reqd_work_group_size lists OpenCL dimensions 0, 1, 2: dpk's dimensions reversed.
      uint64_t sizes[3] = {1, 1, 1};
      for (unsigned d = 0; d < state_.dims; ++d)
        sizes[state_.dims - 1 - d] = state_.options.localSize[d];
      text += "__attribute__((reqd_work_group_size(" + std::to_string(sizes[0]) + ", " +
              std::to_string(sizes[1]) + ", " + std::to_string(sizes[2]) + "))) ";
    }
    text += "void ";
  } else {
    text = declarationTypeName(function_.returnType) + " ";
  }
  text += state_.functionName(function_.name) + "(";
  for (size_t i = 0; i < parameterDeclarations_.size(); ++i)
    text += (i ? ", " : "") + parameterDeclarations_[i];
  if (parameterDeclarations_.empty())
    text += "void";
  return text + ")";
}

const std::string &FunctionEmitter::operand(const ir::Value *value) {
  auto found = expressions_.find(value);
  assert(found != expressions_.end() && "use of a value before its definition");
  return found->second;
}

void FunctionEmitter::declare(const ir::Value *value, const std::string &expression) {
  std::string name = uniqueName(value->name, "v" + std::to_string(value->id));
  const ir::Type &type = value->type;
  if (type.isPointer())
    line(pointerTypeName(type) + "const " + name + " = " + expression + ";");
  else
    line("const " + std::string(valueTypeName(type.scalar)) + " " + name + " = " + expression +
         ";");
  expressions_[value] = name;
}

std::string FunctionEmitter::loadExpression(const ir::Type &pointerType,
                                            const std::string &pointer,
                                            const std::string &index) {
  if (pointerType.scalar == ir::ScalarKind::F16)
    return "vload_half(" + index + ", " + pointer + ")";
  if (pointerType.scalar == ir::ScalarKind::Bool)
    return "(" + pointer + "[" + index + "] != 0)";
  return pointer + "[" + index + "]";
}

std::string FunctionEmitter::storeStatement(const ir::Type &pointerType,
                                            const std::string &pointer,
                                            const std::string &index, const std::string &value) {
  // The float holding an f16 value is exactly representable: vstore_half does not round it.
  if (pointerType.scalar == ir::ScalarKind::F16)
    return "vstore_half(" + value + ", " + index + ", " + pointer + ");";
  if (pointerType.scalar == ir::ScalarKind::Bool)
    return pointer + "[" + index + "] = (uchar)" + value + ";";
  return pointer + "[" + index + "] = " + value + ";";
}

std::string FunctionEmitter::castExpression(const ir::Type &from, const ir::Type &to,
                                            const std::string &value) {
  if (from == to)
    return value;
  if (to.isBool())
    return "(" + value + " != 0)";
  if (to.scalar == ir::ScalarKind::F16) {
    if (from.scalar == ir::ScalarKind::F32)
      return roundToHalfHelper(state_, ir::ScalarKind::F32) + "(" + value + ")";
    if (from.scalar == ir::ScalarKind::F64)
      return roundToHalfHelper(state_, ir::ScalarKind::F64) + "(" + value + ")";
    if (from.isBool())
      return "(float)" + value;
    // Integers go through float first, as the LLVM lowering does.
    return roundToHalfHelper(state_, ir::ScalarKind::F32) + "((float)" + value + ")";
  }
  // f16 values already live in floats; C casts give the rest: float -> integer truncates
  // toward zero, integer conversions wrap or extend by the source's signedness.
  if (from.scalar == ir::ScalarKind::F16 && to.scalar == ir::ScalarKind::F32)
    return value;
  return "(" + std::string(valueTypeName(to.scalar)) + ")" + value;
}

std::string FunctionEmitter::elementIndex(const ir::Op &op, const ViewParts &view,
                                          size_t firstIndex) {
  unsigned rank = op.operands[0]->type.rank;
  std::string index;
  for (unsigned d = 0; d < rank; ++d) {
    if (d)
      index += " + ";
    index += operand(op.operands[firstIndex + d]);
    if (view.strides[d] != kUnitStride)
      index += " * " + view.strides[d];
  }
  return index;
}

Error FunctionEmitter::emitBlock(const ir::Block &block) {
  for (const auto &op : block.ops) {
    if (Error error = emitOp(*op))
      return error;
    // Ops after a terminator never run; the LLVM lowering drops them too.
    if (ir::opCategory(op->kind) == ir::OpCategory::Terminator)
      break;
  }
  return Error::success();
}

Error FunctionEmitter::emitFor(const ir::Op &op) {
  const ir::Value *inductionVariable = op.regions[0].args[0];
  const ir::Type &type = inductionVariable->type;
  std::string name = uniqueName(inductionVariable->name, "i" + std::to_string(inductionVariable->id));
  const std::string &lo = operand(op.operands[0]);
  const std::string &hi = operand(op.operands[1]);
  const std::string &step = operand(op.operands[2]);
  // Unsigned loops and loops with a constant non-negative step count up; a signed loop with a
  // negative constant step counts down; otherwise the step's sign decides at run time.
  std::string condition = name + " < " + hi;
  const ir::Op *stepOp = op.operands[2]->definingOp;
  if (type.isSigned()) {
    bool constantStep = stepOp && stepOp->kind == ir::OpKind::Const;
    if (constantStep && stepOp->intAttr < 0)
      condition = name + " > " + hi;
    else if (!constantStep)
      condition = "(" + step + " > 0 ? " + name + " < " + hi + " : " + name + " > " + hi + ")";
  }
  line("for (" + std::string(valueTypeName(type.scalar)) + " " + name + " = " + lo + "; " +
       condition + "; " + name + " += " + step + ") {");
  expressions_[inductionVariable] = name;
  ++indent_;
  Error error = emitBlock(op.regions[0]);
  --indent_;
  line("}");
  return error;
}

Error FunctionEmitter::emitAtomic(const ir::Op &op) {
  const ir::Type &pointerType = op.operands[0]->type;
  std::string address = "(" + operand(op.operands[0]) + " + " + operand(op.operands[1]) + ")";
  std::vector<std::string> values;
  for (size_t i = 2; i < op.operands.size(); ++i)
    values.push_back(operand(op.operands[i]));
  if (pointerType.scalar == ir::ScalarKind::F64 || ir::scalarSize(pointerType.scalar) == 8)
    state_.needsInt64BaseAtomics = true;
  Expected<AtomicLowering> lowering = atomicExpression(state_, op, address, values);
  if (!lowering)
    return unsupported(function_, op, lowering.error().message());
  for (const std::string &statement : lowering->before)
    line(statement);
  if (op.result)
    declare(op.result, lowering->expression);
  else
    line(lowering->expression + ";");
  for (const std::string &statement : lowering->after)
    line(statement);
  return Error::success();
}

Error FunctionEmitter::emitOp(const ir::Op &op) {
  auto operandText = [&](size_t i) -> const std::string & { return operand(op.operands[i]); };
  switch (op.kind) {
  case ir::OpKind::Const:
    expressions_[op.result] = constantLiteral(op);
    return Error::success();
  case ir::OpKind::Add:
  case ir::OpKind::Sub:
  case ir::OpKind::Mul:
  case ir::OpKind::Div:
  case ir::OpKind::Rem:
  case ir::OpKind::And:
  case ir::OpKind::Or:
  case ir::OpKind::Xor:
  case ir::OpKind::Shl:
  case ir::OpKind::Shr: {
    const ir::Type &type = op.operands[0]->type;
    if (op.kind == ir::OpKind::Rem && type.isFloat()) {
      declare(op.result, "fmod(" + operandText(0) + ", " + operandText(1) + ")");
      return Error::success();
    }
    if ((op.kind == ir::OpKind::Div || op.kind == ir::OpKind::Rem) && type.isInteger()) {
      declare(op.result, totalDivision(op.kind, type.scalar, operandText(0), operandText(1)));
      return Error::success();
    }
    declare(op.result,
            operandText(0) + " " + binaryOperator(op.kind, type) + " " + operandText(1));
    return Error::success();
  }
  case ir::OpKind::Neg:
    declare(op.result, "-" + operandText(0));
    return Error::success();
  case ir::OpKind::Not:
    declare(op.result, (op.operands[0]->type.isBool() ? "!" : "~") + operandText(0));
    return Error::success();
  case ir::OpKind::Cmp:
    declare(op.result, operandText(0) + " " + comparisonOperator(op.predicate) + " " +
                           operandText(1));
    return Error::success();
  case ir::OpKind::Select:
    declare(op.result, operandText(0) + " ? " + operandText(1) + " : " + operandText(2));
    return Error::success();
  case ir::OpKind::Cast:
    declare(op.result, castExpression(op.operands[0]->type, op.result->type, operandText(0)));
    return Error::success();
  case ir::OpKind::Math: {
    std::vector<std::string> operands;
    for (size_t i = 0; i < op.operands.size(); ++i)
      operands.push_back(operandText(i));
    Expected<std::string> expression = mathExpression(state_, op, operands);
    if (!expression)
      return unsupported(function_, op, expression.error().message());
    declare(op.result, *expression);
    return Error::success();
  }
  case ir::OpKind::Call: {
    const ir::Function *callee = state_.module->lookup(op.callee);
    if (!callee)
      return unsupported(function_, op, "call to unknown function @" + op.callee);
    std::string call = state_.functionName(op.callee) + "(";
    bool first = true;
    auto append = [&](const std::string &argument) {
      call += (first ? "" : ", ") + argument;
      first = false;
    };
    for (const ir::Value *argument : op.operands) {
      if (!argument->type.isView()) {
        append(operand(argument));
        continue;
      }
      const ViewParts &view = views_.at(argument);
      append(view.pointer);
      for (unsigned d = 0; d < argument->type.rank; ++d)
        append(view.shape[d]);
      for (unsigned d = 0; d < argument->type.rank; ++d)
        append(view.strides[d]);
    }
    call += ")";
    if (op.result)
      declare(op.result, call);
    else
      line(call + ";");
    return Error::success();
  }
  case ir::OpKind::Alloca: {
    // Hoisted to the top of the function, as the LLVM lowering puts allocas in the entry
    // block: an alloca inside a loop is one array for all iterations, not one per iteration.
    const ir::Type &type = op.result->type;
    std::string name = uniqueName(op.result->name, "v" + std::to_string(op.result->id));
    std::string count = std::to_string(op.intAttr);
    if (type.scalar == ir::ScalarKind::F16) {
      // `half` arrays are not allowed without cl_khr_fp16: keep the bits in ushorts.
      std::string storage = uniqueName(name + "_bits", "bits");
      prologue_.push_back("ushort " + storage + "[" + count + "];");
      prologue_.push_back(pointerTypeName(type) + "const " + name + " = (" +
                          pointerTypeName(type) + ")" + storage + ";");
    } else {
      prologue_.push_back(std::string(storageTypeName(type.scalar)) + " " + name + "[" + count +
                          "];");
    }
    expressions_[op.result] = name;
    return Error::success();
  }
  case ir::OpKind::LocalAlloc: {
    if (!function_.isKernel)
      return unsupported(function_, op, "local_alloc outside a kernel");
    // OpenCL C wants __local variables at kernel function scope: hoist to the prologue.
    const ir::Type &type = op.result->type;
    std::string name = uniqueName(op.result->name, "v" + std::to_string(op.result->id));
    std::string count = std::to_string(op.intAttr);
    if (type.scalar == ir::ScalarKind::F16) {
      std::string storage = uniqueName(name + "_bits", "bits");
      prologue_.push_back("__local ushort " + storage + "[" + count + "];");
      prologue_.push_back(pointerTypeName(type) + "const " + name + " = (" +
                          pointerTypeName(type) + ")" + storage + ";");
    } else {
      prologue_.push_back("__local " + std::string(storageTypeName(type.scalar)) + " " + name +
                          "[" + count + "];");
    }
    expressions_[op.result] = name;
    return Error::success();
  }
  case ir::OpKind::Load:
    declare(op.result, loadExpression(op.operands[0]->type, operandText(0), operandText(1)));
    return Error::success();
  case ir::OpKind::Store: // a nontemporal store is a plain one: OpenCL C has no such hint
    line(storeStatement(op.operands[0]->type, operandText(0), operandText(1), operandText(2)));
    return Error::success();
  case ir::OpKind::PtrOffset:
    declare(op.result, operandText(0) + " + " + operandText(1));
    return Error::success();
  case ir::OpKind::ViewLoad: {
    const ViewParts &view = views_.at(op.operands[0]);
    declare(op.result,
            loadExpression(op.operands[0]->type, view.pointer, elementIndex(op, view, 1)));
    return Error::success();
  }
  case ir::OpKind::ViewStore: {
    const ViewParts &view = views_.at(op.operands[0]);
    line(storeStatement(op.operands[0]->type, view.pointer, elementIndex(op, view, 1),
                        operand(op.operands.back())));
    return Error::success();
  }
  case ir::OpKind::ViewDim:
    expressions_[op.result] = views_.at(op.operands[0]).shape[op.intAttr];
    return Error::success();
  case ir::OpKind::ViewStride:
    expressions_[op.result] = views_.at(op.operands[0]).strides[op.intAttr];
    return Error::success();
  case ir::OpKind::ViewPtr:
    expressions_[op.result] = views_.at(op.operands[0]).pointer;
    return Error::success();
  case ir::OpKind::ViewElementPtr: {
    const ViewParts &view = views_.at(op.operands[0]);
    declare(op.result, view.pointer + " + (" + elementIndex(op, view, 1) + ")");
    return Error::success();
  }
  case ir::OpKind::AtomicRmw:
  case ir::OpKind::AtomicLoad:
  case ir::OpKind::AtomicStore:
  case ir::OpKind::AtomicCmpXchg:
    return emitAtomic(op);
  case ir::OpKind::Fence:
    for (const std::string &statement : fenceStatements(op.order, op.scope))
      line(statement);
    return Error::success();
  case ir::OpKind::Barrier:
    line("barrier(" + std::string(fenceFlags(op.scope)) + ");");
    return Error::success();
  case ir::OpKind::GlobalId:
  case ir::OpKind::LocalId:
  case ir::OpKind::GroupId:
  case ir::OpKind::GlobalSize:
  case ir::OpKind::LocalSize:
  case ir::OpKind::NumGroups:
    if (op.intAttr < 0 || static_cast<unsigned>(op.intAttr) >= state_.dims)
      return unsupported(function_, op,
                         "dimension " + std::to_string(op.intAttr) +
                             " is not below the launch dimensionality " +
                             std::to_string(state_.dims));
    declare(op.result, workItemExpression(state_, op));
    return Error::success();
  // Sub-groups of one work-item, as the LLVM targets other than PTX (SubGroupLowering.cpp).
  case ir::OpKind::SubGroupLocalId:
    declare(op.result, "0");
    return Error::success();
  case ir::OpKind::SubGroupSize:
    declare(op.result, "1");
    return Error::success();
  case ir::OpKind::SubGroupBallot:
    declare(op.result, "(uint)(" + operandText(0) + ")");
    return Error::success();
  case ir::OpKind::SubGroupShuffle:
    declare(op.result, operandText(0));
    return Error::success();
  case ir::OpKind::If: {
    line("if (" + operandText(0) + ") {");
    ++indent_;
    if (Error error = emitBlock(op.regions[0]))
      return error;
    --indent_;
    if (op.regions.size() > 1 && !op.regions[1].ops.empty()) {
      line("} else {");
      ++indent_;
      if (Error error = emitBlock(op.regions[1]))
        return error;
      --indent_;
    }
    line("}");
    return Error::success();
  }
  case ir::OpKind::For:
    return emitFor(op);
  case ir::OpKind::While: {
    // The condition region runs before every iteration (continue included), so it becomes the
    // head of an endless loop that breaks when the condition is false.
    line("while (true) {");
    ++indent_;
    if (Error error = emitBlock(op.regions[0]))
      return error;
    if (Error error = emitBlock(op.regions[1]))
      return error;
    --indent_;
    line("}");
    return Error::success();
  }
  case ir::OpKind::Condition:
    line("if (!" + operandText(0) + ")");
    line("  break;");
    return Error::success();
  case ir::OpKind::Break:
    line("break;");
    return Error::success();
  case ir::OpKind::Continue:
    line("continue;");
    return Error::success();
  case ir::OpKind::Return:
    line(op.operands.empty() ? "return;" : "return " + operandText(0) + ";");
    return Error::success();
  }
  return unsupported(function_, op, "unknown op");
}

Expected<std::string> FunctionEmitter::definition() {
  std::string head = signature();
  if (Error error = emitBlock(function_.body))
    return error;
  std::string text = head + " {\n";
  for (const std::string &statement : prologue_)
    text += "  " + statement + "\n";
  text += body_;
  text += "}\n";
  return text;
}

} // namespace

std::string functionSignature(ModuleState &state, const ir::Function &function) {
  return FunctionEmitter(state, function).signature();
}

Expected<std::string> emitFunction(ModuleState &state, const ir::Function &function) {
  return FunctionEmitter(state, function).definition();
}

} // namespace dpk::opencl_c
