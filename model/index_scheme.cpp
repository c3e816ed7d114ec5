#include "model/index_scheme.h"

#include <algorithm>
#include <cassert>

#if defined(TBKIT_USE_PEXT)
#include <immintrin.h>
#endif

namespace tbkit::model {

using namespace chess;

namespace {

using detail::kBinomials;
using detail::kMaxGroup;
using detail::kPawnSquares;

bool in_triangle(Square s) { return s.file() <= 3 && s.rank() <= s.file(); }
bool on_diagonal(Square s) { return s.file() == s.rank(); }
bool kings_touch(Square a, Square b) { return a == b || (king_attacks(a) & b.bb()); }

// The n-th (0-based) set bit of mask.
Square select_bit(Bitboard mask, int n) {
#if defined(TBKIT_USE_PEXT)
  return lsb(_pdep_u64(Bitboard{1} << n, mask));
#else
  while (n-- > 0) mask &= mask - 1;
  return lsb(mask);
#endif
}

}  // namespace

IndexScheme::IndexScheme(const Material& material) : material_(material), pawns_(material.has_pawns()) {
  pair_index_.assign(64 * 64, -1);
  pair_transform_.assign(64 * 64, 0);
  const int transforms = pawns_ ? 2 : 8;
  auto canonical = [&](Square wk, Square bk) {
    if (pawns_) return wk.file() <= 3;
    if (!in_triangle(wk)) return false;
    return !on_diagonal(wk) || bk.rank() <= bk.file();
  };
  for (int wk = 0; wk < 64; ++wk)
    for (int bk = 0; bk < 64; ++bk) {
      if (kings_touch(Square(wk), Square(bk)) || !canonical(Square(wk), Square(bk))) continue;
      pair_index_[wk * 64 + bk] = std::int16_t(pair_squares_.size());
      pair_squares_.push_back({std::uint8_t(wk), std::uint8_t(bk)});
    }
  for (int wk = 0; wk < 64; ++wk)
    for (int bk = 0; bk < 64; ++bk)
      for (int t = 0; t < transforms; ++t)
        if (canonical(apply_symmetry(t, Square(wk)), apply_symmetry(t, Square(bk)))) {
          pair_transform_[wk * 64 + bk] = std::uint8_t(t);
          break;
        }

  // Pawn groups first (they live on 48 squares), then pieces; White before Black, heavy first.
  int pawns_before = 0, men_before = 2;
  for (Color c : {Color::kWhite, Color::kBlack}) {
    const int n = material.count(c, PieceType::kPawn);
    if (n == 0) continue;
    groups_.push_back({c, PieceType::kPawn, n, 48 - pawns_before, 0, 0});
    pawns_before += n;
    men_before += n;
  }
  for (Color c : {Color::kWhite, Color::kBlack})
    for (PieceType t : {PieceType::kQueen, PieceType::kRook, PieceType::kBishop, PieceType::kKnight}) {
      const int n = material.count(c, t);
      if (n == 0) continue;
      groups_.push_back({c, t, n, 64 - men_before, 0, 0});
      men_before += n;
    }
  assert(groups_.size() <= kMaxGroups);
  for (auto& row : group_of_) row.fill(-1);
  for (std::size_t g = 0; g < groups_.size(); ++g)
    group_of_[index_of(groups_[g].color)][index_of(groups_[g].type)] = std::int8_t(g);
  std::uint64_t stride = 1;
  for (auto it = groups_.rbegin(); it != groups_.rend(); ++it) {
    assert(it->count <= kMaxGroup);
    it->combinations = kBinomials.c[it->slots][it->count];
    it->stride = stride;
    stride *= it->combinations;
  }
  pair_stride_ = stride;
  size_ = stride * pair_squares_.size();
}

std::uint64_t IndexScheme::encode_with(const Board& b, int t) const {
  const Square wk = apply_symmetry(t, b.king(Color::kWhite));
  const Square bk = apply_symmetry(t, b.king(Color::kBlack));
  const int pair = pair_index_[wk.index() * 64 + bk.index()];
  assert(pair >= 0);
  std::uint64_t index = std::uint64_t(pair) * pair_stride_;
  Bitboard men = wk.bb() | bk.bb(), pawns = 0;
  for (const Group& g : groups_) {
    std::array<int, kMaxGroup> sq{};
    int n = 0;
    for (Bitboard bb = b.pieces(g.color, g.type); bb && n < kMaxGroup;) {
      // Insertion sort: the symmetry does not keep square order.
      int s = apply_symmetry(t, pop_lsb(bb)).index(), j = n++;
      for (; j > 0 && sq[j - 1] > s; --j) sq[j] = sq[j - 1];
      sq[j] = s;
    }
    assert(n == g.count);
    const bool is_pawn = g.type == PieceType::kPawn;
    const Bitboard avail = is_pawn ? kPawnSquares & ~pawns : ~men;
    std::uint64_t combo = 0;
    Bitboard placed = 0;
    for (int j = 0; j < n; ++j) {
      const int rank = popcount(avail & ((Bitboard{1} << sq[j]) - 1));
      combo += kBinomials.c[rank][j + 1];
      placed |= Bitboard{1} << sq[j];
    }
    index += combo * g.stride;
    men |= placed;
    if (is_pawn) pawns |= placed;
  }
  return index;
}

std::uint64_t IndexScheme::encode_identity(const Board& b) const {
  const Square wk = b.king(Color::kWhite), bk = b.king(Color::kBlack);
  const int pair = pair_index_[wk.index() * 64 + bk.index()];
  assert(pair >= 0);
  std::uint64_t index = std::uint64_t(pair) * pair_stride_;
  Bitboard men = wk.bb() | bk.bb(), pawns = 0;
  // Without a symmetry the squares come out of the bitboard already in increasing order.
  for (const Group& g : groups_) {
    const Bitboard placed = b.pieces(g.color, g.type);
    const bool is_pawn = g.type == PieceType::kPawn;
    const Bitboard avail = is_pawn ? kPawnSquares & ~pawns : ~men;
    index += combination_rank(placed, avail) * g.stride;
    men |= placed;
    if (is_pawn) pawns |= placed;
  }
  return index;
}

bool IndexScheme::place_last(std::uint64_t rank, Board& b) const {
  assert(rank < groups_.back().combinations);
  if (diagonal_case(b)) return false;
  const Group& g = groups_.back();
  const Bitboard placed = b.pieces(g.color, g.type);
  return place_group(g, placed, unrank(g, rank, last_available(b, placed)), b);
}

Bitboard IndexScheme::unrank(const Group& g, std::uint64_t combo, Bitboard avail) {
  if (g.count == 1) return select_bit(avail, int(combo)).bb();
  Bitboard placed = 0;
  int hi = g.slots - 1;
  for (int j = g.count; j >= 1; --j) {
    // The largest p <= hi with C(p, j) <= combo (C(j-1, j) = 0 always qualifies).
    int lo = j - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (kBinomials.c[mid][j] <= combo) lo = mid;
      else hi = mid - 1;
    }
    combo -= kBinomials.c[lo][j];
    placed |= select_bit(avail, lo).bb();
    hi = lo - 1;
  }
  return placed;
}

int IndexScheme::group_placements(const Board& b, std::array<GroupPlacement, kMaxGroups>& out) const {
  Bitboard men = b.by_type[index_of(PieceType::kKing)], pawns = 0;
  for (std::size_t h = 0; h < groups_.size(); ++h) {
    const Group& gr = groups_[h];
    const Bitboard placed = b.pieces(gr.color, gr.type);
    const bool is_pawn = gr.type == PieceType::kPawn;
    out[h] = {is_pawn ? kPawnSquares & ~pawns : ~men, placed, gr.stride, gr.count, is_pawn};
    men |= placed;
    if (is_pawn) pawns |= placed;
  }
  return int(groups_.size());
}

std::uint64_t IndexScheme::encode(const Board& b) const {
  const Square wk0 = b.king(Color::kWhite), bk0 = b.king(Color::kBlack);
  const int t = pair_transform_[wk0.index() * 64 + bk0.index()];
  const std::uint64_t first = t == 0 ? encode_identity(b) : encode_with(b, t);
  if (pawns_) return first;
  const Square wk = t == 0 ? wk0 : apply_symmetry(t, wk0);
  const Square bk = t == 0 ? bk0 : apply_symmetry(t, bk0);
  if (!on_diagonal(wk) || !on_diagonal(bk)) return first;
  // Both kings on the diagonal: the diagonal swap keeps them canonical; take the smaller image.
  return std::min(first, encode_with(b, t ^ 4));
}

bool IndexScheme::decode(std::uint64_t index, Color side, Board& out) const {
  assert(index < size_);
  out = Board{};
  out.side = side;
  const auto& pair = pair_squares_[index / pair_stride_];
  std::uint64_t rest = index % pair_stride_;
  out.put(Color::kWhite, PieceType::kKing, Square(pair[0]));
  out.put(Color::kBlack, PieceType::kKing, Square(pair[1]));
  Bitboard men = out.occupied(), pawns = 0;
  for (const Group& g : groups_) {
    std::uint64_t combo = rest / g.stride;
    rest %= g.stride;
    const bool is_pawn = g.type == PieceType::kPawn;
    const Bitboard avail = is_pawn ? kPawnSquares & ~pawns : ~men;
    const Bitboard placed = unrank(g, combo, avail);
    if (placed & men) return false;  // a pawn on a king's square
    for (Bitboard bb = placed; bb;) out.put(g.color, g.type, pop_lsb(bb));
    men |= placed;
    if (is_pawn) pawns |= placed;
  }
  // Only with both kings on the diagonal can a decoded board be the non-canonical image.
  if (pawns_ || !on_diagonal(Square(pair[0])) || !on_diagonal(Square(pair[1]))) return true;
  return encode(out) == index;
}

int IndexScheme::diagonal_stabilizer_size(const Board& b) const {
  const Square wk = b.king(Color::kWhite), bk = b.king(Color::kBlack);
  for (int t : {4, 7}) {  // the two diagonal reflections; only they can fix both kings
    if (apply_symmetry(t, wk) != wk || apply_symmetry(t, bk) != bk) continue;
    bool same = true;
    for (int c = 0; c < 2 && same; ++c)
      for (int p = 0; p < 6 && same; ++p) {
        Bitboard image = 0;
        for (Bitboard bb = b.pieces(Color(c), PieceType(p)); bb;) image |= apply_symmetry(t, pop_lsb(bb)).bb();
        same = image == b.pieces(Color(c), PieceType(p));
      }
    if (same) return 2;
  }
  return 1;
}

}  // namespace tbkit::model
