// Perft: counts leaf nodes of the legal move tree, for validating move generation.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "chess/position.h"

namespace tbkit::chess {

// Leaf count at the given depth (depth 0 = 1). Uses bulk counting at depth 1. Modifies pos
// temporarily and restores it.
[[nodiscard]] std::uint64_t perft(Position& pos, int depth);

// Per-root-move counts, in move generation order.
[[nodiscard]] std::vector<std::pair<Move, std::uint64_t>> perft_divide(Position& pos, int depth);

}  // namespace tbkit::chess
