// Table-driven play for checking tables by play: random positions of a material with a wanted
// outcome, and games where both sides follow the table (the winner mates as fast as possible, the
// loser resists as long as possible); and games where both sides follow the player's root rule
// (player/root_rule.h) with the halfmove clock kept, to check wins under the 50-move rule.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "player/root_rule.h"
#include "probe/syzygy_tablebase.h"
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

struct SampledWin50 {
  chess::Position pos;  // its halfmove clock as asked
  probe::Dtz50 value;   // for the side to move
};

// `count` random legal positions of `material` whose side to move wins under the 50-move rule with
// `halfmove_clock` plies already played since the last capture or pawn move (WDL50 win, and
// DTZ50 1 or clock + DTZ50 <= 99: Syzygy's DTZ may be one ply short), none of them checkmate or
// stalemate. to_move as sample_positions.
// Deterministic for a given rng state. Errors: kInvalidArgument (bad material, clock outside
// 0..99), kUnavailable (too few found, or no WDL/DTZ file for the material), file errors.
[[nodiscard]] Result<std::vector<SampledWin50>> sample_wins_50(const probe::SyzygyTablebase& tb, const std::string& material,
                                                               int count, std::mt19937_64& rng, int to_move = -1,
                                                               int halfmove_clock = 0);

struct RuleGame {
  int plies = 0;                                   // moves played
  chess::GameStatus end = chess::GameStatus::kOngoing;  // how the game ended (kOngoing: see below)
  bool table_draw = false;  // stopped at a true draw: the rule leaves the choice to search
  bool ply_limit = false;   // stopped after max_plies
  std::string end_fen;      // the last position
};

// Plays `start` out with both sides moving by choose_root_move over `tables` (TableRule picks
// whether Syzygy values are used), the halfmove clock and the game's history kept, until the game
// ends by the rules (mate, stalemate, 50-move rule, repetition, insufficient material), a true
// draw is reached, or max_plies. Errors: kUnavailable when the tables do not answer a position
// reached (naming it).
[[nodiscard]] Result<RuleGame> play_by_rule(const RootTableOracle& tables, const chess::Position& start, TableRule rule,
                                            int max_plies = 1000);

}  // namespace tbkit::player
