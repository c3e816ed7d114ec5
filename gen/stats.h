// Table statistics in the published convention: every legal placement once (no symmetry
// reduction), identical pieces once, no en-passant rights.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <tbb/task_arena.h>

#include "gen/table_set.h"
#include "gen/wdl_dtz.h"

namespace tbkit::gen {

struct SideStats {
  std::uint64_t legal = 0, win = 0, draw = 0, loss = 0;
  int longest_win_plies = 0;     // 0 when there is no win
  std::string longest_win_fen;   // the first such position in index order
  int longest_loss_plies = -1;   // -1 when there is no loss
};

struct TableStats {
  std::array<SideStats, 2> side;  // [side to move]
  // Canonical slots: legal positions stored in the index (symmetry-reduced), and index slots.
  std::uint64_t stored = 0, slots = 0;
};

// Counts every legal position of the table, in parallel on `arena` (the result is the same for any
// thread count), or on one thread. Thread-safe on a const table.
[[nodiscard]] TableStats compute_stats(const SolvedTable& table, tbb::task_arena& arena);
[[nodiscard]] TableStats compute_stats(const SolvedTable& table);

// WDL50 counts of one side to move, in the same convention, and the longest DTZ50.
struct SideStats50 {
  std::uint64_t win = 0, cursed_win = 0, draw = 0, blessed_loss = 0, loss = 0;
  int longest_dtz = 0;          // the largest |DTZ50| of a win or cursed win, plies; 0 when none
  std::string longest_dtz_fen;  // the first such position in index order
};

// Counts every legal position of a WDL50/DTZ50 table, as compute_stats does.
[[nodiscard]] std::array<SideStats50, 2> compute_stats50(const DtzTable& table, tbb::task_arena& arena);
[[nodiscard]] std::array<SideStats50, 2> compute_stats50(const DtzTable& table);

}  // namespace tbkit::gen
