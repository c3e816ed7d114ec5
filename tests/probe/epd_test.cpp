// The 48 positions of data/tablebases/endgame-dm-4.epd (Gaviota's DTM, in moves: "dm 16" = the
// side to move mates in 16, "dm -15" = it is mated in 15, "dm 0" = draw) against our tables, which
// the ctest fixture generates (all 3- and 4-piece tables, into TBKIT_TEST_TABLES_DIR).
#include <catch2/catch.hpp>

#include <fstream>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "probe/tablebase.h"

using namespace tbkit;
using formats::DtmValue;

TEST_CASE("All 48 positions of endgame-dm-4.epd match, with their best moves", "[probe][epd]") {
  auto tb = probe::Tablebase::open({TBKIT_TEST_TABLES_DIR});
  REQUIRE(tb.ok());
  REQUIRE(tb->max_men() == 4);
  std::ifstream in(std::string(TBKIT_DATA_DIR) + "/tablebases/endgame-dm-4.epd");
  REQUIRE(in);
  std::string line;
  int checked = 0, with_ep = 0, draws = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto dm_at = line.find(" dm ");
    REQUIRE(dm_at != std::string::npos);
    const std::string epd = line.substr(0, dm_at);
    const int dm = std::stoi(line.substr(dm_at + 4));
    INFO(line);
    auto pos = chess::parse_fen(epd + " 0 1");
    REQUIRE(pos.ok());
    auto v = tb->probe(*pos);
    REQUIRE(v.ok());
    const bool mated = pos->status() == chess::GameStatus::kCheckmate;
    const DtmValue expected = dm > 0 ? DtmValue::win_in_plies(2 * dm - 1)
                              : dm < 0 || mated ? DtmValue::loss_in_plies(-2 * dm)
                                                : DtmValue::draw();
    CHECK(v->raw() == expected.raw());
    auto ranked = tb->rank_moves(*pos);
    REQUIRE(ranked.ok());
    // Every legal move ranked: the best is skipped only where there is no move.
    REQUIRE(ranked->size() == chess::legal_moves(*pos).size());
    if (!ranked->empty()) CHECK(ranked->front().value == *v);
    ++checked;
    with_ep += !pos->en_passant().is_none();
    draws += dm == 0;
  }
  CHECK(checked == 48);
  CHECK(with_ep >= 3);
  CHECK(draws >= 4);
}
