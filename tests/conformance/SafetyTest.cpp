// SafetyTest.cpp - defined results where kernels used to crash (issue 15, items F and K), on
// every device: integer division by zero and MIN / -1 are total (Ops.def), and a program in
// bounds-check mode turns an out-of-bounds access into DPK_ERROR_OUT_OF_BOUNDS naming the kernel,
// file:line, array, index and shape, with the access skipped.
#include "BoundsCheckKernels.h"
#include "Conformance.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace dpk::conformance {
namespace {

template <typename T> std::string divisionKernel(const char *type) {
  std::string t = type;
  return "kernel @divide(%a: ptr<global, " + t + ">, %b: ptr<global, " + t +
         ">, %q: ptr<global, " + t + ">, %r: ptr<global, " + t + R"(>) {
  %i = global_id 0 : i64
  %x = load %a[%i] : )" + t + R"(
  %y = load %b[%i] : )" + t + R"(
  %s = div %x, %y : )" + t + R"(
  %m = rem %x, %y : )" + t + R"(
  store %q[%i], %s
  store %r[%i], %m
  return
}
)";
}

template <typename T> void checkDivision(Conformance &t, const char *type) {
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const T minusOne = std::is_signed_v<T> ? T(-1) : T(1);
  std::vector<T> a = {T(7), lo, lo, hi, T(0), T(5), lo, T(9), hi, T(100)};
  std::vector<T> b = {T(0), minusOne, T(0), T(0), T(0), T(3), T(2), minusOne, minusOne, T(7)};
  dpk_kernel_t kernel = t.irKernel(divisionKernel<T>(type), "divide", std::string("div_") + type);
  ASSERT_NE(kernel, nullptr);
  void *da = t.upload(a), *db = t.upload(b);
  void *dq = t.alloc(a.size() * sizeof(T)), *dr = t.alloc(a.size() * sizeof(T));
  dpk_status_t status = t.launch(kernel, t.range1(a.size()),
                                 {t.pointer(da), t.pointer(db), t.pointer(dq), t.pointer(dr)});
  ASSERT_EQ(status, DPK_SUCCESS) << type << ": " << lastError(status);
  std::vector<T> q = t.download<T>(dq, a.size()), r = t.download<T>(dr, a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    T expectQ = 0, expectR = 0;
    if (b[i] != 0 && std::is_signed_v<T> && a[i] == lo && b[i] == minusOne) {
      expectQ = lo; // wraps, as NumPy
    } else if (b[i] != 0) {
      expectQ = T(a[i] / b[i]);
      expectR = T(a[i] % b[i]);
    }
    EXPECT_EQ(+q[i], +expectQ) << type << ": " << +a[i] << " div " << +b[i];
    EXPECT_EQ(+r[i], +expectR) << type << ": " << +a[i] << " rem " << +b[i];
  }
}

// Before: SIGFPE on the host (the process died), garbage on OpenCL.
CONFORMANCE_TEST(IntegerDivisionIsTotal) {
  checkDivision<int8_t>(t, "i8");
  checkDivision<int16_t>(t, "i16");
  checkDivision<int32_t>(t, "i32");
  checkDivision<int64_t>(t, "i64");
  checkDivision<uint8_t>(t, "u8");
  checkDivision<uint16_t>(t, "u16");
  checkDivision<uint32_t>(t, "u32");
  checkDivision<uint64_t>(t, "u64");
}

using dpk::test::ShiftKernel;

dpk_kernel_t checkedKernel(const char *text, const char *name, dpk_boundscheck_t mode,
                           dpk_program_t &program) {
  dpk_program_options_t options{};
  options.struct_size = sizeof(options);
  options.boundscheck = mode;
  dpk_status_t status = dpk_program_create_from_ir_with_options(
      &program, text, std::strlen(text), "shift.dpkir", &options);
  EXPECT_EQ(status, DPK_SUCCESS) << lastError(status);
  if (status != DPK_SUCCESS)
    return nullptr;
  dpk_kernel_t kernel = nullptr;
  status = dpk_kernel_get(&kernel, program, name);
  EXPECT_EQ(status, DPK_SUCCESS) << lastError(status);
  return kernel;
}

dpk_view_arg_t view1(void *data, int64_t n) {
  dpk_view_arg_t v{};
  v.data = data;
  v.ndim = 1;
  v.shape[0] = n;
  v.strides[0] = 1;
  return v;
}

CONFORMANCE_TEST(BoundsCheckNamesTheAccess) {
  constexpr int64_t N = 64;
  dpk_program_t program = nullptr;
  dpk_kernel_t kernel = checkedKernel(ShiftKernel, "shift", DPK_BOUNDSCHECK_ON, program);
  ASSERT_NE(kernel, nullptr);
  std::vector<float> a(N + 1), b(N + 1, 7.0f);
  for (int64_t i = 0; i < N; ++i)
    a[i] = float(i);
  a[N] = -42.0f; // just past a's view: a store there must be skipped
  void *da = t.upload(a), *db = t.upload(b), *dout = t.alloc(N * sizeof(float));
  dpk_view_arg_t va = view1(da, N), vb = view1(db, N), vout = view1(dout, N);
  dpk_status_t status =
      t.launch(kernel, t.range1(N), {t.view(va), t.view(vb), t.view(vout)});
  EXPECT_EQ(status, DPK_ERROR_OUT_OF_BOUNDS) << lastError(status);
  std::string message = dpk_last_error();
  EXPECT_NE(message.find("kernel 'shift'"), std::string::npos) << message;
  EXPECT_NE(message.find("index 64 is out of bounds for axis 0"), std::string::npos) << message;
  EXPECT_NE(message.find("with shape (64,)"), std::string::npos) << message;
  // Either access may fail first on a parallel device; both name the source line and array.
  bool store = message.find("(shift.py:10)") != std::string::npos &&
               message.find("array 'a'") != std::string::npos;
  bool load = message.find("in device function 'get' (shift.py:4)") != std::string::npos &&
              message.find("array 'v'") != std::string::npos;
  EXPECT_TRUE(store || load) << message;
  EXPECT_EQ(t.download<float>(da, N + 1)[N], -42.0f) << "a store past the end was not skipped";
  EXPECT_EQ(t.download<float>(dout, N)[N - 1], 0.0f) << "a load past the end must yield 0";

  // The queue and the kernel stay usable: an in-bounds launch succeeds.
  dpk_view_arg_t wide = view1(da, N + 1), wideB = view1(db, N + 1);
  status = t.launch(kernel, t.range1(N), {t.view(wide), t.view(wideB), t.view(vout)});
  EXPECT_EQ(status, DPK_SUCCESS) << lastError(status);
  EXPECT_EQ(t.download<float>(dout, N)[N - 1], 7.0f);
  dpk_kernel_release(kernel);
  dpk_program_release(program);
}

CONFORMANCE_TEST(BoundsCheckOffTakesNoStatusArgument) {
  constexpr int64_t N = 16;
  dpk_program_t program = nullptr;
  dpk_kernel_t kernel = checkedKernel(ShiftKernel, "shift", DPK_BOUNDSCHECK_OFF, program);
  ASSERT_NE(kernel, nullptr);
  std::vector<float> a(N + 1, 1.0f), b(N + 1, 2.0f);
  void *da = t.upload(a), *db = t.upload(b), *dout = t.alloc(N * sizeof(float));
  dpk_view_arg_t va = view1(da, N + 1), vb = view1(db, N + 1), vout = view1(dout, N);
  dpk_status_t status = t.launch(kernel, t.range1(N), {t.view(va), t.view(vb), t.view(vout)});
  EXPECT_EQ(status, DPK_SUCCESS) << lastError(status);
  EXPECT_EQ(t.download<float>(dout, N)[0], 2.0f);
  dpk_kernel_release(kernel);
  dpk_program_release(program);
}

CONFORMANCE_TEST(BoundsCheckLocalArrays) {
  // A local array of 4 elements indexed with the local id of a work-group of 8.
  const char *text = R"(
kernel @tile(%out: ptr<global, i32>) {
  %t = local_alloc 4 : ptr<local, i32>
  %l = local_id 0 : i64
  %g = global_id 0 : i64
  %v = cast %g : i32
  store %t[%l], %v
  barrier work_group
  %zero = const 0 : i64
  %w = load %t[%zero] : i32
  store %out[%g], %w
  return
}
)";
  dpk_program_t program = nullptr;
  dpk_kernel_t kernel = checkedKernel(text, "tile", DPK_BOUNDSCHECK_ON, program);
  ASSERT_NE(kernel, nullptr);
  void *dout = t.alloc(8 * sizeof(int32_t));
  dpk_status_t status = t.launch(kernel, t.ndRange1(8, 8), {t.pointer(dout)});
  EXPECT_EQ(status, DPK_ERROR_OUT_OF_BOUNDS) << lastError(status);
  std::string message = dpk_last_error();
  EXPECT_NE(message.find("is out of bounds for local array 't' of 4 elements"), std::string::npos)
      << message;
  EXPECT_NE(message.find("shift.dpkir:7"), std::string::npos) << message;
  dpk_kernel_release(kernel);
  dpk_program_release(program);
}

TEST(ProgramOptions, AreChecked) {
  dpk_program_t program = nullptr;
  dpk_program_options_t options{};
  options.struct_size = 1;
  EXPECT_EQ(dpk_program_create_from_ir_with_options(&program, ShiftKernel, std::strlen(ShiftKernel),
                                                    "shift", &options),
            DPK_ERROR_INVALID_ARGUMENT);
  options.struct_size = sizeof(options);
  options.boundscheck = static_cast<dpk_boundscheck_t>(7);
  EXPECT_EQ(dpk_program_create_from_ir_with_options(&program, ShiftKernel, std::strlen(ShiftKernel),
                                                    "shift", &options),
            DPK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(program, nullptr);
  EXPECT_EQ(dpk_program_create_from_ir_with_options(&program, ShiftKernel, std::strlen(ShiftKernel),
                                                    "shift", nullptr),
            DPK_SUCCESS);
  dpk_program_release(program);
}

} // namespace
} // namespace dpk::conformance
