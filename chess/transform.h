// Board symmetries the tablebase generator uses.
#pragma once

#include "chess/position.h"
#include "chess/result.h"

namespace tbkit::chess {

enum class Transform : std::uint8_t {
  kColorFlip,     // swap colours and ranks, side to move, castling and en passant follow
  kFileMirror,    // a-file <-> h-file; no castling rights allowed
  kRankMirror,    // rank 1 <-> rank 8 without swapping colours; no pawns or castling allowed
  kDiagonalFlip,  // a1-h8 diagonal reflection; no pawns or castling allowed
};

[[nodiscard]] constexpr Square transform_square(Square s, Transform t) {
  switch (t) {
    case Transform::kColorFlip: return s.flipped_rank();
    case Transform::kFileMirror: return s.flipped_file();
    case Transform::kRankMirror: return s.flipped_rank();
    case Transform::kDiagonalFlip: return s.flipped_diagonal();
  }
  return s;
}

// The transformed position, with history dropped. Errors (kIllegal) when the transform does not
// preserve the rules for this position, as listed above.
[[nodiscard]] Result<Position> transform(const Position& pos, Transform t);

}  // namespace tbkit::chess
