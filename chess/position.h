// Position: the board, side to move, castling, en passant, move counters and the state history
// that undo and repetition detection need. Moves are applied with make/unmake (do_move/undo_move).
// A Position is a copyable value; distinct objects may be used from different threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "chess/attacks.h"
#include "chess/result.h"
#include "chess/types.h"

namespace tbkit::chess {

// Castling right bits, in Polyglot's key order.
inline constexpr std::uint8_t kWhiteShort = 1;
inline constexpr std::uint8_t kWhiteLong = 2;
inline constexpr std::uint8_t kBlackShort = 4;
inline constexpr std::uint8_t kBlackLong = 8;

// Everything needed to construct a position, before validation.
struct PositionSetup {
  std::array<Piece, 64> board{};
  Color side = Color::kWhite;
  std::uint8_t castling = 0;
  Square en_passant = Square::none();  // the square a capturing pawn would move to
  int halfmove = 0;
  int fullmove = 1;
};

enum class GameStatus : std::uint8_t { kOngoing, kCheckmate, kStalemate, kInsufficientMaterial, kFiftyMoves, kRepetition };

class Position {
 public:
  // The standard starting position.
  Position();

  // Validates a setup: one king each, no pawns on ranks 1/8, side not to move not in check, castling
  // rights matching king and rook squares, a possible en-passant square, at most 16 men and 8 pawns a side.
  // The en-passant square is kept only when a pawn of the side to move stands beside the pushed pawn
  // (Polyglot's rule), so equal positions compare and hash equal. Errors name the field at fault.
  [[nodiscard]] static Result<Position> from_setup(const PositionSetup& setup);
  [[nodiscard]] PositionSetup setup() const;

  [[nodiscard]] Piece piece_on(Square s) const { return board_[s.index()]; }
  [[nodiscard]] Bitboard pieces() const { return by_color_[0] | by_color_[1]; }
  [[nodiscard]] Bitboard pieces(Color c) const { return by_color_[index_of(c)]; }
  [[nodiscard]] Bitboard pieces(PieceType t) const { return by_type_[index_of(t)]; }
  [[nodiscard]] Bitboard pieces(Color c, PieceType t) const { return by_color_[index_of(c)] & by_type_[index_of(t)]; }
  [[nodiscard]] Square king_square(Color c) const { return lsb(pieces(c, PieceType::kKing)); }
  [[nodiscard]] Color side_to_move() const { return side_; }
  [[nodiscard]] std::uint8_t castling_rights() const { return st().castling; }
  [[nodiscard]] Square en_passant() const { return st().en_passant; }
  [[nodiscard]] int halfmove_clock() const { return st().halfmove; }
  [[nodiscard]] int fullmove_number() const { return fullmove_; }
  [[nodiscard]] std::uint64_t key() const { return st().key; }
  [[nodiscard]] Bitboard checkers() const { return st().checkers; }
  [[nodiscard]] bool in_check() const { return st().checkers != 0; }
  [[nodiscard]] int ply_count() const { return int(states_.size()) - 1; }

  // Pieces of either colour attacking s, given an occupancy.
  [[nodiscard]] Bitboard attackers_to(Square s, Bitboard occupied) const;
  [[nodiscard]] bool is_attacked(Square s, Color by) const { return (attackers_to(s, pieces()) & pieces(by)) != 0; }
  // Pieces of colour c that alone block a slider's line to c's king (either colour's pieces).
  [[nodiscard]] Bitboard blockers_for_king(Color c) const;

  // Applies a legal move (precondition, asserted in debug builds) / takes back the last one.
  void do_move(Move m);
  void undo_move(Move m);
  // Passes the move (for search); not legal in check.
  void do_null_move();
  void undo_null_move();

  [[nodiscard]] bool gives_check(Move m) const;
  [[nodiscard]] bool is_capture(Move m) const { return m.is_en_passant() || (!board_[m.to().index()].is_none() && !m.is_castling()); }
  [[nodiscard]] Piece moved_piece(Move m) const { return board_[m.from().index()]; }

  // Number of earlier positions in the history equal to this one (same key, within the halfmove window).
  [[nodiscard]] int repetition_count() const;
  [[nodiscard]] bool has_insufficient_material() const;
  // Checkmate and stalemate take precedence over the draw rules.
  [[nodiscard]] GameStatus status() const;

  // The key recomputed from scratch (for checking the incremental key).
  [[nodiscard]] std::uint64_t compute_key() const;
  // Drops history so this position becomes the root (keeps counters).
  void clear_history();

  friend bool operator==(const Position& a, const Position& b);

 private:
  struct StateInfo {
    std::uint64_t key = 0;
    Bitboard checkers = 0;
    std::uint8_t castling = 0;
    Square en_passant = Square::none();
    Piece captured = Piece::none();
    std::uint16_t halfmove = 0;
  };

  struct Uninitialized {};
  explicit Position(Uninitialized) {}
  [[nodiscard]] const StateInfo& st() const { return states_.back(); }
  StateInfo& st() { return states_.back(); }
  void put_piece(Piece p, Square s);
  void remove_piece(Square s);
  void move_piece(Square from, Square to);
  [[nodiscard]] Bitboard compute_checkers() const;

  std::array<Bitboard, kPieceTypeCount> by_type_{};
  std::array<Bitboard, 2> by_color_{};
  std::array<Piece, 64> board_{};
  Color side_ = Color::kWhite;
  int fullmove_ = 1;
  std::vector<StateInfo> states_;
};

[[nodiscard]] const char* to_string(GameStatus s);

}  // namespace tbkit::chess
