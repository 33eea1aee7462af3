; wrong_sig.ll - my_add with 64-bit operands: a signature mismatch for a declaration
; int32(int32, int32) (tests/compiler/LinkTest.cpp, test_link.py).
define i64 @my_add(i64 %a, i64 %b) {
  %s = add i64 %a, %b
  ret i64 %s
}
