// `tbkit play` driven by scripted stdin.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "tests/cli/cli_runner.h"

using tbkit::testing::read_file;
using tbkit::testing::run_tbkit;

namespace {

std::string temp_file(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tbkit-play-" + std::to_string(::getpid()) + "-" + name)).string();
}

}  // namespace

TEST_CASE("play: moves in SAN and UCI, hint, a bad move, undo, resign, PGN saved", "[player][play][cli]") {
  const std::string pgn = temp_file("game1.pgn");
  const auto r = run_tbkit("play --time 0.05 --seed 3 --pgn " + pgn, "e4\nhint\nKe3\nundo\nd2d4\nresign\n");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("   a b c d e f g h") != std::string::npos);
  CHECK(r.out.find(" 1 R N B Q K B N R  1") != std::string::npos);
  CHECK(r.out.find("tbkit plays ") != std::string::npos);
  CHECK(r.out.find("Hint: ") != std::string::npos);
  CHECK(r.out.find("Not a legal move: 'Ke3'") != std::string::npos);
  CHECK(r.out.find("You resign: 0-1") != std::string::npos);
  const std::string game = read_file(pgn);
  CHECK(game.find("[White \"you\"]") != std::string::npos);
  CHECK(game.find("[Result \"0-1\"]") != std::string::npos);
  // e4 and its reply were taken back: the game starts 1. d4.
  CHECK(game.find("\n1. d4 ") != std::string::npos);
  CHECK(game.find("e4") == std::string::npos);
  CHECK(game.find("White resigns} 0-1") != std::string::npos);
  std::filesystem::remove(pgn);
}

TEST_CASE("play: checkmate ends the game with the right result", "[player][play][cli]") {
  const std::string pgn = temp_file("game2.pgn");
  const auto r = run_tbkit("play --time 0.05 --fen '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1' --pgn " + pgn, "Rd8\n");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Game over: checkmate, 1-0") != std::string::npos);
  const std::string game = read_file(pgn);
  CHECK(game.find("[FEN \"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1\"]") != std::string::npos);
  CHECK(game.find("1. Rd8# {checkmate} 1-0") != std::string::npos);
  std::filesystem::remove(pgn);
}

TEST_CASE("play: as Black the engine moves first, and end of input saves an unfinished game", "[player][play][cli]") {
  const std::string pgn = temp_file("game3.pgn");
  const auto r = run_tbkit("play --color black --time 0.05 --pgn " + pgn, "");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("tbkit plays ") != std::string::npos);
  // Black's view: rank 1 at the top.
  CHECK(r.out.find("   h g f e d c b a") != std::string::npos);
  const std::string game = read_file(pgn);
  CHECK(game.find("[White \"tbkit\"]") != std::string::npos);
  CHECK(game.find("[Result \"*\"]") != std::string::npos);
  CHECK(game.find("\n1. ") != std::string::npos);
  std::filesystem::remove(pgn);
}

TEST_CASE("play: bad options are refused", "[player][play][cli]") {
  CHECK(run_tbkit("play --color green", "").exit_code == 2);
  CHECK(run_tbkit("play --book /nonexistent/book.tbb", "").exit_code == 3);
  CHECK(run_tbkit("play --fen '8/8/8/8/8/8/8/8 w - - 0 1'", "").exit_code == 2);
}

TEST_CASE("play: the game is learned from, unless --no-learn", "[player][play][cli][learning]") {
  const std::string pgn = temp_file("game-learn.pgn"), store = temp_file("store");
  // The engine, Black, mates at once; the store records both sides' plies of the finished game.
  const std::string fen = "'rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2'";
  const auto off = run_tbkit("play --time 0.1 --fen " + fen + " --experience " + store + ".exp --no-learn --pgn " + pgn, "");
  REQUIRE(off.exit_code == 0);
  CHECK(!std::filesystem::exists(store + ".exp"));
  const auto r = run_tbkit("play --time 0.1 --fen " + fen + " --experience " + store + ".exp --pgn " + pgn, "");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Game over: checkmate, 0-1") != std::string::npos);
  CHECK(r.out.find("Learned from the game: " + store + ".exp") != std::string::npos);
  const auto p = run_tbkit("book probe " + store + " " + fen + " --json");
  CHECK(p.out.find("\"learned\": {\"games\": 1, \"moves\": [{\"san\": \"Qh4#\", \"uci\": \"d8h4\", \"games\": 1, \"wins\": 1, ") !=
        std::string::npos);
  // A bad store name is refused before the game.
  const auto bad = run_tbkit("play --experience " + store + ".txt --pgn " + pgn, "");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("ExperienceFile: expected the journal's path, ending in .exp") != std::string::npos);
  std::filesystem::remove(pgn);
  std::filesystem::remove(store + ".exp");
  std::filesystem::remove(store + ".learn");
}
