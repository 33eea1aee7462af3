// Registry.cpp - the list of workloads and where their kernels live.
#include "../Problem.h"

namespace dpk::bench {

std::unique_ptr<Problem> makeTriad(int);
std::unique_ptr<Problem> makeVectorAdd(int);
std::unique_ptr<Problem> makePairwiseDistance(int);
std::unique_ptr<Problem> makeBlackScholes(int);
std::unique_ptr<Problem> makeKMeansAssign(int);
std::unique_ptr<Problem> makeNBody(int);
std::unique_ptr<Problem> makeTiledMatmul(int);
std::unique_ptr<Problem> makeWorkGroupReduction(int);
std::unique_ptr<Problem> makeAtomicSum(int);
std::unique_ptr<Problem> makeHistogram(int);
std::unique_ptr<Problem> makeEmpty(int);
std::unique_ptr<Problem> makeViewTriad(int);
std::unique_ptr<Problem> makeViewTriadChecked(int);
std::unique_ptr<Problem> makeStencil2d(int);
std::unique_ptr<Problem> makeStencil2dChecked(int);

const std::vector<WorkloadInfo> &allWorkloads() {
  static const std::vector<WorkloadInfo> workloads = {
      {"triad", 3, makeTriad},
      {"vector_add", 3, makeVectorAdd},
      {"pairwise_distance", 4, makePairwiseDistance},
      {"black_scholes", 3, makeBlackScholes},
      {"tiled_matmul", 3, makeTiledMatmul},
      {"wg_reduction", 3, makeWorkGroupReduction},
      {"atomic_sum", 3, makeAtomicSum},
      {"histogram", 3, makeHistogram},
      {"kmeans_assign", 3, makeKMeansAssign},
      {"nbody", 3, makeNBody},
      {"empty_kernel", 1, makeEmpty},
      {"view_triad", 3, makeViewTriad},
      {"view_triad_boundscheck", 3, makeViewTriadChecked},
      {"stencil2d", 3, makeStencil2d},
      {"stencil2d_boundscheck", 3, makeStencil2dChecked},
  };
  return workloads;
}

std::string corpusKernel(const std::string &name) { return std::string(DPK_CORPUS_DIR) + "/" + name + ".dpkir"; }
std::string benchKernel(const std::string &name) { return std::string(DPK_BENCH_KERNEL_DIR) + "/" + name + ".dpkir"; }

} // namespace dpk::bench
