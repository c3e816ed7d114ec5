// UCI transcripts: commands piped into `tbkit uci`, replies checked.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "chess/fen.h"
#include "chess/notation.h"
#include "tests/cli/cli_runner.h"

using tbkit::testing::run_tbkit;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> starting_with(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& l : lines_of(text))
    if (l.rfind(prefix, 0) == 0) out.push_back(l);
  return out;
}

std::string temp_dir(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("tbkit-uci-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::create_directories(p);
  return p.string();
}

}  // namespace

TEST_CASE("UCI handshake, options, search and info lines", "[player][uci][cli]") {
  const auto r = run_tbkit("uci",
                           "uci\nisready\nsetoption name Hash value 8\nsetoption name MoveOverhead value 5\n"
                           "ucinewgame\nposition startpos moves e2e4 e7e5\ngo depth 5\nisready\n");
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(r.out);
  REQUIRE(!lines.empty());
  CHECK(lines[0] == "id name tbkit");
  for (const char* opt : {"Hash", "BookFile", "BookMinGames", "BookSelection", "TablebasePath", "MoveOverhead"})
    CHECK(r.out.find(std::string("option name ") + opt + " type") != std::string::npos);
  CHECK(r.out.find("uciok") != std::string::npos);
  CHECK(starting_with(r.out, "readyok").size() == 2);
  CHECK(r.out.find("info string error") == std::string::npos);
  const auto infos = starting_with(r.out, "info depth");
  REQUIRE(infos.size() >= 1);
  const std::regex info_re(R"(info depth \d+ seldepth \d+ score (cp -?\d+|mate -?\d+) nodes \d+ nps \d+ time \d+ pv( [a-h][1-8][a-h][1-8][qrbn]?)+)");
  for (const auto& l : infos) CHECK(std::regex_match(l, info_re));
  const auto best = starting_with(r.out, "bestmove");
  REQUIRE(best.size() == 1);
  CHECK(std::regex_match(best[0], std::regex(R"(bestmove [a-h][1-8][a-h][1-8][qrbn]?( ponder [a-h][1-8][a-h][1-8][qrbn]?)?)")));
  // The last info line reaches the requested depth.
  CHECK(infos.back().rfind("info depth 5 ", 0) == 0);
}

TEST_CASE("UCI finds a mate in 2 and reports it as 'score mate 2'", "[player][uci][cli]") {
  // Confirmed with Stockfish 15.1 (only mate in 2: Rg1+).
  const auto r = run_tbkit("uci", "position fen 6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1\ngo depth 6\n");
  REQUIRE(r.exit_code == 0);
  CHECK(starting_with(r.out, "info depth").back().find("score mate 2 ") != std::string::npos);
  CHECK(starting_with(r.out, "bestmove g2g1").size() == 1);
}

TEST_CASE("UCI 'go infinite' runs until 'stop', and quit mid-search still answers", "[player][uci][cli]") {
  const auto r = run_tbkit("uci", "position startpos\ngo infinite\nisready\nstop\nposition startpos moves d2d4\ngo movetime 200\n");
  REQUIRE(r.exit_code == 0);
  // isready is answered while searching, then one bestmove per go (the second at end of input).
  CHECK(starting_with(r.out, "readyok").size() == 1);
  CHECK(starting_with(r.out, "bestmove").size() == 2);
  const auto ready = r.out.find("readyok");
  const auto first_best = r.out.find("bestmove");
  CHECK(ready < first_best);
}

TEST_CASE("UCI wtime/btime and movetime limits return a legal move promptly", "[player][uci][cli]") {
  const auto r = run_tbkit("uci",
                           "position startpos moves e2e4\ngo wtime 1000 btime 1000 winc 0 binc 0\nisready\n"
                           "position startpos\ngo nodes 3000\nisready\nposition startpos\ngo movetime 100\nquit\n");
  REQUIRE(r.exit_code == 0);
  CHECK(starting_with(r.out, "bestmove").size() == 3);
}

TEST_CASE("UCI reports bad commands and bad options without stopping", "[player][uci][cli]") {
  const auto r = run_tbkit("uci",
                           "frobnicate\nposition fen 8/8/8/8/8/8/8/8 w - - 0 1\nposition startpos moves e2e5\n"
                           "setoption name Hash value lots\nsetoption name BookFile value /nonexistent/book.tbb\n"
                           "setoption name BookSelection value random\nsetoption name Nope value 1\n"
                           "setoption name TablebasePath value /nonexistent/dir\n"
                           "setoption name MoveOverhead value 5001\nsetoption name BookMinGames value 4294967296\n"
                           "isready\nquit\n");
  REQUIRE(r.exit_code == 0);
  const auto errors = starting_with(r.out, "info string error:");
  CHECK(errors.size() == 10);
  // Out of the ranges "uci" announces (4294967296 once wrapped to 0 games).
  CHECK(r.out.find("MoveOverhead: expected milliseconds from 0 to 5000, got '5001'") != std::string::npos);
  CHECK(r.out.find("BookMinGames: expected a number from 1 to 1000000, got '4294967296'") != std::string::npos);
  CHECK(r.out.find("unknown command 'frobnicate'") != std::string::npos);
  CHECK(r.out.find("move 'e2e5'") != std::string::npos);
  CHECK(r.out.find("/nonexistent/book.tbb") != std::string::npos);
  CHECK(starting_with(r.out, "readyok").size() == 1);
}

TEST_CASE("UCI with tables plays the table's fastest mate and announces its distance", "[player][uci][cli][tables]") {
  const std::string dir = temp_dir("tables");
  REQUIRE(run_tbkit("gen KRvK -q -d " + dir).exit_code == 0);
  // KRvK, White to move: the table's longest win (31 plies = mate in 16) is found by `tbkit stats`;
  // here a position the table rates mate in 11 moves must be announced as exactly that.
  const auto probe = run_tbkit("probe '8/8/8/4k3/8/8/8/R3K3 w - - 0 1' -d " + dir);
  REQUIRE(probe.exit_code == 0);
  const std::smatch m = [&] {
    std::smatch mm;
    std::regex_search(probe.out, mm, std::regex(R"(White mates in (\d+))"));
    return mm;
  }();
  REQUIRE(m.size() == 2);
  const std::string mate = m[1];
  const auto r = run_tbkit("uci", "setoption name TablebasePath value " + dir +
                                      "\nposition fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1\ngo movetime 100\nquit\n");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("info string error") == std::string::npos);
  CHECK(r.out.find("score mate " + mate + " ") != std::string::npos);
  // The move played keeps the announced distance: after it the table says mated in mate-1.
  const auto best = starting_with(r.out, "bestmove");
  REQUIRE(best.size() == 1);
  const std::string move = best[0].substr(9, 4);
  auto pos = tbkit::chess::parse_fen("8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
  REQUIRE(pos.ok());
  auto m_played = tbkit::chess::parse_uci(*pos, move);
  REQUIRE(m_played.ok());
  pos->do_move(*m_played);
  const auto after = run_tbkit("probe '" + tbkit::chess::to_fen(*pos) + "' -d " + dir);
  CHECK(after.out.find("Black to move is mated in " + std::to_string(std::stoi(mate) - 1)) != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("UCI: after a bad position command go answers no move, until a good one", "[player][uci][cli]") {
  // Each bad command once let the next go search the position before it (another game's).
  for (const std::string bad : {"position startpos moves e2e4 e2e4", "position fen 8/8/8/8 w - - 0 1"}) {
    INFO(bad);
    const auto r = run_tbkit("uci", "position fen 8/8/8/5k2/8/8/1Q6/K7 w - - 0 1\n" + bad + "\ngo depth 1\nposition startpos moves e2e4\ngo depth 1\nquit\n");
    REQUIRE(r.exit_code == 0);
    const auto best = starting_with(r.out, "bestmove");
    REQUIRE(best.size() == 2);
    CHECK(best[0] == "bestmove 0000");
    CHECK(r.out.find("info string error: go: no position") != std::string::npos);
    // The good command after it restores play: a legal reply to 1. e4.
    const auto reply = best[1].substr(9, 4);
    auto pos = tbkit::chess::Position();
    pos.do_move(*tbkit::chess::parse_uci(pos, "e2e4"));
    CHECK(tbkit::chess::parse_uci(pos, reply).ok());
  }
  // ucinewgame sets the start position, so go plays again.
  const auto r = run_tbkit("uci", "position fen bad\nucinewgame\ngo depth 1\nquit\n");
  const auto best = starting_with(r.out, "bestmove");
  REQUIRE(best.size() == 1);
  CHECK(best[0] != "bestmove 0000");
}

TEST_CASE("UCI: a damaged table is named once and the search goes on without it", "[player][uci][cli][tables]") {
  const std::string dir = temp_dir("damaged");
  REQUIRE(run_tbkit("gen KQvK -q -d " + dir).exit_code == 0);
  const auto file = std::filesystem::path(dir) / "KQvK.dtm";
  {
    // The last byte lies in the last block: its checksum fails on the first read of that block.
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-1, std::ios::end);
    const char c = char(f.get());
    f.seekp(-1, std::ios::end);
    f.put(char(c ^ 0x5a));
  }
  REQUIRE(run_tbkit("probe '8/8/8/5k2/8/8/1Q6/K7 b - - 0 1' -d " + dir).exit_code == 4);
  const auto r = run_tbkit("uci", "setoption name TablebasePath value " + dir +
                                      "\nposition fen 8/8/8/5k2/8/8/1Q6/K7 b - - 0 1\ngo depth 2\ngo depth 2\nquit\n");
  REQUIRE(r.exit_code == 0);
  const auto errors = starting_with(r.out, "info string error: tables:");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("KQvK.dtm") != std::string::npos);
  CHECK(errors[0].find("searching without that table") != std::string::npos);
  const auto best = starting_with(r.out, "bestmove");
  REQUIRE(best.size() == 2);
  const auto pos = tbkit::chess::parse_fen("8/8/8/5k2/8/8/1Q6/K7 b - - 0 1");
  REQUIRE(pos.ok());
  for (const auto& b : best) CHECK(tbkit::chess::parse_uci(*pos, b.substr(9, 4)).ok());
  std::filesystem::remove_all(dir);
}
