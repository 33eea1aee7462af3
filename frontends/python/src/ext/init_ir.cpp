// init_ir.cpp - binds the IR builder (core/ir/Builder.h) for the Python kernel compiler.
//
// Ownership follows IR.h: a Module owns Functions, which own Values and Blocks. Python holds the
// Module; the Builder keeps it alive; Values, Ops, Blocks and Functions are borrowed pointers
// (rv_policy::reference) that stay valid while the Module lives.
#include "common.h"

#include "ir/Builder.h"
#include "ir/IR.h"
#include "ir/Printer.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

// The IR's owning structs hold unique_ptrs: std::is_copy_constructible says yes for them, but a
// copy would not compile, so tell nanobind they are move-only.
namespace nanobind::detail {
template <> struct is_copy_constructible<dpk::ir::Block> : std::false_type {};
template <> struct is_copy_constructible<dpk::ir::Op> : std::false_type {};
template <> struct is_copy_constructible<dpk::ir::Function> : std::false_type {};
template <> struct is_copy_constructible<dpk::ir::Module> : std::false_type {};
} // namespace nanobind::detail

namespace dpk::py {

using namespace dpk::ir;

namespace {
constexpr auto ref = nb::rv_policy::reference;

void raiseIfFailed(const Error &error) {
  if (error)
    throw StatusError(error.status(), error.message());
}

void bindEnums(nb::module_ &m) {
  nb::enum_<ScalarKind>(m, "ScalarKind")
      .value("Bool", ScalarKind::Bool).value("I8", ScalarKind::I8).value("I16", ScalarKind::I16)
      .value("I32", ScalarKind::I32).value("I64", ScalarKind::I64).value("U8", ScalarKind::U8)
      .value("U16", ScalarKind::U16).value("U32", ScalarKind::U32).value("U64", ScalarKind::U64)
      .value("F16", ScalarKind::F16).value("F32", ScalarKind::F32).value("F64", ScalarKind::F64);
  nb::enum_<AddressSpace>(m, "AddressSpace")
      .value("Global", AddressSpace::Global).value("Local", AddressSpace::Local)
      .value("Private", AddressSpace::Private).value("Constant", AddressSpace::Constant)
      .value("Generic", AddressSpace::Generic);
  nb::enum_<TypeKind>(m, "TypeKind")
      .value("Void", TypeKind::Void).value("Scalar", TypeKind::Scalar)
      .value("Pointer", TypeKind::Pointer).value("View", TypeKind::View);
  nb::enum_<OpKind> opKind(m, "OpKind");
#define DPK_OP(Kind, Name, Category) opKind.value(#Kind, OpKind::Kind);
#include "ir/Ops.def"
  nb::enum_<CmpPredicate>(m, "CmpPredicate")
      .value("Eq", CmpPredicate::Eq).value("Ne", CmpPredicate::Ne).value("Lt", CmpPredicate::Lt)
      .value("Le", CmpPredicate::Le).value("Gt", CmpPredicate::Gt).value("Ge", CmpPredicate::Ge);
  nb::enum_<MathFn> mathFn(m, "MathFn");
#define DPK_PY_MATH(Kind, Name, Arity) mathFn.value(#Kind, MathFn::Kind);
  DPK_MATH_FUNCTIONS(DPK_PY_MATH)
#undef DPK_PY_MATH
  nb::enum_<AtomicRmwKind>(m, "AtomicRmwKind")
      .value("Add", AtomicRmwKind::Add).value("Sub", AtomicRmwKind::Sub)
      .value("Min", AtomicRmwKind::Min).value("Max", AtomicRmwKind::Max)
      .value("And", AtomicRmwKind::And).value("Or", AtomicRmwKind::Or)
      .value("Xor", AtomicRmwKind::Xor).value("Exchange", AtomicRmwKind::Exchange);
  nb::enum_<MemoryOrder>(m, "IrMemoryOrder")
      .value("Relaxed", MemoryOrder::Relaxed).value("Acquire", MemoryOrder::Acquire)
      .value("Release", MemoryOrder::Release).value("AcqRel", MemoryOrder::AcqRel)
      .value("SeqCst", MemoryOrder::SeqCst);
  nb::enum_<MemoryScope>(m, "IrMemoryScope")
      .value("WorkItem", MemoryScope::WorkItem).value("SubGroup", MemoryScope::SubGroup)
      .value("WorkGroup", MemoryScope::WorkGroup).value("Device", MemoryScope::Device)
      .value("System", MemoryScope::System);
}

void bindTypeAndValues(nb::module_ &m) {
  nb::class_<Type>(m, "Type", "An IR type: void, scalar, pointer or view (compare with ==).")
      .def_static("void", &Type::voidTy)
      .def_static("scalar", &Type::scalarTy, "kind"_a)
      .def_static("pointer", &Type::pointerTy, "space"_a, "elem"_a)
      .def_static("view", &Type::viewTy, "space"_a, "elem"_a, "rank"_a)
      .def_ro("kind", &Type::kind)
      .def_ro("scalar_kind", &Type::scalar)
      .def_ro("space", &Type::space)
      .def_ro("rank", &Type::rank)
      .def("is_integer", &Type::isInteger)
      .def("is_signed", &Type::isSigned)
      .def("is_float", &Type::isFloat)
      .def("element_type", &Type::elementType)
      .def("__eq__", [](const Type &a, const Type &b) { return a == b; })
      .def("__hash__", [](const Type &t) { return std::hash<std::string>()(typeToString(t)); })
      .def("__str__", &typeToString)
      .def("__repr__", [](const Type &t) { return "<dpk IR type " + typeToString(t) + ">"; });
  m.def("scalar_size", &scalarSize, "kind"_a);
  m.def(
      "kernel_name_problem",
      [](const std::string &name) { return ir::kernelNameProblem(name); }, "name"_a,
      "Why `name` cannot name a kernel (not a C identifier, reserved in C or OpenCL C), or \"\".");

  nb::class_<Value>(m, "Value", "An SSA value (borrowed from its Function).")
      .def_ro("type", &Value::type)
      .def_ro("id", &Value::id)
      .def_rw("name", &Value::name);
  nb::class_<Block>(m, "Block", "A region's single block (borrowed).");
  nb::class_<Op>(m, "Op", "An operation (borrowed).")
      .def_ro("kind", &Op::kind)
      .def_prop_ro("result", [](Op &op) { return op.result; }, nb::rv_policy::reference)
      .def_prop_ro("num_regions", [](Op &op) { return op.regions.size(); });
  nb::class_<Function>(m, "Function", "A kernel or device function (borrowed).")
      .def_ro("name", &Function::name)
      .def_ro("is_kernel", &Function::isKernel)
      .def_ro("is_external", &Function::isExternal)
      .def_ro("return_type", &Function::returnType)
      .def_rw("min_groups_per_cu", &Function::minGroupsPerComputeUnit,
              "Kernels: work-groups that should fit on one compute unit at once (0: no "
              "request); PTX limits registers to match where the group size is known")
      .def_prop_ro("params", [](Function &f) { return f.params; }, nb::rv_policy::reference);
}

void bindModule(nb::module_ &m) {
  nb::class_<Module>(m, "Module", "An IR module: the functions of one program.")
      .def(nb::init<>())
      .def_prop_ro("function_names",
                   [](const Module &mod) {
                     std::vector<std::string> names;
                     for (const auto &f : mod.functions)
                       names.push_back(f->name);
                     return names;
                   })
      .def("lookup", &Module::lookup, "name"_a, nb::rv_policy::reference_internal)
      .def(
          "print",
          [](const Module &mod, bool locations) {
            PrintOptions options;
            options.locations = locations;
            return printModule(mod, options);
          },
          "locations"_a = false, "The module's IR text (Printer.h).")
      .def(
          "verify", [](const Module &mod) { raiseIfFailed(verifyModule(mod)); },
          "Raises the verifier's error (DPK_ERROR_VERIFY) if the module is ill-formed.")
      ;
  m.def(
      "parse_module",
      [](const std::string &text, const std::string &fileName) {
        auto parsed = parseModule(text, fileName);
        if (!parsed)
          raiseIfFailed(parsed.error());
        return std::move(*parsed);
      },
      "text"_a, "file_name"_a = "<input>");
  m.attr("MAX_GROUPS_PER_COMPUTE_UNIT") = ir::kMaxGroupsPerComputeUnit; // min_groups_per_cu's bound
  m.attr("HAVE_PRINTER") = nb::bool_(
      true
  );
  m.attr("HAVE_VERIFIER") = nb::bool_(
      true
  );
}

void bindBuilder(nb::module_ &m) {
  nb::class_<Builder>(m, "Builder", "Appends IR ops at an insertion point (ir/Builder.h).")
      .def(nb::init<Module &>(), "module"_a, nb::keep_alive<1, 2>())
      .def("create_function", &Builder::createFunction, "name"_a, "is_kernel"_a,
           "param_types"_a, "param_names"_a, "return_type"_a, ref)
      .def("declare_external", &Builder::declareExternal, "name"_a, "param_types"_a,
           "return_type"_a, ref)
      .def("set_function", &Builder::setFunction, "function"_a)
      .def_prop_ro("function", &Builder::function, ref)
      .def("set_insertion_point", &Builder::setInsertionPoint, "block"_a)
      .def_prop_ro("insertion_block", &Builder::insertionBlock, ref)
      .def(
          "set_loc",
          [](Builder &b, const std::string &file, int line, int column) {
            b.setLoc(SourceLoc{file, line, column});
          },
          "file"_a, "line"_a, "column"_a = 0)
      .def("const_int", &Builder::constInt, "kind"_a, "value"_a, ref)
      .def("const_float", &Builder::constFloat, "kind"_a, "value"_a, ref)
      .def("const_bool", &Builder::constBool, "value"_a, ref)
      .def("binary", &Builder::binary, "kind"_a, "a"_a, "b"_a, ref)
      .def("unary", &Builder::unary, "kind"_a, "v"_a, ref)
      .def("cmp", &Builder::cmp, "pred"_a, "a"_a, "b"_a, ref)
      .def("select", &Builder::select, "cond"_a, "a"_a, "b"_a, ref)
      .def("cast", &Builder::cast, "v"_a, "to"_a, ref)
      .def("math", &Builder::math, "fn"_a, "args"_a, ref)
      .def("call", &Builder::call, "callee"_a, "args"_a, "result_type"_a, ref)
      .def("private_alloc", &Builder::privateAlloc, "elem"_a, "count"_a, ref)
      .def("local_alloc", &Builder::localAlloc, "elem"_a, "count"_a, ref)
      .def("load", &Builder::load, "ptr"_a, "idx"_a, "align"_a = 0, ref)
      .def("store", &Builder::store, "ptr"_a, "idx"_a, "v"_a, "nontemporal"_a = false,
           "align"_a = 0, ref)
      .def("ptr_offset", &Builder::ptrOffset, "ptr"_a, "idx"_a, ref)
      .def("view_load", &Builder::viewLoad, "view"_a, "indices"_a, ref)
      .def("view_store", &Builder::viewStore, "view"_a, "indices"_a, "v"_a, ref)
      .def("view_dim", &Builder::viewDim, "view"_a, "dim"_a, ref)
      .def("view_stride", &Builder::viewStride, "view"_a, "dim"_a, ref)
      .def("view_ptr", &Builder::viewPtr, "view"_a, ref)
      .def("view_element_ptr", &Builder::viewElementPtr, "view"_a, "indices"_a, ref)
      .def("atomic_rmw", &Builder::atomicRmw, "kind"_a, "ptr"_a, "idx"_a, "v"_a, "order"_a,
           "scope"_a, ref)
      .def("atomic_load", &Builder::atomicLoad, "ptr"_a, "idx"_a, "order"_a, "scope"_a, ref)
      .def("atomic_store", &Builder::atomicStore, "ptr"_a, "idx"_a, "v"_a, "order"_a, "scope"_a,
           ref)
      .def("atomic_cmpxchg", &Builder::atomicCmpXchg, "ptr"_a, "idx"_a, "expected"_a,
           "desired"_a, "order"_a, "scope"_a, ref)
      .def("fence", &Builder::fence, "order"_a, "scope"_a, ref)
      .def("barrier", &Builder::barrier, "scope"_a, ref)
      .def("work_item", &Builder::workItem, "kind"_a, "dim"_a, ref)
      .def("sub_group_local_id", &Builder::subGroupLocalId, ref)
      .def("sub_group_size", &Builder::subGroupSize, ref)
      .def("sub_group_ballot", &Builder::subGroupBallot, "predicate"_a, ref)
      .def("sub_group_shuffle", &Builder::subGroupShuffle, "v"_a, "lane"_a, ref)
      .def("create_if", &Builder::createIf, "cond"_a, ref)
      .def("create_for", &Builder::createFor, "lo"_a, "hi"_a, "step"_a, "iv_name"_a = "", ref)
      .def("create_while", &Builder::createWhile, ref)
      .def("condition", &Builder::condition, "v"_a, ref)
      .def("break_op", &Builder::breakOp, ref)
      .def("continue_op", &Builder::continueOp, ref)
      .def("ret", &Builder::ret, "v"_a.none() = nb::none(), ref)
      .def_static("then_block", &Builder::thenBlock, "op"_a, ref)
      .def_static("else_block", &Builder::elseBlock, "op"_a, ref)
      .def_static("for_body", &Builder::forBody, "op"_a, ref)
      .def_static("for_induction_var", &Builder::forInductionVar, "op"_a, ref)
      .def_static("while_cond", &Builder::whileCond, "op"_a, ref)
      .def_static("while_body", &Builder::whileBody, "op"_a, ref)
      .def_static(
          "block_ends_in_terminator",
          [](Block *block) {
            return !block->ops.empty() &&
                   opCategory(block->ops.back()->kind) == OpCategory::Terminator;
          },
          "block"_a, "Whether the block's last op is break/continue/return/condition.");
}
} // namespace

void initIr(nb::module_ &m) {
  bindEnums(m);
  bindTypeAndValues(m);
  bindModule(m);
  bindBuilder(m);
}

} // namespace dpk::py
