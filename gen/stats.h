// Table statistics in the published convention: every legal placement once (no symmetry
// reduction), identical pieces once, no en-passant rights.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "gen/table_set.h"

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

// Counts every legal position of the table. Thread-safe on a const table.
[[nodiscard]] TableStats compute_stats(const SolvedTable& table);

}  // namespace tbkit::gen
