// BoundsCheckKernels.h - the IR of issue 15's out-of-bounds reproducer, shared by the compiler's
// bounds-check tests (tests/compiler/BoundsCheckTest.cpp) and the conformance suite's
// (tests/conformance/SafetyTest.cpp).
#ifndef DPK_TESTS_SUPPORT_BOUNDSCHECKKERNELS_H
#define DPK_TESTS_SUPPORT_BOUNDSCHECKKERNELS_H

namespace dpk::test {

// a[i + 1] = a[i] over the whole range (the write past the end), then out[i] = b[i + 1] through
// a device function (the read past the end); loc() stands for the Python frontend's locations.
inline constexpr const char *ShiftKernel = R"(
func @get(%v: view<global, f32, 1>, %j: i64) -> f32 loc("shift.py":3:1) {
  %x = view_load %v[%j] : f32 loc("shift.py":4:5)
  return %x
}
kernel @shift(%a: view<global, f32, 1>, %b: view<global, f32, 1>, %out: view<global, f32, 1>) loc("shift.py":7:1) {
  %i = global_id 0 : i64
  %one = const 1 : i64
  %j = add %i, %one : i64
  %x = view_load %a[%i] : f32 loc("shift.py":10:5)
  view_store %a[%j], %x loc("shift.py":10:5)
  %y = call @get(%b, %j) : f32 loc("shift.py":11:5)
  view_store %out[%i], %y loc("shift.py":11:5)
  return
}
)";

} // namespace dpk::test

#endif // DPK_TESTS_SUPPORT_BOUNDSCHECKKERNELS_H
