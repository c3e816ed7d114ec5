// Polyglot Zobrist keys (Random64 table of the Polyglot book format spec).
#pragma once

#include <array>
#include <cstdint>

#include "chess/types.h"

namespace tbkit::chess::zobrist {

inline constexpr std::array<std::uint64_t, 781> kRandom64 = {
#include "chess/polyglot_random.inc"
};

// Polyglot "kind of piece": black pawn 0, white pawn 1, ..., white king 11.
[[nodiscard]] constexpr int polyglot_kind(Piece p) { return 2 * index_of(p.type()) + (p.color() == Color::kWhite ? 1 : 0); }
[[nodiscard]] constexpr std::uint64_t piece_key(Piece p, Square s) { return kRandom64[64 * polyglot_kind(p) + s.index()]; }
// Castling bit i: 0 white short, 1 white long, 2 black short, 3 black long.
[[nodiscard]] constexpr std::uint64_t castling_key(int bit) { return kRandom64[768 + bit]; }
[[nodiscard]] constexpr std::uint64_t en_passant_key(int file) { return kRandom64[772 + file]; }
[[nodiscard]] constexpr std::uint64_t white_to_move_key() { return kRandom64[780]; }

}  // namespace tbkit::chess::zobrist
