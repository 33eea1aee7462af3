// LaunchDimensionsTest.cpp - launch dimensions used by kernels, through calls.
#include "ir/LaunchDimensions.h"
#include "ir/Parser.h"

#include <gtest/gtest.h>

namespace dpk::ir {
namespace {

TEST(LaunchDimensions, PerKernelAndModule) {
  auto module = parseModule("func @row() -> i64 {\n"
                            "  %r = group_id 1 : i64\n"
                            "  return %r\n"
                            "}\n"
                            "func @via() -> i64 {\n"
                            "  %r = call @row() : i64\n"
                            "  return %r\n"
                            "}\n"
                            "func @plane() -> i64 {\n" // called by no kernel
                            "  %p = local_size 2 : i64\n"
                            "  return %p\n"
                            "}\n"
                            "kernel @none(%out: ptr<global, i64>) {\n"
                            "  return\n"
                            "}\n"
                            "kernel @flat(%out: ptr<global, i64>) {\n"
                            "  %i = global_id 0 : i64\n"
                            "  store %out[%i], %i\n"
                            "  return\n"
                            "}\n"
                            "kernel @nested(%out: ptr<global, i64>, %n: i64) {\n"
                            "  %zero = const 0 : i64\n"
                            "  %one = const 1 : i64\n"
                            "  for %k = %zero to %n step %one {\n"
                            "    %r = call @via() : i64\n"
                            "    store %out[%k], %r\n"
                            "  }\n"
                            "  return\n"
                            "}\n");
  ASSERT_TRUE(module) << module.error().message();
  const Module &m = **module;
  EXPECT_EQ(dimensionsUsed(*m.lookup("none"), m), 0u);
  EXPECT_EQ(dimensionsUsed(*m.lookup("flat"), m), 1u);
  EXPECT_EQ(dimensionsUsed(*m.lookup("nested"), m), 2u); // group_id 1 two calls down
  EXPECT_EQ(dimensionsUsed(*m.lookup("plane"), m), 3u);
  // The module: the largest over its kernels; @plane is no kernel and no kernel calls it.
  EXPECT_EQ(dimensionsUsed(m), 2u);
}

TEST(LaunchDimensions, NoKernelUsesAny) {
  auto module = parseModule("kernel @k(%x: i64) {\n"
                            "  return\n"
                            "}\n");
  ASSERT_TRUE(module) << module.error().message();
  EXPECT_EQ(dimensionsUsed(**module), 0u);
}

} // namespace
} // namespace dpk::ir
