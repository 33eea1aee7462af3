// BuilderTest.cpp - the Builder API: functions, result types, regions, definingOp, locations.
#include "ir/Builder.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

namespace dpk::ir {
namespace {

const Type f32 = Type::scalarTy(ScalarKind::F32);
const Type i64 = Type::scalarTy(ScalarKind::I64);
const Type globalF32 = Type::pointerTy(AddressSpace::Global, ScalarKind::F32);

TEST(Builder, BuildsVectorAddThatVerifiesAndPrints) {
  Module module;
  Builder b(module);
  Function *k = b.createFunction("vadd", true, {globalF32, globalF32, globalF32}, {"a", "b", "c"},
                                 Type::voidTy());
  Value *i = b.workItem(OpKind::GlobalId, 0);
  i->name = "i";
  Value *x = b.load(k->params[0], i);
  x->name = "x";
  Value *y = b.load(k->params[1], i);
  y->name = "y";
  Value *s = b.binary(OpKind::Add, x, y);
  s->name = "s";
  b.store(k->params[2], i, s);
  b.ret();
  Error err = verifyModule(module);
  ASSERT_FALSE(err) << err.message();
  EXPECT_EQ(printModule(module),
            "kernel @vadd(%a: ptr<global, f32>, %b: ptr<global, f32>, %c: ptr<global, f32>) {\n"
            "  %i = global_id 0 : i64\n"
            "  %x = load %a[%i] : f32\n"
            "  %y = load %b[%i] : f32\n"
            "  %s = add %x, %y : f32\n"
            "  store %c[%i], %s\n"
            "  return\n"
            "}\n");
  EXPECT_EQ(module.lookup("vadd"), k);
  EXPECT_EQ(module.lookup("nope"), nullptr);
}

TEST(Builder, ResultTypesAndDefiningOps) {
  Module module;
  Builder b(module);
  Function *f = b.createFunction("f", false, {f32, i64}, {"x"}, f32);
  EXPECT_EQ(f->params[0]->name, "x");
  EXPECT_EQ(f->params[1]->name, "");
  EXPECT_EQ(f->params[0]->definingOp, nullptr);
  Value *c = b.cmp(CmpPredicate::Lt, f->params[0], f->params[0]);
  EXPECT_TRUE(c->type.isBool());
  EXPECT_EQ(c->definingOp->kind, OpKind::Cmp);
  EXPECT_EQ(c->definingOp->result, c);
  Value *n = b.math(MathFn::IsNan, {f->params[0]});
  EXPECT_TRUE(n->type.isBool());
  Value *sq = b.math(MathFn::Sqrt, {f->params[0]});
  EXPECT_EQ(sq->type, f32);
  Value *p = b.privateAlloc(ScalarKind::F64, 8);
  EXPECT_EQ(p->type, Type::pointerTy(AddressSpace::Private, ScalarKind::F64));
  EXPECT_EQ(p->definingOp->intAttr, 8);
  Value *h = b.cast(sq, Type::scalarTy(ScalarKind::F16));
  EXPECT_EQ(h->type.scalar, ScalarKind::F16);
  Value *k = b.constInt(ScalarKind::U8, 200);
  EXPECT_EQ(k->definingOp->intAttr, 200);
  Value *fl = b.constFloat(ScalarKind::F32, 0.5);
  EXPECT_EQ(fl->definingOp->floatAttr, 0.5);
  // f32 constants are rounded to f32 when built.
  EXPECT_EQ(b.constFloat(ScalarKind::F32, 0.1)->definingOp->floatAttr, static_cast<double>(0.1f));
  EXPECT_EQ(b.constFloat(ScalarKind::F64, 0.1)->definingOp->floatAttr, 0.1);
  EXPECT_EQ(b.constBool(true)->definingOp->intAttr, 1);
  EXPECT_EQ(b.call("g", {}, Type::voidTy()), nullptr);
  b.ret(sq);
  // every value has a distinct id equal to its index
  for (size_t v = 0; v < f->values.size(); ++v) EXPECT_EQ(f->values[v]->id, v);
}

TEST(Builder, ViewsAndAtomics) {
  Module module;
  Builder b(module);
  Type view = Type::viewTy(AddressSpace::Global, ScalarKind::F64, 2);
  Function *k = b.createFunction("k", true, {view}, {"v"}, Type::voidTy());
  Value *zero = b.constInt(ScalarKind::I64, 0);
  Value *e = b.viewLoad(k->params[0], {zero, zero});
  EXPECT_EQ(e->type, Type::scalarTy(ScalarKind::F64));
  b.viewStore(k->params[0], {zero, zero}, e);
  EXPECT_EQ(b.viewDim(k->params[0], 1)->type, i64);
  EXPECT_EQ(b.viewStride(k->params[0], 0)->type, i64);
  Value *ptr = b.viewPtr(k->params[0]);
  EXPECT_EQ(ptr->type, Type::pointerTy(AddressSpace::Global, ScalarKind::F64));
  Value *ep = b.viewElementPtr(k->params[0], {zero, zero});
  EXPECT_EQ(ep->type, ptr->type);
  Value *off = b.ptrOffset(ptr, zero);
  EXPECT_EQ(off->type, ptr->type);
  Value *old = b.atomicRmw(AtomicRmwKind::Add, ptr, zero, e, MemoryOrder::Relaxed,
                           MemoryScope::Device);
  EXPECT_EQ(old->definingOp->rmwKind, AtomicRmwKind::Add);
  Value *loaded = b.atomicLoad(ptr, zero, MemoryOrder::Acquire, MemoryScope::Device);
  b.atomicStore(ptr, zero, loaded, MemoryOrder::Release, MemoryScope::Device);
  Value *x = b.atomicCmpXchg(ptr, zero, loaded, e, MemoryOrder::SeqCst, MemoryScope::Device);
  EXPECT_EQ(x->definingOp->operands.size(), 4u);
  b.fence(MemoryOrder::AcqRel, MemoryScope::WorkGroup);
  b.barrier(MemoryScope::WorkGroup);
  Value *local = b.localAlloc(ScalarKind::I32, 64);
  EXPECT_EQ(local->type.space, AddressSpace::Local);
  b.ret();
  Error err = verifyModule(module);
  EXPECT_FALSE(err) << err.message();
}

TEST(Builder, StructuredControlFlowAndLocations) {
  Module module;
  Builder b(module);
  Function *k = b.createFunction("k", true, {i64}, {"n"}, Type::voidTy());
  b.setLoc({"k.py", 3, 5});
  Value *zero = b.constInt(ScalarKind::I64, 0);
  Value *one = b.constInt(ScalarKind::I64, 1);
  Op *loop = b.createFor(zero, k->params[0], one, "i");
  Value *iv = Builder::forInductionVar(loop);
  EXPECT_EQ(iv->name, "i");
  EXPECT_EQ(iv->type, i64);
  EXPECT_EQ(iv->definingOp, nullptr);
  b.setInsertionPoint(Builder::forBody(loop));
  Value *c = b.cmp(CmpPredicate::Gt, iv, one);
  Op *branch = b.createIf(c);
  b.setInsertionPoint(Builder::thenBlock(branch));
  b.breakOp();
  b.setInsertionPoint(Builder::elseBlock(branch));
  b.continueOp();
  b.setInsertionPoint(&k->body);
  Op *w = b.createWhile();
  b.setInsertionPoint(Builder::whileCond(w));
  b.condition(b.constBool(false));
  b.setInsertionPoint(Builder::whileBody(w));
  b.barrier(MemoryScope::WorkGroup);
  b.setInsertionPoint(&k->body);
  b.clearLoc();
  b.ret();
  EXPECT_EQ(loop->loc.file, "k.py");
  EXPECT_EQ(loop->loc.line, 3);
  EXPECT_EQ(k->body.ops.back()->loc.line, 0);
  Error err = verifyModule(module);
  ASSERT_FALSE(err) << err.message();
  PrintOptions locs;
  locs.locations = true;
  std::string text = printModule(module, locs);
  EXPECT_NE(text.find("for %i = %0 to %n step %1 {"), std::string::npos) << text;
  EXPECT_NE(text.find("} loc(\"k.py\":3:5)"), std::string::npos) << text;
  EXPECT_NE(text.find("while {"), std::string::npos) << text;
  EXPECT_NE(text.find("} do {"), std::string::npos) << text;
  EXPECT_NE(text.find("} else {"), std::string::npos) << text;
}

TEST(Builder, OpNamesAndCategoriesComeFromOpsDef) {
  EXPECT_STREQ(opName(OpKind::ViewElementPtr), "view_elem_ptr");
  EXPECT_STREQ(opName(OpKind::AtomicCmpXchg), "atomic_cmpxchg");
  EXPECT_EQ(opCategory(OpKind::Shr), OpCategory::Binary);
  EXPECT_EQ(opCategory(OpKind::Return), OpCategory::Terminator);
  EXPECT_EQ(opCategory(OpKind::NumGroups), OpCategory::WorkItem);
  EXPECT_STREQ(mathFnName(MathFn::Lgamma), "lgamma");
  EXPECT_EQ(mathFnArity(MathFn::Ldexp), 2u);
  EXPECT_EQ(mathFnArity(MathFn::Abs), 1u);
  EXPECT_STREQ(mathFnName(MathFn::Popcount), "popcount");
  EXPECT_EQ(mathFnArity(MathFn::Popcount), 1u);
  EXPECT_EQ(scalarSize(ScalarKind::F16), 2u);
  EXPECT_EQ(scalarSize(ScalarKind::Bool), 1u);
  EXPECT_STREQ(scalarName(ScalarKind::U16), "u16");
  EXPECT_STREQ(addressSpaceName(AddressSpace::Generic), "generic");
  EXPECT_EQ(typeToString(Type::viewTy(AddressSpace::Local, ScalarKind::F64, 2)),
            "view<local, f64, 2>");
  EXPECT_EQ(typeToString(globalF32), "ptr<global, f32>");
  EXPECT_EQ(typeToString(Type::voidTy()), "void");
  EXPECT_TRUE(Type::scalarTy(ScalarKind::U8).isInteger());
  EXPECT_FALSE(Type::scalarTy(ScalarKind::U8).isSigned());
  EXPECT_TRUE(Type::scalarTy(ScalarKind::I8).isSigned());
  EXPECT_FALSE(Type::scalarTy(ScalarKind::Bool).isInteger());
  EXPECT_TRUE(Type::scalarTy(ScalarKind::F16).isFloat());
  EXPECT_FALSE(globalF32.isFloat());
}

} // namespace
} // namespace dpk::ir
