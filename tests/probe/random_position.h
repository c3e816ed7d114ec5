// Random legal positions of a given material, with random side to move and an en-passant right
// where one is possible (for tests, the Gaviota verification and the probe benchmark).
#pragma once

#include <optional>
#include <random>

#include "chess/position.h"
#include "model/material.h"

namespace tbkit::testing {

// A random legal position with exactly the men of `m` (as given: White is White) and no castling
// rights. When `want_ep` and the side to move could have an en-passant capture, an opponent pawn is
// placed as if it had just made a double push and the right is set. Retries until legal.
inline chess::Position random_position(const model::Material& m, std::mt19937_64& rng, bool want_ep = false) {
  using namespace chess;
  std::uniform_int_distribution<int> square(0, 63);
  for (;;) {
    PositionSetup s;
    s.board.fill(Piece::none());
    s.side = Color(rng() & 1);
    Bitboard used = 0;
    auto place = [&](Piece p, Bitboard allowed) {
      for (;;) {
        const Square sq(square(rng));
        if ((used & sq.bb()) || !(allowed & sq.bb())) continue;
        used |= sq.bb();
        s.board[sq.index()] = p;
        return sq;
      }
    };
    const Bitboard pawn_squares = 0x00FFFFFFFFFFFF00ULL;
    int white_pawns = m.count(Color::kWhite, PieceType::kPawn), black_pawns = m.count(Color::kBlack, PieceType::kPawn);
    // An en-passant pair first: the opponent's pawn on its fourth rank with the two squares behind
    // it empty, and a pawn of the side to move beside it.
    const Color them = ~s.side;
    int& their_pawns = them == Color::kWhite ? white_pawns : black_pawns;
    int& our_pawns = them == Color::kWhite ? black_pawns : white_pawns;
    if (want_ep && their_pawns > 0 && our_pawns > 0) {
      const int file = int(rng() % 8);
      const int rank = them == Color::kWhite ? 3 : 4;
      const int dir = them == Color::kWhite ? -1 : 1;
      const int side_file = file == 0 ? 1 : file == 7 ? 6 : file + ((rng() & 1) ? 1 : -1);
      const Square pushed(file, rank), ours(side_file, rank);
      const Square behind(file, rank + dir), origin(file, rank + 2 * dir);
      s.board[pushed.index()] = Piece(them, PieceType::kPawn);
      s.board[ours.index()] = Piece(s.side, PieceType::kPawn);
      used |= pushed.bb() | ours.bb() | behind.bb() | origin.bb();  // reserved: behind and origin stay empty
      --their_pawns;
      --our_pawns;
      s.en_passant = behind;
    }
    place(Piece(Color::kWhite, PieceType::kKing), ~Bitboard{0});
    place(Piece(Color::kBlack, PieceType::kKing), ~Bitboard{0});
    for (Color c : {Color::kWhite, Color::kBlack})
      for (PieceType t : {PieceType::kQueen, PieceType::kRook, PieceType::kBishop, PieceType::kKnight})
        for (int i = 0; i < m.count(c, t); ++i) place(Piece(c, t), ~Bitboard{0});
    for (int i = 0; i < white_pawns; ++i) place(Piece(Color::kWhite, PieceType::kPawn), pawn_squares);
    for (int i = 0; i < black_pawns; ++i) place(Piece(Color::kBlack, PieceType::kPawn), pawn_squares);
    auto pos = Position::from_setup(s);
    if (pos) return std::move(*pos);
  }
}

}  // namespace tbkit::testing
