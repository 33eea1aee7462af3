// trap.cu - a kernel that faults, to check that the asynchronous error is reported at the wait
// with the device, the kernel and the cause.
extern "C" __global__ void trap_kernel(int *flag) {
  if (threadIdx.x == 0)
    flag[0] = 1;
  asm volatile("trap;");
}
