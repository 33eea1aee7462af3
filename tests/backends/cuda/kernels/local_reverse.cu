// local_reverse.cu - two dpk LOCAL arguments in dynamic shared memory and a barrier.
// dpk's PTX ABI passes each LOCAL argument as a u64 byte offset into the kernel's dynamic shared
// memory; the plugin lays them out in argument order at 16-byte aligned offsets.
extern "C" __global__ void local_reverse(const float *in, float *out,
                                         unsigned long long scratchOffset,
                                         unsigned long long tileOffset) {
  extern __shared__ __align__(16) unsigned char dpk_local[];
  int *scratch = (int *)(dpk_local + scratchOffset); // 5 ints used
  float *tile = (float *)(dpk_local + tileOffset);   // one float per work-item
  unsigned lid = threadIdx.x;
  unsigned gid = blockIdx.x * blockDim.x + lid;
  tile[lid] = in[gid];
  if (lid < 5)
    scratch[lid] = (int)lid * 7;
  __syncthreads();
  out[gid] = tile[blockDim.x - 1 - lid] + (float)scratch[lid % 5];
}
