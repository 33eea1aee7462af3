// vadd.cu - c = a + b over a 1-D dpk Range; dpk dimension 0 is CUDA x.
// Parameters follow dpk's PTX kernel ABI: pointers as .u64, scalars by value.
extern "C" __global__ void vadd(const float *a, const float *b, float *c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
