// BoundsCheckTest.cpp - bounds-check mode in the compiler (compiler/BoundsCheck.h): default
// builds carry no check code, checked builds of every kernel verify and compile for every target,
// the host code records the first failure and skips the access, and records become messages.
// Division semantics (Ops.def: integer div/rem are total) are checked on the host here and on
// every device by the conformance suite (SafetyTest.cpp).
#include "BoundsCheckKernels.h"
#include "HostHarness.h"
#include "TextCount.h"

#include "compiler/BoundsCheck.h"
#include "compiler/Compiler.h"
#include "compiler/Targets.h"
#include "ir/Parser.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace dpk::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  for (const char *dir : {DPK_CORPUS_DIR, DPK_COMPILER_KERNELS_DIR}) {
    if (!fs::exists(dir)) continue;
    for (const auto &entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".dpkir") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string readPath(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string text(const std::vector<uint8_t> &bytes) {
  return std::string(bytes.begin(), bytes.end());
}

/// Parameters of the LLVM function defining kernel `name` ("define ... @name(p0, p1) ...").
size_t llvmParameterCount(const std::string &llvm, const std::string &name) {
  size_t define = llvm.find("@" + name + "(");
  while (define != std::string::npos && llvm.rfind("define", define) < llvm.rfind('\n', define))
    define = llvm.find("@" + name + "(", define + 1);
  if (define == std::string::npos) return 0;
  size_t params = 0, depth = 0;
  for (size_t at = llvm.find('(', define); at < llvm.size(); ++at) {
    char c = llvm[at];
    if (c == '(' && depth++ == 0 && llvm[at + 1] != ')') params = 1;
    if (c == ')' && --depth == 0) break;
    if (c == ',' && depth == 1) ++params;
  }
  return params;
}

bool hasAtomics(const ir::Module &module) {
  for (const auto &f : module.functions) {
    std::vector<const ir::Block *> work{&f->body};
    while (!work.empty()) {
      const ir::Block *block = work.back();
      work.pop_back();
      for (const auto &op : block->ops) {
        if (ir::opCategory(op->kind) == ir::OpCategory::Atomic && op->kind != ir::OpKind::Fence &&
            op->kind != ir::OpKind::Barrier)
          return true;
        for (const ir::Block &region : op->regions) work.push_back(&region);
      }
    }
  }
  return false;
}

class BoundsCheckCorpus : public ::testing::TestWithParam<std::string> {};

// Default launches stay fast: the default build is the build without the mode, with no status
// parameter and no check (no compare-exchange where the kernel has no atomics of its own).
TEST_P(BoundsCheckCorpus, DefaultBuildsHaveNoCheckCode) {
  auto module = parse(readPath(GetParam()));
  ASSERT_TRUE(module);
  for (auto target : {compiler::TargetKind::SpirV, compiler::TargetKind::Ptx}) {
    compiler::CompileOptions options;
    options.target = target;
    options.targetId = target == compiler::TargetKind::Ptx ? "sm_90" : "";
    auto compile = target == compiler::TargetKind::Ptx ? compiler::compilePtx
                                                       : compiler::compileSpirv;
    auto plain = compile(*module, options, compiler::Output::LlvmIR);
    ASSERT_TRUE(plain) << plain.error().message();
    std::string llvm = text(*plain);
    for (const auto &f : module->functions) {
      if (!f->isKernel) continue;
      EXPECT_EQ(llvmParameterCount(llvm, f->name), compiler::kernelAbi(*f).size()) << f->name;
    }
    if (!hasAtomics(*module)) {
      EXPECT_EQ(countOf(llvm, "cmpxchg"), 0u) << compiler::targetName(target);
    }
  }
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::OpenCLC;
  auto source = compiler::compileModule(*module, options);
  ASSERT_TRUE(source) << source.error().message();
  EXPECT_EQ(text(source->bytes).find(compiler::kBoundsStatusParam), std::string::npos);

  options.boundsCheck = true;
  auto checked = compiler::compileModule(*module, options);
  ASSERT_TRUE(checked) << checked.error().message();
  EXPECT_NE(text(checked->bytes).find(compiler::kBoundsStatusParam), std::string::npos);
}

// Every kernel of the corpus, checked, is still valid IR and compiles for every target (the PTX
// is only generated here: running it needs the GPU machine).
TEST_P(BoundsCheckCorpus, CheckedBuildsVerifyAndCompileEverywhere) {
  auto module = parse(readPath(GetParam()));
  ASSERT_TRUE(module);
  std::vector<size_t> abiSizes;
  for (const auto &f : module->functions)
    if (f->isKernel) abiSizes.push_back(compiler::kernelAbi(*f).size());
  compiler::insertBoundsChecks(*module);
  ASSERT_FALSE(ir::verifyModule(*module)) << ir::verifyModule(*module).message();
  size_t k = 0;
  for (const auto &f : module->functions) {
    EXPECT_EQ(f->params.back()->name, compiler::kBoundsStatusParam);
    if (f->isKernel) EXPECT_EQ(compiler::kernelAbi(*f).size(), abiSizes[k++] + 1) << f->name;
  }
  for (auto target : {compiler::TargetKind::Host, compiler::TargetKind::SpirV,
                      compiler::TargetKind::OpenCLC, compiler::TargetKind::Ptx}) {
    compiler::CompileOptions options;
    options.target = target;
    options.targetId = target == compiler::TargetKind::Ptx ? "sm_90" : "";
    auto artifact = compiler::compileModule(*module, options);
    EXPECT_TRUE(artifact) << compiler::targetName(target) << ": " << artifact.error().message();
  }
}

std::string corpusName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name = fs::path(info.param).stem().string();
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Kernels, BoundsCheckCorpus, ::testing::ValuesIn(corpusFiles()),
                         corpusName);

using dpk::test::ShiftKernel;

/// Host launch of `kernel` over [0, n) with the status record appended (the runtime's job).
void runChecked(const ir::Module &module, const std::string &kernel, uint64_t n,
                std::vector<void *> args, int64_t (&record)[compiler::kBoundsRecordWords]) {
  compiler::CompileOptions options;
  options.boundsCheck = true;
  auto object = compiler::compileModule(module, options);
  ASSERT_TRUE(object) << object.error().message();
  auto code = compiler::loadHostCode(object->bytes, {kernel}, {0, 0, 0});
  ASSERT_TRUE(code) << code.error().message();
  HostKernels kernels{*code};
  dpk_host_group_fn fn = kernels.lookup(kernel);
  ASSERT_NE(fn, nullptr);
  int64_t *status = record;
  args.push_back(&status);
  runGroups(fn, 1, {n, 1, 1}, {n, 1, 1}, args);
}

TEST(BoundsCheckHost, FirstFailureIsRecordedAndTheAccessSkipped) {
  auto module = parse(ShiftKernel);
  ASSERT_TRUE(module);
  const int64_t n = 8;
  std::vector<float> a(n + 1), b(n + 1, 7.0f), out(n, -1.0f);
  for (int64_t i = 0; i < n; ++i) a[i] = float(i);
  a[n] = -42.0f; // past the view's end: must stay
  b[n] = 99.0f;  // past b's view: must not be read
  float *pa = a.data(), *pb = b.data(), *po = out.data();
  int64_t shape = n, stride = 1;
  std::vector<void *> args = {&pa, &shape, &stride, &pb, &shape, &stride, &po, &shape, &stride};
  int64_t record[compiler::kBoundsRecordWords] = {};
  runChecked(*module, "shift", n, args, record);
  EXPECT_EQ(a[n], -42.0f) << "a store past the end was not skipped";
  EXPECT_EQ(out[n - 1], 0.0f) << "a load past the end must yield 0";
  EXPECT_EQ(out[0], 7.0f);
  ASSERT_NE(record[compiler::BoundsSite], 0);
  EXPECT_EQ(record[compiler::BoundsIndex], n);
  EXPECT_EQ(record[compiler::BoundsDimension], 0);
  EXPECT_EQ(record[compiler::BoundsShape], n);
  EXPECT_EQ(record[compiler::BoundsRank], 1);
  std::string message = compiler::describeBoundsFailure(*module, "shift", record);
  // The work-items run in order: the first failure is the last item's store to a[8].
  EXPECT_EQ(message, "kernel 'shift' (shift.py:10): index 8 is out of bounds for axis 0 of "
                     "array 'a' with shape (8,)");
}

TEST(BoundsCheckHost, InBoundsLaunchesLeaveTheRecordEmpty) {
  auto module = parse(ShiftKernel);
  ASSERT_TRUE(module);
  const int64_t n = 8;
  std::vector<float> a(n + 1), b(n + 1, 7.0f), out(n);
  float *pa = a.data(), *pb = b.data(), *po = out.data();
  int64_t shape = n + 1, small = n, stride = 1;
  std::vector<void *> args = {&pa, &shape, &stride, &pb, &shape, &stride, &po, &small, &stride};
  int64_t record[compiler::kBoundsRecordWords] = {};
  runChecked(*module, "shift", n, args, record);
  EXPECT_EQ(record[compiler::BoundsSite], 0);
  EXPECT_EQ(compiler::describeBoundsFailure(*module, "shift", record), "");
}

TEST(BoundsCheckMessages, DeviceFunctionsAndMultiDimensionalShapes) {
  auto module = parse(ShiftKernel);
  ASSERT_TRUE(module);
  int64_t record[compiler::kBoundsRecordWords] = {};
  record[compiler::BoundsSite] = 1;
  record[compiler::BoundsFunction] = compiler::boundsCheckFunctionId("get");
  record[compiler::BoundsDimension] = 0;
  record[compiler::BoundsIndex] = -3;
  record[compiler::BoundsShape] = 5;
  record[compiler::BoundsRank] = 1;
  EXPECT_EQ(compiler::describeBoundsFailure(*module, "shift", record),
            "kernel 'shift', in device function 'get' (shift.py:4): index -3 is out of bounds "
            "for axis 0 of array 'v' (a parameter of device function 'get') with shape (5,)");

  auto matrix = parse(R"(
kernel @m(%x: view<global, f64, 2>) {
  %i = global_id 0 : i64
  %z = const 0 : i64
  %v = view_load %x[%z, %i] : f64
  %p = local_alloc 4 : ptr<local, f64>
  store %p[%i], %v
  return
}
)");
  ASSERT_TRUE(matrix);
  int64_t second[compiler::kBoundsRecordWords] = {1, compiler::boundsCheckFunctionId("m"), 1, 6,
                                                  3, 6, 0, 2};
  EXPECT_EQ(compiler::describeBoundsFailure(*matrix, "m", second),
            "kernel 'm' (test:5): index 6 is out of bounds for axis 1 of array 'x' with shape (3, 6)");
  int64_t local[compiler::kBoundsRecordWords] = {2, compiler::boundsCheckFunctionId("m"), 0, 4,
                                                 4, 0, 0, 1};
  EXPECT_EQ(compiler::describeBoundsFailure(*matrix, "m", local),
            "kernel 'm' (test:7): index 4 is out of bounds for local array 'p' of 4 elements");
}

// Integer division is total (Ops.def), as NumPy's: x / 0 = 0, x % 0 = 0, MIN / -1 = MIN,
// MIN % -1 = 0. Before, the host JIT trapped (SIGFPE) on these.
template <typename T> void checkDivision(const char *type) {
  std::string ir = std::string("kernel @d(%a: ptr<global, ") + type + ">, %b: ptr<global, " +
                   type + ">, %q: ptr<global, " + type + ">, %r: ptr<global, " + type + R"(>) {
  %i = global_id 0 : i64
  %x = load %a[%i] : )" + type + R"(
  %y = load %b[%i] : )" + type + R"(
  %s = div %x, %y : )" + type + R"(
  %m = rem %x, %y : )" + type + R"(
  store %q[%i], %s
  store %r[%i], %m
  return
}
)";
  auto module = parse(ir);
  ASSERT_TRUE(module);
  HostKernels kernels = compileForHost(*module);
  ASSERT_TRUE(kernels.code);
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const T minusOne = std::is_signed_v<T> ? T(-1) : T(1);
  std::vector<T> a = {7, lo, lo, hi, T(0), T(5), lo, T(9)};
  std::vector<T> b = {0, minusOne, 0, 0, T(0), T(3), T(2), minusOne};
  std::vector<T> q(a.size()), r(a.size());
  T *pa = a.data(), *pb = b.data(), *pq = q.data(), *pr = r.data();
  runGroups(kernels.lookup("d"), 1, {a.size(), 1, 1}, {a.size(), 1, 1}, {&pa, &pb, &pq, &pr});
  for (size_t i = 0; i < a.size(); ++i) {
    T expectQ = 0, expectR = 0;
    if (b[i] == 0) {
      expectQ = expectR = 0;
    } else if (std::is_signed_v<T> && a[i] == lo && b[i] == minusOne) {
      expectQ = lo;
      expectR = 0;
    } else {
      expectQ = T(a[i] / b[i]);
      expectR = T(a[i] % b[i]);
    }
    EXPECT_EQ(q[i], expectQ) << type << " " << +a[i] << " div " << +b[i];
    EXPECT_EQ(r[i], expectR) << type << " " << +a[i] << " rem " << +b[i];
  }
}

TEST(IntegerDivision, IsTotalOnTheHost) {
  checkDivision<int8_t>("i8");
  checkDivision<int16_t>("i16");
  checkDivision<int32_t>("i32");
  checkDivision<int64_t>("i64");
  checkDivision<uint8_t>("u8");
  checkDivision<uint16_t>("u16");
  checkDivision<uint32_t>("u32");
  checkDivision<uint64_t>("u64");
}

TEST(IntegerDivision, OpenCLCGuardsTheDivisor) {
  auto module = parse(R"(
kernel @d(%a: ptr<global, i64>, %q: ptr<global, i64>) {
  %i = global_id 0 : i64
  %x = load %a[%i] : i64
  %s = div %x, %i : i64
  store %q[%i], %s
  return
}
)");
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::OpenCLC;
  auto source = compiler::compileModule(*module, options);
  ASSERT_TRUE(source) << source.error().message();
  std::string c = text(source->bytes);
  EXPECT_NE(c.find("(-9223372036854775807L - 1L)"), std::string::npos) << c;
  EXPECT_NE(c.find("== 0L) ? 0L :"), std::string::npos) << c;
}

} // namespace
} // namespace dpk::test
