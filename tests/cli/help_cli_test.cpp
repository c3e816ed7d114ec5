#include <catch2/catch.hpp>

#include "tests/cli/cli_runner.h"

using tbkit::testing::run_tbkit;

TEST_CASE("version and help flags", "[cli]") {
  auto v = run_tbkit("--version");
  CHECK(v.exit_code == 0);
  CHECK(v.out.rfind("tbkit ", 0) == 0);

  auto h = run_tbkit("--help");
  CHECK(h.exit_code == 0);
  for (const char* cmd : {"position", "perft", "bench", "help"}) {
    INFO(cmd);
    CHECK(h.out.find(cmd) != std::string::npos);
  }
}

TEST_CASE("every command has help with examples, also through 'help', subcommands' subcommands too", "[cli]") {
  for (const char* cmd : {"position", "perft", "bench", "gen", "verify", "stats", "pgn scan", "book build", "book probe", "book merge", "book learn",
                          "probe", "uci", "play", "match", "explore"}) {
    INFO(cmd);
    auto via_help = run_tbkit(std::string("help ") + cmd);
    auto via_flag = run_tbkit(std::string(cmd) + " --help");
    CHECK(via_help.exit_code == 0);
    CHECK(via_flag.exit_code == 0);
    CHECK(via_help.out == via_flag.out);
    CHECK(via_help.out.find(std::string("Usage: tbkit ") + cmd) != std::string::npos);
    CHECK(via_help.out.find("Example") != std::string::npos);
  }
  auto bare = run_tbkit("help");
  CHECK(bare.exit_code == 0);
  CHECK(bare.out == run_tbkit("--help").out);
  auto unknown = run_tbkit("help nosuchcommand");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("no command 'nosuchcommand'") != std::string::npos);
  CHECK(run_tbkit("nosuchcommand").exit_code == 2);
  CHECK(run_tbkit("").exit_code == 2);
}

TEST_CASE("whole-number options name the option, the bound and the value", "[cli]") {
  // Exit 2 before any work: the checks run while the command line is parsed.
  const auto negative = run_tbkit("book build games.pgn -o out.tbb --max-ply -1");
  CHECK(negative.exit_code == 2);
  CHECK(negative.err.find("--max-ply: must be a whole number, 0 or more, got '-1'") != std::string::npos);
  const auto zero = run_tbkit("verify --play 0");
  CHECK(zero.exit_code == 2);
  CHECK(zero.err.find("--play: must be a whole number, 1 or more, got '0'") != std::string::npos);
  const auto fraction = run_tbkit("perft --suite x.epd --limit 2.5");
  CHECK(fraction.exit_code == 2);
  CHECK(fraction.err.find("--limit: must be a whole number, 0 or more, got '2.5'") != std::string::npos);
}

TEST_CASE("bench prints a stable signature", "[cli][bench][slow]") {
  auto a = run_tbkit("bench");
  auto b = run_tbkit("bench");
  REQUIRE(a.exit_code == 0);
  const auto pos = a.out.rfind("Bench: ");
  REQUIRE(pos != std::string::npos);
  CHECK(a.out.substr(pos) == b.out.substr(b.out.rfind("Bench: ")));
  for (const char* part : {"perft:     ", "notation:  ", "search:    ", "tables:    ", "probe:     ", "book:      "}) {
    INFO(part);
    CHECK(a.out.find(part) != std::string::npos);
  }
  // The parts that hash generated files are deterministic on their own (no clock, no thread count).
  for (const char* part : {"tables:    ", "probe:     ", "book:      "}) {
    INFO(part);
    REQUIRE(a.out.find(part) != std::string::npos);
    REQUIRE(b.out.find(part) != std::string::npos);
    const auto line = [&](const std::string& out) { return out.substr(out.find(part), 11 + 16); };  // name and hash
    CHECK(line(a.out) == line(b.out));
  }
  // The probe part probed thousands of positions (it once hashed none: its FENs were all rejected).
  const auto probe_line = a.out.substr(a.out.find("probe:     "));
  const auto open = probe_line.find('(');
  REQUIRE(open != std::string::npos);
  const long positions = std::stol(probe_line.substr(open + 1));
  CHECK(positions >= 4000);
  CHECK(probe_line.find("cbf29ce484222325") == std::string::npos);  // the hash of nothing
}

TEST_CASE("a word that is no subcommand is named, also by help", "[cli]") {
  auto unknown = run_tbkit("help book dump");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("no command 'book dump'; run 'tbkit book --help'") != std::string::npos);
  auto r = run_tbkit("book dump x.tbb");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("tbkit: no command 'book dump'; run 'tbkit book --help' for the list") != std::string::npos);
  auto bare = run_tbkit("book");
  CHECK(bare.exit_code == 2);
  CHECK(bare.err.find("A subcommand is required") != std::string::npos);
}
