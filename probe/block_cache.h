// BlockCache: one bounded cache of decompressed table values shared by every table and thread.
// Values are cached in fixed-size pages (a block of a table file is split into pages), held in
// slots allocated once and reused, so a reader never touches freed memory. Readers take no lock:
// each slot carries a sequence number (a seqlock) that tells a reader when the page it read was
// replaced under it. Writers (misses) take one mutex only to install pages; eviction is CLOCK.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>

#include "formats/dtm_value.h"

namespace tbkit::probe {

class BlockCache {
 public:
  static constexpr std::uint32_t kPageValues = 8192;
  static constexpr std::size_t kPageBytes = kPageValues * sizeof(std::uint16_t);

  // Where a table keeps, per page, which slot holds it (slot + 1; 0 = not cached). Owned by the
  // table, sized by the table; the cache only reads and clears entries.
  using PageHints = std::atomic<std::uint32_t>;

  explicit BlockCache(std::size_t capacity_bytes);
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  [[nodiscard]] std::size_t capacity_bytes() const { return slot_count_ * kPageBytes; }

  // The cached raw value at `offset` of page `key` (key: unique over all tables; hint: the table's
  // entry for that page). Returns false on a miss. Lock-free.
  [[nodiscard]] bool find(std::uint64_t key, PageHints& hint, std::uint32_t offset, std::uint16_t& raw) const {
    const std::uint32_t h = hint.load(std::memory_order_acquire);
    if (h == 0) return false;
    Slot& s = slots_[h - 1];
    const std::uint32_t seq = s.seq.load(std::memory_order_acquire);
    if ((seq & 1U) != 0 || s.key.load(std::memory_order_relaxed) != key) return false;
    raw = std::atomic_ref<std::uint16_t>(data_[std::size_t(h - 1) * kPageValues + offset]).load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (s.seq.load(std::memory_order_relaxed) != seq) return false;
    if (s.referenced.load(std::memory_order_relaxed) == 0) s.referenced.store(1, std::memory_order_relaxed);
    return true;
  }

  // Installs one page (values.size() <= kPageValues), evicting the least recently referenced.
  // `referenced`: whether the page was just used (others of its block are installed cold).
  void install(std::uint64_t key, PageHints& hint, std::span<const formats::DtmValue> values, bool referenced);

  // Empties every slot.
  void clear();

 private:
  struct Slot {
    std::atomic<std::uint32_t> seq{0};          // odd while being rewritten
    std::atomic<std::uint64_t> key{kNoKey};
    std::atomic<std::uint8_t> referenced{0};
    PageHints* owner = nullptr;                 // guarded by mutex_
  };
  static constexpr std::uint64_t kNoKey = ~std::uint64_t{0};

  void evict(std::size_t slot);  // mutex_ held

  std::size_t slot_count_ = 0;
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<std::uint16_t[]> data_;  // slot_count_ * kPageValues raw values
  std::mutex mutex_;
  std::size_t hand_ = 0;  // guarded by mutex_
};

}  // namespace tbkit::probe
