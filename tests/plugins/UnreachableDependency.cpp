// UnreachableDependency.cpp - a library the missing-dependency plugin links but cannot find.
extern "C" __attribute__((visibility("default"))) int dpk_test_unreachable_value() { return 7; }
