// SubGroupTest.cpp - sub_groups.dpkir: lane ids, the sub-group size, ballots and shuffles of
// 16-, 32- and 64-bit values, checked against the grouping the reported size implies (PTX: warps
// of 32; the other targets: sub-groups of one work-item), with a work-group size that is not a
// multiple of 32 so that a short last sub-group takes part.
#include "Conformance.h"

namespace dpk::conformance {
namespace {

CONFORMANCE_TEST(SubGroups) {
  dpk_kernel_t kernel = t.corpusKernel("sub_groups.dpkir", "sub_groups");
  ASSERT_NE(kernel, nullptr);
  for (int64_t L : {48, 64, 1}) {
    if (uint64_t(L) > t.info.max_work_group_size)
      continue;
    SCOPED_TRACE("local size " + std::to_string(L));
    const int64_t N = 3 * L;
    void *dinfo = t.alloc(2 * N * sizeof(int64_t)), *dballots = t.alloc(N * sizeof(uint32_t)),
         *dwide = t.alloc(N * sizeof(int64_t)), *dsingle = t.alloc(N * sizeof(float)),
         *dnarrow = t.alloc(N * sizeof(int16_t));
    dpk_status_t status =
        t.launch(kernel, t.ndRange1(N, L),
                 {t.pointer(dinfo), t.pointer(dballots), t.pointer(dwide), t.pointer(dsingle),
                  t.pointer(dnarrow)});
    ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
    std::vector<int64_t> info = t.download<int64_t>(dinfo, 2 * N);
    std::vector<uint32_t> ballots = t.download<uint32_t>(dballots, N);
    std::vector<int64_t> wide = t.download<int64_t>(dwide, N);
    std::vector<float> single = t.download<float>(dsingle, N);
    std::vector<int16_t> narrow = t.download<int16_t>(dnarrow, N);
    const int64_t S = info[1];
    ASSERT_TRUE(S >= 1 && S <= 32) << "sub_group_size " << S;
    for (int64_t g = 0; g < N; ++g) {
      int64_t l = g % L, first = g - l % S;            // first: global id of lane 0
      int64_t members = std::min(S, L - (l - l % S));  // a short last run has fewer
      ASSERT_EQ(info[2 * g + 1], S) << "sub_group_size at " << g;
      ASSERT_EQ(info[2 * g], l % S) << "sub_group_local_id at " << g;
      uint32_t expected = 0;
      for (int64_t j = 0; j < members; ++j)
        if ((first + j) % 3 == 0) expected |= 1u << j;
      ASSERT_EQ(ballots[g], expected) << "ballot at " << g;
      int64_t lane = (l % S + 1) % S;
      if (lane >= members)
        continue; // the source lane does not exist: unspecified
      int64_t src = first + lane;
      ASSERT_EQ(wide[g], src * 1000000007) << "i64 shuffle at " << g;
      ASSERT_EQ(single[g], float(src) + 0.5f) << "f32 shuffle at " << g;
      ASSERT_EQ(narrow[g], int16_t(src - 50)) << "i16 shuffle at " << g;
    }
  }
}

} // namespace
} // namespace dpk::conformance
