// Core value types: Color, PieceType, Piece, Square, Move, Bitboard.
#pragma once

#include <bit>
#include <cassert>
#include <cstdint>
#include <string>

namespace tbkit::chess {

using Bitboard = std::uint64_t;

enum class Color : std::uint8_t { kWhite = 0, kBlack = 1 };
[[nodiscard]] constexpr Color operator~(Color c) { return Color(std::uint8_t(c) ^ 1U); }
[[nodiscard]] constexpr int index_of(Color c) { return int(c); }

enum class PieceType : std::uint8_t { kPawn = 0, kKnight, kBishop, kRook, kQueen, kKing, kNone };
[[nodiscard]] constexpr int index_of(PieceType t) { return int(t); }
inline constexpr int kPieceTypeCount = 6;

// A coloured piece, or none. Encoded as 2*type + color so 0..11 are real pieces.
class Piece {
 public:
  constexpr Piece() = default;
  constexpr Piece(Color c, PieceType t) : code_(std::uint8_t(2 * int(t) + int(c))) {}
  [[nodiscard]] static constexpr Piece none() { return Piece(); }
  [[nodiscard]] constexpr bool is_none() const { return code_ == kNoneCode; }
  [[nodiscard]] constexpr Color color() const { return Color(code_ & 1U); }
  [[nodiscard]] constexpr PieceType type() const { return is_none() ? PieceType::kNone : PieceType(code_ >> 1); }
  [[nodiscard]] constexpr int code() const { return code_; }
  // FEN letter: uppercase for White, lowercase for Black, '.' for none.
  [[nodiscard]] char letter() const;
  friend constexpr bool operator==(Piece, Piece) = default;

 private:
  static constexpr std::uint8_t kNoneCode = 12;
  std::uint8_t code_ = kNoneCode;
};

// A board square a1=0 .. h8=63, or none.
class Square {
 public:
  constexpr Square() = default;
  constexpr explicit Square(int index) : index_(std::uint8_t(index)) { assert(index >= 0 && index <= 64); }
  constexpr Square(int file, int rank) : index_(std::uint8_t(rank * 8 + file)) {}
  [[nodiscard]] static constexpr Square none() { return Square(64); }
  [[nodiscard]] constexpr bool is_none() const { return index_ == 64; }
  [[nodiscard]] constexpr int index() const { return index_; }
  [[nodiscard]] constexpr int file() const { return index_ & 7; }
  [[nodiscard]] constexpr int rank() const { return index_ >> 3; }
  [[nodiscard]] constexpr Bitboard bb() const { return Bitboard{1} << index_; }
  // Rank from the given side's point of view (0 = its back rank).
  [[nodiscard]] constexpr int relative_rank(Color c) const { return c == Color::kWhite ? rank() : 7 - rank(); }
  [[nodiscard]] constexpr Square flipped_rank() const { return Square(index_ ^ 56); }
  [[nodiscard]] constexpr Square flipped_file() const { return Square(index_ ^ 7); }
  [[nodiscard]] constexpr Square flipped_diagonal() const { return Square(rank(), file()); }
  [[nodiscard]] std::string name() const;
  friend constexpr bool operator==(Square, Square) = default;
  friend constexpr auto operator<=>(Square, Square) = default;

 private:
  std::uint8_t index_ = 64;
};

// A move in 16 bits: from (6), to (6), promotion piece (2), kind (2). Castling is encoded
// as the king's own move (e1g1), en passant as the capturing pawn's move.
class Move {
 public:
  enum class Kind : std::uint8_t { kNormal = 0, kPromotion = 1, kEnPassant = 2, kCastling = 3 };

  constexpr Move() = default;
  constexpr Move(Square from, Square to, Kind kind = Kind::kNormal, PieceType promo = PieceType::kKnight)
      : data_(std::uint16_t(from.index() | (to.index() << 6) | ((int(promo) - 1) << 12) | (int(kind) << 14))) {}
  [[nodiscard]] static constexpr Move none() { return Move(); }
  [[nodiscard]] constexpr bool is_none() const { return data_ == 0; }
  [[nodiscard]] constexpr Square from() const { return Square(data_ & 63); }
  [[nodiscard]] constexpr Square to() const { return Square((data_ >> 6) & 63); }
  [[nodiscard]] constexpr Kind kind() const { return Kind(data_ >> 14); }
  [[nodiscard]] constexpr bool is_promotion() const { return kind() == Kind::kPromotion; }
  [[nodiscard]] constexpr bool is_castling() const { return kind() == Kind::kCastling; }
  [[nodiscard]] constexpr bool is_en_passant() const { return kind() == Kind::kEnPassant; }
  [[nodiscard]] constexpr PieceType promotion() const {
    return is_promotion() ? PieceType(((data_ >> 12) & 3) + 1) : PieceType::kNone;
  }
  [[nodiscard]] constexpr std::uint16_t raw() const { return data_; }
  friend constexpr bool operator==(Move, Move) = default;

 private:
  std::uint16_t data_ = 0;
};

[[nodiscard]] constexpr int popcount(Bitboard b) { return std::popcount(b); }
[[nodiscard]] constexpr Square lsb(Bitboard b) { assert(b); return Square(std::countr_zero(b)); }
[[nodiscard]] constexpr Square pop_lsb(Bitboard& b) { Square s = lsb(b); b &= b - 1; return s; }
[[nodiscard]] constexpr bool more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }
// The board mirrored top to bottom (a1 <-> a8): each square's flipped_rank().
[[nodiscard]] constexpr Bitboard flip_ranks(Bitboard b) { return __builtin_bswap64(b); }

inline constexpr Bitboard kFileA = 0x0101010101010101ULL;
inline constexpr Bitboard kFileH = kFileA << 7;
inline constexpr Bitboard kRank1 = 0xFFULL;
inline constexpr Bitboard kRank8 = kRank1 << 56;
[[nodiscard]] constexpr Bitboard file_bb(int file) { return kFileA << file; }
[[nodiscard]] constexpr Bitboard rank_bb(int rank) { return kRank1 << (8 * rank); }

}  // namespace tbkit::chess
