#include "chess/transform.h"

namespace tbkit::chess {

Result<Position> transform(const Position& pos, Transform t) {
  const PositionSetup in = pos.setup();
  const bool has_pawns = pos.pieces(PieceType::kPawn) != 0;
  if (t != Transform::kColorFlip && in.castling)
    return make_error(ErrorCode::kIllegal, "transform: castling rights do not survive a mirror");
  if ((t == Transform::kRankMirror || t == Transform::kDiagonalFlip) && has_pawns)
    return make_error(ErrorCode::kIllegal, "transform: pawns do not survive a rank mirror or diagonal flip");
  PositionSetup out = in;
  out.board.fill(Piece::none());
  for (int i = 0; i < 64; ++i) {
    Piece p = in.board[i];
    if (p.is_none()) continue;
    if (t == Transform::kColorFlip) p = Piece(~p.color(), p.type());
    out.board[transform_square(Square(i), t).index()] = p;
  }
  if (!in.en_passant.is_none()) out.en_passant = transform_square(in.en_passant, t);
  if (t == Transform::kColorFlip) {
    out.side = ~in.side;
    out.castling = std::uint8_t(((in.castling & 3) << 2) | ((in.castling >> 2) & 3));
  }
  return Position::from_setup(out);
}

}  // namespace tbkit::chess
