#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "model/board.h"
#include "tests/model/material_util.h"

using namespace tbkit::model;
using namespace tbkit::chess;
using tbkit::model::testing::mat;
using tbkit::model::testing::random_board;

namespace {

using BulkMoveKey = std::tuple<int, int, int>;  // from, to, the moved (or promoted) man's type in the child

PieceType man_in_child(const Board& child, Square to) { return child.type_on(to); }

}  // namespace

TEST_CASE("Legal moves in bulk: the bulk targets and the other moves are exactly the legal moves, in check too", "[model]") {
  std::mt19937_64 rng(20261203);
  int positions = 0, checked_positions = 0, double_check = 0, bulk_in_check = 0, mismatches = 0;
  for (const char* name : {"KQRvKR", "KRBvKN", "KBBvKQ", "KQvKQ", "KRPvKR", "KNPvKB", "KPvKP", "KQNvKRB"}) {
    const Material m = mat(name);
    for (int k = 0; k < 20000; ++k) {
      const Board b = random_board(m, rng);
      if (!is_legal(b)) continue;  // the side not to move in check
      ++positions;
      const Bitboard occ = b.occupied();
      const Bitboard attackers_of_king =
          b.by_color[index_of(~b.side)] &
          ((knight_attacks(b.king(b.side)) & b.by_type[index_of(PieceType::kKnight)]) |
           (pawn_attacks(b.side, b.king(b.side)) & b.by_type[index_of(PieceType::kPawn)]) |
           (rook_attacks(b.king(b.side), occ) & (b.by_type[index_of(PieceType::kRook)] | b.by_type[index_of(PieceType::kQueen)])) |
           (bishop_attacks(b.king(b.side), occ) & (b.by_type[index_of(PieceType::kBishop)] | b.by_type[index_of(PieceType::kQueen)])));
      const bool checked = attackers_of_king != 0;
      mismatches += checked != in_check(b);
      checked_positions += checked;
      double_check += popcount(attackers_of_king) > 1;
      std::vector<BulkMoveKey> all, split;
      for_each_legal_move(b, [&](const Board& child, const MoveInfo& mi) {
        all.emplace_back(mi.from.index(), mi.to.index(), int(man_in_child(child, mi.to)));
      });
      for_each_legal_move_bulk(
          b,
          [&](PieceType t, Square from, Bitboard targets) {
            bulk_in_check += checked;
            mismatches += targets == 0 || t == PieceType::kPawn || (targets & occ) != 0;
            for (Bitboard bb = targets; bb;) split.emplace_back(from.index(), pop_lsb(bb).index(), int(t));
          },
          [&](const Board& child, const MoveInfo& mi) {
            split.emplace_back(mi.from.index(), mi.to.index(), int(man_in_child(child, mi.to)));
          });
      std::sort(all.begin(), all.end());
      std::sort(split.begin(), split.end());
      mismatches += all != split;
    }
  }
  CHECK(mismatches == 0);
  // The cases that matter were met: positions in check, double checks, and quiet moves out of check
  // reported in bulk.
  CHECK(positions > 100000);
  CHECK(checked_positions > 5000);
  CHECK(double_check > 50);
  CHECK(bulk_in_check > 5000);
}
