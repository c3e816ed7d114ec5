// Table-driven play for checking tables by play: random positions of a material with a wanted
// outcome, and games where both sides follow the table (the winner mates as fast as possible, the
// loser resists as long as possible).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "probe/tablebase.h"

namespace tbkit::player {

enum class WantedOutcome : std::uint8_t { kWon, kDrawn };

struct SampledPosition {
  chess::Position pos;
  formats::DtmValue value;  // for the side to move
};

// `count` random legal positions of `material` (e.g. "KQvKR", white men first) whose value for the
// side to move is a win (kWon) or a draw (kDrawn), none of them checkmate or stalemate. Deterministic
// for a given rng state. Errors: kInvalidArgument (bad material), kUnavailable (no such positions
// found after many tries, or no table), table errors.
// to_move: 0 White, 1 Black, -1 either (at random).
[[nodiscard]] Result<std::vector<SampledPosition>> sample_positions(const probe::Tablebase& tb, const std::string& material,
                                                                    WantedOutcome want, int count, std::mt19937_64& rng,
                                                                    int to_move = -1);

struct PlayOut {
  int announced_plies = 0;  // the table's distance to mate at the start
  int plies = 0;            // plies until the game ended
  bool mated = false;       // the game ended in checkmate
  std::string failure;      // empty when the game mated exactly on time; else what went wrong
};

// Plays a won position out by the table. Errors: table errors (kUnavailable, kCorrupt, ...).
[[nodiscard]] Result<PlayOut> play_out(const probe::Tablebase& tb, const chess::Position& start);

}  // namespace tbkit::player
