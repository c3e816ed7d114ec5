// IndexScheme: the symmetry-reduced, compact index of one material's positions (docs/index.md).
// Immutable after construction; all methods are thread-safe.
#pragma once

#include <array>
#include <cassert>
#include <cstdint>
#include <vector>

#include "model/board.h"
#include "model/material.h"

namespace tbkit::model {

// The two long diagonals, a1-h8 and h1-a8 (they share no square).
inline constexpr chess::Bitboard kMainDiagonal = 0x8040201008040201ULL, kAntiDiagonal = 0x0102040810204080ULL;

// Whether both kings stand on one long diagonal: only then can a pawnless board be its own image
// under a symmetry other than the identity.
[[nodiscard]] inline bool kings_on_long_diagonal(const Board& b) {
  const chess::Bitboard kings = b.by_type[index_of(chess::PieceType::kKing)];
  return (kings & kMainDiagonal) == kings || (kings & kAntiDiagonal) == kings;
}

// Scheme ids stored in table files (TableInfo::index_scheme).
inline constexpr std::uint32_t kSchemePawnless = 1;  // 462 king pairs, 8 symmetries
inline constexpr std::uint32_t kSchemePawns = 2;     // 1806 king pairs, left-right mirror

namespace detail {
inline constexpr int kMaxGroup = 8;  // men in one group
struct Binomials {
  std::array<std::array<std::uint64_t, kMaxGroup + 1>, 65> c{};
  constexpr Binomials() {
    for (int n = 0; n <= 64; ++n) {
      c[n][0] = 1;
      for (int k = 1; k <= kMaxGroup; ++k) c[n][k] = n == 0 ? 0 : c[n - 1][k - 1] + c[n - 1][k];
    }
  }
};
inline constexpr Binomials kBinomials;
inline constexpr chess::Bitboard kPawnSquares = 0x00FFFFFFFFFFFF00ULL;  // ranks 2-7
}  // namespace detail

// The combinatorial number of the squares `placed` among the squares `avail` (placed is a subset):
// the k-th lowest placed square, at position r among avail's squares, adds C(r, k).
[[nodiscard]] inline std::uint64_t combination_rank(chess::Bitboard placed, chess::Bitboard avail) {
  std::uint64_t combo = 0;
  int j = 1;
  for (chess::Bitboard bb = placed; bb; ++j) {
    const int rank = chess::popcount(avail & ((chess::Bitboard{1} << chess::pop_lsb(bb).index()) - 1));
    combo += detail::kBinomials.c[rank][j];
  }
  return combo;
}

class IndexScheme {
 public:
  // `material` must be normalized or not; the scheme indexes it exactly as given (White = first side).
  explicit IndexScheme(const Material& material);

  [[nodiscard]] const Material& material() const { return material_; }
  [[nodiscard]] std::uint64_t size() const { return size_; }  // index slots per side to move
  [[nodiscard]] std::uint32_t id() const { return pawns_ ? kSchemePawns : kSchemePawnless; }
  [[nodiscard]] int king_pairs() const { return int(pair_squares_.size()); }

  // The index of a legal board of this material (any orientation; side to move ignored).
  [[nodiscard]] std::uint64_t encode(const Board& b) const;
  // Sets `out` to the canonical board of `index` (side to move as given) and returns true, or
  // returns false for an unused slot (men overlap, or not the canonical image). Legality of the
  // position (side not to move in check) is not checked here.
  [[nodiscard]] bool decode(std::uint64_t index, chess::Color side, Board& out) const;

  static constexpr int kMaxGroups = 10;  // one per colour and type other than the king
  struct GroupPlacement {
    chess::Bitboard avail;   // the squares the group's number ranks over (kings, earlier groups)
    chess::Bitboard placed;  // the group's men
    std::uint64_t stride;
    int count;
    bool pawn;
  };
  // Fills out[0, groups) for a board whose king pair is canonical (identity orientation) and
  // returns the number of groups. Then encode(b) = pair * stride + sum of each group's number, the
  // number of a single man being popcount(avail & squares below it).
  int group_placements(const Board& b, std::array<GroupPlacement, kMaxGroups>& out) const;

  // The number of the king pair (wk, bk) if it is canonical as it stands (identity orientation) and
  // not the diagonal case, else -1.
  [[nodiscard]] int plain_pair(chess::Square wk, chess::Square bk) const {
    const int pair = pair_index_[wk.index() * 64 + bk.index()];
    if (!pawns_ && (wk.bb() | bk.bb()) == ((wk.bb() | bk.bb()) & kMainDiagonal)) return -1;
    return pair;
  }
  [[nodiscard]] std::uint64_t pair_stride() const { return pair_stride_; }

  // The index as a mixed-radix number: digit 0 is the king pair, digit 1 + g group g's number
  // (most significant first, so index = sum of digit(d) * product of the radices after d).
  [[nodiscard]] int digit_count() const { return 1 + int(groups_.size()); }
  [[nodiscard]] std::uint64_t digit_radix(int d) const {
    return d == 0 ? std::uint64_t(pair_squares_.size()) : groups_[std::size_t(d - 1)].combinations;
  }

  // The group (docs/index.md order) holding the men of colour c and type t; -1 for kings.
  [[nodiscard]] int group_of(chess::Color c, chess::PieceType t) const {
    return group_of_[index_of(c)][index_of(t)];
  }
  // Whether encode(b) may need a symmetry other than the one that canonicalizes the kings plus the
  // diagonal comparison: true when both kings stand on the a1-h8 diagonal in a pawnless scheme.
  [[nodiscard]] bool diagonal_case(const Board& b) const {
    const chess::Bitboard kings = b.by_type[index_of(chess::PieceType::kKing)];
    return !pawns_ && (kings & kMainDiagonal) == kings;
  }

  // Given `b` = the board decode(index - 1, ...) produced (and returned true for), turns it into the
  // board of `index` and returns true when that only moves the last group's men to their next
  // combination; returns false (b unchanged) when decode(index) must be called instead: the last
  // group's span ends, the diagonal case, or a pawn would stand on a king (an unused slot).
  [[nodiscard]] bool advance([[maybe_unused]] std::uint64_t index, Board& b) const {
    if (groups_.empty() || diagonal_case(b)) return false;
    const Group& g = groups_.back();
    const chess::Bitboard placed = b.pieces(g.color, g.type);
    const chess::Bitboard avail = last_available(b, placed);
    // The next number is the next set of squares in colex order: the lowest man's run of men on
    // consecutive available squares ends below the first free available square above him; the
    // run's top man steps onto it and the others drop to the lowest available squares. No free
    // square above the lowest man: the men hold the top squares, the span's last slot (index is a
    // multiple of the group's combinations), tested without dividing.
    const chess::Bitboard lowest = placed & (0 - placed);
    const chess::Bitboard free_above = avail & ~placed & ~(lowest | (lowest - 1));
    assert((free_above == 0) == (index % g.combinations == 0));
    if (!free_above) return false;
    const chess::Bitboard to = free_above & (0 - free_above);
    const chess::Bitboard run = placed & (to - 1);
    return place_group(g, placed, (placed & ~run) | to | lowest_squares(avail, chess::popcount(run) - 1), b);
  }

  // Slots that share everything but the last group's number: the last group's combinations (0
  // without men besides the kings).
  [[nodiscard]] std::uint64_t last_span() const { return groups_.empty() ? 0 : groups_.back().combinations; }
  // Given `b` = a board decode() returned true for, of an index in the same span of last_span()
  // slots as `index`: turns b into the board of `index`, whose last number is `rank` (index minus
  // the span's first index), and returns true; returns false (b unchanged) when decode(index) must
  // be called instead (the diagonal case, or a pawn on a king: an unused slot).
  [[nodiscard]] bool place_last(std::uint64_t rank, Board& b) const;

  // How many of the scheme's symmetries map the board onto itself (1 or 2: a pawnless board can be
  // its own mirror in the a1-h8 or a8-h1 diagonal, identical pieces trading places). Any orientation.
  [[nodiscard]] int stabilizer_size(const Board& b) const {
    // A file mirror moves every square, so no pawn board is its own image; otherwise both kings
    // must stand on one long diagonal.
    if (pawns_ || !kings_on_long_diagonal(b)) return 1;
    return diagonal_stabilizer_size(b);
  }
  // The sum of stabilizer_size over the children of b's quiet moves (no capture) of b.side's man
  // of type t on `from` to each square of `targets`: what those moves weigh in a count of a
  // position's moves that matches its un-moves. A child can weigh 2 only with both kings on one
  // long diagonal (pawnless): a king's move counts 1 unless it lands on the long diagonal the other
  // king stands on (the two diagonals share no square), another man's unless both kings stand on
  // one already; only those children are built.
  [[nodiscard]] int quiet_moves_weight(const Board& b, chess::PieceType t, chess::Square from, chess::Bitboard targets) const {
    using namespace chess;
    if (pawns_ || (t != PieceType::kKing && !kings_on_long_diagonal(b))) return popcount(targets);
    int weight = 0;
    if (t == PieceType::kKing) {
      const Bitboard other = b.king(~b.side).bb();
      const Bitboard diagonal = other & kMainDiagonal ? kMainDiagonal : other & kAntiDiagonal ? kAntiDiagonal : 0;
      weight += popcount(targets & ~diagonal);
      targets &= diagonal;
    }
    while (targets) {
      Board child = b;
      child.remove(b.side, t, from);
      child.put(b.side, t, pop_lsb(targets));
      child.side = ~b.side;
      weight += stabilizer_size(child);
    }
    return weight;
  }
  // Distinct boards (without symmetry reduction) that this board's index stands for.
  [[nodiscard]] int orbit_size(const Board& b) const { return (pawns_ ? 2 : 8) / stabilizer_size(b); }

 private:
  struct Group {
    chess::Color color;
    chess::PieceType type;
    int count;
    int slots;  // squares available to the group
    std::uint64_t combinations;
    std::uint64_t stride;
  };
  // The squares the last group's number ranks over, on a board whose last group stands on `placed`.
  [[nodiscard]] chess::Bitboard last_available(const Board& b, chess::Bitboard placed) const {
    const Group& g = groups_.back();
    if (g.type == chess::PieceType::kPawn) return detail::kPawnSquares & ~(b.by_type[index_of(g.type)] & ~placed);
    return ~(b.occupied() & ~placed);
  }
  // The lowest n squares of mask.
  [[nodiscard]] static chess::Bitboard lowest_squares(chess::Bitboard mask, int n) {
    chess::Bitboard out = 0;
    for (; n > 0; --n) {
      out |= mask & (0 - mask);
      mask &= mask - 1;
    }
    return out;
  }
  // Moves group g's men from `placed` to `next` and returns true, or returns false (b unchanged)
  // when one would stand on a king (a pawn group: an unused slot).
  [[nodiscard]] static bool place_group(const Group& g, chess::Bitboard placed, chess::Bitboard next, Board& b) {
    if (next & b.by_type[index_of(chess::PieceType::kKing)]) return false;
    b.by_color[index_of(g.color)] ^= placed ^ next;
    b.by_type[index_of(g.type)] ^= placed ^ next;
    return true;
  }
  // The squares of number `combo` of a group of `count` men among `avail` (docs/index.md).
  [[nodiscard]] static chess::Bitboard unrank(const Group& g, std::uint64_t combo, chess::Bitboard avail);
  [[nodiscard]] std::uint64_t encode_with(const Board& b, int transform) const;
  [[nodiscard]] std::uint64_t encode_identity(const Board& b) const;  // encode_with(b, 0), faster
  [[nodiscard]] int diagonal_stabilizer_size(const Board& b) const;    // both kings on a long diagonal

  Material material_;
  bool pawns_ = false;
  std::vector<Group> groups_;
  std::array<std::array<std::int8_t, 6>, 2> group_of_{};
  std::uint64_t size_ = 0;
  std::uint64_t pair_stride_ = 0;
  std::vector<std::array<std::uint8_t, 2>> pair_squares_;  // canonical (white king, black king)
  std::vector<std::int16_t> pair_index_;                   // [wk*64+bk] of canonical pairs, -1 otherwise
  std::vector<std::uint8_t> pair_transform_;               // [wk*64+bk] symmetry making the pair canonical
};

// The boards of one side's slots, asked for in increasing order (gaps allowed): within a span of
// last_span() slots only the last group's men move, so they step to the next slot (advance) or
// are placed by number (place_last) rather than the whole board decoded.
class SlotBoards {
 public:
  SlotBoards(const IndexScheme& scheme, chess::Color side) : scheme_(scheme), side_(side), span_(scheme.last_span()) {}
  // The board of slot i, or null for an unused slot.
  const Board* at(std::uint64_t i) {
    // Within the span: the next slot by a step, another by placing the last group; else a decode.
    const bool in_span = valid_ && span_ && i >= first_ && i - first_ < span_;
    if (!(in_span && (i == last_ + 1 ? scheme_.advance(i, b_) : scheme_.place_last(i - first_, b_)))) {
      valid_ = scheme_.decode(i, side_, b_);
      if (span_) first_ = i - i % span_;
    }
    last_ = i;
    assert(!valid_ || b_ == [&] { Board d; return scheme_.decode(i, side_, d) ? d : Board{}; }());
    return valid_ ? &b_ : nullptr;
  }

 private:
  const IndexScheme& scheme_;
  chess::Color side_;
  std::uint64_t span_;
  std::uint64_t first_ = 0;
  std::uint64_t last_ = 0;  // the slot asked for last
  bool valid_ = false;      // b_ is the board of slot last_, in [first_, first_ + span_)
  Board b_;
};

// Applies symmetry t (bit 0 file mirror, bit 1 rank mirror, bit 2 diagonal swap, in that order).
[[nodiscard]] constexpr chess::Square apply_symmetry(int t, chess::Square s) {
  int f = s.file(), r = s.rank();
  if (t & 1) f = 7 - f;
  if (t & 2) r = 7 - r;
  if (t & 4) std::swap(f, r);
  return chess::Square(f, r);
}

}  // namespace tbkit::model
