// `tbkit pgn scan`: output and exit codes for good and bad input.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "reader_test_util.h"

using tbkit::pgn::testing::data_path;

namespace {

struct Run {
  int exit_code = -1;
  std::string out;
};

Run run_tbkit(const std::string& args) {
  const char* binary = std::getenv("TBKIT_BINARY");
  REQUIRE(binary != nullptr);
  Run r;
  FILE* p = popen((std::string(binary) + " " + args + " 2>/dev/null").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST_CASE("tbkit pgn scan: summary and exit codes", "[pgn][cli]") {
  const std::string edge = data_path("pgn/edge/");
  auto ok = run_tbkit("pgn scan -q " + edge + "chess-library/multiple.pgn " + edge + "chess-library/black2move.pgn");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("games read: 5\n") != std::string::npos);
  CHECK(ok.out.find("games used: 4\n") != std::string::npos);
  CHECK(ok.out.find("  illegal_move: 1\n") != std::string::npos);
  CHECK(ok.out.find("black2move.pgn:4: game 1: ") != std::string::npos);

  auto json = run_tbkit("pgn scan -q --json -t 2 " + data_path("pgn/small.pgn.zst"));
  CHECK(json.exit_code == 0);
  CHECK(json.out.find("\"games_read\": 2, \"games_used\": 2") != std::string::npos);
  CHECK(json.out.find("\"moves\": 9") != std::string::npos);

  CHECK(run_tbkit("pgn scan -q --strict " + edge + "chess-library/black2move.pgn").exit_code == 1);
  CHECK(run_tbkit("pgn scan -q --strict " + edge + "chess-library/multiple.pgn").exit_code == 0);
  CHECK(run_tbkit("pgn scan -q " + data_path("pgn/no-such-file.pgn")).exit_code == 3);
  CHECK(run_tbkit("pgn scan -q " + data_path("pgn/truncated.pgn.zst")).exit_code == 4);
  CHECK(run_tbkit("pgn scan -q -t 0 " + data_path("pgn/small.pgn")).exit_code == 2);
  CHECK(run_tbkit("pgn scan").exit_code == 2);
  auto help = run_tbkit("pgn scan --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Exit codes") != std::string::npos);
  auto stdin_run = run_tbkit("pgn scan -q - < " + data_path("pgn/small.pgn"));
  CHECK(stdin_run.exit_code == 0);
  CHECK(stdin_run.out.find("games read: 2\n") != std::string::npos);
}
