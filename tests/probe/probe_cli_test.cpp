// tbkit probe: stdout and exit codes for good and bad input, --line, --json, batch mode.
#include <catch2/catch.hpp>

#include "tests/cli/cli_runner.h"

using tbkit::testing::run_tbkit;

namespace {
const std::string kDir = std::string(" -d ") + TBKIT_TEST_TABLES_DIR;
}

TEST_CASE("tbkit probe: board, verdict in words, every move best first", "[probe][cli]") {
  auto r = run_tbkit("probe '8/8/8/5k2/8/8/1Q6/K7 w - - 0 1'" + kDir);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(" 2 . Q . . . . . .  2"));
  CHECK_THAT(r.out, Catch::Contains("Verdict: White mates in 10 (19 plies)"));
  CHECK_THAT(r.out, Catch::Contains("Moves:   24, best first"));
  CHECK_THAT(r.out, Catch::Contains("Qf6+    b2f6   draw"));
  CHECK(r.out.find("mates in 10") < r.out.find("Qe5+"));

  auto loss = run_tbkit("probe '8/8/8/8/pP6/8/K7/7k b - - 0 1'" + kDir);
  CHECK(loss.exit_code == 0);
  CHECK_THAT(loss.out, Catch::Contains("Verdict: Black to move is mated in 15 (30 plies)"));
  auto ep = run_tbkit("probe 8/8/8/8/pP6/8/K7/7k b - b3 0 1" + kDir);
  CHECK(ep.exit_code == 0);
  CHECK_THAT(ep.out, Catch::Contains("Verdict: Draw"));
  CHECK_THAT(ep.out, Catch::Contains("axb3+   a4b3   draw"));
  auto mated = run_tbkit("probe 'k7/1Q6/1K6/8/8/8/8/8 b - - 0 1'" + kDir);
  CHECK_THAT(mated.out, Catch::Contains("Verdict: Black is checkmated"));
}

TEST_CASE("tbkit probe --line plays the mating line and checks its length", "[probe][cli]") {
  auto r = run_tbkit("probe '8/8/8/8/8/2k5/1R6/K7 w - - 0 1' --line" + kDir);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Verdict: White mates in 16 (31 plies)"));
  CHECK_THAT(r.out, Catch::Contains("Line:    1. "));
  CHECK_THAT(r.out, Catch::Contains("16. R"));
  CHECK_THAT(r.out, Catch::Contains("#\n"));
  CHECK_THAT(r.out, Catch::Contains("Checked: checkmate after 31 plies, as announced"));
  auto black = run_tbkit("probe '8/8/8/8/pP6/8/K7/7k b - - 0 1' --line" + kDir);
  CHECK(black.exit_code == 0);
  CHECK_THAT(black.out, Catch::Contains("Line:    1... "));
  CHECK_THAT(black.out, Catch::Contains("checkmate after 30 plies"));
}

TEST_CASE("tbkit probe --json", "[probe][cli]") {
  auto r = run_tbkit("probe '8/8/8/5k2/8/8/1Q6/K7 w - - 0 1' --json --line" + kDir);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("{\"fen\": \"8/8/8/5k2/8/8/1Q6/K7 w - - 0 1\", \"side_to_move\": \"white\", "
                                      "\"result\": \"win\", \"dtm_plies\": 19, \"mate_in_moves\": 10, "
                                      "\"verdict\": \"White mates in 10\", \"wdl50\": null, \"dtz50\": null, "
                                      "\"moves\": [{\"san\": \"Kb1\""));
  CHECK_THAT(r.out, Catch::Contains("{\"san\": \"Qf6+\", \"uci\": \"b2f6\", \"result\": \"draw\", \"dtm_plies\": 0}]"));
  CHECK_THAT(r.out, Catch::Contains("\"checked\": true}}\n"));
}

TEST_CASE("tbkit probe -: batch mode, one line per FEN, continues after errors", "[probe][cli]") {
  const std::string input =
      "8/8/8/5k2/8/8/1Q6/K7 w - - 0 1\n"
      "not a fen\n"
      "\n"
      "1r2k3/8/8/8/8/Q7/Q7/7K w - - 0 1\n"
      "7K/k7/8/Pp6/8/8/8/8 w - b6 0 1\n";
  auto r = run_tbkit("probe -" + kDir, input);
  CHECK(r.exit_code == 2);  // the first failure's code
  CHECK_THAT(r.out, Catch::Contains("8/8/8/5k2/8/8/1Q6/K7 w - - 0 1: White mates in 10 (19 plies); best Kb1\n"));
  CHECK_THAT(r.out, Catch::Contains("not a fen: error: bad FEN"));
  CHECK_THAT(r.out, Catch::Contains("1r2k3/8/8/8/8/Q7/Q7/7K w - - 0 1: error: no table for KQQvKR"));
  CHECK_THAT(r.out, Catch::Contains("7K/k7/8/Pp6/8/8/8/8 w - b6 0 1: Draw; best axb6+\n"));
  auto json = run_tbkit("probe - --json" + kDir, "1r2k3/8/8/8/8/Q7/Q7/7K w - - 0 1\n8/8/8/5k2/8/8/1Q6/K7 w - - 0 1\n");
  CHECK(json.exit_code == 5);
  CHECK_THAT(json.out, Catch::StartsWith("{\"input\": \"1r2k3/8/8/8/8/Q7/Q7/7K w - - 0 1\", \"error\": \"no table for KQQvKR"));
  CHECK_THAT(json.out, Catch::Contains("\"exit_code\": 5}\n{\"fen\": \"8/8/8/5k2/8/8/1Q6/K7 w - - 0 1\""));
}

TEST_CASE("tbkit probe: exit codes for bad input, castling, missing tables and directories", "[probe][cli]") {
  auto bad = run_tbkit("probe 'rubbish'" + kDir);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("bad FEN"));
  auto castling = run_tbkit("probe 'r3k3/8/8/8/8/8/8/4K3 b q - 0 1'" + kDir);
  CHECK(castling.exit_code == 2);
  CHECK_THAT(castling.err, Catch::Contains("castling rights"));
  auto start = run_tbkit("probe startpos" + kDir);
  CHECK(start.exit_code == 5);
  CHECK_THAT(start.err, Catch::Contains("no table has 32 men"));
  auto none = run_tbkit("probe '1r2k3/8/8/8/8/Q7/Q7/7K w - - 0 1'" + kDir);
  CHECK(none.exit_code == 5);
  CHECK_THAT(none.err, Catch::Contains("no table for KQQvKR (5 men): KQQvKR.dtm not found"));
  auto dir = run_tbkit("probe '8/8/8/5k2/8/8/1Q6/K7 w - - 0 1' -d /no/such/dir");
  CHECK(dir.exit_code == 3);
  CHECK_THAT(dir.err, Catch::Contains("/no/such/dir"));
  auto help = run_tbkit("probe --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("--line"));
  CHECK_THAT(help.out, Catch::Contains("5 no table"));
}

TEST_CASE("tbkit probe: a cache size out of range or beyond the machine's memory is a bad option", "[probe][cli]") {
  // Once an uncaught std::bad_alloc (exit 134) for --cache 30000 on a 24 GiB machine, and a wrap
  // to a huge size for -1.
  const std::string fen = " '8/8/8/5k2/8/8/1Q6/K7 w - - 0 1'" + kDir;
  for (const char* cache : {"-1", "1048577"}) {
    INFO(cache);
    auto r = run_tbkit("probe" + fen + " --cache " + cache);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--cache: Value " + std::string(cache) + " not in range 0 to 1048576"));
  }
  auto huge = run_tbkit("probe" + fen + " --cache 1048576");  // 1 TiB
  CHECK(huge.exit_code == 2);
  CHECK_THAT(huge.err, Catch::Contains("--cache: 1048576 MiB is more than this machine's memory"));
  for (const char* cache : {"0", "1", "64"}) {
    INFO(cache);
    auto r = run_tbkit("probe" + fen + " --cache " + cache);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Verdict: White mates in 10 (19 plies)"));
  }
}

TEST_CASE("tbkit probe: the 50-move rule's values beside DTM and a line that follows DTZ50", "[probe][cli][syzygy]") {
  // The official Syzygy fixtures beside our DTM tables.
  const std::string dirs = kDir + " -d " + TBKIT_DATA_DIR + "/tablebases/syzygy";
  auto r = run_tbkit("probe '8/8/8/5k2/8/8/1Q6/K7 w - - 0 1'" + dirs);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Verdict: White mates in 10 (19 plies); under the 50-move rule a win: DTZ 19"));
  CHECK_THAT(r.out, Catch::Contains("draw                          draw"));  // Qf6+ loses the queen
  auto line = run_tbkit("probe '8/8/8/5k2/8/8/1Q6/K7 w - - 0 1' --line --follow dtz" + dirs);
  CHECK(line.exit_code == 0);
  CHECK_THAT(line.out, Catch::Contains("Checked: checkmate after 19 plies"));
  auto json = run_tbkit("probe '8/8/8/1k6/8/8/K5P1/8 w - - 0 1' --json" + dirs);
  CHECK(json.exit_code == 0);
  CHECK_THAT(json.out, Catch::Contains("\"dtm_plies\": 55"));
  CHECK_THAT(json.out, Catch::Contains("\"wdl50\": \"win\", \"dtz50\": 19"));
  // Without a DTZ file the line cannot follow DTZ50.
  auto none = run_tbkit("probe '8/8/8/5k2/8/8/1R6/K7 w - - 0 1' --line --follow dtz" + kDir);
  CHECK(none.exit_code == 5);
}
