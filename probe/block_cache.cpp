#include "probe/block_cache.h"

#include <cassert>

namespace tbkit::probe {

BlockCache::BlockCache(std::size_t capacity_bytes)
    : slot_count_(capacity_bytes / kPageBytes),
      slots_(std::make_unique<Slot[]>(slot_count_)),
      data_(std::make_unique<std::uint16_t[]>(slot_count_ * kPageValues)) {}

void BlockCache::evict(std::size_t slot) {
  Slot& s = slots_[slot];
  if (s.owner != nullptr) {
    std::uint32_t expected = std::uint32_t(slot + 1);
    s.owner->compare_exchange_strong(expected, 0, std::memory_order_relaxed);
    s.owner = nullptr;
  }
  // Readers holding the old hint see the key change (or the odd sequence) and miss.
  const std::uint32_t seq = s.seq.load(std::memory_order_relaxed);
  s.seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.key.store(kNoKey, std::memory_order_relaxed);
  s.seq.store(seq + 2, std::memory_order_release);
}

void BlockCache::install(std::uint64_t key, PageHints& hint, std::span<const formats::DtmValue> values, bool referenced) {
  assert(values.size() <= kPageValues);
  if (slot_count_ == 0) return;
  std::lock_guard lock(mutex_);
  if (const std::uint32_t h = hint.load(std::memory_order_relaxed);
      h != 0 && slots_[h - 1].key.load(std::memory_order_relaxed) == key)
    return;  // another thread installed it first
  // CLOCK: skip (and clear) referenced slots; two sweeps at most.
  std::size_t victim = hand_;
  for (std::size_t n = 0; n < 2 * slot_count_; ++n) {
    victim = hand_;
    hand_ = (hand_ + 1) % slot_count_;
    if (slots_[victim].referenced.load(std::memory_order_relaxed) == 0) break;
    slots_[victim].referenced.store(0, std::memory_order_relaxed);
  }
  evict(victim);
  Slot& s = slots_[victim];
  const std::uint32_t seq = s.seq.load(std::memory_order_relaxed);
  s.seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.key.store(key, std::memory_order_relaxed);
  std::uint16_t* out = data_.get() + victim * kPageValues;
  for (std::size_t i = 0; i < values.size(); ++i)
    std::atomic_ref<std::uint16_t>(out[i]).store(values[i].raw(), std::memory_order_relaxed);
  s.seq.store(seq + 2, std::memory_order_release);
  s.referenced.store(referenced ? 1 : 0, std::memory_order_relaxed);
  s.owner = &hint;
  hint.store(std::uint32_t(victim + 1), std::memory_order_release);
}

void BlockCache::clear() {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < slot_count_; ++i) {
    evict(i);
    slots_[i].referenced.store(0, std::memory_order_relaxed);
  }
  hand_ = 0;
}

}  // namespace tbkit::probe
