// BuilderKernelsTest.cpp - kernels made with the IR Builder, emitted as OpenCL C, built and run
// on the OpenCL device: index mapping in 3-D, f16 storage, bool and f16 arguments, control
// flow, C integer and conversion semantics, device functions taking views, name clashes.
#include "EmitTestUtil.h"
#include "OpenCLSession.h"

#include "ir/Builder.h"

#include <cmath>

namespace dpk::testing {
namespace {

using ir::AddressSpace;
using ir::Builder;
using ir::OpKind;
using ir::ScalarKind;
using ir::Type;
using ir::Value;

#define REQUIRE_OPENCL(session)                                                                \
  OpenCLSession *session = OpenCLSession::get();                                               \
  if (!session)                                                                                \
  GTEST_SKIP() << OpenCLSession::skipReason()

const Type kI32 = Type::scalarTy(ScalarKind::I32);
const Type kI64 = Type::scalarTy(ScalarKind::I64);
const Type kU32 = Type::scalarTy(ScalarKind::U32);
const Type kF32 = Type::scalarTy(ScalarKind::F32);
const Type kBool = Type::scalarTy(ScalarKind::Bool);

Type globalPtr(ScalarKind kind) { return Type::pointerTy(AddressSpace::Global, kind); }

struct Program {
  cl_program handle = nullptr;
  ~Program() {
    if (handle)
      clReleaseProgram(handle);
  }
};

/// Verifies, emits and builds; fails the test with the source and log when anything fails.
void build(OpenCLSession &session, const ir::Module &module, Program &program,
           const compiler::CompileOptions &options = openclOptions()) {
  Error error = ir::verifyModule(module);
  ASSERT_FALSE(error) << error.message();
  std::string source = emitOrFail(module, options);
  ASSERT_FALSE(source.empty());
  if (const char *dump = std::getenv("DPK_OPENCL_C_TEST_DUMP"))
    std::ofstream(std::string(dump) + "/" + module.functions[0]->name + ".cl") << source;
  std::string log;
  program.handle = session.build(source, log);
  ASSERT_TRUE(program.handle) << log << "\n--- source ---\n" << source;
}

Value *named(Value *value, const char *name) {
  value->name = name;
  return value;
}

TEST(BuilderRun, VectorAdd) {
  REQUIRE_OPENCL(session);
  ir::Module module;
  Builder b(module);
  auto *k = b.createFunction("vadd", true, {globalPtr(ScalarKind::F32), globalPtr(ScalarKind::F32),
                                            globalPtr(ScalarKind::F32)},
                             {"a", "b", "c"}, Type::voidTy());
  Value *i = named(b.workItem(OpKind::GlobalId, 0), "i");
  Value *sum = b.binary(OpKind::Add, b.load(k->params[0], i), b.load(k->params[1], i));
  b.store(k->params[2], i, sum);
  b.ret();
  Program program;
  build(*session, module, program);
  ASSERT_TRUE(program.handle);
  const size_t n = 333;
  std::vector<float> a(n), bb(n);
  for (size_t j = 0; j < n; ++j) {
    a[j] = float(j);
    bb[j] = 2.5f * float(j);
  }
  DeviceBuffer da = session->upload(a), db = session->upload(bb),
               dc = session->upload(std::vector<float>(n));
  ASSERT_EQ(session->launch(program.handle, "vadd",
                            {KernelArg::buffer(da), KernelArg::buffer(db), KernelArg::buffer(dc)},
                            {n}),
            "");
  std::vector<float> c = session->download<float>(dc);
  for (size_t j = 0; j < n; ++j)
    ASSERT_EQ(c[j], a[j] + bb[j]);
}

// Every work-item writes its ids and sizes in every dpk dimension; the host checks them against
// the dpk index space, so a dimension left unreversed anywhere shows up.
void buildIndexKernel(ir::Module &module) {
  Builder b(module);
  auto *k = b.createFunction("ids3", true, {globalPtr(ScalarKind::I64)}, {"out"}, Type::voidTy());
  Value *gid[3], *gsize[3];
  for (unsigned d = 0; d < 3; ++d) {
    gid[d] = b.workItem(OpKind::GlobalId, d);
    gsize[d] = b.workItem(OpKind::GlobalSize, d);
  }
  // linear = (g0 * size1 + g1) * size2 + g2: row-major over dpk dimensions.
  Value *linear = b.binary(OpKind::Add,
                           b.binary(OpKind::Mul,
                                    b.binary(OpKind::Add, b.binary(OpKind::Mul, gid[0], gsize[1]),
                                             gid[1]),
                                    gsize[2]),
                           gid[2]);
  Value *slot = b.binary(OpKind::Mul, linear, b.constInt(ScalarKind::I64, 12));
  const OpKind kinds[4] = {OpKind::GlobalId, OpKind::LocalId, OpKind::GroupId, OpKind::LocalSize};
  for (unsigned q = 0; q < 4; ++q)
    for (unsigned d = 0; d < 3; ++d) {
      Value *index = b.binary(OpKind::Add, slot, b.constInt(ScalarKind::I64, q * 3 + d));
      b.store(k->params[0], index, b.workItem(kinds[q], d));
    }
  b.ret();
}

void checkIndexKernel(OpenCLSession &session, cl_program program) {
  const size_t global[3] = {4, 6, 8}, local[3] = {2, 3, 4};
  const size_t count = global[0] * global[1] * global[2];
  DeviceBuffer out = session.upload(std::vector<int64_t>(count * 12, -1));
  ASSERT_EQ(session.launch(program, "ids3", {KernelArg::buffer(out)},
                           {global[0], global[1], global[2]}, {local[0], local[1], local[2]}),
            "");
  std::vector<int64_t> got = session.download<int64_t>(out);
  for (size_t i = 0; i < global[0]; ++i)
    for (size_t j = 0; j < global[1]; ++j)
      for (size_t k = 0; k < global[2]; ++k) {
        size_t id[3] = {i, j, k};
        const int64_t *row = &got[((i * global[1] + j) * global[2] + k) * 12];
        for (unsigned d = 0; d < 3; ++d) {
          ASSERT_EQ(row[d], int64_t(id[d])) << "global id, dim " << d;
          ASSERT_EQ(row[3 + d], int64_t(id[d] % local[d])) << "local id, dim " << d;
          ASSERT_EQ(row[6 + d], int64_t(id[d] / local[d])) << "group id, dim " << d;
          ASSERT_EQ(row[9 + d], int64_t(local[d])) << "local size, dim " << d;
        }
      }
}

TEST(BuilderRun, ThreeDimensionalIndexMappingIsReversed) {
  REQUIRE_OPENCL(session);
  ir::Module module;
  buildIndexKernel(module);
  Program inferred, specialized;
  build(*session, module, inferred);
  build(*session, module, specialized, openclOptions(3, {2, 3, 4}));
  ASSERT_TRUE(inferred.handle && specialized.handle);
  checkIndexKernel(*session, inferred.handle);
  checkIndexKernel(*session, specialized.handle);
}

// f16 storage: out[i] = f16(f32(in[i]) * scale), bool flags and an f16 scalar argument.
TEST(BuilderRun, HalfStorageAndBoolArguments) {
  REQUIRE_OPENCL(session);
  ir::Module module;
  Builder b(module);
  auto *k = b.createFunction(
      "half_scale", true,
      {globalPtr(ScalarKind::F16), globalPtr(ScalarKind::F16), globalPtr(ScalarKind::Bool),
       Type::scalarTy(ScalarKind::F16), kBool, kF32},
      {"in", "out", "flags", "offset", "negate", "scale"}, Type::voidTy());
  Value *i = named(b.workItem(OpKind::GlobalId, 0), "i");
  Value *x = b.cast(b.load(k->params[0], i), kF32);
  Value *scaled = b.binary(OpKind::Mul, x, k->params[5]);
  Value *shifted = b.binary(OpKind::Add, scaled, b.cast(k->params[3], kF32));
  Value *negated = b.select(k->params[4], b.unary(OpKind::Neg, shifted), shifted);
  Value *half = named(b.cast(negated, Type::scalarTy(ScalarKind::F16)), "h");
  b.store(k->params[1], i, half);
  Value *big = b.cmp(ir::CmpPredicate::Gt, b.cast(half, kF32), b.constFloat(ScalarKind::F32, 10.0));
  b.store(k->params[2], i, big);
  b.ret();
  Program program;
  build(*session, module, program);
  ASSERT_TRUE(program.handle);

  const size_t n = 256;
  std::vector<_Float16> in(n);
  for (size_t j = 0; j < n; ++j)
    in[j] = _Float16(float(j) * 0.37f - 20.0f);
  _Float16 offset = _Float16(0.1f);
  float scale = 1.3f;
  for (bool negate : {false, true}) {
    DeviceBuffer din = session->upload(in), dout = session->upload(std::vector<_Float16>(n)),
                 dflags = session->upload(std::vector<uint8_t>(n, 7));
    ASSERT_EQ(session->launch(program.handle, "half_scale",
                              {KernelArg::buffer(din), KernelArg::buffer(dout),
                               KernelArg::buffer(dflags), KernelArg::scalar(offset),
                               KernelArg::scalar(uint8_t(negate)), KernelArg::scalar(scale)},
                              {n}),
              "");
    std::vector<_Float16> out = session->download<_Float16>(dout);
    std::vector<uint8_t> flags = session->download<uint8_t>(dflags);
    for (size_t j = 0; j < n; ++j) {
      float v = float(in[j]) * scale + float(offset);
      if (negate)
        v = -v;
      _Float16 expected = _Float16(v); // round to nearest even
      ASSERT_EQ(float(out[j]), float(expected)) << "at " << j << " negate " << negate;
      ASSERT_EQ(flags[j], float(expected) > 10.0f ? 1 : 0) << "at " << j;
    }
  }
}

// Loops: a while loop with continue and break, a signed for loop counting down with a constant
// negative step, one whose step sign is only known at run time, and an unsigned loop.
TEST(BuilderRun, LoopsAndBranches) {
  REQUIRE_OPENCL(session);
  ir::Module module;
  Builder b(module);
  auto *k = b.createFunction("loops", true, {globalPtr(ScalarKind::I64), kI64}, {"out", "step"},
                             Type::voidTy());
  Value *i = named(b.workItem(OpKind::GlobalId, 0), "i");
  Value *zero = b.constInt(ScalarKind::I64, 0), *one = b.constInt(ScalarKind::I64, 1);
  Value *acc = b.privateAlloc(ScalarKind::I64, 2);
  b.store(acc, zero, zero);
  b.store(acc, one, zero);
  // while (true) { n = acc[1]; acc[1] = n + 1; if n == i + 5 break; if n odd continue; acc[0] += n }
  ir::Op *loop = b.createWhile();
  b.setInsertionPoint(Builder::whileCond(loop));
  b.condition(b.constBool(true));
  b.setInsertionPoint(Builder::whileBody(loop));
  Value *n = b.load(acc, one);
  b.store(acc, one, b.binary(OpKind::Add, n, one));
  ir::Op *stop = b.createIf(b.cmp(ir::CmpPredicate::Eq, n, b.binary(OpKind::Add, i, b.constInt(ScalarKind::I64, 5))));
  b.setInsertionPoint(Builder::thenBlock(stop));
  b.breakOp();
  b.setInsertionPoint(Builder::whileBody(loop));
  ir::Op *odd = b.createIf(b.cmp(ir::CmpPredicate::Ne, b.binary(OpKind::Rem, n, b.constInt(ScalarKind::I64, 2)), zero));
  b.setInsertionPoint(Builder::thenBlock(odd));
  b.continueOp();
  b.setInsertionPoint(Builder::whileBody(loop));
  b.store(acc, zero, b.binary(OpKind::Add, b.load(acc, zero), n));
  b.setInsertionPoint(&k->body);
  Value *slot = b.binary(OpKind::Mul, i, b.constInt(ScalarKind::I64, 4));
  b.store(k->params[0], slot, b.load(acc, zero));
  // Count down from i to -3 (exclusive) by -2: sum of visited values.
  b.store(acc, zero, zero);
  ir::Op *down = b.createFor(i, b.constInt(ScalarKind::I64, -3), b.constInt(ScalarKind::I64, -2), "j");
  b.setInsertionPoint(Builder::forBody(down));
  b.store(acc, zero, b.binary(OpKind::Add, b.load(acc, zero), Builder::forInductionVar(down)));
  b.setInsertionPoint(&k->body);
  b.store(k->params[0], b.binary(OpKind::Add, slot, one), b.load(acc, zero));
  // Runtime step: from 0 to 10 by `step` (positive) or from 10 to 0 (negative): count trips.
  b.store(acc, zero, zero);
  Value *positive = b.cmp(ir::CmpPredicate::Gt, k->params[1], zero);
  Value *lo = b.select(positive, zero, b.constInt(ScalarKind::I64, 10));
  Value *hi = b.select(positive, b.constInt(ScalarKind::I64, 10), zero);
  ir::Op *dynamic = b.createFor(lo, hi, k->params[1], "t");
  b.setInsertionPoint(Builder::forBody(dynamic));
  b.store(acc, zero, b.binary(OpKind::Add, b.load(acc, zero), one));
  b.setInsertionPoint(&k->body);
  b.store(k->params[0], b.binary(OpKind::Add, slot, b.constInt(ScalarKind::I64, 2)), b.load(acc, zero));
  // Unsigned loop: u from 0u to 7u step 3u -> 3 trips.
  Value *count = b.privateAlloc(ScalarKind::U32, 1);
  b.store(count, zero, b.constInt(ScalarKind::U32, 0));
  ir::Op *unsignedLoop = b.createFor(b.constInt(ScalarKind::U32, 0), b.constInt(ScalarKind::U32, 7), b.constInt(ScalarKind::U32, 3), "u");
  b.setInsertionPoint(Builder::forBody(unsignedLoop));
  b.store(count, zero, b.binary(OpKind::Add, b.load(count, zero), b.constInt(ScalarKind::U32, 1)));
  b.setInsertionPoint(&k->body);
  b.store(k->params[0], b.binary(OpKind::Add, slot, b.constInt(ScalarKind::I64, 3)), b.cast(b.load(count, zero), kI64));
  b.ret();

  Program program;
  build(*session, module, program);
  ASSERT_TRUE(program.handle);
  const size_t items = 16;
  for (int64_t step : {3, -4}) {
    DeviceBuffer out = session->upload(std::vector<int64_t>(items * 4, -99));
    ASSERT_EQ(session->launch(program.handle, "loops", {KernelArg::buffer(out), KernelArg::scalar(step)}, {items}), "");
    std::vector<int64_t> got = session->download<int64_t>(out);
    for (int64_t w = 0; w < int64_t(items); ++w) {
      int64_t evens = 0;
      for (int64_t v = 0; v < w + 5; ++v)
        if (v % 2 == 0)
          evens += v;
      int64_t down = 0;
      for (int64_t v = w; v > -3; v -= 2)
        down += v;
      int64_t trips = 0;
      if (step > 0)
        for (int64_t v = 0; v < 10; v += step) ++trips;
      else
        for (int64_t v = 10; v > 0; v += step) ++trips;
      ASSERT_EQ(got[w * 4], evens) << "while loop, item " << w;
      ASSERT_EQ(got[w * 4 + 1], down) << "counting down, item " << w;
      ASSERT_EQ(got[w * 4 + 2], trips) << "runtime step " << step;
      ASSERT_EQ(got[w * 4 + 3], 3) << "unsigned loop";
    }
  }
}

// An alloca inside a loop body is one array for all iterations (as in the LLVM lowering, which
// puts allocas in the entry block): the emitter hoists it out of the loop.
TEST(BuilderRun, AllocaInLoopKeepsItsValueAcrossIterations) {
  REQUIRE_OPENCL(session);
  ir::Module module;
  Builder b(module);
  auto *k = b.createFunction("persist", true, {globalPtr(ScalarKind::I32)}, {"out"}, Type::voidTy());
  Value *i = b.workItem(OpKind::GlobalId, 0);
  Value *zero = b.constInt(ScalarKind::I64, 0);
  ir::Op *loop = b.createFor(zero, b.constInt(ScalarKind::I64, 4), b.constInt(ScalarKind::I64, 1), "t");
  b.setInsertionPoint(Builder::forBody(loop));
  Value *cell = named(b.privateAlloc(ScalarKind::I32, 1), "cell");
  ir::Op *first = b.createIf(b.cmp(ir::CmpPredicate::Eq, Builder::forInductionVar(loop), zero));
  b.setInsertionPoint(Builder::thenBlock(first));
  b.store(cell, zero, b.constInt(ScalarKind::I32, 1));
  b.setInsertionPoint(Builder::elseBlock(first));
  b.store(cell, zero, b.binary(OpKind::Mul, b.load(cell, zero), b.constInt(ScalarKind::I32, 3)));
  b.setInsertionPoint(Builder::forBody(loop));
  b.store(k->params[0], i, b.load(cell, zero));
  b.setInsertionPoint(&k->body);
  b.ret();
  Program program;
  build(*session, module, program);
  ASSERT_TRUE(program.handle);
  DeviceBuffer out = session->upload(std::vector<int32_t>(8));
  ASSERT_EQ(session->launch(program.handle, "persist", {KernelArg::buffer(out)}, {8}), "");
  EXPECT_EQ(session->download<int32_t>(out), std::vector<int32_t>(8, 27));
}

// C semantics: truncating division and remainder, arithmetic and logical shifts, conversions
// (float -> int truncates toward zero), bool conversions, integer abs, narrow wrap-around.
TEST(BuilderRun, IntegerAndConversionSemantics) {
  REQUIRE_OPENCL(session);
  ir::Module module;
  Builder b(module);
  auto *k = b.createFunction("semantics", true, {globalPtr(ScalarKind::I32), globalPtr(ScalarKind::F32), globalPtr(ScalarKind::I32)},
                             {"ints", "floats", "out"}, Type::voidTy());
  Value *i = b.workItem(OpKind::GlobalId, 0);
  Value *x = b.load(k->params[0], i);
  Value *f = b.load(k->params[1], i);
  Value *seven = b.constInt(ScalarKind::I32, 7);
  Value *two = b.constInt(ScalarKind::I32, 2);
  std::vector<Value *> results = {
      b.binary(OpKind::Div, x, seven),
      b.binary(OpKind::Rem, x, seven),
      b.binary(OpKind::Shr, x, two),
      b.cast(b.binary(OpKind::Shr, b.cast(x, kU32), b.constInt(ScalarKind::U32, 2)), kI32),
      b.cast(f, kI32),
      b.cast(b.cast(x, kBool), kI32),
      b.cast(b.cast(f, kBool), kI32),
      b.math(ir::MathFn::Abs, {x}),
      b.cast(b.binary(OpKind::Add, b.cast(x, Type::scalarTy(ScalarKind::I8)), b.constInt(ScalarKind::I8, 100)), kI32),
      b.cast(b.unary(OpKind::Not, b.cast(x, Type::scalarTy(ScalarKind::U8))), kI32),
      b.math(ir::MathFn::Min, {x, seven}),
      b.cast(b.cast(b.cast(f, Type::scalarTy(ScalarKind::F64)), Type::scalarTy(ScalarKind::I64)), kI32),
  };
  Value *base = b.binary(OpKind::Mul, i, b.constInt(ScalarKind::I64, int64_t(results.size())));
  for (size_t r = 0; r < results.size(); ++r)
    b.store(k->params[2], b.binary(OpKind::Add, base, b.constInt(ScalarKind::I64, int64_t(r))), results[r]);
  b.ret();

  Program program;
  build(*session, module, program);
  ASSERT_TRUE(program.handle);
  std::vector<int32_t> ints = {-17, 17, -1, 0, 1, 1000, -1000, 2147483647, -2147483647 - 1, 200, -200, 6};
  std::vector<float> floats = {-2.7f, 2.7f, -0.5f, 0.0f, 0.99f, 1e6f, -1e6f, 3.5f, -3.5f, 100.25f, -100.75f, 1.0f};
  const size_t n = ints.size(), width = results.size();
  DeviceBuffer di = session->upload(ints), df = session->upload(floats),
               dout = session->upload(std::vector<int32_t>(n * width));
  ASSERT_EQ(session->launch(program.handle, "semantics", {KernelArg::buffer(di), KernelArg::buffer(df), KernelArg::buffer(dout)}, {n}), "");
  std::vector<int32_t> out = session->download<int32_t>(dout);
  for (size_t j = 0; j < n; ++j) {
    int32_t v = ints[j];
    float fv = floats[j];
    int32_t expected[] = {
        v / 7,
        v % 7,
        v >> 2,
        int32_t(uint32_t(v) >> 2),
        int32_t(fv),
        v != 0,
        fv != 0.0f,
        v == INT32_MIN ? INT32_MIN : std::abs(v),
        int32_t(int8_t(int8_t(v) + int8_t(100))),
        int32_t(uint8_t(~uint8_t(v))),
        std::min(v, 7),
        int32_t(int64_t(double(fv))),
    };
    for (size_t r = 0; r < width; ++r)
      EXPECT_EQ(out[j * width + r], expected[r]) << "result " << r << " for " << v << " / " << fv;
  }
}

// A device function taking a view, a private pointer and a name that clashes with an OpenCL
// built-in (`distance`), called from a kernel defined before it; value names that clash with
// built-ins (`sin`) and keywords (`int`).
TEST(BuilderRun, DeviceFunctionsWithViewsAndClashingNames) {
  REQUIRE_OPENCL(session);
  ir::Module module;
  Builder b(module);
  Type view2 = Type::viewTy(AddressSpace::Global, ScalarKind::F32, 2);
  Type privateF32 = Type::pointerTy(AddressSpace::Private, ScalarKind::F32);
  auto *k = b.createFunction("rows", true, {view2, globalPtr(ScalarKind::F32)}, {"m", "out"}, Type::voidTy());
  Value *i = named(b.workItem(OpKind::GlobalId, 0), "int");
  Value *scratch = named(b.privateAlloc(ScalarKind::F32, 1), "sin");
  b.call("distance", {k->params[0], i, scratch}, Type::voidTy());
  Value *r = named(b.load(scratch, b.constInt(ScalarKind::I64, 0)), "kernel");
  b.store(k->params[1], i, r);
  b.ret();
  // distance(m, row, result): result[0] = sqrt(sum_k m[row, k]^2) via a helper `square`.
  auto *fn = b.createFunction("distance", false, {view2, kI64, privateF32}, {"m", "row", "result"}, Type::voidTy());
  Value *zero = b.constInt(ScalarKind::I64, 0);
  Value *acc = b.privateAlloc(ScalarKind::F32, 1);
  b.store(acc, zero, b.constFloat(ScalarKind::F32, 0.0));
  ir::Op *loop = b.createFor(zero, b.viewDim(fn->params[0], 1), b.constInt(ScalarKind::I64, 1), "k");
  b.setInsertionPoint(Builder::forBody(loop));
  Value *e = b.viewLoad(fn->params[0], {fn->params[1], Builder::forInductionVar(loop)});
  b.store(acc, zero, b.binary(OpKind::Add, b.load(acc, zero), b.call("square", {e}, kF32)));
  b.setInsertionPoint(&fn->body);
  b.store(fn->params[2], zero, b.math(ir::MathFn::Sqrt, {b.load(acc, zero)}));
  b.ret();
  auto *square = b.createFunction("square", false, {kF32}, {"x"}, kF32);
  b.ret(b.binary(OpKind::Mul, square->params[0], square->params[0]));

  Program program;
  build(*session, module, program);
  ASSERT_TRUE(program.handle);
  const int64_t rows = 10, cols = 3;
  std::vector<float> m(rows * cols);
  for (int64_t j = 0; j < rows * cols; ++j)
    m[j] = float(j % 7) - 3.0f;
  DeviceBuffer dm = session->upload(m), dout = session->upload(std::vector<float>(rows));
  ASSERT_EQ(session->launch(program.handle, "rows",
                            {KernelArg::buffer(dm), KernelArg::scalar(rows), KernelArg::scalar(cols),
                             KernelArg::scalar(cols), KernelArg::scalar<int64_t>(1), KernelArg::buffer(dout)},
                            {size_t(rows)}),
            "");
  std::vector<float> out = session->download<float>(dout);
  for (int64_t row = 0; row < rows; ++row) {
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c)
      sum += m[row * cols + c] * m[row * cols + c];
    EXPECT_FLOAT_EQ(out[row], std::sqrt(sum)) << "row " << row;
  }
}

} // namespace
} // namespace dpk::testing
