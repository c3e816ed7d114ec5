// BookAggregator: sums BookRecords by (key, move) in an open-addressing table. With a memory budget
// it spills the table as a sorted run file when full; without one, the table stays cache-sized and
// full tables become sorted in-memory runs (faster than one huge table); merge_book_sources() k-way merges the runs and
// the in-memory remainder into one sorted, summed stream. Sums commute, so the merged output does not
// depend on the order games arrive in or on how work was split across aggregators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "chess/result.h"
#include "formats/book_file.h"

namespace tbkit::pgn {

class BookAggregator {
 public:
  // budget_bytes = 0: unbounded (in-memory runs only). run_prefix: path prefix for run files (PREFIX-N.run).
  BookAggregator(std::size_t budget_bytes, std::filesystem::path run_prefix);
  BookAggregator(BookAggregator&&) = default;
  BookAggregator& operator=(BookAggregator&&) = default;

  // Adds r's counts to the record with r's (key, move). Spill failures are kept in status().
  void add(const formats::BookRecord& r);
  // Sorts the table's records by (key, move) and hands them out with the in-memory runs (each
  // sorted); the aggregator is left empty.
  [[nodiscard]] std::vector<std::vector<formats::BookRecord>> take_sorted();

  [[nodiscard]] const std::vector<std::filesystem::path>& runs() const { return runs_; }
  [[nodiscard]] const Status& status() const { return status_; }
  [[nodiscard]] std::size_t size() const { return count_; }

 private:
  void grow_or_spill();
  void spill();
  void rehash(std::size_t capacity);
  [[nodiscard]] std::size_t slot_of(std::uint64_t key) const;
  // Moves the records to the front in (key, move) order; returns their number. Empties the rest.
  [[nodiscard]] std::size_t compact_sorted();

  std::size_t budget_;
  std::filesystem::path run_prefix_;
  std::vector<formats::BookRecord> table_;  // capacity_ home slots + slack; games == 0 marks an empty slot
  std::size_t capacity_ = 0;
  std::size_t count_ = 0;
  std::vector<std::filesystem::path> runs_;
  std::vector<std::vector<formats::BookRecord>> memory_runs_;
  Status status_;
};

// Merges sorted runs (files of raw BookRecords) and sorted in-memory vectors, summing equal
// (key, move) pairs, and calls sink for each record with games >= min_games, in (key, move) order.
// Errors: kIo reading a run, kCorrupt if a count overflows 32 bits, or whatever sink returns.
[[nodiscard]] Status merge_book_sources(const std::vector<std::filesystem::path>& runs,
                                        std::vector<std::vector<formats::BookRecord>> memory, std::uint32_t min_games,
                                        const std::function<Status(const formats::BookRecord&)>& sink);

}  // namespace tbkit::pgn
