// Move notation: UCI long algebraic and SAN, in and out.
#pragma once

#include <string>
#include <string_view>

#include "chess/position.h"
#include "chess/result.h"

namespace tbkit::chess {

// Piece type of an uppercase SAN letter (P N B R Q K), or kNone.
[[nodiscard]] PieceType piece_type_from_letter(char c);
// Promotion piece of a letter in either case (n b r q), or kNone.
[[nodiscard]] PieceType promotion_from_letter(char c);

// "e2e4", "e7e8q", castling as the king's move "e1g1".
[[nodiscard]] std::string to_uci(Move m);
// Parses UCI text against the position and returns the legal move it names. Accepts castling
// written king-takes-rook (e1h1) too. Errors: kInvalidArgument (malformed), kIllegal (not legal).
[[nodiscard]] Result<Move> parse_uci(const Position& pos, std::string_view text);

// SAN with minimal disambiguation and '+' or '#'. m must be legal in pos.
[[nodiscard]] std::string to_san(const Position& pos, Move m);
// Parses SAN in the forms found in real games: O-O/0-0, O-O-O/0-0-0, e8=Q/e8Q/e8(Q), optional 'x'
// or ':', '-' between squares, suffixes + # ! ? !! ?? !? ?!, a redundant 'P' on pawn moves, and
// over-disambiguated or long-algebraic moves (Ng1f3). Errors name the reason: illegal, ambiguous
// (listing the candidates), missing promotion piece, malformed.
[[nodiscard]] Result<Move> parse_san(const Position& pos, std::string_view text);

}  // namespace tbkit::chess
