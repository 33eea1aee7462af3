// MemoryTest.cpp - allocations of every memory kind a device advertises, copies between host and
// device memory, fills with every pattern size, on every plugin with a device.
#include "PluginAbi.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace dpk::plugin_abi {
namespace {

constexpr dpk_mem_kind_t Kinds[] = {DPK_MEM_DEVICE, DPK_MEM_SHARED, DPK_MEM_HOST};

/// Allocates 100 bytes of `kind` at each alignment, checks the address and frees it.
void expectAlignedAllocations(const runtime::ValidatedDispatch &table, dpk_pl_context_t context,
                              dpk_mem_kind_t kind, std::initializer_list<size_t> alignments) {
  for (size_t alignment : alignments) {
    SCOPED_TRACE("alignment " + std::to_string(alignment));
    void *aligned = nullptr;
    ASSERT_EQ(table.mem_alloc(&aligned, context, kind, 100, alignment), DPK_SUCCESS)
        << table.last_error(nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % alignment, 0u);
    EXPECT_EQ(table.mem_free(context, aligned), DPK_SUCCESS) << table.last_error(nullptr);
  }
}

} // namespace

TEST_P(PluginAbiDevice, AllocatesEveryAdvertisedKind) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device);
    ASSERT_NE(session.queue, nullptr);
    for (dpk_mem_kind_t kind : Kinds) {
      SCOPED_TRACE(std::string(kindName(kind)) + " memory");
      void *ptr = nullptr;
      dpk_status_t status = table().mem_alloc(&ptr, session.context, kind, 4096, 0);
      if (!(device.props.aspects & aspectOf(kind))) {
        EXPECT_EQ(status, DPK_ERROR_UNSUPPORTED) << "not advertised, yet: " << lastError();
        EXPECT_NE(lastError(), "");
        EXPECT_EQ(ptr, nullptr);
        continue;
      }
      ASSERT_EQ(status, DPK_SUCCESS) << lastError();
      EXPECT_NE(ptr, nullptr);
      EXPECT_EQ(table().mem_free(session.context, ptr), DPK_SUCCESS) << lastError();
      // 128: what the runtime asks for every allocation (core/runtime/Memory.cpp).
      expectAlignedAllocations(table(), session.context, kind, {1, 16, 128});
    }
    // Freeing NULL does nothing, as free() does.
    EXPECT_EQ(table().mem_free(session.context, nullptr), DPK_SUCCESS) << lastError();
  });
}

// Alignments beyond what any type needs (a page, for memory mapped or shared with other APIs).
TEST_P(PluginAbiDevice, AllocatesPageAligned) {
  DPK_KNOWN_FAILURE_ON("clSVMAlloc refuses alignments above CL_DEVICE_MEM_BASE_ADDR_ALIGN (128 "
                       "bytes on PoCL and Intel's CPU runtime) and the backend passes "
                       "the alignment through instead of over-allocating; it then reports "
                       "DPK_ERROR_OUT_OF_DEVICE_MEMORY",
                       "opencl");
  forEachDevice([&](const Device &device) {
    Session session(table(), device);
    ASSERT_NE(session.context, nullptr);
    for (dpk_mem_kind_t kind : Kinds) {
      if (!(device.props.aspects & aspectOf(kind)))
        continue;
      SCOPED_TRACE(std::string(kindName(kind)) + " memory");
      expectAlignedAllocations(table(), session.context, kind, {256, 4096});
    }
  });
}

// Host memory -> kind A -> kind B -> host memory, for every pair of advertised kinds (the
// contract: copies between any two of host memory and the context's allocations); large enough
// for the host's parallel copy, and of an odd size.
TEST_P(PluginAbiDevice, CopiesRoundTripBetweenEveryKind) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device);
    ASSERT_NE(session.queue, nullptr);
    const size_t bytes = (size_t(4) << 20) + 12;
    std::vector<unsigned char> in(bytes), out(bytes);
    for (size_t i = 0; i < bytes; ++i)
      in[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    struct Buffers {
      dpk_mem_kind_t kind;
      void *from, *to; // two of each kind, for copies within one kind
    };
    std::vector<Buffers> buffers;
    for (dpk_mem_kind_t kind : Kinds) {
      if (device.props.aspects & aspectOf(kind))
        buffers.push_back({kind, session.alloc(bytes, kind), session.alloc(bytes, kind)});
    }
    for (const Buffers &source : buffers) {
      for (const Buffers &target : buffers) {
        SCOPED_TRACE(std::string("host -> ") + kindName(source.kind) + " -> " +
                     kindName(target.kind) + " -> host");
        void *from = source.from, *to = target.to;
        ASSERT_TRUE(from && to);
        std::fill(out.begin(), out.end(), 0);
        ASSERT_EQ(table().enqueue_copy(nullptr, session.queue, from, in.data(), bytes, 0, nullptr),
                  DPK_SUCCESS)
            << lastError();
        ASSERT_EQ(table().enqueue_copy(nullptr, session.queue, to, from, bytes, 0, nullptr),
                  DPK_SUCCESS)
            << lastError();
        ASSERT_EQ(table().enqueue_copy(nullptr, session.queue, out.data(), to, bytes, 0, nullptr),
                  DPK_SUCCESS)
            << lastError();
        ASSERT_EQ(table().queue_finish(session.queue), DPK_SUCCESS) << lastError();
        size_t firstWrong = bytes;
        for (size_t i = 0; i < bytes && firstWrong == bytes; ++i)
          if (out[i] != in[i])
            firstWrong = i;
        EXPECT_EQ(firstWrong, bytes) << "the round trip differs at byte " << firstWrong;
      }
    }
    for (const Buffers &pair : buffers) {
      EXPECT_EQ(table().mem_free(session.context, pair.from), DPK_SUCCESS) << lastError();
      EXPECT_EQ(table().mem_free(session.context, pair.to), DPK_SUCCESS) << lastError();
    }
  });
}

TEST_P(PluginAbiDevice, FillsEveryPatternSize) {
  forEachDevice([&](const Device &device) {
    Session session(table(), device);
    ASSERT_NE(session.queue, nullptr);
    const size_t bytes = 64 * 1024;
    void *ptr = session.alloc(bytes);
    ASSERT_NE(ptr, nullptr);
    std::vector<unsigned char> back(bytes);
    for (size_t patternSize = 1; patternSize <= 128; patternSize *= 2) {
      SCOPED_TRACE("pattern of " + std::to_string(patternSize) + " bytes");
      std::vector<unsigned char> pattern(patternSize);
      std::iota(pattern.begin(), pattern.end(), static_cast<unsigned char>(patternSize * 3 + 1));
      ASSERT_EQ(table().enqueue_fill(nullptr, session.queue, ptr, pattern.data(), patternSize, bytes, 0,
                                     nullptr),
                DPK_SUCCESS)
          << lastError();
      ASSERT_EQ(table().enqueue_copy(nullptr, session.queue, back.data(), ptr, bytes, 0, nullptr),
                DPK_SUCCESS)
          << lastError();
      ASSERT_EQ(table().queue_finish(session.queue), DPK_SUCCESS) << lastError();
      size_t firstWrong = bytes;
      for (size_t i = 0; i < bytes && firstWrong == bytes; ++i)
        if (back[i] != pattern[i % patternSize])
          firstWrong = i;
      EXPECT_EQ(firstWrong, bytes) << "the fill differs at byte " << firstWrong;
    }
    EXPECT_EQ(table().mem_free(session.context, ptr), DPK_SUCCESS) << lastError();
  });
}

} // namespace dpk::plugin_abi
