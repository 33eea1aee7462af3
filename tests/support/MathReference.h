// MathReference.h - the C++ reference for tests/ir/corpus/math_all.dpkir: f_k in the order its
// header lists them, shared by every test that runs that kernel.
#ifndef DPK_TESTS_SUPPORT_MATHREFERENCE_H
#define DPK_TESTS_SUPPORT_MATHREFERENCE_H

#include <cmath>

namespace dpk::test {

/// f_k(x, y, e) as math_all.dpkir's header orders them (e is ldexp's exponent).
template <typename T> T mathReference(int k, T x, T y, int e) {
  switch (k) {
  case 0: return std::fabs(x);
  case 1: return std::exp(x);
  case 2: return std::expm1(x);
  case 3: return std::exp2(x);
  case 4: return std::log(x);
  case 5: return std::log10(x);
  case 6: return std::log1p(x);
  case 7: return std::log2(x);
  case 8: return std::sqrt(x);
  case 9: return std::sin(x);
  case 10: return std::cos(x);
  case 11: return std::tan(x);
  case 12: return std::asin(x);
  case 13: return std::acos(x);
  case 14: return std::atan(x);
  case 15: return std::atan2(x, y);
  case 16: return std::sinh(x);
  case 17: return std::cosh(x);
  case 18: return std::tanh(x);
  case 19: return std::asinh(x);
  case 20: return std::acosh(x);
  case 21: return std::atanh(x);
  case 22: return std::floor(x);
  case 23: return std::ceil(x);
  case 24: return std::trunc(x);
  case 25: return std::copysign(x, y);
  case 26: return std::pow(x, y);
  case 27: return std::fmod(x, y);
  case 28: return std::erf(x);
  case 29: return std::erfc(x);
  case 30: return std::tgamma(x);
  case 31: return std::lgamma(x);
  case 32: return std::ldexp(x, e);
  case 33: return std::hypot(x, y);
  case 34: return std::isnan(x) ? T(1) : T(0);
  case 35: return std::isinf(x) ? T(1) : T(0);
  case 36: return std::fmin(x, y);
  case 37: return std::fmax(x, y);
  case 38: return std::fabs(x);
  }
  return T(0);
}

} // namespace dpk::test

#endif // DPK_TESTS_SUPPORT_MATHREFERENCE_H
