; array_host.ll - twice_at(p, i): p[i] *= 2 on a float array, for the host (opaque pointers in
; address space 0); array.cl is the OpenCL C version. test_link.py.
define void @twice_at(ptr %p, i64 %i) {
  %a = getelementptr float, ptr %p, i64 %i
  %v = load float, ptr %a
  %w = fmul float %v, 2.0
  store float %w, ptr %a
  ret void
}
