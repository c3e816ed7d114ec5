// Evaluation terms. Piece-square values are built from simple geometric rules (centralisation,
// advancement, king shelter) rather than tuned tables; they are computed once at compile time.
#include "player/eval.h"

#include <algorithm>
#include <array>
#include <cstdlib>

namespace tbkit::player {
namespace {

using chess::Bitboard;
using chess::Color;
using chess::PieceType;
using chess::Square;

struct Score {
  int mg = 0;
  int eg = 0;
  Score& operator+=(Score o) { mg += o.mg; eg += o.eg; return *this; }
  Score& operator-=(Score o) { mg -= o.mg; eg -= o.eg; return *this; }
};

constexpr int kMgValue[6] = {90, 320, 335, 480, 960, 0};
constexpr int kEgValue[6] = {120, 290, 310, 520, 940, 0};
constexpr int kPhaseWeight[6] = {0, 1, 1, 2, 4, 0};
constexpr int kMaxPhase = 24;

// Distance of a square from the board centre, 0 (d4,e4,d5,e5) .. 3 (corners' files/ranks).
constexpr int centre_distance(int sq) {
  const int f = sq & 7, r = sq >> 3;
  const int df = f < 4 ? 3 - f : f - 4;
  const int dr = r < 4 ? 3 - r : r - 4;
  return df > dr ? df : dr;
}
constexpr int centre_manhattan(int sq) {
  const int f = sq & 7, r = sq >> 3;
  return (f < 4 ? 3 - f : f - 4) + (r < 4 ? 3 - r : r - 4);
}

struct Pst {
  std::array<std::array<Score, 64>, 6> table{};  // from White's point of view, by square
};

constexpr Pst build_pst() {
  Pst p;
  for (int sq = 0; sq < 64; ++sq) {
    const int f = sq & 7, r = sq >> 3;
    const int cd = centre_distance(sq), cm = centre_manhattan(sq);
    const bool central_file = f == 3 || f == 4;
    // Pawns: advance, central pawns matter in the middlegame, far advanced pawns in the endgame.
    Score pawn{(r - 1) * 4 + (central_file ? (r >= 3 ? 14 : (r == 1 ? -8 : 4)) : 0) + ((f == 2 || f == 5) && r >= 2 ? 4 : 0),
               (r - 1) * 8 + (r == 6 ? 20 : 0)};
    if (r == 0 || r == 7) pawn = {0, 0};
    p.table[0][sq] = pawn;
    p.table[1][sq] = {-6 * cm + 12 + (r == 0 ? -10 : 0), -5 * cm + 10};
    p.table[2][sq] = {-3 * cd + 8 + (r == 0 ? -8 : 0) + ((f == r || f + r == 7) ? 6 : 0), -3 * cd + 6};
    p.table[3][sq] = {(r == 6 ? 18 : 0) + (central_file && r == 0 ? 6 : 0) - (f == 0 || f == 7 ? 3 : 0), (r == 6 ? 12 : 0)};
    p.table[4][sq] = {-2 * cd + 4 + (r == 0 ? -2 : 0), -4 * cd + 8};
    // King: sheltered on the back rank near a corner in the middlegame; central in the endgame.
    int king_mg = r == 0 ? (f == 1 || f == 6 ? 24 : (f == 2 || f == 0 || f == 7 ? 12 : (f == 3 || f == 5 ? -6 : -2))) : -18 * r;
    if (r > 3) king_mg = -60;
    p.table[5][sq] = {king_mg, -10 * cd + 15};
  }
  return p;
}
constexpr Pst kPst = build_pst();

constexpr Bitboard kDark = 0xAA55AA55AA55AA55ULL;

int file_distance(Square a, Square b) { return std::abs(a.file() - b.file()); }
int rank_distance(Square a, Square b) { return std::abs(a.rank() - b.rank()); }
int distance(Square a, Square b) { return std::max(file_distance(a, b), rank_distance(a, b)); }

Bitboard adjacent_files(int f) {
  return (f > 0 ? chess::file_bb(f - 1) : 0) | (f < 7 ? chess::file_bb(f + 1) : 0);
}
// Squares in front of a pawn of colour c on sq, on its own and adjacent files.
Bitboard passed_span(Color c, Square sq) {
  const Bitboard files = chess::file_bb(sq.file()) | adjacent_files(sq.file());
  Bitboard ahead = 0;
  if (c == Color::kWhite) {
    for (int r = sq.rank() + 1; r < 8; ++r) ahead |= chess::rank_bb(r);
  } else {
    for (int r = sq.rank() - 1; r >= 0; --r) ahead |= chess::rank_bb(r);
  }
  return files & ahead;
}

constexpr int kPassedMg[8] = {0, 5, 8, 14, 28, 50, 80, 0};
constexpr int kPassedEg[8] = {0, 10, 16, 30, 55, 95, 150, 0};

Score pawn_terms(const chess::Position& pos, Color us) {
  Score s;
  const Bitboard ours = pos.pieces(us, PieceType::kPawn);
  const Bitboard theirs = pos.pieces(~us, PieceType::kPawn);
  Bitboard b = ours;
  while (b) {
    const Square sq = chess::pop_lsb(b);
    const int f = sq.file();
    if ((ours & adjacent_files(f)) == 0) s -= Score{12, 16};
    if (chess::more_than_one(ours & chess::file_bb(f))) s -= Score{8, 18};
    if ((theirs & passed_span(us, sq)) == 0) {
      const int rr = sq.relative_rank(us);
      s += Score{kPassedMg[rr], kPassedEg[rr]};
      // An endgame passer is worth more with our king near it and theirs far from it.
      const Square stop = Square(f, us == Color::kWhite ? std::min(7, sq.rank() + 1) : std::max(0, sq.rank() - 1));
      s.eg += (distance(pos.king_square(~us), stop) * 5 - distance(pos.king_square(us), stop) * 2) * rr / 3;
    }
  }
  return s;
}

Score piece_terms(const chess::Position& pos, Color us) {
  Score s;
  const Bitboard occ = pos.pieces();
  const Bitboard own = pos.pieces(us);
  const Bitboard their_pawns = pos.pieces(~us, PieceType::kPawn);
  Bitboard pawn_attacked = 0;
  for (Bitboard p = their_pawns; p;) pawn_attacked |= chess::pawn_attacks(~us, chess::pop_lsb(p));
  const Bitboard safe = ~own & ~pawn_attacked;
  for (Bitboard b = pos.pieces(us, PieceType::kKnight); b;) {
    const int m = chess::popcount(chess::knight_attacks(chess::pop_lsb(b)) & safe);
    s += Score{4 * (m - 4), 4 * (m - 4)};
  }
  for (Bitboard b = pos.pieces(us, PieceType::kBishop); b;) {
    const int m = chess::popcount(chess::bishop_attacks(chess::pop_lsb(b), occ) & safe);
    s += Score{4 * (m - 6), 5 * (m - 6)};
  }
  if (chess::more_than_one(pos.pieces(us, PieceType::kBishop))) s += Score{30, 50};
  const Bitboard our_pawns = pos.pieces(us, PieceType::kPawn);
  for (Bitboard b = pos.pieces(us, PieceType::kRook); b;) {
    const Square sq = chess::pop_lsb(b);
    const int m = chess::popcount(chess::rook_attacks(sq, occ) & safe);
    s += Score{2 * (m - 7), 4 * (m - 7)};
    const Bitboard file = chess::file_bb(sq.file());
    if ((file & our_pawns) == 0) s += (file & their_pawns) == 0 ? Score{25, 10} : Score{12, 5};
  }
  for (Bitboard b = pos.pieces(us, PieceType::kQueen); b;) {
    const int m = chess::popcount(chess::queen_attacks(chess::pop_lsb(b), occ) & safe);
    s += Score{1 * (m - 14), 2 * (m - 14)};
  }
  // King shelter: own pawns in front of a castled king.
  const Square k = pos.king_square(us);
  if (k.relative_rank(us) <= 1) {
    const Bitboard shield = (chess::king_attacks(k) | k.bb()) & passed_span(us, k) & our_pawns;
    s.mg += 10 * std::min(3, chess::popcount(shield));
  }
  return s;
}

// Non-pawn material of one side in the mop-up scale.
int material_of(const chess::Position& pos, Color c) {
  int v = 0;
  for (int t = 1; t <= 4; ++t) v += chess::popcount(pos.pieces(c, PieceType(t))) * kPieceValue[t];
  return v;
}

// Mop-up: with no pawns, a side with a mating advantage gains for a lone-ish enemy king near the edge
// (near a corner of the bishop's colour with bishop and knight) and for its own king close by.
int mop_up(const chess::Position& pos, Color strong) {
  const Square wk = pos.king_square(strong), lk = pos.king_square(~strong);
  int bonus = 10 * centre_manhattan(lk.index()) + 4 * (14 - (file_distance(wk, lk) + rank_distance(wk, lk)));
  const Bitboard bishops = pos.pieces(strong, PieceType::kBishop);
  if (bishops && pos.pieces(strong, PieceType::kKnight) && !pos.pieces(strong, PieceType::kRook) &&
      !pos.pieces(strong, PieceType::kQueen)) {
    // Corners a1/h8 are dark; the mate needs the corner of the bishop's colour.
    const bool dark = (bishops & kDark) != 0;
    const int d1 = dark ? std::min(distance(lk, Square(0)), distance(lk, Square(63)))
                        : std::min(distance(lk, Square(7)), distance(lk, Square(56)));
    bonus += 20 * (7 - d1) - 6 * centre_manhattan(lk.index());
  }
  return bonus;
}

}  // namespace

int evaluate(const chess::Position& pos) {
  Score total;
  int phase = 0;
  for (int ci = 0; ci < 2; ++ci) {
    const Color c = Color(ci);
    Score side;
    for (int t = 0; t < 6; ++t) {
      for (Bitboard b = pos.pieces(c, PieceType(t)); b;) {
        const Square sq = chess::pop_lsb(b);
        const int rel = c == Color::kWhite ? sq.index() : sq.flipped_rank().index();
        side += Score{kMgValue[t], kEgValue[t]};
        side += kPst.table[t][rel];
        phase += kPhaseWeight[t];
      }
    }
    side += pawn_terms(pos, c);
    side += piece_terms(pos, c);
    if (ci == 0) total += side; else total -= side;
  }
  phase = std::min(phase, kMaxPhase);
  int score = (total.mg * phase + total.eg * (kMaxPhase - phase)) / kMaxPhase;

  const bool no_pawns = pos.pieces(PieceType::kPawn) == 0;
  const int white_mat = material_of(pos, Color::kWhite), black_mat = material_of(pos, Color::kBlack);
  if (no_pawns) {
    const Color strong = white_mat >= black_mat ? Color::kWhite : Color::kBlack;
    const int diff = std::abs(white_mat - black_mat);
    const int strong_mat = std::max(white_mat, black_mat);
    // Without a rook's worth of advantage (or only a minor piece) pawnless endings are drawish.
    if (strong_mat < 500 || (diff < 400 && strong_mat < 1300)) {
      score /= 8;
    } else if (diff >= 400) {
      const int m = mop_up(pos, strong);
      score += strong == Color::kWhite ? m : -m;
    }
  } else {
    // A side with no pawns and at most a minor piece cannot win.
    for (int ci = 0; ci < 2; ++ci) {
      const Color c = Color(ci);
      const int mat = ci == 0 ? white_mat : black_mat;
      const bool ahead = ci == 0 ? score > 0 : score < 0;
      if (ahead && pos.pieces(c, PieceType::kPawn) == 0 && mat <= 330) score /= 8;
    }
  }
  const int tempo = 10;
  return (pos.side_to_move() == Color::kWhite ? score : -score) + tempo;
}

}  // namespace tbkit::player
