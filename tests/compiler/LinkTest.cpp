// LinkTest.cpp - external device code linked into kernels (compiler/Link.h, docs/linking.md):
// LLVM IR and bitcode into host code (run) and SPIR-V (spirv-val, no call left), OpenCL C
// source appended to the emitted OpenCL C, PTX and CUDA C merged into PTX (ptxas when present),
// and the typed errors: missing symbol, signature mismatch, a file the target cannot use.
#include "HostHarness.h"

#include "compiler/Compiler.h"
#include "compiler/Link.h"
#include "compiler/Targets.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace dpk::test {
namespace {

namespace fs = std::filesystem;

// Every kernel here calls the functions of tests/data/link/my_math.*.
constexpr const char *kKernel = R"(
extern func @my_add(%a: i32, %b: i32) -> i32
extern func @my_scale(%x: f64) -> f64
kernel @linked(%x: ptr<global, i32>, %y: ptr<global, f64>) {
  %i = global_id 0 : i64
  %a = load %x[%i] : i32
  %c = const 7 : i32
  %s = call @my_add(%a, %c) : i32
  store %x[%i], %s
  %d = load %y[%i] : f64
  %e = call @my_scale(%d) : f64
  store %y[%i], %e
  return
}
)";

// The PTX file defines my_add and my_fma3 only.
constexpr const char *kPtxKernel = R"(
extern func @my_add(%a: i32, %b: i32) -> i32
extern func @my_fma3(%x: f32, %y: f32) -> f32
kernel @linked_ptx(%x: ptr<global, i32>, %y: ptr<global, f32>) {
  %i = global_id 0 : i64
  %a = load %x[%i] : i32
  %s = call @my_add(%a, %a) : i32
  store %x[%i], %s
  %d = load %y[%i] : f32
  %e = call @my_fma3(%d, %d) : f32
  store %y[%i], %e
  return
}
)";

std::string readPath(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

compiler::LinkInput dataFile(const std::string &name) {
  std::string path = std::string(DPK_LINK_DATA_DIR) + "/" + name;
  return {path, readPath(path)};
}

/// my_math.bc made from my_math.ll with llvm-as-15 (typed pointers when `typed`), or an
/// input with empty contents when llvm-as is absent.
compiler::LinkInput bitcode(bool typed) {
  std::string tool = DPK_LLVM_AS;
  if (tool.empty()) return {};
  fs::path out = fs::temp_directory_path() /
                 ("dpk_link_test_" + std::to_string(::getpid()) + (typed ? "_t" : "") + ".bc");
  std::string command = tool + (typed ? " -opaque-pointers=0 " : " ") + DPK_LINK_DATA_DIR +
                        "/my_math.ll -o " + out.string();
  if (std::system(command.c_str()) != 0) return {};
  compiler::LinkInput input{out.string(), readPath(out.string())};
  fs::remove(out);
  return input;
}

int runTool(const std::string &tool, const std::string &args, const std::vector<uint8_t> &bytes,
            const std::string &suffix, std::string &output) {
  fs::path file = fs::temp_directory_path() /
                  ("dpk_link_test_" + std::to_string(::getpid()) + suffix);
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

Expected<compiler::Artifact> compileWith(const ir::Module &module, compiler::TargetKind target,
                                         std::vector<compiler::LinkInput> inputs,
                                         const std::string &arch = "") {
  compiler::CompileOptions options;
  options.target = target;
  options.targetId = arch;
  options.linkInputs = std::move(inputs);
  return compiler::compileModule(module, options);
}

std::string text(const compiler::Artifact &artifact) {
  return std::string(artifact.bytes.begin(), artifact.bytes.end());
}

/// Runs kernel `linked` on the host with inputs linked and checks x + 7 and x/2 + 1.
void runOnHost(const std::vector<compiler::LinkInput> &inputs) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::Host;
  options.dims = 1;
  options.linkInputs = inputs;
  auto artifact = compiler::compileModule(*module, options);
  ASSERT_TRUE(artifact) << artifact.error().message();
  auto code = compiler::loadHostCode(artifact->bytes, {"linked"}, {0, 0, 0});
  ASSERT_TRUE(code) << code.error().message();
  const dpk_host_module_t &host = (*code)->module();
  ASSERT_EQ(host.num_kernels, 1u);
  auto fn = reinterpret_cast<dpk_host_group_fn>(host.kernels[0].fn);
  const size_t n = 100;
  std::vector<int32_t> x(n);
  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) x[i] = int32_t(i) - 50, y[i] = 0.25 * double(i);
  void *xp = x.data(), *yp = y.data();
  runGroups(fn, 1, {n, 1, 1}, {10, 1, 1}, {&xp, &yp});
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(x[i], int32_t(i) - 50 + 7) << i;
    EXPECT_DOUBLE_EQ(y[i], 0.125 * double(i) + 1.0) << i;
  }
}

TEST(Link, LlvmIrRunsOnTheHost) { runOnHost({dataFile("my_math.ll")}); }

TEST(Link, BoundsCheckAndRangeGuardLeaveExternalSignaturesAlone) {
  // Both passes add parameters to dpk's functions; an external one keeps its own.
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  compiler::CompileOptions options;
  options.target = compiler::TargetKind::Host;
  options.linkInputs = {dataFile("my_math.ll")};
  options.boundsCheck = true;
  options.rangeGuard = compiler::RangeGuardKind::Guarded;
  auto artifact = compiler::compileModule(*module, options);
  EXPECT_TRUE(artifact) << artifact.error().message();
  options.target = compiler::TargetKind::OpenCLC;
  options.linkInputs = {dataFile("my_math.cl")};
  artifact = compiler::compileModule(*module, options);
  ASSERT_TRUE(artifact) << artifact.error().message();
  EXPECT_NE(text(*artifact).find("int my_add(int a, int b);"), std::string::npos)
      << text(*artifact);
}

TEST(Link, BitcodeRunsOnTheHost) {
  compiler::LinkInput input = bitcode(false);
  if (input.contents.empty()) GTEST_SKIP() << "llvm-as-15 not found at configure time";
  runOnHost({input});
}

TEST(Link, HostIgnoresFilesForOtherTargets) {
  // One list for every target: the host takes the .ll, not the .cl or .ptx.
  runOnHost({dataFile("my_math.cl"), dataFile("my_math.ptx"), dataFile("my_math.ll")});
}

TEST(Link, LlvmIrAndBitcodeLinkIntoSpirv) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  std::vector<compiler::LinkInput> inputs = {dataFile("my_math.ll")};
  for (bool typed : {false, true}) {
    compiler::LinkInput input = bitcode(typed);
    if (!input.contents.empty()) inputs.push_back(input);
  }
  for (const compiler::LinkInput &input : inputs) {
    SCOPED_TRACE(input.path);
    auto llvmText = compiler::compileSpirv(*module,
                                           [&] {
                                             compiler::CompileOptions o;
                                             o.target = compiler::TargetKind::SpirV;
                                             o.linkInputs = {input};
                                             return o;
                                           }(),
                                           compiler::Output::LlvmIR);
    ASSERT_TRUE(llvmText) << llvmText.error().message();
    std::string ir(llvmText->begin(), llvmText->end());
    // Linked, internal and inlined: no call or declaration of the symbols is left.
    EXPECT_EQ(ir.find("@my_add"), std::string::npos) << ir;
    EXPECT_EQ(ir.find("@my_scale"), std::string::npos) << ir;
    auto artifact = compileWith(*module, compiler::TargetKind::SpirV, {input});
    ASSERT_TRUE(artifact) << artifact.error().message();
    if (std::string(DPK_SPIRV_VAL).empty()) continue;
    std::string output;
    EXPECT_EQ(runTool(DPK_SPIRV_VAL, "", artifact->bytes, ".spv", output), 0) << output;
  }
}

TEST(Link, OpenCLCSourceIsAppendedAfterPrototypes) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  auto artifact = compileWith(*module, compiler::TargetKind::OpenCLC,
                              {dataFile("my_math.ll"), dataFile("my_math.cl")});
  ASSERT_TRUE(artifact) << artifact.error().message();
  std::string source = text(*artifact);
  size_t prototype = source.find("int my_add(int");
  size_t call = source.find("= my_add(");
  size_t linked = source.find("#line 1 \"" + std::string(DPK_LINK_DATA_DIR) + "/my_math.cl\"");
  ASSERT_NE(prototype, std::string::npos) << source;
  ASSERT_NE(call, std::string::npos) << source;
  ASSERT_NE(linked, std::string::npos) << source;
  EXPECT_LT(prototype, call);
  EXPECT_LT(call, linked);
  EXPECT_NE(source.find("static double helper_bias"), std::string::npos);
}

TEST(Link, PtxAndCudaMergeIntoPtx) {
  auto module = parse(kPtxKernel);
  ASSERT_TRUE(module);
  auto artifact = compileWith(*module, compiler::TargetKind::Ptx, {dataFile("my_math.ptx")},
                              "sm_75");
  ASSERT_TRUE(artifact) << artifact.error().message();
  std::string ptx = text(*artifact);
  EXPECT_EQ(ptx.find(".extern .func"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".visible .func  (.param .b32 func_retval0) my_add("), std::string::npos);
  EXPECT_EQ(ptx.find(".version 7.0"), std::string::npos) << "one header, dpk's";
  if (!std::string(DPK_PTXAS).empty()) {
    std::string output;
    std::vector<uint8_t> bytes = artifact->bytes;
    while (!bytes.empty() && bytes.back() == 0) bytes.pop_back();
    EXPECT_EQ(runTool(DPK_PTXAS, "-arch=sm_75 -o /dev/null", bytes, ".ptx", output), 0) << output;
  }
  // The same kernel from LLVM IR on the PTX target: linked before code generation.
  auto fromIr = compileWith(*parse(kKernel), compiler::TargetKind::Ptx, {dataFile("my_math.ll")});
  ASSERT_TRUE(fromIr) << fromIr.error().message();
  EXPECT_EQ(text(*fromIr).find("my_add"), std::string::npos) << "inlined";
}

TEST(Link, CudaCCompilesWithNvrtcWhenPresent) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  auto artifact = compileWith(*module, compiler::TargetKind::Ptx, {dataFile("my_math.cu")},
                              "sm_75");
  if (!artifact && artifact.error().message().find("NVRTC") != std::string::npos &&
      artifact.error().message().find("cannot be loaded") != std::string::npos)
    GTEST_SKIP() << artifact.error().message();
  ASSERT_TRUE(artifact) << artifact.error().message();
  std::string ptx = text(*artifact);
  EXPECT_NE(ptx.find("my_scale("), std::string::npos);
  EXPECT_EQ(ptx.find(".extern .func"), std::string::npos) << ptx;
  if (!std::string(DPK_PTXAS).empty()) {
    std::string output;
    std::vector<uint8_t> bytes = artifact->bytes;
    while (!bytes.empty() && bytes.back() == 0) bytes.pop_back();
    EXPECT_EQ(runTool(DPK_PTXAS, "-arch=sm_75 -o /dev/null", bytes, ".ptx", output), 0) << output;
  }
}

// ---- errors --------------------------------------------------------------------------------

void expectLinkError(const Expected<compiler::Artifact> &artifact,
                     const std::vector<std::string> &pieces) {
  ASSERT_FALSE(artifact);
  EXPECT_EQ(artifact.error().status(), DPK_ERROR_LINK) << artifact.error().message();
  for (const std::string &piece : pieces)
    EXPECT_NE(artifact.error().message().find(piece), std::string::npos)
        << "missing '" << piece << "' in: " << artifact.error().message();
}

TEST(LinkErrors, MissingSymbolNamesFileSymbolAndTarget) {
  auto module = parse(kKernel); // my_scale is not in the PTX file
  ASSERT_TRUE(module);
  compiler::LinkInput ptx = dataFile("my_math.ptx");
  expectLinkError(compileWith(*module, compiler::TargetKind::Ptx, {ptx}, "sm_75"),
                  {"link: symbol 'my_scale'", "f64(f64)", ptx.path, "target ptx"});
  // A file without the symbol on the host: the message lists what was searched and ignored.
  compiler::LinkInput wrong = dataFile("wrong_sig.ll"); // defines my_add only
  auto onlyScale = parse(R"(
extern func @my_scale(%x: f64) -> f64
kernel @k(%y: ptr<global, f64>) {
  %i = global_id 0 : i64
  %d = load %y[%i] : f64
  %e = call @my_scale(%d) : f64
  store %y[%i], %e
  return
}
)");
  ASSERT_TRUE(onlyScale);
  compiler::LinkInput cl = dataFile("my_math.cl");
  expectLinkError(compileWith(*onlyScale, compiler::TargetKind::Host, {wrong, cl}),
                  {"symbol 'my_scale'", wrong.path, "target host", "not used on this target",
                   cl.path});
  expectLinkError(compileWith(*onlyScale, compiler::TargetKind::OpenCLC, {dataFile("wrong_sig.cl")}),
                  {"symbol 'my_scale'", "wrong_sig.cl", "target opencl-c"});
}

TEST(LinkErrors, SignatureMismatchNamesBothTypes) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  compiler::LinkInput ll = dataFile("wrong_sig.ll");
  for (compiler::TargetKind target :
       {compiler::TargetKind::Host, compiler::TargetKind::SpirV, compiler::TargetKind::Ptx})
    expectLinkError(compileWith(*module, target, {ll, dataFile("my_math.ll")}),
                    {ll.path, "symbol 'my_add'", "i64 (i64, i64)", "i32(i32, i32)",
                     std::string("target ") + compiler::targetName(target)});
  compiler::LinkInput cl = dataFile("wrong_sig.cl");
  expectLinkError(compileWith(*module, compiler::TargetKind::OpenCLC, {cl}),
                  {cl.path, "symbol 'my_add'", "i64(i64, i64)", "i32(i32, i32)",
                   "target opencl-c"});
}

TEST(LinkErrors, FileTheTargetCannotUse) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  compiler::LinkInput cl = dataFile("my_math.cl");
  expectLinkError(compileWith(*module, compiler::TargetKind::Host, {cl}),
                  {"no linked file can serve target host", "symbol 'my_add'", cl.path,
                   "OpenCL C source"});
  compiler::LinkInput ptx = dataFile("my_math.ptx");
  expectLinkError(compileWith(*module, compiler::TargetKind::SpirV, {ptx}),
                  {"target spirv", ptx.path, "PTX: CUDA devices"});
  compiler::LinkInput ll = dataFile("my_math.ll");
  expectLinkError(compileWith(*module, compiler::TargetKind::OpenCLC, {ll}),
                  {"target opencl-c", ll.path, "LLVM IR"});
  expectLinkError(compileWith(*module, compiler::TargetKind::Host, {}),
                  {"symbol 'my_add'", "no file is linked for target host"});
  expectLinkError(compileWith(*module, compiler::TargetKind::Host, {{"notes.txt", "x"}}),
                  {"notes.txt", "unknown kind of file"});
}

TEST(LinkErrors, LlvmFileForAnotherArchitectureIsNotUsed) {
  auto module = parse(kKernel);
  ASSERT_TRUE(module);
  compiler::LinkInput nvptx{"nvptx_only.ll",
                            "target triple = \"nvptx64-nvidia-cuda\"\n" +
                                readPath(std::string(DPK_LINK_DATA_DIR) + "/my_math.ll")};
  expectLinkError(compileWith(*module, compiler::TargetKind::Host, {nvptx}),
                  {"symbol 'my_add'", "target host"});
  EXPECT_TRUE(compileWith(*module, compiler::TargetKind::Ptx, {nvptx}));
  expectLinkError(compileWith(*module, compiler::TargetKind::Host, {{"broken.ll", "define"}}),
                  {"broken.ll", "not valid LLVM 15 IR"});
}

} // namespace
} // namespace dpk::test
