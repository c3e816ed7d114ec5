// `tbkit pgn scan`: output and exit codes for good and bad input.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

TEST_CASE("tbkit pgn scan --variations counts the variations it dropped", "[pgn][cli]") {
  const auto path = std::filesystem::temp_directory_path() / ("tbkit-pgn-var-" + std::to_string(::getpid()) + ".pgn");
  std::ofstream(path) << "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 (1... c5 2. Nf3 (2. Qxf7)) 2. Nf3 Nc6 1-0\n";
  auto text = run_tbkit("pgn scan -q --variations " + path.string());
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("games used: 1\ngames skipped: 0\n") != std::string::npos);
  CHECK(text.out.find("variations dropped: 1\n  illegal_move: 1\n") != std::string::npos);
  auto json = run_tbkit("pgn scan -q --json --variations " + path.string());
  CHECK(json.out.find("\"dropped_by_reason\": {\"illegal_move\": 1}") != std::string::npos);
  // Without --variations the variation is not read, so nothing is dropped.
  auto plain = run_tbkit("pgn scan -q " + path.string());
  CHECK(plain.out.find("variations dropped") == std::string::npos);
  std::filesystem::remove(path);
}
