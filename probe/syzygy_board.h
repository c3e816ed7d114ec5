// ProbeBoard: the small copy-make position Syzygy probing searches on (probe/syzygy_tablebase.cpp),
// with the legal moves that search needs and no more: captures (en passant and promotions included),
// optionally pawn moves, and whether any other legal move exists. A ProbeBoard carries its material
// key, updated per move, so that finding a table costs no board scan. Internal to the probe
// library; public for its tests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "chess/position.h"
#include "chess/types.h"

namespace tbkit::probe::detail {

// A material: 4 bits per (colour, type) count, White's in the low 24 bits.
using MaterialKey = std::uint64_t;

[[nodiscard]] constexpr MaterialKey material_unit(chess::Color c, chess::PieceType t) {
  return MaterialKey{1} << (4 * (chess::index_of(c) * 6 + chess::index_of(t)));
}

// At most 4 moves per capture-promotion; no position has more than 128 captures and pawn moves.
class ZeroingMoves {
 public:
  ZeroingMoves() {}
  void push(chess::Move m) { storage_.moves[size_++] = m; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const chess::Move* begin() const { return storage_.moves.data(); }
  [[nodiscard]] const chess::Move* end() const { return storage_.moves.data() + size_; }

 private:
  // A union member is left uninitialised (only the first size_ entries are read): each search level
  // would otherwise clear 320 bytes.
  union Storage {
    Storage() {}
    std::array<chess::Move, 160> moves;
  } storage_;
  std::size_t size_ = 0;
};

struct ProbeBoard {
  std::array<chess::Bitboard, 2> colour{};
  std::array<chess::Bitboard, chess::kPieceTypeCount> type{};
  chess::Color side = chess::Color::kWhite;
  chess::Square en_passant = chess::Square::none();  // as Position: set only when a pawn could take
  MaterialKey key = 0;

  // The board, side to move and en-passant right of a position (castling rights are not kept).
  [[nodiscard]] static ProbeBoard of(const chess::Position& pos);
  // The same from bitboards (colours, and types pawn..king), accepting exactly the boards
  // chess::Position::from_setup accepts without castling rights (disjoint and covering bitboards,
  // one king a side, no pawn on rank 1 or 8, at most 8 pawns and 16 men a side, the side not to move
  // not in check, an en-passant square behind a pushed pawn with both squares it passed empty) and
  // keeping the en-passant square, as it does, only when a pawn could take: nullopt otherwise. For
  // the C API, which so probes without building a Position.
  [[nodiscard]] static std::optional<ProbeBoard> from_bitboards(chess::Bitboard white, chess::Bitboard black,
                                                               const std::array<chess::Bitboard, chess::kPieceTypeCount>& types,
                                                               chess::Color side, chess::Square en_passant);

  [[nodiscard]] chess::Bitboard occupied() const { return colour[0] | colour[1]; }
  [[nodiscard]] chess::Bitboard pieces(chess::Color c, chess::PieceType t) const {
    return colour[std::size_t(chess::index_of(c))] & type[std::size_t(chess::index_of(t))];
  }
  // The type of the piece on an occupied square.
  [[nodiscard]] chess::PieceType type_on(chess::Square s) const;

  // The position after a legal move of the side to move (castling excepted).
  [[nodiscard]] ProbeBoard after(chess::Move m) const;
};

// Appends the legal captures (en passant and every capture-promotion included) and, with
// `pawn_moves`, the legal pawn pushes (promotions to every piece), in the order chess::generate_legal
// gives them.
void generate_zeroing(const ProbeBoard& b, bool pawn_moves, ZeroingMoves& out);

// Whether the side to move has a legal move that is no capture (and, with `pawn_moves_excluded`,
// no pawn move either).
[[nodiscard]] bool has_other_legal_move(const ProbeBoard& b, bool pawn_moves_excluded);

}  // namespace tbkit::probe::detail
