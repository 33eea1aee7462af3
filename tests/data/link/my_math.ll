; my_math.ll - device functions for the link tests (tests/compiler/LinkTest.cpp,
; frontends/python/tests/test_link.py). No target triple or data layout, so the same file
; serves the host, SPIR-V and PTX targets; the tests make my_math.bc from it with llvm-as-15.
;   my_add(a, b)   = a + b                       (i32)
;   my_fma3(x, y)  = 3 * x + y                   (float)
;   my_scale(x)    = x * 0.5 + helper_bias(x)    (double; calls a helper defined here)

define i32 @my_add(i32 %a, i32 %b) {
  %s = add i32 %a, %b
  ret i32 %s
}

define float @my_fma3(float %x, float %y) {
  %t = fmul float %x, 3.0
  %r = fadd float %t, %y
  ret float %r
}

define internal double @helper_bias(double %x) {
  %b = fmul double %x, 0.0
  %c = fadd double %b, 1.0
  ret double %c
}

define double @my_scale(double %x) {
  %h = fmul double %x, 0.5
  %b = call double @helper_bias(double %x)
  %r = fadd double %h, %b
  ret double %r
}
