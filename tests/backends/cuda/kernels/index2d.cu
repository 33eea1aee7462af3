// index2d.cu - records what each work-item of a 2-D launch sees, to pin the dimension reversal:
// dpk dimension 0 (rows, slowest) is CUDA y, dpk dimension 1 (columns, fastest) is CUDA x.
extern "C" __global__ void index2d(int *ids, int *localLinear, long long rows, long long cols) {
  long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || col >= cols)
    return;
  ids[row * cols + col] = (int)(row * 1000 + col);
  // dpk's local linear id is row-major over (local row, local column).
  localLinear[row * cols + col] = (int)(threadIdx.y * blockDim.x + threadIdx.x);
}
