// Book aggregation: sums the build's records by (key, move) in sorted order, touching little memory.
//
// Each parsing thread appends every recorded ply, one game's move, to its own PlyStore as a 12-byte
// PlyRecord (key, move, mover's Elo, result, side), in buckets cut by the key's top bits. Nothing
// is summed while parsing: appending is a write to one of a few thousand open chunks, and memory is
// touched once, at 12 bytes a ply (a hash table of 40-byte sums at a workable load, grown by
// rehashing, touched three to four times as much). Afterwards drain_ply_stores() takes the buckets in
// key order: a bucket's records from every store are summed in an open-addressing table that fits
// in the L2 cache, sorted by (key, move) and handed to the sink; buckets are summed in parallel, the
// sink is called serially. With a memory budget a store that fills is written as a sorted run file
// instead (spill_ply_store) and reused, and merge_run_files() k-way merges the runs. Sums commute,
// so the output depends neither on the order games arrive in nor on how they were split between
// stores.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "chess/result.h"
#include "formats/book_file.h"
#include "pgn/visitor.h"
#include "formats/large_allocator.h"

namespace tbkit::pgn {

// One game's move from one position in 12 bytes (4-byte aligned).
struct PlyRecord {
  std::uint32_t key_low = 0;
  std::uint32_t key_high = 0;
  std::uint16_t move = 0;
  // Bits 0-11: mover's Elo (0 = unknown); 12-13: result (0 unknown, 1 White won, 2 draw, 3 Black
  // won); 14: Black to move.
  std::uint16_t info = 0;
};
static_assert(sizeof(PlyRecord) == 12);

class PlyStore {
 public:
  static constexpr std::uint32_t kMaxElo = 0xFFF;
  static constexpr int kResultShift = 12;
  static constexpr std::uint16_t kBlackBit = 1 << 14;
  // Records are appended in chunks of kChunkRecords, each in its own kChunkBytes block.
  static constexpr std::size_t kChunkBytes = 2048;
  static constexpr std::size_t kChunkRecords = kChunkBytes / sizeof(PlyRecord);
  // An unbounded store's shape: 4096 buckets, so a full-depth build of ~10 M plies sums ~2,700
  // records per bucket in a table that stays in the L2 cache; slabs of 8 MiB (four huge pages).
  static constexpr int kUnboundedBucketBits = 12;
  static constexpr std::size_t kUnboundedSlabBytes = std::size_t{8} << 20;

  // Keys are bucketed by their top bucket_bits (0..16); every store of one build uses the same.
  // slab_bytes: memory is taken in blocks of this size (a power of two, at least kChunkBytes).
  PlyStore(int bucket_bits, std::size_t slab_bytes);
  PlyStore(PlyStore&&) = default;
  PlyStore& operator=(PlyStore&&) = default;

  // Records one game's move: elo is the mover's (0 = unknown, at most kMaxElo).
  void add(std::uint64_t key, std::uint16_t move, bool black_to_move, std::uint32_t elo, GameResult result) {
    assert(elo <= kMaxElo);
    const unsigned r = result == GameResult::kWhiteWins ? 1 : result == GameResult::kDraw ? 2 : result == GameResult::kBlackWins ? 3 : 0;
    const std::size_t b = bucket_bits_ ? std::size_t(key >> (64 - bucket_bits_)) : 0;
    if (fill_[b] == kChunkRecords) start_chunk(b);
    open_[b][fill_[b]++] = PlyRecord{std::uint32_t(key), std::uint32_t(key >> 32), move,
                                     std::uint16_t(elo | r << kResultShift | (black_to_move ? kBlackBit : 0))};
    ++records_;
  }
  // Empties the store, keeping its memory for reuse.
  void clear();

  // Memory in use (chunks handed out and bucket lists); clear() keeps the slabs but zeroes this.
  [[nodiscard]] std::size_t bytes() const;
  [[nodiscard]] std::size_t records() const { return records_; }
  [[nodiscard]] int bucket_bits() const { return bucket_bits_; }
  [[nodiscard]] std::size_t bucket_size(std::size_t bucket) const;
  // Calls f(std::span<const PlyRecord>) for each chunk of the bucket's records.
  template <class F>
  void for_each_chunk(std::size_t bucket, F&& f) const;

 private:
  void start_chunk(std::size_t bucket);

  int bucket_bits_;
  std::size_t slab_chunks_;
  std::vector<formats::ZeroedArray<std::byte>> slabs_;
  std::size_t slab_ = 0;       // the slab chunks come from
  std::size_t slab_used_ = 0;  // chunks of it handed out
  std::vector<PlyRecord*> open_;  // each bucket's last chunk
  std::vector<std::uint16_t> fill_;  // records in it (kChunkRecords when there is none)
  std::vector<std::vector<PlyRecord*>> chunks_;
  std::size_t records_ = 0;
};

template <class F>
void PlyStore::for_each_chunk(std::size_t bucket, F&& f) const {
  const std::vector<PlyRecord*>& chunks = chunks_[bucket];
  for (std::size_t c = 0; c < chunks.size(); ++c)
    f(std::span<const PlyRecord>(chunks[c], c + 1 < chunks.size() ? kChunkRecords : fill_[bucket]));
}

// Sums bucket `bucket` of every store into out (appended, sorted by (key, move)), keeping records
// with games >= min_games. table: scratch, all games == 0 on entry and on return. Errors: kCorrupt
// if a count overflows 32 bits.
[[nodiscard]] Status sum_bucket(std::span<const PlyStore* const> stores, std::size_t bucket, std::uint32_t min_games,
                                std::vector<formats::BookRecord>& table, std::vector<formats::BookRecord>& out);

// Sums the stores' buckets in key order and calls sink for each record with games >= min_games, in
// (key, move) order. Buckets are summed in parallel in arena; sink is called serially. Errors:
// kCorrupt (an overflow), or whatever sink returns.
[[nodiscard]] Status drain_ply_stores(std::span<const PlyStore* const> stores, std::uint32_t min_games,
                                      const std::function<Status(const formats::BookRecord&)>& sink, tbb::task_arena& arena);

// Writes the store's sums, sorted, as a run file of raw BookRecords at path. Errors: kIo, kCorrupt.
[[nodiscard]] Status spill_ply_store(const PlyStore& store, const std::filesystem::path& path);

// Merges sorted run files (raw BookRecords), summing equal (key, move) pairs, and calls sink for
// each record with games >= min_games, in (key, move) order. At most fan_in (>= 2) runs are open
// at once: with more, groups of fan_in are first merged (summed, unfiltered) into new runs beside
// them, and the merged runs removed, until one merge takes the rest. Returns the number of merge
// passes (1 when no group merge was needed). Errors: kIo reading or writing a run, kCorrupt if a
// count overflows 32 bits, or whatever sink returns.
[[nodiscard]] Result<std::uint32_t> merge_run_files(const std::vector<std::filesystem::path>& runs,
                                                    std::uint32_t min_games,
                                                    const std::function<Status(const formats::BookRecord&)>& sink,
                                                    std::size_t fan_in);

// The merge's fan-in for a memory bound (0 = none): five eighths of it in 320 KB read buffers,
// between 2 and 256 runs, and at most half the process's limit of open files.
[[nodiscard]] std::size_t merge_fan_in(std::size_t memory_bytes);

}  // namespace tbkit::pgn
