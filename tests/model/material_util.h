// Materials by name for the table model tests ("KRvKN"); the name must be valid. Random boards of
// a material.
#pragma once

#include <random>

#include "model/board.h"
#include "model/material.h"

namespace tbkit::model::testing {

inline Material mat(const char* name) { return Material::parse(name).value(); }

// Places the men of `m` on random distinct squares (pawns off the first and last ranks, kings apart)
// until such a board comes up; the side to move is random too, and may have the other king in check.
inline Board random_board(const Material& m, std::mt19937_64& rng) {
  using namespace chess;
  for (;;) {
    Board b;
    b.side = Color(rng() & 1);
    bool ok = true;
    auto place = [&](Color c, PieceType t) {
      Square s(int(rng() % 64));
      if (b.occupied() & s.bb()) ok = false;
      if (t == PieceType::kPawn && (s.rank() == 0 || s.rank() == 7)) ok = false;
      b.put(c, t, s);
    };
    place(Color::kWhite, PieceType::kKing);
    place(Color::kBlack, PieceType::kKing);
    for (int c = 0; c < 2; ++c)
      for (int t = 0; t < 5; ++t)
        for (int k = 0; k < m.count(Color(c), PieceType(t)); ++k) place(Color(c), PieceType(t));
    if (ok && b.material() == m && !(king_attacks(b.king(Color::kWhite)) & b.pieces(Color::kBlack, PieceType::kKing)))
      return b;
  }
}

}  // namespace tbkit::model::testing
