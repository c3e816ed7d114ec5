// build_book: PGN files in, an opening book out (.tbb and/or Polyglot .bin). Games are parsed in
// parallel chunks (oneTBB, caller-chosen thread count) and summed per (position, move); with a
// memory budget the sums spill to sorted runs in a temporary directory and are k-way merged.
// Output is bit-identical for any thread count and any memory budget.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "chess/result.h"
#include "formats/book_file.h"
#include "pgn/book_compat.h"
#include "pgn/book_game.h"
#include "pgn/parallel_reader.h"

namespace tbkit::pgn {

struct BookBuildOptions {
  BookFilter filter;
  std::uint32_t min_games = 1;
  std::size_t memory_bytes = 0;    // 0 = unbounded (no spilling)
  std::filesystem::path temp_dir;  // where spill runs go; empty = the system temp directory
  int threads = 1;
  // Small chunks keep both threads busy to the end of the input and recycle little memory.
  std::size_t chunk_size = std::size_t{1} << 20;
  std::filesystem::path output;           // native .tbb; empty = none
  std::filesystem::path polyglot_output;  // Polyglot .bin; empty = none
  // Reproduce `polyglot make-book` (only polyglot_output is written; filter/min_games are unused).
  bool polyglot_compat = false;
  CompatOptions compat;
};

struct BookBuildSummary {
  ReadSummary read;
  std::uint64_t games_recorded = 0;  // games that added at least one ply
  std::uint64_t games_filtered = 0;  // games left out by the date/rating filters
  std::uint64_t spill_runs = 0;
  std::uint32_t merge_passes = 0;    // over the spill runs (0 without spilling)
  formats::BookInfo info;            // of the .tbb, when written
  std::uint64_t polyglot_entries = 0;
};

// Errors: kInvalidArgument (no output, bad options), kIo, kCorrupt (from the reader, or a count
// overflow). Partial outputs and spill runs are removed on failure.
[[nodiscard]] Result<BookBuildSummary> build_book(const std::vector<std::string>& inputs, const BookBuildOptions& options,
                                                  const ProgressCallback& progress);

}  // namespace tbkit::pgn
