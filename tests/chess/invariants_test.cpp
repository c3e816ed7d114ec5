// Checks the core's invariants at every node of perft trees: incremental key, FEN round trip, SAN and
// UCI round trips of every legal move, gives_check, exact undo, and colour-flip symmetry.
#include <catch2/catch.hpp>

#include <string>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "chess/perft.h"
#include "chess/transform.h"

using namespace tbkit::chess;

namespace {

struct Walk {
  std::uint64_t nodes = 0;
  std::uint64_t moves = 0;
  std::uint64_t checks = 0;
  std::uint64_t en_passants = 0;
  std::uint64_t castles = 0;
  std::uint64_t promotions = 0;
};

// Equal in every observable respect, including the derived bitboards and checkers.
bool identical(const Position& a, const Position& b) {
  if (!(a == b) || a.key() != b.key() || a.checkers() != b.checkers() || a.fullmove_number() != b.fullmove_number())
    return false;
  for (Color c : {Color::kWhite, Color::kBlack})
    for (int t = 0; t < kPieceTypeCount; ++t)
      if (a.pieces(c, PieceType(t)) != b.pieces(c, PieceType(t))) return false;
  return true;
}

// Catch2 assertions are too slow for hundreds of thousands of nodes; failures throw with context instead.
void expect(bool ok, const char* what, const Position& pos, Move m = Move::none()) {
  if (ok) return;
  FAIL(what << " at " << to_fen(pos) << (m.is_none() ? "" : " move " + to_uci(m)));
}

void check_node(const Position& pos) {
  expect(pos.key() == pos.compute_key(), "incremental key != compute_key()", pos);
  const std::string fen = to_fen(pos);
  auto again = parse_fen(fen);
  expect(again.ok(), "to_fen output does not parse", pos);
  expect(to_fen(*again) == fen, "FEN round trip changed the text", pos);
  expect(again->key() == pos.key(), "FEN round trip changed the key", pos);
  expect(*again == pos, "FEN round trip changed the position", pos);
  // The colour-flipped position has as many moves, and flipping twice is the identity.
  auto flipped = transform(pos, Transform::kColorFlip);
  expect(flipped.ok(), "colour flip refused", pos);
  expect(legal_moves(*flipped).size() == legal_moves(pos).size(), "colour flip changed the move count", pos);
  auto back = transform(*flipped, Transform::kColorFlip);
  expect(back.ok() && to_fen(*back) == fen, "flipping twice is not the identity", pos);
}

void walk(Position& pos, int depth, Walk& w) {
  ++w.nodes;
  check_node(pos);
  if (depth == 0) return;
  const Position before = pos;
  for (Move m : legal_moves(pos)) {
    ++w.moves;
    const std::string san = to_san(pos, m);
    auto from_san = parse_san(pos, san);
    expect(from_san.ok() && *from_san == m, "parse_san(to_san(m)) != m", pos, m);
    auto from_uci = parse_uci(pos, to_uci(m));
    expect(from_uci.ok() && *from_uci == m, "parse_uci(to_uci(m)) != m", pos, m);
    const bool checks = pos.gives_check(m);
    w.checks += checks;
    w.en_passants += m.is_en_passant();
    w.castles += m.is_castling();
    w.promotions += m.is_promotion();
    pos.do_move(m);
    expect(pos.in_check() == checks, "gives_check disagrees with in_check after the move", before, m);
    expect((san.back() == '+' || san.back() == '#') == checks, "SAN check suffix disagrees with gives_check", before, m);
    walk(pos, depth - 1, w);
    pos.undo_move(m);
    expect(identical(pos, before), "undo_move did not restore the position", before, m);
  }
}

struct Case {
  const char* name;
  const char* fen;
  int depth;
};

// Perft of flipped positions is cheap: go deeper than the walk, more so in release (NDEBUG) builds.
#ifdef NDEBUG
constexpr int kFlipExtra = 2;
#else
constexpr int kFlipExtra = 1;
#endif

const Case kCases[] = {
    {"startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3},
    {"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2},
    {"cpw3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4},
    {"cpw4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3},
    {"cpw4 mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 3},
    {"cpw5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 2},
    {"cpw6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 2},
    {"ep rank pin", "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1", 4},
    {"ep diagonal pin along the line", "8/8/8/1k6/2pP4/8/8/5BK1 b - d3 0 1", 4},
    {"ep captures the checker", "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", 4},
    {"promotions", "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 3},
    {"castling through check", "4k1r1/8/8/8/8/8/2b5/R3K2R w KQ - 0 1", 3},
    {"castling past an attacked b1", "r3k2r/8/8/8/8/n7/8/R3K2R w KQkq - 0 1", 3},
};

}  // namespace

TEST_CASE("invariants hold at every node", "[chess][invariants][slow]") {
  Walk total;
  for (const auto& c : kCases) {
    INFO(c.name);
    auto pos = parse_fen(c.fen);
    REQUIRE(pos.ok());
    Walk w;
    walk(*pos, c.depth, w);
    CHECK(w.nodes > 1);
    total.nodes += w.nodes;
    total.moves += w.moves;
    total.checks += w.checks;
    total.en_passants += w.en_passants;
    total.castles += w.castles;
    total.promotions += w.promotions;
  }
  // The trees must actually reach the special moves they are chosen for.
  CHECK(total.en_passants > 0);
  CHECK(total.castles > 0);
  CHECK(total.promotions > 0);
  CHECK(total.checks > 0);
}

TEST_CASE("colour-flipped positions have equal perft counts", "[chess][invariants][transform]") {
  for (const auto& c : kCases) {
    INFO(c.name);
    auto pos = parse_fen(c.fen);
    REQUIRE(pos.ok());
    auto flipped = transform(*pos, Transform::kColorFlip);
    REQUIRE(flipped.ok());
    CHECK(flipped->side_to_move() != pos->side_to_move());
    for (int d = 1; d <= c.depth + kFlipExtra; ++d) CHECK(perft(*flipped, d) == perft(*pos, d));
  }
}
