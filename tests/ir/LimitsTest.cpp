// LimitsTest.cpp - the IR's structural limits (docs/ir.md, "Limits") and the passes that must stay
// bounded on hostile input: deep region nesting, long and diamond-shaped call graphs, kernel
// names every target can use (issue 15, item O).
#include "ChildDeadline.h"
#include "ir/Barriers.h"
#include "ir/Builder.h"
#include "ir/LaunchDimensions.h"
#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Uniformity.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace dpk::ir {
namespace {

using dpk::test::expectInChildWithin;


/// `kernel @k(%c: bool, %n: i64)` whose body nests `depth` regions of `kind` ("if", "for",
/// "while"), unindented, one opening per line starting at line 2.
std::string nestedText(const std::string &kind, unsigned depth) {
  std::string text = "kernel @k(%c: bool, %n: i64) {\n";
  for (unsigned d = 0; d < depth; ++d) {
    if (kind == "if") text += "if %c {\n";
    if (kind == "for") text += "for %i" + std::to_string(d) + " = %n to %n step %n {\n";
    if (kind == "while") text += "while {\ncondition %c\n} do {\n";
  }
  for (unsigned d = 0; d < depth; ++d) text += "}\n";
  return text + "}\n";
}

TEST(Limits, ParserRejectsDeepNestingWithLineAndColumn) {
  for (const char *kind : {"if", "for", "while"}) {
    for (unsigned depth : {kMaxRegionDepth + 1, 10000u}) {
      auto module = parseModule(nestedText(kind, depth), "deep.dpkir");
      ASSERT_FALSE(module) << kind;
      EXPECT_EQ(module.error().status(), DPK_ERROR_PARSE);
      // The '{' that opens region 257: line 258 for if/for (one per line after the kernel's),
      // for while the condition region of the 257th while (three lines each).
      std::string where = std::string(kind) == "while" ? "deep.dpkir:770:7: " : "";
      if (std::string(kind) == "if") where = "deep.dpkir:258:7: ";
      if (std::string(kind) == "for") where = "deep.dpkir:258:";
      EXPECT_EQ(module.error().message().rfind(where, 0), 0u) << module.error().message();
      EXPECT_NE(module.error().message().find(
                    "error: regions nest deeper than 256 levels (the IR's limit)"),
                std::string::npos)
          << module.error().message();
    }
  }
}

TEST(Limits, NestingAtTheLimitRoundTrips) {
  for (const char *kind : {"if", "for", "while"}) {
    auto module = parseModule(nestedText(kind, kMaxRegionDepth));
    ASSERT_TRUE(module) << module.error().message();
    Error verified = verifyModule(**module);
    ASSERT_FALSE(verified) << verified.message();
    std::string printed = printModule(**module);
    auto again = parseModule(printed);
    ASSERT_TRUE(again) << again.error().message();
    EXPECT_EQ(printModule(**again), printed);
  }
}

/// A kernel with `depth` nested ifs, built without the parser.
void buildNestedIfs(Module &module, unsigned depth) {
  Builder b(module);
  b.createFunction("k", true, {Type::scalarTy(ScalarKind::Bool)}, {"c"}, Type::voidTy());
  Value *cond = module.functions[0]->params[0];
  for (unsigned d = 0; d < depth; ++d) b.setInsertionPoint(Builder::thenBlock(b.createIf(cond)));
  b.barrier(MemoryScope::WorkGroup);
}

TEST(Limits, VerifierRejectsDeepNestingBuiltWithoutTheParser) {
  expectInChildWithin(60, [] {
    Module module;
    buildNestedIfs(module, 100000);
    Error error = verifyModule(module);
    std::string printed = printModule(module); // must not recurse 100,000 deep either
    return error && error.status() == DPK_ERROR_VERIFY &&
           error.message().find("kernel @k: 'if': regions nest deeper than 256 levels") !=
               std::string::npos &&
           printed.find("{ ... }") != std::string::npos;
  });
}

/// A kernel calling f1, f1 calling f2, ... f<length-1>: a chain of `length` functions.
void buildCallChain(Module &module, unsigned length) {
  Builder b(module);
  b.createFunction("k", true, {}, {}, Type::voidTy());
  b.call("f1", {}, Type::voidTy());
  b.ret();
  for (unsigned i = 1; i < length; ++i) {
    b.createFunction("f" + std::to_string(i), false, {}, {}, Type::voidTy());
    if (i + 1 < length) b.call("f" + std::to_string(i + 1), {}, Type::voidTy());
    if (i + 1 == length) b.barrier(MemoryScope::WorkGroup);
    b.ret();
  }
}

TEST(Limits, LongCallChainsAreRejectedWithoutRecursingOverCalls) {
  {
    Module module;
    buildCallChain(module, kMaxCallDepth);
    Error error = verifyModule(module);
    EXPECT_FALSE(error) << error.message();
  }
  expectInChildWithin(60, [] {
    Module module;
    buildCallChain(module, 100000);
    Error error = verifyModule(module);
    // The analyses that follow calls do not recurse over them either.
    BarrierInfo barriers = findBarriers(module);
    unsigned dims = dimensionsUsed(module);
    UniformityInfo info = analyzeUniformity(*module.functions[0], &module);
    // The first function found to start a chain of 257 is named.
    return error &&
           error.message().find("func @f99743: calls nest deeper than 256 functions from "
                                "here") != std::string::npos &&
           barriers.reachesBarrier(*module.functions[0]) && dims == 0 && info.uniformReturn;
  });
}

TEST(Limits, DiamondCallGraphsAreAnalysedOnce) {
  // f0 calls a0 and b0, both call f1, which calls a1 and b1, ... : 2^40 call paths from the
  // kernel, 121 functions. Every analysis must visit each function once, not each path.
  expectInChildWithin(30, [] {
    const unsigned levels = 40;
    Module module;
    Builder b(module);
    Type i64 = Type::scalarTy(ScalarKind::I64);
    b.createFunction("k", true, {Type::pointerTy(AddressSpace::Global, ScalarKind::I64)}, {"p"},
                     Type::voidTy());
    Value *zero = b.constInt(ScalarKind::I64, 0);
    Value *r = b.call("f0", {zero}, i64);
    b.barrier(MemoryScope::WorkGroup);
    b.store(module.functions[0]->params[0], zero, r);
    b.ret();
    for (unsigned i = 0; i <= levels; ++i) {
      std::string n = std::to_string(i);
      Function *f = b.createFunction("f" + n, false, {i64}, {"x"}, i64);
      if (i == levels) {
        b.barrier(MemoryScope::WorkGroup);
        b.ret(f->params[0]);
        continue;
      }
      Value *a = b.call("a" + n, {f->params[0]}, i64);
      Value *c = b.call("b" + n, {a}, i64);
      b.ret(c);
      for (const char *side : {"a", "b"}) {
        Function *g = b.createFunction(side + n, false, {i64}, {"x"}, i64);
        b.ret(b.call("f" + std::to_string(i + 1), {g->params[0]}, i64));
      }
    }
    Error error = verifyModule(module);
    if (error) std::fprintf(stderr, "%s\n", error.message().c_str());
    UniformityInfo info = analyzeUniformity(*module.functions[0], &module);
    BarrierInfo barriers = findBarriers(module);
    // The call's result is uniform (parameters in, parameters out, through 121 functions).
    const Op &call = *module.functions[0]->body.ops[1];
    return !error && info.isUniform(call.result) && barriers.reachesBarrier(call) &&
           dimensionsUsed(module) == 0;
  });
}

TEST(Limits, KernelNamesEveryTargetAccepts) {
  for (const char *good : {"k", "vadd", "_k", "k_1", "K2", "dot", "saxpy_f64", "main_kernel"})
    EXPECT_EQ(kernelNameProblem(good), "") << good;
  EXPECT_EQ(kernelNameProblem("a.b"),
            "kernel name 'a.b' is not a C identifier (letters, digits and '_', not starting with "
            "a digit), which every target needs to name the kernel's entry point");
  for (const char *bad : {"", "1k", "k-1", "caf\xc3\xa9", "a b"})
    EXPECT_NE(kernelNameProblem(bad).find("is not a C identifier"), std::string::npos) << bad;
  EXPECT_EQ(kernelNameProblem("__k"), "kernel name '__k' starts with '__', which C and OpenCL C "
                                      "reserve");
  for (const char *reserved : {"kernel", "int", "float4", "uchar16", "global", "while", "half",
                               "image2d_t", "sizeof", "true"})
    EXPECT_EQ(kernelNameProblem(reserved), "kernel name '" + std::string(reserved) +
                                               "' is reserved in C or OpenCL C (a keyword or "
                                               "built-in type name)")
        << reserved;
  // Device functions only need to be IR names (targets rename them where they must).
  EXPECT_TRUE(isIrName("a.b"));
  EXPECT_TRUE(isIrName("123"));
  EXPECT_FALSE(isIrName(""));
  EXPECT_FALSE(isIrName("a b"));
  auto module = parseModule("func @float4() {\n  return\n}\nfunc @a.b() {\n  return\n}\n");
  ASSERT_TRUE(module);
  Error verified = verifyModule(**module);
  EXPECT_FALSE(verified) << verified.message();
}

TEST(Limits, BuilderFunctionNamesMustBeIrNames) {
  Module module;
  Builder b(module);
  b.createFunction("my func", false, {}, {}, Type::voidTy());
  b.ret();
  Error error = verifyModule(module);
  ASSERT_TRUE(error);
  EXPECT_NE(error.message().find("func @my func: function name 'my func' is not an IR name"),
            std::string::npos)
      << error.message();
}

} // namespace
} // namespace dpk::ir
