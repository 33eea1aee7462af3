// MemoryTest.cpp - allocations of every kind the device offers, copies host <-> device <->
// device, and fills with every pattern size.
#include "Conformance.h"

#include <numeric>

namespace dpk::conformance {
namespace {

struct KindInfo {
  dpk_mem_kind_t kind;
  uint32_t aspect;
  const char *name;
};
const KindInfo Kinds[] = {{DPK_MEM_DEVICE, DPK_ASPECT_USM_DEVICE, "device"},
                          {DPK_MEM_SHARED, DPK_ASPECT_USM_SHARED, "shared"},
                          {DPK_MEM_HOST, DPK_ASPECT_USM_HOST, "host"}};

CONFORMANCE_TEST(AllocEveryKind) {
  int tested = 0;
  for (const KindInfo &kind : Kinds) {
    SCOPED_TRACE(kind.name);
    void *ptr = nullptr;
    dpk_status_t status = dpk_mem_alloc(&ptr, t.device, kind.kind, 1 << 20);
    if (!t.hasAspect(kind.aspect)) {
      EXPECT_NE(status, DPK_SUCCESS) << "allocated a kind the device does not advertise";
      if (status == DPK_SUCCESS)
        dpk_mem_free(ptr);
      continue;
    }
    ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
    ++tested;
    std::vector<uint32_t> values(1 << 18);
    std::iota(values.begin(), values.end(), 7u);
    t.copy(ptr, values.data(), values.size() * 4);
    if (kind.kind != DPK_MEM_DEVICE) { // host-dereferenceable
      EXPECT_EQ(static_cast<uint32_t *>(ptr)[1000], 1007u);
    }
    EXPECT_EQ(t.download<uint32_t>(ptr, values.size()), values);
    EXPECT_EQ(dpk_mem_free(ptr), DPK_SUCCESS) << dpk_last_error();
  }
  EXPECT_GT(tested, 0) << "the device offers no memory kind at all";
}

CONFORMANCE_TEST(CopyHostDeviceDevice) {
  constexpr size_t N = 100003; // an odd size
  std::vector<uint8_t> source(N);
  for (size_t i = 0; i < N; ++i)
    source[i] = uint8_t(i * 31 + 7);
  void *first = t.upload(source);
  void *second = t.alloc(N);
  ASSERT_NE(second, nullptr);
  t.copy(second, first, N);
  EXPECT_EQ(t.download<uint8_t>(second, N), source);
  // Partial copies at odd offsets within allocations.
  t.copy(static_cast<uint8_t *>(second) + 11, static_cast<uint8_t *>(first) + 1001, 5000);
  std::vector<uint8_t> back = t.download<uint8_t>(second, N);
  for (size_t i = 0; i < 5000; ++i)
    ASSERT_EQ(back[11 + i], source[1001 + i]) << "at " << i;
  EXPECT_EQ(back[10], source[10]);
  EXPECT_EQ(back[5011], source[5011]);
}

CONFORMANCE_TEST(FillPatterns) {
  constexpr size_t Bytes = 4096;
  void *ptr = t.alloc(Bytes);
  ASSERT_NE(ptr, nullptr);
  for (size_t patternSize : {1, 2, 4, 8, 16, 32, 64, 128}) {
    SCOPED_TRACE("pattern of " + std::to_string(patternSize) + " bytes");
    std::vector<uint8_t> pattern(patternSize);
    for (size_t i = 0; i < patternSize; ++i)
      pattern[i] = uint8_t(0xA0 + i * 3 + patternSize);
    dpk_status_t status =
        dpk_enqueue_fill(nullptr, t.queue, ptr, pattern.data(), patternSize, Bytes, 0, nullptr);
    ASSERT_EQ(status, DPK_SUCCESS) << lastError(status);
    ASSERT_EQ(dpk_queue_wait(t.queue), DPK_SUCCESS) << dpk_last_error();
    std::vector<uint8_t> back = t.download<uint8_t>(ptr, Bytes);
    for (size_t i = 0; i < Bytes; ++i)
      ASSERT_EQ(back[i], pattern[i % patternSize]) << "at " << i;
  }
  // A fill of part of an allocation leaves the rest alone.
  uint32_t zero = 0, ones = 0xffffffffu;
  ASSERT_EQ(dpk_enqueue_fill(nullptr, t.queue, ptr, &zero, 4, Bytes, 0, nullptr), DPK_SUCCESS);
  ASSERT_EQ(dpk_enqueue_fill(nullptr, t.queue, static_cast<uint8_t *>(ptr) + 256, &ones, 4, 512, 0,
                             nullptr),
            DPK_SUCCESS);
  std::vector<uint32_t> words = t.download<uint32_t>(ptr, Bytes / 4);
  for (size_t i = 0; i < Bytes / 4; ++i)
    ASSERT_EQ(words[i], i >= 64 && i < 192 ? ones : zero) << "word " << i;
}

} // namespace
} // namespace dpk::conformance
