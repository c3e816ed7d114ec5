#include <catch2/catch.hpp>

#include "tests/cli/cli_runner.h"

using tbkit::testing::run_tbkit;

TEST_CASE("position prints board, key, status and moves", "[cli][position]") {
  auto r = run_tbkit("position startpos --moves e4 d5 e5 f5");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(" 5 . . . p P p . .  5") != std::string::npos);
  CHECK(r.out.find("Side to move: white") != std::string::npos);
  // Polyglot spec test key for this position (en passant on f6 counts: the e5 pawn can capture).
  CHECK(r.out.find("Polyglot key: 22a48b5a8e47ff78") != std::string::npos);
  CHECK(r.out.find("Legal moves:  31") != std::string::npos);
  CHECK(r.out.find("exf6 (e5f6)") != std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("position reports mate, stalemate and material draws", "[cli][position]") {
  auto mate = run_tbkit("position 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3'");
  REQUIRE(mate.exit_code == 0);
  CHECK(mate.out.find("Status:       checkmate") != std::string::npos);
  CHECK(mate.out.find("Legal moves:  0") != std::string::npos);

  auto stalemate = run_tbkit("position '7k/5Q2/6K1/8/8/8/8/8 b - - 0 1'");
  REQUIRE(stalemate.exit_code == 0);
  CHECK(stalemate.out.find("Status:       stalemate") != std::string::npos);

  auto material = run_tbkit("position '8/8/4k3/8/8/3BK3/8/8 w - - 0 1'");
  REQUIRE(material.exit_code == 0);
  CHECK(material.out.find("insufficient material") != std::string::npos);

  auto check = run_tbkit("position startpos --moves e4 f5 Qh5");
  REQUIRE(check.exit_code == 0);
  CHECK(check.out.find("Status:       check\n") != std::string::npos);
}

TEST_CASE("position --json", "[cli][position]") {
  auto r = run_tbkit("position '4k3/8/8/8/8/8/8/4K2R w K - 0 1' --json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("{\"fen\": \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"", 0) == 0);
  CHECK(r.out.find("\"side_to_move\": \"white\"") != std::string::npos);
  CHECK(r.out.find("{\"san\": \"O-O\", \"uci\": \"e1g1\"}") != std::string::npos);
  CHECK(r.out.find("\"in_check\": false") != std::string::npos);
  CHECK(r.out.back() == '\n');
}

TEST_CASE("position rejects a bad FEN with one line and exit code 2", "[cli][position]") {
  const char* bad[] = {
      "'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1'",
      "'8/8/8/8/8/8/8/8 w - - 0 1'",
      "'4k3/8/8/8/8/8/8/4K3 x - - 0 1'",
      "'4k3/8/8/8/8/8/8/4K3'",
  };
  for (const char* fen : bad) {
    INFO(fen);
    auto r = run_tbkit(std::string("position ") + fen);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("tbkit: bad FEN", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  auto illegal = run_tbkit("position startpos --moves e5");
  CHECK(illegal.exit_code == 2);
  CHECK(illegal.err.find("'e5' is not a legal move") != std::string::npos);
}
