#include "model/board.h"

#include "chess/fen.h"

namespace tbkit::model {

using namespace chess;

PieceType Board::type_on(Square s) const {
  for (int t = 0; t < 6; ++t)
    if (by_type[t] & s.bb()) return PieceType(t);
  return PieceType::kNone;
}

Material Board::material() const {
  Material m;
  for (Color c : {Color::kWhite, Color::kBlack})
    for (int t = 0; t < 5; ++t) m.set_count(c, PieceType(t), popcount(pieces(c, PieceType(t))));
  return m;
}

Board board_from_position(const Position& pos) {
  Board b;
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 6; ++t) {
      b.by_color[c] |= pos.pieces(Color(c), PieceType(t));
      b.by_type[t] |= pos.pieces(Color(c), PieceType(t));
    }
  b.side = pos.side_to_move();
  return b;
}

Result<Position> board_to_position(const Board& b, Square en_passant) {
  PositionSetup s;
  s.board.fill(Piece::none());
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 6; ++t)
      for (Bitboard bb = b.pieces(Color(c), PieceType(t)); bb;) s.board[pop_lsb(bb).index()] = Piece(Color(c), PieceType(t));
  s.side = b.side;
  s.en_passant = en_passant;
  return Position::from_setup(s);
}

std::string board_to_fen(const Board& b) {
  auto pos = board_to_position(b);
  return pos ? to_fen(*pos) : std::string("(illegal)");
}

Board color_flipped(const Board& b) {
  Board f;
  for (int c = 0; c < 2; ++c) {
    f.by_color[1 - c] = chess::flip_ranks(b.by_color[c]);
  }
  for (int t = 0; t < 6; ++t) f.by_type[t] = chess::flip_ranks(b.by_type[t]);
  f.side = ~b.side;
  return f;
}

}  // namespace tbkit::model
