// Board: the generator's light position (bitboards and side to move; no castling, no history).
// Move and un-move enumeration for tablebase positions. All functions are pure and thread-safe.
#pragma once

#include <array>
#include <string>

#include "chess/attacks.h"
#include "chess/position.h"
#include "chess/types.h"
#include "model/material.h"

namespace tbkit::model {

struct Board {
  std::array<chess::Bitboard, 2> by_color{};
  std::array<chess::Bitboard, 6> by_type{};
  chess::Color side = chess::Color::kWhite;

  [[nodiscard]] chess::Bitboard occupied() const { return by_color[0] | by_color[1]; }
  [[nodiscard]] chess::Bitboard pieces(chess::Color c, chess::PieceType t) const {
    return by_color[index_of(c)] & by_type[index_of(t)];
  }
  [[nodiscard]] chess::Square king(chess::Color c) const { return chess::lsb(pieces(c, chess::PieceType::kKing)); }
  [[nodiscard]] chess::PieceType type_on(chess::Square s) const;
  void put(chess::Color c, chess::PieceType t, chess::Square s) {
    by_color[index_of(c)] |= s.bb();
    by_type[index_of(t)] |= s.bb();
  }
  void remove(chess::Color c, chess::PieceType t, chess::Square s) {
    by_color[index_of(c)] &= ~s.bb();
    by_type[index_of(t)] &= ~s.bb();
  }
  [[nodiscard]] Material material() const;
  // material().key() without building the Material (probes of other tables look it up per move).
  [[nodiscard]] std::uint32_t material_key() const {
    std::uint32_t k = 0;
    for (int c = 0; c < 2; ++c)
      for (int t = 0; t < 5; ++t) k |= Material::key_term(c, t, chess::popcount(by_color[c] & by_type[t]));
    return k;
  }
  friend bool operator==(const Board&, const Board&) = default;
};

// Whether square s is attacked by colour `by` with occupancy occ.
[[nodiscard]] inline bool is_attacked(const Board& b, chess::Square s, chess::Color by, chess::Bitboard occ) {
  using chess::PieceType;
  const chess::Bitboard them = b.by_color[index_of(by)];
  if (chess::pawn_attacks(~by, s) & them & b.by_type[index_of(PieceType::kPawn)]) return true;
  if (chess::knight_attacks(s) & them & b.by_type[index_of(PieceType::kKnight)]) return true;
  if (chess::king_attacks(s) & them & b.by_type[index_of(PieceType::kKing)]) return true;
  const chess::Bitboard queens = b.by_type[index_of(PieceType::kQueen)];
  const chess::Bitboard rooks = them & (b.by_type[index_of(PieceType::kRook)] | queens);
  if (rooks && (chess::rook_attacks(s, occ) & rooks)) return true;
  const chess::Bitboard bishops = them & (b.by_type[index_of(PieceType::kBishop)] | queens);
  return bishops && (chess::bishop_attacks(s, occ) & bishops);
}
// True when the side not to move is not in check (the men themselves are assumed well placed).
[[nodiscard]] inline bool is_legal(const Board& b) { return !is_attacked(b, b.king(~b.side), b.side, b.occupied()); }
[[nodiscard]] inline bool in_check(const Board& b) { return is_attacked(b, b.king(b.side), ~b.side, b.occupied()); }

// The board with colours swapped and ranks mirrored (same game value for the side to move).
[[nodiscard]] Board color_flipped(const Board& b);

// Board <-> Position (no castling, no en passant). from_position requires no castling rights.
[[nodiscard]] Board board_from_position(const chess::Position& pos);
[[nodiscard]] Result<chess::Position> board_to_position(const Board& b, chess::Square en_passant = chess::Square::none());
[[nodiscard]] std::string board_to_fen(const Board& b);

enum class MoveKind : std::uint8_t {
  kQuiet,       // stays in the table: no capture, no promotion, not a double push
  kDoublePush,  // stays in the table; ep_square tells where the opponent could capture en passant
  kConversion,  // capture or promotion: the child belongs to another table
};

struct MoveInfo {
  MoveKind kind = MoveKind::kQuiet;
  chess::Square from;
  chess::Square to;
  chess::Square ep_square;  // for kDoublePush
};

// Calls f(child, info) for every legal move of b.side; child has the other side to move.
template <class F>
void for_each_legal_move(const Board& b, F&& f);

// As for_each_legal_move, except that the non-capturing moves of pieces (not pawns), in check or
// not, are reported together, without building the children: bulk(type, from, targets) with
// `targets` the (non-empty) set of their destination squares; f gets all the other moves.
template <class Bulk, class F>
void for_each_legal_move_bulk(const Board& b, Bulk&& bulk, F&& f);

// Calls f(grandchild) for every legal en-passant capture in `b` (side to move captures) onto ep_square.
template <class F>
void for_each_en_passant(const Board& b, chess::Square ep_square, F&& f);

struct UnmoveInfo {
  chess::PieceType type;  // the moved man
  chess::Square from;  // the moved man's square in the predecessor
  chess::Square to;    // its square in the successor
  bool double_push = false;
};

// Calls f(pred, info) for every legal predecessor of b reached by a non-capturing, non-promoting
// move of the side that just moved (~b.side); pred has that side to move. Men on the squares of
// `skip` are not moved, nor is that side's king to the squares of `king_skip`.
template <class F>
void for_each_unmove(const Board& b, F&& f, chess::Bitboard skip = 0, chess::Bitboard king_skip = 0);

}  // namespace tbkit::model

#include "model/board_moves.inl"

namespace tbkit::model {

// Whether b.side has a legal move (boards carry no en-passant right, so an en-passant capture is
// not one). With in_check: false and not in check is stalemate, false and in check is mate.
[[nodiscard]] inline bool has_legal_move(const Board& b) {
  bool any = false;
  for_each_legal_move(b, [&](const Board&, const MoveInfo&) { any = true; });
  return any;
}

}  // namespace tbkit::model
