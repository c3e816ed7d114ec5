#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/cli/cli_runner.h"

using tbkit::testing::run_tbkit;

TEST_CASE("perft counts nodes and reports time", "[cli][perft]") {
  auto r = run_tbkit("perft startpos 4");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("Nodes: 197281\n", 0) == 0);
  CHECK(r.out.find("Time: ") != std::string::npos);
  CHECK(r.out.find("Nodes/s: ") != std::string::npos);
}

TEST_CASE("perft --divide lists each root move", "[cli][perft]") {
  auto r = run_tbkit("perft 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1' 2 --divide");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("e1g1: 43\n") != std::string::npos);
  CHECK(r.out.find("e1c1: 43\n") != std::string::npos);
  CHECK(r.out.find("Nodes: 2039\n") != std::string::npos);
  CHECK(std::count(r.out.begin(), r.out.end(), ':') >= 48);
}

TEST_CASE("perft --suite prints failures and a final tally", "[cli][perft]") {
  const auto path = std::filesystem::temp_directory_path() / "tbkit_cli_suite_test.epd";
  {
    std::ofstream out(path);
    out << "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8903\n";
    out << "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1 ;D1 14 ;D2 191\n";
  }
  auto failing = run_tbkit("perft --suite '" + path.string() + "'");
  CHECK(failing.exit_code == 1);
  CHECK(failing.out.find("depth 3: expected 8903, got 8902") != std::string::npos);
  CHECK(failing.out.find("4 passed, 1 failed\n") != std::string::npos);

  auto limited = run_tbkit("perft --suite '" + path.string() + "' --max-depth 2");
  CHECK(limited.exit_code == 0);
  CHECK(limited.out == "4 passed, 0 failed\n");

  {
    std::ofstream out(path);
    out << "id broken\nperft 1 20\n";
  }
  auto malformed = run_tbkit("perft --suite '" + path.string() + "'");
  CHECK(malformed.exit_code == 2);
  CHECK(malformed.err.find(":2: 'perft' line before any 'epd' line") != std::string::npos);
  std::filesystem::remove(path);

  auto missing = run_tbkit("perft --suite /nonexistent/suite.epd");
  CHECK(missing.exit_code == 3);
  CHECK(missing.err.find("/nonexistent/suite.epd: cannot open") != std::string::npos);
}

TEST_CASE("perft rejects bad arguments", "[cli][perft]") {
  CHECK(run_tbkit("perft startpos x").exit_code == 2);
  CHECK(run_tbkit("perft").exit_code == 2);
  CHECK(run_tbkit("perft '8/8/8/8 w - -' 2").exit_code == 2);
}
