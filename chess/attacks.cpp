#include "chess/attacks.h"

#include <cassert>

namespace tbkit::chess {
namespace detail {
namespace {

constexpr int kRookDirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
constexpr int kBishopDirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

bool on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

Bitboard ray_attacks(Square s, Bitboard occ, const int (*dirs)[2]) {
  Bitboard result = 0;
  for (int d = 0; d < 4; ++d) {
    int f = s.file() + dirs[d][0];
    int r = s.rank() + dirs[d][1];
    while (on_board(f, r)) {
      Bitboard b = Square(f, r).bb();
      result |= b;
      if (occ & b) break;
      f += dirs[d][0];
      r += dirs[d][1];
    }
  }
  return result;
}

Bitboard leaper_attacks(Square s, const int (*offsets)[2], int count) {
  Bitboard result = 0;
  for (int i = 0; i < count; ++i) {
    int f = s.file() + offsets[i][0];
    int r = s.rank() + offsets[i][1];
    if (on_board(f, r)) result |= Square(f, r).bb();
  }
  return result;
}

// Relevant occupancy: the ray squares whose occupancy can change the attack set (board edges excluded).
Bitboard relevant_mask(Square s, const int (*dirs)[2]) {
  Bitboard edges = ((kRank1 | kRank8) & ~rank_bb(s.rank())) | ((kFileA | kFileH) & ~file_bb(s.file()));
  return ray_attacks(s, 0, dirs) & ~edges;
}

// Deterministic xorshift generator for the magic search (only used without PEXT).
struct MagicRng {
  std::uint64_t state = 0x2545F4914F6CDD1DULL;
  std::uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1DULL;
  }
  std::uint64_t sparse() { return next() & next() & next(); }
};

void fill_slider(std::array<SliderEntry, 64>& entries, std::vector<Bitboard>& table, const int (*dirs)[2],
                 [[maybe_unused]] MagicRng& rng) {
  for (int i = 0; i < 64; ++i) {
    Square s(i);
    SliderEntry& e = entries[i];
    e.mask = relevant_mask(s, dirs);
    int bits = popcount(e.mask);
    e.shift = std::uint8_t(64 - bits);
    e.offset = std::uint32_t(table.size());
    std::size_t size = std::size_t{1} << bits;
    std::vector<Bitboard> occs;
    std::vector<Bitboard> atts;
    occs.reserve(size);
    atts.reserve(size);
    // Carry-Rippler enumeration of all subsets of the mask.
    Bitboard sub = 0;
    do {
      occs.push_back(sub);
      atts.push_back(ray_attacks(s, sub, dirs));
      sub = (sub - e.mask) & e.mask;
    } while (sub);
    table.resize(table.size() + size, 0);
#if defined(TBKIT_USE_PEXT)
    for (std::size_t k = 0; k < occs.size(); ++k) table[slider_index(e, occs[k])] = atts[k];
#else
    std::vector<int> epoch(size, 0);
    for (int attempt = 1;; ++attempt) {
      e.magic = rng.sparse();
      if (popcount((e.mask * e.magic) & 0xFF00000000000000ULL) < 6) continue;
      bool good = true;
      for (std::size_t k = 0; k < occs.size() && good; ++k) {
        std::size_t idx = slider_index(e, occs[k]);
        std::size_t local = idx - e.offset;
        if (epoch[local] < attempt) {
          epoch[local] = attempt;
          table[idx] = atts[k];
        } else if (table[idx] != atts[k]) {
          good = false;
        }
      }
      if (good) break;
    }
#endif
  }
}

}  // namespace

AttackTables build_attack_tables() {
  AttackTables t;
  constexpr int kKnight[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
  constexpr int kKing[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
  constexpr int kWhitePawn[2][2] = {{-1, 1}, {1, 1}};
  constexpr int kBlackPawn[2][2] = {{-1, -1}, {1, -1}};
  for (int i = 0; i < 64; ++i) {
    Square s(i);
    t.knight[i] = leaper_attacks(s, kKnight, 8);
    t.king[i] = leaper_attacks(s, kKing, 8);
    t.pawn[0][i] = leaper_attacks(s, kWhitePawn, 2);
    t.pawn[1][i] = leaper_attacks(s, kBlackPawn, 2);
  }
  MagicRng rng;
  t.slider_table.reserve(107648);
  fill_slider(t.rook, t.slider_table, kRookDirs, rng);
  fill_slider(t.bishop, t.slider_table, kBishopDirs, rng);
  for (int a = 0; a < 64; ++a) {
    for (int b = 0; b < 64; ++b) {
      if (a == b) continue;
      Square sa(a), sb(b);
      for (const auto* dirs : {kRookDirs, kBishopDirs}) {
        Bitboard from_a = ray_attacks(sa, 0, dirs);
        if (!(from_a & sb.bb())) continue;
        t.line[a][b] = (from_a & ray_attacks(sb, 0, dirs)) | sa.bb() | sb.bb();
        t.between[a][b] = ray_attacks(sa, sb.bb(), dirs) & ray_attacks(sb, sa.bb(), dirs);
      }
    }
  }
  return t;
}

const AttackTables kTables = build_attack_tables();

}  // namespace detail

Bitboard piece_attacks(PieceType t, Square s, Bitboard occ) {
  switch (t) {
    case PieceType::kKnight: return knight_attacks(s);
    case PieceType::kBishop: return bishop_attacks(s, occ);
    case PieceType::kRook: return rook_attacks(s, occ);
    case PieceType::kQueen: return queen_attacks(s, occ);
    case PieceType::kKing: return king_attacks(s);
    default: assert(false); return 0;
  }
}

}  // namespace tbkit::chess
