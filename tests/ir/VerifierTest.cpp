// VerifierTest.cpp - verifier checks that IR text cannot express (use before definition, values
// of another function, broken definingOp) and the shape of messages.
#include "ir/Builder.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

namespace dpk::ir {
namespace {

const Type i32 = Type::scalarTy(ScalarKind::I32);

TEST(Verifier, UseBeforeDefinition) {
  Module module;
  Builder b(module);
  Function *f = b.createFunction("f", false, {i32}, {"x"}, i32);
  Value *sum = b.binary(OpKind::Add, f->params[0], f->params[0]);
  sum->name = "sum";
  Value *twice = b.binary(OpKind::Add, sum, sum);
  b.ret(twice);
  // Swap the two adds: the first now uses %sum before it is defined.
  std::swap(f->body.ops[0], f->body.ops[1]);
  Error err = verifyModule(module);
  ASSERT_TRUE(err);
  EXPECT_EQ(err.status(), DPK_ERROR_VERIFY);
  EXPECT_NE(err.message().find("func @f: 'add': uses %sum before its definition"),
            std::string::npos)
      << err.message();
}

TEST(Verifier, ValueOfAnotherFunction) {
  Module module;
  Builder b(module);
  Function *g = b.createFunction("g", false, {i32}, {"y"}, Type::voidTy());
  b.ret();
  Function *f = b.createFunction("f", false, {}, {}, i32);
  b.ret(g->params[0]);
  (void)f;
  Error err = verifyModule(module);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message().find("uses a value of another function"), std::string::npos)
      << err.message();
}

TEST(Verifier, DuplicateFunctionsAndKernelCalls) {
  Module module;
  Builder b(module);
  b.createFunction("k", true, {}, {}, Type::voidTy());
  b.ret();
  b.createFunction("f", false, {}, {}, Type::voidTy());
  b.call("k", {}, Type::voidTy());
  b.ret();
  Error err = verifyModule(module);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message().find("cannot call kernel @k"), std::string::npos) << err.message();
  b.createFunction("f", false, {}, {}, Type::voidTy());
  err = verifyModule(module);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message().find("duplicate definition of function @f"), std::string::npos);
}

TEST(Verifier, MessagesNameFileLineFunctionOpAndShowTheOp) {
  auto module = parseModule("kernel @k(%a: i32, %b: i64) {\n"
                            "  %s = add %a, %b : i32\n"
                            "}\n",
                            "k.dpkir");
  ASSERT_TRUE(module);
  Error err = verifyModule(**module);
  ASSERT_TRUE(err);
  EXPECT_EQ(err.message(), "k.dpkir:2:3: error: kernel @k: 'add': operands must have equal types "
                           "(i32 and i64)\n  in: %s = add %a, %b : i32");
}

TEST(Verifier, BuilderLocationsAppearInMessages) {
  Module module;
  Builder b(module);
  b.createFunction("k", true, {}, {}, Type::voidTy());
  b.setLoc({"kernel.py", 42, 7});
  b.workItem(OpKind::LocalId, 5);
  b.ret();
  Error err = verifyModule(module);
  ASSERT_TRUE(err);
  EXPECT_EQ(err.message().rfind("kernel.py:42:7: error: kernel @k: 'local_id': dimension 5 out of "
                                "range 0..2",
                                0),
            0u)
      << err.message();
}

TEST(Verifier, ConditionOnlyEndsWhileConditions) {
  auto module = parseModule("kernel @k(%c: bool) {\n"
                            "  condition %c\n"
                            "}\n");
  ASSERT_TRUE(module);
  Error err = verifyModule(**module);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message().find("condition outside the condition region of a while"),
            std::string::npos);
}

TEST(Verifier, BreakInWhileConditionRegion) {
  auto module = parseModule("kernel @k(%c: bool) {\n"
                            "  while {\n"
                            "    if %c {\n"
                            "      break\n"
                            "    }\n"
                            "    condition %c\n"
                            "  } do {\n"
                            "  }\n"
                            "}\n");
  ASSERT_TRUE(module);
  Error err = verifyModule(**module);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message().find("break outside of a loop body"), std::string::npos);
}

TEST(Verifier, LocalAllocMustBeAtKernelTopLevel) {
  auto module = parseModule("kernel @k(%c: bool) {\n"
                            "  if %c {\n"
                            "    %t = local_alloc 4 : ptr<local, f32>\n"
                            "  }\n"
                            "}\n");
  ASSERT_TRUE(module);
  Error err = verifyModule(**module);
  ASSERT_TRUE(err);
  EXPECT_NE(err.message().find("local_alloc must be at the top level of the kernel body"),
            std::string::npos);
}

} // namespace
} // namespace dpk::ir
