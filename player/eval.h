// Static evaluation for the player: material and piece-square terms blended between middlegame
// and endgame by the remaining material, pawn structure, mobility, and a mop-up term that drives a
// lone king to the edge (to the bishop's corner in KBNvK) in won pawnless endings.
#pragma once

#include "chess/position.h"

namespace tbkit::player {

// Centipawn values of the piece types (pawn .. queen, king 0), used for ordering and pruning.
inline constexpr int kPieceValue[7] = {100, 320, 330, 500, 950, 0, 0};

// Score in centipawns from the side to move's point of view. Pure function; thread-safe.
[[nodiscard]] int evaluate(const chess::Position& pos);

}  // namespace tbkit::player
