// ExternalFunctionTest.cpp - external device functions (`extern func`, Function::isExternal):
// text round trip, the Builder's declaration, the verifier's rules and what the analyses
// assume of a body dpk cannot see (its result is non-uniform). docs/ir.md, docs/linking.md.
#include "ir/Builder.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <string>

namespace dpk::ir {
namespace {

constexpr const char *kText = R"(extern func @my_add(%a: i32, %b: i32) -> i32
extern func @log_value(%x: f32, %where: ptr<global, f32>)
kernel @k(%p: ptr<global, i32>, %q: ptr<global, f32>) {
  %i = global_id 0 : i64
  %a = load %p[%i] : i32
  %s = call @my_add(%a, %a) : i32
  store %p[%i], %s
  %x = load %q[%i] : f32
  call @log_value(%x, %q)
  return
}
)";

TEST(ExternalFunction, RoundTripsAndVerifies) {
  auto module = parseModule(kText, "ext.dpkir");
  ASSERT_TRUE(module) << module.error().message();
  EXPECT_FALSE(verifyModule(**module)) << "verifies";
  const Function *add = (*module)->lookup("my_add");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->isExternal);
  EXPECT_FALSE(add->isKernel);
  EXPECT_TRUE(add->body.ops.empty());
  EXPECT_EQ(printModule(**module), kText);
}

TEST(ExternalFunction, BuilderDeclaresWithoutMovingTheInsertionPoint) {
  Module module;
  Builder b(module);
  Type i32 = Type::scalarTy(ScalarKind::I32);
  Function *kernel = b.createFunction("k", true, {Type::pointerTy(AddressSpace::Global, ScalarKind::I32)},
                                      {"p"}, Type::voidTy());
  Function *external = b.declareExternal("my_add", {i32, i32}, i32);
  EXPECT_TRUE(external->isExternal);
  EXPECT_EQ(b.function(), kernel);
  Value *zero = b.constInt(ScalarKind::I64, 0);
  Value *a = b.load(kernel->params[0], zero);
  Value *s = b.call("my_add", {a, a}, i32);
  b.store(kernel->params[0], zero, s);
  b.ret();
  EXPECT_FALSE(verifyModule(module));
  EXPECT_NE(printModule(module).find("extern func @my_add(%p0: i32, %p1: i32) -> i32\n"),
            std::string::npos)
      << printModule(module);
}

TEST(ExternalFunction, VerifierRules) {
  auto check = [](const std::string &text, const std::string &expected) {
    auto module = parseModule(text, "ext.dpkir");
    ASSERT_TRUE(module) << module.error().message();
    Error error = verifyModule(**module);
    ASSERT_TRUE(error) << text;
    EXPECT_EQ(error.status(), DPK_ERROR_VERIFY);
    EXPECT_NE(error.message().find(expected), std::string::npos) << error.message();
  };
  check("extern func @int(%a: i32) -> i32\n", "external function name 'int' is reserved");
  check("extern func @f(%a: i32) -> ptr<global, f32>\n", "returns a scalar or nothing");
  check("extern func @f(%a: i32) -> i32\nkernel @k() {\n  %c = const 1 : i32\n  call @f(%c)\n}\n",
        "the call needs a result");
  // A builder can make an external kernel or an external function with a body; the verifier
  // refuses both.
  Module module;
  Builder b(module);
  Function *f = b.createFunction("f", false, {}, {}, Type::voidTy());
  b.ret();
  f->isExternal = true;
  Error error = verifyModule(module);
  ASSERT_TRUE(error);
  EXPECT_NE(error.message().find("extern func @f: an extern func has no body"), std::string::npos)
      << error.message();
}

TEST(ExternalFunction, ResultIsNotUniform) {
  // A barrier under a condition on an external function's result is refused: dpk cannot see
  // its body, so its result may differ between work-items.
  auto module = parseModule(R"(
extern func @pick(%a: i32) -> bool
kernel @k(%n: i32) {
  %c = call @pick(%n) : bool
  if %c {
    barrier work_group
  }
}
)",
                            "ext.dpkir");
  ASSERT_TRUE(module) << module.error().message();
  Error error = verifyModule(**module);
  ASSERT_TRUE(error);
  EXPECT_NE(error.message().find("barrier"), std::string::npos) << error.message();
}

} // namespace
} // namespace dpk::ir
