// Attack tables: leapers, sliders (PEXT or magic indexing), and square-pair geometry.
// Tables are built once at static initialisation and are const afterwards; all functions
// are thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "chess/types.h"

#if defined(TBKIT_USE_PEXT)
#include <immintrin.h>
#endif

namespace tbkit::chess {

namespace detail {

struct SliderEntry {
  Bitboard mask = 0;       // relevant occupancy (edges excluded)
  Bitboard magic = 0;      // multiplier when PEXT is not used
  std::uint32_t offset = 0;
  std::uint8_t shift = 0;
};

struct AttackTables {
  std::array<Bitboard, 64> knight{};
  std::array<Bitboard, 64> king{};
  std::array<std::array<Bitboard, 64>, 2> pawn{};
  std::array<SliderEntry, 64> rook{};
  std::array<SliderEntry, 64> bishop{};
  std::vector<Bitboard> slider_table;
  std::array<std::array<Bitboard, 64>, 64> between{};  // squares strictly between, or 0
  std::array<std::array<Bitboard, 64>, 64> line{};     // full line through both, or 0
};

AttackTables build_attack_tables();
extern const AttackTables kTables;

[[nodiscard]] inline std::size_t slider_index(const SliderEntry& e, Bitboard occ) {
#if defined(TBKIT_USE_PEXT)
  return e.offset + _pext_u64(occ, e.mask);
#else
  return e.offset + (((occ & e.mask) * e.magic) >> e.shift);
#endif
}

}  // namespace detail

[[nodiscard]] inline Bitboard knight_attacks(Square s) { return detail::kTables.knight[s.index()]; }
[[nodiscard]] inline Bitboard king_attacks(Square s) { return detail::kTables.king[s.index()]; }
[[nodiscard]] inline Bitboard pawn_attacks(Color c, Square s) { return detail::kTables.pawn[index_of(c)][s.index()]; }
[[nodiscard]] inline Bitboard rook_attacks(Square s, Bitboard occ) {
  const auto& t = detail::kTables;
  return t.slider_table[detail::slider_index(t.rook[s.index()], occ)];
}
[[nodiscard]] inline Bitboard bishop_attacks(Square s, Bitboard occ) {
  const auto& t = detail::kTables;
  return t.slider_table[detail::slider_index(t.bishop[s.index()], occ)];
}
[[nodiscard]] inline Bitboard queen_attacks(Square s, Bitboard occ) { return rook_attacks(s, occ) | bishop_attacks(s, occ); }
[[nodiscard]] inline Bitboard between_bb(Square a, Square b) { return detail::kTables.between[a.index()][b.index()]; }
[[nodiscard]] inline Bitboard line_bb(Square a, Square b) { return detail::kTables.line[a.index()][b.index()]; }

// Attacks of a non-pawn piece type from s with the given occupancy.
[[nodiscard]] Bitboard piece_attacks(PieceType t, Square s, Bitboard occ);

// Shift a bitboard one rank towards the opponent of c.
[[nodiscard]] constexpr Bitboard pawn_push(Color c, Bitboard b) { return c == Color::kWhite ? b << 8 : b >> 8; }
// The squares pawns of colour c on `pawns` attack.
[[nodiscard]] constexpr Bitboard pawn_attacks_of(Color c, Bitboard pawns) {
  const Bitboard west = pawns & ~kFileA, east = pawns & ~kFileH;
  return c == Color::kWhite ? (west << 7) | (east << 9) : (west >> 9) | (east >> 7);
}

}  // namespace tbkit::chess
