// Writes a played game as PGN text (export format: seven-tag roster, SetUp/FEN for other starts,
// SAN moves, a closing comment naming how the game ended).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "chess/position.h"

namespace tbkit::player {

struct GameRecord {
  std::vector<std::pair<std::string, std::string>> tags;  // in order; Result is taken from `result`
  chess::Position start;                                  // without history
  std::vector<chess::Move> moves;                         // legal from start
  std::string result = "*";                               // 1-0, 0-1, 1/2-1/2, *
  std::string termination;                                // e.g. "checkmate", "time forfeit"
};

// The game as PGN text ending in a blank line.
[[nodiscard]] std::string format_pgn(const GameRecord& game);

// Today's date as PGN wants it (YYYY.MM.DD, UTC).
[[nodiscard]] std::string pgn_date_today();

}  // namespace tbkit::player
