// DeviceArtifactTest.cpp - SPIR-V of every kernel passes spirv-val; PTX passes ptxas.
#include "HostHarness.h"
#include "TextCount.h"

#include "compiler/Compiler.h"
#include "compiler/Targets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace dpk::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> kernelFiles() {
  std::vector<std::string> files;
  for (const char *dir : {DPK_CORPUS_DIR, DPK_COMPILER_KERNELS_DIR, DPK_ROUNDTRIP_DIR}) {
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

/// Runs `tool args file` on `bytes` written to a temporary file; returns its exit status and
/// output.
int runTool(const std::string &tool, const std::string &args, const std::vector<uint8_t> &bytes,
            const std::string &suffix, std::string &output) {
  fs::path file = fs::temp_directory_path() /
                  ("dpk_compiler_test_" + std::to_string(::getpid()) + suffix);
  {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
  }
  std::string command = tool + " " + args + " " + file.string() + " 2>&1";
  FILE *pipe = ::popen(command.c_str(), "r");
  char buffer[4096];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  int status = pipe ? ::pclose(pipe) : -1;
  fs::remove(file);
  return status;
}

class DeviceArtifacts : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceArtifacts, SpirvValidates) {
  if (std::string(DPK_SPIRV_VAL).empty()) GTEST_SKIP() << "spirv-val not found at configure time";
  auto module = parse(readPath(GetParam()));
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::SpirV;
  auto artifact = compiler::compileModule(*module, options);
  ASSERT_TRUE(artifact) << artifact.error().message();
  EXPECT_EQ(artifact->format, DPK_FORMAT_SPIRV);
  std::string output;
  EXPECT_EQ(runTool(DPK_SPIRV_VAL, "", artifact->bytes, ".spv", output), 0) << output;
}

TEST_P(DeviceArtifacts, HostCompilesAndLoads) {
  auto module = parse(readPath(GetParam()));
  ASSERT_TRUE(module);
  HostKernels kernels = compileForHost(*module);
  ASSERT_TRUE(kernels.code);
  for (const auto &f : module->functions) {
    if (f->isKernel) {
      EXPECT_NE(kernels.lookup(f->name), nullptr) << f->name;
    }
  }
}

TEST(Dumps, EveryStageIsWritten) {
  auto module = parse(readPath(std::string(DPK_CORPUS_DIR) + "/tiled_matmul.dpkir"));
  ASSERT_TRUE(module);
  fs::path dir = fs::temp_directory_path() / ("dpk_dumps_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  compiler::CompileOptions options;
  options.dumpDirectory = dir.string();
  for (auto target : {compiler::TargetKind::Host, compiler::TargetKind::SpirV,
                      compiler::TargetKind::Ptx}) {
    options.target = target;
    auto artifact = compiler::compileModule(*module, options);
    ASSERT_TRUE(artifact) << artifact.error().message();
  }
  for (const char *file : {"tiled_matmul.dpkir", "tiled_matmul.host.ll", "tiled_matmul.host.opt.ll",
                           "tiled_matmul.s", "tiled_matmul.spirv.ll", "tiled_matmul.spv",
                           "tiled_matmul.ptx.ll", "tiled_matmul.ptx.opt.ll", "tiled_matmul.ptx"})
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  fs::remove_all(dir);
}

TEST_P(DeviceArtifacts, PtxAssembles) {
  auto module = parse(readPath(GetParam()));
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::Ptx;
  options.targetId = "sm_90";
  auto artifact = compiler::compileModule(*module, options);
  ASSERT_TRUE(artifact) << artifact.error().message();
  ASSERT_FALSE(artifact->bytes.empty());
  EXPECT_EQ(artifact->bytes.back(), 0) << "PTX must be NUL-terminated";
  if (std::string(DPK_PTXAS).empty()) GTEST_SKIP() << "ptxas not found at configure time";
  std::vector<uint8_t> text(artifact->bytes.begin(), artifact->bytes.end() - 1);
  std::string output;
  EXPECT_EQ(runTool(DPK_PTXAS, "-arch=sm_90 -o /dev/null", text, ".ptx", output), 0) << output;
}

std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  std::string name = fs::path(info.param).stem().string();
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Kernels, DeviceArtifacts, ::testing::ValuesIn(kernelFiles()), testName);

/// Calls visit(opcode, operands, operand count) for every instruction of a SPIR-V module
/// (operands: the words after the opcode word).
template <typename Visit> void forEachSpirvInstruction(const std::vector<uint8_t> &bytes, Visit visit) {
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  for (size_t at = 5; at < words.size();) { // after the 5-word header
    uint32_t count = words[at] >> 16;
    if (count == 0 || at + count > words.size()) break;
    visit(words[at] & 0xffff, &words[at + 1], count - 1);
    at += count;
  }
}

/// Whether the SPIR-V module reads the `index`-th OpFunctionParameter (0-based, first function)
/// anywhere other than in names and decorations.
bool spirvUsesParameter(const std::vector<uint8_t> &bytes, unsigned index) {
  const uint32_t opName = 5, opConstant = 43, opFunctionParameter = 55, opDecorate = 71;
  uint32_t id = 0;
  unsigned seen = 0;
  bool used = false;
  forEachSpirvInstruction(bytes, [&](uint32_t opcode, const uint32_t *operands, uint32_t n) {
    if (opcode == opFunctionParameter && id == 0 && seen++ == index) {
      id = operands[1];
    } else if (id != 0 && opcode != opName && opcode != opDecorate && opcode != opConstant &&
               opcode != opFunctionParameter) {
      for (uint32_t w = 0; w < n; ++w) used |= operands[w] == id;
    }
  });
  return used;
}

// CompileOptions::unitInnerStrideViews: pairwise distance's ABI is x (0: pointer, 1-2: shape,
// 3-4: strides) and dist (5-9); with both bits set the inner strides (4, 9) are never read.
TEST(UnitInnerStride, PtxAndSpirvDoNotReadTheStride) {
  auto module = parse(readPath(std::string(DPK_CORPUS_DIR) + "/pairwise_distance.dpkir"));
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.dims = 2;
  options.target = compiler::TargetKind::Ptx;
  options.targetId = "sm_90";
  for (uint32_t mask : {0u, 3u}) {
    options.unitInnerStrideViews = mask;
    auto ptx = compiler::compileModule(*module, options);
    ASSERT_TRUE(ptx) << ptx.error().message();
    std::string text(ptx->bytes.begin(), ptx->bytes.end());
    bool generic = mask == 0;
    EXPECT_EQ(text.find("pairwise_distance_param_4]") != std::string::npos, generic) << text;
    EXPECT_EQ(text.find("pairwise_distance_param_9]") != std::string::npos, generic) << text;
    EXPECT_NE(text.find("pairwise_distance_param_3]"), std::string::npos) << text;
  }
  options.target = compiler::TargetKind::SpirV;
  options.targetId.clear();
  for (uint32_t mask : {0u, 3u}) {
    options.unitInnerStrideViews = mask;
    auto spirv = compiler::compileModule(*module, options);
    ASSERT_TRUE(spirv) << spirv.error().message();
    bool generic = mask == 0;
    EXPECT_EQ(spirvUsesParameter(spirv->bytes, 4), generic);
    EXPECT_EQ(spirvUsesParameter(spirv->bytes, 9), generic);
    EXPECT_TRUE(spirvUsesParameter(spirv->bytes, 3));
    if (!std::string(DPK_SPIRV_VAL).empty()) {
      std::string output;
      EXPECT_EQ(runTool(DPK_SPIRV_VAL, "", spirv->bytes, ".spv", output), 0) << output;
    }
  }
}

// f32 sqrt on CUDA is IEEE round-to-nearest (sqrt.rn.f32), as nvcc's default -prec-sqrt=true:
// libdevice's __nv_sqrtf/__nv_hypotf choose sqrt.approx.f32 when __nvvm_reflect
// ("__CUDA_PREC_SQRT") is 0, which LLVM 15's NVVMReflect answers for names it does not know.
/// The 1-D PTX (sm_90) of `module`; empty, with a test failure, when it does not compile.
std::string ptxOf(const ir::Module &module, bool idsFit32 = false) {
  compiler::CompileOptions options;
  options.dims = 1;
  options.target = compiler::TargetKind::Ptx;
  options.targetId = "sm_90";
  options.idsFit32 = idsFit32;
  auto ptx = compiler::compileModule(module, options);
  if (!ptx) {
    ADD_FAILURE() << ptx.error().message();
    return {};
  }
  return std::string(ptx->bytes.begin(), ptx->bytes.end());
}

TEST(PtxMath, Float32SqrtIsCorrectlyRounded) {
  auto module = parse("kernel @roots(%x: ptr<global, f32>, %y: ptr<global, f32>) {\n"
                      "  %i = global_id 0 : i64\n"
                      "  %a = load %x[%i] : f32\n"
                      "  %b = load %y[%i] : f32\n"
                      "  %s = math sqrt %a : f32\n"
                      "  %h = math hypot %a, %b : f32\n"
                      "  %r = add %s, %h : f32\n"
                      "  store %x[%i], %r\n"
                      "  return\n}\n");
  ASSERT_TRUE(module);
  std::string text = ptxOf(*module);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find("sqrt.approx"), std::string::npos) << text;
  EXPECT_NE(text.find("sqrt.rn.f32"), std::string::npos) << text;
}

// popcount is llvm.ctpop: NVPTX's popc, counting 32 bits for the types up to 32 bits (narrow
// ones zero-extended first) and 64 for 64-bit ones, with no call into libdevice.
TEST(PtxMath, PopcountIsPopc) {
  auto module = parse(readPath(std::string(DPK_CORPUS_DIR) + "/popcount.dpkir"));
  ASSERT_TRUE(module);
  std::string text = ptxOf(*module);
  ASSERT_FALSE(text.empty());
  EXPECT_NE(text.find("popc.b32"), std::string::npos) << text;
  EXPECT_NE(text.find("popc.b64"), std::string::npos) << text;
  EXPECT_EQ(text.find("__nv_"), std::string::npos) << text;
}

// Sub-groups are warps on PTX: the lane is %laneid, a ballot is vote.sync.ballot and a shuffle
// shfl.sync.idx (two for a 64-bit value), each with the mask of the warp's existing threads.
TEST(PtxSubGroups, WarpBallotAndShuffle) {
  auto module = parse(readPath(std::string(DPK_CORPUS_DIR) + "/sub_groups.dpkir"));
  ASSERT_TRUE(module);
  std::string text = ptxOf(*module);
  ASSERT_FALSE(text.empty());
  EXPECT_NE(text.find("%laneid"), std::string::npos) << text;
  EXPECT_NE(text.find("vote.sync.ballot.b32"), std::string::npos) << text;
  size_t shuffles = 0;
  for (size_t at = text.find("shfl.sync.idx.b32"); at != std::string::npos;
       at = text.find("shfl.sync.idx.b32", at + 1))
    ++shuffles;
  EXPECT_EQ(shuffles, 4u) << "i64 (2), f32 and i16 shuffles\n" << text;
}

// Small innermost loops of unknown trip count are unrolled by four with a remainder loop
// (PtxUnroll.h), as NVIDIA's OpenCL compiler unrolls them: one division per copy, five in all.
// A loop with a barrier is left alone (the remainder would run it in divergent control flow).
// A loop of a few constant trips that indexes a private array is unrolled whole, with a
// convergent op in it: the array becomes registers (no local memory) and the loads of every
// trip are issued together. With 64 trips it stays a loop (LLVM may still unroll it by a few),
// and the array in local memory.
std::string heldKeysKernel(int trips) {
  std::string n = std::to_string(trips);
  return "kernel @held(%x: ptr<global, u32>, %y: ptr<global, u32>) {\n"
         "  %i = global_id 0 : i64\n"
         "  %zero = const 0 : i64\n"
         "  %one = const 1 : i64\n"
         "  %trips = const " + n + " : i64\n"
         "  %held = alloca " + n + " : ptr<private, u32>\n"
         "  for %r = %zero to %trips step %one {\n"
         "    %at = mul %i, %trips : i64\n"
         "    %j = add %at, %r : i64\n"
         "    %v = load %x[%j] : u32\n"
         "    store %held[%r], %v\n"
         "  }\n"
         "  for %r2 = %zero to %trips step %one {\n"
         "    %v2 = load %held[%r2] : u32\n"
         "    %odd = cmp ne %v2, %v2 : bool\n"
         "    %votes = sub_group_ballot %odd : u32\n"
         "    %w = add %v2, %votes : u32\n"
         "    %at2 = mul %i, %trips : i64\n"
         "    %j2 = add %at2, %r2 : i64\n"
         "    store %y[%j2], %w\n"
         "  }\n"
         "  return\n}\n";
}

TEST(PtxLoops, PrivateArraysIndexedInFewTripsBecomeRegisters) {
  auto few = parse(heldKeysKernel(16));
  ASSERT_TRUE(few);
  std::string text = ptxOf(*few);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find(".local"), std::string::npos) << text;
  EXPECT_EQ(countOf(text, "vote.sync.ballot.b32"), 16u) << text;
  EXPECT_EQ(countOf(text, "ld.global"), 16u) << text;

  auto many = parse(heldKeysKernel(64));
  ASSERT_TRUE(many);
  std::string rolled = ptxOf(*many);
  ASSERT_FALSE(rolled.empty());
  EXPECT_NE(rolled.find(".local"), std::string::npos) << rolled;
  EXPECT_LT(countOf(rolled, "vote.sync.ballot.b32"), 64u) << rolled; // a loop (perhaps unrolled by a few)
}

TEST(PtxLoops, SmallInnerLoopsAreUnrolledByFour) {
  auto module = parse("kernel @sums(%x: ptr<global, f32>, %y: ptr<global, f32>, %n: i64) {\n"
                      "  %i = global_id 0 : i64\n"
                      "  %zero = const 0 : i64\n"
                      "  %one = const 1 : i64\n"
                      "  %acc = alloca 1 : ptr<private, f32>\n"
                      "  %f = const 0x0p+0 : f32\n"
                      "  store %acc[%zero], %f\n"
                      "  for %j = %zero to %n step %one {\n"
                      "    %a = load %x[%j] : f32\n"
                      "    %r = math sqrt %a : f32\n"
                      "    %q = div %a, %r : f32\n"
                      "    %s = load %acc[%zero] : f32\n"
                      "    %t = add %s, %q : f32\n"
                      "    store %acc[%zero], %t\n"
                      "  }\n"
                      "  %u = load %acc[%zero] : f32\n"
                      "  store %y[%i], %u\n"
                      "  return\n}\n");
  ASSERT_TRUE(module);
  std::string text = ptxOf(*module);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(countOf(text, "div.rn.f32"), 5u) << text;

  auto withBarrier = parse("kernel @staged(%x: ptr<global, f32>, %n: i64) {\n"
                           "  %l = local_alloc 64 : ptr<local, f32>\n"
                           "  %lid = local_id 0 : i64\n"
                           "  %zero = const 0 : i64\n"
                           "  %one = const 1 : i64\n"
                           "  for %j = %zero to %n step %one {\n"
                           "    %a = load %x[%j] : f32\n"
                           "    store %l[%lid], %a\n"
                           "    barrier work_group\n"
                           "  }\n"
                           "  return\n}\n");
  ASSERT_TRUE(withBarrier);
  std::string staged = ptxOf(*withBarrier);
  ASSERT_FALSE(staged.empty());
  EXPECT_EQ(countOf(staged, "bar.sync"), 1u) << staged;
}

/// How many instructions of `opcode` the SPIR-V module has.
size_t spirvCount(const std::vector<uint8_t> &bytes, uint32_t opcode) {
  size_t count = 0;
  forEachSpirvInstruction(bytes, [&](uint32_t op, const uint32_t *, uint32_t) { count += op == opcode; });
  return count;
}

// popcount reaches SPIR-V as the core OpBitCount (one per kernel of popcount.dpkir, one per
// type), not as OpenCL.std's popcount extended instruction.
TEST(SpirvMath, PopcountIsOpBitCount) {
  auto module = parse(readPath(std::string(DPK_CORPUS_DIR) + "/popcount.dpkir"));
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::SpirV;
  auto spirv = compiler::compileModule(*module, options);
  ASSERT_TRUE(spirv) << spirv.error().message();
  const uint32_t opBitCount = 205, opExtInst = 12;
  EXPECT_EQ(spirvCount(spirv->bytes, opBitCount), 8u);
  EXPECT_EQ(spirvCount(spirv->bytes, opExtInst), 0u);
}

// A nontemporal store (the IR's hint that the line is not read again soon) is kept on every
// target that can express it: x86 writes stores the SLP vectorizer combined around the caches
// (movnt), SPIR-V carries the Nontemporal memory operand, PTX and OpenCL C store plainly. (LLVM's
// loop vectorizer leaves loops with nontemporal stores of unknown alignment scalar, so only
// kernels storing neighbours from one work-item, as the CPU scan does, use the hint.)
const char *kNontemporalCopy = // four neighbours per work-item, loaded before any is stored
    "kernel @copy4(%x: ptr<global, f32>, %y: ptr<global, f32>) {\n"
    "  %i = global_id 0 : i64\n"
    "  %four = const 4 : i64\n"
    "  %k0 = mul %i, %four : i64\n"
    "  %one = const 1 : i64\n"
    "  %k1 = add %k0, %one : i64\n"
    "  %k2 = add %k1, %one : i64\n"
    "  %k3 = add %k2, %one : i64\n"
    "  %a0 = load %x[%k0] : f32\n"
    "  %a1 = load %x[%k1] : f32\n"
    "  %a2 = load %x[%k2] : f32\n"
    "  %a3 = load %x[%k3] : f32\n"
    "  %b0 = add %a0, %a0 : f32\n"
    "  %b1 = add %a1, %a1 : f32\n"
    "  %b2 = add %a2, %a2 : f32\n"
    "  %b3 = add %a3, %a3 : f32\n"
    "  store nontemporal %y[%k0], %b0\n"
    "  store nontemporal %y[%k1], %b1\n"
    "  store nontemporal %y[%k2], %b2\n"
    "  store nontemporal %y[%k3], %b3\n"
    "  return\n"
    "}\n";

/// Whether the SPIR-V module has an OpStore whose memory operands include Nontemporal.
bool spirvHasNontemporalStore(const std::vector<uint8_t> &bytes) {
  const uint32_t opStore = 62, nontemporal = 0x4;
  bool found = false;
  forEachSpirvInstruction(bytes, [&](uint32_t opcode, const uint32_t *operands, uint32_t n) {
    found |= opcode == opStore && n >= 3 && (operands[2] & nontemporal);
  });
  return found;
}

TEST(NontemporalStore, HostVectorStoresBypassTheCaches) {
  auto module = parse(kNontemporalCopy);
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.dims = 1;
  auto ir = compiler::compileHost(*module, options, compiler::Output::LlvmIR);
  ASSERT_TRUE(ir) << ir.error().message();
  EXPECT_NE(std::string(ir->begin(), ir->end()).find("!nontemporal"), std::string::npos);
  auto assembly = compiler::compileHost(*module, options, compiler::Output::Assembly);
  ASSERT_TRUE(assembly) << assembly.error().message();
  EXPECT_NE(std::string(assembly->begin(), assembly->end()).find("movnt"), std::string::npos);
  // The same kernel with a plain store writes through the caches.
  std::string plainText = kNontemporalCopy;
  for (size_t at; (at = plainText.find("store nontemporal")) != std::string::npos;)
    plainText.replace(at, 17, "store");
  auto plain = parse(plainText);
  ASSERT_TRUE(plain);
  auto plainAssembly = compiler::compileHost(*plain, options, compiler::Output::Assembly);
  ASSERT_TRUE(plainAssembly) << plainAssembly.error().message();
  EXPECT_EQ(std::string(plainAssembly->begin(), plainAssembly->end()).find("movnt"),
            std::string::npos);
}

TEST(NontemporalStore, SpirvCarriesTheMemoryOperandAndPtxStoresPlainly) {
  auto module = parse(kNontemporalCopy);
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::SpirV;
  auto spirv = compiler::compileModule(*module, options);
  ASSERT_TRUE(spirv) << spirv.error().message();
  EXPECT_TRUE(spirvHasNontemporalStore(spirv->bytes));
  if (!std::string(DPK_SPIRV_VAL).empty()) {
    std::string output;
    EXPECT_EQ(runTool(DPK_SPIRV_VAL, "", spirv->bytes, ".spv", output), 0) << output;
  }
  std::string ptx = ptxOf(*module);
  EXPECT_NE(ptx.find("st.global.f32"), std::string::npos) << ptx;
}

// Four neighbouring loads whose first promises 16-byte alignment are one vector load in PTX
// (LLVM's load-store vectorizer); without the promise they stay four scalar loads.
const char *kAlignedSum4 = "kernel @sum4(%x: ptr<global, f32>, %y: ptr<global, f32>) {\n"
                           "  %i = global_id 0 : i64\n"
                           "  %four = const 4 : i64\n"
                           "  %one = const 1 : i64\n"
                           "  %i0 = mul %i, %four : i64\n"
                           "  %i1 = add %i0, %one : i64\n"
                           "  %i2 = add %i1, %one : i64\n"
                           "  %i3 = add %i2, %one : i64\n"
                           "  %a = load aligned 16 %x[%i0] : f32\n"
                           "  %b = load %x[%i1] : f32\n"
                           "  %c = load %x[%i2] : f32\n"
                           "  %d = load %x[%i3] : f32\n"
                           "  %ab = add %a, %b : f32\n"
                           "  %cd = add %c, %d : f32\n"
                           "  %s = add %ab, %cd : f32\n"
                           "  store %y[%i], %s\n"
                           "  return\n}\n";

// A known work-group shape becomes `.maxntid` (ptxas then never gives a kernel more registers
// than a group of that size can have), and min_groups_per_cu becomes `.minnctapersm` with it.
TEST(PtxLaunchBounds, KnownGroupSizeAndOccupancyRequestReachPtx) {
  const char *text = "kernel @occupied(%x: ptr<global, f32>) min_groups_per_cu(3) {\n"
                     "  %i = global_id 0 : i64\n"
                     "  %v = load %x[%i] : f32\n"
                     "  store %x[%i], %v\n"
                     "  return\n}\n";
  auto module = parse(text);
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.dims = 2;
  options.target = compiler::TargetKind::Ptx;
  options.targetId = "sm_90";
  options.localSize = {4, 64, 0}; // dpk dimension 1 (64) is CUDA x
  auto ptx = compiler::compileModule(*module, options);
  ASSERT_TRUE(ptx) << ptx.error().message();
  std::string code(ptx->bytes.begin(), ptx->bytes.end());
  EXPECT_NE(code.find(".maxntid 64, 4, 1"), std::string::npos) << code;
  EXPECT_NE(code.find(".minnctapersm 3"), std::string::npos) << code;
  // Range builds (no group shape): neither; the request alone cannot be honoured.
  options.localSize = {0, 0, 0};
  auto range = compiler::compileModule(*module, options);
  ASSERT_TRUE(range) << range.error().message();
  std::string rangeCode(range->bytes.begin(), range->bytes.end());
  EXPECT_EQ(rangeCode.find(".maxntid"), std::string::npos) << rangeCode;
  EXPECT_EQ(rangeCode.find(".minnctapersm"), std::string::npos) << rangeCode;
}

TEST(AlignedLoad, NeighbouringLoadsBecomeOnePtxVectorLoad) {
  auto module = parse(kAlignedSum4);
  ASSERT_TRUE(module);
  std::string ptx = ptxOf(*module);
  EXPECT_NE(ptx.find("ld.global.v4.f32"), std::string::npos) << ptx;
  std::string plainText = kAlignedSum4;
  plainText.replace(plainText.find("load aligned 16"), 15, "load");
  auto plain = parse(plainText);
  ASSERT_TRUE(plain);
  std::string plainPtx = ptxOf(*plain);
  EXPECT_EQ(plainPtx.find("ld.global.v4"), std::string::npos) << plainPtx;
  EXPECT_NE(plainPtx.find("ld.global.f32"), std::string::npos) << plainPtx;
}

TEST(AlignedStore, NeighbouringStoresBecomeOnePtxVectorStore) {
  std::string text = "kernel @spread(%x: ptr<global, f32>, %y: ptr<global, f32>) {\n"
                     "  %i = global_id 0 : i64\n"
                     "  %four = const 4 : i64\n"
                     "  %one = const 1 : i64\n"
                     "  %v = load %x[%i] : f32\n"
                     "  %i0 = mul %i, %four : i64\n"
                     "  %i1 = add %i0, %one : i64\n"
                     "  %i2 = add %i1, %one : i64\n"
                     "  %i3 = add %i2, %one : i64\n"
                     "  store aligned 16 %y[%i0], %v\n"
                     "  store %y[%i1], %v\n"
                     "  store %y[%i2], %v\n"
                     "  store %y[%i3], %v\n"
                     "  return\n}\n";
  auto module = parse(text);
  ASSERT_TRUE(module);
  std::string ptx = ptxOf(*module);
  EXPECT_NE(ptx.find("st.global.v4.f32"), std::string::npos) << ptx;
  text.replace(text.find("store aligned 16"), 16, "store");
  auto plain = parse(text);
  ASSERT_TRUE(plain);
  std::string plainPtx = ptxOf(*plain);
  EXPECT_EQ(plainPtx.find("st.global.v4"), std::string::npos) << plainPtx;
}

TEST(AlignedLoad, SpirvCarriesTheAlignment) {
  auto module = parse(kAlignedSum4);
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::SpirV;
  auto spirv = compiler::compileModule(*module, options);
  ASSERT_TRUE(spirv) << spirv.error().message();
  const uint32_t opLoad = 61, aligned = 0x2;
  bool found = false;
  forEachSpirvInstruction(spirv->bytes, [&](uint32_t opcode, const uint32_t *operands, uint32_t n) {
    found |= opcode == opLoad && n >= 5 && (operands[3] & aligned) && operands[4] == 16;
  });
  EXPECT_TRUE(found);
  if (!std::string(DPK_SPIRV_VAL).empty()) {
    std::string output;
    EXPECT_EQ(runTool(DPK_SPIRV_VAL, "", spirv->bytes, ".spv", output), 0) << output;
  }
}

TEST(KernelAbi, ViewsExpand) {
  auto module = parse("kernel @k(%v: view<global, f32, 2>, %s: f64, %l: ptr<local, i32>) {\n"
                      "  return\n}\n");
  ASSERT_TRUE(module);
  auto abi = compiler::kernelAbi(*module->functions[0]);
  ASSERT_EQ(abi.size(), 7u);
  EXPECT_EQ(abi[0].kind, DPK_ARG_POINTER);
  for (int i = 1; i <= 4; ++i) EXPECT_EQ(abi[i].kind, DPK_ARG_SCALAR);
  EXPECT_EQ(abi[5].kind, DPK_ARG_SCALAR);
  EXPECT_EQ(abi[5].size, 8u);
  EXPECT_EQ(abi[5].paramIndex, 1u);
  EXPECT_EQ(abi[6].kind, DPK_ARG_LOCAL);
}

// CUDA x's global id is 64-bit (x allows 2^31 - 1 blocks) unless the launch's global sizes fit
// 32 bits (CompileOptions::idsFit32): then it is one 32-bit multiply-add, zero-extended.
TEST(PtxIds, XIdIn32BitsOnlyWhenTheSizesFit) {
  auto module = parse("kernel @copy(%x: ptr<global, f32>, %y: ptr<global, f32>) {\n"
                      "  %i = global_id 0 : i64\n"
                      "  %a = load %x[%i] : f32\n"
                      "  store %y[%i], %a\n"
                      "  return\n}\n");
  ASSERT_TRUE(module);
  std::string wideText = ptxOf(*module);
  ASSERT_FALSE(wideText.empty());
  EXPECT_EQ(wideText.find("mad.lo"), std::string::npos) << wideText;
  std::string narrowText = ptxOf(*module, /*idsFit32=*/true);
  ASSERT_FALSE(narrowText.empty());
  EXPECT_NE(narrowText.find("mad.lo.s32"), std::string::npos) << narrowText;
}

} // namespace
} // namespace dpk::test
