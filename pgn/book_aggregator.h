// BookAggregator: sums BookRecords by (key, move) in an open-addressing table. With a memory budget
// it spills the table as a sorted run file when full; without one, the table grows to 4 M slots
// (160 MB) and full tables become sorted in-memory runs; merge_book_sources() k-way merges the runs
// and the in-memory remainder into one sorted, summed stream. Sums commute, so the merged output does not
// depend on the order games arrive in or on how work was split across aggregators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "chess/result.h"
#include "formats/book_file.h"
#include "formats/large_allocator.h"

namespace tbkit::pgn {

// An in-memory sorted run: the first `size` records of `storage`, sorted by (key, move), summed.
struct SortedRun {
  formats::ZeroedArray<formats::BookRecord> storage;
  std::size_t size = 0;
  [[nodiscard]] std::span<const formats::BookRecord> records() const { return {storage.data(), size}; }
};

class BookAggregator {
 public:
  // budget_bytes = 0: unbounded (in-memory runs only). run_prefix: path prefix for run files (PREFIX-N.run).
  // key_shift: how many top bits of the key are the same in every record this aggregator sees (a
  // caller that splits records by key range); they are left out when choosing a slot.
  BookAggregator(std::size_t budget_bytes, std::filesystem::path run_prefix, int key_shift = 0);
  BookAggregator(BookAggregator&&) = default;
  BookAggregator& operator=(BookAggregator&&) = default;

  // Adds r's counts to the record with r's (key, move). Spill failures are kept in status().
  void add(const formats::BookRecord& r);
  // add() for each record, prefetching the table slots of the records a few places ahead.
  void add_all(std::span<const formats::BookRecord> records);
  // Sorts the table's records by (key, move) and hands them out with the in-memory runs (each
  // sorted); the aggregator is left empty (it allocates a new table if added to again).
  [[nodiscard]] std::vector<SortedRun> take_sorted();

  [[nodiscard]] const std::vector<std::filesystem::path>& runs() const { return runs_; }
  [[nodiscard]] const Status& status() const { return status_; }
  [[nodiscard]] std::size_t size() const { return count_; }

 private:
  void grow_or_spill();
  void spill();
  void rehash(std::size_t capacity);
  [[nodiscard]] std::size_t slot_of(std::uint64_t key) const { return std::size_t(formats::mul_hi(key << key_shift_, capacity_)); }
  // Moves the records to the front in (key, move) order; returns their number. Empties the rest.
  [[nodiscard]] std::size_t compact_sorted();
  [[nodiscard]] std::size_t initial_capacity() const;

  std::size_t budget_;
  std::filesystem::path run_prefix_;
  int key_shift_ = 0;
  formats::ZeroedArray<formats::BookRecord> table_;  // capacity_ home slots + slack; games == 0 marks an empty slot
  std::size_t capacity_ = 0;
  std::size_t count_ = 0;
  std::vector<std::filesystem::path> runs_;
  std::vector<SortedRun> memory_runs_;
  Status status_;
};

// Merges sorted runs (files of raw BookRecords) and sorted in-memory runs, summing equal
// (key, move) pairs, and calls sink for each record with games >= min_games, in (key, move) order.
// Without run files, the key space is cut into ranges merged in parallel in `arena` (null = serially),
// with sink still called serially and in order. Errors: kIo reading a run, kCorrupt if a count
// overflows 32 bits, or whatever sink returns.
[[nodiscard]] Status merge_book_sources(const std::vector<std::filesystem::path>& runs, std::vector<SortedRun> memory,
                                        std::uint32_t min_games, const std::function<Status(const formats::BookRecord&)>& sink,
                                        tbb::task_arena* arena);

// Sorts and filters the records of aggregators that hold disjoint key ranges, given in increasing key
// order, and calls sink for each record with games >= min_games, in (key, move) order. Aggregators
// are sorted in parallel in arena, while sink is called serially; each is left empty. They must not
// have spilled run files. Errors: kCorrupt (from an aggregator or an overflow), or whatever sink returns.
[[nodiscard]] Status drain_key_ranges(std::span<BookAggregator* const> ranges, std::uint32_t min_games,
                                      const std::function<Status(const formats::BookRecord&)>& sink, tbb::task_arena& arena);

}  // namespace tbkit::pgn
