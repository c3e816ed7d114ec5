// The player's root rule for positions inside the tables: which move to play when the tables know
// the outcome, under the 50-move rule when Syzygy WDL50/DTZ50 values are at hand and by DTM alone
// otherwise. A pure function of the moves' values and the halfmove clock, so it is tested without
// tables and shared by the engine and the self-play checks (table_play.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "chess/position.h"
#include "formats/dtm_value.h"
#include "probe/syzygy_tablebase.h"

namespace tbkit::player {

class RootTableOracle;

// One legal root move with what the tables say about it, all for the side playing it.
struct RootMove {
  chess::Move move;
  std::optional<formats::DtmValue> dtm;  // win/loss in plies from the root, counting the move; nullopt: no DTM table
  // Syzygy's view (nullopt: no Syzygy files): WDL50 of the move, its DTZ50 counted from the root
  // (probe::Dtz50Move: one ply more than the child's, 1 for a winning zeroing move or a mate), and
  // whether it is a capture or a pawn move.
  std::optional<probe::Wdl50> wdl;
  int dtz = 0;
  bool zeroing = false;
  bool repeats = false;  // the position after it occurred earlier in the game
};

// The outcome a move secures under the 50-move rule, the clock included.
enum class RuleOutcome : std::int8_t { kLoss = -1, kDraw = 0, kWin = 1 };

// Outcome of `m` for its mover when `halfmove_clock` plies have passed since the last capture or
// pawn move. With Syzygy values: a WDL50 win is a win when the move zeroes or mates, or when the
// child's |DTZ| plus the plies since the last zeroing move, this one included, stay within 100
// with one ply to spare (Syzygy's DTZ may be one ply short: clock + dtz <= 99), else a draw; a
// WDL50 loss is a loss when clock + |dtz| <= 100 (or the move zeroes), else a draw the rule
// secures; cursed wins, blessed losses and draws are draws. Without Syzygy values, the DTM value
// (the clock is ignored). Precondition: m.wdl or m.dtm is set.
[[nodiscard]] RuleOutcome rule_outcome(const RootMove& m, int halfmove_clock);

struct RootChoice {
  RuleOutcome outcome = RuleOutcome::kDraw;  // the best outcome any move secures
  // The move to play, or none: then the position is a true draw and the caller picks among
  // `drawing_moves` (the moves that keep it, by DTM or WDL50), e.g. by search.
  chess::Move move;
  std::vector<chess::Move> drawing_moves;
  bool cursed = false;  // no move wins under the rule but one wins without it (played DTM-optimally)
};

// The root rule over `moves` (every legal move of a position with at least one, each with a DTM
// value, or each with Syzygy values, or both):
// - wins under the rule exist: among them (preferring moves that do not repeat a position), the
//   DTM-fastest mate; by smallest DTZ when there are no DTM values; ties by smallest DTZ;
// - none, but a move wins without the rule (a cursed win, or a win the clock has spoilt): the
//   DTM-optimal move overall (smallest DTZ without DTM values), hoping for a mistake;
// - a true draw: no move, the drawing moves listed;
// - only moves the rule saves (blessed losses, losses the clock runs out): among them the longest
//   DTM resistance, ties by largest |DTZ|;
// - lost: the longest DTM resistance (largest |DTZ| without DTM values), ties by largest |DTZ|.
// Deterministic: remaining ties keep the order of `moves`.
[[nodiscard]] RootChoice choose_root_move(const std::vector<RootMove>& moves, int halfmove_clock);

// Which tables the rule consults.
enum class TableRule : std::uint8_t { kFiftyMove, kDtmOnly };

// Every legal move of `pos` with its values from `tables`: DTM where the oracle has DTM tables,
// Syzygy where it has Syzygy files and rule is kFiftyMove; `repeats` from pos's history. nullopt
// when neither kind answers every move (missing table, castling rights, damaged file).
[[nodiscard]] std::optional<std::vector<RootMove>> gather_root_moves(const RootTableOracle& tables, const chess::Position& pos,
                                                                     TableRule rule = TableRule::kFiftyMove);

}  // namespace tbkit::player
