// Search: forced mates found at the right distance (positions and mating moves confirmed with
// Stockfish 15.1: `go depth 14` with MultiPV 2 shows the move is the only mate of that length),
// stop and node limits honoured, draws by rule scored zero.
#include <atomic>
#include <string>

#include <catch2/catch.hpp>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "chess/notation.h"
#include "player/eval.h"
#include "player/search.h"

using namespace tbkit;

namespace {

player::SearchResult search_fen(const std::string& fen, int depth, player::Searcher& s) {
  auto pos = chess::parse_fen(fen);
  REQUIRE(pos.ok());
  std::atomic<bool> stop{false};
  player::SearchLimits limits;
  limits.depth = depth;
  return s.search(*pos, limits, stop, nullptr);
}

}  // namespace

TEST_CASE("Search finds mates in 2 and 3 at the exact distance", "[player][search]") {
  struct Case {
    const char* fen;
    int mate_moves;
    const char* move;  // the only mate of that length, or "" when several exist
  };
  const Case cases[] = {
      {"r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10", 2, ""},
      {"6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", 2, "g2g1"},
      {"2r3k1/p4p2/3Rp2p/1p2P1pK/8/1P4P1/P3Q2P/1q6 b - - 0 1", 3, "b1g6"},
      {"r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3, "f6a6"},
  };
  for (const Case& c : cases) {
    INFO(c.fen);
    player::Searcher s(8);
    const auto r = search_fen(c.fen, 2 * c.mate_moves + 2, s);
    REQUIRE(player::mate_in_moves(r.score).has_value());
    CHECK(*player::mate_in_moves(r.score) == c.mate_moves);
    if (*c.move) CHECK(chess::to_uci(r.best) == c.move);
  }
}

TEST_CASE("Search sees being mated", "[player][search]") {
  // Black's only move Kg8 allows Ra8#: mated in 1.
  player::Searcher s(8);
  const auto lost = search_fen("7k/R7/6K1/8/8/8/8/8 b - - 0 1", 6, s);
  REQUIRE(player::mate_in_moves(lost.score).has_value());
  CHECK(*player::mate_in_moves(lost.score) == -1);
  CHECK(chess::to_uci(lost.best) == "h8g8");
}

TEST_CASE("Search honours node limits and the stop flag", "[player][search]") {
  auto pos = chess::parse_fen(chess::kStartFen);
  REQUIRE(pos.ok());
  player::Searcher s(8);
  std::atomic<bool> stop{false};
  player::SearchLimits limits;
  limits.nodes = 20000;
  const auto r = s.search(*pos, limits, stop, nullptr);
  CHECK(chess::legal_moves(*pos).contains(r.best));
  CHECK(r.nodes <= 20000 + 2048);
  stop = true;
  player::SearchLimits unlimited;
  unlimited.infinite = true;
  const auto r2 = s.search(*pos, unlimited, stop, nullptr);
  CHECK(chess::legal_moves(*pos).contains(r2.best));
  CHECK(r2.nodes < 5000);
}

TEST_CASE("Search restricted to given root moves plays one of them", "[player][search]") {
  auto pos = chess::parse_fen("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1");
  REQUIRE(pos.ok());
  player::Searcher s(8);
  std::atomic<bool> stop{false};
  player::SearchLimits limits;
  limits.depth = 5;
  player::SearchOptions options;
  options.root_moves = {*chess::parse_uci(*pos, "h2h3"), *chess::parse_uci(*pos, "h2h4")};
  const auto r = s.search(*pos, limits, stop, nullptr, options);
  CHECK((chess::to_uci(r.best) == "h2h3" || chess::to_uci(r.best) == "h2h4"));
}

TEST_CASE("Evaluation is symmetric and sees material and mop-up", "[player][eval]") {
  const char* fens[] = {"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
                        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
                        "8/8/4k3/8/8/8/2Q5/K7 w - - 0 1"};
  for (const char* f : fens) {
    auto pos = chess::parse_fen(f);
    REQUIRE(pos.ok());
    // Mirror: swap colours and flip ranks; the side to move's score must be unchanged.
    auto setup = pos->setup();
    chess::PositionSetup m = setup;
    for (int sq = 0; sq < 64; ++sq) {
      const chess::Piece p = setup.board[std::size_t(sq)];
      m.board[std::size_t(sq ^ 56)] = p.is_none() ? p : chess::Piece(~p.color(), p.type());
    }
    m.side = ~setup.side;
    m.castling = std::uint8_t(((setup.castling & 3) << 2) | ((setup.castling >> 2) & 3));
    m.en_passant = chess::Square::none();
    auto mirrored = chess::Position::from_setup(m);
    REQUIRE(mirrored.ok());
    CHECK(player::evaluate(*pos) == player::evaluate(*mirrored));
  }
  // Mop-up: the lone king in the corner is worse for it than in the centre.
  auto corner = chess::parse_fen("k7/8/8/8/8/8/2Q5/4K3 w - - 0 1");
  auto centre = chess::parse_fen("8/8/8/3k4/8/8/2Q5/4K3 w - - 0 1");
  REQUIRE(corner.ok());
  REQUIRE(centre.ok());
  CHECK(player::evaluate(*corner) > player::evaluate(*centre));
  CHECK(player::evaluate(*corner) > 800);
}
