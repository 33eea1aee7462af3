// geometry_memo.hpp - the grids and blocks a kernel was launched with, so that a launch of a
// configuration seen before skips computeGeometry.
//
// A Range launch searches for the block (largestDivisorAtMost): for a size without small
// factors that is up to 255 divisions per dimension, on every launch, and even an easy size
// costs about 200 instructions, a third of the plugin's own launch. The geometry depends on the
// configuration, the kernel's thread limit and the device's block and grid limits, and the last
// two never change for a kernel, so the configuration alone is the key. Only geometries that
// computeGeometry accepted are remembered: a launch it refuses is checked (and its message
// built) every time.
//
// Readers take no lock: entries are immutable once published and live as long as the kernel,
// in a fixed number of slots filled in order. A kernel launched with more configurations than
// there are slots computes the others' geometry each time, as every launch did before.
#ifndef DPK_BACKENDS_CUDA_GEOMETRY_MEMO_HPP
#define DPK_BACKENDS_CUDA_GEOMETRY_MEMO_HPP

#include "geometry.hpp"

#include <atomic>
#include <mutex>

namespace dpk::cuda {

class GeometryMemo {
public:
  GeometryMemo() = default;
  GeometryMemo(const GeometryMemo &) = delete;
  GeometryMemo &operator=(const GeometryMemo &) = delete;
  ~GeometryMemo();

  /// The geometry remembered for `config`, or null.
  const Geometry *find(const dpk_launch_config_t &config) const {
    for (const std::atomic<const Entry *> &slot : slots_) {
      const Entry *entry = slot.load(std::memory_order_acquire);
      if (!entry)
        return nullptr;
      if (sameLaunch(entry->config, config))
        return &entry->geometry;
    }
    return nullptr;
  }

  /// Remembers what computeGeometry gave for `config` (nothing once every slot is taken).
  void remember(const dpk_launch_config_t &config, const Geometry &geometry);

private:
  struct Entry {
    dpk_launch_config_t config;
    Geometry geometry;
  };
  static constexpr int Slots = 8;

  /// Whether two configurations launch alike: the same dimensions and, in each, the same global
  /// and local size (what lies past `dims` does not take part).
  static bool sameLaunch(const dpk_launch_config_t &a, const dpk_launch_config_t &b) {
    if (a.dims != b.dims)
      return false;
    for (uint32_t d = 0; d < a.dims; ++d)
      if (a.global_size[d] != b.global_size[d] || a.local_size[d] != b.local_size[d])
        return false;
    return true;
  }

  std::atomic<const Entry *> slots_[Slots] = {};
  std::mutex writers_; // one writer at a time fills the next free slot
};

} // namespace dpk::cuda

#endif // DPK_BACKENDS_CUDA_GEOMETRY_MEMO_HPP
