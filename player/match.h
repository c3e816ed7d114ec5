// A small match referee: plays games between two UCI engines from given start positions, enforces
// the rules (illegal moves and time forfeits lose), adjudicates mate, stalemate, threefold
// repetition, the fifty-move rule and insufficient material, and reports each game.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "player/pgn_writer.h"

namespace tbkit::player {

struct EngineSpec {
  std::string command;                                       // run with /bin/sh -c
  std::string name;                                          // empty: the engine's "id name"
  std::vector<std::pair<std::string, std::string>> options;  // setoption name N value V
};

struct TimeControl {
  std::int64_t movetime_ms = 0;  // > 0: fixed time per move
  std::int64_t base_ms = 0;      // else a clock: base + increment per move
  std::int64_t inc_ms = 0;
  std::int64_t margin_ms = 500;  // lateness tolerated before a time forfeit
};

// Which colour engine 1 plays in each start position.
enum class Assignment : std::uint8_t { kBoth, kWhite, kBlack, kToMove, kNotToMove };

struct Opening {
  chess::Position start;            // no history
  std::vector<chess::Move> moves;   // played from start before the engines take over (book lines)
  std::string label;                // e.g. the source line
};

struct GameOutcome {
  int index = 0;                // 1-based
  bool engine1_white = true;
  std::string result;           // 1-0, 0-1, 1/2-1/2
  std::string reason;           // checkmate, stalemate, threefold repetition, ...
  int plies = 0;                // moves the engines played
  std::string start_fen;        // position the engines started from
  std::string pgn;
  [[nodiscard]] int engine1_half_points() const;  // 2 win, 1 draw, 0 loss
};

struct MatchConfig {
  EngineSpec engine1, engine2;
  TimeControl time;
  Assignment assignment = Assignment::kBoth;
  int max_plies = 600;          // then adjudicated a draw
  std::string event = "tbkit match";
  std::string experience;       // non-empty: each game, both engines' moves, is recorded in the
                                // experience store at this base path (journal = base + ".exp")
};

struct MatchSummary {
  int wins = 0, draws = 0, losses = 0;  // engine 1's
  std::string name1, name2;
};

// Plays every opening (twice with colours swapped for kBoth). on_game is called after each game.
// Errors: kIo when an engine cannot be started or does not answer "uci" / "isready".
[[nodiscard]] Result<MatchSummary> run_match(const MatchConfig& config, const std::vector<Opening>& openings,
                                             const std::function<void(const GameOutcome&)>& on_game);

}  // namespace tbkit::player
