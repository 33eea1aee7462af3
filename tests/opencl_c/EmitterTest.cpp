// EmitterTest.cpp - OpenCL C emission checks that need no device: index mapping, local size
// specialization, pragmas, literals, naming, function order, determinism and errors.
#include "EmitTestUtil.h"
#include "TextCount.h"

#include "ir/Builder.h"
#include "ir/Printer.h"

#include <cmath>
#include <limits>

namespace dpk::testing {
namespace {

using ir::AddressSpace;
using ir::Builder;
using ir::OpKind;
using ir::ScalarKind;
using ir::Type;
using ir::Value;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

Type globalPtr(ScalarKind kind) { return Type::pointerTy(AddressSpace::Global, kind); }

/// A kernel storing global_id(d) for every d < dims, plus local_size(0).
void buildIdKernel(ir::Module &module, unsigned dims) {
  Builder b(module);
  auto *k = b.createFunction("ids", true, {globalPtr(ScalarKind::I64)}, {"out"}, Type::voidTy());
  for (unsigned d = 0; d < dims; ++d)
    b.store(k->params[0], b.constInt(ScalarKind::I64, d), b.workItem(OpKind::GlobalId, d));
  b.store(k->params[0], b.constInt(ScalarKind::I64, 9), b.workItem(OpKind::LocalSize, 0));
  b.ret();
}

TEST(Emitter, DimensionsAreReversedForInferredDims) {
  ir::Module module;
  buildIdKernel(module, 2);
  std::string source = emitOrFail(module, openclOptions());
  EXPECT_TRUE(contains(source, "out[0L] = ")) << source;
  // dpk dimension 0 of a 2-D launch is OpenCL dimension 1, and dimension 1 is OpenCL's 0.
  size_t first = source.find("get_global_id(1)");
  size_t second = source.find("get_global_id(0)");
  ASSERT_NE(first, std::string::npos) << source;
  ASSERT_NE(second, std::string::npos) << source;
  EXPECT_LT(first, second);
  EXPECT_TRUE(contains(source, "get_local_size(1)")) << source;
}

TEST(Emitter, DimensionsFollowTheLaunchDims) {
  ir::Module module;
  buildIdKernel(module, 1);
  std::string source = emitOrFail(module, openclOptions(3));
  EXPECT_TRUE(contains(source, "get_global_id(2)")) << source;
  EXPECT_FALSE(contains(source, "get_global_id(0)")) << source;
}

TEST(Emitter, RejectsDimsBelowTheDimensionsUsed) {
  ir::Module module;
  buildIdKernel(module, 3);
  Expected<std::string> source = opencl_c::emitOpenCLC(module, openclOptions(2));
  ASSERT_FALSE(source);
  EXPECT_EQ(source.error().status(), DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(contains(source.error().message(), "dimension 2")) << source.error().message();
  Expected<std::string> tooMany = opencl_c::emitOpenCLC(module, openclOptions(4));
  ASSERT_FALSE(tooMany);
  EXPECT_EQ(tooMany.error().status(), DPK_ERROR_INVALID_ARGUMENT);
}

TEST(Emitter, SpecializedLocalSizeIsReversedAndConstant) {
  ir::Module module;
  buildIdKernel(module, 2);
  std::string source = emitOrFail(module, openclOptions(2, {8, 4, 0}));
  EXPECT_TRUE(contains(source, "__attribute__((reqd_work_group_size(4, 8, 1)))")) << source;
  EXPECT_FALSE(contains(source, "get_local_size")) << source;
  EXPECT_TRUE(contains(source, "= 8L;")) << source;
  // A local size with a zero in a used dimension is no specialization.
  std::string partial = emitOrFail(module, openclOptions(2, {8, 0, 0}));
  EXPECT_FALSE(contains(partial, "reqd_work_group_size")) << partial;
  EXPECT_TRUE(contains(partial, "get_local_size(1)")) << partial;
}

TEST(Emitter, IdsFitting32BitsAreComputedIn32Bits) {
  ir::Module module;
  buildIdKernel(module, 2);
  std::string wide = emitOrFail(module, openclOptions(2));
  EXPECT_TRUE(contains(wide, "(long)get_global_id(0)")) << wide;
  EXPECT_FALSE(contains(wide, "(uint)")) << wide;
  compiler::CompileOptions options = openclOptions(2);
  options.idsFit32 = true;
  std::string narrow = emitOrFail(module, options);
  EXPECT_TRUE(contains(narrow, "(long)(uint)get_global_id(0)")) << narrow;
  EXPECT_TRUE(contains(narrow, "(long)(uint)get_global_id(1)")) << narrow;
}

TEST(Emitter, PragmasOnlyWhenNeeded) {
  ir::Module plain;
  buildIdKernel(plain, 1);
  std::string source = emitOrFail(plain, openclOptions());
  EXPECT_FALSE(contains(source, "#pragma OPENCL EXTENSION")) << source;
  EXPECT_TRUE(contains(source, "#pragma OPENCL FP_CONTRACT ON")) << source;

  ir::Module wide;
  Builder b(wide);
  auto *k = b.createFunction("wide", true, {globalPtr(ScalarKind::F64), globalPtr(ScalarKind::I64)},
                             {"d", "counts"}, Type::voidTy());
  Value *zero = b.constInt(ScalarKind::I64, 0);
  b.store(k->params[0], zero, b.constFloat(ScalarKind::F64, 0.5));
  b.atomicRmw(ir::AtomicRmwKind::Max, k->params[1], zero, zero, ir::MemoryOrder::Relaxed,
              ir::MemoryScope::Device);
  b.ret();
  std::string wideSource = emitOrFail(wide, openclOptions());
  EXPECT_TRUE(contains(wideSource, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable")) << wideSource;
  EXPECT_TRUE(contains(wideSource, "cl_khr_int64_base_atomics : enable")) << wideSource;
  EXPECT_TRUE(contains(wideSource, "cl_khr_int64_extended_atomics : enable")) << wideSource;
  EXPECT_TRUE(contains(wideSource, "atom_max(")) << wideSource;
}

TEST(Emitter, LiteralsRoundTrip) {
  ir::Module module;
  Builder b(module);
  auto *k = b.createFunction("literals", true,
                             {globalPtr(ScalarKind::F32), globalPtr(ScalarKind::F64),
                              globalPtr(ScalarKind::I64), globalPtr(ScalarKind::U64),
                              globalPtr(ScalarKind::I32), globalPtr(ScalarKind::F16)},
                             {"f", "d", "l", "u", "i", "h"}, Type::voidTy());
  auto at = [&](int64_t i) { return b.constInt(ScalarKind::I64, i); };
  b.store(k->params[0], at(0), b.constFloat(ScalarKind::F32, 0.1f));
  b.store(k->params[0], at(1), b.constFloat(ScalarKind::F32, std::nan("")));
  b.store(k->params[0], at(2), b.constFloat(ScalarKind::F32, -INFINITY));
  b.store(k->params[0], at(3), b.constFloat(ScalarKind::F32, 3.0));
  b.store(k->params[1], at(0), b.constFloat(ScalarKind::F64, 0.1));
  b.store(k->params[1], at(1), b.constFloat(ScalarKind::F64, -1e300));
  b.store(k->params[2], at(0), b.constInt(ScalarKind::I64, std::numeric_limits<int64_t>::min()));
  b.store(k->params[3], at(0), b.constInt(ScalarKind::U64, -1));
  b.store(k->params[4], at(0), b.constInt(ScalarKind::I32, std::numeric_limits<int32_t>::min()));
  b.store(k->params[5], at(0), b.constFloat(ScalarKind::F16, 0.1));
  b.ret();
  std::string source = emitOrFail(module, openclOptions());
  EXPECT_TRUE(contains(source, "f[0L] = 0.1f;")) << source;
  EXPECT_TRUE(contains(source, "f[1L] = NAN;")) << source;
  EXPECT_TRUE(contains(source, "f[2L] = (-INFINITY);")) << source;
  EXPECT_TRUE(contains(source, "f[3L] = 3.0f;")) << source;
  EXPECT_TRUE(contains(source, "d[0L] = 0.1;")) << source;
  EXPECT_TRUE(contains(source, "d[1L] = (-1e+300);")) << source;
  EXPECT_TRUE(contains(source, "(-9223372036854775807L - 1L)")) << source;
  EXPECT_TRUE(contains(source, "18446744073709551615UL")) << source;
  EXPECT_TRUE(contains(source, "(-2147483647 - 1)")) << source;
  // 0.1 rounded to the nearest half is 0.0999755859375.
  EXPECT_TRUE(contains(source, "vstore_half(0.099975586f, 0L, h);")) << source;
}

TEST(Emitter, NamesAvoidKeywordsAndBuiltins) {
  ir::Module module;
  Builder b(module);
  Type f32 = Type::scalarTy(ScalarKind::F32);
  auto *k = b.createFunction("names", true, {globalPtr(ScalarKind::F32)}, {"float"}, Type::voidTy());
  Value *zero = b.constInt(ScalarKind::I64, 0);
  Value *x = b.load(k->params[0], zero);
  x->name = "sqrt";
  Value *y = b.math(ir::MathFn::Sqrt, {x});
  y->name = "x.y";
  Value *z = b.call("min", {y}, f32);
  z->name = "sqrt"; // a second value with the same name
  b.store(k->params[0], zero, z);
  b.ret();
  auto *fn = b.createFunction("min", false, {f32}, {"v"}, f32);
  b.ret(fn->params[0]);
  std::string source = emitOrFail(module, openclOptions());
  EXPECT_TRUE(contains(source, "__global float *float_")) << source;
  EXPECT_TRUE(contains(source, "const float sqrt_ = float_[0L];")) << source;
  EXPECT_TRUE(contains(source, "const float x_y = sqrt(sqrt_);")) << source;
  EXPECT_TRUE(contains(source, "float dpk_fn_min(float v)")) << source;
  EXPECT_TRUE(contains(source, "const float sqrt__1 = dpk_fn_min(x_y);")) << source;
}

// popcount is OpenCL C's popcount() cast to the operand's type; a value named like the built-in
// is renamed so that the call still reaches it.
TEST(Emitter, PopcountIsTheBuiltinInTheOperandsType) {
  ir::Module module;
  Builder b(module);
  auto *k = b.createFunction("bits", true, {globalPtr(ScalarKind::I16), globalPtr(ScalarKind::U64)},
                             {"s", "u"}, Type::voidTy());
  Value *zero = b.constInt(ScalarKind::I64, 0);
  Value *s = b.load(k->params[0], zero);
  s->name = "popcount";
  Value *u = b.load(k->params[1], zero);
  u->name = "x";
  Value *ps = b.math(ir::MathFn::Popcount, {s});
  ps->name = "ps";
  Value *pu = b.math(ir::MathFn::Popcount, {u});
  pu->name = "pu";
  Value *pk = b.math(ir::MathFn::Popcount, {b.constInt(ScalarKind::I8, -1)});
  pk->name = "pk";
  b.store(k->params[0], zero, ps);
  b.store(k->params[1], zero, pu);
  b.store(k->params[0], b.constInt(ScalarKind::I64, 1), b.cast(pk, Type::scalarTy(ScalarKind::I16)));
  b.ret();
  std::string source = emitOrFail(module, openclOptions());
  EXPECT_TRUE(contains(source, "const short ps = (short)popcount(popcount_);")) << source;
  EXPECT_TRUE(contains(source, "const ulong pu = (ulong)popcount(x);")) << source;
  EXPECT_TRUE(contains(source, "const char pk = (char)popcount(((char)-1));")) << source;
}

TEST(Emitter, DeviceFunctionsCalleesFirstAndOnlyReachable) {
  ir::Module module;
  Builder b(module);
  Type f32 = Type::scalarTy(ScalarKind::F32);
  b.createFunction("unused", false, {}, {}, Type::voidTy());
  b.ret();
  auto *k = b.createFunction("k", true, {globalPtr(ScalarKind::F32)}, {"p"}, Type::voidTy());
  Value *zero = b.constInt(ScalarKind::I64, 0);
  b.store(k->params[0], zero, b.call("outer", {b.load(k->params[0], zero)}, f32));
  b.ret();
  auto *outer = b.createFunction("outer", false, {f32}, {"x"}, f32);
  b.ret(b.call("inner", {outer->params[0]}, f32));
  auto *inner = b.createFunction("inner", false, {f32}, {"x"}, f32);
  b.ret(b.binary(OpKind::Mul, inner->params[0], inner->params[0]));
  std::string source = emitOrFail(module, openclOptions());
  EXPECT_FALSE(contains(source, "unused")) << source;
  size_t innerAt = source.find("float inner(float x) {");
  size_t outerAt = source.find("float outer(float x) {");
  size_t kernelAt = source.find("__kernel void k(");
  ASSERT_NE(innerAt, std::string::npos) << source;
  ASSERT_NE(outerAt, std::string::npos) << source;
  EXPECT_LT(innerAt, outerAt);
  EXPECT_LT(outerAt, kernelAt);
  EXPECT_TRUE(contains(source, "float inner(float x);\n")) << "prototypes missing:\n" << source;
}

TEST(Emitter, OutputIsDeterministicAcrossATextRoundTrip) {
  std::unique_ptr<ir::Module> module = loadCorpus("atomics_all.dpkir");
  ASSERT_TRUE(module);
  std::string first = emitOrFail(*module, openclOptions());
  Expected<std::unique_ptr<ir::Module>> reparsed = ir::parseModule(ir::printModule(*module));
  ASSERT_TRUE(reparsed) << reparsed.error().message();
  EXPECT_EQ(emitOrFail(**reparsed, openclOptions()), first);
}

TEST(Emitter, LocalAllocsAreHoistedToKernelScope) {
  std::unique_ptr<ir::Module> module = loadCorpus("tiled_matmul.dpkir");
  ASSERT_TRUE(module);
  std::string source = emitOrFail(*module, openclOptions());
  size_t body = source.find("__kernel void tiled_matmul(");
  ASSERT_NE(body, std::string::npos);
  size_t open = source.find("{\n", body);
  const std::string hoisted = "  __local float tile_a[256];\n  __local float tile_b[256];\n";
  EXPECT_EQ(source.compare(open + 2, hoisted.size(), hoisted), 0) << source;
  EXPECT_TRUE(contains(source, "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);")) << source;
}

} // namespace
} // namespace dpk::testing

namespace dpk::testing {
namespace {

using dpk::test::countOf;

// CompileOptions::unitInnerStrideViews: the innermost stride parameter stays in the signature
// (the Kernel ABI) but is never read; other strides and unmarked views are unchanged.
TEST(Emitter, UnitInnerStrideViewsDropTheStrideUse) {
  std::unique_ptr<ir::Module> module = loadCorpus("pairwise_distance.dpkir");
  ASSERT_TRUE(module);
  std::string generic = emitOrFail(*module, openclOptions(2));
  EXPECT_GE(countOf(generic, "x_stride1"), 2u) << generic;
  compiler::CompileOptions options = openclOptions(2);
  options.unitInnerStrideViews = 1u; // %x only
  std::string specialized = emitOrFail(*module, options);
  EXPECT_EQ(countOf(specialized, "x_stride1"), 1u) << specialized; // the declaration
  EXPECT_TRUE(contains(specialized, "long x_stride1")) << specialized;
  EXPECT_GE(countOf(specialized, "x_stride0"), 2u) << specialized;
  EXPECT_GE(countOf(specialized, "dist_stride1"), 2u) << specialized;
  options.unitInnerStrideViews = 3u; // both views
  std::string both = emitOrFail(*module, options);
  EXPECT_EQ(countOf(both, "x_stride1"), 1u) << both;
  EXPECT_EQ(countOf(both, "dist_stride1"), 1u) << both;
}

} // namespace
} // namespace dpk::testing
