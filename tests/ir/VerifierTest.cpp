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

// popcount counts the bits of an integer: every integer type is accepted with a result of the
// same type; floats (f16 too) and bool are rejected with a message naming the function.
TEST(Verifier, PopcountTakesIntegersOnly) {
  for (ScalarKind kind : {ScalarKind::I8, ScalarKind::I16, ScalarKind::I32, ScalarKind::I64,
                          ScalarKind::U8, ScalarKind::U16, ScalarKind::U32, ScalarKind::U64}) {
    Module module;
    Builder b(module);
    Type t = Type::scalarTy(kind);
    Function *f = b.createFunction("f", false, {t}, {"x"}, t);
    Value *r = b.math(MathFn::Popcount, {f->params[0]});
    EXPECT_EQ(r->type, t);
    b.ret(r);
    EXPECT_FALSE(verifyModule(module)) << scalarName(kind);
  }
  for (ScalarKind kind : {ScalarKind::F16, ScalarKind::F32, ScalarKind::F64, ScalarKind::Bool}) {
    Module module;
    Builder b(module);
    Type t = Type::scalarTy(kind);
    Function *f = b.createFunction("f", false, {t}, {"x"}, t);
    b.ret(b.math(MathFn::Popcount, {f->params[0]}));
    Error err = verifyModule(module);
    ASSERT_TRUE(err) << scalarName(kind);
    EXPECT_NE(err.message().find(std::string("'math': popcount needs an integer operand, not ") +
                                 scalarName(kind)),
              std::string::npos)
        << err.message();
  }
  auto expectRejected = [](const char *text, const std::string &message) {
    auto parsed = parseModule(text);
    ASSERT_TRUE(parsed);
    Error err = verifyModule(**parsed);
    ASSERT_TRUE(err);
    EXPECT_NE(err.message().find(message), std::string::npos) << err.message();
  };
  expectRejected("func @f(%x: i32) -> i64 {\n"
                 "  %r = math popcount %x : i64\n"
                 "  return %r\n"
                 "}\n",
                 "result type must be i32, not i64");
  expectRejected("func @f(%x: i32) -> i32 {\n"
                 "  %r = math popcount %x, %x : i32\n"
                 "  return %r\n"
                 "}\n",
                 "popcount takes 1 operand, got 2");
}

} // namespace
} // namespace dpk::ir
