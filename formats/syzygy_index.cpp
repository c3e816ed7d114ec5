// Syzygy's position index: the constant tables, the material, the subtable schemes and the header.
#include "formats/syzygy_index.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>
#include <string>

#if defined(TBKIT_USE_PEXT)
#include <immintrin.h>
#endif

namespace tbkit::formats::syzygy {

namespace {

using chess::Color;
using chess::Piece;
using chess::PieceType;
using chess::Square;

constexpr int kKingsCode = 462;        // two kings, the first in the a1-d1-d4 triangle
constexpr int kUniqueCode = 31332;     // three unique pieces, the first in the triangle
constexpr int kTriangleOff = 6 * 63 * 62;        // first piece off the diagonal
constexpr int kDiagOneOff = 4 * 28 * 62;         // first on the diagonal, second below it
constexpr int kDiagTwoOff = 4 * 7 * 28;          // first two on the diagonal, third below
constexpr int kDiagThree = 4 * 7 * 6;            // all three on the diagonal
static_assert(kTriangleOff + kDiagOneOff + kDiagTwoOff + kDiagThree == kUniqueCode);

// Rank minus file: 0 on the a1-h8 diagonal, negative below it (b1), positive above (a2).
constexpr int diagonal_offset(int sq) { return (sq >> 3) - (sq & 7); }
constexpr int flip_diagonal(int sq) { return ((sq >> 3) | (sq << 3)) & 63; }
constexpr bool kings_touch(int a, int b) {
  const int df = (a & 7) - (b & 7);
  const int dr = (a >> 3) - (b >> 3);
  return df >= -1 && df <= 1 && dr >= -1 && dr <= 1;
}

struct Tables {
  std::uint64_t binomial[kMaxPieces][65]{};  // [k][n]: ways to choose k of n
  int pawn_rank_of[64]{};                    // "leadness" of a pawn square a2..h7: 47 (a2) .. 0 (e7)
  int pawn_square[48]{};                     // inverse of pawn_rank_of
  int lead_pawn_base[kMaxPieces][64]{};      // [lead pawns][square]: first index with that leading pawn
  int lead_pawn_size[kMaxPieces][kMaxFiles]{};  // [lead pawns][file]: lead-group values of a file
  int triangle[64]{};                        // a1-d1-d4 triangle: b1..d3 -> 0..5, a1..d4 diagonal -> 6..9
  int triangle_square[10]{};
  int below[64]{};                           // squares below the a1-h8 diagonal -> 0..27
  int below_square[28]{};
  int kings[10][64]{};                       // [triangle code][second king] -> 0..461, -1 if none
  int kings_square[kKingsCode][2]{};
};

constexpr Tables build_tables() {
  Tables t{};
  for (int n = 0; n <= 64; ++n)
    for (int k = 0; k < kMaxPieces; ++k)
      t.binomial[k][n] = k == 0 ? 1 : n == 0 ? 0 : t.binomial[k - 1][n - 1] + t.binomial[k][n - 1];

  // Leading pawns: nearest the a/h edge first, then lowest rank; a2 beats h2.
  int code = 47;
  for (int f = 0; f < kMaxFiles; ++f)
    for (int r = 1; r <= 6; ++r) {
      const int sq = r * 8 + f;
      t.pawn_rank_of[sq] = code;
      t.pawn_square[code--] = sq;
      t.pawn_rank_of[sq ^ 7] = code;
      t.pawn_square[code--] = sq ^ 7;
    }
  for (int lead = 1; lead < kMaxPieces; ++lead)
    for (int f = 0; f < kMaxFiles; ++f) {
      int idx = 0;
      for (int r = 1; r <= 6; ++r) {
        const int sq = r * 8 + f;
        t.lead_pawn_base[lead][sq] = idx;
        idx += int(t.binomial[lead - 1][t.pawn_rank_of[sq]]);
      }
      t.lead_pawn_size[lead][f] = idx;
    }

  for (int sq = 0; sq < 64; ++sq) t.triangle[sq] = -1;
  code = 0;
  for (int sq = 0; sq < 64; ++sq)
    if ((sq & 7) <= 3 && (sq >> 3) <= 3 && diagonal_offset(sq) < 0) t.triangle_square[code] = sq, t.triangle[sq] = code++;
  for (int sq = 0; sq < 64; ++sq)
    if ((sq & 7) <= 3 && (sq >> 3) <= 3 && diagonal_offset(sq) == 0) t.triangle_square[code] = sq, t.triangle[sq] = code++;
  code = 0;
  for (int sq = 0; sq < 64; ++sq) {
    t.below[sq] = -1;
    if (diagonal_offset(sq) < 0) t.below_square[code] = sq, t.below[sq] = code++;
  }

  // King pairs: first king in the triangle; a first king on the diagonal keeps the second on or below
  // it; pairs with both kings on the diagonal come last.
  code = 0;
  for (int i = 0; i < 10; ++i)
    for (int s2 = 0; s2 < 64; ++s2) t.kings[i][s2] = -1;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < 10; ++i) {
      const int s1 = t.triangle_square[i];
      for (int s2 = 0; s2 < 64; ++s2) {
        if (kings_touch(s1, s2)) continue;
        if (diagonal_offset(s1) == 0 && diagonal_offset(s2) > 0) continue;
        const bool both_on_diagonal = diagonal_offset(s1) == 0 && diagonal_offset(s2) == 0;
        if (both_on_diagonal != (pass == 1)) continue;
        t.kings_square[code][0] = s1;
        t.kings_square[code][1] = s2;
        t.kings[i][s2] = code++;
      }
    }
  return t;
}

const Tables& tables() {
  static constexpr Tables kTables = build_tables();
  return kTables;
}

// Combinatorial number system: the rank of sorted values c[0] < c[1] < ... is sum C(c[i], i + 1).
std::uint64_t rank_combination(const int* c, int k) {
  std::uint64_t n = 0;
  for (int i = 0; i < k; ++i) n += tables().binomial[i + 1][c[i]];
  return n;
}

// Inverse of rank_combination for k values below `universe`.
void unrank_combination(std::uint64_t n, int k, int universe, int* c) {
  int top = universe;
  for (int i = k - 1; i >= 0; --i) {
    // The largest v < top with C(v, i + 1) <= n (C(v, 1) = v; C(v, i + 1) ascends with v >= i).
    int v;
    if (i == 0) {
      v = int(n);
    } else {
      int lo = i, hi = top - 1;
      while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (tables().binomial[i + 1][mid] <= n) lo = mid; else hi = mid - 1;
      }
      v = lo;
    }
    c[i] = v;
    n -= tables().binomial[i + 1][v];
    top = v;
  }
}

// The square of rank c among those not in `taken` (c < 64 - popcount(taken)): the least fixed point
// of s = c + |taken squares <= s|, reached from below.
int nth_free(int c, std::uint64_t taken) {
#if defined(TBKIT_USE_PEXT)
  // The c-th free square, in one instruction.
  return std::countr_zero(_pdep_u64(std::uint64_t{1} << c, ~taken));
#else
  for (int s = c;;) {
    const std::uint64_t upto = s >= 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << s) - 1;
    const int next = c + std::popcount(taken & upto);
    if (next == s) return s;
    s = next;
  }
#endif
}

bool is_pawn(Piece p) { return p.type() == PieceType::kPawn; }

// Sorts a few ints (at most 7: std::sort draws false array-bounds warnings from GCC 12 here).
template <class Less>
void sort_small(int* first, int* last, Less less) {
  for (int* i = first + (first != last); i < last; ++i)
    for (int* j = i; j > first && less(*j, *(j - 1)); --j) std::swap(*j, *(j - 1));
}
void sort_small(int* first, int* last) { sort_small(first, last, [](int a, int b) { return a < b; }); }

std::string material_side(const std::array<std::uint8_t, chess::kPieceTypeCount>& counts) {
  static constexpr char kLetters[] = "PNBRQK";
  std::string s;
  for (int t = chess::kPieceTypeCount - 1; t >= 0; --t) s.append(counts[std::size_t(t)], kLetters[t]);
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// TableMaterial

Result<TableMaterial> TableMaterial::from_name(std::string_view name) {
  std::string_view text = name;
  for (std::string_view suffix : {".rtbw", ".rtbz"})
    if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix)
      text.remove_suffix(suffix.size());
  const auto bad = [&](const std::string& why) {
    return make_error(ErrorCode::kInvalidArgument, "syzygy table name '" + std::string(name) + "': " + why);
  };
  TableMaterial m;
  int side = 0;
  for (char ch : text) {
    if (ch == 'v') {
      if (++side > 1) return bad("more than one 'v'");
      continue;
    }
    static constexpr std::string_view kLetters = "PNBRQK";
    const auto t = kLetters.find(ch);
    if (t == std::string_view::npos) return bad(std::string("unexpected character '") + ch + "'");
    if (++m.counts_[std::size_t(side)][t] > 8) return bad("too many men");
  }
  if (side != 1) return bad("no 'v' between the sides");
  for (int c = 0; c < 2; ++c)
    if (m.counts_[std::size_t(c)][index_of(PieceType::kKing)] != 1) return bad("each side needs exactly one king");
  if (m.piece_count() < 3 || m.piece_count() > kMaxPieces) return bad("a table has 3 to 7 men");
  return m;
}

Result<TableMaterial> TableMaterial::from_position(const chess::Position& pos) {
  TableMaterial m;
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < chess::kPieceTypeCount; ++t)
      m.counts_[std::size_t(c)][std::size_t(t)] = std::uint8_t(chess::popcount(pos.pieces(Color(c), PieceType(t))));
  if (m.piece_count() > kMaxPieces)
    return make_error(ErrorCode::kInvalidArgument, "position has more than 7 men: no syzygy table");
  return m;
}

int TableMaterial::piece_count() const {
  int n = 0;
  for (const auto& side : counts_)
    for (auto c : side) n += c;
  return n;
}

bool TableMaterial::has_unique_pieces() const {
  for (const auto& side : counts_)
    for (int t = 0; t < index_of(PieceType::kKing); ++t)
      if (side[std::size_t(t)] == 1) return true;
  return false;
}

Color TableMaterial::lead_color() const {
  const int w = pawn_count(Color::kWhite);
  const int b = pawn_count(Color::kBlack);
  return (b == 0 || (w > 0 && b >= w)) ? Color::kWhite : Color::kBlack;
}

TableMaterial TableMaterial::swapped() const {
  TableMaterial m;
  m.counts_[0] = counts_[1];
  m.counts_[1] = counts_[0];
  return m;
}

std::string TableMaterial::name() const { return material_side(counts_[0]) + "v" + material_side(counts_[1]); }

// ---------------------------------------------------------------------------------------------------
// Orientation

Result<OrientedPosition> orient(const TableMaterial& m, const chess::Position& pos) {
  auto own = TableMaterial::from_position(pos);
  if (!own) return own.error();
  OrientedPosition op;
  const bool black_to_move = pos.side_to_move() == Color::kBlack;
  if (*own == m) {
    op.swapped = m.is_symmetric() && black_to_move;
  } else if (own->swapped() == m) {
    op.swapped = true;
  } else {
    return make_error(ErrorCode::kInvalidArgument,
                      "position material " + own->name() + " is not table " + m.name() + " in either colour");
  }
  op.side = int(black_to_move) ^ int(op.swapped);
  for (Color c : {Color::kWhite, Color::kBlack}) op.colour[std::size_t(chess::index_of(c))] = pos.pieces(c);
  for (int t = 0; t < chess::kPieceTypeCount; ++t) op.type[std::size_t(t)] = pos.pieces(PieceType(t));
  return op;
}

int lead_file(const TableMaterial& m, const OrientedPosition& op) {
  if (!m.has_pawns()) return 0;
  // The leading pawn is the one nearest the a or h file (then the lowest, which leaves the file alone).
  const chess::Bitboard pawns = op.of(Piece(m.lead_color(), PieceType::kPawn));
  for (int f = 0; f < kMaxFiles - 1; ++f)
    if (pawns & (chess::file_bb(f) | chess::file_bb(7 - f))) return f;
  return kMaxFiles - 1;
}

// ---------------------------------------------------------------------------------------------------
// SubtableIndex

Result<SubtableIndex> SubtableIndex::create(const TableMaterial& m, std::span<const Piece> order, int order0,
                                            int order1, int file) {
  const auto bad = [&](const std::string& why) {
    return make_error(ErrorCode::kInvalidArgument, "syzygy index of " + m.name() + ": " + why);
  };
  const int n = m.piece_count();
  if (n < 3 || n > kMaxPieces) return bad("3 to 7 men needed");
  if (int(order.size()) != n) return bad("piece order has " + std::to_string(order.size()) + " pieces, not " + std::to_string(n));
  if (file < 0 || file >= (m.has_pawns() ? kMaxFiles : 1)) return bad("lead file " + std::to_string(file) + " out of range");

  SubtableIndex s;
  s.material_ = m;
  s.count_ = n;
  s.file_ = file;
  std::array<std::array<int, chess::kPieceTypeCount>, 2> seen{};
  for (int i = 0; i < n; ++i) {
    const Piece p = order[std::size_t(i)];
    if (p.is_none()) return bad("piece " + std::to_string(i) + " is none");
    s.pieces_[std::size_t(i)] = p;
    if (++seen[std::size_t(index_of(p.color()))][std::size_t(index_of(p.type()))] > m.count(p.color(), p.type()))
      return bad(std::string("piece order has too many ") + p.letter());
  }

  const bool pawns = m.has_pawns();
  const bool both_pawns = pawns && m.other_pawn_count() > 0;
  const int lead_len = pawns ? m.lead_pawn_count() : m.has_unique_pieces() ? 3 : 2;
  if (pawns) {
    const Piece lead(m.lead_color(), PieceType::kPawn);
    const Piece other(~m.lead_color(), PieceType::kPawn);
    for (int i = 0; i < n; ++i) {
      const Piece want = i < lead_len ? lead : i < lead_len + m.other_pawn_count() ? other : Piece::none();
      if (!want.is_none() && s.pieces_[std::size_t(i)] != want)
        return bad("pawn tables list the leading pawns, then the other pawns, first");
    }
  } else if (lead_len == 2) {
    if (s.pieces_[0].type() != PieceType::kKing || s.pieces_[1].type() != PieceType::kKing)
      return bad("without unique pieces the two kings lead");
  } else {
    for (int i = 0; i < 3; ++i)
      if (m.count(s.pieces_[std::size_t(i)].color(), s.pieces_[std::size_t(i)].type()) != 1)
        return bad("the three leading pieces must be unique");
  }

  for (int i = 0; i < n; ++i) {
    const Piece p = s.pieces_[std::size_t(i)];
    if (i > 0 && s.runs_[std::size_t(s.run_count_ - 1)].piece == p) {
      ++s.runs_[std::size_t(s.run_count_ - 1)].count;
    } else {
      s.runs_[std::size_t(s.run_count_++)] = KindRun{p, std::uint8_t(i), 1};
    }
  }

  // Groups: the leading group, then runs of identical pieces.
  s.group_len_[0] = lead_len;
  int groups = 1;
  for (int i = lead_len; i < n; ++i) {
    if (i > lead_len && s.pieces_[std::size_t(i)] == s.pieces_[std::size_t(i - 1)]) {
      ++s.group_len_[std::size_t(groups - 1)];
    } else {
      for (int j = 0; j < i; ++j)
        if (s.pieces_[std::size_t(j)] == s.pieces_[std::size_t(i)])
          return bad("identical pieces must be adjacent in the piece order");
      s.group_len_[std::size_t(groups++)] = 1;
    }
  }
  s.groups_ = groups;

  // Factors: the leading group at position order0, the other pawns at order1, the rest in piece order
  // in the remaining positions (0 = least significant).
  if (order0 < 0 || order0 >= groups) return bad("order nibble " + std::to_string(order0) + " out of range");
  if (both_pawns) {
    if (order1 < 0 || order1 >= groups || order1 == order0)
      return bad("pawn order nibble " + std::to_string(order1) + " out of range");
  } else if (order1 != 0xF) {
    return bad("pawn order nibble must be 15 without pawns on both sides");
  }
  s.order0_ = order0;
  s.order1_ = order1;
  std::array<int, kMaxPieces + 1> values{};
  int free_squares = 64 - lead_len - (both_pawns ? s.group_len_[1] : 0);
  const auto& t = tables();
  for (int g = 0; g < groups; ++g) {
    if (g == 0) {
      values[0] = pawns ? t.lead_pawn_size[lead_len][file] : lead_len == 3 ? kUniqueCode : kKingsCode;
    } else if (g == 1 && both_pawns) {
      values[1] = int(t.binomial[s.group_len_[1]][48 - lead_len]);
    } else {
      values[std::size_t(g)] = int(t.binomial[s.group_len_[std::size_t(g)]][free_squares]);
      free_squares -= s.group_len_[std::size_t(g)];
    }
  }
  std::array<int, kMaxPieces + 1> slot_group{};
  slot_group.fill(-1);
  slot_group[std::size_t(order0)] = 0;
  if (both_pawns) slot_group[std::size_t(order1)] = 1;
  int next = both_pawns ? 2 : 1;
  for (int k = 0; k < groups; ++k)
    if (slot_group[std::size_t(k)] < 0) slot_group[std::size_t(k)] = next++;
  assert(next == groups);
  std::uint64_t factor = 1;
  for (int k = 0; k < groups; ++k) {
    const int g = slot_group[std::size_t(k)];
    s.group_factor_[std::size_t(g)] = factor;
    s.group_radix_[std::size_t(g)] = std::uint64_t(values[std::size_t(g)]);
    s.slot_group_[std::size_t(k)] = std::int8_t(g);
    factor *= std::uint64_t(values[std::size_t(g)]);
  }
  s.size_ = factor;
  return s;
}

// With a profile that makes these functions hot (PGO training on Syzygy generation), GCC 12 cannot
// tell that the squares of `sq` it reads below are always written first, and its
// -Wmaybe-uninitialized stops the build. Zeroing the array instead left WDL probes as fast but made
// 3-piece DTZ probes 10% slower in the probe benchmark (code layout), so the warning is silenced here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
std::uint64_t SubtableIndex::index_for(const OrientedPosition& op) const {
  int at[kMaxPieces];
  // With each run's count right and no other man on the board, the men are this subtable's.
  if (chess::popcount(op.colour[0] | op.colour[1]) != count_) return kNoIndex;
  for (int r = 0; r < run_count_; ++r) {
    const KindRun run = runs_[std::size_t(r)];
    chess::Bitboard b = op.of(run.piece);
    if (chess::popcount(b) != run.count) return kNoIndex;
    for (int i = run.first; b; ++i, b &= b - 1) at[i] = std::countr_zero(b);
  }
  constexpr chess::Bitboard kBackRanks = chess::kRank1 | chess::kRank8;
  if (op.type[std::size_t(chess::index_of(PieceType::kPawn))] & kBackRanks) return kNoIndex;
  return encode_placed(at);
}

std::optional<std::uint64_t> SubtableIndex::encode(std::span<const Square> squares) const {
  const std::uint64_t index = encode_or_none(squares);
  if (index == kNoIndex) return std::nullopt;
  return index;
}

std::uint64_t SubtableIndex::encode_or_none(std::span<const Square> squares) const {
  if (int(squares.size()) != count_) return kNoIndex;
  chess::Bitboard occupied = 0;
  int placed[kMaxPieces];
  for (int i = 0; i < count_; ++i) {
    const Square s = squares[std::size_t(i)];
    if (s.is_none() || (occupied & s.bb())) return kNoIndex;
    occupied |= s.bb();
    if (is_pawn(pieces_[std::size_t(i)]) && (s.index() < 8 || s.index() >= 56)) return kNoIndex;
    placed[i] = s.index();
  }
  return encode_placed(placed);
}

std::uint64_t SubtableIndex::encode_placed(const int* placed) const {
  const auto& t = tables();
  const bool pawns = material_.has_pawns();
  const int lead_len = group_len_[0];
  std::uint64_t lead_value = 0;
  // The squares in the table's normal form, each written once: the symmetry is decided from the
  // leading men first (rewriting the array in place costs store-forwarding stalls).
  int sq[kMaxPieces];
  const auto at = [&](int i) { return placed[i]; };

  if (pawns) {
    // The leading pawn is the one of highest pawn_rank_of; it decides the file mirror.
    int best = 0;
    for (int i = 1; i < lead_len; ++i)
      if (t.pawn_rank_of[at(i)] > t.pawn_rank_of[at(best)]) best = i;
    const int mirror = (at(best) & 7) > 3 ? 7 : 0;
    for (int i = 0; i < count_; ++i) sq[i] = at(i) ^ mirror;
    std::swap(sq[0], sq[best]);
    if ((sq[0] & 7) != file_) return kNoIndex;
    sort_small(sq + 1, sq + lead_len, [&](int a, int b) { return t.pawn_rank_of[a] < t.pawn_rank_of[b]; });
    int ranks[kMaxPieces];
    for (int i = 1; i < lead_len; ++i) ranks[i - 1] = t.pawn_rank_of[sq[i]];
    lead_value = std::uint64_t(t.lead_pawn_base[lead_len][sq[0]]) + rank_combination(ranks, lead_len - 1);
  } else {
    const int mirror = ((at(0) & 7) > 3 ? 7 : 0) | ((at(0) >> 3) > 3 ? 56 : 0);
    // The first leading piece off the a1-h8 diagonal must lie below it (the pieces before it lie on
    // the diagonal, which the flip leaves alone).
    bool flip = false;
    for (int i = 0; i < lead_len; ++i) {
      const int off = diagonal_offset(at(i) ^ mirror);
      if (off == 0) continue;
      flip = off > 0;
      break;
    }
    for (int i = 0; i < count_; ++i) sq[i] = flip ? flip_diagonal(at(i) ^ mirror) : at(i) ^ mirror;
    if (lead_len == 2) {
      const int code = t.kings[t.triangle[sq[0]]][sq[1]];
      if (code < 0) return kNoIndex;
      lead_value = std::uint64_t(code);
    } else {
      const int adjust1 = sq[1] > sq[0];
      const int adjust2 = (sq[2] > sq[0]) + (sq[2] > sq[1]);
      const int r0 = sq[0] >> 3;
      const int r1 = sq[1] >> 3;
      const int r2 = sq[2] >> 3;
      if (diagonal_offset(sq[0]) != 0) {
        lead_value = std::uint64_t((t.triangle[sq[0]] * 63 + (sq[1] - adjust1)) * 62 + sq[2] - adjust2);
      } else if (diagonal_offset(sq[1]) != 0) {
        lead_value = std::uint64_t(kTriangleOff + (r0 * 28 + t.below[sq[1]]) * 62 + sq[2] - adjust2);
      } else if (diagonal_offset(sq[2]) != 0) {
        lead_value = std::uint64_t(kTriangleOff + kDiagOneOff + r0 * 7 * 28 + (r1 - adjust1) * 28 + t.below[sq[2]]);
      } else {
        lead_value = std::uint64_t(kTriangleOff + kDiagOneOff + kDiagTwoOff + r0 * 7 * 6 + (r1 - adjust1) * 6 +
                                   (r2 - adjust2));
      }
    }
  }

  return index_after_lead(sq, lead_value);
}

std::uint64_t SubtableIndex::encode_distinct(std::span<const int> squares) const {
  assert(int(squares.size()) == count_);
  return encode_placed(squares.data());
}

std::uint64_t SubtableIndex::encode_normal(std::span<const int> squares, std::uint64_t lead_digit) const {
  assert(int(squares.size()) == count_ && lead_digit < group_radix_[0]);
  int sq[kMaxPieces];
  std::copy_n(squares.begin(), count_, sq);
  return index_after_lead(sq, lead_digit);
}

std::uint64_t SubtableIndex::prefix_value(std::uint64_t lead_digit, std::uint64_t pawn_digit) const {
  const bool both_pawns = material_.has_pawns() && material_.other_pawn_count() > 0;
  return lead_digit * group_factor_[0] + (both_pawns ? pawn_digit * group_factor_[1] : 0);
}

std::uint64_t SubtableIndex::rest_value(std::span<const int> positions) const {
  // index_after_lead's ranks with the prefix's squares taken out of the board: a rank among the
  // squares free of the prefix and the groups before is the same either way.
  const bool both_pawns = material_.has_pawns() && material_.other_pawn_count() > 0;
  std::uint64_t index = 0;
  std::uint64_t taken = 0;
  std::size_t k = 0;
  for (int g = both_pawns ? 2 : 1; g < groups_; ++g) {
    const int len = group_len_[std::size_t(g)];
    if (len == 1) {
      const int p = positions[k++];
      index += std::uint64_t(p - std::popcount(taken & ((std::uint64_t{1} << p) - 1))) * group_factor_[std::size_t(g)];
      taken |= std::uint64_t{1} << p;
      continue;
    }
    int c[kMaxPieces];
    std::copy_n(positions.begin() + std::ptrdiff_t(k), len, c);
    sort_small(c, c + len);
    int r[kMaxPieces];
    for (int i = 0; i < len; ++i) r[i] = c[i] - std::popcount(taken & ((std::uint64_t{1} << c[i]) - 1));
    for (int i = 0; i < len; ++i) taken |= std::uint64_t{1} << c[i];
    index += rank_combination(r, len) * group_factor_[std::size_t(g)];
    k += std::size_t(len);
  }
  return index;
}

std::uint64_t SubtableIndex::index_after_lead(int* sq, std::uint64_t lead_value) const {
  std::uint64_t index = lead_value * group_factor_[0];
  const bool both_pawns = material_.has_pawns() && material_.other_pawn_count() > 0;
  int start = group_len_[0];
  std::uint64_t taken = 0;
  for (int i = 0; i < start; ++i) taken |= std::uint64_t{1} << sq[i];
  for (int g = 1; g < groups_; ++g) {
    const int len = group_len_[std::size_t(g)];
    if (len == 1 && !(g == 1 && both_pawns)) {
      // A lone man (the common case): its rank among the free squares is its digit.
      const int s = sq[start];
      index += std::uint64_t(s - std::popcount(taken & ((std::uint64_t{1} << s) - 1))) * group_factor_[std::size_t(g)];
      taken |= std::uint64_t{1} << s;
      ++start;
      continue;
    }
    sort_small(sq + start, sq + start + len);
    int c[kMaxPieces];
    // A square's rank among those the earlier groups leave free.
    for (int i = 0; i < len; ++i)
      c[i] = sq[start + i] - std::popcount(taken & ((std::uint64_t{1} << sq[start + i]) - 1)) - (g == 1 && both_pawns ? 8 : 0);
    for (int i = 0; i < len; ++i) taken |= std::uint64_t{1} << sq[start + i];
    index += rank_combination(c, len) * group_factor_[std::size_t(g)];
    start += len;
  }
  return index;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

std::optional<SquareList> SubtableIndex::decode(std::uint64_t index) const {
  if (index >= size_) return std::nullopt;
  std::array<std::uint64_t, kMaxPieces + 1> digit{};
  digits_of(index, digit.data());
  int sq[kMaxPieces];
  place(digit.data(), sq);
  SquareList out{};
  for (int i = 0; i < count_; ++i) out[std::size_t(i)] = Square(sq[i]);
  return out;
}

void SubtableIndex::digits_of(std::uint64_t index, std::uint64_t* digit) const {
  // Digits from the most significant slot down (32-bit divisions where the size allows: faster).
  if (size_ <= std::numeric_limits<std::uint32_t>::max()) {
    std::uint32_t rest = std::uint32_t(index);
    for (int k = groups_ - 1; k >= 0; --k) {
      const int g = slot_group_[std::size_t(k)];
      const std::uint32_t f = std::uint32_t(group_factor_[std::size_t(g)]);
      digit[std::size_t(g)] = rest / f;
      rest %= f;
    }
  } else {
    std::uint64_t rest = index;
    for (int k = groups_ - 1; k >= 0; --k) {
      const int g = slot_group_[std::size_t(k)];
      digit[std::size_t(g)] = rest / group_factor_[std::size_t(g)];
      rest %= group_factor_[std::size_t(g)];
    }
  }
}

void SubtableIndex::place_lead(std::uint64_t lead, int* sq) const {
  const auto& t = tables();
  const int lead_len = group_len_[0];
  if (material_.has_pawns()) {
    int lead_square = -1;
    for (int r = 6; r >= 1 && lead_square < 0; --r)
      if (std::uint64_t(t.lead_pawn_base[lead_len][r * 8 + file_]) <= lead) lead_square = r * 8 + file_;
    sq[0] = lead_square;
    int c[kMaxPieces];
    unrank_combination(lead - std::uint64_t(t.lead_pawn_base[lead_len][lead_square]), lead_len - 1,
                       t.pawn_rank_of[lead_square], c);
    for (int i = 1; i < lead_len; ++i) sq[i] = t.pawn_square[c[i - 1]];
  } else if (lead_len == 2) {
    sq[0] = t.kings_square[lead][0];
    sq[1] = t.kings_square[lead][1];
  } else {
    const int v = int(lead);
    const auto place_third = [&](int c) { return nth_free(c, (std::uint64_t{1} << sq[0]) | (std::uint64_t{1} << sq[1])); };
    if (v < kTriangleOff) {
      sq[0] = t.triangle_square[v / (63 * 62)];
      const int a = v / 62 % 63;
      sq[1] = a + (a >= sq[0]);
      sq[2] = place_third(v % 62);
    } else if (v < kTriangleOff + kDiagOneOff) {
      const int r = v - kTriangleOff;
      sq[0] = (r / 62 / 28) * 9;
      sq[1] = t.below_square[r / 62 % 28];
      sq[2] = place_third(r % 62);
    } else if (v < kTriangleOff + kDiagOneOff + kDiagTwoOff) {
      const int r = v - kTriangleOff - kDiagOneOff;
      const int r0 = r / (7 * 28);
      const int a = r / 28 % 7;
      sq[0] = r0 * 9;
      sq[1] = (a + (a >= r0)) * 9;
      sq[2] = t.below_square[r % 28];
    } else {
      const int r = v - kTriangleOff - kDiagOneOff - kDiagTwoOff;
      const int r0 = r / 42;
      const int a = r / 6 % 7;
      const int r1 = a + (a >= r0);
      sq[0] = r0 * 9;
      sq[1] = r1 * 9;
      sq[2] = nth_free(r % 6, (std::uint64_t{1} << r0) | (std::uint64_t{1} << r1)) * 9;
    }
  }
}

// Inline: the walk calls it at every step of the other pawns (a call cost a fifth of a step).
[[gnu::always_inline]] inline void SubtableIndex::place_pawns(std::uint64_t digit, std::uint64_t lead, int* sq) const {
  const int lead_len = group_len_[0];
  const int len = group_len_[1];
  int c[kMaxPieces];
  if (len == 1) c[0] = int(digit);
  else unrank_combination(digit, len, 48 - lead_len, c);
  // Ranks among ranks 2-7 less the leading pawns: squares 0-7 are free, so 8 more among all squares.
  for (int i = 0; i < len; ++i) sq[lead_len + i] = nth_free(c[i] + 8, lead);
}

void SubtableIndex::place(const std::uint64_t* digit, int sq[]) const {
  place_lead(digit[0], sq);
  const bool both_pawns = material_.has_pawns() && material_.other_pawn_count() > 0;
  std::uint64_t taken = 0;
  for (int i = 0; i < group_len_[0]; ++i) taken |= std::uint64_t{1} << sq[i];
  if (both_pawns) place_pawns(digit[1], taken, sq);
  int start = group_len_[0] + (both_pawns ? group_len_[1] : 0);
  for (int i = group_len_[0]; i < start; ++i) taken |= std::uint64_t{1} << sq[i];
  for (int g = both_pawns ? 2 : 1; g < groups_; ++g) {
    const int len = group_len_[std::size_t(g)];
    int c[kMaxPieces];
    unrank_combination(digit[std::size_t(g)], len, 64 - start, c);
    for (int i = 0; i < len; ++i) sq[start + i] = nth_free(c[i], taken);
    for (int i = 0; i < len; ++i) taken |= std::uint64_t{1} << sq[start + i];
    start += len;
  }
}

SubtableWalk::SubtableWalk(const SubtableIndex& sub, std::uint64_t index) : sub_(&sub), index_(index) {
  assert(index < sub.size());
  const bool both_pawns = sub.material_.has_pawns() && sub.material_.other_pawn_count() > 0;
  prefix_groups_ = both_pawns ? 2 : 1;
  for (int g = 0, start = 0; g <= sub.groups_; ++g) {
    group_start_[std::size_t(g)] = start;
    if (g < sub.groups_) start += sub.group_len_[std::size_t(g)];
  }
  // A pawn table's leading group of at most kLeadTable values (a lone pawn takes six, the ranks of
  // its file) is looked up.
  if (sub.material_.has_pawns() && sub.group_radix_[0] <= kLeadTable) {
    lead_table_ = true;
    for (std::uint64_t v = 0; v < sub.group_radix_[0]; ++v) {
      int sq[kMaxPieces];
      sub.place_lead(v, sq);
      for (int i = 0; i < sub.group_len_[0]; ++i) lead_sq_[v][std::size_t(i)] = std::int8_t(sq[i]);
    }
  }
  sub.digits_of(index, digit_.data());
  place_prefix(true);
  place_rest(prefix_groups_);
  rest_changed_ = group_start_[std::size_t(prefix_groups_)];
  expand(rest_changed_);
  publish(0);
}

void SubtableWalk::place_prefix(bool lead) {
  // Locals, not members: stores to sq_ could otherwise alias them and force reloads.
  const int lead_len = sub_->group_len_[0];
  if (lead && lead_table_) {
    const auto& squares = lead_sq_[std::size_t(digit_[0])];
    for (int i = 0; i < lead_len; ++i) sq_[i] = squares[std::size_t(i)];
  } else if (lead) {
    sub_->place_lead(digit_[0], sq_);
  }
  std::uint64_t prefix = 0;
  for (int i = 0; i < lead_len; ++i) prefix |= std::uint64_t{1} << sq_[i];
  if (prefix_groups_ == 2) {
    sub_->place_pawns(digit_[1], prefix, sq_);
    for (int i = lead_len; i < group_start_[2]; ++i) prefix |= std::uint64_t{1} << sq_[i];
  }
  prefix_ = prefix;
}

void SubtableWalk::place_rest(int from) {
  // Each group's rank among the squares the prefix and the groups before it leave free, as a
  // position among the prefix's free squares.
  std::uint64_t taken = 0;
  for (int i = group_start_[std::size_t(prefix_groups_)]; i < group_start_[std::size_t(from)]; ++i)
    taken |= std::uint64_t{1} << rest_[i];
  for (int g = from; g < sub_->groups_; ++g) {
    const int start = group_start_[std::size_t(g)];
    const int len = sub_->group_len_[std::size_t(g)];
    int c[kMaxPieces];
    if (len == 1) c[0] = int(digit_[std::size_t(g)]);
    else unrank_combination(digit_[std::size_t(g)], len, 64 - start, c);
    for (int i = 0; i < len; ++i) rest_[start + i] = nth_free(c[i], taken);
    for (int i = 0; i < len; ++i) taken |= std::uint64_t{1} << rest_[start + i];
  }
}

void SubtableWalk::expand(int from) {
  const int count = sub_->count_;
  const std::uint64_t prefix = prefix_;
  for (int i = from; i < count; ++i) sq_[i] = nth_free(rest_[i], prefix);
}

void SubtableWalk::next() {
  assert(index_ + 1 < sub_->size());
  ++index_;
  // Add one to the least significant digit, carrying. The prefix (the leading group, and the other
  // colour's pawns after it) is placed again when its digits changed; the other groups' positions
  // among the squares the prefix leaves free change only with their own digits or those of groups
  // before them in piece order, and their squares with those positions or the prefix.
  const SubtableIndex& sub = *sub_;
  const int groups = sub.groups_;
  const int prefix_groups = prefix_groups_;
  int lowest = kMaxPieces;
  int lowest_rest = groups;
  for (int k = 0; k < groups; ++k) {
    const int g = sub.slot_group_[std::size_t(k)];
    lowest = std::min(lowest, g);
    if (g >= prefix_groups) lowest_rest = std::min(lowest_rest, g);
    if (++digit_[std::size_t(g)] < sub.group_radix_[std::size_t(g)]) break;
    digit_[std::size_t(g)] = 0;
  }
  const bool prefix = lowest < prefix_groups;
  if (prefix) place_prefix(lowest == 0);
  if (lowest_rest < groups) place_rest(lowest_rest);
  rest_changed_ = group_start_[std::size_t(lowest_rest)];
  expand(group_start_[std::size_t(prefix ? prefix_groups : lowest_rest)]);
  publish(group_start_[std::size_t(lowest)]);
}

void SubtableWalk::publish(int first) {
  const int count = sub_->count_;
  for (int i = first; i < count; ++i) squares_[std::size_t(i)] = Square(sq_[i]);
}

}  // namespace tbkit::formats::syzygy
