// my_math.cu - CUDA C definitions of my_math.ll's functions, compiled at run time with NVRTC
// when libnvrtc is present (CUDA devices only). extern "C" keeps the symbol names unmangled.
extern "C" __device__ int my_add(int a, int b) { return a + b; }

extern "C" __device__ float my_fma3(float x, float y) { return x * 3.0f + y; }

__device__ static double helper_bias(double x) { return x * 0.0 + 1.0; }

extern "C" __device__ double my_scale(double x) { return x * 0.5 + helper_bias(x); }
