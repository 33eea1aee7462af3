// TextTest.cpp - the IR text files: round trips (roundtrip/, corpus/), pinned errors (invalid/),
// and parser error messages.
#include "TestUtil.h"

#include "ir/Parser.h"
#include "ir/Printer.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace dpk::ir {
namespace {

using test::irFiles;
using test::readFile;

class RoundTrip : public ::testing::TestWithParam<std::string> {};

// parse -> verify -> print -> parse -> verify -> print: both prints are identical.
TEST_P(RoundTrip, ParsesVerifiesAndPrintsStably) {
  std::string text = readFile(GetParam());
  auto first = parseModule(text, GetParam());
  ASSERT_TRUE(first) << first.error().message();
  Error verified = verifyModule(**first);
  ASSERT_FALSE(verified) << verified.message();
  std::string printed = printModule(**first);
  auto second = parseModule(printed, "printed");
  ASSERT_TRUE(second) << second.error().message() << "\n" << printed;
  Error verifiedAgain = verifyModule(**second);
  ASSERT_FALSE(verifiedAgain) << verifiedAgain.message();
  EXPECT_EQ(printed, printModule(**second));
  // With locations the text still round-trips (locations are parsed back).
  PrintOptions withLocs;
  withLocs.locations = true;
  std::string located = printModule(**first, withLocs);
  auto third = parseModule(located, "located");
  ASSERT_TRUE(third) << third.error().message();
  EXPECT_EQ(located, printModule(**third, withLocs));
  EXPECT_EQ(printed, printModule(**third));
}

std::vector<std::string> validFiles() {
  std::vector<std::string> files = irFiles("roundtrip");
  for (const std::string &f : irFiles("corpus")) files.push_back(f);
  return files;
}

INSTANTIATE_TEST_SUITE_P(Files, RoundTrip, ::testing::ValuesIn(validFiles()),
                         [](const auto &info) { return test::testName(info.param); });

class Invalid : public ::testing::TestWithParam<std::string> {};

// Each invalid-*.dpkir starts with `// expected-error: <substring>`; parsing or verifying must
// fail with a message containing it.
TEST_P(Invalid, FailsWithPinnedMessage) {
  std::string text = readFile(GetParam());
  const std::string marker = "// expected-error: ";
  ASSERT_EQ(text.rfind(marker, 0), 0u) << "first line must be " << marker << "<substring>";
  std::string expected = text.substr(marker.size(), text.find('\n') - marker.size());
  ASSERT_FALSE(expected.empty());
  auto module = parseModule(text, GetParam());
  std::string message;
  if (!module) {
    EXPECT_EQ(module.error().status(), DPK_ERROR_PARSE);
    message = module.error().message();
  } else {
    Error verified = verifyModule(**module);
    ASSERT_TRUE(verified) << "verified without error";
    EXPECT_EQ(verified.status(), DPK_ERROR_VERIFY);
    message = verified.message();
  }
  EXPECT_NE(message.find(expected), std::string::npos)
      << "expected: " << expected << "\nactual:   " << message;
}

INSTANTIATE_TEST_SUITE_P(Files, Invalid, ::testing::ValuesIn(irFiles("invalid")),
                         [](const auto &info) { return test::testName(info.param); });

TEST(TextFiles, CorpusAndRoundTripAndInvalidExist) {
  EXPECT_GE(irFiles("roundtrip").size(), 5u);
  EXPECT_GE(irFiles("corpus").size(), 11u);
  EXPECT_GE(irFiles("invalid").size(), 20u);
}

std::string parseError(const std::string &text) {
  auto module = parseModule(text, "t.dpkir");
  if (module) return "<parsed>";
  return module.error().message();
}

TEST(Parser, ErrorsNameFileLineColumnAndExpectation) {
  EXPECT_EQ(parseError("kernel @k() {\n  %x = add %y, %y : i32\n}\n"),
            "t.dpkir:2:12: error: use of undefined value %y");
  EXPECT_EQ(parseError("kernel @k( {\n}"),
            "t.dpkir:1:12: error: expected parameter (%name), got '{'");
  EXPECT_EQ(parseError("kernel @k() {\n  %x = frob : i32\n}\n"),
            "t.dpkir:2:8: error: unknown op 'frob'");
  EXPECT_EQ(parseError("func @f(%a: ptr<global, f33>) {\n}\n"),
            "t.dpkir:1:25: error: expected scalar type (bool, i8..i64, u8..u64, f16, f32, f64), "
            "got 'f33'");
  EXPECT_EQ(parseError("kernel @k() {\n  return\n"), "t.dpkir:3:1: error: expected '}', got end of file");
  EXPECT_EQ(parseError("kernel @k() {\n  %c = const 1.5 : i32\n}\n"),
            "t.dpkir:2:14: error: expected an integer literal for i32, got '1.5'");
  EXPECT_EQ(parseError("kernel @k() {\n  %c = const 1 : i32\n  %c = const 2 : i32\n}\n"),
            "t.dpkir:3:3: error: redefinition of %c");
  EXPECT_EQ(parseError("kernel @k() {\n  %x = global_id 0 : i64 $\n}\n"),
            "t.dpkir:2:26: error: expected op name, got unexpected character '$'");
}

TEST(Parser, CallsMayReferToLaterFunctions) {
  auto module = parseModule("kernel @k(%p: ptr<global, f32>) {\n"
                            "  %i = global_id 0 : i64\n"
                            "  %x = load %p[%i] : f32\n"
                            "  %y = call @sq(%x) : f32\n"
                            "  store %p[%i], %y\n"
                            "}\n"
                            "func @sq(%x: f32) -> f32 {\n"
                            "  %r = mul %x, %x : f32\n"
                            "  return %r\n"
                            "}\n");
  ASSERT_TRUE(module) << module.error().message();
  Error verified = verifyModule(**module);
  EXPECT_FALSE(verified) << verified.message();
}

TEST(Parser, IntegerLiteralsAreDecimalOrHexadecimal) {
  // A leading 0 is not octal ("09" used to read as 0, "010" as 8), and no literal is cut short.
  auto module = parseModule("kernel @k() loc(\"k.py\":09:1) {\n"
                            "  %a = const 010 : i32\n"
                            "  %b = const 0x10 : i32\n"
                            "  %c = const -0x10 : i64\n"
                            "  %d = const 18446744073709551615 : u64\n"
                            "  %e = const -9223372036854775808 : i64\n"
                            "  return\n"
                            "}\n");
  ASSERT_TRUE(module) << module.error().message();
  const Function &k = *(*module)->functions[0];
  EXPECT_EQ(k.loc.line, 9);
  EXPECT_EQ(k.body.ops[0]->intAttr, 10);
  EXPECT_EQ(k.body.ops[1]->intAttr, 16);
  EXPECT_EQ(k.body.ops[2]->intAttr, -16);
  EXPECT_EQ(static_cast<uint64_t>(k.body.ops[3]->intAttr), 18446744073709551615ull);
  EXPECT_EQ(k.body.ops[4]->intAttr, std::numeric_limits<int64_t>::min());
  for (const char *bad : {"18446744073709551616", "-9223372036854775809", "0x", "0x1g"}) {
    auto failed = parseModule(std::string("kernel @k() {\n  %a = const ") + bad + " : u64\n}\n");
    EXPECT_FALSE(failed) << bad;
  }
}

TEST(Printer, FloatsRoundTripExactly) {
  const char *text = "func @f() -> f64 {\n"
                     "  %a = const 0x1.999999999999ap-4 : f64\n" // 0.1
                     "  %b = const -0x0p+0 : f64\n"
                     "  %c = const inf : f64\n"
                     "  %d = const -inf : f32\n"
                     "  %e = const nan : f64\n"
                     "  %f = const 0x1p-1074 : f64\n"            // smallest subnormal
                     "  %g = const 2.5 : f32\n"                  // decimal input is accepted
                     "  %h = const 0.1 : f32\n"                  // rounded to f32
                     "  return %a\n"
                     "}\n";
  auto module = parseModule(text);
  ASSERT_TRUE(module) << module.error().message();
  const Block &body = (*module)->functions[0]->body;
  EXPECT_EQ(body.ops[0]->floatAttr, 0.1);
  EXPECT_TRUE(std::signbit(body.ops[1]->floatAttr));
  EXPECT_EQ(body.ops[5]->floatAttr, 4.9406564584124654e-324);
  std::string printed = printModule(**module);
  EXPECT_NE(printed.find("%g = const 0x1.4p+1 : f32"), std::string::npos) << printed;
  EXPECT_NE(printed.find("%h = const 0x1.99999ap-4 : f32"), std::string::npos) << printed;
  auto again = parseModule(printed);
  ASSERT_TRUE(again);
  EXPECT_EQ(printed, printModule(**again));
}

TEST(Printer, UnnamedValuesGetNumbersAndRepeatedNamesSuffixes) {
  auto module = parseModule("func @f(%x: i32, %1: i32) -> i32 {\n"
                            "  %5 = add %x, %1 : i32\n"
                            "  return %5\n"
                            "}\n");
  ASSERT_TRUE(module) << module.error().message();
  EXPECT_EQ(printModule(**module), "func @f(%x: i32, %0: i32) -> i32 {\n"
                                   "  %1 = add %x, %0 : i32\n"
                                   "  return %1\n"
                                   "}\n");
  Function &f = *(*module)->functions[0];
  // Three values named "x" and one named "x.1": the first "x" keeps its name, the others
  // get the first free suffixes.
  f.params[1]->name = "x";
  f.body.ops[0]->result->name = "x.1";
  Value *extra = f.newValue(Type::scalarTy(ScalarKind::I32), "x");
  auto op = std::make_unique<Op>();
  op->kind = OpKind::Mul;
  op->operands = {f.body.ops[0]->result, f.params[0]};
  op->result = extra;
  extra->definingOp = op.get();
  f.body.ops.insert(f.body.ops.begin() + 1, std::move(op));
  f.body.ops.back()->operands = {extra};
  std::string printed = printFunction(f);
  EXPECT_EQ(printed, "func @f(%x: i32, %x.2: i32) -> i32 {\n"
                     "  %x.1 = add %x, %x.2 : i32\n"
                     "  %x.3 = mul %x.1, %x : i32\n"
                     "  return %x.3\n"
                     "}\n");
  auto again = parseModule(printed);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(printModule(**again), printed);
}

} // namespace
} // namespace dpk::ir

namespace dpk::ir {
namespace {

/// Everything the round-trip files use, to prove they cover the whole IR.
struct Coverage {
  std::set<int> ops, mathFns, scalars, spaces, ranks, rmwKinds, predicates, orders, scopes;

  void addType(const Type &t) {
    if (t.isVoid()) return;
    scalars.insert(static_cast<int>(t.scalar));
    if (t.isPointer() || t.isView()) spaces.insert(static_cast<int>(t.space));
    if (t.isView()) ranks.insert(t.rank);
  }
  void addBlock(const Block &block) {
    for (const Value *arg : block.args) addType(arg->type);
    for (const auto &op : block.ops) {
      ops.insert(static_cast<int>(op->kind));
      if (op->result) addType(op->result->type);
      if (op->kind == OpKind::Math) mathFns.insert(static_cast<int>(op->mathFn));
      if (op->kind == OpKind::Cmp) predicates.insert(static_cast<int>(op->predicate));
      if (op->kind == OpKind::AtomicRmw) rmwKinds.insert(static_cast<int>(op->rmwKind));
      if (opCategory(op->kind) == OpCategory::Atomic) {
        if (op->kind != OpKind::Barrier) orders.insert(static_cast<int>(op->order));
        scopes.insert(static_cast<int>(op->scope));
      }
      for (const Block &region : op->regions) addBlock(region);
    }
  }
};

TEST(TextFiles, RoundTripFilesCoverTheWholeIR) {
  Coverage c;
  for (const std::string &path : test::irFiles("roundtrip")) {
    auto module = parseModule(test::readFile(path), path);
    ASSERT_TRUE(module) << module.error().message();
    for (const auto &f : (*module)->functions) {
      for (const Value *p : f->params) c.addType(p->type);
      c.addBlock(f->body);
    }
  }
  constexpr int opCount = 0
#define DPK_OP(Kind, Name, Category) +1
#include "ir/Ops.def"
      ;
#define DPK_MATH_COUNT(Kind, Name, Arity) +1
  constexpr int mathCount = 0 DPK_MATH_FUNCTIONS(DPK_MATH_COUNT);
#undef DPK_MATH_COUNT
  EXPECT_EQ(c.ops.size(), size_t(opCount));
  EXPECT_EQ(c.mathFns.size(), size_t(mathCount));
  EXPECT_EQ(c.scalars.size(), 12u);
  EXPECT_EQ(c.spaces.size(), 5u);
  EXPECT_EQ(c.ranks.size(), 3u);
  EXPECT_EQ(c.rmwKinds.size(), 8u);
  EXPECT_EQ(c.predicates.size(), 6u);
  EXPECT_EQ(c.orders.size(), 5u);
  EXPECT_EQ(c.scopes.size(), 5u);
}

} // namespace
} // namespace dpk::ir

namespace dpk::ir {
namespace {

// Broken text must give an error, never a crash: every file with one line removed, and every
// prefix of it cut at a line end, is parsed and, when it parses, verified and printed.
TEST(TextFiles, DamagedFilesFailCleanly) {
  std::vector<std::string> files = test::irFiles("corpus");
  for (const std::string &f : test::irFiles("roundtrip")) files.push_back(f);
  size_t parsed = 0, rejected = 0;
  for (const std::string &path : files) {
    std::string text = test::readFile(path);
    std::vector<std::string> lines;
    std::stringstream stream(text);
    for (std::string line; std::getline(stream, line);) lines.push_back(line);
    for (size_t drop = 0; drop <= lines.size(); ++drop) {
      std::string damaged, prefix;
      for (size_t i = 0; i < lines.size(); ++i) {
        if (i != drop) damaged += lines[i] + "\n";
        if (i < drop) prefix += lines[i] + "\n";
      }
      for (const std::string *variant : {&damaged, &prefix}) {
        auto module = parseModule(*variant, "damaged");
        if (!module) {
          EXPECT_EQ(module.error().status(), DPK_ERROR_PARSE);
          ++rejected;
          continue;
        }
        ++parsed;
        Error err = verifyModule(**module);
        if (err) {
          EXPECT_EQ(err.status(), DPK_ERROR_VERIFY);
        }
        (void)printModule(**module);
      }
    }
  }
  EXPECT_GT(parsed, 0u);
  EXPECT_GT(rejected, 0u);
}

} // namespace
} // namespace dpk::ir
