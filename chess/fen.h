// FEN parsing and printing.
#pragma once

#include <string>
#include <string_view>

#include "chess/position.h"
#include "chess/result.h"

namespace tbkit::chess {

inline constexpr std::string_view kStartFen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// Parses a FEN strictly (see docs/fen.md): six fields, of which halfmove and fullmove may be missing.
// Errors are kInvalidArgument for malformed text and kIllegal for impossible positions; the message
// names the field and, for the board, the rank and character.
[[nodiscard]] Result<Position> parse_fen(std::string_view fen);

// Prints the position; the en-passant square appears only when a capture is pseudo-legal.
[[nodiscard]] std::string to_fen(const Position& pos);

}  // namespace tbkit::chess
