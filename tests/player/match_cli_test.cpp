// `tbkit match`: adjudication of mate, stalemate, insufficient material, the fifty-move rule,
// threefold repetition, illegal moves and time forfeits; PGN output; the W/D/L line.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <catch2/catch.hpp>

#include "tests/cli/cli_runner.h"

using tbkit::testing::read_file;
using tbkit::testing::run_tbkit;

namespace {

std::filesystem::path temp_dir() {
  const auto p = std::filesystem::temp_directory_path() / ("tbkit-match-" + std::to_string(::getpid()));
  std::filesystem::create_directories(p);
  return p;
}

std::string write(const std::filesystem::path& p, const std::string& text, bool executable = false) {
  std::ofstream(p) << text;
  if (executable) std::filesystem::permissions(p, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
  return p.string();
}

std::string tbkit_engine() { return std::string("'") + std::getenv("TBKIT_BINARY") + " uci'"; }

// A scripted UCI engine: plays the moves of its list in order, indexed by the number of moves in
// the "position ... moves" command; "sleep" instead of a move never answers.
std::string script_engine(const std::filesystem::path& dir, const std::string& name, const std::string& moves) {
  return write(dir / name,
               "#!/bin/sh\n"
               "n=0\n"
               "while read -r cmd rest; do\n"
               "  case $cmd in\n"
               "    uci) echo 'id name " + name + "'; echo uciok;;\n"
               "    isready) echo readyok;;\n"
               "    position) case \"$rest\" in *moves*) n=$(echo \"${rest#*moves}\" | wc -w);; *) n=0;; esac;;\n"
               "    go) set -- " + moves + "; shift $n; if [ \"$1\" = sleep ]; then :; else echo \"bestmove $1\"; fi;;\n"
               "    quit) exit 0;;\n"
               "  esac\n"
               "done\n",
               true);
}

}  // namespace

TEST_CASE("match adjudicates mate, stalemate, insufficient material and the fifty-move rule", "[player][match][cli]") {
  const auto dir = temp_dir();
  const auto epd = write(dir / "ends.epd",
                         "# one position a line\n"
                         "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1 ; mate in 1\n"
                         "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1 ; stalemated already\n"
                         "8/8/4k3/8/8/3NK3/8/8 w - - 0 1\n"
                         "8/8/8/3k4/8/8/8/KR6 w - - 99 80\n");
  const auto pgn = (dir / "ends.pgn").string();
  const auto r = run_tbkit("match --engine1 " + tbkit_engine() + " --engine2 " + tbkit_engine() + " --openings " + epd +
                           " --colors white --movetime 50 --pgn " + pgn);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("game 1: engine1 white, 1-0 (checkmate), 1 plies") != std::string::npos);
  CHECK(r.out.find("game 2: engine1 white, 1/2-1/2 (stalemate), 0 plies") != std::string::npos);
  CHECK(r.out.find("game 3: engine1 white, 1/2-1/2 (draw by insufficient material), 0 plies") != std::string::npos);
  CHECK(r.out.find("game 4: engine1 white, 1/2-1/2 (draw by the fifty-move rule), 1 plies") != std::string::npos);
  CHECK(r.out.find("Score of tbkit vs tbkit: 1 - 0 - 3  [0.625] 4 games") != std::string::npos);
  const std::string games = read_file(pgn);
  CHECK(games.find("1. Rd8# {checkmate} 1-0") != std::string::npos);
  CHECK(games.find("[FEN \"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\"]") != std::string::npos);
  CHECK(!std::filesystem::exists(pgn + ".tmp"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("match adjudicates repetition, illegal moves and time forfeits", "[player][match][cli]") {
  const auto dir = temp_dir();
  const std::string shuffle = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8 g1f3";
  const auto a = script_engine(dir, "shuffler", shuffle);
  const auto r = run_tbkit("match --engine1 " + a + " --engine2 " + a + " --colors white --movetime 50");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("1/2-1/2 (draw by threefold repetition), 8 plies") != std::string::npos);

  const auto cheat = script_engine(dir, "cheater", "e2e5");
  const auto r2 = run_tbkit("match --engine1 " + cheat + " --engine2 " + a + " --colors white --movetime 50");
  REQUIRE(r2.exit_code == 0);
  CHECK(r2.out.find("0-1 (cheater played an illegal move 'e2e5'), 0 plies") != std::string::npos);
  CHECK(r2.out.find("Score of cheater vs shuffler: 0 - 1 - 0") != std::string::npos);

  const auto sleeper = script_engine(dir, "sleeper", "e2e4 sleep");
  const auto r3 = run_tbkit("match --engine1 " + a + " --engine2 " + sleeper + " --colors white --movetime 50 --time-margin 100");
  REQUIRE(r3.exit_code == 0);
  CHECK(r3.out.find("1-0 (sleeper lost on time") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("match from book lines plays both colours, and bad input is refused", "[player][match][cli]") {
  const auto dir = temp_dir();
  const auto book = (dir / "b.tbb").string();
  REQUIRE(run_tbkit("book build " + std::string(TBKIT_DATA_DIR) + "/books/gnuchess-500.pgn -q --max-ply 10 -o " + book).exit_code == 0);
  const auto r = run_tbkit("match --engine1 " + tbkit_engine() + " --engine2 " + tbkit_engine() + " --book " + book +
                           " --book-plies 6 --games 2 --movetime 20 --max-plies 12");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("game 1: engine1 white") != std::string::npos);
  CHECK(r.out.find("game 2: engine1 black") != std::string::npos);
  CHECK(r.out.find("2 games (W - L - D)") != std::string::npos);

  CHECK(run_tbkit("match --engine1 x --engine2 y --tc abc").exit_code == 2);
  CHECK(run_tbkit("match --engine1 x --engine2 y --openings /nonexistent.epd").exit_code == 3);
  const auto bad = write(dir / "bad.epd", "8/8/8 w - -\n");
  const auto rb = run_tbkit("match --engine1 x --engine2 y --openings " + bad);
  CHECK(rb.exit_code == 2);
  CHECK(rb.err.find("bad.epd:1") != std::string::npos);
  const auto missing = run_tbkit("match --engine1 /nonexistent/engine --engine2 y --movetime 10");
  CHECK(missing.exit_code == 3);
  std::filesystem::remove_all(dir);
}

TEST_CASE("verify --play: table-driven games mate exactly on time", "[player][verify][cli]") {
  const auto dir = temp_dir() / "tables";
  std::filesystem::create_directories(dir);
  REQUIRE(run_tbkit("gen KQvK KRvK -q -d " + dir.string()).exit_code == 0);
  const auto r = run_tbkit("verify --play 40 -d " + dir.string());
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("40 passed, 0 failed") != std::string::npos);
  const auto s = run_tbkit("verify --sample 3 --want won --material KRvK -d " + dir.string());
  CHECK(s.exit_code == 0);
  CHECK(std::count(s.out.begin(), s.out.end(), '\n') == 3);
  CHECK(s.out.find("; KRvK win dtm ") != std::string::npos);
  // A material without a table in the directory is named as such (once "found only 0 of 3").
  const auto none = run_tbkit("verify --sample 3 --want won --material KBNvK -d " + dir.string());
  CHECK(none.exit_code == 5);
  CHECK(none.err.find("verify --sample: no table for KBNvK (KBNvK.dtm not found in " + dir.string() + ")") != std::string::npos);
  CHECK(run_tbkit("verify --sample 3 --want won -d " + dir.string()).exit_code == 2);  // no --material
  std::filesystem::remove_all(dir.parent_path());
}

TEST_CASE("verify --play with Syzygy files: games from 50-move wins mate, DTM-only play is counted", "[player][verify][cli]") {
  const auto dir = temp_dir() / "syzygy";
  std::filesystem::create_directories(dir);
  REQUIRE(run_tbkit("gen KPvK --syzygy -q -d " + dir.string()).exit_code == 0);
  // 98 plies on the clock: a king move first would let the 50-move rule draw, in most of them.
  const auto r = run_tbkit("verify --play 20 --clock 98 --material KPvK -d " + dir.string());
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("play (50-move rule): 20 games over 1 tables, 20 mates, 0 50-move draws, 0 other endings") != std::string::npos);
  CHECK(r.out.find("20 passed, 0 failed") != std::string::npos);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(R"(would have drawn (\d+) of 20 games by the 50-move rule)")));
  CHECK(std::stoi(m[1]) > 0);
  CHECK(r.out.find("DTM-only play draws KPvK ") != std::string::npos);
  // The same rule from a given position; and DTM alone from it draws (Kf7-e6 is faster by DTM).
  const auto epd = write(dir / "late.epd", "8/5K2/k6P/8/8/8/8/8 w - - 98 1 ; KPvK\n");
  const auto from = run_tbkit("verify --play-from " + epd + " -d " + dir.string());
  CHECK(from.exit_code == 0);
  CHECK(from.out.find("1 mates, 0 50-move draws") != std::string::npos);
  CHECK(from.out.find("would have drawn 1 of 1 games") != std::string::npos);
  const auto dtm = run_tbkit("verify --play-from " + epd + " --rule dtm -d " + dir.string());
  CHECK(dtm.exit_code == 1);
  CHECK(dtm.out.find("FAIL KPvK 8/5K2/k6P/8/8/8/8/8 w - - 98 1: 50-move draw after 2 plies") != std::string::npos);
  // The DTM tables' own check is still there: every game mates exactly on time.
  const auto exact = run_tbkit("verify --play 10 --rule exact -d " + dir.string());
  CHECK(exact.exit_code == 0);
  CHECK(exact.out.find("every game mated exactly on time: yes") != std::string::npos);
  CHECK(run_tbkit("verify --play-from " + epd + " --rule exact -d " + dir.string()).exit_code == 2);
  // The UCI player reads both kinds from TablebasePath and pushes in time (DTM alone: Kf7-e6).
  const auto uci = run_tbkit("uci", "setoption name TablebasePath value " + dir.string() +
                                        "\nposition fen 8/5K2/k6P/8/8/8/8/8 w - - 98 1\ngo movetime 100\nquit\n");
  CHECK(uci.exit_code == 0);
  CHECK(uci.out.find("info string error") == std::string::npos);
  CHECK(uci.out.find("score mate 10 ") != std::string::npos);
  CHECK(uci.out.find("bestmove h6h7") != std::string::npos);
  // Sampling wins under the rule prints full FENs with the clock.
  const auto s = run_tbkit("verify --sample 3 --want won50 --clock 40 --material KPvK -d " + dir.string());
  CHECK(s.exit_code == 0);
  CHECK(std::count(s.out.begin(), s.out.end(), '\n') == 3);
  CHECK(s.out.find(" - 40 1 ; KPvK win50 dtz ") != std::string::npos);
  std::filesystem::remove_all(dir.parent_path());
}

TEST_CASE("match refuses an option the engine does not offer, or a value it rejects, before any game", "[player][match][cli]") {
  // Both were once sent and ignored: the whole match ran with the engine's default.
  const auto unknown = run_tbkit("match --engine1 " + tbkit_engine() + " --engine2 " + tbkit_engine() + " --option1 Foo=1 --movetime 10");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("has no option 'Foo'") != std::string::npos);
  CHECK(unknown.out.find("game 1") == std::string::npos);
  const auto rejected = run_tbkit("match --engine1 " + tbkit_engine() + " --engine2 " + tbkit_engine() +
                                  " --option2 TablebasePath=/nonexistent/dir --movetime 10");
  CHECK(rejected.exit_code == 2);
  CHECK(rejected.err.find("rejected an option: info string error: TablebasePath") != std::string::npos);
  // Names are matched without regard to case, as UCI asks; a good value plays.
  const auto ok = run_tbkit("match --engine1 " + tbkit_engine() + " --engine2 " + tbkit_engine() +
                            " --option1 hash=8 --movetime 10 --max-plies 4 --games 1");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("1 games (W - L - D)") != std::string::npos);
}

TEST_CASE("match records both engines' games for learning, and a learning engine sees how they end", "[player][match][cli][learning]") {
  const auto dir = temp_dir();
  // The referee's record: a scripted fool's mate, both sides' moves, Black's win.
  const std::string fools = "f2f3 e7e5 g2g4 d8h4";
  const auto w = script_engine(dir, "white.sh", fools), b = script_engine(dir, "black.sh", fools);
  const auto book = (dir / "b.tbb").string();
  const auto r = run_tbkit("match --engine1 " + w + " --engine2 " + b + " --colors white --games 2 --movetime 50 --learn-into " + book);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Score of white.sh vs black.sh: 0 - 2 - 0") != std::string::npos);
  auto p = run_tbkit("book probe " + book + " --json");
  CHECK(p.out.find("\"learned\": {\"games\": 2, \"moves\": [{\"san\": \"f3\", \"uci\": \"f2f3\", \"games\": 2, \"wins\": 0, "
                   "\"draws\": 0, \"losses\": 2") != std::string::npos);
  p = run_tbkit("book probe " + book + " --moves 'f3 e5 g4' --json");
  CHECK(p.out.find("{\"san\": \"Qh4#\", \"uci\": \"d8h4\", \"games\": 2, \"wins\": 2, ") != std::string::npos);

  // The engine's own record: tbkit mates as Black from the position before Qh4#; the referee shows
  // it the final position, so its journal has the win although it never moved again.
  const auto epd = write(dir / "mate.epd", "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2\n");
  const auto store = (dir / "engine.exp").string();
  const auto m = run_tbkit("match --engine1 " + tbkit_engine() + " --option1 ExperienceFile=" + store +
                           " --option1 BookLearning=true --engine2 " + b + " --openings " + epd + " --colors black --movetime 100");
  REQUIRE(m.exit_code == 0);
  CHECK(m.out.find("0-1 (checkmate), 1 plies") != std::string::npos);
  p = run_tbkit("book probe " + (dir / "engine").string() +
                " 'rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2' --json");
  CHECK(p.out.find("\"learned\": {\"games\": 1, \"moves\": [{\"san\": \"Qh4#\", \"uci\": \"d8h4\", \"games\": 1, \"wins\": 1, ") !=
        std::string::npos);
  std::filesystem::remove_all(dir);
}
