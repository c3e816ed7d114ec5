#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "tests/support/gaviota_oracle.h"

using namespace tbkit;
using namespace tbkit::testing;

namespace {

// Debian's libgaviotatb-dev test set: the five 3-piece tables, compression scheme cp1.
const std::filesystem::path kDebianSet = "/usr/share/gaviotatb/gtb1";

chess::Position fen(const std::string& text) {
  auto p = chess::parse_fen(text);
  REQUIRE(p.ok());
  return *p;
}

OracleValue probe(const GaviotaOracle& oracle, const std::string& text) {
  auto v = oracle.probe(fen(text));
  INFO(text);
  REQUIRE(v.ok());
  return *v;
}

// The value a position must have given its children's values (one-ply consistency); bare kings
// are drawn and not in Gaviota's set.
OracleValue best_of_children(const GaviotaOracle& oracle, chess::Position pos) {
  const auto moves = chess::legal_moves(pos);
  if (moves.empty()) return pos.in_check() ? OracleValue{OracleWdl::kLoss, 0} : OracleValue{OracleWdl::kDraw, 0};
  OracleValue best{OracleWdl::kLoss, -1};
  auto rank = [](const OracleValue& v) {  // larger is better for the mover
    if (v.wdl == OracleWdl::kWin) return 1'000'000 - v.plies;
    if (v.wdl == OracleWdl::kLoss) return -1'000'000 + v.plies;
    return 0;
  };
  for (chess::Move m : moves) {
    pos.do_move(m);
    OracleValue child{OracleWdl::kDraw, 0};
    if (chess::popcount(pos.pieces()) > 2) {
      auto v = oracle.probe(pos);
      REQUIRE(v.ok());
      child = *v;
    }
    pos.undo_move(m);
    OracleValue mine{OracleWdl::kDraw, 0};
    if (child.wdl == OracleWdl::kWin) mine = {OracleWdl::kLoss, child.plies + 1};
    if (child.wdl == OracleWdl::kLoss) mine = {OracleWdl::kWin, child.plies + 1};
    if (best.plies < 0 || rank(mine) > rank(best)) best = mine;
  }
  return best;
}

// Every legal placement of the two kings and one `extra` man, both sides to move.
std::vector<chess::Position> all_placements(chess::Piece extra) {
  std::vector<chess::Position> out;
  for (int wk = 0; wk < 64; ++wk)
    for (int bk = 0; bk < 64; ++bk)
      for (int x = 0; x < 64; ++x)
        for (int side = 0; side < 2; ++side) {
          if (wk == bk || x == wk || x == bk) continue;
          chess::PositionSetup s;
          s.board.fill(chess::Piece::none());
          s.board[std::size_t(wk)] = chess::Piece(chess::Color::kWhite, chess::PieceType::kKing);
          s.board[std::size_t(bk)] = chess::Piece(chess::Color::kBlack, chess::PieceType::kKing);
          s.board[std::size_t(x)] = extra;
          s.side = chess::Color(side);
          if (auto p = chess::Position::from_setup(s)) out.push_back(*p);
        }
  return out;
}

}  // namespace

TEST_CASE("Gaviota oracle: known 3-piece values", "[support][gaviota]") {
  auto oracle = GaviotaOracle::open({kDebianSet});
  REQUIRE(oracle.ok());
  // Longest mates: KQvK 10 moves, KRvK 16, KPvK 28.
  CHECK(probe(*oracle, "8/8/8/5k2/8/8/1Q6/K7 w - - 0 1") == OracleValue{OracleWdl::kWin, 19});
  CHECK(probe(*oracle, "8/8/8/8/8/2k5/1R6/K7 w - - 0 1") == OracleValue{OracleWdl::kWin, 31});
  CHECK(probe(*oracle, "8/8/8/1k6/8/8/K5P1/8 w - - 0 1") == OracleValue{OracleWdl::kWin, 55});
  // Checkmated now is a loss in 0 plies; the loser's side of a mate in 1 is a loss in 2.
  CHECK(probe(*oracle, "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1") == OracleValue{OracleWdl::kLoss, 0});
  CHECK(probe(*oracle, "k7/8/1K6/8/8/8/8/7Q b - - 0 1") == OracleValue{OracleWdl::kLoss, 2});
  CHECK(probe(*oracle, "k7/8/1K6/8/8/8/8/7Q b - - 0 1").dtm() == formats::DtmValue::loss_in_plies(2));
  // Black wins with Black's queen; stalemate and insufficient material are draws.
  CHECK(probe(*oracle, "8/8/8/5K2/8/8/1q6/k7 b - - 0 1") == OracleValue{OracleWdl::kWin, 19});
  CHECK(probe(*oracle, "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1") == OracleValue{OracleWdl::kDraw, 0});
  CHECK(probe(*oracle, "8/8/8/3k4/8/8/1B6/K7 w - - 0 1") == OracleValue{OracleWdl::kDraw, 0});
  CHECK(probe(*oracle, "8/8/8/3k4/8/8/1B6/K7 w - - 0 1").dtm() == formats::DtmValue::draw());
}

TEST_CASE("Gaviota oracle agrees with the 3-piece positions of endgame-dm-4.epd", "[support][gaviota]") {
  auto oracle = GaviotaOracle::open({kDebianSet});
  REQUIRE(oracle.ok());
  std::ifstream in(std::string(TBKIT_DATA_DIR) + "/tablebases/endgame-dm-4.epd");
  REQUIRE(in.good());
  int checked = 0;
  for (std::string line; std::getline(in, line);) {
    const auto dm_at = line.find(" dm ");
    if (line.empty() || line[0] == '#' || dm_at == std::string::npos) continue;
    const auto pos = fen(line.substr(0, dm_at));
    if (chess::popcount(pos.pieces()) != 3) continue;
    const int dm = std::stoi(line.substr(dm_at + 4));
    INFO(line);
    const OracleValue expected = dm > 0   ? OracleValue{OracleWdl::kWin, 2 * dm - 1}
                                 : dm < 0 ? OracleValue{OracleWdl::kLoss, -2 * dm}
                                          : OracleValue{OracleWdl::kDraw, 0};
    CHECK(probe(*oracle, line.substr(0, dm_at)) == expected);
    CHECK(best_of_children(*oracle, pos) == expected);
    ++checked;
  }
  CHECK(checked == 4);
}

TEST_CASE("Gaviota oracle is one-ply consistent on sampled positions", "[support][gaviota]") {
  auto oracle = GaviotaOracle::open({kDebianSet});
  REQUIRE(oracle.ok());
  const char* fens[] = {"8/8/8/5k2/8/8/1Q6/K7 b - - 0 1", "8/8/3k4/8/8/2K5/1R6/8 w - - 0 1",
                        "8/8/3k4/8/8/2K5/1R6/8 b - - 0 1", "8/8/8/1k6/8/8/K5P1/8 b - - 0 1",
                        "8/8/8/8/1p6/8/K7/7k b - - 0 1",   "4k3/4P3/4K3/8/8/8/8/8 b - - 0 1",
                        "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1"};
  for (const char* f : fens) {
    INFO(f);
    CHECK(probe(*oracle, f) == best_of_children(*oracle, fen(f)));
  }
}

TEST_CASE("Gaviota oracle reports what it cannot answer", "[support][gaviota]") {
  CHECK(GaviotaOracle::open({"/nonexistent-dir"}).error().code == ErrorCode::kIo);
  CHECK(GaviotaOracle::open({TBKIT_DATA_DIR}).error().code == ErrorCode::kUnavailable);
  auto oracle = GaviotaOracle::open({kDebianSet});
  REQUIRE(oracle.ok());
  CHECK(GaviotaOracle::open({kDebianSet}).error().code == ErrorCode::kUnavailable);
  CHECK(oracle->probe(fen("8/8/8/3k4/8/8/1R6/K1r5 w - - 0 1")).error().code == ErrorCode::kUnavailable);
  CHECK(oracle->probe(fen("r3k3/8/8/8/8/8/8/4K3 w q - 0 1")).error().code == ErrorCode::kIllegal);
  GaviotaOracle moved = std::move(*oracle);
  CHECK(probe(moved, "8/8/8/5k2/8/8/1Q6/K7 w - - 0 1") == OracleValue{OracleWdl::kWin, 19});
}

// libgaviotatb answers a probe from the wrong table when another thread probes another material at
// the same time (gaviota_oracle.h); probe() must not.
TEST_CASE("Gaviota oracle answers from two threads as from one", "[support][gaviota]") {
  auto oracle = GaviotaOracle::open({kDebianSet});
  REQUIRE(oracle.ok());
  const std::vector<chess::Position> sets[2] = {
      all_placements(chess::Piece(chess::Color::kWhite, chess::PieceType::kQueen)),
      all_placements(chess::Piece(chess::Color::kBlack, chess::PieceType::kKnight))};
  std::vector<Result<OracleValue>> alone[2];
  for (int t = 0; t < 2; ++t)
    for (const auto& pos : sets[t]) alone[t].push_back(oracle->probe(pos));
  std::uint64_t differing[2] = {0, 0};
  auto run = [&](int t) {
    for (std::size_t i = 0; i < sets[t].size(); ++i) {
      const auto v = oracle->probe(sets[t][i]);
      const auto& a = alone[t][i];
      differing[t] += v.ok() != a.ok() || (v.ok() && *v != *a);
    }
  };
  // Unserialised, a round answers dozens to thousands of these differently; three make sure the
  // two threads overlap for a while.
  for (int round = 0; round < 3; ++round) {
    std::thread other(run, 1);
    run(0);
    other.join();
  }
  CHECK(sets[0].size() > 100000);
  CHECK(sets[1].size() > 100000);
  CHECK(differing[0] == 0);
  CHECK(differing[1] == 0);
}
