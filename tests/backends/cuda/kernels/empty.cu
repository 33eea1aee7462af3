// empty.cu - a kernel that does nothing, for launch-overhead measurements.
extern "C" __global__ void empty_kernel() {}
