#include <catch2/catch.hpp>

#include "gen/solver.h"
#include "gen/stats.h"
#include "tests/model/material_util.h"

using namespace tbkit::gen;
using namespace tbkit::chess;
using tbkit::model::testing::mat;

namespace {

// Solves `wanted` and everything it depends on into `set`, with `threads` threads.
void solve_into(TableSet& set, const std::vector<Material>& wanted, int threads) {
  tbb::task_arena arena(threads);
  for (const Material& m : dependency_closure(wanted)) {
    if (set.contains(m)) continue;
    auto t = solve_table(m, set, arena);
    REQUIRE(t.ok());
    set.add(std::move(*t));
  }
}

}  // namespace

TEST_CASE("KQvK statistics match the published figures", "[gen][solver]") {
  TableSet set;
  solve_into(set, {mat("KQvK")}, 1);
  const TableStats s = compute_stats(*set.find(mat("KQvK")));
  CHECK(s.side[0].legal == 144508);
  CHECK(s.side[0].win == 144508);
  CHECK(s.side[0].longest_win_plies == 19);
  CHECK(s.side[1].legal == 223944);
  CHECK(s.side[1].draw == 23048);
  CHECK(s.side[1].win == 0);
}

TEST_CASE("Longest mates of 3-piece tables", "[gen][solver]") {
  TableSet set;
  solve_into(set, all_materials(3), 2);
  CHECK(compute_stats(*set.find(mat("KRvK"))).side[0].longest_win_plies == 31);
  CHECK(compute_stats(*set.find(mat("KPvK"))).side[0].longest_win_plies == 55);
  CHECK(compute_stats(*set.find(mat("KBvK"))).side[0].win == 0);
  CHECK(compute_stats(*set.find(mat("KNvK"))).side[1].loss == 0);
}

TEST_CASE("Statistics counted in parallel chunks are those of one walk in index order", "[gen][solver]") {
  TableSet set;
  solve_into(set, {mat("KBNvK")}, 2);
  const SolvedTable& table = *set.find(mat("KBNvK"));
  const IndexScheme& scheme = table.scheme;
  // The oracle: every slot in index order, decoded on its own.
  TableStats want;
  std::uint64_t undecoded = 0;
  want.slots = 2 * scheme.size();
  for (int s = 0; s < 2; ++s) {
    SideStats& out = want.side[s];
    std::uint64_t longest = 0;
    Board b;
    for (std::uint64_t i = 0; i < scheme.size(); ++i) {
      const DtmValue v = table.values[s][i];
      if (v.is_illegal()) continue;
      undecoded += !scheme.decode(i, Color(s), b);
      const auto n = std::uint64_t(scheme.orbit_size(b));
      ++want.stored;
      out.legal += n;
      if (v.is_win()) out.win += n;
      else if (v.is_loss()) out.loss += n;
      else out.draw += n;
      if (v.is_win() && v.plies() > out.longest_win_plies) {
        out.longest_win_plies = v.plies();
        longest = i;
      }
      if (v.is_loss()) out.longest_loss_plies = std::max(out.longest_loss_plies, v.plies());
    }
    if (out.longest_win_plies > 0) {
      REQUIRE(scheme.decode(longest, Color(s), b));
      out.longest_win_fen = board_to_fen(b);
    }
  }
  REQUIRE(undecoded == 0);
  REQUIRE(scheme.size() > 8 * (std::uint64_t{1} << 16));  // many chunks a side
  CHECK(want.side[0].longest_win_plies == 65);
  for (int threads : {1, 2}) {
    INFO(threads << " threads");
    tbb::task_arena arena(threads);
    const TableStats got = compute_stats(table, arena);
    CHECK(got.slots == want.slots);
    CHECK(got.stored == want.stored);
    for (int s = 0; s < 2; ++s) {
      INFO("side " << s);
      CHECK(got.side[s].legal == want.side[s].legal);
      CHECK(got.side[s].win == want.side[s].win);
      CHECK(got.side[s].draw == want.side[s].draw);
      CHECK(got.side[s].loss == want.side[s].loss);
      CHECK(got.side[s].longest_win_plies == want.side[s].longest_win_plies);
      CHECK(got.side[s].longest_win_fen == want.side[s].longest_win_fen);
      CHECK(got.side[s].longest_loss_plies == want.side[s].longest_loss_plies);
    }
  }
}
