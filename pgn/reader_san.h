// Fast SAN resolution for the PGN reader: candidates come from attack tables and are checked for
// legality directly (pins, checks), without generating every legal move or printing SAN.
#pragma once

#include <string>
#include <string_view>

#include "chess/position.h"

namespace tbkit::pgn {

struct SanFailure {
  const char* reason_code = "";  // bad_san, illegal_move, ambiguous_move, missing_promotion
  std::string message;
};

// Resolves a move written in SAN (every form chess::parse_san accepts: suffixes, O-O/0-0, e8=Q/e8Q/
// e8(Q), x or :, '-' between squares, redundant P, over-disambiguation, long algebraic Ng1f3) or in
// UCI (e2e4, e7e8q, e1g1, e1h1 for castling) to the legal move it names in `pos`. Returns
// Move::none() and fills `failure` when it names no legal move or more than one. Null moves are not
// handled here. Thread-safe.
[[nodiscard]] chess::Move resolve_san(const chess::Position& pos, std::string_view text, SanFailure& failure);

}  // namespace tbkit::pgn
