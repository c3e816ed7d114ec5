#include <catch2/catch.hpp>

#include "gen/solver.h"
#include "tests/support/gaviota_oracle.h"

using namespace tbkit;
using namespace tbkit::gen;
using namespace tbkit::chess;

// Debian's libgaviotatb-dev set: the five 3-piece tables (cp1).
TEST_CASE("All 3-piece tables agree with Gaviota on every legal position", "[gen][gaviota][slow]") {
  auto oracle = testing::GaviotaOracle::open({"/usr/share/gaviotatb/gtb1"});
  REQUIRE(oracle.ok());
  TableSet set;
  tbb::task_arena arena(2);
  for (const Material& m : all_materials(3)) {
    auto t = solve_table(m, set, arena);
    REQUIRE(t.ok());
    set.add(std::move(*t));
  }
  for (const Material& m : all_materials(3)) {
    INFO(m.name());
    const PieceType extra = m.has_pawns() ? PieceType::kPawn
                            : m.count(Color::kWhite, PieceType::kQueen) ? PieceType::kQueen
                            : m.count(Color::kWhite, PieceType::kRook)  ? PieceType::kRook
                            : m.count(Color::kWhite, PieceType::kBishop) ? PieceType::kBishop
                                                                         : PieceType::kKnight;
    std::uint64_t checked = 0, mismatches = 0;
    // Every placement, both sides to move, with White as the stronger side and with colours swapped.
    for (int wk = 0; wk < 64; ++wk)
      for (int bk = 0; bk < 64; ++bk)
        for (int x = 0; x < 64; ++x) {
          if (wk == bk || x == wk || x == bk || (king_attacks(Square(wk)) & Square(bk).bb())) continue;
          if (extra == PieceType::kPawn && (Square(x).rank() == 0 || Square(x).rank() == 7)) continue;
          for (int flip = 0; flip < 2; ++flip)
            for (int side = 0; side < 2; ++side) {
              Board b;
              b.side = Color(side);
              b.put(Color::kWhite, PieceType::kKing, Square(wk));
              b.put(Color::kBlack, PieceType::kKing, Square(bk));
              b.put(Color::kWhite, extra, Square(x));
              if (flip) b = color_flipped(b);
              if (!is_legal(b)) continue;
              auto pos = board_to_position(b);
              auto expected = pos ? oracle->probe(*pos) : Result<testing::OracleValue>(pos.error());
              const DtmValue got = set.probe(b);
              ++checked;
              if (!expected || got != expected->dtm()) {
                if (++mismatches <= 5)
                  FAIL_CHECK(board_to_fen(b) << ": ours " << got.raw() << ", Gaviota "
                                             << (expected ? std::to_string(expected->dtm().raw()) : expected.error().message));
              }
            }
        }
    CHECK(mismatches == 0);
    CHECK(checked > 300000);
  }
}
